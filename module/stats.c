// SPDX-License-Identifier: GPL-2.0
/*
 * luf's counters as the interfaces show them: debugfs's stats file and the
 * netlink family's stats, in one order and under one set of names
 * (module/ABI).  The mechanism counts (luf_stat_add()); this reads.
 */

#include <linux/cpumask.h>
#include <linux/percpu.h>

#include "internal.h"

const char *const luf_stat_names[NR_LUF_STATS] = {
	[LUF_STAT_OFFERED]		= "offered",
	[LUF_STAT_DEFERRED]		= "deferred",
	[LUF_STAT_PAGES_TAGGED]		= "pages_tagged",
	[LUF_STAT_DECLINED]		= "declined",
	[LUF_STAT_REFUSED + LUF_REFUSED_WRITABLE] = "refused_writable",
	[LUF_STAT_REFUSED + LUF_REFUSED_SHSTK]	= "refused_shstk",
	[LUF_STAT_REFUSED + LUF_REFUSED_LARGE]	= "refused_large",
	[LUF_STAT_REFUSED + LUF_REFUSED_KEPT]	= "refused_kept",
	[LUF_STAT_REFUSED + LUF_REFUSED_SPLIT]	= "refused_split",
	[LUF_STAT_FLUSH + LUF_FLUSH_ALLOC]	= "flush_alloc",
	[LUF_STAT_FLUSH + LUF_FLUSH_WRITE]	= "flush_write",
	[LUF_STAT_FLUSH + LUF_FLUSH_FILE_WRITE]	= "flush_file_write",
	[LUF_STAT_FLUSH + LUF_FLUSH_TRUNCATE]	= "flush_truncate",
	[LUF_STAT_FLUSH + LUF_FLUSH_PUT]	= "flush_put",
	[LUF_STAT_FLUSH + LUF_FLUSH_PARKED]	= "flush_parked",
	[LUF_STAT_FLUSH + LUF_FLUSH_MPROTECT]	= "flush_mprotect",
	[LUF_STAT_FLUSH + LUF_FLUSH_CHANGED]	= "flush_changed",
	[LUF_STAT_FLUSH + LUF_FLUSH_RESERVE]	= "flush_reserve",
	[LUF_STAT_FLUSH + LUF_FLUSH_AGE]	= "flush_age",
	[LUF_STAT_FLUSH + LUF_FLUSH_LIMIT]	= "flush_limit",
	[LUF_STAT_FLUSH + LUF_FLUSH_DISABLE]	= "flush_disable",
	[LUF_STAT_FLUSH_MM]		= "flush_mm",
	[LUF_STAT_FLUSHES]		= "flushes",
	[LUF_STAT_IPIS]			= "ipis",
	[LUF_STAT_FLUSH_NOOP]		= "flush_noop",
	[LUF_STAT_IPIS_AVOIDED]		= "ipis_avoided",
	[LUF_STAT_FLUSH_TICK]		= "flush_tick",
	[LUF_STAT_NUMA_HELD]		= "numa_held",
	[LUF_STAT_NUMA_DONE]		= "numa_done",
	[LUF_STAT_NUMA_IPIS]		= "numa_ipis",
	[LUF_STAT_NUMA_SYNC]		= "numa_sync",
};

/* Summed over CPUs without stopping them: a snapshot, not an atomic one. */
u64 luf_stat_read(enum luf_stat_item item)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(luf_stats.item[item], cpu);
	return sum;
}
