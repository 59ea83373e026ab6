// SPDX-License-Identifier: GPL-2.0
/*
 * rtstall: does luf's age bound hold on a CPU that a real-time task keeps
 * busy?  (tests/guest/t/rt-age)
 *
 * Readers on the other CPUs keep a read-only shared tmpfs mapping in their
 * TLBs.  The main thread, pinned to CPU --cpu, migrates the pages to node 1
 * with move_pages(2), so that luf defers the flush from that CPU (and arms
 * its age limit there), then turns itself into a SCHED_FIFO task and spins
 * for -d seconds, as a DPDK or telco poll loop does with RT throttling off.
 * A monitor on another CPU samples oldest_pending_ms in luf's debugfs state
 * meanwhile.  Nothing else allocates or writes: only the age limit can end
 * the deferral.
 *
 * Output: one line of key=value; exit 0, or 2 on a setup error.  The
 * verdict is the caller's (max_oldest_pending_ms against max_defer_ms).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MPOL_MF_MOVE	(1 << 1)

static long npages = 32, page_size;
static int seconds = 3, hog_cpu = -1, ncpus;
static volatile char *area;
static atomic_int stop, spinning;
static long max_ms = -1, samples, pending_samples;


static void *reader(void *arg)
{
	long p;
	unsigned long sum = 0;

	if (bench_pin((int)(long)arg))
		die("sched_setaffinity");
	while (!atomic_load(&stop))
		for (p = 0; p < npages; p++)
			sum += area[p * page_size];
	return (void *)sum;
}

/* oldest_pending_ms from luf's debugfs state, or -1. */
static long oldest_pending(void)
{
	char buf[1024], *s;
	int f = open("/sys/kernel/debug/luf/state", O_RDONLY);
	ssize_t n;

	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	s = strstr(buf, "oldest_pending_ms ");
	return s ? atol(s + strlen("oldest_pending_ms ")) : -1;
}

static void *monitor(void *arg)
{
	if (bench_pin((int)(long)arg))
		die("sched_setaffinity");
	while (!atomic_load(&stop)) {
		long ms = oldest_pending();

		if (atomic_load(&spinning)) {
			samples++;
			if (ms > 0)
				pending_samples++;
			if (ms > max_ms)
				max_ms = ms;
		}
		usleep(10000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param rt = { .sched_priority = 50 }, normal = { 0 };
	pthread_t th[64], mon;
	void **pages;
	int *nodes, *status, c, i, nth = 0, moved = 0, mon_cpu = -1;
	double t0;
	long p;
	int fd;

	page_size = sysconf(_SC_PAGESIZE);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "d:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'C': hog_cpu = opt_num("--cpu", optarg, 0, 63); break;
		case 'd': seconds = opt_num("-d", optarg, 1, 60); break;
		case 'n': npages = opt_num("-n", optarg, 1, 4096); break;
		default:
			fprintf(stderr, "usage: rtstall [--cpu cpu] [-d seconds] [-n pages]\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: rtstall [--cpu cpu] [-d seconds] [-n pages]\n");
		return 2;
	}
	if (hog_cpu < 0)
		hog_cpu = ncpus - 1;
	if (ncpus < 3 || ncpus > 64 || hog_cpu >= ncpus) {
		fprintf(stderr, "rtstall: needs 3 to 64 CPUs and --cpu below their number\n");
		return 2;
	}

	fd = open("/dev/shm/rtstall", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("/dev/shm/rtstall");
	unlink("/dev/shm/rtstall");
	{
		char *buf = calloc(npages, page_size);

		if (!buf)
			die("calloc");
		for (p = 0; p < npages * page_size; p++)
			buf[p] = (char)p;
		if (write(fd, buf, npages * page_size) != npages * page_size)
			die("write");
		free(buf);
	}
	area = mmap(NULL, npages * page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		die("mmap");

	if (bench_pin(hog_cpu))
		die("sched_setaffinity");
	/* The first other CPU monitors, the rest read. */
	for (i = 0; i < ncpus; i++) {
		if (i == hog_cpu)
			continue;
		if (mon_cpu < 0) {
			mon_cpu = i;
			pthread_create(&mon, NULL, monitor, (void *)(long)i);
			continue;
		}
		pthread_create(&th[nth++], NULL, reader, (void *)(long)i);
	}
	usleep(200000);

	pages = calloc(npages, sizeof(*pages));
	nodes = calloc(npages, sizeof(*nodes));
	status = calloc(npages, sizeof(*status));
	for (p = 0; p < npages; p++) {
		pages[p] = (char *)area + p * page_size;
		nodes[p] = 1;
	}
	if (syscall(SYS_move_pages, 0, npages, pages, nodes, status, MPOL_MF_MOVE))
		die("move_pages");
	for (p = 0; p < npages; p++)
		moved += status[p] == 1;

	/* The age limit was armed on this CPU; now keep it busy. */
	if (sched_setscheduler(0, SCHED_FIFO, &rt))
		die("sched_setscheduler(SCHED_FIFO)");
	atomic_store(&spinning, 1);
	t0 = bench_now();
	while (bench_now() - t0 < seconds)
		;
	atomic_store(&spinning, 0);
	if (sched_setscheduler(0, SCHED_OTHER, &normal))
		die("sched_setscheduler(SCHED_OTHER)");

	atomic_store(&stop, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_join(mon, NULL);
	printf("cpu=%d seconds=%d pages=%ld moved=%d samples=%ld pending_samples=%ld max_oldest_pending_ms=%ld\n",
	       hog_cpu, seconds, npages, moved, samples, pending_samples, max_ms);
	return 0;
}
