// SPDX-License-Identifier: GPL-2.0
/*
 * tagscope: which frees does luf tag?  Only the folios whose flush the
 * freeing task deferred.  Everything else a task frees while its generation
 * is pending (here: its own anonymous memory) must go back untagged: a
 * tagged page skips ahead of nothing, waits for a flush when it is reused
 * and merges into a block that waits too.
 *
 *   tagscope <dir> [anon-MiB]
 *   tagscope <dir> bulk
 *   tagscope <dir> nowake
 *
 * Needs the debug build of luf (debug_free_tags: the core's count of frees
 * that tagged a block) and max_defer_ms raised by the caller.  Maps
 * <dir>/tagscope read-only and shared, has threads read it on the other
 * CPUs (so that its unmaps need remote flushes), then:
 *
 *  1. moves its pages to node 1: luf defers the flush, and the sources are
 *     freed tagged (tagged_migration, at least half of them, or the test
 *     proves nothing);
 *  2. with that generation still pending, unmaps anon-MiB (default 32) of
 *     its own anonymous memory: tagged_munmap must stay near 0 (a few frees
 *     of other tasks' folios may land in the window: at most 64).
 *
 * Prints what it saw; exit 0 if only the migrated folios were tagged, 1 if
 * the munmap's pages were too, 2 on a set-up error (nothing deferred, or
 * the deferral flushed before the munmap ended).
 *
 * With "bulk", step 2 is instead one alloc_pages_bulk() call for 64 pages
 * of node 0 that may sleep, on CPU 0 where the migrated folios were freed
 * (through the luf_atomic test module; the caller has the debug build hand
 * tagged pages out first, so the call meets one).  Such a call must flush
 * and keep the page (flush_alloc) and fill the rest of the array, not set
 * the page aside for a worker and return a single page from its fallback:
 * exit 0 if it flushed in place and went on, 1 if it parked, 2 if it met
 * no tagged page.
 *
 * With "nowake", step 2 is 64 allocations that may wake nobody (interrupts
 * off, __GFP_HIGH only: luf_atomic's nowake file), on CPU 0 likewise.  They
 * can neither flush nor park (parking queues work): exit 0 if no work ran
 * for them (flush_parked and flush_reserve unchanged), 1 if it did.  The
 * caller's mutation shows that the same run meets tagged pages.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#define NPAGES		1024

static long psz;
static volatile char *area;
static _Atomic int stop;

static void *reader(void *arg)
{
	volatile long sum = 0;
	long p;

	bench_pin((long)arg);
	while (!atomic_load(&stop))
		for (p = 0; p < NPAGES; p++)
			sum += area[p * psz];
	return NULL;
}

static long tagged_frees(void)
{
	return bench_luf_value("debug_free_tags", "tagged_frees");
}

/*
 * One bulk allocation through luf_atomic, right after the migration: the
 * counters are read and the file opened before it, so that no page fault
 * of this task takes the tagged page first.  Prints what luf did.
 */
static int bulk_fd = -1;
static long bulk_alloc0, bulk_parked0, bulk_reserve0;

static void bulk_prepare(const char *mode)
{
	char f[64];

	snprintf(f, sizeof(f), "/sys/kernel/debug/luf_atomic/%s", mode);
	bulk_fd = open(f, O_RDWR);
	if (bulk_fd < 0)
		die(f);
	bulk_alloc0 = bench_luf_value("stats", "flush_alloc");
	bulk_parked0 = bench_luf_value("stats", "flush_parked");
	bulk_reserve0 = bench_luf_value("stats", "flush_reserve");
}

/*
 * 64 allocations through the file bulk_prepare() opened; its result line
 * into @line.  Then a pause: a parked page's flush runs from a worker.
 */
static void bulk_run(char *line, size_t size)
{
	ssize_t n;

	if (write(bulk_fd, "64", 2) != 2)
		die("luf_atomic");
	n = pread(bulk_fd, line, size - 1, 0);
	line[n > 0 ? n - 1 : 0] = 0;
	close(bulk_fd);
	usleep(200000);
}

/* Allocations that may wake nobody: no work may be queued for them. */
static int nowake_alloc(void)
{
	long parked, reserve;
	char line[128];

	bulk_run(line, sizeof(line));
	parked = bench_luf_value("stats", "flush_parked") - bulk_parked0;
	reserve = bench_luf_value("stats", "flush_reserve") - bulk_reserve0;
	printf("%s nowake_flush_parked %ld nowake_flush_reserve %ld\n", line,
	       parked, reserve);
	if (parked || reserve) {
		printf("woke: allocations that may wake nobody queued luf's work\n");
		return 1;
	}
	return 0;
}

