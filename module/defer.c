// SPDX-License-Identifier: GPL-2.0
/*
 * The global deferred batch: generations, flushes and their races.
 *
 * Deferrals join the open generation, luf_batch.open, and their CPUs
 * accumulate in luf_batch.pending.  A flush closes the open generation under
 * luf_batch.lock: it takes the pending CPUs as its own batch, opens
 * luf_batch.open + 1 for whatever comes next, flushes outside the lock and
 * publishes luf_gens.flushed = the generation it closed.  One flush
 * completes every deferral made before it closed the generation, however
 * many there were.
 *
 * So at most two generations are outstanding, the one being flushed and the
 * open one.  An age flush closes the open generation early instead, keeps
 * its CPUs apart (luf_batch.ticking) and asks the CPUs to flush at their
 * next scheduler tick; LUF_TICK_WAIT jiffies later, at the deadline, it
 * flushes what is left by IPI.  A generation waiting for the ticks counts
 * as the one being flushed: any request for it flushes it at once.  A tag
 * in a free page is one of the two, or done, or something that was never a
 * tag (see luf.h in the core); the core's fast check never mistakes an
 * outstanding tag for a flushed one.
 *
 * Not every CPU of a batch gets the IPI: every deferral publishes a new
 * epoch (luf_gens.epoch) after its PTEs were cleared, and the core drops
 * from the batch the CPUs that have flushed, or switched mm, since the
 * generation's newest deferral, and lazy ones (luf_batch_trim()).
 */

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm_types.h>
#include <linux/mm_types_task.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include "luf_trace.h"

/* Counted here, per CPU; stats.c sums and names them for the interfaces. */
DEFINE_PER_CPU(struct luf_stats, luf_stats);

unsigned long luf_debug_skip;
unsigned long luf_debug_defer_delay_us;
unsigned long luf_debug_flush_delay_us;
unsigned long luf_debug_bound_wq;
/* 1: no CPU is dropped; 2: a generation keeps its first deferral's epoch. */
unsigned long luf_debug_trim;
/* 1: the age flush sends its IPIs at once, as before it waited for ticks. */
unsigned long luf_debug_tick;
/* 1: a NUMA pass is taken and left: counts back at once, no flush asked. */
unsigned long luf_debug_numa;

/*
 * How long an age flush waits for the CPUs' own flushes at their scheduler
 * tick before it sends IPIs (see luf_tick() in the core): every CPU that is
 * not idle ticks once per jiffy, and idle CPUs are lazy, which needs none.
 */
#define LUF_TICK_WAIT	2

/*
 * Where the age and limit work runs.  Unbound: the CPU that deferred, whose
 * pool a per-CPU workqueue would use (the age timer fires there too), may
 * be kept busy by a real-time task for as long as it likes (a DPDK poll
 * loop with RT throttling off), and max_defer_ms must hold anyway.  High
 * priority, so that the window does not wait behind normal work; with a
 * rescuer, since completing flushes lets tagged free pages be used again.
 */
static struct workqueue_struct *luf_defer_wq;

static struct workqueue_struct *luf_work_queue(void)
{
#ifdef LUF_DEBUG
	/* The per-CPU pool of the deferring CPU, as luf once used. */
	if (READ_ONCE(luf_debug_bound_wq))
		return system_highpri_wq;
#endif
	return luf_defer_wq;
}

/*
 * Work added while a flush runs.  The closing of a generation and every
 * deferral take luf_batch.lock, so a deferral either lands before the close, in
 * the batch that is being flushed, or after it, in the new open generation:
 *
 *	CPU0 (flush)			CPU1 (reclaim)
 *	lock
 *	batch = pending; pending = {}
 *	target = open++
 *	unlock
 *					unmap folios, PTEs cleared
 *					lock
 *					pending |= CPUs; gen = open
 *					unlock
 *	IPIs to batch
 *	flushed = target		free folios tagged gen (> target)
 *
 * CPU1's CPUs are not in CPU0's batch, and its tag is newer than what CPU0
 * publishes: nothing CPU1 deferred reads as flushed until a later flush.
 * Clearing pending after the IPIs instead would lose CPU1's CPUs.
 *
 * Concurrent requesters.  Two CPUs may ask for the same generation:
 *
 *	CPU0				CPU1
 *	lock; flushing = true; unlock
 *	IPIs				lock; sees flushing; unlock
 *					spins until !flushing
 *	lock; flushed = target;		lock; target <= flushed: done
 *	flushing = false; unlock
 *
 * CPU1 must not return while CPU0's IPIs are in flight (its page could be
 * reused before they land), and must not start a second flush of an empty
 * batch and publish it first.  Only one flush is in flight at a time.
 *
 * Contexts.  The core asks for a flush only from task context with
 * interrupts enabled: an IPI cannot be waited for otherwise (allocations
 * park the page instead, I/O completions in softirq or hardirq queue the
 * flush to a worker).  Requesters spin rather than sleep, since allocations
 * may not sleep.  A spinning CPU keeps interrupts enabled, so it answers the
 * flusher's IPI; and everything from the check of luf_batch.flushing to its
 * clearing runs with preemption and bottom halves disabled, so no requester
 * can be waiting on the same CPU for a flusher it interrupted or preempted.
 */
