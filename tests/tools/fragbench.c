// SPDX-License-Identifier: GPL-2.0
/*
 * fragbench: does luf leave the fast tier fragmented?  Pages whose flush
 * luf deferred are freed with a tag; the question is whether, once every
 * flush is done (max_defer_ms later), node 0 has as many high-order free
 * blocks, and serves as many transparent huge pages, as without luf.
 *
 *   fragbench -c -f FILE -s MiB	create FILE (run once, before)
 *   fragbench -f FILE [--wait-ms ms] [--thp-mib MiB] [--atomic N|N%]
 *
 * One run, with all its memory bound to node 0:
 *  1. drop the page cache and compact node 0, so that every run starts
 *     from the same state;
 *  2. read FILE through a read-only mapping (clean, read-only PTEs: what
 *     luf defers; threads on the other CPUs keep reading it, so that the
 *     unmaps need remote flushes; read in file order, so that neighbouring pages of the
 *     file are mostly neighbours in memory too), then migrate every other
 *     page to node 1 with move_pages(2): node 0's copies are freed, with
 *     luf's tag when it deferred; a child process drops the pages in
 *     between from the page cache: freed untagged, by a task that deferred
 *     nothing, right beside the tagged ones;
 *  3. unmap and drop the file, wait --wait-ms ms (default 1500: more than luf's
 *     default max_defer_ms, after which no flush is outstanding);
 *  4. count node 0's free blocks of order >= 9 (/proc/buddyinfo, in units
 *     of order 9: hi_blocks) and its free pages;
 *  5. fault in --thp-mib MiB (default 128) of anonymous memory with
 *     MADV_HUGEPAGE, one touch per 2 MiB, and count the huge pages the
 *     faults got (thp_fault_alloc, thp_fault_fallback) and the direct
 *     compactions they ran (compact_stall, compact_success, compact_fail);
 *     --thp-mib 0 skips this step;
 *  6. with --atomic: a burst of that many GFP_ATOMIC page allocations on node 0
 *     (--atomic N% for N percent of the free pages counted in step 4), made by
 *     the luf_atomic test module (tests/bench/atomicmod), which prints what
 *     failed and what came from node 1; luf's flush_parked counts the times
 *     the burst had to set tagged pages aside, flush_reserve the flushes
 *     the reserve started.  With --wait-ms 0 the burst comes right after the
 *     demotion, while its flushes are pending.
 *
 * Prints one line of key=value: frag_migrated, frag_hi_blocks,
 * frag_free_pages, luf_tagged (pages luf tagged during step 2), then thp_alloc, thp_fallback, thp_pct, compact_stall,
 * compact_success, compact_fail (unless --thp-mib 0), then luf_pending (was the
 * migration's flush still pending when the burst began), atomic_pages,
 * atomic_failed, atomic_remote, atomic_us, luf_parked, luf_reserve,
 * luf_alloc (with --atomic; the last three count from the start of the run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

#define MPOL_BIND_	2
#define HPAGE		(2UL << 20)
#define READERS		3

static volatile char *map;
static long map_pages, psz;
static _Atomic int stop;

static void write_file(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(file);
	close(fd);
}

/*
 * Node 0's free memory from /proc/buddyinfo, all zones: blocks of order
 * >= 9 counted in order-9 units, and free pages.
 */
static void node0_free(long *hi, long *pages)
{
	FILE *f = fopen("/proc/buddyinfo", "r");
	char line[512];

	*hi = *pages = 0;
	if (!f)
		die("/proc/buddyinfo");
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		int node, off, order;
		long n;

		if (sscanf(p, "Node %d, zone %*s%n", &node, &off) != 1 || node)
			continue;
		p += off;
		for (order = 0; sscanf(p, "%ld%n", &n, &off) == 1; order++) {
			p += off;
			*pages += n << order;
			if (order >= 9)
				*hi += n << (order - 9);
		}
	}
	fclose(f);
}

/* Keep the mapping in use on CPU @arg while it is migrated. */
static void *reader(void *arg)
{
	volatile long sum = 0;
	long p;

	bench_pin((long)arg);
	while (!atomic_load(&stop))
		for (p = 0; p < map_pages && !atomic_load(&stop); p += 64)
			sum += map[p * psz];
	return NULL;
}

