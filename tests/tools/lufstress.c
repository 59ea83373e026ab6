// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress: migrate read-only pages under readers and report stale reads.
 *
 * Readers, one per CPU, spin over pages whose contents they know; a migrator
 * ping-pongs the pages between two NUMA nodes with move_pages(2); a hog
 * allocates, poisons and frees memory so that freed pages are reused at
 * once.  A reader that sees anything but the expected contents read through a
 * stale TLB entry: after migration the old page was freed and reused (or,
 * with a writer, the new page changed while the old one was still visible).
 *
 * Every 64-bit word i of page p holds sig(p, i) + epoch.  Readers load the
 * published epoch E before reading a word; the word must decode to page p
 * with an epoch in [E, newest].  Poison from the hog, another page's
 * contents or an epoch older than E is a violation.
 *
 * Modes (-m):
 *   anon	private anonymous memory, shared read-only with a forked child
 *   file	a tmpfs file mapped read-only and shared
 *   shmem	anonymous shared memory (MAP_SHARED | MAP_ANONYMOUS: shmem,
 *		in 64 KiB folios with hugepages-64kB/shmem_enabled always),
 *		filled, then made read-only with mprotect(2); with
 *		--source pageout and a swap file, reclaim unmaps each large folio
 *		whole and shmem_writepage() splits it after that unmap (a
 *		swap file has no large swap entries)
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
 *   write	file, plus a writer that rewrites it with pwrite(2), then
 *		publishes the new epoch
 *   truncate	file, plus a truncater that truncates it to 0 and back (new
 *		contents: zero pages) and publishes the new epoch, then refills;
 *		on a block device (-f /dev/...) it zeroes the range with the
 *		BLKZEROOUT ioctl instead
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
 *   uffd-move	anonymous memory write-protected with userfaultfd (the
 *		pages stay exclusive), which the writer moves away with
 *		UFFDIO_MOVE, rewrites where they went and moves back: while
 *		they are away, a read of their old address must fault
 *		(SIGBUS), and a value read then is a violation
 *   fuse-store	a file of a FUSE filesystem that lufstress serves itself
 *		(mounted on -f, a directory), mapped read-only and shared;
 *		the writer stores new contents straight into its page cache
 *		with FUSE_NOTIFY_STORE, as a FUSE server may, then publishes
 *   fuse-inval	the same FUSE file; the writer reclaims its pages
 *		(MADV_PAGEOUT: reclaim drops them from the page cache),
 *		changes the file on the server's side and tells the kernel
 *		with FUSE_NOTIFY_INVAL_INODE, as a FUSE server (or NFS,
 *		CIFS, Ceph revalidating a file) does, then publishes: a page
 *		read back must show the new contents, and so must every
 *		reader.  No migration, and no reclaim between the writer's
 *		own pass and its change: a pass that ages young PTEs
 *		flushes, stale entries included.
 *   force	private anonymous memory made read-only with mprotect(2);
 *		the writer changes it through /proc/self/mem, as a debugger
 *		setting a breakpoint does: a FOLL_FORCE write into the
 *		exclusive pages, with no write fault
 *   uffd-copy	private anonymous memory registered with userfaultfd and
 *		filled with UFFDIO_COPY in write-protect mode (read-only
 *		PTEs); the writer frees it with MADV_FREE, lets reclaim
 *		discard it (MADV_PAGEOUT), fills it again with UFFDIO_COPY,
 *		new contents, write-protected, and publishes.  Readers that
 *		find a page missing (SIGBUS) retry.  No migration: it would
 *		map pages again that reclaim is to discard.  With --move the
 *		new contents are written elsewhere and moved in with
 *		UFFDIO_MOVE (then write-protected again, after the readers
 *		had their look).
 *   device	private anonymous memory, read-only, that a device driver
 *		fills: the writer frees it with MADV_FREE, lets reclaim
 *		discard it, then migrates the empty range to device memory
 *		(lib/test_hmm's /dev/hmm_dmirror0: migrate_vma_*(), which
 *		fills each empty PTE with a device-private entry, without a
 *		fault) and publishes: the device's contents are zeros, and
 *		a reader must fault to see them.  Then it writes new
 *		contents through the CPU and makes the area read-only again.
 *
 *		uffd-copy and device hold the readers still from a whole
 *		sweep after MADV_FREE (which flushes) until the new contents
 *		are published: each reader's TLB then holds every page when
 *		reclaim unmaps them, and no reader faults in the window (a
 *		fault would map the zero page, whose replacement flushes the
 *		whole mm, and a missing page's fault counts for nothing).
 *
 * Unmapping source (--source):
 *   migrate	move_pages(2) ping-pong between node 0 and node 1 (default)
 *   pageout	madvise(MADV_PAGEOUT): reclaim; file modes on a real
 *		filesystem (-f), whose clean pages need no swap
 *
 * Timing (write mode):
 *   --quiet-ms ms
 *		rewrite the file in one pwrite(2) (one end-of-write hook),
 *		publish, then leave it alone this long, reclaim (--source
 *		pageout)
 *		paused too: each MADV_PAGEOUT pass flushes the young PTEs it
 *		ages, stale ones included.  Only then write the pages back
 *		(writeback's mkclean flushes their addresses too), so that
 *		reclaim can drop them again.  With --source pageout the write
 *		waits
 *		for the first pass after the pause to drop the pages from the
 *		page cache (see wait_for_window()), and page 0 is rewritten
 *		unchanged at the end of the pause.
 *   --pass-bound
 *		bound by the pass (--source pageout): an old epoch read counts as a
 *		violation only if it began after the reclaim pass that was
 *		under way when the newer epoch was published had ended, else
 *		as "early".  Without luf a pass flushes what it unmapped
 *		before it ends, so a stale entry may outlive a write that
 *		raced with the pass, but only until the pass ends.
 *   --aio	write mode: write through Linux AIO (io_submit(2)), whose
 *		completion is another hook site than write(2)'s; -f may name
 *		a block device, whose page cache is then what is mapped.
 *
 * Reuse (--hog-cpu cpu, --pread):
 *   --hog-cpu	pin the hog and the migrator to this CPU (give the readers
 *		the others, -t): the pages a migration frees go to that
 *		CPU's free lists, where the hog allocates next
 *   --pread	file modes: the hog process also reads the file with
 *		pread(2) in a loop, a page-cache lookup that holds a
 *		reference to each page for a moment, as any reader of the
 *		file does while its pages migrate
 *
 * Output: one line of "key=value" counters (large: pages of the area in
 * large folios at the start, -1 if /proc/kpageflags cannot be read;
 * uffd_moved: pages put in place by UFFDIO_COPY or UFFDIO_MOVE, or taken by
 * the device; kept:
 * uffd-copy pages and device passes that reclaim did not discard, which
 * test nothing); exit status 1 if any violation was seen, 2 on a usage or
 * setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/fuse.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* UFFDIO_MOVE is newer (Linux 6.8) than the build host's headers. */
#ifndef UFFDIO_MOVE
#define UFFD_FEATURE_MOVE	(1 << 16)
#define _UFFDIO_MOVE		0x05
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;
};
#define UFFDIO_MOVE		_IOWR(UFFDIO, _UFFDIO_MOVE, struct uffdio_move)
#endif

#define MAGIC		0x6c75660000000000ULL	/* "luf" */
#define POISON		0xdeadbeefdeadbeefULL

enum mode {
	M_ANON, M_FILE, M_SHMEM, M_SPLIT, M_WRITE, M_TRUNCATE, M_COW, M_MPROTECT,
	M_MPROTECT_SHARED, M_UFFD_MOVE, M_FUSE_STORE, M_FUSE_INVAL, M_FORCE,
	M_UFFD_COPY, M_DEVICE, NR_MODES,
};
static const char *const mode_names[NR_MODES] = {
	"anon", "file", "shmem", "split", "write", "truncate", "cow", "mprotect",
	"mprotect-shared", "uffd-move", "fuse-store", "fuse-inval", "force",
	"uffd-copy", "device",
};

static enum mode mode = M_ANON;
static long npages = 256;
static long passes = 0;			/* 0: run for -d seconds */
static int seconds = 10;
static int hog_mib = 64;
static int nreaders;
static long page_size;
static int fd = -1;
static const char *path = "/dev/shm/lufstress";
static int pageout;

static uint64_t *area;			/* the readers' mapping */
static uint64_t *warea;			/* the writer's mapping (cow, mprotect;
					 * where uffd-move moves the pages) */
static int uffd = -1;
/* Shared with the writer process of mprotect-shared. */
struct shared {
	_Atomic uint64_t epoch;		/* published: contents are at least this */
	_Atomic int stop;
	_Atomic int pause;		/* truncate, pageout: readers hold still */
	_Atomic int paused;		/* readers holding still */
	_Atomic int quiet;		/* write --quiet-ms: reclaim pauses */
	_Atomic long pass_started;	/* pageout: reclaim passes begun */
	_Atomic long pass_done;		/* ... and ended */
	_Atomic long epoch_pass;	/* pass_started when epoch was published */
	_Atomic long away;		/* uffd-move: odd while the pages are moved away */
	_Atomic int split_done;		/* split: the hog split the area, its turn is over */
	_Atomic long hold_gen;		/* split, uffd-copy, device: odd while
					 * readers must hold still */
	_Atomic long hold_ack[64];	/* ... the hold_gen each reader holds for */
};
static struct shared *shm;
static _Atomic long violations, reads, migrated, npasses, moves_failed, hogged;
static _Atomic uint64_t first_bad, first_bad_expected;
static _Atomic long sigbus, early, moves, in_window, kept;
static long quiet_ms;
static int pass_bound, use_aio, is_blk, split_no_zero, use_pread, use_move;
static long hog_cpu = -1;
static aio_context_t aio_ctx;
static pid_t child = -1, hog_pid = -1;
static int mem_fd = -1;			/* force: /proc/self/mem */
static int dev_fd = -1;			/* device: /dev/hmm_dmirror0 */
static _Atomic long *hog_rounds;
static __thread sigjmp_buf reader_jmp;

static uint64_t sig(long p, long i)
{
	return MAGIC ^ ((uint64_t)p << 24) ^ (uint64_t)i;
}

/* Contents are at least epoch @e from now on. */
static void publish(uint64_t e)
{
	atomic_store(&shm->epoch_pass, atomic_load(&shm->pass_started));
	atomic_store_explicit(&shm->epoch, e, memory_order_release);
}

static void fill_page(uint64_t *page, long p, uint64_t ep)
{
	long i, n = page_size / 8;

	for (i = 0; i < n; i++)
		page[i] = sig(p, i) + ep;
}

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

/* Is every byte of @v the same byte of @a or of @b? */
static int bytes_from(uint64_t v, uint64_t a, uint64_t b)
{
	int k;

	for (k = 0; k < 64; k += 8) {
		uint64_t m = 0xffULL << k;

		if ((v & m) != (a & m) && (v & m) != (b & m))
			return 0;
	}
	return 1;
}

/*
 * May a reader that saw epochs e1 (before) and e2 (after its load) read @v
 * from word i of page p?  The contents may be one epoch ahead of what was
 * published (the writer is at work), never behind.  In truncate mode a page
 * may also read zero (truncated, not yet refilled), in device mode too (the
 * device's contents).  A word the writer is
 * copying in (pwrite) may be torn between two acceptable values.
 */
static int acceptable(uint64_t v, long p, long i, uint64_t e1, uint64_t e2)
{
	uint64_t base = sig(p, i), a, b;

	if (mode == M_SPLIT && (p & 1) && !split_no_zero)
		return v == 0;
	if (v - base >= e1 && v - base <= e2 + 1)
		return 1;
	if ((mode == M_TRUNCATE || mode == M_DEVICE) && v == 0)
		return 1;
	if (mode != M_TRUNCATE && mode != M_WRITE && mode != M_FUSE_STORE &&
	    mode != M_FUSE_INVAL && mode != M_FORCE && mode != M_UFFD_COPY)
		return 0;
	for (a = e1; a <= e2 + 1; a++) {
		if (mode == M_TRUNCATE && bytes_from(v, base + a, 0))
			return 1;
		for (b = a + 1; b <= e2 + 1; b++)
			if (bytes_from(v, base + a, base + b))
				return 1;
	}
	return 0;
}

/*
 * A truncated file raises SIGBUS beyond its end until it is extended again:
 * the reader restarts its sweep.
 */
static void on_sigbus(int sig)
{
	atomic_fetch_add(&sigbus, 1);
	siglongjmp(reader_jmp, 1);
}

/*
 * Truncate with --source pageout: the writer reclaims every page and
 * truncates the file while the readers touch nothing of it, so that none of them faults a
 * page back in between (truncation would zap that PTE, and its flush would
 * take the stale entries of the others with it).  They keep what their TLBs
 * hold, and read on once the new epoch is out.
 */
static void hold_still(void)
{
	atomic_fetch_add(&shm->paused, 1);
	while (atomic_load_explicit(&shm->pause, memory_order_acquire) &&
	       !atomic_load_explicit(&shm->stop, memory_order_relaxed))
		;
	atomic_fetch_sub(&shm->paused, 1);
}

/*
 * Split mode: while hold_gen is odd, say so (hold_ack) and wait for it to
 * change.  A reader acknowledges only here, between two reads, so once
 * every reader has acknowledged a hold, none reads until it ends: not even
 * at the end of the run (the refiller ends every hold it begins).
 */
static void split_hold(long cpu)
{
	long g = atomic_load_explicit(&shm->hold_gen, memory_order_acquire);

	if (!(g & 1))
		return;
	atomic_store_explicit(&shm->hold_ack[cpu], g, memory_order_release);
	while (atomic_load_explicit(&shm->hold_gen, memory_order_acquire) == g)
		;
}

/*
 * uffd-copy, device: called before each sweep.  A reader that sees a new
 * hold sweeps the whole area once more before it holds still, so that its
 * TLB caches every page again after the writer's MADV_FREE flushed them.
 */
static void sweep_hold(long cpu, volatile long *seen)
{
	long g = atomic_load_explicit(&shm->hold_gen, memory_order_acquire);

	if (!(g & 1))
		return;
	if (*seen != g) {
		*seen = g;
		return;
	}
	split_hold(cpu);
}

/*
 * Begin a hold and wait until every reader holds still.  At the end of the
 * run a reader may have left its loop without holding: then the hold is
 * ended at once and 0 returned.  Otherwise end it with release_readers().
 */
static int hold_readers(void)
{
	long g = atomic_fetch_add(&shm->hold_gen, 1) + 1, i;

	for (i = 0; i < nreaders; i++)
		while (atomic_load_explicit(&shm->hold_ack[i],
					    memory_order_acquire) != g) {
			if (atomic_load(&shm->stop)) {
				atomic_fetch_add(&shm->hold_gen, 1);
				return 0;
			}
			usleep(100);
		}
	return 1;
}

static void release_readers(void)
{
	atomic_fetch_add_explicit(&shm->hold_gen, 1, memory_order_release);
}

static void *reader(void *arg)
{
	long cpu = (long)arg, n = page_size / 8;
	volatile long i = cpu * 61, seen = 0;

	bench_pin(cpu);
	/*
	 * uffd-move: a fault means the pages are away, as they should be;
	 * wait for them to come back rather than fault on and on.
	 */
	if (sigsetjmp(reader_jmp, 1)) {
		if (mode == M_UFFD_MOVE)
			while ((atomic_load(&shm->away) & 1) &&
			       !atomic_load(&shm->stop))
				usleep(200);
		/* uffd-copy: a missing page is back with the next copy. */
		else if (mode == M_UFFD_COPY)
			usleep(200);
	}
	while (!atomic_load_explicit(&shm->stop, memory_order_relaxed)) {
		long p;

		if (mode == M_UFFD_COPY || mode == M_DEVICE)
			sweep_hold(cpu, &seen);

		for (p = 0; p < npages; p++) {
			uint64_t e1;
			long ep, done, away;

			if (atomic_load_explicit(&shm->pause, memory_order_relaxed))
				hold_still();
			if (mode == M_SPLIT)
				split_hold(cpu);
			e1 = atomic_load_explicit(&shm->epoch, memory_order_acquire);
			ep = atomic_load_explicit(&shm->epoch_pass, memory_order_relaxed);
			done = atomic_load_explicit(&shm->pass_done, memory_order_acquire);
			away = atomic_load_explicit(&shm->away, memory_order_acquire);
			uint64_t v = ((volatile uint64_t *)area)[p * n + i];
			uint64_t e2 = atomic_load_explicit(&shm->epoch, memory_order_acquire);

			/*
			 * uffd-move: the whole read fell while the pages were
			 * away (nothing is mapped here), yet it returned.
			 */
			if ((away & 1) &&
			    atomic_load_explicit(&shm->away, memory_order_acquire) == away) {
				if (atomic_fetch_add(&violations, 1) == 0) {
					first_bad = v;
					first_bad_expected = 0;
				}
				goto next;
			}
			if (!acceptable(v, p, i, e1, e2)) {
				/*
				 * --pass-bound: without luf a stale entry outlives the
				 * write until the reclaim pass under way ends
				 * and flushes; only a read that began after
				 * that counts.
				 */
				if (pass_bound && (e1 != e2 || done < ep)) {
					atomic_fetch_add(&early, 1);
					goto next;
				}
				if (atomic_fetch_add(&violations, 1) == 0) {
					first_bad = v;
					first_bad_expected = sig(p, i) + e1;
				}
			}
next:
			i = (i + 1) % n;
		}
		atomic_fetch_add_explicit(&reads, npages, memory_order_relaxed);
	}
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Truncate with --source pageout: a reclaim pass that keeps a folio flushes all
 * it deferred at once (luf_folio_kept()), and would flush the stale entries
 * the truncater's test needs: the passes stay out of its way.
 */
static pthread_mutex_t pageout_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reclaim the pages again and again; the readers fault them back in. */
static void pageouter(void)
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
 * Split mode: once the hog has split the area and let the readers look, make
 * it again in 64 KiB folios.  The readers hold still meanwhile: a read of an
 * address emptied by MADV_DONTNEED would map the zero page there, and the
 * refill would then copy into a small folio.  MADV_DONTNEED flushes what
 * the split left, the readers' stale entries included.
 */
static void refiller(void)
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

static void *migrator(void *arg)
{
	void **pages = calloc(npages, sizeof(void *));
	int *nodes = calloc(npages, sizeof(int));
	int *status = calloc(npages, sizeof(int));
	long p, pass;

	/* --hog-cpu: the pages the migration frees go to the hog's CPU. */
	if (hog_cpu >= 0)
		bench_pin(hog_cpu);
	/* Their writers reclaim the pages themselves, see the modes. */
	if (mode == M_FUSE_INVAL || mode == M_UFFD_COPY || mode == M_DEVICE)
		return NULL;
	if (pageout) {
		pageouter();
		return NULL;
	}
	if (mode == M_SPLIT) {
		refiller();
		return NULL;
	}
	for (p = 0; p < npages; p++)
		pages[p] = (char *)area + p * page_size;
	for (pass = 0; !atomic_load(&shm->stop); pass++) {
		long moved = bench_move_all(0, npages, pages, nodes, status,
					    (pass & 1) ? 0 : 1);

		if (moved < 0)
			die("move_pages");
		atomic_fetch_add(&migrated, moved);
		atomic_fetch_add(&moves_failed, npages - moved);
		atomic_fetch_add(&npasses, 1);
		if (passes && pass + 1 >= passes)
			atomic_store(&shm->stop, 1);
	}
	return NULL;
}

/*
 * Split mode: split the large folios of the readers' area (in the parent)
 * through debugfs, from this task, so that the parts the split frees go to
 * this CPU's free lists, where the poisoning that follows looks first.
 */
static void split_area(pid_t pid)
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

/*
 * --pread: read the file again and again, page by page, as any reader of
 * it would.  Each read looks the page up in the page cache and holds a
 * reference for a moment: when it found the folio that migration was
 * replacing, its reference may be the last one, and the folio is freed by
 * this task, on this CPU, where the hog allocates next.
 */
static void *preader(void *arg)
{
	char buf[64];
	long p = 0;

	for (;;) {
		if (pread(fd, buf, sizeof(buf), p * page_size) < 0)
			die("pread");
		p = (p + 1) % npages;
	}
	return NULL;
}

/*
 * Each round maps --hog-mib MiB, writes poison over it and unmaps it: reuse of
 * freed pages by another process.  It runs in a child process, so that its
 * write faults are not taken for write-enables in the readers' mm, which
 * would flush everything.  Split mode: each round splits the area first,
 * poisons small pages (the parts are small), leaves the poison in place
 * 20 ms for the readers, and hands the area to the refiller.
 */
static void hog(_Atomic long *rounds)
{
	pid_t parent = getppid();

	/* Drop the inherited copy of the area: its unmaps are not ours. */
	if (area && mode != M_SPLIT)
		munmap(area, npages * page_size);
	if (mode == M_SPLIT)
		bench_pin(nreaders - 1);
	if (hog_cpu >= 0)
		bench_pin(hog_cpu);
	if (use_pread) {
		pthread_t th;

		pthread_create(&th, NULL, preader, NULL);
	}
	for (;;) {
		size_t len = (size_t)hog_mib << 20, i;
		uint64_t *m;

		if (mode == M_SPLIT) {
			while (atomic_load_explicit(&shm->split_done,
						    memory_order_acquire))
				sleep_ms(1);
			split_area(parent);
		}
		m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die("mmap hog");
		if (mode == M_SPLIT && madvise(m, len, MADV_NOHUGEPAGE))
			die("madvise(MADV_NOHUGEPAGE)");
		for (i = 0; i < len / 8; i += 8)
			m[i] = POISON;
		if (mode == M_SPLIT)
			sleep_ms(20);
		munmap(m, len);
		atomic_fetch_add(rounds, 1);
		if (mode == M_SPLIT)
			atomic_store_explicit(&shm->split_done, 1,
					      memory_order_release);
	}
}

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
static void write_unprotected(uint64_t *a, uint64_t e)
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
 * One write of the writer: pwrite(2), or with --aio a Linux AIO write, which
 * ends in aio_complete_rw() rather than in file_end_write().  Buffered,
 * it completes within io_submit().
 */
static void write_at(const void *buf, size_t len, off_t off)
{
	struct iocb cb = {
		.aio_fildes = fd,
		.aio_lio_opcode = IOCB_CMD_PWRITE,
		.aio_buf = (uintptr_t)buf,
		.aio_nbytes = len,
		.aio_offset = off,
	};
	struct iocb *cbs[1] = { &cb };
	struct io_event ev;

	if (!use_aio) {
		if (pwrite(fd, buf, len, off) != (ssize_t)len)
			die("pwrite");
		return;
	}
	if (syscall(SYS_io_submit, aio_ctx, 1, cbs) != 1)
		die("io_submit");
	if (syscall(SYS_io_getevents, aio_ctx, 1, 1, &ev, NULL) != 1)
		die("io_getevents");
	if (ev.res != (long long)len) {
		errno = ev.res < 0 ? -ev.res : EIO;
		die("aio write");
	}
}

/*
 * Truncate mode: drop the contents, so that the range reads zeros.  A block
 * device cannot be truncated: its range is zeroed (BLKZEROOUT).
 */
static void zero_all(void)
{
	uint64_t range[2] = { 0, (uint64_t)npages * page_size };

	if (!is_blk) {
		if (ftruncate(fd, 0) || ftruncate(fd, npages * page_size))
			die("ftruncate");
		return;
	}
	if (ioctl(fd, BLKZEROOUT, range))
		die("ioctl(BLKZEROOUT)");
}

/*
 * fuse-store: a FUSE server for one regular file, "f" (node 2), in the
 * root directory (node 1).  It answers what mounting, opening, faulting in
 * and closing the file need, from fuse_buf: the contents of the newest
 * epoch.  The writer changes fuse_buf, then stores it into the page cache
 * with FUSE_NOTIFY_STORE.
 */
#define FUSE_FILE_NODE	2
static int fuse_fd = -1;
static uint64_t *fuse_buf;
static char fuse_dir[4096];
static pthread_t fuse_thread;

static void fuse_attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->blksize = page_size;
	if (node == FUSE_FILE_NODE) {
		a->mode = S_IFREG | 0444;
		a->size = npages * page_size;
		a->blocks = a->size / 512;
	} else {
		a->mode = S_IFDIR | 0555;
	}
}

/* One reply: the header, then @len bytes of @arg. */
static void fuse_reply(uint64_t unique, int error, const void *arg, size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &oh, sizeof(oh) }, { (void *)arg, error ? 0 : len },
	};

	/* The kernel forgets a request it gave up on: ENOENT, not fatal. */
	if (writev(fuse_fd, iov, 2) < 0 && errno != ENOENT)
		die("fuse reply");
}

