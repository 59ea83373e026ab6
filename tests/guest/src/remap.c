// SPDX-License-Identifier: GPL-2.0
/*
 * remap: does an munmap(2) complete the flushes luf deferred for the
 * range, so that a new mapping at the same address never shows the old
 * pages?
 *
 *   remap <dir> [rounds]
 *
 * <dir>/old holds NSTALE pages of 'o', <dir>/new NSTALE pages of 'n'.
 * Each round maps the old file at a new 2 MiB-aligned address A, beside an
 * anonymous page in the same 2 MiB (so the page table outlives the munmap,
 * and its freeing does not flush).  A checker thread on another CPU reads
 * the mapping (its CPU holds the translations), then stops touching it; the
 * main thread reclaims the pages with MADV_PAGEOUT (luf defers the flush:
 * the PTEs are clear, the pages free and tagged), unmaps the old file and
 * maps the new one at A.  The checker then reads A: 'o' is a stale
 * translation of a freed page of another file.  The munmap's PTEs were
 * already clear, so only flush_tlb_batched_pending() in zap_pte_range()
 * completes the deferral there; luf relies on that when a write to a file
 * nobody maps skips its flush.  debug_core 4096 (LUF_DEBUG_ZAP_NOFLUSH)
 * takes it away.
 *
 * Prints what it saw; exit 0 if no stale read, 1 if any, 2 on a set-up
 * error (nothing reclaimed or nothing deferred in any round).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

/* Few enough for QEMU's TLB to keep every stale entry. */
#define NSTALE		32
#define PMD_SIZE_	(2UL << 20)

static long psz;
static volatile char *area;
static _Atomic int phase;	/* 0 read, 1 hands off, 2 check once, 3 stop */
static _Atomic int acked;
static _Atomic long stale, checked;

static void *checker(void *arg)
{
	volatile long sum = 0;
	long p;

	bench_pin((long)arg);
	for (;;) {
		int ph = atomic_load(&phase);

		if (ph == 3)
			break;
		if (ph == 0) {
			for (p = 0; p < NSTALE; p++)
				sum += area[p * psz];
			continue;
		}
		if (ph == 2 && atomic_load(&acked) != 2) {
			for (p = 0; p < NSTALE; p++) {
				atomic_fetch_add(&checked, 1);
				if (area[p * psz] != 'n')
					atomic_fetch_add(&stale, 1);
			}
		}
		/* Phase 1 and after the check: spin, touch nothing. */
		if (ph != 0)
			atomic_store(&acked, ph);
	}
	return NULL;
}

static int make_file(const char *dir, const char *name, char c)
{
	char path[4096], *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	buf = malloc(NSTALE * psz);
	if (!buf)
		die("malloc");
	memset(buf, c, NSTALE * psz);
	if (pwrite(fd, buf, NSTALE * psz, 0) != NSTALE * psz || fsync(fd))
		die("pwrite");
	free(buf);
	return fd;
}

static void map_at(int fd)
{
	if (mmap((void *)area, NSTALE * psz, PROT_READ, MAP_SHARED | MAP_FIXED,
		 fd, 0) != area)
		die("mmap");
}

static void wait_ack(int ph)
{
	atomic_store(&acked, 0);
	atomic_store(&phase, ph);
	while (atomic_load(&acked) != ph)
		;
}

/* How many of the mapped pages are in the page cache. */
static long resident(void)
{
	unsigned char vec[NSTALE];
	long p, n = 0;

	if (mincore((void *)area, NSTALE * psz, vec))
		die("mincore");
	for (p = 0; p < NSTALE; p++)
		n += vec[p] & 1;
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 8, r, deferred = 0;
	int oldfd, newfd;
	long reclaimed = 0, total_stale = 0, p;
	volatile long sum = 0;
	char *region;
	pthread_t th;

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: remap <dir> [rounds]\n");
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	oldfd = make_file(argv[1], "old", 'o');
	newfd = make_file(argv[1], "new", 'n');
	bench_pin(0);
	atomic_store(&phase, 1);
	pthread_create(&th, NULL, checker, (void *)1L);
	for (r = 0; r < rounds; r++) {
		unsigned long d0, t0, f0, d, t, f;
		int pending;
		long res;

		/*
		 * A fresh address each round, so that no translation left
		 * from the last one can stand in: a 2 MiB-aligned stretch of
		 * anonymous memory, whose last page keeps the page table.
		 */
		region = mmap(NULL, 2 * PMD_SIZE_, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED)
			die("mmap");
		area = (char *)(((uintptr_t)region + PMD_SIZE_ - 1) &
				~(PMD_SIZE_ - 1));
		if (madvise((void *)area, PMD_SIZE_, MADV_NOHUGEPAGE))
			die("madvise");
		area[PMD_SIZE_ - psz] = 1;
		map_at(oldfd);
		/* The old file's pages, faulted in on this CPU (its LRU). */
		for (p = 0; p < NSTALE; p++)
			sum += area[p * psz];
		atomic_store(&phase, 0);
		usleep(100000);
		wait_ack(1);
		d0 = bench_luf_value("stats", "deferred");
		t0 = bench_luf_value("stats", "pages_tagged");
		f0 = bench_luf_value("stats", "flushes");
		if (madvise((void *)area, NSTALE * psz, MADV_PAGEOUT))
			die("MADV_PAGEOUT");
		d = bench_luf_value("stats", "deferred") - d0;
		t = bench_luf_value("stats", "pages_tagged") - t0;
		pending = bench_luf_value("state", "gen_deferred") !=
			  bench_luf_value("state", "gen_flushed");
		res = resident();
		reclaimed += NSTALE - res;
		deferred += d && pending;
		map_at(newfd);
		f = bench_luf_value("stats", "flushes") - f0;
		atomic_store(&stale, 0);
		wait_ack(2);
		printf("round %d: reclaimed %ld deferred %lu tagged %lu pending %d flushes %lu stale %ld of %d\n",
		       r, NSTALE - res, d, t, pending, f,
		       atomic_load(&stale), NSTALE);
		total_stale += atomic_load(&stale);
		wait_ack(1);
	}
	atomic_store(&phase, 3);
	pthread_join(th, NULL);
	printf("rounds %d reclaimed %ld deferred %d checked %ld stale %ld\n",
	       rounds, reclaimed, deferred, atomic_load(&checked), total_stale);
	if (total_stale)
		return 1;
	if (!reclaimed || !deferred) {
		fprintf(stderr, "remap: nothing %s\n",
			!reclaimed ? "reclaimed" : "deferred");
		return 2;
	}
	return 0;
}
