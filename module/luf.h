/* SPDX-License-Identifier: GPL-2.0 */
/*
 * luf.ko internals shared between the module's files.
 *
 * The module's user-visible surface is documented once, here:
 *
 * sysfs, /sys/kernel/mm/luf/ (tuning; writes are parsed strictly and a bad
 * value returns -EINVAL with nothing changed):
 *
 *   enabled	0 or 1.  The A/B switch.  Reads the state in effect: 1 while
 *		luf's hooks are registered with the core kernel.  Writing 1
 *		registers them, writing 0 unregisters them; both are
 *		idempotent.  The module loads enabled.
 *
 * debugfs, /sys/kernel/debug/luf/ (inspection; read-only):
 *
 *   stats	one "name value" line per event counter, summed over CPUs:
 *		  offered	unmap passes whose read-only batch was offered
 *		  deferred	batches taken and tagged with a generation
 *		  pages_tagged	pages freed carrying a generation tag
 *		  refused_*	pages sent down the normal flush path, by reason
 *		  flush_*	flushes completed, by trigger
 *		  ipis		flush requests sent to remote CPUs by luf
 *		  flush_noop	flush requests that found nothing pending
 *   state	"name value" lines: registered, abi_version, and the state
 *		of the deferred batch
 */
#ifndef _LUF_MODULE_H
#define _LUF_MODULE_H

#include <linux/percpu.h>
#include <linux/types.h>

struct luf_ops;

/* Entry points of core-hooks.patch, resolved at load time. */
struct luf_core {
	int (*reg)(const struct luf_ops *ops);
	void (*unreg)(const struct luf_ops *ops);
	struct kobject **mm_kobj;
};

extern struct luf_core luf_core;

int luf_core_bind(void);
void luf_core_unbind(void);

int luf_set_enabled(bool on);
bool luf_is_enabled(void);

enum luf_stat_item {
	LUF_STAT_OFFERED,
	LUF_STAT_DEFERRED,
	LUF_STAT_PAGES_TAGGED,
	LUF_STAT_REFUSED_WRITABLE,
	LUF_STAT_REFUSED_DIRTY,
	LUF_STAT_REFUSED_LARGE,
	LUF_STAT_REFUSED_DISABLED,
	LUF_STAT_FLUSH_ALLOC,
	LUF_STAT_FLUSH_WRITE,
	LUF_STAT_FLUSH_LIMIT,
	LUF_STAT_FLUSH_AGE,
	LUF_STAT_FLUSH_DISABLE,
	LUF_STAT_IPIS,
	LUF_STAT_FLUSH_NOOP,
	NR_LUF_STATS,
};

struct luf_stats {
	u64 item[NR_LUF_STATS];
};
DECLARE_PER_CPU(struct luf_stats, luf_stats);
extern const char *const luf_stat_names[NR_LUF_STATS];

static inline void luf_stat_add(enum luf_stat_item item, u64 n)
{
	this_cpu_add(luf_stats.item[item], n);
}

int luf_sysfs_init(void);
void luf_sysfs_exit(void);
void luf_debugfs_init(void);
void luf_debugfs_exit(void);

#endif /* _LUF_MODULE_H */
