// SPDX-License-Identifier: GPL-2.0
/*
 * tierbench: read-mostly data bigger than the fast tier, read at random by
 * one thread per vCPU, with memory tiering on, shaped like llama.cpp
 * mmap'ing a model bigger than DRAM: pages demote to the slow node under
 * reclaim and promote back when hot.  Reports reads per second.
 *
 *   tierbench -c -f FILE -s MiB	create FILE (run once, before)
 *   tierbench [-m file] -f FILE	map FILE private (never written: its
 *					PTEs stay read-only on the page cache)
 *   tierbench -m file-shared -f FILE	map FILE read-only and shared, as
 *					llama.cpp does; NUMA balancing skips
 *					such mappings (task_numa_work()), so
 *					hot pages are never promoted back
 *   tierbench -m anon -s MiB		anonymous memory filled, then shared
 *					read-only with a forked child: the
 *					readers run in the child.  NUMA
 *					balancing skips pages shared after
 *					fork (change_pte_range()): they are
 *					demoted but never promoted
 *   tierbench -m anon-ro -s MiB	anonymous memory filled, then made
 *					read-only with mprotect(): private
 *					to the readers' process, so hot
 *					pages are promoted back
 * options:
 *   -t threads	readers, one per vCPU by default, each pinned
 *   -d secs	measured phase (default 10), after -w warm-up secs (3)
 *   --hot-pct pct
 *		size of the hot set, percent of the data (default 25)
 *   --hot-share pct
 *		share of reads that go to the hot set (default 90)
 *   --shift-secs secs
 *		the hot set moves by half its size every secs seconds
 *		(default 4), so that pages keep cooling (demotion) and
 *		warming up (promotion)
 *   --seed N	fixed seed (default 1): the same sequence of addresses
 *   --base-pages
 *		anonymous data in base pages only (MADV_NOHUGEPAGE);
 *		without it, THP and mTHP as the system is configured
 *   --readahead
 *		file data: keep the kernel's readahead.  By default the
 *		mapping is MADV_RANDOM, as llama.cpp's --numa maps a model:
 *		no readahead, and faults read single pages, in base pages
 *		whatever the filesystem.  With readahead a filesystem with
 *		large folios (XFS) reads the data in large folios.
 *
 * Prints one line of "key=value" counters for the measured phase: reads,
 * secs, reads_per_sec, large_start and large_end (percent of the data's
 * present pages that are in large folios, when the measured phase starts
 * and when it ends; the count touches nothing; -1 without
 * /proc/kpageflags), then the counters of bench.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static long page_size, npages;
static const volatile uint64_t *data;
static int hot_pct = 25, hot_prob = 90, shift_secs = 4;
static unsigned long seed = 1;
static _Atomic int phase;		/* 0 warm-up, 1 measure, 2 stop */
static _Atomic long hot_start;		/* first page of the hot set */
static _Atomic long total;

/* xorshift64*: cheap, and the same sequence for the same seed. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void *reader(void *arg)
{
	long cpu = (long)arg, hot = npages * hot_pct / 100, words = page_size / 8;
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + cpu + 1, sum = 0;
	long n = 0, mine = 0;
	int ph = 0;

	if (hot < 1)
		hot = 1;
	bench_pin(cpu);
	while (ph < 2) {
		uint64_t r = next(&s);
		long p;

		if ((long)(r % 100) < hot_prob)
			p = (atomic_load_explicit(&hot_start, memory_order_relaxed) +
			     (long)((r >> 8) % hot)) % npages;
		else
			p = (r >> 8) % npages;
		sum += data[p * words + (r >> 40) % words];
		if ((++n & 1023) == 0) {
			ph = atomic_load_explicit(&phase, memory_order_relaxed);
			if (ph == 1)
				mine += 1024;
		}
	}
	atomic_fetch_add(&total, mine + (sum == 42));
	return NULL;
}

/* Pseudo-random contents, the same for the same seed. */
static void fill_random(void *buf, size_t len, long i, void *arg)
{
	uint64_t *w = buf, *s = arg;
	size_t k;

	for (k = 0; k < len / 8; k++)
		w[k] = next(s);
}

static void create(const char *path, long mib)
{
	uint64_t s = seed;

	if (bench_create(path, mib, fill_random, &s))
		die(path);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: tierbench -c -f FILE -s MiB\n"
		"       tierbench [-m file|file-shared] [--readahead] -f FILE [options]\n"
		"       tierbench -m anon|anon-ro [--base-pages] -s MiB [options]\n"
		"options: [-t threads] [-d secs] [-w secs] [--hot-pct pct]\n"
		"         [--hot-share pct] [--shift-secs secs] [--seed N]\n");
	exit(2);
}

/* Percent of the data's present pages in large folios, or -1. */
static double large_pct(void)
{
	long present, n = bench_large_pages((const void *)data, npages, 0,
					    &present);

	return n < 0 || !present ? -1 : n * 100.0 / present;
}