/*
 * The deferred batch.  @lock protects every field after it.  Some are read
 * without it as well, and written with WRITE_ONCE(): @flushing by the
 * requesters that spin on it, @sources and @max_defer_ms by the knobs'
 * getters, @ticking_gen by the tick work.  @flushing_batch and
 * @ticking_part belong to the flush in flight, from the critical section
 * that sets @flushing to the one that clears it.
 *
 * Raw: taken with preemption and bottom halves disabled (luf_flush()), which
 * a sleeping lock on PREEMPT_RT may not be.
 */
static struct luf_batch {
	raw_spinlock_t lock;
	/* The CPUs of the open generation, and of the flush in flight. */
	struct arch_tlbflush_unmap_batch pending;
	struct arch_tlbflush_unmap_batch flushing_batch;
	struct arch_tlbflush_unmap_batch ticking_part;
	unsigned long open;		/* the generation deferrals join */
	bool open_used;			/* ... and whether one has */
	unsigned long open_epoch;	/* ... the epoch of its newest one */
	/* A generation closed by age, waiting for the CPUs' ticks, or 0. */
	struct arch_tlbflush_unmap_batch ticking;
	unsigned long ticking_gen;
	unsigned long ticking_epoch;
	unsigned long ticking_since;	/* open_since, open_pages it had */
	unsigned long ticking_pages;
	unsigned long open_since;	/* jiffies of its first deferral */
	unsigned long open_pages;
	bool flushing;			/* a flush is in flight */
	bool accepting;			/* deferring: started, not stopped */
	unsigned long sources;		/* knobs: BIT(enum luf_source) */
	unsigned int max_defer_ms;	/* knob */
} luf_batch = {
	.lock		= __RAW_SPIN_LOCK_UNLOCKED(luf_batch.lock),
	.sources	= BIT(LUF_SRC_MIGRATION) | BIT(LUF_SRC_RECLAIM),
	.max_defer_ms	= 1000,
};

/*
 * The mechanism's knobs that its lock does not protect (READ_ONCE() and
 * WRITE_ONCE()).  Like every knob they change only through knobs.c, which
 * calls the setters below.
 */
static unsigned int luf_max_pages = 65536;
static unsigned int luf_reserve = 100;

#ifdef LUF_DEBUG
/* Busy-wait @us microseconds (callers may not sleep). */
static void luf_debug_delay(unsigned long us)
{
	mdelay(us / 1000);
	udelay(us % 1000);
}
#endif

static bool luf_after(unsigned long a, unsigned long b)
{
	return (long)(a - b) > 0;
}

/* Drop the CPUs that flushed since @epoch, or are lazy (see the core). */
static void luf_trim(struct arch_tlbflush_unmap_batch *batch,
		     unsigned long epoch)
{
#ifdef LUF_DEBUG
	if (READ_ONCE(luf_debug_trim) == 1)
		return;
#endif
	luf_core.batch_trim(batch, epoch);
}

