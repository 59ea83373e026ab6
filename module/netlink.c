// SPDX-License-Identifier: GPL-2.0
/*
 * The luf generic netlink family: status, counters, tuning and events.
 *
 * The family, its policies and its op table are generated from
 * module/netlink/luf.yaml (netlink/luf-nl-gen.c); this file has the
 * handlers.  The knobs go through the table in knobs.c, as the sysfs files
 * do; stats_interval_ms, which only the stats group uses, is netlink's own
 * entry in that table.  luf's state is global, so notifications go to the
 * initial network namespace, and a set needs CAP_NET_ADMIN there
 * (GENL_ADMIN_PERM checks the initial user namespace).
 */

#include <linux/bug.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "internal.h"
#include "netlink/luf-nl-gen.h"

/*
 * luf_nl_live: the family is registered and may notify.  The event
 * handlers run only while luf_nl_events is registered (see events.c for
 * when they may run); the bind hook and a new stats_interval_ms queue the
 * stats worker under rcu_read_lock() after testing it, and luf_nl_exit()
 * unregisters the handlers, clears it, waits for a grace period and then
 * cancels the workers, so none is queued after the cancel.
 */
static bool luf_nl_live;

/* The stat counters in the order of the stats attributes. */
static_assert(LUF_A_STATS_NUMA_SYNC - LUF_A_STATS_OFFERED + 1 == NR_LUF_STATS);
static_assert(LUF_A_STATS_REFUSED_WRITABLE - LUF_A_STATS_OFFERED ==
	      LUF_STAT_REFUSED + LUF_REFUSED_WRITABLE);
static_assert(LUF_A_STATS_FLUSH_ALLOC - LUF_A_STATS_OFFERED ==
	      LUF_STAT_FLUSH + LUF_FLUSH_ALLOC);
static_assert(LUF_A_STATS_FLUSH_RESERVE - LUF_A_STATS_OFFERED ==
	      LUF_STAT_FLUSH + LUF_FLUSH_RESERVE);
static_assert(LUF_A_STATS_FLUSH_AGE - LUF_A_STATS_OFFERED ==
	      LUF_STAT_FLUSH + LUF_FLUSH_AGE);
static_assert(LUF_A_STATS_FLUSH_MM - LUF_A_STATS_OFFERED == LUF_STAT_FLUSH_MM);
static_assert(LUF_A_STATS_NUMA_HELD - LUF_A_STATS_OFFERED == LUF_STAT_NUMA_HELD);

/*
 * The knobs' status attributes.  Attribute numbers are ABI and never
 * change: a knob added later takes the next free number, after the state's
 * attributes, so knobs and attributes need not be in the same order.
 * luf_nl_init() refuses a knob left out here.
 */
static const u16 luf_nl_knob_attr[NR_LUF_KNOBS] = {
	[LUF_KNOB_ENABLED]		= LUF_A_STATUS_ENABLED,
	[LUF_KNOB_MAX_DEFER_MS]		= LUF_A_STATUS_MAX_DEFER_MS,
	[LUF_KNOB_MAX_PAGES]		= LUF_A_STATUS_MAX_PAGES,
	[LUF_KNOB_MIGRATION]		= LUF_A_STATUS_MIGRATION,
	[LUF_KNOB_RECLAIM]		= LUF_A_STATUS_RECLAIM,
	[LUF_KNOB_NUMA]			= LUF_A_STATUS_NUMA,
	[LUF_KNOB_RESERVE]		= LUF_A_STATUS_RESERVE,
	[LUF_KNOB_STATS_INTERVAL_MS]	= LUF_A_STATUS_STATS_INTERVAL_MS,
};

/* The knob whose attribute is @type, or -1. */
static int luf_nl_knob_id(int type)
{
	int id;

	for (id = 0; id < NR_LUF_KNOBS; id++)
		if (luf_nl_knob_attr[id] == type)
			return id;
	return -1;
}

static int luf_nl_put_stats(struct sk_buff *skb)
{
	int i;

	for (i = 0; i < NR_LUF_STATS; i++)
		if (nla_put_u64_64bit(skb, LUF_A_STATS_OFFERED + i,
				      luf_stat_read(i), LUF_A_STATS_PAD))
			return -EMSGSIZE;
	return 0;
}

