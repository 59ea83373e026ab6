/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tools share (bench.c, linked into each): the error exit,
 * pinning, one move_pages(2) pass, creating a data file, the share of a
 * range in large folios, and the counters the benchmarks read around their
 * measured phase, so that set-up and warm-up are left out (the
 * TLB-shootdown interrupt line, vmstat, luf's debugfs counters, this
 * process's faults and CPU time).
 *
 * Include after defining _GNU_SOURCE (CPU_SET).
 */
#ifndef LUF_TOOLS_BENCH_H
#define LUF_TOOLS_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

/*
 * A usage or setup error: print "<tool>: @what: <errno's text>" on stderr
 * and exit with status 2 (1 is kept for what the tool is there to find).
 */
void die(const char *what) __attribute__((noreturn));

/*
 * Short options mean the same in every tool: -m mode, -f file, -s MiB,
 * -n pages, -t threads, -d seconds measured, -w warm-up (in the unit the
 * tool measures in: seconds, or passes), -p passes, -c create the data
 * file.  Every other option is long only.  Each tool names them --mode,
 * --file, --mib, --pages, --threads, --secs, --warmup, --passes, --create.
 */
#define BENCH_LONG_OPTS							\
	{ "mode", required_argument, NULL, 'm' },			\
	{ "file", required_argument, NULL, 'f' },			\
	{ "mib", required_argument, NULL, 's' },			\
	{ "pages", required_argument, NULL, 'n' },			\
	{ "threads", required_argument, NULL, 't' },			\
	{ "secs", required_argument, NULL, 'd' },			\
	{ "warmup", required_argument, NULL, 'w' },			\
	{ "passes", required_argument, NULL, 'p' },			\
	{ "create", no_argument, NULL, 'c' }

/*
 * The value of option @name ("-t", "--seed"): a whole number in
 * [@min, @max], or a usage error that says so (exit 2).
 */
long opt_num(const char *name, const char *arg, long min, long max);

/*
 * Which of the @n @choices option @name ("-m") names: its index, or a
 * usage error that lists them (exit 2).
 */
int opt_choice(const char *name, const char *arg,
	       const char *const *choices, int n);

/*
 * Create @path with @mib MiB, each MiB filled by @fill (@i: which MiB),
 * and write it back.  Returns 0, or -1 with errno set.
 */
int bench_create(const char *path, long mib,
		 void (*fill)(void *buf, size_t len, long i, void *arg),
		 void *arg);

/*
 * How many of the @npages pages at @addr that are present belong to a
 * large folio (KPF_COMPOUND_HEAD or KPF_COMPOUND_TAIL), from
 * /proc/self/pagemap and /proc/kpageflags (root).  With @touch each page is
 * read first, so that all are present; without, the pages are left as
 * they are and *@present (if given) says how many were.  -1 if the files
 * cannot be read.
 */
long bench_large_pages(const void *addr, long npages,
		       int touch, long *present);

/*
 * Run the calling thread on CPU @cpu, modulo the CPUs online; 0, or -1 with
 * errno set.
 */
int bench_pin(long cpu);

#define BENCH_MPOL_MF_MOVE	(1 << 1)
#define BENCH_MPOL_MF_MOVE_ALL	(1 << 2)

/*
 * All @n @pages to @node with move_pages(2), @nodes and @status being
 * arrays of @n; when some pages were busy, the call is made twice more.
 * Returns how many are on @node now (status says which), or -1 with errno
 * set if the call failed; ENOENT and EBUSY are outcomes of single pages.
 */
long bench_move_all(pid_t pid, long n, void **pages,
		    int *nodes, int *status, int node);

/*
 * move_pages(2) of the @n pages of @psz bytes from @addr to @node, those
 * this process alone maps (MPOL_MF_MOVE); exits 2 if the call fails.
 * Returns how many are on @node now.
 */
long bench_move_range(void *addr, long n, long psz, int node);

double bench_now(void);

/* Sum over CPUs of the /proc/interrupts line named @name ("TLB:"). */
long bench_irq(const char *name);

/* The value of "@key value" in @path (/proc/vmstat, luf's stats), or -1. */
long bench_kv(const char *path, const char *key);

/*
 * The value of "@key value" in luf's debugfs file @file (stats, state);
 * exits 2 if the file cannot be read or has no such key.
 */
unsigned long bench_luf_value(const char *file, const char *key);

/*
 * With BENCH_TRACE_WINDOW set in the environment, tracing is switched on
 * for the measured phase only (tests/guest/t/bench switches it off before
 * the run), so that the trace counts cover what the other counters cover.
 */
void bench_trace(int on);

/* Counters printed as "<key>=<delta>" by bench_print_deltas(). */
struct bench_counters {
	long tlb_ipis, remote_flush, remote_flush_received, local_flush_all,
	     local_flush_one, pgmigrate, pgdemote, pgpromote, pgscan, luf_ipis,
	     luf_flushes, luf_tagged, luf_flush_age, luf_flush_alloc,
	     luf_flush_file_write, luf_flush_reserve, luf_refused_large,
	     luf_ipis_avoided, luf_flush_tick, luf_numa_held, luf_numa_done,
	     luf_numa_ipis, luf_numa_sync, numa_hint_faults, numa_pte_updates,
	     numa_scans;
	/* this process (all threads): faults, context switches, CPU time */
	long minflt, csw;
	double utime, stime;
	/* all CPUs, from /proc/stat: jiffies idle (idle + iowait) and total */
	long cpu_idle, cpu_total;
};

void bench_cpu(struct bench_counters *c);

long bench_vmstat_sum(const char *prefix);

void bench_read(struct bench_counters *c);

/* A counter the kernel does not have stays -1: print it as "na". */
void bench_print_deltas(const struct bench_counters *a,
			const struct bench_counters *b);

#endif
