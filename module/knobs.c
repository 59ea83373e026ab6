// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs: one table, one validation and one lock for both interfaces
 * that change them, /sys/kernel/mm/luf/ and the luf netlink family, so
 * that the two can never disagree on a name, a range or a value.
 */

#include <linux/mutex.h>

#include "luf.h"

/* Period of the snapshots on the netlink stats group. */
unsigned int luf_stats_interval_ms = 1000;

static unsigned int luf_knob_get_enabled(void)
{
	return luf_is_enabled();
}

static int luf_knob_set_enabled(unsigned int val)
{
	return luf_set_enabled(val);
}

static unsigned int luf_knob_get_defer(void)
{
	return READ_ONCE(luf_max_defer_ms);
}

static int luf_knob_set_defer(unsigned int val)
{
	luf_defer_set_max_ms(val);
	return 0;
}

static unsigned int luf_knob_get_pages(void)
{
	return READ_ONCE(luf_max_pages);
}

static int luf_knob_set_pages(unsigned int val)
{
	WRITE_ONCE(luf_max_pages, val);
	return 0;
}

static unsigned int luf_knob_get_source(unsigned int src)
{
	return !!(luf_get_sources() & BIT(src));
}

/*
 * A read-modify-write of the sources: two concurrent writers (migration and
 * reclaim) are serialised by luf_knob_lock, so neither undoes the other.
 */
static int luf_knob_set_source(unsigned int src, unsigned int val)
{
	unsigned long sources = luf_get_sources();

	luf_set_sources(val ? sources | BIT(src) : sources & ~BIT(src));
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

static unsigned int luf_knob_get_reserve(void)
{
	return READ_ONCE(luf_reserve);
}

static int luf_knob_set_reserve(unsigned int val)
{
	luf_set_reserve(val);
	return 0;
}

static unsigned int luf_knob_get_interval(void)
{
	return READ_ONCE(luf_stats_interval_ms);
}

static int luf_knob_set_interval(unsigned int val)
{
	WRITE_ONCE(luf_stats_interval_ms, val);
	return 0;
}

const struct luf_knob luf_knobs[NR_LUF_KNOBS] = {
	[LUF_KNOB_ENABLED] = { "enabled", 0, 1,
		luf_knob_get_enabled, luf_knob_set_enabled },
	[LUF_KNOB_MAX_DEFER_MS] = { "max_defer_ms", 1, 60000,
		luf_knob_get_defer, luf_knob_set_defer },
	[LUF_KNOB_MAX_PAGES] = { "max_pages", 1, 1U << 30,
		luf_knob_get_pages, luf_knob_set_pages },
	[LUF_KNOB_MIGRATION] = { "migration", 0, 1,
		luf_knob_get_migration, luf_knob_set_migration },
	[LUF_KNOB_RECLAIM] = { "reclaim", 0, 1,
		luf_knob_get_reclaim, luf_knob_set_reclaim },
	[LUF_KNOB_RESERVE] = { "reserve", 0, 1000,
		luf_knob_get_reserve, luf_knob_set_reserve },
	[LUF_KNOB_STATS_INTERVAL_MS] = { "stats_interval_ms", 100, 60000,
		luf_knob_get_interval, luf_knob_set_interval },
};

/* Serialises every change of a knob, and the notifications of them. */
static DEFINE_MUTEX(luf_knob_lock);

bool luf_knob_valid(enum luf_knob_id id, unsigned int val)
{
	return val >= luf_knobs[id].min && val <= luf_knobs[id].max;
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
 * whose value changed is announced on the events group, in the order of
 * the changes.
 *
 * Return: 0, or the error of the first step (and nothing changed).
 */
int luf_knobs_set(const unsigned int *val, unsigned long mask,
		  unsigned int origin)
{
	unsigned int old[NR_LUF_KNOBS];
	int id, err = 0;

	for_each_set_bit(id, &mask, NR_LUF_KNOBS)
		if (!luf_knob_valid(id, val[id]))
			return -EINVAL;

	mutex_lock(&luf_knob_lock);
	for_each_set_bit(id, &mask, NR_LUF_KNOBS)
		old[id] = luf_knobs[id].get();
	if (mask & BIT(LUF_KNOB_ENABLED)) {
		err = luf_knobs[LUF_KNOB_ENABLED].set(val[LUF_KNOB_ENABLED]);
		if (err)
			goto out;
	}
	for_each_set_bit(id, &mask, NR_LUF_KNOBS)
		if (id != LUF_KNOB_ENABLED)
			luf_knobs[id].set(val[id]);
	if (mask & BIT(LUF_KNOB_STATS_INTERVAL_MS))
		luf_nl_stats_interval_changed();
	for_each_set_bit(id, &mask, NR_LUF_KNOBS)
		if (val[id] != old[id])
			luf_events_knob_changed(id, val[id], origin);
out:
	mutex_unlock(&luf_knob_lock);
	return err;
}

/**
 * luf_knobs_get - a consistent snapshot of every knob
 * @val: filled with the values, indexed by knob
 *
 * Taken under the lock of luf_knobs_set(), so that a reader never sees half
 * of a multi-knob change.
 */
void luf_knobs_get(unsigned int *val)
{
	int id;

	mutex_lock(&luf_knob_lock);
	for (id = 0; id < NR_LUF_KNOBS; id++)
		val[id] = luf_knobs[id].get();
	mutex_unlock(&luf_knob_lock);
}
