// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/luf/: the inspection interface, documented in module/ABI.
 */

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "internal.h"

static struct dentry *luf_debugfs_dir;

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
	struct luf_state st;
	cpumask_var_t cpus;

	seq_printf(m, "enabled %d\n", luf_switch_get());
	/* The core's static key: on exactly while luf is enabled. */
	seq_printf(m, "hooks %d\n", static_key_enabled(luf_core.active));
	seq_printf(m, "abi_version %u\n", LUF_ABI_VERSION);
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return 0;
	luf_defer_get_state(&st, cpus);
	seq_printf(m, "gen_flushed %lu\ngen_deferred %lu\ngen_open %lu\n",
		   st.gen_flushed, st.gen_deferred, st.gen_open);
	seq_printf(m, "flushing %d\n", st.flushing);
	seq_printf(m, "paused %d\n", luf_switch_paused());
	if (cpumask_empty(cpus))
		seq_puts(m, "pending_cpus none\n");
	else
		seq_printf(m, "pending_cpus %*pbl\n", cpumask_pr_args(cpus));
	seq_printf(m, "pending_pages %lu\n", st.pending_pages);
	seq_printf(m, "oldest_pending_ms %u\n", st.oldest_pending_ms);
	free_cpumask_var(cpus);
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