static int bulk_alloc(void)
{
	long alloc, parked, got = -1;
	char line[128];

	bulk_run(line, sizeof(line));
	sscanf(line, "bulk_pages=%*d bulk_got=%ld", &got);
	alloc = bench_luf_value("stats", "flush_alloc") - bulk_alloc0;
	parked = bench_luf_value("stats", "flush_parked") - bulk_parked0;
	printf("%s bulk_flush_alloc %ld bulk_flush_parked %ld\n", line, alloc,
	       parked);
	if (!alloc && !parked) {
		fprintf(stderr, "tagscope: the bulk allocation met no tagged page\n");
		return 2;
	}
	/*
	 * It flushes at the tagged page and goes on.  Parked, the page goes
	 * to a worker (whose flush may find nothing left to do, once the
	 * single-page fallback has flushed), and the call returns one page.
	 */
	if (parked || got <= 1) {
		printf("parked: a bulk allocation that may sleep did not flush and go on\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int nowake = argc > 2 && !strcmp(argv[2], "nowake");
	int bulk = nowake || (argc > 2 && !strcmp(argv[2], "bulk"));
	long anon_mib = argc > 2 && !bulk ? atol(argv[2]) : 32;
	long ncpu, moved = 0;
	long t0, t1, t2, nreaders, i;
	unsigned long deferred;
	int fd, pending;
	pthread_t th[8];
	char path[4096], *buf, *anon;

	if (argc < 2 || argc > 3 || anon_mib < 1) {
		fprintf(stderr, "usage: tagscope <dir> [anon-MiB | bulk | nowake]\n");
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 2) {
		fprintf(stderr, "tagscope: needs 2 CPUs\n");
		return 2;
	}
	nreaders = ncpu - 1 > 8 ? 8 : ncpu - 1;
	bench_pin(0);
	snprintf(path, sizeof(path), "%s/tagscope", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = calloc(NPAGES, psz);
	if (fd < 0 || !buf)
		die(path);
	memset(buf, 'a', NPAGES * psz);
	if (pwrite(fd, buf, NPAGES * psz, 0) != NPAGES * psz)
		die("pwrite");
	area = mmap(NULL, NPAGES * psz, PROT_READ, MAP_SHARED, fd, 0);
	anon = mmap(NULL, anon_mib << 20, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || anon == MAP_FAILED)
		die("mmap");
	/* Small pages: a THP would be freed whole, one tag or none. */
	madvise(anon, anon_mib << 20, MADV_NOHUGEPAGE);
	memset(anon, 1, anon_mib << 20);
	for (i = 0; i < nreaders; i++)
		pthread_create(&th[i], NULL, reader, (void *)(i + 1));
	usleep(200000);

	t0 = tagged_frees();
	if (bulk)
		bulk_prepare(argv[2]);
	moved = bench_move_range((void *)area, NPAGES, psz, 1);
	if (bulk) {
		int rc = nowake ? nowake_alloc() : bulk_alloc();
		long tagged = tagged_frees() - t0;

		atomic_store(&stop, 1);
		for (i = 0; i < nreaders; i++)
			pthread_join(th[i], NULL);
		unlink(path);
		printf("migrated %ld tagged_migration %ld\n", moved, tagged);
		/*
		 * The tags are what this needs (once, move_pages() reported
		 * no page moved while 1023 were freed tagged).
		 */
		if (tagged < NPAGES / 2) {
			fprintf(stderr, "tagscope: the migration deferred too little to tell\n");
			return 2;
		}
		return rc;
	}
	deferred = bench_luf_value("state", "gen_deferred");
	t1 = tagged_frees();
	if (munmap(anon, anon_mib << 20))
		die("munmap");
	t2 = tagged_frees();
	pending = (long)(bench_luf_value("state", "gen_flushed") - deferred) < 0;
	atomic_store(&stop, 1);
	for (i = 0; i < nreaders; i++)
		pthread_join(th[i], NULL);
	unlink(path);

	printf("migrated %ld tagged_migration %ld munmapped_pages %ld tagged_munmap %ld generation %s\n",
	       moved, t1 - t0, (anon_mib << 20) / psz, t2 - t1,
	       pending ? "still pending" : "flushed");
	if (moved < NPAGES / 2 || t1 - t0 < moved / 2) {
		fprintf(stderr, "tagscope: the migration deferred too little to tell\n");
		return 2;
	}
	if (!pending) {
		fprintf(stderr, "tagscope: the deferral was flushed before the munmap ended\n");
		return 2;
	}
	if (t2 - t1 > 64) {
		printf("too wide: the task's own munmap was tagged\n");
		return 1;
	}
	return 0;
}
