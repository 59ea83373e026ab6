// SPDX-License-Identifier: GPL-2.0
/*
 * Events: how the mechanism and the knobs tell the interfaces about
 * something without calling them.  An interface registers a struct
 * luf_events at init and unregisters it at exit; the units below it raise
 * events here and never name it, as DAMON's core never names its sysfs.
 * One interface registers today (netlink); a second would need a list.
 *
 * The rule.  An event is raised inside an SRCU read-side section and
 * reaches a handler only through the pointer read in that section.
 * luf_events_unregister() clears the pointer and then waits in
 * synchronize_srcu() for every section that may have read the old one:
 *
 *	raiser				luf_events_unregister()
 *	srcu_read_lock()
 *	ev = luf_events			luf_events = NULL
 *	ev->forced()			synchronize_srcu(): waits for
 *	srcu_read_unlock()		  the raiser's section
 *					returns; the interface cancels its
 *					work and frees what handlers use
 *
 * A raiser that reads the pointer after it was cleared sees NULL and calls
 * nothing.  So once luf_events_unregister() has returned, no handler runs
 * or will run.  SRCU, not RCU, because a handler may sleep: knob_changed
 * is raised in task context under the knobs' mutex, and its handler builds
 * a message with GFP_KERNEL.  forced is raised by a flush, which may run
 * for an allocation that must not sleep: its handler must not sleep either
 * (netlink's queues work).
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/srcu.h>

#include "internal.h"

DEFINE_STATIC_SRCU(luf_events_srcu);
static const struct luf_events __rcu *luf_events;

/* From an interface's init; luf's init and exit run one at a time. */
int luf_events_register(const struct luf_events *ev)
{
	if (WARN_ON(rcu_access_pointer(luf_events)))
		return -EBUSY;
	rcu_assign_pointer(luf_events, ev);
	return 0;
}

/* Returns when no handler of @ev runs any more: see the rule above. */
void luf_events_unregister(const struct luf_events *ev)
{
	if (WARN_ON(rcu_access_pointer(luf_events) != ev))
		return;
	RCU_INIT_POINTER(luf_events, NULL);
	synchronize_srcu(&luf_events_srcu);
}

/* Opens the section a raiser calls the handler in; *@idx closes it. */
static const struct luf_events *luf_events_enter(int *idx)
{
	*idx = srcu_read_lock(&luf_events_srcu);
	return srcu_dereference(luf_events, &luf_events_srcu);
}

/* Any context a flush runs in: a limit forced a flush (@why), now complete. */
void luf_events_forced(unsigned int why)
{
	int idx;
	const struct luf_events *ev = luf_events_enter(&idx);

	/*
	 * A reserve flush runs in the core's RCU read section: the handler
	 * must not sleep.  Hold one here too, so that a handler that does
	 * splats on every path, not only on that one.
	 */
	rcu_read_lock();
	if (ev)
		ev->forced(why);
	rcu_read_unlock();
	srcu_read_unlock(&luf_events_srcu, idx);
}

/* Task context, the knobs' lock held: knob @id changed to @val. */
void luf_events_knob_changed(enum luf_knob_id id, unsigned int val,
			     unsigned int origin)
{
	int idx;
	const struct luf_events *ev = luf_events_enter(&idx);

	if (ev)
		ev->knob_changed(id, val, origin);
	srcu_read_unlock(&luf_events_srcu, idx);
}