static int luf_nl_put_status(struct sk_buff *skb)
{
	unsigned int knob[NR_LUF_KNOBS];
	struct luf_state st;
	int i;

	luf_knobs_get(knob);
	luf_defer_get_state(&st, NULL);
	for (i = 0; i < NR_LUF_KNOBS; i++)
		if (nla_put_u32(skb, luf_nl_knob_attr[i], knob[i]))
			return -EMSGSIZE;
	if (nla_put_u32(skb, LUF_A_STATUS_ABI_VERSION, LUF_ABI_VERSION) ||
	    nla_put_u32(skb, LUF_A_STATUS_HOOKS,
			static_key_enabled(luf_core.active)) ||
	    nla_put_u64_64bit(skb, LUF_A_STATUS_GEN_FLUSHED, st.gen_flushed,
			      LUF_A_STATUS_PAD) ||
	    nla_put_u64_64bit(skb, LUF_A_STATUS_GEN_DEFERRED, st.gen_deferred,
			      LUF_A_STATUS_PAD) ||
	    nla_put_u64_64bit(skb, LUF_A_STATUS_GEN_OPEN, st.gen_open,
			      LUF_A_STATUS_PAD) ||
	    nla_put_u32(skb, LUF_A_STATUS_FLUSHING, st.flushing) ||
	    nla_put_u32(skb, LUF_A_STATUS_PENDING_CPUS, st.pending_cpus) ||
	    nla_put_u64_64bit(skb, LUF_A_STATUS_PENDING_PAGES, st.pending_pages,
			      LUF_A_STATUS_PAD) ||
	    nla_put_u32(skb, LUF_A_STATUS_OLDEST_PENDING_MS,
			st.oldest_pending_ms))
		return -EMSGSIZE;
	return 0;
}

static int luf_nl_reply(struct genl_info *info, int (*put)(struct sk_buff *))
{
	struct sk_buff *rsp;
	void *hdr;

	rsp = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;
	hdr = genlmsg_iput(rsp, info);
	if (!hdr || put(rsp)) {
		nlmsg_free(rsp);
		return -EMSGSIZE;
	}
	genlmsg_end(rsp, hdr);
	return genlmsg_reply(rsp, info);
}

int luf_nl_status_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return luf_nl_reply(info, luf_nl_put_status);
}

int luf_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return luf_nl_reply(info, luf_nl_put_stats);
}

/*
 * The policy has already refused unknown attributes, attributes the set
 * does not take and values that are not a u32.  What is left to refuse
 * here, each with a message that names the attribute: a knob given twice
 * (the parsed table keeps only the last one, so the message is walked
 * again), a value out of the knob's range, and a message with no knob.
 * Nothing changes unless every attribute is good.
 */
int luf_nl_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	unsigned int val[NR_LUF_KNOBS];
	unsigned long mask = 0;
	const struct nlattr *a;
	int rem, id, err;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		id = luf_nl_knob_id(nla_type(a));
		if (id < 0) {
			/* Unreachable past the policy; refused all the same. */
			NL_SET_ERR_MSG_ATTR(info->extack, a, "not a knob");
			return -EINVAL;
		}
		if (mask & BIT(id)) {
			NL_SET_ERR_MSG_ATTR_FMT(info->extack, a,
						"%s given twice",
						luf_knob(id)->name);
			return -EINVAL;
		}
		val[id] = nla_get_u32(a);
		if (!luf_knob_valid(id, val[id])) {
			NL_SET_ERR_MSG_ATTR_FMT(info->extack, a,
						"%s=%u is out of range [%u, %u]",
						luf_knob(id)->name, val[id],
						luf_knob(id)->min,
						luf_knob(id)->max);
			return -EINVAL;
		}
		mask |= BIT(id);
	}
	if (!mask) {
		NL_SET_ERR_MSG(info->extack, "no knob to set");
		return -EINVAL;
	}

	err = luf_knobs_set(val, mask, LUF_ORIGIN_NETLINK);
	if (err)
		NL_SET_ERR_MSG_ATTR_FMT(info->extack,
					info->attrs[LUF_A_STATUS_ENABLED],
					"enabling failed (%d): see the kernel log; nothing changed",
					err);
	return err;
}

static bool luf_nl_listening(unsigned int group)
{
	return genl_has_listeners(&luf_nl_family, &init_net, group) > 0;
}

