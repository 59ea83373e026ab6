// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress's modes on anonymous memory, and the writers that change the
 * contents through a mapping (a write fault, mprotect(2), /proc/self/mem)
 * rather than through a file:
 *
 *   anon	private anonymous memory, shared read-only with a forked child
 *   shmem	anonymous shared memory (MAP_SHARED | MAP_ANONYMOUS: shmem,
 *		in 64 KiB folios with hugepages-64kB/shmem_enabled always),
 *		filled, then made read-only with mprotect(2); with
 *		--source pageout and a swap file, reclaim unmaps each large folio
 *		whole and shmem_writepage() splits it after that unmap (a
 *		swap file has no large swap entries)
 *   cow	anonymous memory written to by the writer thread through its
 *		own mapping (write faults on read-only, exclusive pages)
 *   mprotect	anonymous memory made writable with mprotect(2), written,
 *		and made read-only again, by the writer
 *   mprotect-shared
 *		a tmpfs file shared with a writer process, which makes its
 *		own mapping writable with mprotect(2) (no write fault on
 *		tmpfs), writes and makes it read-only again: the readers'
 *		stale entries are in another mm, which nothing but luf's
 *		mprotect trigger flushes
 *   force	private anonymous memory made read-only with mprotect(2);
 *		the writer changes it through /proc/self/mem, as a debugger
 *		setting a breakpoint does: a FOLL_FORCE write into the
 *		exclusive pages, with no write fault
 *   excl	private anonymous memory shared read-only with a forked
 *		child, as anon, but its second (cold) half written again
 *		after the fork, so exclusive to the process, which then
 *		only reads it: its PTEs are writable until NUMA
 *		balancing makes them PROT_NONE, a page migrated then comes
 *		back read-only (luf may defer its next migrations), and a
 *		hinting fault makes the PTE writable again with no write.
 *		The readers and the migrator keep to the first half; the
 *		writer drives hinting passes over the second (cold) half
 *		through the debug module and faults on it while a pass's
 *		flush is held (excl_round(); the checker's hint mutation).
 *		--thp-head: the cold half is in 2 MiB THPs, refilled each
 *		round, kept out of the fork, and each is made PTE-mapped and
 *		read-only with its first page write-protected by
 *		userfaultfd: the hinting fault on that page cannot make its
 *		own PTE writable, and numa_rebuild_large_mapping() makes
 *		the folio's others writable (checker-mutation hint-large;
 *		thp_refill(), excl_round())
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "lufstress.h"

#define THP_SIZE	(2UL << 20)	/* --thp-head: a PMD's worth */

static int mem_fd = -1;			/* force: /proc/self/mem */

/*
 * Write-protect the PTEs of the anonymous area but keep the pages exclusive:
 * a child that exits at once leaves the parent's PTEs write-protected (fork
 * did it) and the pages with a single reference, so the next write to each
 * is a write fault that reuses the page in place.
 */
static void write_protect(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
}

/*
 * Make @a writable without a fault (mprotect(2)), write epoch @e into it
 * and make it read-only again.
 */
void write_unprotected(uint64_t *a, uint64_t e)
{
	long p;

	if (mprotect(a, npages * page_size, PROT_READ | PROT_WRITE))
		die("mprotect");
	for (p = 0; p < npages; p++)
		fill_page(a + p * page_size / 8, p, e);
	if (mprotect(a, npages * page_size, PROT_READ))
		die("mprotect");
}

/*
 * mprotect-shared: the writer is a process of its own, so that nothing it
 * does flushes the readers' mm, and writes through its own mapping of the
 * file.  The PTEs must be present and read-only for mprotect() to upgrade
 * them: it does, for all at once, since tmpfs wants no write notification.
 */
static void shared_writer(void)
{
	volatile uint64_t sum = 0;
	long p;

	for (p = 0; p < npages; p++)
		sum += area[p * page_size / 8];
	while (!atomic_load(&shm->stop)) {
		uint64_t e = atomic_load(&shm->epoch) + 1;

		write_unprotected(area, e);
		publish(e);
		sleep_ms(20);
	}
	_exit(0);
}

