// SPDX-License-Identifier: GPL-2.0
/*
 * precise: does a content change flush only what was deferred for its own
 * file?
 *
 *   precise <dir>
 *
 * Maps <dir>/a read-only and shared, has two threads read it on other CPUs
 * (so that its unmaps need remote flushes), and moves its pages between the
 * nodes (luf defers each flush: the caller raises max_defer_ms first):
 *
 *  1. with a deferral pending each time: a pwrite(2) to an unrelated file
 *     b1, one to b2, and a shared write fault on b3.  None of them should
 *     flush (luf's flush_file_write or flush_write count moves); one may,
 *     if its mapping hashes to a's luf space (1 in 1024), two is too wide;
 *  2. a pwrite(2) to a: that must complete the deferral pending before it
 *     (gen_flushed reaches it), else the trigger is too narrow.
 *
 * Prints what it saw; exit 0 if the triggers were precise, 1 if not, 2 on
 * a set-up error (nothing deferred is one).
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

#define NPAGES		256

static long psz;
static volatile char *area;
static _Atomic int stop;

static void *reader(void *arg)
{
	long p;
	volatile long sum = 0;

	bench_pin((long)arg);
	while (!atomic_load(&stop))
		for (p = 0; p < NPAGES; p++)
			sum += area[p * psz];
	return NULL;
}

static int open_file(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	return fd;
}

/* Move the pages to @node: luf defers the flush.  Returns the generation. */
static unsigned long defer_to(int node)
{
	unsigned long deferred, flushed;

	bench_move_range((void *)area, NPAGES, psz, node);
	deferred = bench_luf_value("state", "gen_deferred");
	flushed = bench_luf_value("state", "gen_flushed");
	if (deferred == flushed) {
		fprintf(stderr, "precise: nothing deferred after moving to node %d\n",
			node);
		exit(2);
	}
	return deferred;
}

int main(int argc, char **argv)
{
	int fd, fb[3], i, node = 1, wide = 0, bad = 0;
	unsigned long deferred, before, after;
	pthread_t th[2];
	char *buf, *m3;

	if (argc != 2) {
		fprintf(stderr, "usage: precise <dir>\n");
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	buf = calloc(NPAGES, psz);
	memset(buf, 'a', NPAGES * psz);
	fd = open_file(argv[1], "a");
	fb[0] = open_file(argv[1], "b1");
	fb[1] = open_file(argv[1], "b2");
	fb[2] = open_file(argv[1], "b3");
	if (pwrite(fd, buf, NPAGES * psz, 0) != NPAGES * psz ||
	    pwrite(fb[2], buf, psz, 0) != psz || fsync(fd))
		die("pwrite");
	area = mmap(NULL, NPAGES * psz, PROT_READ, MAP_SHARED, fd, 0);
	m3 = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, fb[2], 0);
	/*
	 * b1 and b2 are mapped too (never touched): a write to a file that
	 * nobody maps skips luf's hook altogether, and would not show a
	 * trigger that is too wide.
	 */
	if (area == MAP_FAILED || m3 == MAP_FAILED ||
	    mmap(NULL, psz, PROT_READ, MAP_SHARED, fb[0], 0) == MAP_FAILED ||
	    mmap(NULL, psz, PROT_READ, MAP_SHARED, fb[1], 0) == MAP_FAILED)
		die("mmap");
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, (void *)(long)(i + 1));
	usleep(200000);

	/*
	 * 1. Three unrelated triggers, each with a fresh deferral pending:
	 * writes to b1 and b2, a shared write fault on b3.
	 */
	for (i = 0; i < 3; i++) {
		const char *what = i < 2 ? "flush_file_write" : "flush_write";

		deferred = defer_to(node);
		node = !node;
		before = bench_luf_value("stats", what);
		if (i < 2) {
			if (pwrite(fb[i], buf, psz, 0) != psz)
				die("pwrite b");
		} else {
			m3[0] = 'b';
		}
		after = bench_luf_value("stats", what);
		printf("%s b%d: %s +%lu, generation %lu %s\n",
		       i < 2 ? "write" : "shared write fault", i + 1, what,
		       after - before, deferred,
		       (long)(bench_luf_value("state", "gen_flushed") - deferred) < 0 ?
		       "still pending" : "flushed");
		wide += after != before;
	}
	/* One may share a luf space with a (1 in 1024): not two. */
	if (wide >= 2) {
		printf("too wide: %d of 3 unrelated triggers flushed\n", wide);
		bad = 1;
	}

	/* 2. The file itself. */
	deferred = defer_to(node);
	before = bench_luf_value("stats", "flush_file_write");
	if (pwrite(fd, buf, psz, 0) != psz)
		die("pwrite a");
	after = bench_luf_value("stats", "flush_file_write");
	printf("write a: flush_file_write +%lu, generation %lu %s\n",
	       after - before, deferred,
	       (long)(bench_luf_value("state", "gen_flushed") - deferred) < 0 ?
	       "still pending" : "flushed");
	if ((long)(bench_luf_value("state", "gen_flushed") - deferred) < 0) {
		printf("too narrow: a write to the file whose pages were deferred left its generation pending\n");
		bad = 1;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("%s\n", bad ? "not precise" : "precise");
	return bad;
}
