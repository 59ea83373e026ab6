// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress's userfaultfd modes:
 *
 *   uffd-move	anonymous memory write-protected with userfaultfd (the
 *		pages stay exclusive), which the writer moves away with
 *		UFFDIO_MOVE, rewrites where they went and moves back: while
 *		they are away, a read of their old address must fault
 *		(SIGBUS), and a value read then is a violation
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
 */
#define _GNU_SOURCE
#include <linux/userfaultfd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "lufstress.h"
#include "../uffd-move.h"

static int uffd = -1;

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

static int heads_registered;

/*
 * excl --thp-head: register @addr for write-protection and write-protect
 * the first page of every @stride bytes (a THP each, whose PMD this splits
 * into PTEs), so that a fault there cannot make its own PTE writable while
 * the folio's others can be.  Registered for write faults only, with
 * SIGBUS: a fault the flag stops fails rather than waiting for a handler
 * there is not.
 */
void uffd_wp_heads(void *addr, size_t len, size_t stride)
{
	struct uffdio_register reg = {
		.range = { (uintptr_t)addr, len },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};
	struct uffdio_api api = {
		.api = UFFD_API, .features = UFFD_FEATURE_SIGBUS,
	};
	size_t off;

	if (uffd < 0) {
		uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
		if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
			die("userfaultfd");
	}
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	heads_registered = 1;
	for (off = 0; off < len; off += stride)
		uffd_wp_range((char *)addr + off, page_size, 1);
}

/* Undo uffd_wp_heads(), if it ran, so that the round can refill with THPs. */
void uffd_unregister_heads(void *addr, size_t len)
{
	struct uffdio_range range = { (uintptr_t)addr, len };

	if (heads_registered && ioctl(uffd, UFFDIO_UNREGISTER, &range))
		die("UFFDIO_UNREGISTER");
	heads_registered = 0;
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

/* uffd-copy: missing pages raise SIGBUS; write-protection for MODE_WP. */
void uffd_copy_setup(size_t len)
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

/*
 * uffd-move: the readers' area and the one the pages are moved to, both
 * registered for missing faults (SIGBUS: nobody resolves them) and
 * write-protection.  The pages are written first, so they are exclusive
 * (UFFDIO_MOVE wants that), then write-protected: their PTEs are read-only,
 * and migration may defer their flushes.
 */
void uffd_move_setup(size_t len)
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

enum round uffd_move_round(uint64_t e, uint64_t *buf)
{
	long p;

	/*
	 * Away: every stale entry of the readers for the old address must be
	 * gone once the move returns (its flush, ptep_clear_flush(), is
	 * immediate).  The pages are rewritten through their new, writable
	 * PTEs, then come back, and are write-protected again so that migration
	 * defers their flushes.
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
	return ROUND_DONE;
}

enum round uffd_copy_round(uint64_t e, uint64_t *buf)
{
	long p;

	/*
	 * Reclaim discards the clean pages (their PTEs are read-only: luf may
	 * defer the flush), then the copy puts new ones where they were.
	 */
	/*
	 * --move: the new contents first, where they are moved from: its write
	 * faults flush what luf deferred for this mm, and must come before the
	 * discard.  Moved pages come in writable: protect them again.
	 */
	if (use_move) {
		for (p = 0; p < npages; p++)
			fill_page(warea + p * page_size / 8, p, e);
		uffd_wp(1);
	}
	if (!free_and_discard())
		return ROUND_STOP;
	uffd_copy_all(e);
	publish(e);
	release_readers();
	sleep_ms(20);
	return ROUND_DONE;
}
