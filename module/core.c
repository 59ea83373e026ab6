// SPDX-License-Identifier: GPL-2.0
/*
 * Binding to core-hooks.patch and the enable switch.
 */

#include <linux/luf.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "luf.h"

struct luf_core luf_core;

/*
 * Every core symbol is looked up with symbol_get() instead of being linked
 * directly: on a kernel without core-hooks.patch a direct reference would fail
 * the load before our init runs, with nothing but "Unknown symbol" to show
 * for it.  Looked up here, the missing patch can be named.
 */
int luf_core_bind(void)
{
	const char *missing;

	luf_core.reg = symbol_get(luf_register);
	luf_core.unreg = symbol_get(luf_unregister);
	luf_core.mm_kobj = symbol_get(mm_kobj);

	missing = !luf_core.reg ? "luf_register" :
		  !luf_core.unreg ? "luf_unregister" :
		  !luf_core.mm_kobj ? "mm_kobj" : NULL;
	if (missing) {
		pr_err("this kernel lacks core-hooks.patch (no exported %s); luf needs a kernel built with the patch and CONFIG_LUF=y\n",
		       missing);
		luf_core_unbind();
		return -EOPNOTSUPP;
	}
	return 0;
}

void luf_core_unbind(void)
{
	if (luf_core.mm_kobj)
		symbol_put(mm_kobj);
	if (luf_core.unreg)
		symbol_put(luf_unregister);
	if (luf_core.reg)
		symbol_put(luf_register);
	memset(&luf_core, 0, sizeof(luf_core));
}

/*
 * Tests build a second copy of the module with a wrong interface version to
 * check that the core refuses it.
 */
#ifndef LUF_TEST_ABI_VERSION
#define LUF_TEST_ABI_VERSION LUF_ABI_VERSION
#endif

static const struct luf_ops luf_ops = {
	.abi_version	= LUF_TEST_ABI_VERSION,
	.owner		= THIS_MODULE,
};

/* Serialises enable/disable; luf_enabled is what is in effect. */
static DEFINE_MUTEX(luf_state_lock);
static bool luf_enabled;

/*
 * Idempotent, like lru_gen_change_state(): registration with the core is the
 * switch, so "enabled" can never disagree with what the hooks do.
 */
int luf_set_enabled(bool on)
{
	int err = 0;

	mutex_lock(&luf_state_lock);
	if (on == luf_enabled)
		goto out;
	if (on) {
		err = luf_core.reg(&luf_ops);
		if (err)
			goto out;
	} else {
		luf_core.unreg(&luf_ops);
	}
	luf_enabled = on;
out:
	mutex_unlock(&luf_state_lock);
	return err;
}

bool luf_is_enabled(void)
{
	return READ_ONCE(luf_enabled);
}
