// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim, as lufstress uses it: the passes of --source pageout, and the
 * discards of uffd-copy (uffd.c) and device (device.c).
 *
 * uffd-copy and device hold the readers still from a whole sweep after
 * MADV_FREE (which flushes) until the new contents are published: each
 * reader's TLB then holds every page when reclaim unmaps them, and no reader
 * faults in the window (a fault would map the zero page, whose replacement
 * flushes the whole mm, and a missing page's fault counts for nothing).
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include "lufstress.h"

/*
 * Truncate with --source pageout: a reclaim pass that keeps a folio flushes all
 * it deferred at once (luf_folio_kept()), and would flush the stale entries
 * the truncater's test needs: the passes stay out of its way.
 */
pthread_mutex_t pageout_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reclaim the pages again and again; the readers fault them back in. */
void pageouter(void)
{
	long pass;

	for (pass = 0; !atomic_load(&shm->stop); pass++) {
		int rc;

		while (atomic_load(&shm->quiet) && !atomic_load(&shm->stop))
			sleep_ms(1);
		pthread_mutex_lock(&pageout_lock);
		atomic_fetch_add(&shm->pass_started, 1);
		rc = madvise(area, npages * page_size, MADV_PAGEOUT);
		/* The pass's TLB flushes are done or deferred. */
		atomic_fetch_add(&shm->pass_done, 1);
		pthread_mutex_unlock(&pageout_lock);
		if (rc)
			die("madvise(MADV_PAGEOUT)");
		atomic_fetch_add(&migrated, npages);
		atomic_fetch_add(&npasses, 1);
		if (passes && pass + 1 >= passes)
			atomic_store(&shm->stop, 1);
		sleep_ms(5);
	}
}

/*
 * uffd-copy, device: let reclaim discard the MADV_FREE'd pages, in one
 * pass: it drains this CPU's batch of lazily freed folios first (the
 * writer stays on its CPU), and a second pass would begin by flushing what
 * the first deferred (flush_tlb_batched_pending()), the stale entries the
 * test is about included.  --move: the folios written to be moved need the
 * first pass to drain them; the second discards.
 */
static void discard_all(void)
{
	if (madvise(area, npages * page_size, MADV_PAGEOUT) ||
	    (use_move && madvise(area, npages * page_size, MADV_PAGEOUT)))
		die("madvise(MADV_PAGEOUT)");
}

/*
 * uffd-copy, device: new folios wait in the LRU batch of the CPU that made
 * them (the setup's, or the readers' that fault pages back from the
 * device), off the LRU, where MADV_FREE cannot mark them and reclaim cannot
 * take them: uffd-copy would then rewrite them in place, for good, and
 * device mode would skip every pass.  move_pages(2) drains every CPU's batches before it
 * moves anything (lru_cache_disable()); the page asked for is a page of
 * its own, already on the node it is asked to go to.
 */
static void drain_lru_batches(void)
{
	static uint64_t *page;
	int node, status;

	if (!page) {
		page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED)
			die("mmap");
		*page = 1;
	}
	if (syscall(SYS_move_pages, 0, 1L, &page, NULL, &node, 0) < 0 ||
	    node < 0 ||
	    syscall(SYS_move_pages, 0, 1L, &page, &node, &status, 0) < 0)
		die("move_pages (LRU drain)");
}

/*
 * uffd-copy, device: free the area lazily (MADV_FREE, which flushes), hold
 * the readers still once their TLBs cache it again, and let reclaim
 * discard it.  Returns 0 when the run ended first (no hold then);
 * otherwise the caller puts the new contents in place, publishes and
 * calls release_readers().
 */
int free_and_discard(void)
{
	drain_lru_batches();
	if (madvise(area, npages * page_size, MADV_FREE))
		die("madvise(MADV_FREE)");
	if (!hold_readers())
		return 0;
	discard_all();
	atomic_fetch_add(&migrated, npages);
	atomic_fetch_add(&npasses, 1);
	return 1;
}
