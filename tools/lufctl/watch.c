// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl watch: luf's counters as per-second rates next to the system's TLB
 * shootdowns, like vmstat, and luf's notifications as they arrive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "lufctl.h"

/* The columns: luf counters, refused_* summed, and the TLB row. */
#define COL_REFUSED	-1
#define COL_TLB		-2

static const struct {
	const char *name;
	int stat;
} watch_cols[] = {
	{ "deferred", STAT(DEFERRED) },
	{ "pages_tagged", STAT(PAGES_TAGGED) },
	{ "flushes", STAT(FLUSHES) },
	{ "ipis", STAT(IPIS) },
	{ "flush_age", STAT(FLUSH_AGE) },
	{ "flush_limit", STAT(FLUSH_LIMIT) },
	{ "flush_reserve", STAT(FLUSH_RESERVE) },
	{ "refused", COL_REFUSED },
	{ "tlb_shootdowns", COL_TLB },
};

#define WATCH_HEADER_EVERY	20

struct watch_sample {
	double t;
	struct stats s;
	uint64_t tlb;
	bool have_tlb;
};

/*
 * The increase of the refused_* counters from @a to @b; false if one went
 * down (luf reloaded in between).
 */
static bool refused_delta(const struct stats *a, const struct stats *b,
			  uint64_t *d)
{
	int i;

	*d = 0;
	for (i = STAT(REFUSED_WRITABLE); i <= STAT(REFUSED_SPLIT); i++) {
		if (b->v[i] < a->v[i])
			return false;
		*d += b->v[i] - a->v[i];
	}
	return true;
}

static int watch_width(unsigned int c)
{
	int w = (int)strlen(watch_cols[c].name);

	return w < 8 ? 8 : w;
}

static void watch_header(void)
{
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(watch_cols); c++)
		printf("%s%*s", c ? " " : "", watch_width(c),
		       watch_cols[c].name);
	putchar('\n');
}

static void watch_line(const struct watch_sample *a,
		       const struct watch_sample *b)
{
	double dt = b->t - a->t;
	unsigned int c;

	if (dt <= 0)
		dt = 1e-9;
	for (c = 0; c < ARRAY_SIZE(watch_cols); c++) {
		int stat = watch_cols[c].stat, w = watch_width(c);
		const char *sep = c ? " " : "";
		bool valid;
		uint64_t d;

		/*
		 * A counter that went down (luf reloaded, a CPU row gone
		 * from /proc/interrupts) has no rate for this interval.
		 */
		if (stat == COL_TLB) {
			valid = a->have_tlb && b->have_tlb && b->tlb >= a->tlb;
			d = valid ? b->tlb - a->tlb : 0;
		} else if (stat == COL_REFUSED) {
			valid = refused_delta(&a->s, &b->s, &d);
		} else {
			valid = b->s.v[stat] >= a->s.v[stat];
			d = valid ? b->s.v[stat] - a->s.v[stat] : 0;
		}
		if (valid)
			printf("%s%*.0f", sep, w, (double)d / dt);
		else
			printf("%s%*s", sep, w, "-");
	}
	putchar('\n');
}

static int watch_sample(struct lufctl_nl *n, struct watch_sample *w)
{
	int ret = lufctl_nl_get_stats(n, &w->s);

	w->have_tlb = lufctl_proc_tlb_shootdowns(&w->tlb);
	w->t = lufctl_now();
	return ret;
}

static void fmt_u64_attr(char *buf, size_t len, struct nlattr *a)
{
	if (a)
		snprintf(buf, len, "%" PRIu64, nla_get_u64(a));
	else
		snprintf(buf, len, "?");
}

static void print_event(struct nlattr **tb)
{
	char num[24];
	uint32_t type;

	if (!tb[LUF_A_EVENT_TYPE]) {
		printf("event: without a type\n");
		return;
	}
	type = nla_get_u32(tb[LUF_A_EVENT_TYPE]);
	switch (type) {
	case LUF_EVENT_TYPE_KNOB: {
		const char *origin = "?";
		char obuf[24];

		if (tb[LUF_A_EVENT_ORIGIN]) {
			uint32_t o = nla_get_u32(tb[LUF_A_EVENT_ORIGIN]);

			if (o == LUF_ORIGIN_SYSFS) {
				origin = "sysfs";
			} else if (o == LUF_ORIGIN_NETLINK) {
				origin = "netlink";
			} else {
				snprintf(obuf, sizeof(obuf), "origin %u", o);
				origin = obuf;
			}
		}
		fmt_u64_attr(num, sizeof(num), tb[LUF_A_EVENT_VALUE]);
		printf("event: knob %s=%s (%s)\n",
		       tb[LUF_A_EVENT_KNOB] ? nla_get_string(tb[LUF_A_EVENT_KNOB]) : "?",
		       num, origin);
		break;
	}
	case LUF_EVENT_TYPE_FORCED_FLUSH:
		fmt_u64_attr(num, sizeof(num), tb[LUF_A_EVENT_COUNT]);
		printf("event: forced_flush reason=%s count=%s\n",
		       tb[LUF_A_EVENT_REASON] ?
				nla_get_string(tb[LUF_A_EVENT_REASON]) : "?",
		       num);
		break;
	default:
		printf("event: type %u\n", type);
		break;
	}
}

