/* SPDX-License-Identifier: GPL-2.0 */
/*
 * luf.ko internals shared between the module's files.
 *
 * The module's user-visible surface is documented once, here.
 *
 * sysfs, /sys/kernel/mm/luf/ (tuning; writes are parsed strictly, a bad
 * value returns -EINVAL and changes nothing):
 *
 *   enabled		0 or 1.  The A/B switch.  Reads the state in effect.
 *			Writing 0 stops deferring and completes every
 *			outstanding flush before the write returns; writing 1
 *			defers again.  Both are idempotent.  The module loads
 *			enabled.  Disabled, its hooks are unregistered: the
 *			kernel's hook sites are no-ops, as with no module.
 *   max_defer_ms	1..60000, default 1000.  No deferred flush waits longer
 *			than this (plus the time a worker takes to run).
 *   max_pages		1..2^30, default 65536.  Pages whose flush may be
 *			outstanding at once (a 64 KiB folio counts 16);
 *			beyond it the flush is started.
 *   migration		0 or 1, default 1.  Defer flushes of unmaps done by
 *			page migration (NUMA tiering, move_pages, compaction).
 *   reclaim		0 or 1, default 1.  Defer flushes of unmaps done by
 *			reclaim.
 *   reserve		0..1000, default 100.  Each zone keeps its free pages
 *			that wait for no flush above this percentage of its
 *			min watermark: below it, a worker completes the
 *			outstanding flushes, so that allocations that cannot
 *			flush (GFP_ATOMIC) find pages that need none.  0: no
 *			reserve (such allocations set tagged pages aside and
 *			take others: flush_parked).
 *
 * debugfs, /sys/kernel/debug/luf/ (inspection, read-only):
 *
 *   stats	one "name value" line per event counter, summed over CPUs:
 *		  offered		read-only batches offered by the core
 *		  deferred		batches taken into the deferred batch
 *		  pages_tagged		pages covered by them (of folios of
 *					any order)
 *		  declined		batches refused (disabled, source off)
 *		  refused_writable	pages sent down the normal path: a PTE
 *					of their folio may be cached writable
 *		  refused_shstk		... a shadow-stack PTE
 *		  refused_large		... a hugetlb folio, or one met through
 *					a PMD mapping
 *		  refused_kept		... unmapped but kept by reclaim
 *		  refused_split		... a folio unmapped in the same pass
 *					was split (shmem writeback)
 *		  flush_<reason>	flushes done, by what asked: alloc, write,
 *					file_write, truncate, put, parked,
 *					mprotect, changed, reserve (core
 *					triggers; changed: a content change
 *					overlapped the unmap of the batch being
 *					offered; reserve: a zone's untagged free
 *					pages fell below the reserve), age,
 *					limit, disable (module)
 *		  flush_mm		flushes of one mm's batched unmaps (a
 *					private mapping became writable)
 *		  flushes		flushes of the deferred batch
 *		  ipis			flush IPIs sent (CPUs other than the
 *					flushing one)
 *		  flush_noop		flush requests that found nothing to do
 *   state	"name value" lines: enabled, hooks (the kernel's static
 *		key: 1 exactly while enabled), abi_version, gen_flushed,
 *		gen_deferred, gen_open, flushing, pending_cpus, pending_pages,
 *		oldest_pending_ms
 *
 * Debug builds only (make LUF_DEBUG=1; never in a normal build):
 *
 *   debug_skip	bitmask of flush reasons (bit n: the n-th flush_<reason>
 *		above: 0 alloc, 1 write, 2 file_write, 3 truncate, 4 put,
 *		5 parked, 6 mprotect, 7 changed, 8 reserve, 9 age, 10 limit,
 *		11 disable)
 *		whose flush requests are ignored; bit 1 also skips flush_mm.
 *		Breaks luf on purpose, so that tests can show they catch
 *		stale TLB entries.
 *   debug_core	the core's LUF_DEBUG_* bits (include/linux/luf.h), honoured
 *		by CONFIG_DEBUG_VM kernels: 1 admit dirty PTEs while a
 *		write-protection of their mm is unflushed (fork), 2 defer a
 *		batch that a content change overlapped, 4 wait 100 ms between
 *		unmap and offer, 8 wait 20 ms between an mprotect-style
 *		write-protection and its flush, 16 hand tagged pages out
 *		first (the LIFO order of a kernel without luf), so that
 *		freed pages are reused at once, 32 flush from any context,
 *		64 tag every page a task frees while its generation is
 *		pending (not only the folios it unmapped), 128 keep free
 *		blocks apart when one's tag is pending and the other's is
 *		not, 256 make a bulk allocation that may sleep park the
 *		tagged pages it meets, 512 make a file's content change
 *		flush every space, 1024 make it look at a space its folios
 *		were not offered to, 2048 queue the parking and reserve
 *		work from allocations that may wake nobody.  Cleared at
 *		unload.
 *   debug_flush_delay_us
 *		busy-wait this long in the flusher's window (luf_flushing
 *		set, batch not yet flushed).
 *   debug_defer_delay_us
 *		busy-wait this long in a deferral between taking it and
 *		queueing the age and limit work (the unload race test).
 *   debug_split_check
 *		read: split the first free block of order >= 1 with a
 *		pending tag through memory_failure() of its second page and
 *		report the tag its head piece kept (the split test; loses
 *		the page).
 *   debug_free_tags
 *		read: "free F tagged T unmerged U tagged_frees N counted C":
 *		free pages, those in blocks with a pending tag, pairs of
 *		free buddies that did not merge, frees that tagged a block,
 *		and the zones' own count of pending free pages (the
 *		reserve's estimate: never below T).
 *   debug_softirq_change
 *		write N: call luf_contents_changed() N times from a timer
 *		(softirq), 10 ms apart, as an I/O completion would.
 */
#ifndef _LUF_MODULE_H
#define _LUF_MODULE_H

#include <linux/luf.h>
#include <linux/percpu.h>
#include <linux/types.h>

struct dentry;
struct mm_struct;
struct seq_file;

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

struct luf_stats {
	u64 item[NR_LUF_STATS];
};

DECLARE_PER_CPU(struct luf_stats, luf_stats);

static inline void luf_stat_add(enum luf_stat_item item, u64 n)
{
	this_cpu_add(luf_stats.item[item], n);
}

/* Knobs, read with READ_ONCE(). */
extern unsigned int luf_max_defer_ms;
extern unsigned int luf_reserve;
void luf_set_reserve(unsigned int pct);
extern unsigned int luf_max_pages;
extern unsigned long luf_debug_skip;
extern unsigned long luf_debug_defer_delay_us;
extern unsigned long luf_debug_flush_delay_us;

/* The deferred batch (defer.c). */
extern const struct luf_ops luf_ops;
void luf_defer_init(void);
void luf_defer_start(void);
void luf_defer_stop(void);
void luf_set_sources(unsigned long sources);
unsigned long luf_get_sources(void);
void luf_show_state(struct seq_file *m);

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