/*
 * The readers' area: @len bytes of anonymous memory, MAP_PRIVATE or
 * MAP_SHARED (@flags), filled with epoch 0.
 */
static void map_filled(size_t len, int flags)
{
	size_t align = thp_head ? THP_SIZE : 0;
	uintptr_t a, head;
	long p;

	area = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		    flags | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		die("mmap");
	if (align) {
		/* Keep len bytes from the first aligned address. */
		a = ((uintptr_t)area + align - 1) & ~(uintptr_t)(align - 1);
		head = a - (uintptr_t)area;
		if ((head && munmap(area, head)) ||
		    munmap((char *)a + len, align - head))
			die("munmap");
		area = (uint64_t *)a;
	}
	for (p = 0; p < npages; p++)
		fill_page(area + p * page_size / 8, p, 0);
}

/* anon, cow, mprotect, force, excl: private anonymous memory. */
void anon_setup(size_t len)
{
	long p;

	map_filled(len, MAP_PRIVATE);
	warea = area;
	if (mode == M_ANON || mode == M_EXCL) {
		/*
		 * Share the pages read-only with a child: after fork both
		 * mappings are write-protected (and dirty).  excl writes its
		 * cold half again below, which makes those pages exclusive
		 * (--thp-head's rounds map theirs afresh).
		 */
		child = fork_child();
		if (child < 0)
			die("fork");
		if (child == 0) {
			pause();
			_exit(0);
		}
	} else if (mode == M_COW) {
		write_protect();
	} else if (mprotect(area, len, PROT_READ)) {
		die("mprotect");
	}
	if (mode == M_EXCL && !thp_head)
		for (p = npages / 2; p < npages; p++)
			fill_page(area + p * page_size / 8, p, 0);
	if (mode == M_FORCE) {
		mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		if (mem_fd < 0)
			die("/proc/self/mem");
	}
}

void shmem_setup(size_t len)
{
	map_filled(len, MAP_SHARED);
	/*
	 * The hog is forked: a second mapping of the folios would make
	 * MADV_PAGEOUT pass them by as shared.
	 */
	if (madvise(area, len, MADV_DONTFORK) ||
	    mprotect(area, len, PROT_READ))
		die("madvise/mprotect");
}

enum round cow_round(uint64_t e, uint64_t *buf)
{
	long p;

	/* Each first write is a write fault reusing the page. */
	for (p = 0; p < npages; p++)
		fill_page(warea + p * page_size / 8, p, e);
	publish(e);
	sleep_ms(20);
	write_protect();
	return ROUND_DONE;
}

enum round mprotect_round(uint64_t e, uint64_t *buf)
{
	/* Upgrade without a fault, write, downgrade. */
	write_unprotected(warea, e);
	return ROUND_PUBLISH;
}

enum round mprotect_shared_round(uint64_t e, uint64_t *buf)
{
	pid_t pid = fork_child();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		shared_writer();
	waitpid(pid, NULL, 0);
	return ROUND_STOP;
}

/* excl: the debug module's hinting pass over @len bytes of @cold. */
static void numa_pass(uint64_t *cold, size_t len)
{
	static const char *knob = "/sys/kernel/debug/luf/debug_numa_pass";
	char line[64];
	int fd, n;

	n = snprintf(line, sizeof(line), "%d %lu %lu", (int)getpid(),
		     (unsigned long)cold, (unsigned long)len);
	fd = open(knob, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line, n) != n)
		die(knob);
	close(fd);
}

/*
 * --thp-head: fresh 2 MiB THPs for the round, written, PMD-mapped and
 * exclusive.  6.12 splits an anonymous large folio the second time it
 * migrates mapped by PTEs (the first migration unmaps it one PTE after
 * the other, which marks it partially mapped, and the mark moves to the
 * new folio), so none serves two rounds.  A new mapping rather than
 * MADV_DONTNEED: that leaves the page table, and a fault under a page
 * table maps single pages.  Kept out of the fork.  Its first
 * migration, of the PROT_NONE PMD, brings it back read-only;
 * uffd_wp_heads() then splits the PMD into read-only PTEs, which marks
 * nothing; its second migration, a read-only batch luf defers, is its last.
 */
