// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs: one table, one validation and one lock for both interfaces
 * that change them, /sys/kernel/mm/luf/ and the luf netlink family, so
 * that the two can never disagree on a name, a range or a value.
 *
 * Every knob changes here, in luf_knobs_set(), and nowhere else (but for
 * the switch turning itself on at load and off at unload): the units that
 * own a knob's value (the switch, the deferred batch) have setters that
 * only this file calls.  A knob only an interface uses is that
 * interface's (stats_interval_ms, netlink's): it adds its entry to the table
 * at init with luf_knob_register(), range included, before sysfs makes the
 * knob's file, and removes it at exit, after sysfs has removed the file.
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/mutex.h>

#include "internal.h"

static unsigned int luf_knob_get_enabled(void)
{
	return luf_switch_get();
}

static int luf_knob_set_enabled(unsigned int val)
{
	return luf_switch_set(val);
}

static int luf_knob_set_defer(unsigned int val)
{
	luf_defer_set_max_ms(val);
	return 0;
}

static int luf_knob_set_pages(unsigned int val)
{
	luf_defer_set_max_pages(val);
	return 0;
}

static unsigned int luf_knob_get_source(unsigned int src)
{
	return !!(luf_defer_sources() & BIT(src));
}

/*
 * A read-modify-write of the sources: concurrent writers of different
 * sources (migration, reclaim, numa) are serialised by luf_knob_lock, so
 * none undoes another.
 */
static int luf_knob_set_source(unsigned int src, unsigned int val)
{
	unsigned long sources = luf_defer_sources();

	luf_defer_set_sources(val ? sources | BIT(src) : sources & ~BIT(src));
	return 0;
}

static unsigned int luf_knob_get_migration(void)
{
	return luf_knob_get_source(LUF_SRC_MIGRATION);
}

static int luf_knob_set_migration(unsigned int val)
{
	return luf_knob_set_source(LUF_SRC_MIGRATION, val);
}

static unsigned int luf_knob_get_reclaim(void)
{
	return luf_knob_get_source(LUF_SRC_RECLAIM);
}

static int luf_knob_set_reclaim(unsigned int val)
{
	return luf_knob_set_source(LUF_SRC_RECLAIM, val);
}

static unsigned int luf_knob_get_numa(void)
{
	return luf_knob_get_source(LUF_SRC_NUMA);
}

static int luf_knob_set_numa(unsigned int val)
{
	return luf_knob_set_source(LUF_SRC_NUMA, val);
}

static int luf_knob_set_reserve(unsigned int val)
{
	luf_defer_set_reserve(val);
	return 0;
}

static const struct luf_knob luf_knob_enabled = {
	"enabled", 0, 1, luf_knob_get_enabled, luf_knob_set_enabled,
};

static const struct luf_knob luf_knob_max_defer_ms = {
	"max_defer_ms", 1, 60000, luf_defer_max_ms, luf_knob_set_defer,
};

static const struct luf_knob luf_knob_max_pages = {
	"max_pages", 1, 1U << 30, luf_defer_max_pages, luf_knob_set_pages,
};

static const struct luf_knob luf_knob_migration = {
	"migration", 0, 1, luf_knob_get_migration, luf_knob_set_migration,
};

static const struct luf_knob luf_knob_reclaim = {
	"reclaim", 0, 1, luf_knob_get_reclaim, luf_knob_set_reclaim,
};

static const struct luf_knob luf_knob_numa = {
	"numa", 0, 1, luf_knob_get_numa, luf_knob_set_numa,
};

static const struct luf_knob luf_knob_reserve = {
	"reserve", 0, 1000, luf_defer_reserve, luf_knob_set_reserve,
};

/*
 * Serialises every change of a knob, and the notifications of them, and
 * changes of the table's registered entries.
 */
static DEFINE_MUTEX(luf_knob_lock);