static struct sk_buff *luf_nl_event_new(u8 cmd, gfp_t gfp, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, gfp);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &luf_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static void luf_nl_event_send(struct sk_buff *msg, void *hdr,
			      unsigned int group, gfp_t gfp)
{
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&luf_nl_family, msg, 0, group, gfp);
}

/* The knob_changed event: called with the knobs' lock held. */
static void luf_nl_notify_knob(enum luf_knob_id id, unsigned int val,
			       unsigned int origin)
{
	struct sk_buff *msg;
	void *hdr;

	if (!READ_ONCE(luf_nl_live) || !luf_nl_listening(LUF_NLGRP_EVENTS))
		return;
	msg = luf_nl_event_new(LUF_CMD_EVENT, GFP_KERNEL, &hdr);
	if (!msg)
		return;
	if (nla_put_u32(msg, LUF_A_EVENT_TYPE, LUF_EVENT_TYPE_KNOB) ||
	    nla_put_string(msg, LUF_A_EVENT_KNOB, luf_knob(id)->name) ||
	    nla_put_u64_64bit(msg, LUF_A_EVENT_VALUE, val, LUF_A_EVENT_PAD) ||
	    nla_put_u32(msg, LUF_A_EVENT_ORIGIN, origin)) {
		nlmsg_free(msg);
		return;
	}
	luf_nl_event_send(msg, hdr, LUF_NLGRP_EVENTS, GFP_KERNEL);
}

/*
 * Forced flushes happen in contexts that should not build messages (the
 * reserve's flush runs for an allocation), and under load the limit may
 * force hundreds a second.  So a flush only queues this work, and the work
 * announces, per reason, the count reached since it last looked: a burst
 * is one event whose count says how many.
 */
static const struct {
	const char *name;
	enum luf_stat_item stat;
} luf_nl_forced[] = {
	{ "age", LUF_STAT_FLUSH + LUF_FLUSH_AGE },
	{ "limit", LUF_STAT_FLUSH + LUF_FLUSH_LIMIT },
	{ "reserve", LUF_STAT_FLUSH + LUF_FLUSH_RESERVE },
};

static u64 luf_nl_forced_seen[ARRAY_SIZE(luf_nl_forced)];

static void luf_nl_forced_workfn(struct work_struct *work)
{
	struct sk_buff *msg;
	void *hdr;
	u64 count;
	int i;

	for (i = 0; i < ARRAY_SIZE(luf_nl_forced); i++) {
		if (!READ_ONCE(luf_nl_live))
			return;
		count = luf_stat_read(luf_nl_forced[i].stat);
		if (count == luf_nl_forced_seen[i])
			continue;
		luf_nl_forced_seen[i] = count;
		if (!luf_nl_listening(LUF_NLGRP_EVENTS))
			continue;
		msg = luf_nl_event_new(LUF_CMD_EVENT, GFP_KERNEL, &hdr);
		if (!msg)
			continue;
		if (nla_put_u32(msg, LUF_A_EVENT_TYPE,
				LUF_EVENT_TYPE_FORCED_FLUSH) ||
		    nla_put_string(msg, LUF_A_EVENT_REASON,
				   luf_nl_forced[i].name) ||
		    nla_put_u64_64bit(msg, LUF_A_EVENT_COUNT, count,
				      LUF_A_EVENT_PAD)) {
			nlmsg_free(msg);
			continue;
		}
		luf_nl_event_send(msg, hdr, LUF_NLGRP_EVENTS, GFP_KERNEL);
	}
}

static DECLARE_WORK(luf_nl_forced_work, luf_nl_forced_workfn);

/* The forced event: any context a flush runs in. */
static void luf_nl_kick_forced(unsigned int why)
{
	if (READ_ONCE(luf_nl_live))
		queue_work(system_wq, &luf_nl_forced_work);
}

static const struct luf_events luf_nl_events = {
	.forced		= luf_nl_kick_forced,
	.knob_changed	= luf_nl_notify_knob,
};

/*
 * Periodic snapshots of the counters on the stats group, every
 * stats_interval_ms: the work runs while someone listens and stops
 * re-arming when nobody does; joining the group starts it again
 * (luf_nl_bind()).
 */
static unsigned int luf_nl_stats_interval_ms = 1000;

static unsigned long luf_nl_stats_period(void)
{
	return msecs_to_jiffies(READ_ONCE(luf_nl_stats_interval_ms));
}

static void luf_nl_stats_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(luf_nl_stats_work, luf_nl_stats_workfn);

