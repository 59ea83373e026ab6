// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress's split mode: the hog splits the large folios of the readers'
 * area instead of a migration or reclaim unmapping them.
 *
 *   split	private anonymous memory in 64 KiB folios (give it
 *		hugepages-64kB/enabled always), read-only, every odd page
 *		zero-filled.  Instead of migrating, the hog splits the
 *		area's large folios through /sys/kernel/debug/split_huge_pages:
 *		the split maps each zero-filled part to the shared zero page
 *		and frees it, from the hog's CPU, which the hog's next
 *		allocations reuse at once.  A reader that still translates to
 *		such a part sees the hog's poison instead of zeros.  Then the
 *		readers hold still while the area is made again (MADV_DONTNEED
 *		and a refill: new 64 KiB folios), and the hog splits again.
 *		With --no-zero no page is zero-filled: every part is mapped again in
 *		place, and luf's flush stays deferred.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include "lufstress.h"

/*
 * Split mode: the even pages, so that the head of every 64 KiB folio, the
 * part the split's caller keeps, stays mapped; the odd ones stay zero,
 * unless --no-zero.
 */
static void fill_split(void)
{
	long p;

	for (p = 0; p < npages; p += split_no_zero ? 1 : 2)
		fill_page(area + p * page_size / 8, p, 0);
}

void split_setup(size_t len)
{
	/* 64 KiB aligned, so that every folio of the area is whole. */
	size_t align = 64 << 10;
	char *m = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		die("mmap");
	area = (uint64_t *)(((uintptr_t)m + align - 1) & ~(align - 1));
	fill_split();
	/* The hog is forked: its copy would share the folios. */
	if (madvise(area, len, MADV_DONTFORK) ||
	    mprotect(area, len, PROT_READ))
		die("madvise/mprotect");
}

/*
 * Split mode: once the hog has split the area and let the readers look, make
 * it again in 64 KiB folios.  The readers hold still meanwhile: a read of an
 * address emptied by MADV_DONTNEED would map the zero page there, and the
 * refill would then copy into a small folio.  MADV_DONTNEED flushes what
 * the split left, the readers' stale entries included.
 */
void refiller(void)
{
	size_t len = npages * page_size;
	long pass;

	for (pass = 0; !atomic_load(&shm->stop); pass++) {
		while (!atomic_load_explicit(&shm->split_done, memory_order_acquire))
			if (atomic_load(&shm->stop))
				return;
			else
				sleep_ms(1);
		/* At the end the area is left as it is. */
		if (!hold_readers())
			return;
		if (mprotect(area, len, PROT_READ | PROT_WRITE) ||
		    madvise(area, len, MADV_DONTNEED))
			die("mprotect/madvise(MADV_DONTNEED)");
		fill_split();
		if (mprotect(area, len, PROT_READ))
			die("mprotect");
		release_readers();
		atomic_fetch_add(&migrated, npages);
		atomic_fetch_add(&npasses, 1);
		if (passes && pass + 1 >= passes)
			atomic_store(&shm->stop, 1);
		atomic_store_explicit(&shm->split_done, 0, memory_order_release);
	}
}

/*
 * Split mode: split the large folios of the readers' area (in the parent)
 * through debugfs, from this task, so that the parts the split frees go to
 * this CPU's free lists, where the poisoning that follows looks first.
 */
void split_area(pid_t pid)
{
	char cmd[96];
	int f = open("/sys/kernel/debug/split_huge_pages", O_WRONLY), n;

	if (f < 0)
		die("/sys/kernel/debug/split_huge_pages");
	n = snprintf(cmd, sizeof(cmd), "%d,%#lx,%#lx", (int)pid,
		     (unsigned long)area,
		     (unsigned long)area + npages * page_size);
	if (write(f, cmd, n) != n)
		die("split_huge_pages");
	close(f);
}