static const struct luf_knob *luf_knobs[NR_LUF_KNOBS] = {
	[LUF_KNOB_ENABLED]		= &luf_knob_enabled,
	[LUF_KNOB_MAX_DEFER_MS]		= &luf_knob_max_defer_ms,
	[LUF_KNOB_MAX_PAGES]		= &luf_knob_max_pages,
	[LUF_KNOB_MIGRATION]		= &luf_knob_migration,
	[LUF_KNOB_RECLAIM]		= &luf_knob_reclaim,
	[LUF_KNOB_NUMA]			= &luf_knob_numa,
	[LUF_KNOB_RESERVE]		= &luf_knob_reserve,
	/* LUF_KNOB_STATS_INTERVAL_MS: netlink's, registered. */
};

/**
 * luf_knob_register - add an interface's own knob to the table
 * @id: its slot, one the table leaves empty
 * @knob: name, range, get and set; must stay valid until unregistered
 *
 * Return: 0, or -EBUSY if the slot is taken.
 */
int luf_knob_register(enum luf_knob_id id, const struct luf_knob *knob)
{
	int err = 0;

	mutex_lock(&luf_knob_lock);
	if (WARN_ON(luf_knobs[id]))
		err = -EBUSY;
	else
		WRITE_ONCE(luf_knobs[id], knob);
	mutex_unlock(&luf_knob_lock);
	return err;
}

/* After this no set or get reaches the knob's callbacks. */
void luf_knob_unregister(enum luf_knob_id id)
{
	mutex_lock(&luf_knob_lock);
	WRITE_ONCE(luf_knobs[id], NULL);
	mutex_unlock(&luf_knob_lock);
}

/*
 * The knob @id, NULL while its interface has not registered it.  Its
 * interfaces use it only while they exist, which is while it is registered.
 */
const struct luf_knob *luf_knob(enum luf_knob_id id)
{
	return READ_ONCE(luf_knobs[id]);
}

bool luf_knob_valid(enum luf_knob_id id, unsigned int val)
{
	const struct luf_knob *knob = luf_knob(id);

	return knob && val >= knob->min && val <= knob->max;
}

/**
 * luf_knobs_set - change several knobs at once, all or none
 * @val: new values, indexed by knob
 * @mask: the knobs to change (bit n: knob n)
 * @origin: who asks (LUF_ORIGIN_*), for the notification
 *
 * The callers have checked every value with luf_knob_valid(), so that they
 * can say which one is wrong; it is checked again here, before anything
 * changes.  Only enabling can fail (the core may refuse the module): it is
 * applied first and nothing else is applied when it fails.  Every knob
 * whose value changed is announced (the knob_changed event), in the order
 * of the changes.
 *
 * Return: 0, or the error of the first step (and nothing changed).
 */
int luf_knobs_set(const unsigned int *val, unsigned long mask,
		  unsigned int origin)
{
	unsigned int old[NR_LUF_KNOBS];
	int id, err = 0;

	mutex_lock(&luf_knob_lock);
	for_each_set_bit(id, &mask, NR_LUF_KNOBS) {
		if (!luf_knob_valid(id, val[id])) {
			err = -EINVAL;
			goto out;
		}
	}
	for_each_set_bit(id, &mask, NR_LUF_KNOBS)
		old[id] = luf_knobs[id]->get();
	if (mask & BIT(LUF_KNOB_ENABLED)) {
		err = luf_knobs[LUF_KNOB_ENABLED]->set(val[LUF_KNOB_ENABLED]);
		if (err)
			goto out;
	}
	for_each_set_bit(id, &mask, NR_LUF_KNOBS)
		if (id != LUF_KNOB_ENABLED)
			luf_knobs[id]->set(val[id]);
	for_each_set_bit(id, &mask, NR_LUF_KNOBS)
		if (val[id] != old[id])
			luf_events_knob_changed(id, val[id], origin);
out:
	mutex_unlock(&luf_knob_lock);
	return err;
}

/**
 * luf_knobs_get - a consistent snapshot of every knob
 * @val: filled with the values, indexed by knob (0 for one not registered)
 *
 * Taken under the lock of luf_knobs_set(), so that a reader never sees half
 * of a multi-knob change.
 */
void luf_knobs_get(unsigned int *val)
{
	int id;

	mutex_lock(&luf_knob_lock);
	for (id = 0; id < NR_LUF_KNOBS; id++)
		val[id] = luf_knobs[id] ? luf_knobs[id]->get() : 0;
	mutex_unlock(&luf_knob_lock);
}