static void print_stats_ntf(const struct stats *s)
{
	unsigned int i;

	printf("stats_ntf:");
	for (i = 0; i < NR_STATS; i++) {
		if (s->have[i])
			printf(" %s=%" PRIu64, lufctl_stat_names[i], s->v[i]);
	}
	putchar('\n');
}

/* Exact lengths: a kernel that sends a u64 for a u32 is a bug to show. */
static const struct nla_policy event_policy[LUF_A_EVENT_MAX + 1] = {
	[LUF_A_EVENT_TYPE]	= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
	[LUF_A_EVENT_KNOB]	= { .type = NLA_STRING },
	[LUF_A_EVENT_VALUE]	= { .type = NLA_U64, .minlen = 8, .maxlen = 8 },
	[LUF_A_EVENT_ORIGIN]	= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
	[LUF_A_EVENT_REASON]	= { .type = NLA_STRING },
	[LUF_A_EVENT_COUNT]	= { .type = NLA_U64, .minlen = 8, .maxlen = 8 },
};

/* Multicast messages on the watch socket. */
static int on_notification(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	bool verbose = *(bool *)arg;
	struct genlmsghdr *g;

	if (!genlmsg_valid_hdr(nlh, 0))
		return NL_SKIP;
	g = genlmsg_hdr(nlh);
	if (g->cmd == LUF_CMD_EVENT) {
		struct nlattr *tb[LUF_A_EVENT_MAX + 1];

		if (genlmsg_parse(nlh, 0, tb, LUF_A_EVENT_MAX,
				  event_policy) < 0)
			printf("event: malformed\n");
		else
			print_event(tb);
		fflush(stdout);
	} else if (g->cmd == LUF_CMD_STATS_NTF && verbose) {
		struct stats s;

		/*
		 * The rates come from polling, which does not depend on
		 * stats_interval_ms; the snapshots are shown on request.
		 */
		if (lufctl_nl_parse_stats(nlh, &s) < 0)
			printf("stats_ntf: malformed\n");
		else
			print_stats_ntf(&s);
		fflush(stdout);
	}
	return NL_OK;
}

