// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/luf/: the tuning interface, documented in luf.h.
 */

#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>

#include "luf.h"

static struct kobject *luf_kobj;

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", luf_is_enabled());
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t len)
{
	unsigned int val;
	int err;

	err = kstrtouint(buf, 10, &val);
	if (err || val > 1)
		return -EINVAL;

	err = luf_set_enabled(val);
	return err ? err : len;
}

static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);

static struct attribute *luf_attrs[] = {
	&enabled_attr.attr,
	NULL,
};

static const struct attribute_group luf_attr_group = {
	.attrs = luf_attrs,
};

int luf_sysfs_init(void)
{
	int err;

	luf_kobj = kobject_create_and_add("luf", *luf_core.mm_kobj);
	if (!luf_kobj)
		return -ENOMEM;

	err = sysfs_create_group(luf_kobj, &luf_attr_group);
	if (err) {
		kobject_put(luf_kobj);
		return err;
	}
	return 0;
}

void luf_sysfs_exit(void)
{
	sysfs_remove_group(luf_kobj, &luf_attr_group);
	kobject_put(luf_kobj);
}