static void luf_flush(unsigned long gen, unsigned int why)
{
	struct luf_gens *gens = luf_core.gens;
	unsigned long flags, target, done, epoch = 0, ticking_epoch = 0;
	unsigned int nr_cpus, nr_ipis, nr_self;
	bool with_ticking = false, with_open = true;
	u64 start;

#ifdef LUF_DEBUG
	if (test_bit(why, &luf_debug_skip))
		return;
#endif
	lockdep_assert_irqs_enabled();
	/*
	 * Bottom halves and preemption are off from before luf_batch.flushing
	 * is set until it is cleared: nothing can interrupt or preempt the
	 * flusher on its own CPU and then spin waiting for it, and a spinner
	 * below is never the flusher's CPU.
	 */
	local_bh_disable();
	preempt_disable();
retry:
	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	if (!luf_after(gen, gens->flushed) ||
	    (!luf_batch.open_used && !luf_batch.flushing &&
	     !luf_batch.ticking_gen)) {
		/* Done meanwhile, or a tag that was never handed out. */
		raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
		preempt_enable();
		local_bh_enable();
		luf_stat_add(LUF_STAT_FLUSH_NOOP, 1);
		return;
	}
	if (luf_batch.flushing) {
		raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
		while (READ_ONCE(luf_batch.flushing))
			cpu_relax();
		goto retry;
	}
	/*
	 * The generation waiting for the ticks is the older one: a request
	 * for it alone leaves the open generation open.
	 */
	if (luf_batch.ticking_gen) {
		with_ticking = true;
		with_open = luf_after(gen, luf_batch.ticking_gen);
		ticking_epoch = luf_batch.ticking_epoch;
		cpumask_copy(&luf_batch.ticking_part.cpumask,
			     &luf_batch.ticking.cpumask);
		cpumask_clear(&luf_batch.ticking.cpumask);
		WRITE_ONCE(luf_batch.ticking_gen, 0);
	}
	if (with_open) {
		target = luf_batch.open;
		epoch = luf_batch.open_epoch;
		cpumask_copy(&luf_batch.flushing_batch.cpumask,
			     &luf_batch.pending.cpumask);
		cpumask_clear(&luf_batch.pending.cpumask);
		luf_batch.open++;
		luf_batch.open_used = false;
		luf_batch.open_pages = 0;
	} else {
		target = luf_batch.open - 1;
		cpumask_clear(&luf_batch.flushing_batch.cpumask);
	}
	WRITE_ONCE(luf_batch.flushing, true);
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
#ifdef LUF_DEBUG
	/* Widens the flusher's window, for the tests. */
	luf_debug_delay(READ_ONCE(luf_debug_flush_delay_us));
#endif

	start = trace_luf_flush_enabled() ? ktime_get_ns() : 0;
	/*
	 * Each part is trimmed by the epoch of its own newest deferral: the
	 * CPUs that flushed at the tick did so for the older generation only.
	 */
	if (with_ticking) {
		/* A CPU in both is held to the newer epoch. */
		cpumask_andnot(&luf_batch.ticking_part.cpumask,
			       &luf_batch.ticking_part.cpumask,
			       &luf_batch.flushing_batch.cpumask);
	}
	nr_cpus = cpumask_weight(&luf_batch.flushing_batch.cpumask);
	nr_self = cpumask_test_cpu(smp_processor_id(),
				   &luf_batch.flushing_batch.cpumask);
	if (with_open)
		luf_trim(&luf_batch.flushing_batch, epoch);
	if (with_ticking) {
		struct arch_tlbflush_unmap_batch *t = &luf_batch.ticking_part;

		nr_cpus += cpumask_weight(&t->cpumask);
		nr_self |= cpumask_test_cpu(smp_processor_id(), &t->cpumask);
		luf_trim(t, ticking_epoch);
		cpumask_or(&luf_batch.flushing_batch.cpumask,
			   &luf_batch.flushing_batch.cpumask, &t->cpumask);
	}
	nr_ipis = cpumask_weight(&luf_batch.flushing_batch.cpumask);
	if (cpumask_test_cpu(smp_processor_id(),
			     &luf_batch.flushing_batch.cpumask))
		nr_ipis--;
	luf_core.flush_batch(&luf_batch.flushing_batch);

	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	done = target - gens->flushed;
	/* Pairs with smp_load_acquire() in the core's luf_tag_pending(). */
	smp_store_release(&gens->flushed, target);
	WRITE_ONCE(luf_batch.flushing, false);
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
	preempt_enable();
	local_bh_enable();

	luf_stat_add(LUF_STAT_FLUSH + why, 1);
	luf_stat_add(LUF_STAT_FLUSHES, 1);
	luf_stat_add(LUF_STAT_IPIS, nr_ipis);
	luf_stat_add(LUF_STAT_IPIS_AVOIDED, nr_cpus - nr_self - nr_ipis);
	if (trace_luf_flush_enabled())
		trace_luf_flush(why, done, nr_cpus, nr_ipis,
				start ? ktime_get_ns() - start : 0);
	/* An event for the interfaces (netlink announces it, coalesced). */
	if (why == LUF_FLUSH_AGE || why == LUF_FLUSH_LIMIT ||
	    why == LUF_FLUSH_RESERVE)
		luf_events_forced(why);
}

static void luf_flush_everything(unsigned int why)
{
	luf_flush(READ_ONCE(luf_core.gens->deferred), why);
}

