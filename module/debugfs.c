// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/luf/: the inspection interface, documented in module/ABI.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "luf.h"

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