/* One letter per MiB. */
static void fill_letter(void *buf, size_t len, long i, void *arg)
{
	memset(buf, 'a' + i % 26, len);
}

static void create(const char *file, long mib)
{
	if (bench_create(file, mib, fill_letter, NULL))
		die(file);
}

/*
 * Read @file in, move its even pages to node 1, have a child drop the odd
 * ones, drop the rest.  Returns the pages moved.
 */
static long fill_and_migrate(const char *file)
{
	long n, p, moved;
	pthread_t th[READERS];
	volatile char *m;
	struct stat st;
	void **pages;
	int *nodes, *status;
	long sum = 0;
	pid_t child;
	int fd = open(file, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(file);
	n = st.st_size / psz;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	m = mmap(NULL, n * psz, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	pages = calloc(n, sizeof(*pages));
	nodes = calloc(n, sizeof(*nodes));
	status = calloc(n, sizeof(*status));
	for (p = 0; p < n; p++)
		sum += m[p * psz];
	map = m;
	map_pages = n;
	atomic_store(&stop, 0);
	for (p = 0; p < READERS; p++)
		pthread_create(&th[p], NULL, reader, (void *)(p + 1));
	for (p = 0; p < n / 2; p++)
		pages[p] = (char *)m + 2 * p * psz;
	moved = bench_move_all(0, n / 2, pages, nodes, status, 1);
	if (moved < 0)
		die("move_pages");
	atomic_store(&stop, 1);
	for (p = 0; p < READERS; p++)
		pthread_join(th[p], NULL);
	munmap((void *)m, n * psz);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		for (p = 1; p < n; p += 2)
			posix_fadvise(fd, p * psz, psz, POSIX_FADV_DONTNEED);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	free(pages);
	free(nodes);
	free(status);
	return moved + (sum == 42);
}

/* Fault in @mib of MADV_HUGEPAGE memory; it is unmapped again after. */
static void thp_faults(long mib)
{
	size_t len = (size_t)mib << 20;
	char *m = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;
	size_t off;

	if (m == MAP_FAILED)
		die("mmap");
	a = (char *)(((uintptr_t)m + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(a, len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	for (off = 0; off < len; off += HPAGE)
		a[off] = 1;
	munmap(m, len + HPAGE);
}

/* A burst through the luf_atomic module; prints its result line. */
static void atomic_burst(long n, long parked, long reserve, long alloc)
{
	const char *f = "/sys/kernel/debug/luf_atomic/burst";
	const char *luf = "/sys/kernel/debug/luf/stats";
	char buf[256];
	ssize_t len;
	int fd;

	/* Whether the migration's flush was still pending when it began. */
	if (parked >= 0)
		printf(" luf_pending=%d",
		       bench_kv("/sys/kernel/debug/luf/state", "gen_deferred") !=
		       bench_kv("/sys/kernel/debug/luf/state", "gen_flushed"));
	snprintf(buf, sizeof(buf), "%ld", n);
	write_file(f, buf);
	fd = open(f, O_RDONLY);
	if (fd < 0 || (len = read(fd, buf, sizeof(buf) - 1)) <= 0)
		die(f);
	close(fd);
	buf[len] = 0;
	buf[strcspn(buf, "\n")] = 0;
	printf(" %s", buf);
	/* luf not loaded: -1 (na). */
	if (parked < 0)
		printf(" luf_parked=na");
	else
		printf(" luf_parked=%ld", bench_kv(luf, "flush_parked") - parked);
	if (reserve < 0)
		printf(" luf_reserve=na");
	else
		printf(" luf_reserve=%ld",
		       bench_kv(luf, "flush_reserve") - reserve);
	/* Allocations that could flush, the burst's own array included. */
	if (alloc >= 0)
		printf(" luf_alloc=%ld", bench_kv(luf, "flush_alloc") - alloc);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fragbench -c -f FILE -s MiB\n"
		"       fragbench -f FILE [--wait-ms ms] [--thp-mib MiB]\n"
		"                 [--atomic pages|pct%%]\n");
	exit(2);
}

enum { OPT_WAIT_MS = 256, OPT_THP_MIB, OPT_ATOMIC };

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "wait-ms", required_argument, NULL, OPT_WAIT_MS },
	{ "thp-mib", required_argument, NULL, OPT_THP_MIB },
	{ "atomic", required_argument, NULL, OPT_ATOMIC },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	long mib = 0, wait_ms = 1500, thp_mib = 128, hi, free_pages, moved;
	long atomic_n = 0, tagged, parked, reserve, alloc;
	int atomic_pct = 0;
	char *end;
	long a0, f0, s0, ok0, fail0;
	unsigned long node0 = 1;
	const char *file = NULL;
	int do_create = 0, c;

	while ((c = getopt_long(argc, argv, "cf:s:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'c':
			do_create = 1;
			break;
		case 'f':
			file = optarg;
			break;
		case 's':
			mib = opt_num("-s", optarg, 1, 1L << 20);
			break;
		case OPT_WAIT_MS:
			wait_ms = opt_num("--wait-ms", optarg, 0, 3600000);
			break;
		case OPT_THP_MIB:
			thp_mib = opt_num("--thp-mib", optarg, 0, 1L << 20);
			break;
		case OPT_ATOMIC:
			atomic_n = strtol(optarg, &end, 10);
			if (*end == '%' && !end[1] && end != optarg)
				atomic_pct = 1;
			else if (*end || end == optarg)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !file || atomic_n < 0 ||
	    (atomic_pct && atomic_n > 100) ||
	    (do_create && mib < 1))
		usage();
	if (do_create) {
		create(file, mib);
		return 0;
	}

	psz = sysconf(_SC_PAGESIZE);
	if (syscall(SYS_set_mempolicy, MPOL_BIND_, &node0, 8 * sizeof(node0)))
		die("set_mempolicy");
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	write_file("/sys/devices/system/node/node0/compact", "1");

	tagged = bench_kv("/sys/kernel/debug/luf/stats", "pages_tagged");
	parked = bench_kv("/sys/kernel/debug/luf/stats", "flush_parked");
	reserve = bench_kv("/sys/kernel/debug/luf/stats", "flush_reserve");
	alloc = bench_kv("/sys/kernel/debug/luf/stats", "flush_alloc");
	moved = fill_and_migrate(file);
	if (tagged >= 0)
		tagged = bench_kv("/sys/kernel/debug/luf/stats", "pages_tagged") - tagged;
	usleep(wait_ms * 1000);
	node0_free(&hi, &free_pages);

	printf("frag_migrated=%ld frag_hi_blocks=%ld frag_free_pages=%ld",
	       moved, hi, free_pages);
	if (tagged < 0)
		printf(" luf_tagged=na");
	else
		printf(" luf_tagged=%ld", tagged);
	if (thp_mib) {
		a0 = bench_kv("/proc/vmstat", "thp_fault_alloc");
		f0 = bench_kv("/proc/vmstat", "thp_fault_fallback");
		s0 = bench_kv("/proc/vmstat", "compact_stall");
		ok0 = bench_kv("/proc/vmstat", "compact_success");
		fail0 = bench_kv("/proc/vmstat", "compact_fail");
		thp_faults(thp_mib);
		a0 = bench_kv("/proc/vmstat", "thp_fault_alloc") - a0;
		f0 = bench_kv("/proc/vmstat", "thp_fault_fallback") - f0;
		printf(" thp_alloc=%ld thp_fallback=%ld thp_pct=%.1f compact_stall=%ld compact_success=%ld compact_fail=%ld",
		       a0, f0, a0 + f0 ? 100.0 * a0 / (a0 + f0) : 0.0,
		       bench_kv("/proc/vmstat", "compact_stall") - s0,
		       bench_kv("/proc/vmstat", "compact_success") - ok0,
		       bench_kv("/proc/vmstat", "compact_fail") - fail0);
	}
	if (atomic_pct)
		atomic_n = free_pages * atomic_n / 100;
	if (atomic_n)
		atomic_burst(atomic_n, parked, reserve, alloc);
	printf("\n");
	return 0;
}
