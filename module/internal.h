/* SPDX-License-Identifier: GPL-2.0 */
/*
 * luf.ko internals shared between the module's files.  The kernel's side,
 * core-hooks.patch, is <linux/luf.h>; nothing here repeats a name of it.
 *
 * The units of the module form layers.  A unit uses the functions and data
 * of lower layers only: never those of a higher layer, nor those of another
 * unit of its own layer.  A lower unit with news for a higher one raises an
 * event that the higher one registered for (struct luf_events), and a knob
 * that belongs to an interface is an entry that interface put in the knob
 * table: the mechanism never names an interface, as DAMON's core never
 * names its sysfs.  These two registrations are the only ways up: the
 * host check, tests/host/module-layers.sh (make check), reads the table
 * below and checks it against the symbols of the built objects, and a call
 * through a pointer registered at run time is beyond what it can see.
 *
 * layer unit     files                 what
 *   1   bind     bind.c                the core's entry points (luf_core)
 *   1   events   events.c              the interfaces' event handlers
 *   2   defer    defer.c               generations, the deferred batch, the
 *                                      flush, counting, the tracepoints
 *   3   switch   switch.c              enable/disable, hibernation's pause
 *   4   stats    stats.c               the counters, summed and named
 *   5   knobs    knobs.c               the knob table, its checks and lock
 *   6   sysfs    sysfs.c               /sys/kernel/mm/luf/
 *   6   debugfs  debugfs.c debug.c     /sys/kernel/debug/luf/ (debug.c: the
 *                                      debug build's files)
 *   6   netlink  netlink.c netlink/luf-nl-gen.c
 *                                      the generic netlink family
 *   7   main     main.c                load and unload
 *
 * The tracepoints (luf_trace.h) are an interface too, but one that the
 * tracing core attaches to: defer.c defines and fires them and calls no
 * tracer.  The user-visible surface (sysfs, netlink, debugfs, tracepoints)
 * is documented once, in module/ABI.
 */
#ifndef _LUF_INTERNAL_H
#define _LUF_INTERNAL_H

#include <linux/luf.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <uapi/linux/luf_netlink.h>

struct cpumask;
struct dentry;
struct mm_struct;

/* bind.c: the entry points of core-hooks.patch, resolved at load time. */
struct luf_core {
	int (*reg)(const struct luf_ops *ops);
	void (*unreg)(const struct luf_ops *ops);
	void (*flush_batch)(struct arch_tlbflush_unmap_batch *batch);
	unsigned int (*batch_trim)(struct arch_tlbflush_unmap_batch *batch,
				   unsigned long epoch);
	void (*flush_mm_batched)(struct mm_struct *mm);
	struct luf_gens *gens;
	struct kobject **mm_kobj;
	struct static_key_false *active;
	bool (*numa_release)(struct mm_struct *mm, unsigned int holds,
			     unsigned int wrprotects,
			     const struct luf_numa_seen *seen);
};

extern struct luf_core luf_core;

int luf_core_bind(void);
void luf_core_unbind(void);

/* The knobs' names (knobs.c has their table). */
enum luf_knob_id {
	LUF_KNOB_ENABLED,
	LUF_KNOB_MAX_DEFER_MS,
	LUF_KNOB_MAX_PAGES,
	LUF_KNOB_MIGRATION,
	LUF_KNOB_RECLAIM,
	LUF_KNOB_NUMA,
	LUF_KNOB_RESERVE,
	LUF_KNOB_STATS_INTERVAL_MS,
	NR_LUF_KNOBS,
};

/*
 * events.c: what the units below the interfaces tell them, without naming
 * them.  An interface registers its handlers at init and unregisters them
 * at exit; events.c says when a handler may run and what it may do.
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

/* defer.c: the deferred batch. */

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
	LUF_STAT_IPIS_AVOIDED,
	LUF_STAT_FLUSH_TICK,
	LUF_STAT_NUMA_HELD,
	LUF_STAT_NUMA_DONE,
	LUF_STAT_NUMA_IPIS,
	LUF_STAT_NUMA_SYNC,
	NR_LUF_STATS,
};

/* The counters, per CPU: the deferred batch counts, stats.c reads. */
struct luf_stats {
	u64 item[NR_LUF_STATS];
};

DECLARE_PER_CPU(struct luf_stats, luf_stats);

static inline void luf_stat_add(enum luf_stat_item item, u64 n)
{
	this_cpu_add(luf_stats.item[item], n);
}

/* What the switch registers with the core. */
extern const struct luf_ops luf_defer_ops;
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

/* The debug build's knobs (debugfs files, see module/ABI). */
extern unsigned long luf_debug_skip;
extern unsigned long luf_debug_defer_delay_us;
extern unsigned long luf_debug_flush_delay_us;
extern unsigned long luf_debug_bound_wq;
extern unsigned long luf_debug_trim;
extern unsigned long luf_debug_tick;
extern unsigned long luf_debug_numa;

/* A snapshot of the deferred batch, for debugfs and netlink. */
struct luf_state {
	unsigned long gen_flushed, gen_deferred, gen_open;
	unsigned long pending_pages;
	unsigned int pending_cpus;
	unsigned int oldest_pending_ms;
	bool flushing;
};

void luf_defer_get_state(struct luf_state *st, struct cpumask *cpus);

/* switch.c: the A/B switch; luf_switch_set() is the enabled knob's setter. */
int luf_switch_init(void);
void luf_switch_exit(void);
int luf_switch_set(bool on);
bool luf_switch_get(void);
bool luf_switch_paused(void);

/* stats.c: the counters as the interfaces show them. */
extern const char *const luf_stat_names[NR_LUF_STATS];
u64 luf_stat_read(enum luf_stat_item item);

/* knobs.c: one table behind sysfs and netlink. */
struct luf_knob {
	const char *name;		/* the sysfs file */
	unsigned int min, max;		/* the range, written only here */
	unsigned int (*get)(void);
	int (*set)(unsigned int val);	/* called by knobs.c, its lock held */
};

int luf_knob_register(enum luf_knob_id id, const struct luf_knob *knob);
void luf_knob_unregister(enum luf_knob_id id);
const struct luf_knob *luf_knob(enum luf_knob_id id);
bool luf_knob_valid(enum luf_knob_id id, unsigned int val);
int luf_knobs_set(const unsigned int *val, unsigned long mask,
		  unsigned int origin);
void luf_knobs_get(unsigned int *val);

/* The interfaces: sysfs.c, debugfs.c (and debug.c), netlink.c. */
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
int luf_nl_init(void);
void luf_nl_exit(void);

#endif /* _LUF_INTERNAL_H */
