/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tools share: pinning, one move_pages(2) pass, creating a data
 * file, and the counters
 * the benchmarks read around their measured phase, so that set-up and
 * warm-up are left out (the TLB-shootdown interrupt line, vmstat, luf's
 * debugfs counters, this process's faults and CPU time).
 *
 * Include after defining _GNU_SOURCE (CPU_SET).
 */
#ifndef LUF_TOOLS_BENCH_H
#define LUF_TOOLS_BENCH_H

#include <errno.h>
#include <fcntl.h>
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
 * Create @path with @mib MiB, each MiB filled by @fill (@i: which MiB),
 * and write it back.  Returns 0, or -1 with errno set.
 */
static inline int bench_create(const char *path, long mib,
			       void (*fill)(void *buf, size_t len, long i,
					    void *arg),
			       void *arg)
{
	size_t chunk = 1 << 20;
	char *buf = malloc(chunk);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), rc = -1;
	long i;

	if (fd < 0 || !buf)
		goto out;
	for (i = 0; i < mib; i++) {
		fill(buf, chunk, i, arg);
		if (write(fd, buf, chunk) != (ssize_t)chunk)
			goto out;
	}
	rc = fsync(fd);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/*
 * How many of the @npages pages at @addr that are present belong to a
 * large folio (KPF_COMPOUND_HEAD or KPF_COMPOUND_TAIL), from
 * /proc/self/pagemap and /proc/kpageflags (root).  With @touch each page is
 * read first, so that all are present; without, the pages are left as
 * they are and *@present (if given) says how many were.  -1 if the files
 * cannot be read.
 */
static inline long bench_large_pages(const void *addr, long npages,
				     int touch, long *present)
{
	long psize = sysconf(_SC_PAGESIZE), p, n = -1, in = 0;
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	uint64_t e, flags, compound = (1ULL << 15) | (1ULL << 16);

	if (pm >= 0 && kf >= 0) {
		n = 0;
		for (p = 0; p < npages; p++) {
			const char *a = (const char *)addr + p * psize;

			if (touch)
				(void)*(const volatile char *)a;
			if (pread(pm, &e, 8, (off_t)((uintptr_t)a / psize) * 8) != 8 ||
			    !(e >> 63))
				continue;
			in++;
			e &= (1ULL << 55) - 1;
			if (pread(kf, &flags, 8, (off_t)e * 8) == 8 &&
			    (flags & compound))
				n++;
		}
	}
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	if (present)
		*present = in;
	return n;
}

/* Run the calling thread on CPU @cpu, modulo the CPUs online. */
static inline void bench_pin(long cpu)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % (n > 0 ? n : 1), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

#define BENCH_MPOL_MF_MOVE_ALL	(1 << 2)

/*
 * One move_pages(2) pass: all @n @pages to @node, @nodes and @status being
 * arrays of @n.  Returns how many are on @node now (the call's return value
 * does not say which pages stayed: status does), or -1 with errno set if
 * the call failed; ENOENT and EBUSY are outcomes of single pages.
 */
static inline long bench_move_all(pid_t pid, long n, void **pages,
				  int *nodes, int *status, int node)
{
	long p, moved = 0;

	for (p = 0; p < n; p++)
		nodes[p] = node;
	if (syscall(SYS_move_pages, pid, n, pages, nodes, status,
		    BENCH_MPOL_MF_MOVE_ALL) < 0 && errno != ENOENT &&
	    errno != EBUSY)
		return -1;
	for (p = 0; p < n; p++)
		moved += status[p] == node;
	return moved;
}

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sum over CPUs of the /proc/interrupts line named @name ("TLB:"). */
static inline long bench_irq(const char *name)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	long sum = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, name, strlen(name)))
			continue;
		p += strlen(name);
		sum = 0;
		for (;;) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		break;
	}
	fclose(f);
	return sum;
}

/* The value of "@key value" in @path (/proc/vmstat, luf's stats), or -1. */
static inline long bench_kv(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char k[128];
	long v, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%127s %ld", k, &v) == 2)
		if (!strcmp(k, key)) {
			ret = v;
			break;
		}
	fclose(f);
	return ret;
}

/*
 * With BENCH_TRACE_WINDOW set in the environment, tracing is switched on
 * for the measured phase only (tests/guest/t/bench switches it off before
 * the run), so that the trace counts cover what the other counters cover.
 */
static inline void bench_trace(int on)
{
	FILE *f;

	if (!getenv("BENCH_TRACE_WINDOW"))
		return;
	f = fopen("/sys/kernel/tracing/tracing_on", "w");
	if (f) {
		fputs(on ? "1\n" : "0\n", f);
		fclose(f);
	}
}