static void thp_refill(uint64_t *cold, long ncold)
{
	size_t len = ncold * page_size;
	long p;

	uffd_unregister_heads(cold, len);
	if (mmap(cold, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != cold ||
	    madvise(cold, len, MADV_DONTFORK) ||
	    madvise(cold, len, MADV_HUGEPAGE))
		die("--thp-head: mmap, madvise");
	for (p = 0; p < ncold; p++)
		fill_page(cold + p * page_size / 8, npages / 2 + p, 0);
}

/*
 * --thp-head: whether every page of @cold is on node 0 (move_pages(2)
 * asked where they are), and the first page of every 2 MiB write-protected
 * by userfaultfd and the second not (pagemap bit 57): whether the fault on
 * the first page leaves the rebuild alone to upgrade the others, without
 * migrating the folio.
 */
static int heads_protected(uint64_t *cold, long ncold)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long p, step = THP_SIZE / page_size;
	int ok = pm >= 0, status[ncold];
	void *pages[ncold];
	uint64_t e[2];

	for (p = 0; p < ncold; p++)
		pages[p] = cold + p * page_size / 8;
	if (syscall(SYS_move_pages, 0, ncold, pages, NULL, status, 0))
		ok = 0;
	for (p = 0; ok && p < ncold; p++)
		ok = status[p] == 0;
	for (p = 0; ok && p < ncold; p += step)
		ok = pread(pm, e, sizeof(e),
			   (off_t)((uintptr_t)pages[p] / page_size) * 8) ==
			     sizeof(e) &&
		     (e[0] >> 57 & 1) && !(e[1] >> 57 & 1);
	if (pm >= 0)
		close(pm);
	return ok;
}

/*
 * excl's writer, one round: drive a hinting pass over the cold half
 * through the debug module (debug_numa_pass) and let its flush complete;
 * migrate the now PROT_NONE pages to node 1 (they come back read-only) and
 * to node 0 (a read-only batch luf defers: until luf flushes, every CPU
 * that ran the process since may cache the old translations, as the
 * checker counts them); then another pass, and at once read every cold
 * page.  This thread read none since its CPU last flushed, so each read is
 * a hinting fault, on node 0, that makes the PTE writable again while the
 * pass's flush is still held and the old translations may still be
 * cached.  --thp-head counts the rounds whose whole cold half was on node
 * 0 in THPs, with the first page of each write-protected and the second
 * not, at that pass (thp_rounds).
 */
enum round excl_round(uint64_t e, uint64_t *buf)
{
	uint64_t *cold = area + npages / 2 * page_size / 8;
	long p, ncold = npages - npages / 2;
	volatile uint64_t sum = 0;

	if (thp_head)
		thp_refill(cold, ncold);
	numa_pass(cold, ncold * page_size);
	sleep_ms(30);
	bench_move_range(cold, ncold, page_size, 1);
	if (thp_head)
		uffd_wp_heads(cold, ncold * page_size, THP_SIZE);
	bench_move_range(cold, ncold, page_size, 0);
	if (thp_head && bench_large_pages(cold, ncold, 0, NULL) == ncold &&
	    heads_protected(cold, ncold))
		atomic_fetch_add(&thp_rounds, 1);
	numa_pass(cold, ncold * page_size);
	for (p = 0; p < ncold; p++)
		sum += cold[p * page_size / 8];
	sleep_ms(30);
	return ROUND_DONE;
}

enum round force_round(uint64_t e, uint64_t *buf)
{
	long p;

	/* No fault: the PTEs stay read-only, as they were. */
	for (p = 0; p < npages; p++) {
		fill_page(buf, p, e);
		if (pwrite(mem_fd, buf, page_size,
			   (off_t)(uintptr_t)(area + p * page_size / 8)) !=
		    page_size)
			die("pwrite /proc/self/mem");
	}
	return ROUND_PUBLISH;
}