static void *fuse_server(void *arg)
{
	size_t size = 1 << 20;
	char *req = malloc(size + 4096);

	for (;;) {
		struct fuse_in_header *ih = (void *)req;
		void *in = req + sizeof(*ih);
		ssize_t n = read(fuse_fd, req, size + 4096);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < 0)
			break;		/* ENODEV: unmounted */
		switch (ih->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = in;
			struct fuse_init_out io = {
				.major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = ii->max_readahead,
				.max_write = 1 << 16,
			};

			fuse_reply(ih->unique, 0, &io, sizeof(io));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out eo = {
				.nodeid = FUSE_FILE_NODE,
				.generation = 1,
				.entry_valid = 86400,
				.attr_valid = 86400,
			};

			if (ih->nodeid != FUSE_ROOT_ID || strcmp(in, "f")) {
				fuse_reply(ih->unique, -ENOENT, NULL, 0);
				break;
			}
			fuse_attr(&eo.attr, FUSE_FILE_NODE);
			fuse_reply(ih->unique, 0, &eo, sizeof(eo));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out ao = { .attr_valid = 86400 };

			fuse_attr(&ao.attr, ih->nodeid);
			fuse_reply(ih->unique, 0, &ao, sizeof(ao));
			break;
		}
		case FUSE_OPEN: {
			/* Keep the page cache across opens. */
			struct fuse_open_out oo = {
				.fh = 1,
				.open_flags = FOPEN_KEEP_CACHE,
			};

			fuse_reply(ih->unique, 0, &oo, sizeof(oo));
			break;
		}
		case FUSE_READ: {
			struct fuse_read_in *ri = in;
			uint64_t end = (uint64_t)npages * page_size;
			uint64_t len = ri->size;

			if (ri->offset >= end)
				len = 0;
			else if (ri->offset + len > end)
				len = end - ri->offset;
			fuse_reply(ih->unique, 0, (char *)fuse_buf + ri->offset, len);
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;		/* no reply */
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_DESTROY:
			fuse_reply(ih->unique, 0, NULL, 0);
			break;
		default:
			fuse_reply(ih->unique, -ENOSYS, NULL, 0);
		}
	}
	free(req);
	return NULL;
}

