// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/luf/: the inspection interface, documented in module/ABI.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "luf.h"

DEFINE_PER_CPU(struct luf_stats, luf_stats);

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
};

static struct dentry *luf_debugfs_dir;

/* Summed over CPUs without stopping them: a snapshot, not an atomic one. */
u64 luf_stat_read(enum luf_stat_item item)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(luf_stats.item[item], cpu);
	return sum;
}

static int stats_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < NR_LUF_STATS; i++)
		seq_printf(m, "%s %llu\n", luf_stat_names[i], luf_stat_read(i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int state_show(struct seq_file *m, void *v)
{
	seq_printf(m, "enabled %d\n", luf_is_enabled());
	/* The core's static key: on exactly while luf is enabled. */
	seq_printf(m, "hooks %d\n", static_key_enabled(luf_core.active));
	seq_printf(m, "abi_version %u\n", LUF_ABI_VERSION);
	luf_show_state(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(state);

/* debugfs is for inspection only: failing to create it is not fatal. */
void luf_debugfs_init(void)
{
	luf_debugfs_dir = debugfs_create_dir("luf", NULL);
	debugfs_create_file("stats", 0444, luf_debugfs_dir, NULL, &stats_fops);
	debugfs_create_file("state", 0444, luf_debugfs_dir, NULL, &state_fops);
	luf_debug_files(luf_debugfs_dir);
}

void luf_debugfs_exit(void)
{
	debugfs_remove_recursive(luf_debugfs_dir);
}
