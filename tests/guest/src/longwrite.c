// SPDX-License-Identifier: GPL-2.0
/*
 * longwrite: while one long write(2) runs, may a stale translation still
 * show a page that read(2) already returns new?
 *
 *   longwrite <dir> [rounds]
 *
 * <dir>/f holds NPAGES pages of 'a'.  A checker thread keeps reading the
 * first NSTALE pages through a shared read-only mapping (so its CPU holds
 * translations of them), and the pages are moved to the other node: luf
 * defers that flush (the caller raises max_defer_ms).  Then the main thread
 * rewrites the whole file with the next letter in one pwrite(2), first
 * pages first.  Meanwhile the checker reads each of the NSTALE pages with
 * pread(2) and, when that returns the new letter, through the mapping:
 * the old letter there is a stale translation outliving a change that
 * read(2) already shows.  Without luf the mapping and the page cache are
 * the same page; with luf, the write must complete the deferred flush
 * before it changes a page of its file, not only when it returns.
 *
 * Prints what it saw; exit 0 if no stale read, 1 if any, 2 on a set-up
 * error (nothing deferred, nothing seen during the write).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

/* Few enough for QEMU's TLB to keep every stale entry (see patched.list). */
#define NSTALE		32
/* Long enough that the write still runs after its first pages changed. */
#define NPAGES		8192

static long psz;
static int fd;
static volatile char *area;
static _Atomic int phase;	/* 0 read the mapping, 1 check, 2 stop */
static _Atomic char letter;	/* what the write puts in */
static _Atomic long seen_new, stale, checks;

static void *checker(void *arg)
{
	volatile long sum = 0;
	char c;
	long p;

	bench_pin((long)arg);
	while (atomic_load(&phase) != 2) {
		if (atomic_load(&phase) == 0) {
			for (p = 0; p < NSTALE; p++)
				sum += area[p * psz];
			continue;
		}
		for (p = 0; p < NSTALE; p++) {
			if (pread(fd, &c, 1, p * psz) != 1)
				die("pread");
			atomic_fetch_add(&checks, 1);
			if (c != atomic_load(&letter))
				continue;
			atomic_fetch_add(&seen_new, 1);
			if (area[p * psz] != c)
				atomic_fetch_add(&stale, 1);
		}
	}
	return NULL;
}

/* Move the first pages to @node: luf defers the flush. */
static int defer_to(int node)
{
	bench_move_range((void *)area, NSTALE, psz, node);
	return bench_luf_value("state", "gen_deferred") !=
	       bench_luf_value("state", "gen_flushed");
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 8, r, deferred = 0;
	long total_new = 0, total_stale = 0, c0;
	unsigned long fw0;
	char path[4096], *buf;
	pthread_t th;

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: longwrite <dir> [rounds]\n");
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	buf = malloc(NPAGES * psz);
	if (!buf)
		die("malloc");
	snprintf(path, sizeof(path), "%s/f", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	memset(buf, 'a', NPAGES * psz);
	if (pwrite(fd, buf, NPAGES * psz, 0) != NPAGES * psz || fsync(fd))
		die("pwrite");
	area = mmap(NULL, NPAGES * psz, PROT_READ, MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		die("mmap");
	bench_pin(0);
	pthread_create(&th, NULL, checker, (void *)1L);
	fw0 = bench_luf_value("stats", "flush_file_write");
	for (r = 0; r < rounds; r++) {
		char next = 'b' + r % 24;

		atomic_store(&phase, 0);
		usleep(100000);
		deferred += defer_to(r % 2 ? 0 : 1);
		atomic_store(&seen_new, 0);
		atomic_store(&stale, 0);
		atomic_store(&letter, next);
		c0 = atomic_load(&checks);
		atomic_store(&phase, 1);
		/* Let the checker make one pass before the write. */
		while (atomic_load(&checks) < c0 + NSTALE)
			;
		memset(buf, next, NPAGES * psz);
		if (pwrite(fd, buf, NPAGES * psz, 0) != NPAGES * psz)
			die("pwrite");
		atomic_store(&phase, 0);
		printf("round %d: new contents seen %ld times during the write, stale through the mapping %ld\n",
		       r, atomic_load(&seen_new), atomic_load(&stale));
		total_new += atomic_load(&seen_new);
		total_stale += atomic_load(&stale);
	}
	atomic_store(&phase, 2);
	pthread_join(th, NULL);
	printf("rounds %d deferred %d seen_new %ld stale %ld flush_file_write +%lu\n",
	       rounds, deferred, total_new, total_stale,
	       bench_luf_value("stats", "flush_file_write") - fw0);
	if (total_stale)
		return 1;
	if (!deferred || !total_new) {
		fprintf(stderr, "longwrite: nothing %s\n",
			!deferred ? "deferred" : "seen new during the writes");
		return 2;
	}
	return 0;
}
