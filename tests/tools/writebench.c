// SPDX-License-Identifier: GPL-2.0
/*
 * writebench: file writers that have nothing to do with luf's pages, run
 * beside a tiering workload to see whether they pay for it.
 *
 *   writebench -m log -f FILE [--period-us N] -d secs
 *	a logger: appends a short line to FILE every N microseconds
 *	(default 1000) for -d seconds, as a service writing its log does.
 *	Prints log_lines (lines written) and log_late (lines written more
 *	than one period after their due time).
 *   writebench -m write1 -f DIR [-t threads] [--first-cpu N] [-w secs] -d secs
 *	shaped like will-it-scale's write1: each thread pwrite()s one byte
 *	at offset 0 of a file of its own in DIR (a tmpfs), as fast as it
 *	can, pinned to CPUs first-cpu, first-cpu + 1, ...  After -w secs of
 *	warm-up (default 3), counts for -d secs.  Prints w1_threads,
 *	w1_writes, w1_secs, w1_writes_per_sec.
 *
 * The keys have prefixes of their own: the line goes after the tiering
 * tool's on the same BENCH line.
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
#include <time.h>
#include <unistd.h>

#include "bench.h"

static const char *path;
static int first_cpu;
static _Atomic int phase;		/* 0 warm-up, 1 measure, 2 stop */
static _Atomic long total;

static void logger(long period_us, int secs)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	struct timespec due, now;
	long lines = 0, late = 0;
	double end;
	char line[96];

	if (fd < 0)
		die(path);
	clock_gettime(CLOCK_MONOTONIC, &due);
	end = bench_now() + secs;
	while (bench_now() < end) {
		int n = snprintf(line, sizeof(line),
				 "writebench: log line %ld, all is well\n", lines);

		if (write(fd, line, n) != n)
			die("write");
		lines++;
		clock_gettime(CLOCK_MONOTONIC, &now);
		due.tv_nsec += period_us * 1000;
		while (due.tv_nsec >= 1000000000) {
			due.tv_nsec -= 1000000000;
			due.tv_sec++;
		}
		/* More than a period behind: count it, and do not catch up. */
		if ((now.tv_sec - due.tv_sec) * 1000000000L +
		    (now.tv_nsec - due.tv_nsec) > period_us * 1000L) {
			late++;
			due = now;
			continue;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
	}
	close(fd);
	printf("log_lines=%ld log_late=%ld\n", lines, late);
}

static void *write1(void *arg)
{
	long i = (long)arg, mine = 0, n = 0;
	char name[4096];
	int fd, ph = 0;

	snprintf(name, sizeof(name), "%s/writebench.%ld", path, i);
	fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(name);
	unlink(name);
	bench_pin(first_cpu + i);
	while (ph < 2) {
		if (pwrite(fd, "x", 1, 0) != 1)
			die("pwrite");
		if ((++n & 255) == 0) {
			ph = atomic_load_explicit(&phase, memory_order_relaxed);
			if (ph == 1)
				mine += 256;
		}
	}
	atomic_fetch_add(&total, mine);
	close(fd);
	return NULL;
}

static void write1_run(int threads, int warm, int secs)
{
	pthread_t th[256];
	double t0, t1;
	int i;

	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, write1, (void *)(long)i))
			die("pthread_create");
	sleep(warm);
	t0 = bench_now();
	atomic_store(&phase, 1);
	while (bench_now() < t0 + secs)
		usleep(50000);
	atomic_store(&phase, 2);
	t1 = bench_now();
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("w1_threads=%d w1_writes=%ld w1_secs=%.3f w1_writes_per_sec=%.1f\n",
	       threads, (long)total, t1 - t0, total / (t1 - t0));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: writebench -m log -f FILE [--period-us N] -d secs\n"
		"       writebench -m write1 -f DIR [-t threads] [--first-cpu N]\n"
		"                  [-w secs] -d secs\n");
	exit(2);
}

enum { OPT_PERIOD_US = 256, OPT_FIRST_CPU };

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "period-us", required_argument, NULL, OPT_PERIOD_US },
	{ "first-cpu", required_argument, NULL, OPT_FIRST_CPU },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	int threads = 1, secs = 0, warm = 3, c;
	long period_us = 1000;
	const char *mode = NULL;

	while ((c = getopt_long(argc, argv, "m:f:t:w:d:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'm':
			mode = optarg;
			break;
		case 'f':
			path = optarg;
			break;
		case OPT_PERIOD_US:
			period_us = opt_num("--period-us", optarg, 1, 60000000);
			break;
		case 't':
			threads = opt_num("-t", optarg, 1, 256);
			break;
		case OPT_FIRST_CPU:
			first_cpu = opt_num("--first-cpu", optarg, 0, 4095);
			break;
		case 'w':
			warm = opt_num("-w", optarg, 0, 86400);
			break;
		case 'd':
			secs = opt_num("-d", optarg, 1, 86400);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !mode || !path || !secs)
		usage();
	if (!strcmp(mode, "log"))
		logger(period_us, secs);
	else if (!strcmp(mode, "write1"))
		write1_run(threads, warm, secs);
	else
		usage();
	return 0;
}