/* Notifications carry sequence number 0: do not check them. */
static int no_seq_check(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

static int watch_subscribe(struct lufctl_nl *n, struct nl_sock *mon,
			   const char *group)
{
	int id, err;

	id = genl_ctrl_resolve_grp(n->sk, LUF_FAMILY_NAME, group);
	if (id < 0) {
		lufctl_err("watch: the luf family has no multicast group '%s'",
			   group);
		return EX_RUNTIME;
	}
	err = nl_socket_add_membership(mon, id);
	if (err == -NLE_PERM || err == -NLE_NOACCESS) {
		lufctl_err("not permitted: watch: joining luf's '%s' group: %s",
			   group, nl_geterror(err));
		return EX_PERM;
	}
	if (err < 0) {
		lufctl_err("watch: joining luf's '%s' group: %s", group,
			   nl_geterror(err));
		return EX_RUNTIME;
	}
	return EX_OK;
}

static int cmd_watch(struct opts *o, int argc, char **argv)
{
	struct watch_sample prev, cur;
	struct lufctl_nl n = { 0 };
	struct nl_sock *mon = NULL;
	struct nl_cb *cb = NULL;
	struct itimerspec its;
	struct pollfd pfd[2];
	uint32_t lines = 0;
	int ret, tfd = -1;

	ret = lufctl_nl_open(&n);
	if (ret)
		goto out;

	/* A second socket for the multicast groups, kept out of the way of
	 * the requests' replies and acks.
	 */
	mon = nl_socket_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!mon || !cb) {
		lufctl_err("out of memory");
		ret = EX_RUNTIME;
		goto out;
	}
	ret = genl_connect(mon);
	if (ret < 0) {
		lufctl_err("watch: cannot open a netlink socket: %s",
			   nl_geterror(ret));
		ret = EX_RUNTIME;
		goto out;
	}
	ret = watch_subscribe(&n, mon, LUF_MCGRP_EVENTS);
	/* The snapshots are only printed with -v: no need for them otherwise. */
	if (!ret && o->verbose)
		ret = watch_subscribe(&n, mon, LUF_MCGRP_STATS);
	if (ret)
		goto out;
	nl_socket_set_nonblocking(mon);
	/* Room for a burst of forced-flush events. */
	nl_socket_set_buffer_size(mon, 1 << 20, 0);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_notification, &o->verbose);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);

	lufctl_catch_stop_signals();
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tfd < 0) {
		lufctl_err("watch: timerfd: %s", strerror(errno));
		ret = EX_RUNTIME;
		goto out;
	}
	its.it_value = lufctl_timespec(o->interval);
	its.it_interval = its.it_value;
	ret = watch_sample(&n, &prev);
	if (ret)
		goto out;
	if (timerfd_settime(tfd, 0, &its, NULL) < 0) {
		lufctl_err("watch: timerfd: %s", strerror(errno));
		ret = EX_RUNTIME;
		goto out;
	}
	/* Subscribed and sampled: from here on nothing is missed. */
	fprintf(stderr, "%s: watching\n", LUFCTL_NAME);

	pfd[0] = (struct pollfd){ .fd = nl_socket_get_fd(mon), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
	while (!lufctl_stop_signal()) {
		if (ppoll(pfd, 2, NULL, &lufctl_wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			lufctl_err("watch: poll: %s", strerror(errno));
			ret = EX_RUNTIME;
			break;
		}
		if (pfd[0].revents) {
			int err;

			/* Drain: each call reads one datagram. */
			while ((err = nl_recvmsgs(mon, cb)) >= 0)
				;
			if (err == -NLE_NOMEM) {
				/* ENOBUFS: the socket overflowed. */
				printf("event: overrun, some notifications were lost\n");
				fflush(stdout);
			} else if (err != -NLE_AGAIN) {
				lufctl_err("watch: netlink: %s",
					   nl_geterror(err));
				ret = EX_RUNTIME;
				break;
			}
		}
		if (pfd[1].revents) {
			uint64_t ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0 &&
			    errno != EAGAIN) {
				lufctl_err("watch: timerfd: %s",
					   strerror(errno));
				ret = EX_RUNTIME;
				break;
			}
			ret = watch_sample(&n, &cur);
			if (ret)
				break;
			if (lines % WATCH_HEADER_EVERY == 0)
				watch_header();
			watch_line(&prev, &cur);
			if (fflush(stdout)) {
				lufctl_err("watch: cannot write: %s",
					   strerror(errno));
				ret = EX_RUNTIME;
				break;
			}
			prev = cur;
			if (++lines == o->count && (o->given & OPT_COUNT))
				break;
		}
	}
out:
	if (tfd >= 0)
		close(tfd);
	if (cb)
		nl_cb_put(cb);
	if (mon)
		nl_socket_free(mon);
	lufctl_nl_close(&n);
	/* Ctrl-C is the normal way to end a watch. */
	return ret;
}

const struct lufctl_command lufctl_cmd_watch = {
	.name		= "watch",
	.fn		= cmd_watch,
	.opts		= OPT_INTERVAL | OPT_COUNT,
	.interval	= 1,
	.synopsis	= "lufctl [-v] watch [--interval S] [--count N]",
	.help		=
"    watch [--interval S] [--count N]\n"
"        Every S seconds (default 1, fractions allowed) print one line of\n"
"        per-second rates, like vmstat: luf's deferred, pages_tagged,\n"
"        flushes, ipis, flush_age, flush_limit, flush_reserve, refused (the\n"
"        sum of the refused_* counters) and tlb_shootdowns (the \"TLB:\" row\n"
"        of /proc/interrupts summed over CPUs, \"-\" where there is none),\n"
"        with a header every 20 lines.  Counters are polled with stats, so\n"
"        the rates do not depend on stats_interval_ms.  A counter that went\n"
"        down (luf reloaded, a CPU gone from /proc/interrupts) shows \"-\" for\n"
"        that interval.  luf's notifications are printed as they arrive, one\n"
"        line each:\n"
"            event: knob enabled=0 (sysfs)\n"
"            event: forced_flush reason=limit count=12\n"
"        With -v, lufctl also joins the stats multicast group and prints its\n"
"        snapshots (\"stats_ntf: name=value ...\").  Once subscribed and the\n"
"        first sample taken, it prints \"lufctl: watching\" on stderr.  Stops\n"
"        after N lines with --count, or at Ctrl-C (exit status 0).\n",
};

