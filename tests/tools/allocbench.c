// SPDX-License-Identifier: GPL-2.0
/*
 * allocbench: the page allocator and fault path luf's hooks sit on, shaped
 * like will-it-scale's page_fault1.  Each thread maps an anonymous region
 * (-s MiB, default 128), writes one byte to every page of it (one fault and
 * one page allocation each), unmaps it (one free each), and loops.
 *
 * Runs for -d seconds (default 10) after a warm-up of -w seconds (default
 * 1) that is not counted.  --node N binds the memory to one node: in the
 * two-tier guest the regions of four threads fill node 0, and reclaim and
 * demotion running now and then would be the noise of the measurement.
 * Prints one line of "key=value" counters: faults (pages touched in the
 * measured phase), secs, faults_per_sec and ops_per_sec (regions per
 * second: faults_per_sec / pages per region), then the counters of
 * bench.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static size_t region;
static long page_size;
static _Atomic int phase;		/* 0 warm-up, 1 measure, 2 stop */
static _Atomic long faults;

/*
 * Pages are counted 64 at a time as they are touched, by the phase they are
 * touched in: a region that straddles the start or the end of the measured
 * phase counts in part, so the count does not jump by a whole region.
 */
static void *worker(void *arg)
{
	long cpu = (long)arg, n = region / page_size, mine = 0;
	int ph = 0;

	bench_pin(cpu);
	while (ph < 2) {
		char *m = mmap(NULL, region, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long i;

		if (m == MAP_FAILED) {
			perror("allocbench: mmap");
			exit(2);
		}
		for (i = 0; i < n; i++) {
			m[i * page_size] = 1;
			if ((i & 63) == 63) {
				ph = atomic_load_explicit(&phase, memory_order_relaxed);
				if (ph == 1)
					mine += 64;
			}
		}
		munmap(m, region);
	}
	atomic_fetch_add(&faults, mine);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: allocbench [-t threads] [-s MiB] [-d seconds] [-w warmup-seconds]\n"
			"                  [--node N]\n");
	exit(2);
}

enum { OPT_NODE = 256 };

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "node", required_argument, NULL, OPT_NODE },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	int threads = sysconf(_SC_NPROCESSORS_ONLN), secs = 10, warm = 1, c, i;
	long mib = 128;
	pthread_t th[256];
	struct bench_counters c0, c1;
	int node = -1;
	double t0, t1;

	while ((c = getopt_long(argc, argv, "t:s:d:w:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 't': threads = opt_num("-t", optarg, 1, 256); break;
		case 's': mib = opt_num("-s", optarg, 1, 1L << 20); break;
		case 'd': secs = opt_num("-d", optarg, 1, 86400); break;
		case 'w': warm = opt_num("-w", optarg, 0, 86400); break;
		case OPT_NODE: node = opt_num("--node", optarg, 0, 63); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	/* The default, one per CPU, as many as th[] holds. */
	if (threads > 256)
		threads = 256;
	if (node >= 0) {
		unsigned long mask = 1UL << node;

		/* MPOL_BIND (2) for the whole process, threads included. */
		if (syscall(SYS_set_mempolicy, 2, &mask, 8 * sizeof(mask))) {
			perror("allocbench: set_mempolicy");
			return 2;
		}
	}
	page_size = sysconf(_SC_PAGESIZE);
	region = (size_t)mib << 20;

	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i)) {
			fprintf(stderr, "allocbench: pthread_create failed\n");
			return 2;
		}
	sleep(warm);
	bench_read(&c0);
	t0 = bench_now();
	atomic_store(&phase, 1);
	sleep(secs);
	atomic_store(&phase, 2);
	t1 = bench_now();
	bench_read(&c1);
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("threads=%d region_mib=%ld node=%d faults=%ld secs=%.3f faults_per_sec=%.1f ops_per_sec=%.4f",
	       threads, mib, node, (long)faults, t1 - t0, faults / (t1 - t0),
	       faults / (t1 - t0) / (region / page_size));
	bench_print_deltas(&c0, &c1);
	printf("\n");
	return 0;
}
