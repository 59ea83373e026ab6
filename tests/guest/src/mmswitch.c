// SPDX-License-Identifier: GPL-2.0
/*
 * mmswitch: CPUs that keep switching between two mms while one of them is
 * being migrated: the load of t/checker-switch.
 *
 *   mmswitch [-s SECONDS] [-m MIB] [-t THREADS]
 *
 * The process writes over a region of -m MiB (default 8) with -t threads
 * (default 3) that sleep 100 us between rounds, so that the CPUs go idle
 * (lazy, the region's mm still loaded) and come back; a child process
 * runs as many threads that sleep 50 us and spin a little, so that the
 * CPUs also switch straight to another mm.  The region's PTEs stay
 * writable: migration unmaps them through the normal batch, whose flush
 * skips lazy CPUs and CPUs that have left the mm's cpumask.  moveall on
 * the process's pid moves the pages (and the child's) meanwhile.
 *
 * Prints "mmswitch: pid=P" first (for moveall), then at the end
 * "mmswitch: rounds=N" (writes over the region, all threads).  Exit 2 on
 * a usage error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static atomic_long rounds;
static char *region;
static size_t region_len;

static void nap(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

static void *writer(void *arg)
{
	long psz = sysconf(_SC_PAGESIZE), seed = (long)arg;
	size_t off;

	while (!atomic_load(&stop)) {
		for (off = (seed * psz) % region_len; off < region_len;
		     off += 7 * psz)
			region[off]++;
		atomic_fetch_add(&rounds, 1);
		nap(100);
	}
	return NULL;
}

static void *switcher(void *arg)
{
	volatile unsigned long spin;

	while (!atomic_load(&stop)) {
		nap(50);
		for (spin = 0; spin < 2000; spin++)
			;
	}
	return NULL;
}

static void run(void *(*fn)(void *), int threads)
{
	pthread_t th[64];
	int i;

	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, fn, (void *)(long)i)) {
			perror("pthread_create");
			exit(1);
		}
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
}

static void on_alarm(int sig)
{
	atomic_store(&stop, 1);
}

int main(int argc, char **argv)
{
	long secs = 10, mib = 8, threads = 3;
	pid_t child;
	int c;

	while ((c = getopt(argc, argv, "s:m:t:")) != -1) {
		switch (c) {
		case 's': secs = atol(optarg); break;
		case 'm': mib = atol(optarg); break;
		case 't': threads = atol(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc || secs < 1 || mib < 1 || threads < 1 || threads > 64)
		goto usage;
	region_len = (size_t)mib << 20;
	region = mmap(NULL, region_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(region, 1, region_len);
	printf("mmswitch: pid=%d\n", getpid());
	fflush(stdout);
	signal(SIGALRM, on_alarm);
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	alarm(secs);
	if (child == 0) {
		run(switcher, threads);
		_exit(0);
	}
	run(writer, threads);
	waitpid(child, NULL, 0);
	printf("mmswitch: rounds=%ld\n", atomic_load(&rounds));
	return 0;
usage:
	fprintf(stderr, "usage: mmswitch [-s SECONDS] [-m MIB] [-t THREADS]\n");
	return 2;
}