/*
 * Ask every CPU behind @epoch to flush at its next tick.  Never lowered: the
 * age flush and the NUMA holds each need the CPUs up to their own epoch.
 * Called with luf_batch.lock held.
 */
static void luf_tick_upto(unsigned long epoch)
{
	struct luf_gens *gens = luf_core.gens;

	if (luf_after(epoch, gens->tick_epoch))
		WRITE_ONCE(gens->tick_epoch, epoch);
}

/*
 * Publish a new epoch and return it; luf_batch.lock held.  For a deferral
 * and for a held hinting pass alike.
 */
static unsigned long luf_epoch_next(void)
{
	struct luf_gens *gens = luf_core.gens;

	/*
	 * The caller cleared PTEs and raised their mms' tlb_gen before
	 * (atomically: a full barrier): a CPU that reads the new epoch before
	 * a full flush has caught up with them too.  Pairs with the smp_rmb()
	 * after the core's read of it.
	 */
	smp_wmb();
	WRITE_ONCE(gens->epoch, gens->epoch + 1);
	return gens->epoch;
}

/*
 * Does an age flush of @ms first wait LUF_TICK_WAIT jiffies for the ticks?
 * Not when the window is too short to leave some of it before the wait.
 */
static bool luf_age_waits_tick(unsigned int ms)
{
#ifdef LUF_DEBUG
	if (READ_ONCE(luf_debug_tick))
		return false;
#endif
	return msecs_to_jiffies(ms) > LUF_TICK_WAIT;
}

/* From a generation's first deferral to its age work. */
static unsigned long luf_age_delay(unsigned int ms)
{
	unsigned long delay = msecs_to_jiffies(ms);

	return luf_age_waits_tick(ms) ? delay - LUF_TICK_WAIT : delay;
}

/* The deadline of the generation waiting for the ticks: IPIs for the rest. */
static void luf_tick_workfn(struct work_struct *work)
{
	unsigned long gen = READ_ONCE(luf_batch.ticking_gen);

	if (gen)
		luf_flush(gen, LUF_FLUSH_AGE);
}

static DECLARE_DELAYED_WORK(luf_tick_work, luf_tick_workfn);

/*
 * Bounds the window: no deferral outlives max_defer_ms (plus a worker).
 * LUF_TICK_WAIT jiffies before the deadline the open generation is closed
 * and every CPU behind its epoch flushes at its next tick (luf_tick() in the
 * core); at the deadline luf_tick_workfn() sends IPIs to those that did not.
 */
static void luf_age_workfn(struct work_struct *work)
{
	unsigned long flags;
	bool closed = false;

	if (luf_age_waits_tick(READ_ONCE(luf_batch.max_defer_ms))) {
		raw_spin_lock_irqsave(&luf_batch.lock, flags);
		if (luf_batch.accepting && luf_batch.open_used &&
		    !luf_batch.ticking_gen) {
			cpumask_copy(&luf_batch.ticking.cpumask,
				     &luf_batch.pending.cpumask);
			cpumask_clear(&luf_batch.pending.cpumask);
			WRITE_ONCE(luf_batch.ticking_gen, luf_batch.open);
			luf_batch.ticking_epoch = luf_batch.open_epoch;
			luf_batch.ticking_since = luf_batch.open_since;
			luf_batch.ticking_pages = luf_batch.open_pages;
			luf_batch.open++;
			luf_batch.open_used = false;
			luf_batch.open_pages = 0;
			luf_tick_upto(luf_batch.ticking_epoch);
			/* Under the lock, as in luf_defer_join(). */
			mod_delayed_work(luf_work_queue(), &luf_tick_work,
					 LUF_TICK_WAIT);
			closed = true;
		}
		raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
	}
	if (closed)
		luf_stat_add(LUF_STAT_FLUSH_TICK, 1);
	else
		luf_flush_everything(LUF_FLUSH_AGE);
}

static DECLARE_DELAYED_WORK(luf_age_work, luf_age_workfn);

/*
 * The setters of the mechanism's knobs are called by knobs.c alone, with
 * its lock held; the getters read the value in effect.
 *
 * A new max_defer_ms holds for the open generation too: a shorter one must
 * not wait for a timer set with the longer one.
 */
void luf_defer_set_max_ms(unsigned int ms)
{
	unsigned long flags, due;

	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	WRITE_ONCE(luf_batch.max_defer_ms, ms);
	if (luf_batch.accepting && luf_batch.open_used) {
		due = luf_batch.open_since + luf_age_delay(ms);
		mod_delayed_work(luf_work_queue(), &luf_age_work,
				 time_after(due, jiffies) ? due - jiffies : 0);
	}
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
}

