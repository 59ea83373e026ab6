// SPDX-License-Identifier: GPL-2.0
/*
 * lufwp: stores after a write-protection returned, while a NUMA hinting
 * pass's flush is held.
 *
 * With luf's numa source on, a hinting pass makes PTEs PROT_NONE and luf
 * holds its flush: each CPU drops its entries at its next tick or switch.
 * Until then a CPU that had an entry writable may still store through it.
 * If the process then write-protects those pages (-m mprotect:
 * mprotect(PROT_READ); -m uffd-wp: UFFDIO_WRITEPROTECT), the change from
 * PROT_NONE to read-only changes nothing that x86 flushes
 * (pte_needs_flush() of a PTE that was not present), so the gather has no
 * range of its own.  What makes it flush is upstream's rule for parallel
 * gathers: the held pass keeps tlb_flush_pending raised, and
 * tlb_finish_mmu() flushes the whole mm.  A kernel that lets such an
 * empty gather skip that flush (the debug bit LUF_DEBUG_EMPTY_ANY, which
 * widens the rule that spares empty hinting passes) returns from the
 * write-protection while a CPU still writes: mprotect() did not take
 * effect, and userfaultfd's write tracking (snapshots, live migration)
 * misses the write.
 *
 * A writer thread, pinned to one CPU, stores a counter into each page of a
 * small region in a loop.  The main thread, pinned to another, repeats:
 * wait until the writer has stored to every page twice; a hinting pass over
 * the region through the debug build of luf (debugfs debug_numa_pass);
 * the write-protection; a copy of the pages; a sleep of --wait-us, which
 * lets the writer's CPU run (the sleeping CPU idles); a comparison.  A
 * page that changed after the write-protection returned is a stale store.
 * The writer takes the fault (SIGSEGV, or SIGBUS from userfaultfd) and
 * waits in the handler until the main thread has compared and lifted the
 * protection.
 *
 * Output: one line of key=value counters.  Exit status 1 if any store
 * landed after a write-protection returned, 2 on a usage or setup error,
 * 4 if the system cannot run the mode (no debug build of luf, no
 * userfaultfd write-protection).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

enum mode { M_MPROTECT, M_UFFD_WP, NR_MODES };
static const char *const mode_names[NR_MODES] = { "mprotect", "uffd-wp" };

static const char numa_pass_knob[] = "/sys/kernel/debug/luf/debug_numa_pass";

static enum mode mode = M_MPROTECT;
static int seconds = 5;
static long npages = 16;
static long wait_us = 2000;
static long page_size;
static volatile uint64_t *region;
static int uffd = -1;

/* The writer's state, each word on its own cache line. */
static _Alignas(64) atomic_ulong sweeps;	/* sweeps over every page */
static _Alignas(64) atomic_int open_gate = 1;	/* 0 while protected */
static _Alignas(64) atomic_ulong faults;	/* signals taken */
static _Alignas(64) atomic_int stop;

static volatile uint64_t *word(long i)
{
	return region + i * (page_size / sizeof(uint64_t));
}

static pthread_t writer;

/*
 * The writer's store faulted in the region: the protection is in effect.
 * Wait until the main thread has compared and lifted it, then return and
 * store again.  Any other fault is a bug: die of it.
 */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char *a = si->si_addr, *r = (char *)region;

	if (!pthread_equal(pthread_self(), writer) || a < r ||
	    a >= r + npages * page_size) {
		signal(sig, SIG_DFL);
		return;
	}
	atomic_fetch_add(&faults, 1);
	while (!atomic_load(&open_gate) && !atomic_load(&stop))
		;
}

static void *writer_fn(void *arg)
{
	uint64_t n = 0;
	long i;

	if (bench_pin((long)arg))
		die("writer: sched_setaffinity");
	while (!atomic_load(&stop)) {
		for (i = 0; i < npages; i++)
			*word(i) = ++n;
		atomic_fetch_add(&sweeps, 1);
	}
	return NULL;
}

static int uffd_wp(int on)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (unsigned long)region,
			   .len = npages * page_size },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
}

/* Registered for write-protection only; a WP fault raises SIGBUS. */
static int uffd_setup(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_SIGBUS,
	};
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)region,
			   .len = npages * page_size },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};

	/* Kernel faults are not ours: no need for unprivileged_userfaultfd. */
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK |
		       UFFD_USER_MODE_ONLY);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		printf("userfaultfd write-protect not available: %s\n",
		       strerror(errno));
		return -1;
	}
	if (!(reg.ioctls & (1ULL << _UFFDIO_WRITEPROTECT))) {
		printf("userfaultfd: no UFFDIO_WRITEPROTECT for anonymous memory\n");
		return -1;
	}
	return 0;
}

