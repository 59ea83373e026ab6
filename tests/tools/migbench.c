// SPDX-License-Identifier: GPL-2.0
/*
 * migbench: move_pages(2) ping-pong of read-only pages between node 0 and
 * node 1 while reader threads on the other vCPUs keep reading them, so that
 * every migration must shoot down translations cached on those CPUs.  This
 * is the unmap-flush cost luf removes, isolated from everything else.  The
 * migrating thread has CPU 0 to itself; reader i runs on CPU i + 1.
 *
 * Under TCG the vCPUs share the host's cores: a reader that stalls on a
 * migration entry idles its vCPU and leaves more host time to the
 * migrating one.  With luf on the readers stall less (they keep reading
 * the old copy until the deferred flush), so pages_per_sec there measures
 * partly the emulator's scheduling; --separate takes the stalls out.
 *
 *   -m file	the pages are a tmpfs file mapped read-only and shared
 *		(page cache; default)
 *   -m anon	private anonymous memory shared read-only with a forked child
 *   -n pages	pages moved per pass (default 512: one migration batch)
 *   -p passes	passes to run (default 100), after -w warm-up passes (5)
 *   -t threads	reader threads (default: one per vCPU but CPU 0)
 *   --separate	the readers read a buffer of their own instead of the moved
 *		pages: their CPUs still need the shootdowns (same mm), but they
 *		never fault on a page under migration.  Separates the cost of
 *		the flush from the readers' stalls on migration entries.
 *
 * Prints one line of "key=value" counters for the measured passes: passes,
 * migrated, failed, secs, pages_per_sec, mig_cpu (the migrating thread's
 * CPU seconds), reads_m (reader loads in the measured phase, millions),
 * then the interrupt, vmstat and luf counters of bench.h ("na" where the
 * kernel has none).
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static long page_size, npages = 512;
static volatile uint64_t *area;
static _Atomic int stop;
static _Atomic long reads;
static _Atomic int measuring;
static int separate;

static void *reader(void *arg)
{
	long cpu = (long)arg, words = page_size / 8, n = 0;
	volatile uint64_t *from = area;
	uint64_t sum = 0;

	bench_pin(cpu);
	if (separate) {
		from = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (from == MAP_FAILED)
			die("mmap");
	}
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long p;

		for (p = 0; p < npages; p++)
			sum += from[p * words + (p + cpu) % words];
		/* Count the measured phase only. */
		if (atomic_load_explicit(&measuring, memory_order_relaxed))
			n += npages;
	}
	atomic_fetch_add(&reads, n + (sum & 1));
	return NULL;
}

/* One pass: every page to @node.  Returns the number that got there. */
static long move_all(void **pages, int *nodes, int *status, int node)
{
	long moved = bench_move_all(0, npages, pages, nodes, status, node);

	if (moved < 0)
		die("move_pages");
	return moved;
}

static void usage(void)
{
	fprintf(stderr, "usage: migbench [-m file|anon] [-n pages] [-p passes] [-w warmup-passes]\n"
			"                [-t readers] [--separate]\n");
	exit(2);
}

enum { OPT_SEPARATE = 256 };

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "separate", no_argument, NULL, OPT_SEPARATE },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	long passes = 100, warm = 5, p, pass, migrated = 0, failed = 0;
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), anon = 0, c, i;
	int readers = ncpus > 1 ? ncpus - 1 : 1;
	pthread_t th[256];
	void **pages;
	int *nodes, *status;
	pid_t child = -1;
	struct bench_counters c0, c1;
	struct timespec c0t, c1t;
	double t0, t1;
	size_t len;

	while ((c = getopt_long(argc, argv, "m:n:p:w:t:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "anon"))
				anon = 1;
			else if (strcmp(optarg, "file"))
				usage();
			break;
		case 'n': npages = opt_num("-n", optarg, 1, 1L << 24); break;
		case 'p': passes = opt_num("-p", optarg, 1, LONG_MAX); break;
		case 'w': warm = opt_num("-w", optarg, 0, LONG_MAX); break;
		case 't': readers = opt_num("-t", optarg, 0, 256); break;
		case OPT_SEPARATE: separate = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	/* The default, one per CPU but the migrator's, as th[] holds. */
	if (readers > 256)
		readers = 256;
	page_size = sysconf(_SC_PAGESIZE);
	len = npages * page_size;

	if (anon) {
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			die("mmap");
		/* Base pages only: luf defers small folios. */
		madvise(m, len, MADV_NOHUGEPAGE);
		memset(m, 0x5a, len);
		/* Shared with a child, both mappings are read-only. */
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			pause();
			_exit(0);
		}
		area = (volatile uint64_t *)m;
	} else {
		char path[] = "/dev/shm/migbench.XXXXXX";
		int fd = mkstemp(path);
		char *buf = malloc(page_size);

		if (fd < 0)
			die(path);
		unlink(path);
		memset(buf, 0x5a, page_size);
		for (p = 0; p < npages; p++)
			if (write(fd, buf, page_size) != page_size)
				die("write");
		free(buf);
		area = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (area == MAP_FAILED)
			die("mmap");
	}

	pages = calloc(npages, sizeof(*pages));
	nodes = calloc(npages, sizeof(*nodes));
	status = calloc(npages, sizeof(*status));
	for (p = 0; p < npages; p++) {
		pages[p] = (char *)area + p * page_size;
		(void)area[p * page_size / 8];	/* mapped before the readers start */
	}
	/* The migrating thread on CPU 0, readers from CPU 1 on. */
	bench_pin(0);
	for (i = 0; i < readers; i++)
		pthread_create(&th[i], NULL, reader,
			       (void *)(long)((i + 1) % ncpus));

	for (pass = 0; pass < warm; pass++)
		move_all(pages, nodes, status, (pass & 1) ? 0 : 1);
	/* Start from node 0, so that every pass moves every page. */
	if (warm & 1)
		move_all(pages, nodes, status, 0);
	bench_read(&c0);
	bench_trace(1);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0t);
	atomic_store(&measuring, 1);
	t0 = bench_now();
	for (pass = 0; pass < passes; pass++) {
		long moved = move_all(pages, nodes, status, (pass & 1) ? 0 : 1);

		migrated += moved;
		failed += npages - moved;
	}
	t1 = bench_now();
	atomic_store(&measuring, 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1t);
	bench_trace(0);
	bench_read(&c1);
	atomic_store(&stop, 1);
	for (i = 0; i < readers; i++)
		pthread_join(th[i], NULL);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	printf("mode=%s pages=%ld readers=%d separate=%d passes=%ld migrated=%ld failed=%ld secs=%.3f pages_per_sec=%.1f mig_cpu=%.3f reads_m=%.1f reads_per_sec=%.0f",
	       anon ? "anon" : "file", npages, readers, separate, passes,
	       migrated, failed, t1 - t0, migrated / (t1 - t0),
	       (c1t.tv_sec - c0t.tv_sec) + (c1t.tv_nsec - c0t.tv_nsec) / 1e9,
	       reads / 1e6, reads / (t1 - t0));
	bench_print_deltas(&c0, &c1);
	printf("\n");
	return 0;
}