static void luf_nl_stats_workfn(struct work_struct *work)
{
	struct sk_buff *msg;
	void *hdr;

	if (!READ_ONCE(luf_nl_live) || !luf_nl_listening(LUF_NLGRP_STATS))
		return;
	msg = luf_nl_event_new(LUF_CMD_STATS_NTF, GFP_KERNEL, &hdr);
	if (msg) {
		if (luf_nl_put_stats(msg))
			nlmsg_free(msg);
		else
			luf_nl_event_send(msg, hdr, LUF_NLGRP_STATS, GFP_KERNEL);
	}
	queue_delayed_work(system_wq, &luf_nl_stats_work,
			   luf_nl_stats_period());
}

static void luf_nl_stats_kick(unsigned long delay)
{
	rcu_read_lock();
	if (READ_ONCE(luf_nl_live))
		mod_delayed_work(system_wq, &luf_nl_stats_work, delay);
	rcu_read_unlock();
}

/*
 * A socket joins a group.  It is not counted as a listener yet (netlink
 * calls this first), so the first snapshot goes out after one period.  A
 * timer already running is left alone: joins (which need no privilege)
 * must not postpone the other listeners' snapshots.
 */
static int luf_nl_bind(int group)
{
	if (group != LUF_NLGRP_STATS)
		return 0;
	rcu_read_lock();
	if (READ_ONCE(luf_nl_live))
		queue_delayed_work(system_wq, &luf_nl_stats_work,
				   luf_nl_stats_period());
	rcu_read_unlock();
	return 0;
}

static unsigned int luf_nl_get_interval(void)
{
	return READ_ONCE(luf_nl_stats_interval_ms);
}

/*
 * Called by luf_knobs_set() alone, with the knobs' lock held.  A new
 * period takes effect now, not after the old one ends.
 */
static int luf_nl_set_interval(unsigned int val)
{
	WRITE_ONCE(luf_nl_stats_interval_ms, val);
	if (READ_ONCE(luf_nl_live) && luf_nl_listening(LUF_NLGRP_STATS))
		luf_nl_stats_kick(msecs_to_jiffies(val));
	return 0;
}

/* Only the stats group uses it: the knob is netlink's own. */
static const struct luf_knob luf_nl_interval_knob = {
	"stats_interval_ms", 100, 60000, luf_nl_get_interval,
	luf_nl_set_interval,
};

int luf_nl_init(void)
{
	int err, i;

	for (i = 0; i < NR_LUF_KNOBS; i++)
		if (WARN_ON(!luf_nl_knob_attr[i]))
			return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(luf_nl_forced); i++)
		luf_nl_forced_seen[i] = luf_stat_read(luf_nl_forced[i].stat);
	/* Before the family: a set may come as soon as it is registered. */
	err = luf_knob_register(LUF_KNOB_STATS_INTERVAL_MS,
				&luf_nl_interval_knob);
	if (err)
		return err;
	err = luf_events_register(&luf_nl_events);
	if (err)
		goto err_knob;
	/*
	 * The generated family has no bind hook; it is __ro_after_init, which
	 * for a module means writable until its init returns.
	 */
	luf_nl_family.bind = luf_nl_bind;
	err = genl_register_family(&luf_nl_family);
	if (err)
		goto err_events;
	WRITE_ONCE(luf_nl_live, true);
	/*
	 * A socket may have joined the stats group between the registration
	 * and the line above, when the bind hook could not start the timer
	 * yet: start it once; it stops by itself if nobody listens.
	 */
	luf_nl_stats_kick(luf_nl_stats_period());
	return 0;

err_events:
	luf_events_unregister(&luf_nl_events);
err_knob:
	luf_knob_unregister(LUF_KNOB_STATS_INTERVAL_MS);
	return err;
}

void luf_nl_exit(void)
{
	/* No event handler runs after this... */
	luf_events_unregister(&luf_nl_events);
	/* ...no worker is queued after the grace period... */
	WRITE_ONCE(luf_nl_live, false);
	synchronize_rcu();
	/* ...and none running once the family's groups are gone. */
	cancel_work_sync(&luf_nl_forced_work);
	cancel_delayed_work_sync(&luf_nl_stats_work);
	genl_unregister_family(&luf_nl_family);
	/* No set is in flight once the family is gone, and sysfs went first. */
	luf_knob_unregister(LUF_KNOB_STATS_INTERVAL_MS);
}