unsigned int luf_defer_max_ms(void)
{
	return READ_ONCE(luf_batch.max_defer_ms);
}

void luf_defer_set_max_pages(unsigned int pages)
{
	WRITE_ONCE(luf_max_pages, pages);
}

unsigned int luf_defer_max_pages(void)
{
	return READ_ONCE(luf_max_pages);
}

static void luf_limit_workfn(struct work_struct *work)
{
	luf_flush_everything(LUF_FLUSH_LIMIT);
}

static DECLARE_WORK(luf_limit_work, luf_limit_workfn);

static unsigned long luf_defer_join(struct arch_tlbflush_unmap_batch *batch,
				    unsigned long sources,
				    unsigned long nr_pages)
{
	unsigned long flags, epoch, gen = 0;
	bool first = false, over;

	luf_stat_add(LUF_STAT_OFFERED, 1);
	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	if (luf_batch.accepting && !(sources & ~luf_batch.sources)) {
		cpumask_or(&luf_batch.pending.cpumask,
			   &luf_batch.pending.cpumask, &batch->cpumask);
		if (!luf_batch.open_used) {
			luf_batch.open_used = true;
			luf_batch.open_since = jiffies;
			first = true;
		}
		luf_batch.open_pages += nr_pages;
		over = luf_batch.open_pages >= READ_ONCE(luf_max_pages);
		epoch = luf_epoch_next();
#ifdef LUF_DEBUG
		if (READ_ONCE(luf_debug_trim) != 2 || first)
#endif
			luf_batch.open_epoch = epoch;
		gen = luf_batch.open;
		WRITE_ONCE(luf_core.gens->deferred, gen);
		/*
		 * Queued under the lock, while luf_batch.accepting is seen
		 * true: luf_defer_stop() clears it under the same lock before
		 * it cancels the work, so no deferral can queue the work after
		 * the cancel, into the memory of a module being unloaded.
		 * A timer still pending belongs to a generation that has
		 * been flushed, and may have been set for a longer
		 * max_defer_ms: set it again, for this one.  See
		 * luf_defer_wq for where it runs.
		 */
		if (first)
			mod_delayed_work(luf_work_queue(), &luf_age_work,
					 luf_age_delay(luf_batch.max_defer_ms));
		if (over)
			queue_work(luf_work_queue(), &luf_limit_work);
	}
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
#ifdef LUF_DEBUG
	/* Widens the window between taking the deferral and queueing work. */
	if (gen)
		luf_debug_delay(READ_ONCE(luf_debug_defer_delay_us));
#endif

	if (!gen) {
		luf_stat_add(LUF_STAT_DECLINED, 1);
		return 0;
	}
	if (trace_luf_defer_enabled())
		trace_luf_defer(gen, cpumask_weight(&batch->cpumask), nr_pages,
				sources);
	luf_stat_add(LUF_STAT_DEFERRED, 1);
	luf_stat_add(LUF_STAT_PAGES_TAGGED, nr_pages);
	return gen;
}

/*
 * Held NUMA hinting flushes (LUF_SRC_NUMA, see luf_numa_hand_off() in the
 * core).  One hold per mm, in a small table: the CPUs of its passes, the
 * epoch published after the newest one, what the newest read of the mm's
 * batched unmaps (which the hold's completion flushes too, see
 * luf_numa_release()), and the deadline of the oldest.
 * Each jiffy the hold work drops the CPUs that flushed since that epoch
 * (every CPU behind luf_gens.tick_epoch does at its next tick), switched mm
 * or are lazy, and releases the holds left with none.  At the deadline the
 * CPUs still there get IPIs: no CPU keeps a pass's entries longer than
 * LUF_NUMA_WAIT jiffies, plus a worker.  A full table refuses a pass, and
 * the core flushes it at once.
 *
 * luf_holds.lock is taken in process context with interrupts enabled.  The
 * work and the stop take the holds that end out of the table under it, and
 * flush the CPUs of all of them with one round of IPIs after it; a sync
 * (one mm) sends its IPIs under it, and a CPU that spins on it still
 * answers them.  The counts a hold carries (see luf_numa_release()) are
 * given back after the flush, outside the lock.
 */
#define LUF_NUMA_HOLDS	64
#define LUF_NUMA_WAIT	2