/* Store fuse_buf, the new contents, into the file's page cache. */
static void fuse_store_all(void)
{
	struct fuse_notify_store_out so = {
		.nodeid = FUSE_FILE_NODE,
		.offset = 0,
		.size = npages * page_size,
	};
	struct fuse_out_header oh = {
		.len = sizeof(oh) + sizeof(so) + so.size,
		.error = FUSE_NOTIFY_STORE,
	};
	struct iovec iov[3] = {
		{ &oh, sizeof(oh) }, { &so, sizeof(so) },
		{ fuse_buf, so.size },
	};

	if (writev(fuse_fd, iov, 3) != (ssize_t)oh.len)
		die("FUSE_NOTIFY_STORE");
}

/*
 * fuse-inval: the file changed on the server's side (fuse_buf); tell the
 * kernel, which drops what it has cached of it.
 */
static void fuse_inval_all(void)
{
	struct fuse_notify_inval_inode_out io = {
		.ino = FUSE_FILE_NODE,
		.off = 0,
		.len = 0,		/* to the end */
	};
	struct fuse_out_header oh = {
		.len = sizeof(oh) + sizeof(io),
		.error = FUSE_NOTIFY_INVAL_INODE,
	};
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { &io, sizeof(io) } };

	if (writev(fuse_fd, iov, 2) != (ssize_t)oh.len)
		die("FUSE_NOTIFY_INVAL_INODE");
}

