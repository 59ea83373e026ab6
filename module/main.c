// SPDX-License-Identifier: GPL-2.0
/*
 * luf: lazy unmap flush.  Module entry and exit.
 */

#include <linux/module.h>

#include "internal.h"

static int __init luf_mod_init(void)
{
	int err;

	err = luf_core_bind();
	if (err)
		return err;

	err = luf_defer_init();
	if (err)
		goto err_bind;

	err = luf_switch_init();
	if (err)
		goto err_defer;

	err = luf_nl_init();
	if (err)
		goto err_enable;

	err = luf_sysfs_init();
	if (err)
		goto err_nl;

	luf_debugfs_init();
	pr_info("enabled (interface version %u)\n", LUF_ABI_VERSION);
	return 0;

err_nl:
	luf_nl_exit();
err_enable:
	luf_switch_exit();
err_defer:
	luf_defer_exit();
err_bind:
	luf_core_unbind();
	return err;
}

static void __exit luf_mod_exit(void)
{
	luf_debugfs_exit();
	luf_sysfs_exit();
	luf_nl_exit();
	luf_switch_exit();
	luf_defer_exit();
	luf_core_unbind();
}

module_init(luf_mod_init);
module_exit(luf_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Lazy unmap flush: defer TLB flushes of read-only unmapped pages");
MODULE_AUTHOR("The luf developers");
MODULE_VERSION(LUF_VERSION);