struct luf_hold {
	struct mm_struct *mm;		/* NULL: a free slot */
	struct arch_tlbflush_unmap_batch batch;
	unsigned long epoch;
	unsigned long deadline;
	unsigned int passes, wrprotects;
	struct luf_numa_seen seen;
};

/* What a completed hold still has to give back to the core. */
struct luf_hold_done {
	struct mm_struct *mm;
	unsigned int passes, wrprotects;
	struct luf_numa_seen seen;
};

static struct {
	spinlock_t lock;		/* protects every field after it */
	bool accepting;
	unsigned int nr;		/* also read without it, to skip it */
	struct luf_hold slot[LUF_NUMA_HOLDS];
	/* The work's (and, once it is cancelled, the stop's) scratch. */
	struct luf_hold_done done[LUF_NUMA_HOLDS];
	struct arch_tlbflush_unmap_batch ipi;
} luf_holds = {
	.lock	= __SPIN_LOCK_UNLOCKED(luf_holds.lock),
};

static void luf_numa_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(luf_numa_work, luf_numa_workfn);

/* A new epoch, after @mm's tlb_gen was raised; ticks asked up to it. */
static unsigned long luf_numa_epoch(void)
{
	unsigned long flags, epoch;

	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	epoch = luf_epoch_next();
	luf_tick_upto(epoch);
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
	return epoch;
}

/* Take @h out of the table into @done; luf_holds.lock held. */
static void luf_hold_end(struct luf_hold *h, struct luf_hold_done *done)
{
	done->mm = h->mm;
	done->passes = h->passes;
	done->wrprotects = h->wrprotects;
	done->seen = h->seen;
	h->mm = NULL;
	WRITE_ONCE(luf_holds.nr, luf_holds.nr - 1);
}

/* Flush the CPUs of @batch, and return how many got an IPI. */
static unsigned int luf_hold_flush(struct arch_tlbflush_unmap_batch *batch)
{
	unsigned int nr = cpumask_weight(&batch->cpumask);

	if (!nr)
		return 0;
	/* The flusher's own CPU flushes without an IPI. */
	if (cpumask_test_cpu(raw_smp_processor_id(), &batch->cpumask))
		nr--;
	luf_core.flush_batch(batch);
	return nr;
}

static void luf_holds_release(struct luf_hold_done *done, unsigned int nr)
{
	while (nr--) {
		luf_core.numa_release(done->mm, done->passes, done->wrprotects,
				      &done->seen);
		done++;
	}
}

static bool luf_numa_hold(struct mm_struct *mm, bool wrprotect,
			  const struct luf_numa_seen *seen)
{
	struct luf_hold *h, *slot = NULL;
	bool first;
	int i;

	spin_lock(&luf_holds.lock);
	if (!luf_holds.accepting ||
	    !(READ_ONCE(luf_batch.sources) & BIT(LUF_SRC_NUMA))) {
		spin_unlock(&luf_holds.lock);
		return false;
	}
	for (i = 0; i < LUF_NUMA_HOLDS; i++) {
		h = &luf_holds.slot[i];
		if (h->mm == mm) {
			slot = h;
			break;
		}
		if (!h->mm && !slot)
			slot = h;
	}
	if (!slot) {
		spin_unlock(&luf_holds.lock);
		return false;
	}
#ifdef LUF_DEBUG
	if (READ_ONCE(luf_debug_numa)) {
		/*
		 * No completion: the counts go back, no CPU is asked.  Nor
		 * is anything said of the batched unmaps, which only a
		 * completion would have flushed.
		 */
		spin_unlock(&luf_holds.lock);
		luf_core.numa_release(mm, 1, wrprotect, NULL);
		luf_stat_add(LUF_STAT_NUMA_HELD, 1);
		return true;
	}
#endif
	h = slot;
	first = !luf_holds.nr;
	if (h->mm != mm) {
		h->mm = mm;
		cpumask_clear(&h->batch.cpumask);
		h->passes = 0;
		h->wrprotects = 0;
		/* The deadline of its oldest pass: merging does not extend it. */
		h->deadline = jiffies + LUF_NUMA_WAIT;
		WRITE_ONCE(luf_holds.nr, luf_holds.nr + 1);
	}
	cpumask_or(&h->batch.cpumask, &h->batch.cpumask, mm_cpumask(mm));
	h->epoch = luf_numa_epoch();
	h->seen = *seen;
	if (first)
		mod_delayed_work(luf_work_queue(), &luf_numa_work, 1);
	h->passes++;
	h->wrprotects += wrprotect;
	spin_unlock(&luf_holds.lock);
	luf_stat_add(LUF_STAT_NUMA_HELD, 1);
	return true;
}

