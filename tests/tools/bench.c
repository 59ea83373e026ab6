// SPDX-License-Identifier: GPL-2.0
/*
 * What the tools share; see bench.h for what each function does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(errno));
	exit(2);
}

long opt_num(const char *name, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s wants a whole number from %ld to %ld, not '%s'\n",
			program_invocation_short_name, name, min,
			max, arg);
		exit(2);
	}
	return v;
}

int opt_choice(const char *name, const char *arg,
	       const char *const *choices, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(arg, choices[i]))
			return i;
	fprintf(stderr, "%s: %s wants one of", program_invocation_short_name,
		name);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s %s", i ? "," : "", choices[i]);
	fprintf(stderr, "; not '%s'\n", arg);
	exit(2);
}

int bench_create(const char *path, long mib,
		 void (*fill)(void *buf, size_t len, long i, void *arg),
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

long bench_large_pages(const void *addr, long npages,
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

int bench_pin(long cpu)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % (n > 0 ? n : 1), &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * One move_pages(2) call with @flags; how many of the @n are on @node
 * after it, or -1.  A positive return means that many pages did not move
 * (busy for a moment: -EAGAIN after migrate_pages()' own retries), and
 * then do_pages_move() leaves the status of the whole batch it was moving
 * unwritten: ask where each page is instead.
 */
static long move_pages_to(pid_t pid, long n, void **pages, int *nodes,
			  int *status, int node, int flags, long *busy)
{
	long p, moved = 0, rc;

	for (p = 0; p < n; p++)
		nodes[p] = node;
	rc = syscall(SYS_move_pages, pid, n, pages, nodes, status, flags);
	if (busy)
		*busy = rc > 0 ? rc : 0;
	if (rc < 0)
		return -1;
	if (rc > 0 && syscall(SYS_move_pages, pid, n, pages, NULL, status, 0) < 0)
		return -1;
	for (p = 0; p < n; p++)
		moved += status[p] == node;
	return moved;
}

/*
 * Every page to @node, as a user's migration tool would: when some were
 * busy for a moment, the call is made twice more (the pages already there
 * cost a lookup).  Absent pages (-ENOENT) and pages that cannot move
 * (-EBUSY) are not counted.
 */
long bench_move_all(pid_t pid, long n, void **pages,
		    int *nodes, int *status, int node)
{
	long moved = -1, busy = 0, p;
	int try;

	for (try = 0; try < 3; try++) {
		moved = move_pages_to(pid, n, pages, nodes, status, node,
				      BENCH_MPOL_MF_MOVE_ALL, &busy);
		if (moved < 0 && (errno == ENOENT || errno == EBUSY)) {
			for (p = moved = 0; p < n; p++)
				moved += status[p] == node;
			break;
		}
		if (moved < 0 || !busy)
			break;
	}
	return moved;
}

long bench_move_range(void *addr, long n, long psz, int node)
{
	int nodes[n], status[n];
	void *pages[n];
	long p, moved;

	for (p = 0; p < n; p++)
		pages[p] = (char *)addr + p * psz;
	moved = move_pages_to(0, n, pages, nodes, status, node,
			      BENCH_MPOL_MF_MOVE, NULL);
	if (moved < 0)
		die("move_pages");
	return moved;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

long bench_irq(const char *name)
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

unsigned long bench_luf_value(const char *file, const char *key)
{
	char path[128];
	FILE *f;
	long v;

	snprintf(path, sizeof(path), "/sys/kernel/debug/luf/%s", file);
	f = fopen(path, "r");
	if (!f)
		die(path);
	fclose(f);
	v = bench_kv(path, key);
	if (v < 0) {
		errno = ENOENT;
		die(key);
	}
	return v;
}

long bench_kv(const char *path, const char *key)
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
 * A field of /proc/self/sched ("<name>   :   <value>", CONFIG_SCHED_DEBUG),
 * or -1.
 */
static long bench_sched(const char *name)
{
	FILE *f = fopen("/proc/self/sched", "r");
	size_t n = strlen(name);
	char line[256], *p;
	long ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, n))
			continue;
		p = line + n + strspn(line + n, " \t");
		if (*p == ':') {
			ret = strtol(p + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return ret;
}

void bench_trace(int on)
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

void bench_cpu(struct bench_counters *c)
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

long bench_vmstat_sum(const char *prefix)
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

void bench_read(struct bench_counters *c)
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
	c->luf_ipis_avoided = bench_kv(luf, "ipis_avoided");
	c->luf_flush_tick = bench_kv(luf, "flush_tick");
	c->luf_numa_held = bench_kv(luf, "numa_held");
	c->luf_numa_done = bench_kv(luf, "numa_done");
	c->luf_numa_ipis = bench_kv(luf, "numa_ipis");
	c->luf_numa_sync = bench_kv(luf, "numa_sync");
	c->numa_hint_faults = bench_kv("/proc/vmstat", "numa_hint_faults");
	/* PTEs NUMA balancing's scanner made inaccessible: how much it scanned. */
	c->numa_pte_updates = bench_kv("/proc/vmstat", "numa_pte_updates");
	/*
	 * NUMA balancing's completed passes over this process's address
	 * space: the hints per pass do not depend on how many passes a run
	 * happened to hold.
	 */
	c->numa_scans = bench_sched("mm->numa_scan_seq");
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

void bench_print_deltas(const struct bench_counters *a,
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
	D(luf_flush_reserve); D(luf_refused_large); D(luf_ipis_avoided);
	D(luf_flush_tick); D(luf_numa_held); D(luf_numa_done);
	D(luf_numa_ipis); D(luf_numa_sync); D(numa_hint_faults);
	D(numa_pte_updates); D(numa_scans);
	D(minflt); D(csw);
#undef D
	printf(" utime=%.3f stime=%.3f", b->utime - a->utime, b->stime - a->stime);
	if (a->cpu_total >= 0 && b->cpu_total > a->cpu_total)
		printf(" idle_pct=%.1f", 100.0 * (b->cpu_idle - a->cpu_idle) /
		       (b->cpu_total - a->cpu_total));
}
