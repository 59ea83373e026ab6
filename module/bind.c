// SPDX-License-Identifier: GPL-2.0
/*
 * Binding to core-hooks.patch: its entry points, looked up at load.
 */

#include <linux/module.h>

#include "internal.h"

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
	luf_core.flush_batch = symbol_get(luf_flush_batch);
	luf_core.batch_trim = symbol_get(luf_batch_trim);
	luf_core.flush_mm_batched = symbol_get(luf_flush_mm_batched);
	luf_core.gens = symbol_get(luf_gens);
	luf_core.mm_kobj = symbol_get(mm_kobj);
	luf_core.active = symbol_get(luf_active);
	luf_core.numa_release = symbol_get(luf_numa_release);

	missing = !luf_core.reg ? "luf_register" :
		  !luf_core.unreg ? "luf_unregister" :
		  !luf_core.flush_batch ? "luf_flush_batch" :
		  !luf_core.batch_trim ? "luf_batch_trim" :
		  !luf_core.flush_mm_batched ? "luf_flush_mm_batched" :
		  !luf_core.gens ? "luf_gens" :
		  !luf_core.mm_kobj ? "mm_kobj" :
		  !luf_core.active ? "luf_active" :
		  !luf_core.numa_release ? "luf_numa_release" : NULL;
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
	if (luf_core.numa_release)
		symbol_put(luf_numa_release);
	if (luf_core.active)
		symbol_put(luf_active);
	if (luf_core.mm_kobj)
		symbol_put(mm_kobj);
	if (luf_core.gens)
		symbol_put(luf_gens);
	if (luf_core.flush_mm_batched)
		symbol_put(luf_flush_mm_batched);
	if (luf_core.batch_trim)
		symbol_put(luf_batch_trim);
	if (luf_core.flush_batch)
		symbol_put(luf_flush_batch);
	if (luf_core.unreg)
		symbol_put(luf_unregister);
	if (luf_core.reg)
		symbol_put(luf_register);
	memset(&luf_core, 0, sizeof(luf_core));
}