/*
 * Trim every hold; end those left with no CPU and, when @all or at their
 * deadline, those with some, whose CPUs go into luf_holds.ipi.  Returns
 * how many ended into luf_holds.done; luf_holds.lock held.
 */
static unsigned int luf_holds_scan(bool all)
{
	unsigned int i, nr = 0, done = 0;

	cpumask_clear(&luf_holds.ipi.cpumask);
	for (i = 0; i < LUF_NUMA_HOLDS; i++) {
		struct luf_hold *h = &luf_holds.slot[i];

		if (!h->mm)
			continue;
		luf_trim(&h->batch, h->epoch);
		if (cpumask_empty(&h->batch.cpumask))
			done++;
		else if (all || !time_before(jiffies, h->deadline))
			cpumask_or(&luf_holds.ipi.cpumask,
				   &luf_holds.ipi.cpumask, &h->batch.cpumask);
		else
			continue;
		luf_hold_end(h, &luf_holds.done[nr++]);
	}
	if (all)
		luf_stat_add(LUF_STAT_NUMA_SYNC, nr);
	else
		luf_stat_add(LUF_STAT_NUMA_DONE, done);
	return nr;
}

/* After luf_holds_scan(): one round of IPIs, then the counts go back. */
static void luf_holds_finish(unsigned int nr)
{
	luf_stat_add(LUF_STAT_NUMA_IPIS, luf_hold_flush(&luf_holds.ipi));
	luf_holds_release(luf_holds.done, nr);
}

static void luf_numa_workfn(struct work_struct *work)
{
	unsigned int nr;

	spin_lock(&luf_holds.lock);
	nr = luf_holds_scan(false);
	/* The holds still waiting for their CPUs or their deadline. */
	if (luf_holds.nr)
		mod_delayed_work(luf_work_queue(), &luf_numa_work, 1);
	spin_unlock(&luf_holds.lock);
	luf_holds_finish(nr);
}

/* A hinting fault is about to migrate a page of @mm (the core). */
static void luf_holds_sync(struct mm_struct *mm)
{
	struct luf_hold_done done = { };
	unsigned int i;

	/*
	 * The core asks whenever @mm has a flush pending, which an mprotect
	 * or a migration of its own raises as well: with no hold at all, no
	 * lock.  A hold that enters the table after this read would have
	 * been missed under the lock too; the caller's own flush then sees
	 * the count it still carries (pte_accessible()).
	 */
	if (!READ_ONCE(luf_holds.nr))
		return;
	spin_lock(&luf_holds.lock);
	for (i = 0; i < LUF_NUMA_HOLDS; i++) {
		struct luf_hold *h = &luf_holds.slot[i];

		if (h->mm != mm)
			continue;
		luf_trim(&h->batch, h->epoch);
		luf_stat_add(LUF_STAT_NUMA_IPIS, luf_hold_flush(&h->batch));
		luf_stat_add(LUF_STAT_NUMA_SYNC, 1);
		luf_hold_end(h, &done);
		break;
	}
	spin_unlock(&luf_holds.lock);
	if (done.mm)
		luf_holds_release(&done, 1);
}

/*
 * No hold is taken after this, and every one is completed: by IPI, as the
 * A/B switch completes deferred flushes.
 */
static void luf_numa_stop(void)
{
	unsigned int nr;

	spin_lock(&luf_holds.lock);
	luf_holds.accepting = false;
	spin_unlock(&luf_holds.lock);
	cancel_delayed_work_sync(&luf_numa_work);
	spin_lock(&luf_holds.lock);
	nr = luf_holds_scan(true);
	spin_unlock(&luf_holds.lock);
	luf_holds_finish(nr);
}

static void luf_ops_flush(unsigned long gen, enum luf_reason why)
{
	luf_flush(gen, why);
}

/*
 * A private mapping of @mm is about to become writable: stale translations
 * of an older copy can only be @mm's own, and flushing @mm's CPUs is enough.
 */
static void luf_ops_flush_mm(struct mm_struct *mm)
{
#ifdef LUF_DEBUG
	if (test_bit(LUF_FLUSH_WRITE, &luf_debug_skip))
		return;
#endif
	luf_core.flush_mm_batched(mm);
	luf_stat_add(LUF_STAT_FLUSH_MM, 1);
}

static void luf_ops_refused(enum luf_refusal why, unsigned long nr)
{
	luf_stat_add(LUF_STAT_REFUSED + why, nr);
}

