// SPDX-License-Identifier: GPL-2.0
/*
 * Binding to core-hooks.patch and the enable switch.
 */

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
	luf_core.flush_batch = symbol_get(luf_flush_batch);
	luf_core.flush_mm_batched = symbol_get(luf_flush_mm_batched);
	luf_core.gens = symbol_get(luf_gens);
	luf_core.mm_kobj = symbol_get(mm_kobj);

	missing = !luf_core.reg ? "luf_register" :
		  !luf_core.unreg ? "luf_unregister" :
		  !luf_core.flush_batch ? "luf_flush_batch" :
		  !luf_core.flush_mm_batched ? "luf_flush_mm_batched" :
		  !luf_core.gens ? "luf_gens" :
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
	if (luf_core.gens)
		symbol_put(luf_gens);
	if (luf_core.flush_mm_batched)
		symbol_put(luf_flush_mm_batched);
	if (luf_core.flush_batch)
		symbol_put(luf_flush_batch);
	if (luf_core.unreg)
		symbol_put(luf_unregister);
	if (luf_core.reg)
		symbol_put(luf_register);
	memset(&luf_core, 0, sizeof(luf_core));
}

/* Serialises enable/disable; luf_on is what is in effect. */
static DEFINE_MUTEX(luf_state_lock);
static bool luf_on;

/*
 * Idempotent, like lru_gen_change_state().  Disabling stops deferring and
 * completes every outstanding flush before it returns; the hooks stay
 * registered (the static key stays on) until the module is unloaded, and
 * find nothing to do.
 *
 * Why not flip the key here: under QEMU's multi-threaded TCG, patching the
 * hook sites while other vCPUs run them (a fault-heavy load) was seen to
 * end in an int3 Oops at a hook site, which points at the emulator's
 * handling of cross-modified code; load and unload still flip the key.
 */
int luf_set_enabled(bool on)
{
	mutex_lock(&luf_state_lock);
	if (on != luf_on) {
		if (on)
			luf_defer_start();
		else
			luf_defer_stop();
		WRITE_ONCE(luf_on, on);
	}
	mutex_unlock(&luf_state_lock);
	return 0;
}

/* Load: register the hooks (the core checks the interface version). */
int luf_start(void)
{
	int err = luf_core.reg(&luf_ops);

	if (err)
		return err;
	luf_set_enabled(true);
	return 0;
}

/* Unload: everything flushed before the core stops checking tags. */
void luf_stop(void)
{
	luf_set_enabled(false);
	/* Debug bits of a debug build must not outlive it. */
	WRITE_ONCE(luf_core.gens->debug, 0);
	luf_core.unreg(&luf_ops);
}

bool luf_is_enabled(void)
{
	return READ_ONCE(luf_on);
}