/* The measured run, in the process that maps the data. */
static void run(int threads, int warm, int secs, const char *what)
{
	struct bench_counters c0, c1;
	pthread_t th[256];
	double t0, t1, next_shift;
	double large0, large1;
	int i;

	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, reader, (void *)(long)i))
			die("pthread_create");
	sleep(warm);
	large0 = large_pct();
	bench_read(&c0);
	bench_trace(1);
	t0 = bench_now();
	atomic_store(&phase, 1);
	next_shift = t0 + shift_secs;
	while (bench_now() < t0 + secs) {
		usleep(50000);
		if (bench_now() >= next_shift) {
			long hot = npages * hot_pct / 100;

			atomic_store(&hot_start, (hot_start + hot / 2 + 1) % npages);
			next_shift += shift_secs;
		}
	}
	atomic_store(&phase, 2);
	t1 = bench_now();
	bench_trace(0);
	bench_read(&c1);
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	large1 = large_pct();
	printf("mode=%s mib=%ld threads=%d reads=%ld secs=%.3f reads_per_sec=%.1f large_start=%.1f large_end=%.1f",
	       what, npages * page_size >> 20, threads, (long)total, t1 - t0,
	       total / (t1 - t0), large0, large1);
	bench_print_deltas(&c0, &c1);
	printf("\n");
	fflush(stdout);
}

enum {
	OPT_BASE_PAGES = 256, OPT_READAHEAD, OPT_HOT_PCT, OPT_HOT_SHARE,
	OPT_SHIFT_SECS, OPT_SEED,
};

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "base-pages", no_argument, NULL, OPT_BASE_PAGES },
	{ "readahead", no_argument, NULL, OPT_READAHEAD },
	{ "hot-pct", required_argument, NULL, OPT_HOT_PCT },
	{ "hot-share", required_argument, NULL, OPT_HOT_SHARE },
	{ "shift-secs", required_argument, NULL, OPT_SHIFT_SECS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	int threads = sysconf(_SC_NPROCESSORS_ONLN), secs = 10, warm = 3;
	int anon = 0, anon_ro = 0, do_create = 0, shared_ro = 0, c;
	int base_pages = 0, readahead = 0;
	const char *path = NULL;
	long mib = 0;
	size_t len;

	while ((c = getopt_long(argc, argv, "m:cf:s:t:d:w:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'm':
			anon = anon_ro = shared_ro = 0;
			if (!strcmp(optarg, "anon"))
				anon = 1;
			else if (!strcmp(optarg, "anon-ro"))
				anon = anon_ro = 1;
			else if (!strcmp(optarg, "file-shared"))
				shared_ro = 1;
			else if (strcmp(optarg, "file"))
				usage();
			break;
		case OPT_BASE_PAGES: base_pages = 1; break;
		case OPT_READAHEAD: readahead = 1; break;
		case 'c': do_create = 1; break;
		case 'f': path = optarg; break;
		case 's': mib = opt_num("-s", optarg, 1, 1L << 20); break;
		case 't': threads = opt_num("-t", optarg, 1, 256); break;
		case 'd': secs = opt_num("-d", optarg, 1, 86400); break;
		case 'w': warm = opt_num("-w", optarg, 0, 86400); break;
		case OPT_HOT_PCT:
			hot_pct = opt_num("--hot-pct", optarg, 1, 100);
			break;
		case OPT_HOT_SHARE:
			hot_prob = opt_num("--hot-share", optarg, 0, 100);
			break;
		case OPT_SHIFT_SECS:
			shift_secs = opt_num("--shift-secs", optarg, 1, 86400);
			break;
		case OPT_SEED:
			seed = opt_num("--seed", optarg, 1, LONG_MAX);
			break;
		default: usage();
		}
	}
	if (optind != argc || anon == !!path || (shared_ro && do_create))
		usage();
	/* The default, one per CPU, as many as run() can start. */
	if (threads > 256)
		threads = 256;
	if ((do_create || anon) && mib < 1)
		usage();
	if ((base_pages && !anon) || (readahead && anon))
		usage();
	page_size = sysconf(_SC_PAGESIZE);
	if (do_create) {
		if (anon)
			usage();
		create(path, mib);
		return 0;
	}

	if (anon) {
		uint64_t *m, s = seed;
		long k;
		pid_t pid;
		int status;

		len = (size_t)mib << 20;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die("mmap");
		if (base_pages && madvise(m, len, MADV_NOHUGEPAGE))
			die("madvise");
		for (k = 0; k < (long)(len / 8); k++)
			m[k] = next(&s);
		npages = len / page_size;
		data = m;
		if (anon_ro) {
			/* Read-only PTEs on pages only this process maps. */
			if (mprotect(m, len, PROT_READ))
				die("mprotect");
			run(threads, warm, secs, "anon-ro");
			return 0;
		}
		/* After fork the pages are shared, read-only in both mms. */
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			run(threads, warm, secs, "anon");
			_exit(0);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
			die("reader process");
		return WEXITSTATUS(status);
	}

	{
		int fd = open(path, O_RDONLY);
		struct stat st;
		void *m;

		if (fd < 0 || fstat(fd, &st))
			die(path);
		len = st.st_size;
		npages = len / page_size;
		if (npages < 1)
			usage();
		if (shared_ro)
			m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		else
			m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
				 fd, 0);
		if (m == MAP_FAILED)
			die("mmap");
		if (!readahead)
			madvise(m, len, MADV_RANDOM);
		data = m;
		run(threads, warm, secs, shared_ro ? "file-shared" : "file");
	}
	return 0;
}
