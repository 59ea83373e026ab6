// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/luf/: the tuning interface, documented in module/ABI.
 * One file per entry of the knob table (knobs.c), which netlink shares.
 */

#include <linux/ctype.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>

#include "internal.h"

static struct kobject *luf_kobj;

struct luf_knob_attr {
	struct kobj_attribute attr;
	enum luf_knob_id id;
};

#define to_knob_attr(a) container_of(a, struct luf_knob_attr, attr)

static ssize_t knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", luf_knob(to_knob_attr(attr)->id)->get());
}

/*
 * Strict parsing: decimal digits (and an optional newline) giving a value
 * in the knob's range, or -EINVAL.  kstrtouint() alone also takes a
 * leading '+'.
 */
static ssize_t knob_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t len)
{
	unsigned int val[NR_LUF_KNOBS];
	enum luf_knob_id id = to_knob_attr(attr)->id;
	int err;

	if (!isdigit(buf[0]) || kstrtouint(buf, 10, &val[id]) ||
	    !luf_knob_valid(id, val[id]))
		return -EINVAL;
	err = luf_knobs_set(val, BIT(id), LUF_ORIGIN_SYSFS);
	return err ? err : len;
}

#define LUF_KNOB_ATTR(_name, _id)					\
	static struct luf_knob_attr luf_attr_##_name = {		\
		.attr = __ATTR(_name, 0644, knob_show, knob_store),	\
		.id = _id,						\
	}

LUF_KNOB_ATTR(enabled, LUF_KNOB_ENABLED);
LUF_KNOB_ATTR(max_defer_ms, LUF_KNOB_MAX_DEFER_MS);
LUF_KNOB_ATTR(max_pages, LUF_KNOB_MAX_PAGES);
LUF_KNOB_ATTR(migration, LUF_KNOB_MIGRATION);
LUF_KNOB_ATTR(reclaim, LUF_KNOB_RECLAIM);
LUF_KNOB_ATTR(numa, LUF_KNOB_NUMA);
LUF_KNOB_ATTR(reserve, LUF_KNOB_RESERVE);
LUF_KNOB_ATTR(stats_interval_ms, LUF_KNOB_STATS_INTERVAL_MS);

static struct luf_knob_attr *luf_knob_attrs[NR_LUF_KNOBS] = {
	&luf_attr_enabled,
	&luf_attr_max_defer_ms,
	&luf_attr_max_pages,
	&luf_attr_migration,
	&luf_attr_reclaim,
	&luf_attr_numa,
	&luf_attr_reserve,
	&luf_attr_stats_interval_ms,
};

static struct attribute *luf_attrs[NR_LUF_KNOBS + 1];

static const struct attribute_group luf_attr_group = {
	.attrs = luf_attrs,
};

int luf_sysfs_init(void)
{
	int i, err;

	/*
	 * The file names are the table's names: nothing to keep in step.
	 * Every knob is in the table by now (netlink registered its own).
	 */
	for (i = 0; i < NR_LUF_KNOBS; i++) {
		if (WARN_ON(luf_knob_attrs[i]->id != i || !luf_knob(i) ||
			    strcmp(luf_knob_attrs[i]->attr.attr.name,
				   luf_knob(i)->name)))
			return -EINVAL;
		luf_attrs[i] = &luf_knob_attrs[i]->attr.attr;
	}

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
