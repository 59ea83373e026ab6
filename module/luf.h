/* SPDX-License-Identifier: GPL-2.0 */
/*
 * luf.ko internals shared between the module's files.
 *
 * The module's user-visible surface (sysfs, netlink, debugfs, tracepoints)
 * is documented once, in module/ABI.
 */
#ifndef _LUF_MODULE_H
#define _LUF_MODULE_H

#include <linux/luf.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <uapi/linux/luf_netlink.h>

struct cpumask;
struct dentry;
struct mm_struct;

/* Entry points of core-hooks.patch, resolved at load time. */
struct luf_core {
	int (*reg)(const struct luf_ops *ops);
	void (*unreg)(const struct luf_ops *ops);
	void (*flush_batch)(struct arch_tlbflush_unmap_batch *batch);
	void (*flush_mm_batched)(struct mm_struct *mm);
	struct luf_gens *gens;
	struct kobject **mm_kobj;
	struct static_key_false *active;
};

extern struct luf_core luf_core;

int luf_core_bind(void);
void luf_core_unbind(void);

int luf_start(void);
void luf_stop(void);
int luf_set_enabled(bool on);
bool luf_is_enabled(void);
bool luf_is_paused(void);

/* Flush reasons: the core's enum luf_reason, then the module's own. */
enum {
	LUF_FLUSH_AGE = NR_LUF_REASONS,
	LUF_FLUSH_LIMIT,
	LUF_FLUSH_DISABLE,
	NR_LUF_FLUSH_REASONS,
};

enum luf_stat_item {
	LUF_STAT_OFFERED,
	LUF_STAT_DEFERRED,
	LUF_STAT_PAGES_TAGGED,
	LUF_STAT_DECLINED,
	LUF_STAT_REFUSED,			/* + enum luf_refusal */
	LUF_STAT_FLUSH = LUF_STAT_REFUSED + NR_LUF_REFUSALS, /* + reason */
	LUF_STAT_FLUSH_MM = LUF_STAT_FLUSH + NR_LUF_FLUSH_REASONS,
	LUF_STAT_FLUSHES,
	LUF_STAT_IPIS,
	LUF_STAT_FLUSH_NOOP,
	NR_LUF_STATS,
};

/* Per CPU, counted by the deferred batch (defer.c). */
struct luf_stats {
	u64 item[NR_LUF_STATS];
};

DECLARE_PER_CPU(struct luf_stats, luf_stats);

static inline void luf_stat_add(enum luf_stat_item item, u64 n)
{
	this_cpu_add(luf_stats.item[item], n);
}

/* The counters as the interfaces show them (stats.c). */
extern const char *const luf_stat_names[NR_LUF_STATS];
u64 luf_stat_read(enum luf_stat_item item);

/* The knobs (knobs.c): one table behind sysfs and netlink. */
enum luf_knob_id {
	LUF_KNOB_ENABLED,
	LUF_KNOB_MAX_DEFER_MS,
	LUF_KNOB_MAX_PAGES,
	LUF_KNOB_MIGRATION,
	LUF_KNOB_RECLAIM,
	LUF_KNOB_RESERVE,
	LUF_KNOB_STATS_INTERVAL_MS,
	NR_LUF_KNOBS,
};

struct luf_knob {
	const char *name;		/* the sysfs file */
	unsigned int min, max;		/* the range, written only here */
	unsigned int (*get)(void);
	int (*set)(unsigned int val);	/* called with the knobs' lock held */
};

int luf_knob_register(enum luf_knob_id id, const struct luf_knob *knob);
void luf_knob_unregister(enum luf_knob_id id);
const struct luf_knob *luf_knob(enum luf_knob_id id);
bool luf_knob_valid(enum luf_knob_id id, unsigned int val);
int luf_knobs_set(const unsigned int *val, unsigned long mask,
		  unsigned int origin);
void luf_knobs_get(unsigned int *val);

/*
 * Events (events.c): what the units below the interfaces tell them, without
 * naming them.  An interface registers its handlers at init and unregisters
 * them at exit; events.c says when a handler may run and what it may do.
 */
struct luf_events {
	/* A limit forced a flush (@why: age, limit or reserve). */
	void (*forced)(unsigned int why);
	/* A knob's value changed (@origin: LUF_ORIGIN_*). */
	void (*knob_changed)(enum luf_knob_id id, unsigned int val,
			     unsigned int origin);
};

int luf_events_register(const struct luf_events *ev);
void luf_events_unregister(const struct luf_events *ev);
void luf_events_forced(unsigned int why);
void luf_events_knob_changed(enum luf_knob_id id, unsigned int val,
			     unsigned int origin);

/* The netlink family (netlink.c). */
int luf_nl_init(void);
void luf_nl_exit(void);

/* The debug build's knobs (debugfs files, see module/ABI). */
extern unsigned long luf_debug_skip;
extern unsigned long luf_debug_defer_delay_us;
extern unsigned long luf_debug_flush_delay_us;
extern unsigned long luf_debug_bound_wq;

/* The deferred batch (defer.c). */
extern const struct luf_ops luf_ops;
int luf_defer_init(void);
void luf_defer_exit(void);
void luf_defer_start(void);
void luf_defer_stop(void);
/* Its knobs: the setters are called by knobs.c alone. */
void luf_defer_set_max_ms(unsigned int ms);
unsigned int luf_defer_max_ms(void);
void luf_defer_set_max_pages(unsigned int pages);
unsigned int luf_defer_max_pages(void);
void luf_defer_set_sources(unsigned long sources);
unsigned long luf_defer_sources(void);
void luf_defer_set_reserve(unsigned int pct);
unsigned int luf_defer_reserve(void);

/* A snapshot of the deferred batch, for debugfs and netlink. */
struct luf_state {
	unsigned long gen_flushed, gen_deferred, gen_open;
	unsigned long pending_pages;
	unsigned int pending_cpus;
	unsigned int oldest_pending_ms;
	bool flushing;
};

void luf_get_state(struct luf_state *st, struct cpumask *cpus);

int luf_sysfs_init(void);
void luf_sysfs_exit(void);
void luf_debugfs_init(void);
void luf_debugfs_exit(void);
#ifdef LUF_DEBUG
void luf_debug_files(struct dentry *dir);
#else
static inline void luf_debug_files(struct dentry *dir)
{
}
#endif

#endif /* _LUF_MODULE_H */