static void fuse_setup(size_t len)
{
	char opts[128], file[4200];
	long p;

	fuse_buf = malloc(len);
	for (p = 0; p < npages; p++)
		fill_page(fuse_buf + p * page_size / 8, p, 0);
	snprintf(fuse_dir, sizeof(fuse_dir), "%s",
		 strcmp(path, "/dev/shm/lufstress") ? path : "/tmp/lufstress-fuse");
	mkdir(fuse_dir, 0755);
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0)
		die("/dev/fuse");
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 fuse_fd);
	if (mount("lufstress", fuse_dir, "fuse.lufstress", MS_NOSUID | MS_NODEV,
		  opts))
		die("mount fuse");
	pthread_create(&fuse_thread, NULL, fuse_server, NULL);
	snprintf(file, sizeof(file), "%s/f", fuse_dir);
	fd = open(file, O_RDONLY);
	if (fd < 0)
		die(file);
	area = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		die("mmap fuse file");
}

static void fuse_teardown(void)
{
	munmap(area, npages * page_size);
	close(fd);
	umount2(fuse_dir, MNT_DETACH);
	pthread_join(fuse_thread, NULL);
}

/* uffd-move: write-protect (or unprotect) the readers' area. */
static void uffd_register(void *addr, size_t len)
{
	struct uffdio_register reg = {
		.range = { (uintptr_t)addr, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP,
	};

	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
}

/*
 * Open the userfaultfd with @features and register @addr for missing
 * faults (SIGBUS: nobody resolves them) and write-protection.
 */
static void uffd_open(__u64 features, void *addr, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		die("userfaultfd");
	uffd_register(addr, len);
}

static void uffd_wp_range(void *addr, size_t len, int on)
{
	struct uffdio_writeprotect wp = {
		.range = { (uintptr_t)addr, len },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
		die("UFFDIO_WRITEPROTECT");
}

static void uffd_wp(int on)
{
	uffd_wp_range(area, npages * page_size, on);
}

/*
 * uffd-copy: fill every page with epoch @e through UFFDIO_COPY, read-only
 * (write-protected).  A page reclaim did not discard is still there
 * (EEXIST): it is rewritten in place instead, through a write fault, which
 * flushes whatever luf deferred for this mm (so the round tests nothing,
 * but nothing false is reported either).
 */
static void uffd_copy_all(uint64_t e)
{
	uint64_t *buf = malloc(page_size);
	long p;

	if (!buf)
		die("malloc");
	for (p = 0; p < npages; p++) {
		uint64_t *dst = area + p * page_size / 8;
		struct uffdio_copy c = {
			.dst = (uintptr_t)dst,
			.src = (uintptr_t)buf,
			.len = page_size,
			.mode = UFFDIO_COPY_MODE_WP,
		};

		fill_page(buf, p, e);
		if (use_move && warea) {
			struct uffdio_move mv = {
				.dst = (uintptr_t)dst,
				.src = (uintptr_t)(warea + p * page_size / 8),
				.len = page_size,
			};

			if (!ioctl(uffd, UFFDIO_MOVE, &mv)) {
				atomic_fetch_add(&moves, 1);
				continue;
			}
			if (errno != EEXIST)
				die("UFFDIO_MOVE");
		} else if (!ioctl(uffd, UFFDIO_COPY, &c)) {
			atomic_fetch_add(&moves, 1);
			continue;
		} else if (errno != EEXIST) {
			die("UFFDIO_COPY");
		}
		uffd_wp_range(dst, page_size, 0);
		memcpy(dst, buf, page_size);
		uffd_wp_range(dst, page_size, 1);
		atomic_fetch_add(&kept, 1);
	}
	free(buf);
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
static int free_and_discard(void)
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

/* How many pages of the area are still mapped (reclaim kept them)? */
static long resident_pages(void)
{
	unsigned char vec[npages];
	long p, n = 0;

	if (mincore(area, npages * page_size, vec))
		die("mincore");
	for (p = 0; p < npages; p++)
		n += vec[p] & 1;
	return n;
}

/*
 * device: lib/test_hmm's interface (lib/test_hmm_uapi.h in the kernel
 * source; no distribution installs it).  MIGRATE_TO_DEV migrates a range of
 * the caller's memory to the device's private memory, empty PTEs included
 * (as a GPU driver does to place a buffer before the CPU touches it), and
 * copies what the device then holds to @ptr.
 */
struct hmm_dmirror_cmd {
	__u64 addr;
	__u64 ptr;
	__u64 npages;
	__u64 cpages;
	__u64 faults;
};
#define HMM_DMIRROR_MIGRATE_TO_DEV	_IOWR('H', 0x02, struct hmm_dmirror_cmd)
static void *dev_buf;

static void device_migrate_all(void)
{
	struct hmm_dmirror_cmd cmd = {
		.addr = (uintptr_t)area,
		.ptr = (uintptr_t)dev_buf,
		.npages = npages,
	};

	if (ioctl(dev_fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd))
		die("ioctl(HMM_DMIRROR_MIGRATE_TO_DEV)");
	atomic_fetch_add(&moves, cmd.cpages);
}

static void device_setup(size_t len)
{
	long p;

	dev_fd = open("/dev/hmm_dmirror0", O_RDWR | O_CLOEXEC);
	if (dev_fd < 0)
		die("/dev/hmm_dmirror0 (CONFIG_TEST_HMM)");
	dev_buf = malloc(len);
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!dev_buf || area == MAP_FAILED)
		die("malloc/mmap");
	/* Device migration would split a huge page: keep it out. */
	if (madvise(area, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	for (p = 0; p < npages; p++)
		fill_page(area + p * page_size / 8, p, 0);
	if (mprotect(area, len, PROT_READ))
		die("mprotect");
}

/* uffd-copy: missing pages raise SIGBUS; write-protection for MODE_WP. */
static void uffd_copy_setup(size_t len)
{
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		die("mmap");
	uffd_open(UFFD_FEATURE_SIGBUS | (use_move ? UFFD_FEATURE_MOVE : 0),
		  area, len);
	uffd_copy_all(0);
	/* --move: where the new contents are written, then moved from. */
	if (use_move) {
		warea = mmap(NULL, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		/* UFFDIO_MOVE moves small folios only. */
		if (warea == MAP_FAILED ||
		    madvise(warea, len, MADV_NOHUGEPAGE))
			die("mmap/madvise(MADV_NOHUGEPAGE)");
	}
}

/*
 * uffd-move: move every page from @src to @dst.  A page that is being
 * migrated is waited for by the kernel; -EAGAIN (its PTE changed under the
 * move) is retried from where the move stopped.
 */
static void uffd_move_all(uint64_t *dst, uint64_t *src)
{
	size_t len = npages * page_size, done = 0;

	while (done < len) {
		struct uffdio_move mv = {
			.dst = (uintptr_t)dst + done,
			.src = (uintptr_t)src + done,
			.len = len - done,
		};
		int rc = ioctl(uffd, UFFDIO_MOVE, &mv);

		if (mv.move > 0)
			done += mv.move;
		if (rc && errno != EAGAIN)
			die("UFFDIO_MOVE");
	}
	atomic_fetch_add(&moves, npages);
}

/* How many of the readers' pages are out of the page cache now. */
static long pages_evicted(void)
{
	static unsigned char *vec;
	long p, n = 0;

	if (!vec)
		vec = malloc(npages);
	if (!vec || mincore(area, npages * page_size, vec))
		die("mincore");
	for (p = 0; p < npages; p++)
		n += !(vec[p] & 1);
	return n;
}

/*
 * Write mode with --source pageout: wait until a reclaim pass has dropped the
 * pages from the page cache and not yet ended, so that the write lands
 * between the pass's unmap and its flush (or luf's deferral): the race the
 * pass-bound check (--pass-bound) is there for.  Left to chance, the write
 * often missed that window.  It must also be the first pass after the quiet
 * time, the one that finds every page mapped: once a pass has deferred,
 * the readers keep reading through their stale entries without faulting,
 * the next passes find almost nothing mapped (MADV_PAGEOUT reclaims only
 * what is mapped), and the write's own trigger flushes everything the
 * earlier pass deferred, stale entries of the pass in the window with it.
 * A page leaves the page cache after its PTEs were cleared;
 * shrink_folio_list() drops the folios one by one, then flushes, and the
 * write must not dirty a folio the pass has yet to reach (it would keep
 * it, and flush everything at once).  The count of pages out of the page
 * cache does not say when the pass is done with them all (readers fault
 * pages back in meanwhile), so wait 60 ms after the first one left: the
 * debug core holds the window open for 100 ms after the last one, and in
 * the emulator the pass drops 32 pages in a few ms, longer when readers
 * fault pages back in meanwhile (with writes 20 ms in, gather-change's
 * mutation was caught in about one run in ten).  Gives up after a second
 * and writes anyway: the check stays valid, the write is just not in the
 * window (in_window counts those that were).  Returns the pass_done count
 * of the pass in the window, or -1.
 */
static long wait_for_window(void)
{
	long seen = -1, base = 0;
	double t0 = bench_now();

	while (bench_now() - t0 < 1 && !atomic_load(&shm->stop)) {
		long started = atomic_load(&shm->pass_started);
		long done = atomic_load(&shm->pass_done);

		if (done == started) {
			seen = -1;		/* between passes */
		} else if (started != seen) {
			seen = started;		/* a pass began: count from here */
			base = pages_evicted();
		} else if (pages_evicted() > base) {
			sleep_ms(60);
			if (atomic_load(&shm->pass_done) == done)
				return done;
			seen = -1;
		}
		sleep_ms(1);
	}
	return -1;
}

/* Rewrite all pages with epoch e + 1 through the writer's path, publish. */
static void *writer(void *arg)
{
	uint64_t *buf = malloc(page_size * (quiet_ms ? npages : 1));
	long p;

	/*
	 * uffd-copy, device: MADV_FREE leaves the folios in a per-CPU LRU
	 * batch (so do the folios uffd-copy --move writes to be moved), which
	 * holds a reference that keeps reclaim from discarding them, and
	 * MADV_PAGEOUT drains only its own CPU's: stay on one.
	 */
	if (mode == M_UFFD_COPY || mode == M_DEVICE)
		bench_pin(nreaders - 1);
	while (!atomic_load(&shm->stop)) {
		uint64_t e = atomic_load(&shm->epoch) + 1;

		switch (mode) {
		case M_WRITE:
			if (quiet_ms) {
				long done;

				for (p = 0; p < npages; p++)
					fill_page(buf + p * page_size / 8, p, e);
				done = pageout ? wait_for_window() : -1;

				write_at(buf, npages * page_size, 0);
				if (done >= 0 && atomic_load(&shm->pass_done) == done)
					atomic_fetch_add(&in_window, 1);
				publish(e);
				atomic_store(&shm->quiet, 1);
				sleep_ms(quiet_ms);
				/*
				 * --source pageout: rewrite the first page with what
				 * it holds.  Its end-of-write trigger flushes
				 * whatever the pass in the window deferred
				 * (with luf intact, nothing: that pass saw the
				 * change and flushed), so that the next window
				 * pass starts with nothing deferred for the
				 * file.  Else the next write's own trigger
				 * would flush that older deferral, and with it
				 * the stale entries of the pass it races with:
				 * a skipped check at the offer would go
				 * unnoticed after the first round.
				 */
				if (pageout)
					write_at(buf, page_size, 0);
				if (fdatasync(fd))
					die("fdatasync");
				atomic_store(&shm->quiet, 0);
				/* With --source pageout, wait_for_window() waits. */
				if (!pageout)
					sleep_ms(100);
				continue;
			}
			for (p = 0; p < npages; p++) {
				fill_page(buf, p, e);
				write_at(buf, page_size, p * page_size);
			}
			break;
		case M_TRUNCATE:
			/*
			 * Once epoch e is published, nothing older may be
			 * read: the pages are gone, the file reads zeros
			 * until it is refilled with e + 1.  The refill is
			 * written back at once, so that reclaim can drop the
			 * clean pages (and luf defer their flushes) during
			 * the pause before the next truncate.
			 */
			/*
			 * With --source pageout, reclaim every page right before,
			 * readers holding still (see hold_still()): their
			 * stale entries are then the only translations left,
			 * truncation finds no PTE to zap and flushes nothing
			 * itself.  Only luf's trigger does.
			 */
			if (pageout) {
				pthread_mutex_lock(&pageout_lock);
				atomic_store(&shm->pause, 1);
				while (atomic_load(&shm->paused) < nreaders &&
				       !atomic_load(&shm->stop))
					sleep_ms(1);
				if (madvise(area, npages * page_size, MADV_PAGEOUT))
					die("madvise(MADV_PAGEOUT)");
			}
			zero_all();
			publish(e);
			atomic_store_explicit(&shm->pause, 0, memory_order_release);
			sleep_ms(20);
			if (pageout)
				pthread_mutex_unlock(&pageout_lock);
			e++;
			for (p = 0; p < npages; p++) {
				fill_page(buf, p, e);
				write_at(buf, page_size, p * page_size);
			}
			if (fsync(fd))
				die("fsync");
			publish(e);
			sleep_ms(200);
			continue;
		case M_MPROTECT:
			/* Upgrade without a fault, write, downgrade. */
			write_unprotected(warea, e);
			break;
		case M_MPROTECT_SHARED: {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (pid == 0)
				shared_writer();
			waitpid(pid, NULL, 0);
			return NULL;
		}
		case M_UFFD_MOVE:
			/*
			 * Away: every stale entry of the readers for the old
			 * address must be gone once the move returns (its
			 * flush, ptep_clear_flush(), is immediate).  The pages
			 * are rewritten through their new, writable PTEs, then
			 * come back, and are write-protected again so that
			 * migration defers their flushes.
			 */
			uffd_move_all(warea, area);
			atomic_fetch_add_explicit(&shm->away, 1, memory_order_release);
			sleep_ms(5);
			for (p = 0; p < npages; p++)
				fill_page(warea + p * page_size / 8, p, e);
			atomic_fetch_add_explicit(&shm->away, 1, memory_order_release);
			uffd_move_all(area, warea);
			publish(e);
			uffd_wp(1);
			sleep_ms(100);
			continue;
		case M_FUSE_STORE:
			for (p = 0; p < npages; p++)
				fill_page(fuse_buf + p * page_size / 8, p, e);
			fuse_store_all();
			break;
		case M_FUSE_INVAL:
			if (madvise(area, npages * page_size, MADV_PAGEOUT))
				die("madvise(MADV_PAGEOUT)");
			atomic_fetch_add(&migrated, npages);
			atomic_fetch_add(&npasses, 1);
			sleep_ms(5);
			for (p = 0; p < npages; p++)
				fill_page(fuse_buf + p * page_size / 8, p, e);
			fuse_inval_all();
			break;
		case M_FORCE:
			/* No fault: the PTEs stay read-only, as they were. */
			for (p = 0; p < npages; p++) {
				fill_page(buf, p, e);
				if (pwrite(mem_fd, buf, page_size,
					   (off_t)(uintptr_t)(area + p * page_size / 8)) !=
				    page_size)
					die("pwrite /proc/self/mem");
			}
			break;
		case M_UFFD_COPY:
			/*
			 * Reclaim discards the clean pages (their PTEs are
			 * read-only: luf may defer the flush), then the copy
			 * puts new ones where they were.
			 */
			/*
			 * --move: the new contents first, where they are
			 * moved from: its write faults flush what luf
			 * deferred for this mm, and must come before the
			 * discard.  Moved pages come in writable: protect
			 * them again.
			 */
			if (use_move) {
				for (p = 0; p < npages; p++)
					fill_page(warea + p * page_size / 8, p, e);
				uffd_wp(1);
			}
			if (!free_and_discard())
				return NULL;
			uffd_copy_all(e);
			publish(e);
			release_readers();
			sleep_ms(20);
			continue;
		case M_DEVICE:
			/*
			 * New contents through the CPU, then read-only again:
			 * luf defers only the flushes of read-only unmaps.
			 */
			write_unprotected(area, e);
			publish(e);
			if (!free_and_discard())
				return NULL;
			/*
			 * A page reclaim kept would be copied to the device
			 * as it is (and its unmap flushes the whole mm): such
			 * a pass tests nothing, and the epoch stays.  Else the
			 * device's zeros are epoch e + 1 (a page the device
			 * could not take reads the zero page), and the next
			 * pass writes e + 2.
			 */
			if (!resident_pages()) {
				device_migrate_all();
				publish(e + 1);
			} else {
				atomic_fetch_add(&kept, 1);
			}
			release_readers();
			sleep_ms(20);
			continue;
		case M_COW:
			/* Each first write is a write fault reusing the page. */
			for (p = 0; p < npages; p++)
				fill_page(warea + p * page_size / 8, p, e);
			break;
		default:
			return NULL;
		}
		publish(e);
		sleep_ms(20);
		if (mode == M_COW)
			write_protect();
	}
	return NULL;
}

/*
 * uffd-move: the readers' area and the one the pages are moved to, both
 * registered for missing faults (SIGBUS: nobody resolves them) and
 * write-protection.  The pages are written first, so they are exclusive
 * (UFFDIO_MOVE wants that), then write-protected: their PTEs are read-only,
 * and migration may defer their flushes.
 */
static void uffd_setup(size_t len)
{
	long p;

	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	warea = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || warea == MAP_FAILED)
		die("mmap");
	for (p = 0; p < npages; p++)
		fill_page(area + p * page_size / 8, p, 0);
	uffd_open(UFFD_FEATURE_MOVE | UFFD_FEATURE_SIGBUS, area, len);
	uffd_register(warea, len);
	uffd_wp(1);
}

static void setup(void)
{
	size_t len = npages * page_size;
	struct stat st;
	long p;

	if (mode == M_UFFD_MOVE) {
		uffd_setup(len);
		return;
	}
	if (mode == M_FUSE_STORE || mode == M_FUSE_INVAL) {
		fuse_setup(len);
		return;
	}
	if (mode == M_UFFD_COPY) {
		uffd_copy_setup(len);
		return;
	}
	if (mode == M_DEVICE) {
		device_setup(len);
		return;
	}
	if (mode == M_SHMEM) {
		area = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			die("mmap");
		for (p = 0; p < npages; p++)
			fill_page(area + p * page_size / 8, p, 0);
		/*
		 * The hog is forked: a second mapping of the folios would make
		 * MADV_PAGEOUT pass them by as shared.
		 */
		if (madvise(area, len, MADV_DONTFORK) ||
		    mprotect(area, len, PROT_READ))
			die("madvise/mprotect");
		return;
	}
	if (mode == M_SPLIT) {
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
		return;
	}
	if (mode == M_ANON || mode == M_COW || mode == M_MPROTECT ||
	    mode == M_FORCE) {
		area = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			die("mmap");
		warea = area;
		for (p = 0; p < npages; p++)
			fill_page(area + p * page_size / 8, p, 0);
		if (mode == M_ANON) {
			/*
			 * Share the pages read-only with a child: after fork
			 * both mappings are write-protected (and dirty).
			 */
			child = fork();
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
		if (mode == M_FORCE) {
			mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
			if (mem_fd < 0)
				die("/proc/self/mem");
		}
		return;
	}

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	if (fstat(fd, &st))
		die("fstat");
	/* A block device (its page cache) is used as it is. */
	is_blk = S_ISBLK(st.st_mode);
	if (!is_blk)
		unlink(path);
	if (use_aio && (mode != M_WRITE ||
			syscall(SYS_io_setup, 1, &aio_ctx)))
		die("io_setup (--aio is for write mode)");
	{
		/*
		 * One write: a filesystem with large folios (XFS) sizes the
		 * folios of a buffered write by its length.
		 */
		uint64_t *buf = malloc(len);

		if (!buf)
			die("malloc");
		for (p = 0; p < npages; p++)
			fill_page(buf + p * page_size / 8, p, 0);
		if (pwrite(fd, buf, len, 0) != (ssize_t)len)
			die("pwrite");
		free(buf);
	}
	/* Written back, the pages are clean and reclaim can drop them. */
	if (fsync(fd))
		die("fsync");
	area = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		die("mmap file");
}

static void start_hog(void)
{
	_Atomic long *rounds;

	if (!hog_mib)
		return;
	rounds = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rounds == MAP_FAILED)
		die("mmap");
	hog_pid = fork();
	if (hog_pid < 0)
		die("fork");
	if (hog_pid == 0)
		hog(rounds);
	hog_rounds = rounds;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: lufstress [-m anon|file|shmem|split|write|truncate|cow|mprotect|\n"
		"                     mprotect-shared|uffd-move|fuse-store|fuse-inval|\n"
		"                     force|uffd-copy|device]\n"
		"                 [-n pages] [-d seconds | -p passes] [-t readers]\n"
		"                 [-f file] [--hog-mib MiB] [--source migrate|pageout]\n"
		"                 [--quiet-ms ms] [--pass-bound] [--aio] [--no-zero]\n"
		"                 [--hog-cpu cpu] [--pread] [--move]\n");
	exit(2);
}

enum {
	OPT_HOG_MIB = 256, OPT_SOURCE, OPT_QUIET_MS, OPT_PASS_BOUND, OPT_AIO,
	OPT_NO_ZERO, OPT_HOG_CPU, OPT_PREAD, OPT_MOVE,
};

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "hog-mib", required_argument, NULL, OPT_HOG_MIB },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "quiet-ms", required_argument, NULL, OPT_QUIET_MS },
	{ "pass-bound", no_argument, NULL, OPT_PASS_BOUND },
	{ "aio", no_argument, NULL, OPT_AIO },
	{ "no-zero", no_argument, NULL, OPT_NO_ZERO },
	{ "hog-cpu", required_argument, NULL, OPT_HOG_CPU },
	{ "pread", no_argument, NULL, OPT_PREAD },
	{ "move", no_argument, NULL, OPT_MOVE },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	pthread_t th[64], mig, wr;
	int c, i, m;
	long large;

	page_size = sysconf(_SC_PAGESIZE);
	/* One reader per CPU by default, as many as th[] holds. */
	nreaders = sysconf(_SC_NPROCESSORS_ONLN);
	if (nreaders > 64)
		nreaders = 64;
	while ((c = getopt_long(argc, argv, "m:n:d:p:t:f:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'm':
			for (m = 0; m < NR_MODES && strcmp(optarg, mode_names[m]); m++)
				;
			if (m == NR_MODES)
				usage();
			mode = m;
			break;
		case 'n': npages = opt_num("-n", optarg, 1, 1L << 24); break;
		case 'd': seconds = opt_num("-d", optarg, 1, 86400); break;
		case 'p': passes = opt_num("-p", optarg, 0, LONG_MAX); break;
		case 't': nreaders = opt_num("-t", optarg, 1, 64); break;
		case 'f': path = optarg; break;
		case OPT_HOG_MIB:
			hog_mib = opt_num("--hog-mib", optarg, 0, 1 << 20);
			break;
		case OPT_QUIET_MS:
			quiet_ms = opt_num("--quiet-ms", optarg, 0, 3600000);
			break;
		case OPT_PASS_BOUND: pass_bound = 1; break;
		case OPT_AIO: use_aio = 1; break;
		case OPT_NO_ZERO: split_no_zero = 1; break;
		case OPT_HOG_CPU:
			hog_cpu = opt_num("--hog-cpu", optarg, 0, 63);
			break;
		case OPT_PREAD: use_pread = 1; break;
		case OPT_MOVE: use_move = 1; break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "pageout"))
				pageout = 1;
			else if (strcmp(optarg, "migrate"))
				usage();
			break;
		default: usage();
		}
	}
	if (optind != argc || (pass_bound && !pageout) ||
	    (mode == M_SPLIT && (pageout || !hog_mib)) ||
	    (split_no_zero && mode != M_SPLIT) ||
	    ((mode == M_FUSE_INVAL || mode == M_UFFD_COPY ||
	      mode == M_DEVICE) && pageout) ||
	    (use_pread && ((mode != M_FILE && mode != M_WRITE) || !hog_mib)) ||
	    (hog_cpu >= 0 && !hog_mib) || (use_move && mode != M_UFFD_COPY))
		usage();

	shm = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap");
	/*
	 * uffd-move: a hog forked after setup would share the pages, and
	 * UFFDIO_MOVE moves exclusive pages only.
	 */
	if (mode == M_UFFD_MOVE)
		start_hog();
	setup();
	large = mode == M_UFFD_MOVE || !area ? -1 :
		bench_large_pages(area, npages, 1, NULL);
	signal(SIGBUS, on_sigbus);
	for (i = 0; i < nreaders; i++)
		pthread_create(&th[i], NULL, reader, (void *)(long)i);
	pthread_create(&mig, NULL, migrator, NULL);
	if (mode != M_UFFD_MOVE)
		start_hog();
	if (mode >= M_WRITE)
		pthread_create(&wr, NULL, writer, NULL);
	if (!passes) {
		for (i = 0; i < seconds * 10 && !atomic_load(&shm->stop); i++)
			sleep_ms(100);
		atomic_store(&shm->stop, 1);
	}
	pthread_join(mig, NULL);
	for (i = 0; i < nreaders; i++)
		pthread_join(th[i], NULL);
	if (hog_pid > 0) {
		kill(hog_pid, SIGKILL);
		waitpid(hog_pid, NULL, 0);
		hogged = *hog_rounds;
	}
	if (mode >= M_WRITE)
		pthread_join(wr, NULL);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (mode == M_FUSE_STORE || mode == M_FUSE_INVAL)
		fuse_teardown();

	printf("mode=%s pages=%ld large=%ld passes=%ld migrated=%ld move_failed=%ld reads=%ld hog_rounds=%ld epoch=%llu sigbus=%ld early=%ld in_window=%ld uffd_moved=%ld kept=%ld violations=%ld",
	       mode_names[mode], npages, large, (long)npasses, (long)migrated,
	       (long)moves_failed, (long)reads, (long)hogged,
	       (unsigned long long)shm->epoch, (long)sigbus, (long)early,
	       (long)in_window, (long)moves, (long)kept, (long)violations);
	if (violations)
		printf(" first_bad=%#llx expected=%#llx",
		       (unsigned long long)first_bad,
		       (unsigned long long)first_bad_expected);
	printf("\n");
	return violations ? 1 : 0;
}
