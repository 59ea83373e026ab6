// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>

static int __init warn_on_load_init(void)
{
	WARN(1, "warn_on_load: deliberate warning to test the harness\n");
	return 0;
}
module_init(warn_on_load_init);
MODULE_LICENSE("GPL");