/* Counters printed as "<key>=<delta>" by bench_print_deltas(). */
struct bench_counters {
	long tlb_ipis, remote_flush, remote_flush_received, local_flush_all,
	     local_flush_one, pgmigrate, pgdemote, pgpromote, pgscan, luf_ipis,
	     luf_flushes, luf_tagged, luf_flush_age, luf_flush_alloc,
	     luf_flush_file_write, luf_flush_reserve, luf_refused_large;
	/* this process (all threads): faults, context switches, CPU time */
	long minflt, csw;
	double utime, stime;
	/* all CPUs, from /proc/stat: jiffies idle (idle + iowait) and total */
	long cpu_idle, cpu_total;
};

static inline void bench_cpu(struct bench_counters *c)
{
	FILE *f = fopen("/proc/stat", "r");
	long v[10] = { 0 };
	int i;

	c->cpu_idle = c->cpu_total = -1;
	if (!f)
		return;
	if (fscanf(f, "cpu %ld %ld %ld %ld %ld %ld %ld %ld", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		c->cpu_idle = v[3] + v[4];
		for (c->cpu_total = 0, i = 0; i < 8; i++)
			c->cpu_total += v[i];
	}
	fclose(f);
}

static inline long bench_vmstat_sum(const char *prefix)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char k[128];
	long v, sum = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%127s %ld", k, &v) == 2)
		if (!strncmp(k, prefix, strlen(prefix)))
			sum += v;
	fclose(f);
	return sum;
}

static inline void bench_read(struct bench_counters *c)
{
	const char *luf = "/sys/kernel/debug/luf/stats";

	c->tlb_ipis = bench_irq("TLB:");
	c->remote_flush = bench_kv("/proc/vmstat", "nr_tlb_remote_flush");
	c->remote_flush_received = bench_kv("/proc/vmstat", "nr_tlb_remote_flush_received");
	c->local_flush_all = bench_kv("/proc/vmstat", "nr_tlb_local_flush_all");
	c->local_flush_one = bench_kv("/proc/vmstat", "nr_tlb_local_flush_one");
	c->pgmigrate = bench_kv("/proc/vmstat", "pgmigrate_success");
	c->pgdemote = bench_vmstat_sum("pgdemote_");
	c->pgpromote = bench_kv("/proc/vmstat", "pgpromote_success");
	c->pgscan = bench_kv("/proc/vmstat", "pgscan_kswapd") +
		    bench_kv("/proc/vmstat", "pgscan_direct");
	c->luf_ipis = bench_kv(luf, "ipis");
	c->luf_flushes = bench_kv(luf, "flushes");
	c->luf_tagged = bench_kv(luf, "pages_tagged");
	c->luf_flush_age = bench_kv(luf, "flush_age");
	c->luf_flush_alloc = bench_kv(luf, "flush_alloc");
	c->luf_flush_file_write = bench_kv(luf, "flush_file_write");
	c->luf_flush_reserve = bench_kv(luf, "flush_reserve");
	/* Pages luf refused for being large (tierbench: large_*). */
	c->luf_refused_large = bench_kv(luf, "refused_large");
	bench_cpu(c);
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		c->minflt = ru.ru_minflt;
		c->csw = ru.ru_nvcsw + ru.ru_nivcsw;
		c->utime = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		c->stime = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
}

/* A counter the kernel does not have stays -1: print it as "na". */
static inline void bench_print_deltas(const struct bench_counters *a,
				      const struct bench_counters *b)
{
#define D(f) do {							\
		if (a->f < 0 || b->f < 0)				\
			printf(" " #f "=na");				\
		else							\
			printf(" " #f "=%ld", b->f - a->f);		\
	} while (0)
	D(tlb_ipis); D(remote_flush); D(remote_flush_received);
	D(local_flush_all); D(local_flush_one); D(pgmigrate); D(pgdemote);
	D(pgpromote); D(pgscan); D(luf_ipis); D(luf_flushes); D(luf_tagged);
	D(luf_flush_age); D(luf_flush_alloc); D(luf_flush_file_write);
	D(luf_flush_reserve); D(luf_refused_large);
	D(minflt); D(csw);
#undef D
	printf(" utime=%.3f stime=%.3f", b->utime - a->utime, b->stime - a->stime);
	if (a->cpu_total >= 0 && b->cpu_total > a->cpu_total)
		printf(" idle_pct=%.1f", 100.0 * (b->cpu_idle - a->cpu_idle) /
		       (b->cpu_total - a->cpu_total));
}

#endif
