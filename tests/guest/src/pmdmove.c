// SPDX-License-Identifier: GPL-2.0
/*
 * pmdmove: show 6.12's UFFDIO_MOVE failing with ENOENT on a huge page that
 * migration is moving, on a kernel without luf (t/upstream-move-pmd).
 *
 *   pmdmove [-d SECONDS]
 *
 * move_pages() (mm/userfaultfd.c) tests pmd_devmap() on the source PMD
 * before move_pages_huge_pmd() could find a migration entry there and ask
 * for a retry (-EAGAIN).  On x86-64 every PMD migration entry has
 * _PAGE_DEVMAP (bit 57) set: the swap offset is stored inverted from bit 9
 * up, and its bit 48 is 0 for any pfn.  So a move of a THP whose PMD is a
 * migration entry at that moment gives up with ENOENT, as the kernel's own
 * uffd-unit-tests' move-pmd cases then do under tests/guest/src/moveall.c.
 *
 * One THP is moved with UFFDIO_MOVE between two 2 MiB areas and back, for
 * -d seconds (default 10) with nothing else touching it, then for as long
 * again while a second thread moves it between nodes 0 and 1 with
 * move_pages(2).  The moves use UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES, so a
 * hole left by a split cannot give ENOENT either: the only ENOENT left in
 * move_pages() is the one above.  A THP that a migration split (no huge
 * page free on the target node) is dropped and faulted again.  Prints one
 * line per phase, "pmdmove: phase=<quiet|migrating> moves=M enoent=E
 * eagain=A ebusy=B refills=R migrated=N"; exit 0, 4 if the set-up cannot
 * be had (the reason printed last), 1 on another error of UFFDIO_MOVE, 2 on
 * a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "uffd-move.h"

#define PMD_BYTES	(2UL << 20)

static char *area[2];
static atomic_int where;	/* which area holds the THP */
static atomic_int migrating, done;
static atomic_long migrated;

struct counts {
	long moves, enoent, eagain, ebusy, refills;
};

static void skip_test(const char *why)
{
	printf("pmdmove: skip: %s\n", why);
	exit(4);
}

/* Fault a THP into area[@i]; whether it is one. */
static int fill(int i)
{
	memset(area[i], 0x5a, PMD_BYTES);
	return bench_large_pages(area[i], PMD_BYTES / 4096, 0, NULL) ==
	       (long)(PMD_BYTES / 4096);
}

static void uffd_register(int uffd)
{
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)area[0], .len = 2 * PMD_BYTES },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	if (!(reg.ioctls & (1ULL << _UFFDIO_MOVE)))
		skip_test("no UFFDIO_MOVE in this kernel");
}

/*
 * Drop both areas and fault a THP into area[@i] again.  A missing page of
 * a registered area would wait for a handler that this tool has not got:
 * the areas are unregistered meanwhile.
 */
static void refill(int uffd, int i)
{
	struct uffdio_range range = {
		.start = (uintptr_t)area[0], .len = 2 * PMD_BYTES,
	};

	if (ioctl(uffd, UFFDIO_UNREGISTER, &range))
		die("UFFDIO_UNREGISTER");
	madvise(area[0], 2 * PMD_BYTES, MADV_DONTNEED);
	fill(i);
	uffd_register(uffd);
}

/* move_pages(2) of the THP's first page to the other node, until done. */
static void *migrator(void *arg)
{
	int node = 1;

	(void)arg;
	bench_pin(1);
	while (!atomic_load(&done)) {
		void *page;
		int status = -1;

		if (!atomic_load(&migrating)) {
			usleep(1000);
			continue;
		}
		page = area[atomic_load(&where)];
		if (syscall(SYS_move_pages, 0, 1UL, &page, &node, &status,
			    BENCH_MPOL_MF_MOVE) == 0 && status == node) {
			atomic_fetch_add(&migrated, 1);
			node = !node;
		}
	}
	return NULL;
}

static void run_phase(int uffd, const char *name, long secs, struct counts *c)
{
	double end = bench_now() + secs;
	unsigned long off = 0;	/* what a partial move already moved */

	memset(c, 0, sizeof(*c));
	while (bench_now() < end) {
		int from = atomic_load(&where);
		struct uffdio_move mv = {
			.dst = (uintptr_t)area[!from] + off,
			.src = (uintptr_t)area[from] + off,
			.len = PMD_BYTES - off,
			.mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES,
		};

		/*
		 * move_pages() returns an error only when it moved nothing:
		 * otherwise the ioctl fails with EAGAIN and says how much.
		 */
		if (ioctl(uffd, UFFDIO_MOVE, &mv) == 0) {
			c->moves++;
			off = 0;
			atomic_store(&where, !from);
		} else if (errno == ENOENT) {
			c->enoent++;
		} else if (errno == EAGAIN) {
			/* Move the rest next time round. */
			c->eagain++;
			if (mv.move > 0)
				off += mv.move;
			continue;
		} else if (errno == EBUSY) {
			c->ebusy++;
		} else {
			fprintf(stderr, "pmdmove: UFFDIO_MOVE: %s (moved %lld)\n",
				strerror(errno), (long long)mv.move);
			exit(1);
		}
		/* Every 64 rounds: a split THP is dropped and faulted again. */
		if ((c->moves + c->enoent + c->ebusy) % 64 == 0) {
			int i = atomic_load(&where);

			if (bench_large_pages(area[i], PMD_BYTES / 4096, 0,
					      NULL) != (long)(PMD_BYTES / 4096)) {
				refill(uffd, i);
				off = 0;
				c->refills++;
			}
		}
	}
	printf("pmdmove: phase=%s moves=%ld enoent=%ld eagain=%ld ebusy=%ld",
	       name, c->moves, c->enoent, c->eagain, c->ebusy);
	printf(" refills=%ld migrated=%ld\n", c->refills, atomic_load(&migrated));
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct counts quiet, busy;
	pthread_t thr;
	long secs = 10;
	char *map;
	int uffd, c;

	while ((c = getopt(argc, argv, "d:")) != -1) {
		if (c != 'd') {
			fprintf(stderr, "usage: pmdmove [-d SECONDS]\n");
			return 2;
		}
		secs = opt_num("-d", optarg, 1, 3600);
	}
	if (optind != argc) {
		fprintf(stderr, "usage: pmdmove [-d SECONDS]\n");
		return 2;
	}
	/* Two 2 MiB-aligned areas in one VMA, a PMD apart. */
	map = mmap(NULL, 4 * PMD_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		die("mmap");
	area[0] = (char *)(((uintptr_t)map + PMD_BYTES - 1) & ~(PMD_BYTES - 1));
	area[1] = area[0] + PMD_BYTES;
	if (madvise(area[0], 2 * PMD_BYTES, MADV_HUGEPAGE))
		skip_test("madvise(MADV_HUGEPAGE) refused: no THP in this kernel");
	if (!fill(0))
		skip_test("no THP was faulted in: THP disabled or no free huge page");

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd < 0)
		skip_test("userfaultfd() refused");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	uffd_register(uffd);

	if (pthread_create(&thr, NULL, migrator, NULL))
		die("pthread_create");
	bench_pin(0);
	run_phase(uffd, "quiet", secs, &quiet);
	atomic_store(&migrating, 1);
	run_phase(uffd, "migrating", secs, &busy);
	atomic_store(&done, 1);
	pthread_join(thr, NULL);
	return 0;
}