static void protect(int on)
{
	int ret;

	if (mode == M_MPROTECT)
		ret = mprotect((void *)region, npages * page_size,
			       on ? PROT_READ : PROT_READ | PROT_WRITE);
	else
		ret = uffd_wp(on);
	if (ret)
		die(on ? "write-protect" : "lift the write-protection");
}

/* The debug build's hinting pass over the region, now. */
static void numa_pass(int fd)
{
	char line[64];
	int n;

	n = snprintf(line, sizeof(line), "%d %lu %lu", (int)getpid(),
		     (unsigned long)region, npages * page_size);
	if (pwrite(fd, line, n, 0) != n)
		die(numa_pass_knob);
}

/* Until the writer has stored to every page twice since @from. */
static void wait_sweeps(unsigned long from)
{
	double limit = bench_now() + 10;

	while (atomic_load(&sweeps) < from + 2) {
		if (bench_now() > limit) {
			fprintf(stderr, "lufwp: the writer made no progress in 10 s\n");
			exit(2);
		}
		usleep(100);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: lufwp [-m mprotect|uffd-wp] [-d seconds] [-n pages]\n"
		"             [--wait-us us]\n");
	exit(2);
}

enum { OPT_WAIT_US = 256 };

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "wait-us", required_argument, NULL, OPT_WAIT_US },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	long rounds = 0, stale_rounds = 0, stale_pages = 0, faulted = 0, i;
	struct sigaction sa = { .sa_flags = SA_SIGINFO };
	uint64_t *copy;
	double end;
	int opt, fd;

	while ((opt = getopt_long(argc, argv, "m:d:n:", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			mode = opt_choice("-m", optarg, mode_names, NR_MODES);
			break;
		case 'd': seconds = opt_num("-d", optarg, 1, 86400); break;
		case 'n': npages = opt_num("-n", optarg, 1, 512); break;
		case OPT_WAIT_US:
			wait_us = opt_num("--wait-us", optarg, 0, 1000000);
			break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("lufwp needs 2 CPUs\n");
		return 4;
	}
	fd = open(numa_pass_knob, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("%s: %s (needs the debug build of luf)\n",
		       numa_pass_knob, strerror(errno));
		return 4;
	}

	page_size = sysconf(_SC_PAGESIZE);
	region = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("mmap");
	/*
	 * Base pages: one PTE per page, as the pass and the test expect
	 * (EINVAL: a kernel without THP has only those).
	 */
	if (madvise((void *)region, npages * page_size, MADV_NOHUGEPAGE) &&
	    errno != EINVAL)
		die("madvise");
	for (i = 0; i < npages; i++)
		*word(i) = 0;
	if (mode == M_UFFD_WP && uffd_setup())
		return 4;
	copy = calloc(npages, sizeof(*copy));
	if (!copy)
		die("calloc");

	sa.sa_sigaction = on_fault;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		die("sigaction");
	if (bench_pin(0))
		die("sched_setaffinity");
	if (pthread_create(&writer, NULL, writer_fn, (void *)1L))
		die("pthread_create");

	srandom(getpid());
	end = bench_now() + seconds;
	while (bench_now() < end) {
		unsigned long f0;
		long changed = 0;

		wait_sweeps(atomic_load(&sweeps));
		/*
		 * At a random point of the writer CPU's tick period: a round
		 * is seen only if the writer's CPU runs the writer between
		 * the protection and its next tick (which completes the held
		 * flush), and a round in step with that tick would never be.
		 */
		usleep(random() % 4000);
		atomic_store(&open_gate, 0);
		numa_pass(fd);
		f0 = atomic_load(&faults);
		protect(1);
		for (i = 0; i < npages; i++)
			copy[i] = *word(i);
		if (wait_us)
			usleep(wait_us);
		for (i = 0; i < npages; i++)
			changed += *word(i) != copy[i];
		rounds++;
		if (changed) {
			stale_rounds++;
			stale_pages += changed;
		}
		if (atomic_load(&faults) != f0)
			faulted++;
		protect(0);
		atomic_store(&open_gate, 1);
	}
	atomic_store(&stop, 1);
	pthread_join(writer, NULL);

	printf("mode=%s rounds=%ld faulted=%ld stale_rounds=%ld stale_pages=%ld sweeps=%lu\n",
	       mode_names[mode], rounds, faulted, stale_rounds, stale_pages,
	       atomic_load(&sweeps));
	return stale_rounds ? 1 : 0;
}