/*
 * Tests build a second copy of the module with a wrong interface version to
 * check that the core refuses it.
 */
#ifndef LUF_TEST_ABI_VERSION
#define LUF_TEST_ABI_VERSION LUF_ABI_VERSION
#endif

const struct luf_ops luf_defer_ops = {
	.abi_version	= LUF_TEST_ABI_VERSION,
	.owner		= THIS_MODULE,
	.defer		= luf_defer_join,
	.flush		= luf_ops_flush,
	.flush_mm	= luf_ops_flush_mm,
	.refused	= luf_ops_refused,
	.numa_hold	= luf_numa_hold,
	.numa_sync	= luf_holds_sync,
};

/* The core reads the sources it may offer from luf_gens. */
static void luf_publish_sources(void)
{
	WRITE_ONCE(luf_core.gens->sources,
		   luf_batch.accepting ? luf_batch.sources : 0);
}

void luf_defer_set_sources(unsigned long sources)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	WRITE_ONCE(luf_batch.sources, sources);
	luf_publish_sources();
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
}

unsigned long luf_defer_sources(void)
{
	return READ_ONCE(luf_batch.sources);
}

/* The core reads the reserve from luf_gens. */
static void luf_publish_reserve(void)
{
	WRITE_ONCE(luf_core.gens->reserve, luf_reserve);
}

void luf_defer_set_reserve(unsigned int pct)
{
	WRITE_ONCE(luf_reserve, pct);
	luf_publish_reserve();
}

unsigned int luf_defer_reserve(void)
{
	return READ_ONCE(luf_reserve);
}

/* Generations continue where an earlier instance of the module stopped. */
int luf_defer_init(void)
{
	struct luf_gens *gens = luf_core.gens;
	unsigned long last = gens->flushed;

	luf_defer_wq = alloc_workqueue("luf_defer",
				       WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM,
				       0);
	if (!luf_defer_wq)
		return -ENOMEM;
	luf_publish_reserve();

	if (luf_after(gens->deferred, last))
		last = gens->deferred;
	luf_batch.open = last + 1;
	return 0;
}

/* After luf_defer_stop(): no work is queued or running any more. */
void luf_defer_exit(void)
{
	destroy_workqueue(luf_defer_wq);
}

void luf_defer_start(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	luf_batch.accepting = true;
	luf_publish_sources();
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);
	spin_lock(&luf_holds.lock);
	luf_holds.accepting = true;
	spin_unlock(&luf_holds.lock);
}

/*
 * Stop deferring and complete everything outstanding: afterwards the core
 * may stop checking tags.  A deferral racing with this either took its
 * generation before luf_batch.accepting was cleared, and the flush below
 * covers it, or is declined and flushed by the core at once.
 */
void luf_defer_stop(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	luf_batch.accepting = false;
	luf_publish_sources();
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);

	luf_numa_stop();
	luf_flush_everything(LUF_FLUSH_DISABLE);
	cancel_delayed_work_sync(&luf_age_work);
	cancel_delayed_work_sync(&luf_tick_work);
	cancel_work_sync(&luf_limit_work);
}

/* @cpus, if not NULL, receives the CPUs the open generation's flush needs. */
void luf_defer_get_state(struct luf_state *st, struct cpumask *cpus)
{
	struct luf_gens *gens = luf_core.gens;
	unsigned long flags, since;
	bool used;

	raw_spin_lock_irqsave(&luf_batch.lock, flags);
	/* A generation waiting for the ticks is pending too, and older. */
	if (cpus)
		cpumask_or(cpus, &luf_batch.pending.cpumask,
			   &luf_batch.ticking.cpumask);
	st->pending_cpus = cpumask_weight(&luf_batch.pending.cpumask) +
			   cpumask_weight_andnot(&luf_batch.ticking.cpumask,
						 &luf_batch.pending.cpumask);
	used = luf_batch.open_used || luf_batch.ticking_gen;
	since = luf_batch.ticking_gen ? luf_batch.ticking_since :
					luf_batch.open_since;
	st->pending_pages = luf_batch.open_pages +
			    (luf_batch.ticking_gen ? luf_batch.ticking_pages : 0);
	st->flushing = luf_batch.flushing;
	st->gen_flushed = gens->flushed;
	st->gen_deferred = gens->deferred;
	st->gen_open = luf_batch.open;
	raw_spin_unlock_irqrestore(&luf_batch.lock, flags);

	st->oldest_pending_ms = used ? jiffies_to_msecs(jiffies - since) : 0;
}
