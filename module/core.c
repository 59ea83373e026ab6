// SPDX-License-Identifier: GPL-2.0
/*
 * Binding to core-hooks.patch and the enable switch.
 */

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/suspend.h>

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
	luf_core.active = symbol_get(luf_active);

	missing = !luf_core.reg ? "luf_register" :
		  !luf_core.unreg ? "luf_unregister" :
		  !luf_core.flush_batch ? "luf_flush_batch" :
		  !luf_core.flush_mm_batched ? "luf_flush_mm_batched" :
		  !luf_core.gens ? "luf_gens" :
		  !luf_core.mm_kobj ? "mm_kobj" :
		  !luf_core.active ? "luf_active" : NULL;
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
	if (luf_core.active)
		symbol_put(luf_active);
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

/*
 * Serialises enable/disable and hibernation's pause; luf_on is what the
 * operator asked for, luf_paused whether a hibernation holds deferral off.
 */
static DEFINE_MUTEX(luf_state_lock);
static bool luf_on;
static bool luf_paused;

/*
 * Idempotent, like lru_gen_change_state().  Enabling registers the hooks
 * (the core turns its static key on) and then starts deferring; disabling
 * stops deferring, completes every outstanding flush and unregisters (the
 * key goes off), so that a disabled luf costs nothing but the module's
 * memory: every hook site is a no-op jump again, as without the module.
 * Enabled during a hibernation, luf starts deferring when it is over.
 */
int luf_set_enabled(bool on)
{
	int err = 0;

	mutex_lock(&luf_state_lock);
	if (on != luf_on) {
		if (on) {
			/* The core checks the interface version. */
			err = luf_core.reg(&luf_ops);
			if (!err && !luf_paused)
				luf_defer_start();
		} else {
			luf_defer_stop();
			/* Nothing is outstanding now: no tag needs checking. */
			luf_core.unreg(&luf_ops);
		}
		if (!err)
			WRITE_ONCE(luf_on, on);
	}
	mutex_unlock(&luf_state_lock);
	return err;
}

/*
 * Hibernation.  swsusp_save() counts the pages the image must hold, then
 * allocates their copies with GFP_ATOMIC and interrupts off, then collects
 * the pages to copy again.  An allocation there that meets a page whose
 * flush is outstanding cannot flush and parks it: off the free lists and
 * not allocated, the page is saveable in the second pass and was not in the
 * first, and copy_data_pages() runs past the copies it has.  Only copies
 * that hibernate_preallocate_memory() did not make are allocated there (a
 * snapshot that grew while devices were suspended), but nothing bounds how
 * many.  So deferral stops, and everything outstanding is flushed, before
 * the PM core freezes tasks: from then on no free page waits for a flush
 * and nothing can park.  Loading an image allocates with GFP_ATOMIC as
 * well, and pauses the same way.  Tasks are thawed before the POST events,
 * so deferral starts again into a running system.
 */
static void luf_set_paused(bool pause)
{
	mutex_lock(&luf_state_lock);
	if (pause != luf_paused) {
		WRITE_ONCE(luf_paused, pause);
		if (luf_on) {
			if (pause)
				luf_defer_stop();
			else
				luf_defer_start();
			pr_info("deferral %s hibernation\n",
				pause ? "paused for" : "resumed after");
		}
	}
	mutex_unlock(&luf_state_lock);
}

static int luf_pm_notify(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	switch (action) {
	case PM_HIBERNATION_PREPARE:
	case PM_RESTORE_PREPARE:
		luf_set_paused(true);
		break;
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		luf_set_paused(false);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block luf_pm_nb = {
	.notifier_call = luf_pm_notify,
};

/* Load. */
int luf_start(void)
{
	int err;

	err = register_pm_notifier(&luf_pm_nb);
	if (err)
		return err;
	err = luf_set_enabled(true);
	if (err)
		unregister_pm_notifier(&luf_pm_nb);
	return err;
}

/* Unload: everything flushed before the core stops checking tags. */
void luf_stop(void)
{
	luf_set_enabled(false);
	unregister_pm_notifier(&luf_pm_nb);
	/* Debug bits of a debug build must not outlive it. */
	WRITE_ONCE(luf_core.gens->debug, 0);
}

bool luf_is_enabled(void)
{
	return READ_ONCE(luf_on);
}

/* True while a hibernation holds deferral off (debugfs state). */
bool luf_is_paused(void)
{
	return READ_ONCE(luf_paused);
}
