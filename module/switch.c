// SPDX-License-Identifier: GPL-2.0
/*
 * The A/B switch (/sys/kernel/mm/luf/enabled) and hibernation's pause.
 */

#include <linux/mutex.h>
#include <linux/suspend.h>

#include "internal.h"

/*
 * @lock serialises enable/disable and hibernation's pause, and protects the
 * two fields after it (read without it, by luf_switch_get() and
 * luf_switch_paused()): @on is what the operator asked for, @paused whether
 * a hibernation holds deferral off.
 */
static struct luf_switch {
	struct mutex lock;	/* serialises the switch: see above */
	bool on;
	bool paused;
} luf_switch = {
	.lock = __MUTEX_INITIALIZER(luf_switch.lock),
};

/*
 * Idempotent, like lru_gen_change_state().  Enabling registers the hooks
 * (the core turns its static key on) and then starts deferring; disabling
 * stops deferring, completes every outstanding flush and unregisters (the
 * key goes off), so that a disabled luf costs nothing but the module's
 * memory: every hook site is a no-op jump again, as without the module.
 * Enabled during a hibernation, luf starts deferring when it is over.
 */
int luf_switch_set(bool on)
{
	int err = 0;

	mutex_lock(&luf_switch.lock);
	if (on != luf_switch.on) {
		if (on) {
			/* The core checks the interface version. */
			err = luf_core.reg(&luf_defer_ops);
			if (!err && !luf_switch.paused)
				luf_defer_start();
		} else {
			luf_defer_stop();
			/* Nothing is outstanding now: no tag needs checking. */
			luf_core.unreg(&luf_defer_ops);
		}
		if (!err)
			WRITE_ONCE(luf_switch.on, on);
	}
	mutex_unlock(&luf_switch.lock);
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
	mutex_lock(&luf_switch.lock);
	if (pause != luf_switch.paused) {
		WRITE_ONCE(luf_switch.paused, pause);
		if (luf_switch.on) {
			if (pause)
				luf_defer_stop();
			else
				luf_defer_start();
			pr_info("deferral %s hibernation\n",
				pause ? "paused for" : "resumed after");
		}
	}
	mutex_unlock(&luf_switch.lock);
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
int luf_switch_init(void)
{
	int err;

	err = register_pm_notifier(&luf_pm_nb);
	if (err)
		return err;
	err = luf_switch_set(true);
	if (err)
		unregister_pm_notifier(&luf_pm_nb);
	return err;
}

/* Unload: everything flushed before the core stops checking tags. */
void luf_switch_exit(void)
{
	luf_switch_set(false);
	unregister_pm_notifier(&luf_pm_nb);
#ifdef LUF_DEBUG
	/* Debug bits of a debug build must not outlive it. */
	WRITE_ONCE(luf_core.gens->debug, 0);
#endif
}

/* What the operator asked for; the core's luf_enabled() is the hooks' key. */
bool luf_switch_get(void)
{
	return READ_ONCE(luf_switch.on);
}

/* True while a hibernation holds deferral off (debugfs state). */
bool luf_switch_paused(void)
{
	return READ_ONCE(luf_switch.paused);
}
