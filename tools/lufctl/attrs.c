// SPDX-License-Identifier: GPL-2.0
/*
 * The attributes of luf's generic netlink family as lufctl names them: the
 * knobs SET takes, the fields of STATUS_GET's reply and the counters of
 * STATS_GET's, with what each means.  module/ABI is the place of record;
 * this is what set, status, stats and the Prometheus export need of it.
 */
#include <assert.h>

#include "lufctl.h"

/*
 * The keys, as in /sys/kernel/mm/luf/; --help lists them under KEYS with
 * their ranges and documentation.  enabled comes first: ab switches it.
 */
const struct knob lufctl_knobs[] = {
	{ "enabled", LUF_A_STATUS_ENABLED, 0, 1,
	  "The A/B switch; 0 completes every outstanding flush." },
	{ "max_defer_ms", LUF_A_STATUS_MAX_DEFER_MS, 1, 60000,
	  "No deferred flush waits longer (milliseconds)." },
	{ "max_pages", LUF_A_STATUS_MAX_PAGES, 1, 1073741824,
	  "Pages whose flush may be outstanding at once." },
	{ "migration", LUF_A_STATUS_MIGRATION, 0, 1,
	  "Defer the flushes of page migration's unmaps." },
	{ "reclaim", LUF_A_STATUS_RECLAIM, 0, 1,
	  "Defer the flushes of reclaim's unmaps." },
	{ "numa", LUF_A_STATUS_NUMA, 0, 1,
	  "Hand the TLB flush of NUMA balancing's hinting passes to luf." },
	{ "reserve", LUF_A_STATUS_RESERVE, 0, 1000,
	  "Percent of each zone's min watermark kept flushed." },
	{ "stats_interval_ms", LUF_A_STATUS_STATS_INTERVAL_MS, 100, 60000,
	  "Period of the snapshots on the stats multicast group." },
};

static_assert(ARRAY_SIZE(lufctl_knobs) == NR_KNOBS,
	      "lufctl_knobs[] must list every settable attribute");

/* STATUS_GET's reply, in the order of the attribute enum. */
const struct field lufctl_status_fields[] = {
	[LUF_A_STATUS_ENABLED]		= { "enabled", false },
	[LUF_A_STATUS_MAX_DEFER_MS]	= { "max_defer_ms", false },
	[LUF_A_STATUS_MAX_PAGES]	= { "max_pages", false },
	[LUF_A_STATUS_MIGRATION]	= { "migration", false },
	[LUF_A_STATUS_RECLAIM]		= { "reclaim", false },
	[LUF_A_STATUS_RESERVE]		= { "reserve", false },
	[LUF_A_STATUS_STATS_INTERVAL_MS] = { "stats_interval_ms", false },
	[LUF_A_STATUS_ABI_VERSION]	= { "abi_version", false },
	[LUF_A_STATUS_HOOKS]		= { "hooks", false },
	[LUF_A_STATUS_GEN_FLUSHED]	= { "gen_flushed", true },
	[LUF_A_STATUS_GEN_DEFERRED]	= { "gen_deferred", true },
	[LUF_A_STATUS_GEN_OPEN]		= { "gen_open", true },
	[LUF_A_STATUS_FLUSHING]		= { "flushing", false },
	[LUF_A_STATUS_PENDING_CPUS]	= { "pending_cpus", false },
	[LUF_A_STATUS_PENDING_PAGES]	= { "pending_pages", true },
	[LUF_A_STATUS_OLDEST_PENDING_MS] = { "oldest_pending_ms", false },
	[LUF_A_STATUS_NUMA]		= { "numa", false },
};

/* A new attribute before the pad would otherwise go unprinted. */
static_assert(ARRAY_SIZE(lufctl_status_fields) == STATUS_LAST + 1 &&
	      STATUS_LAST + 1 == LUF_A_STATUS_PAD,
	      "lufctl_status_fields[] must name every status attribute");

/*
 * The counters, in the order (and with the names) of
 * /sys/kernel/debug/luf/stats: `lufctl stats` must print the same lines.
 * Counter i is attribute LUF_A_STATS_OFFERED + i.
 */
const char *const lufctl_stat_names[] = {
	"offered", "deferred", "pages_tagged", "declined",
	"refused_writable", "refused_shstk", "refused_large", "refused_kept",
	"refused_split",
	"flush_alloc", "flush_write", "flush_file_write", "flush_truncate",
	"flush_put", "flush_parked", "flush_mprotect", "flush_changed",
	"flush_reserve", "flush_age", "flush_limit", "flush_disable",
	"flush_mm", "flushes", "ipis", "flush_noop", "ipis_avoided",
	"flush_tick",
	"numa_held", "numa_done", "numa_ipis", "numa_sync",
};

static_assert(ARRAY_SIZE(lufctl_stat_names) == NR_STATS,
	      "lufctl_stat_names[] must name every counter attribute");
static_assert(LUF_A_STATS_NUMA_SYNC + 1 == LUF_A_STATS_PAD,
	      "a counter was added after numa_sync");

/* What each counter counts, for the HELP lines of the Prometheus export. */
const char *const lufctl_stat_help[] = {
	"Read-only unmap batches the kernel offered to luf.",
	"Batches whose TLB flush luf deferred.",
	"Pages covered by the deferred batches.",
	"Batches luf declined (disabled, or their source switched off).",
	"Pages flushed at once: a PTE of their folio may be cached writable.",
	"Pages flushed at once: a shadow-stack PTE.",
	"Pages flushed at once: a hugetlb folio, or one mapped by a PMD.",
	"Pages flushed at once: unmapped but kept by reclaim.",
	"Pages flushed at once: a folio of the pass was split.",
	"Deferred flushes completed: a tagged page left the page allocator.",
	"Deferred flushes completed: a PTE may become writable.",
	"Deferred flushes completed: file contents changed.",
	"Deferred flushes completed: a file was truncated.",
	"Deferred flushes completed: someone else dropped a deferred folio.",
	"Deferred flushes completed: pages parked by an allocation.",
	"Deferred flushes completed: mprotect or uffd-wp may make PTEs writable.",
	"Deferred flushes completed: contents changed while a batch was gathered.",
	"Deferred flushes completed: a zone's untagged free pages ran low.",
	"Deferred flushes completed: max_defer_ms was reached.",
	"Deferred flushes completed: max_pages was reached.",
	"Deferred flushes completed: luf was disabled (or hibernation began).",
	"Flushes of one mm's batched unmaps (a private mapping became writable).",
	"Flushes of the deferred batch.",
	"Flush IPIs luf sent (to CPUs other than the flushing one).",
	"Flush requests that found nothing to do.",
	"CPUs a flush did not interrupt: idle, or flushed since the deferral.",
	"Age flushes that let the CPUs flush at their tick before any IPI.",
	"NUMA hinting flushes handed to luf (knob numa).",
	"Held NUMA hinting flushes completed with no IPI: every CPU flushed "
	"at a tick or a switch, or went idle.",
	"IPIs luf sent for held NUMA hinting flushes whose CPUs had not "
	"flushed by the deadline.",
	"Held NUMA hinting flushes completed at once by IPI: mprotect, "
	"uffd-wp, the knob going off or unload needed them.",
};

static_assert(ARRAY_SIZE(lufctl_stat_help) == NR_STATS,
	      "lufctl_stat_help[] must explain every counter");
