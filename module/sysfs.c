// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/luf/: the tuning interface, documented in luf.h.
 */

#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>

#include "luf.h"

static struct kobject *luf_kobj;

/* Strict parsing: a decimal number in [min, max], or -EINVAL. */
static int luf_parse_uint(const char *buf, unsigned int min, unsigned int max,
			  unsigned int *val)
{
	if (kstrtouint(buf, 10, val) || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

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

	err = luf_parse_uint(buf, 0, 1, &val);
	if (!err)
		err = luf_set_enabled(val);
	return err ? err : len;
}

static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);

/*
 * The numeric knobs: one generic show/store pair, the limits next to the
 * variable.  A source switch is a knob whose value is a bit in the sources.
 */
struct luf_knob {
	struct kobj_attribute attr;
	unsigned int *var;		/* or NULL: a source switch */
	unsigned int min, max;
	unsigned int source;
	void (*set)(unsigned int val);	/* or NULL: store to var */
};

#define to_luf_knob(a) container_of(a, struct luf_knob, attr)

static ssize_t knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct luf_knob *k = to_luf_knob(attr);

	if (!k->var)
		return sysfs_emit(buf, "%d\n",
				  !!(luf_get_sources() & BIT(k->source)));
	return sysfs_emit(buf, "%u\n", READ_ONCE(*k->var));
}

static ssize_t knob_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t len)
{
	struct luf_knob *k = to_luf_knob(attr);
	unsigned int val;

	if (luf_parse_uint(buf, k->min, k->max, &val))
		return -EINVAL;
	if (k->set)
		k->set(val);
	else if (k->var)
		WRITE_ONCE(*k->var, val);
	else if (val)
		luf_set_sources(luf_get_sources() | BIT(k->source));
	else
		luf_set_sources(luf_get_sources() & ~BIT(k->source));
	return len;
}

static struct luf_knob luf_knobs[] = {
	{ __ATTR(max_defer_ms, 0644, knob_show, knob_store),
	  &luf_max_defer_ms, 1, 60000 },
	{ __ATTR(max_pages, 0644, knob_show, knob_store),
	  &luf_max_pages, 1, 1U << 30 },
	{ __ATTR(migration, 0644, knob_show, knob_store),
	  NULL, 0, 1, LUF_SRC_MIGRATION },
	{ __ATTR(reclaim, 0644, knob_show, knob_store),
	  NULL, 0, 1, LUF_SRC_RECLAIM },
	{ __ATTR(reserve, 0644, knob_show, knob_store),
	  &luf_reserve, 0, 1000, 0, luf_set_reserve },
};

static struct attribute *luf_attrs[] = {
	&enabled_attr.attr,
	&luf_knobs[0].attr.attr,
	&luf_knobs[1].attr.attr,
	&luf_knobs[2].attr.attr,
	&luf_knobs[3].attr.attr,
	&luf_knobs[4].attr.attr,
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
