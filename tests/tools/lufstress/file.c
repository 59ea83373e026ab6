// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress's modes on a file, whose writer goes through the file (a tmpfs
 * file, or with -f one on a real filesystem or a block device; the file of
 * mprotect-shared too, see anon.c):
 *
 *   file	a tmpfs file mapped read-only and shared
 *   write	file, plus a writer that rewrites it with pwrite(2), then
 *		publishes the new epoch
 *   truncate	file, plus a truncater that truncates it to 0 and back (new
 *		contents: zero pages) and publishes the new epoch, then refills;
 *		on a block device (-f /dev/...) it zeroes the range with the
 *		BLKZEROOUT ioctl instead
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
 */
#define _GNU_SOURCE
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "lufstress.h"

static int is_blk;
static aio_context_t aio_ctx;

/* file, write, truncate, mprotect-shared: the file, filled and mapped. */
void file_setup(size_t len)
{
	struct stat st;
	long p;

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

enum round write_round(uint64_t e, uint64_t *buf)
{
	long p;

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
		 * --source pageout: rewrite the first page with what it holds.
		 * Its end-of-write trigger flushes whatever the pass in the
		 * window deferred (with luf intact, nothing: that pass saw the
		 * change and flushed), so that the next window pass starts with
		 * nothing deferred for the file.  Else the next write's own
		 * trigger would flush that older deferral, and with it the
		 * stale entries of the pass it races with: a skipped check at
		 * the offer would go unnoticed after the first round.
		 */
		if (pageout)
			write_at(buf, page_size, 0);
		if (fdatasync(fd))
			die("fdatasync");
		atomic_store(&shm->quiet, 0);
		/* With --source pageout, wait_for_window() waits. */
		if (!pageout)
			sleep_ms(100);
		return ROUND_DONE;
	}
	for (p = 0; p < npages; p++) {
		fill_page(buf, p, e);
		write_at(buf, page_size, p * page_size);
	}
	return ROUND_PUBLISH;
}

enum round truncate_round(uint64_t e, uint64_t *buf)
{
	long p;

	/*
	 * Once epoch e is published, nothing older may be read: the pages are
	 * gone, the file reads zeros until it is refilled with e + 1.  The
	 * refill is written back at once, so that reclaim can drop the clean
	 * pages (and luf defer their flushes) during the pause before the next
	 * truncate.
	 */
	/*
	 * With --source pageout, reclaim every page right before, readers
	 * holding still (see hold_still()): their stale entries are then the
	 * only translations left, truncation finds no PTE to zap and flushes
	 * nothing itself.  Only luf's trigger does.
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
	return ROUND_DONE;
}
