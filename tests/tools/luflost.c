// SPDX-License-Identifier: GPL-2.0
/*
 * luflost: the lost-write detector.
 *
 * Reading is not enough to prove luf safe: a stale *writable* TLB entry
 * does not show old contents, it silently sends writes to a page that is
 * about to be freed.  Here writer threads keep a counter in each page of a
 * hot set and check it on every visit: a counter that is not what this
 * thread last stored means a store went through a translation to a page that
 * migration had already copied, i.e. a write was lost.
 *
 * While the writers run, a separate process migrates the hot set between
 * node 0 and node 1 with move_pages(MPOL_MF_MOVE_ALL) in chunks, and one
 * thread of the writers' process takes write permission away from their
 * pages without flushing at once, in one of these ways (-m):
 *
 *   fork	fork() in a loop: copy_present_pte() write-protects the
 *		parent's PTEs and the parent's TLBs are flushed only at the
 *		end of dup_mmap().  The hot set is at the start of a large
 *		region, so that the window (the rest of copy_page_range(),
 *		over the cold part) is long; the cold part lives on node 1,
 *		out of node 0's way.  Rare to catch: move_pages() isolates
 *		pages under the mmap lock, which the fork holds for
 *		writing, so only a batch isolated before the fork can be
 *		unmapped during it.
 *   mprotect	mprotect(PROT_READ) and back over the hot set; writers that
 *		hit the read-only window take SIGSEGV and retry.
 *   uffd-wp	UFFDIO_WRITEPROTECT on and off over the whole region
 *		(registered in write-protect mode); writers that hit it block
 *		until it is lifted.  It takes the mmap lock for reading, so
 *		migration runs during the whole window (the rest of the
 *		region after the hot set): the mode that catches a core that
 *		admits dirty PTEs under a pending write-protection.
 *   none	nothing: migration alone (the writers' entries are writable,
 *		luf never defers them).
 *
 * --large lets the region have large folios (anonymous mTHP, THP as the system
 * is configured); by default it asks for base pages (MADV_NOHUGEPAGE).
 *
 * At the end everything stops, the tool sleeps past luf's max_defer_ms
 * (--final-wait-ms)
 * so that anything deferred is flushed, and the writers check every page one
 * last time.
 *
 * Output: one line of "key=value" counters.  Exit status 1 if any write was
 * lost, 2 on a usage or setup error, 4 if the system cannot run the mode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

enum mode { M_FORK, M_MPROTECT, M_UFFD_WP, M_NONE, NR_MODES };
static const char *const mode_names[NR_MODES] = {
	"fork", "mprotect", "uffd-wp", "none",
};

static enum mode mode = M_FORK;
static int seconds = 20;
static long region_mb = 256;
static long hot_pages = 1024;
static int large_ok;
static long chunk = 64;
static int nwriters = 2;
static int wait_ms = 1500;

#define MPOL_BIND_MODE	2	/* MPOL_BIND, <linux/mempolicy.h> */

static long page_size;
static char *region;
static void **hot;		/* the hot set: the first pages of the region */
static atomic_int stop;
static atomic_long lost, visits, forks, wprotects, wp_faults;

struct writer {
	pthread_t thread;
	int cpu;
	long first, n;		/* its share of the hot set */
	uint64_t *expect;
};

static volatile uint64_t *counter(long i)
{
	return (volatile uint64_t *)hot[i];
}

/* One visit: the page must hold what this thread stored last. */
static void visit(struct writer *w, long i)
{
	volatile uint64_t *c = counter(i);
	uint64_t v = *c;

	if (v != w->expect[i] && atomic_fetch_add(&lost, 1) < 10)
		fprintf(stderr, "luflost: page %ld: counter %llu, expected %llu\n",
			i, (unsigned long long)v,
			(unsigned long long)w->expect[i]);
	w->expect[i] = v + 1;
	*c = v + 1;
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	long i;

	bench_pin(w->cpu);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (i = w->first; i < w->first + w->n; i++)
			visit(w, i);
		atomic_fetch_add_explicit(&visits, w->n, memory_order_relaxed);
	}
	return NULL;
}

/* mprotect mode: a store into the read-only window is retried. */
static void segv_handler(int sig, siginfo_t *si, void *uc)
{
	char *a = si->si_addr;

	if (a < region || a >= region + region_mb * 1048576 ||
	    mode != M_MPROTECT) {
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	atomic_fetch_add_explicit(&wp_faults, 1, memory_order_relaxed);
	sched_yield();
}

static void *forker_fn(void *arg)
{
	bench_pin((long)arg);
	while (!atomic_load(&stop)) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		atomic_fetch_add(&forks, 1);
	}
	return NULL;
}

static void *mprotect_fn(void *arg)
{
	long i;

	bench_pin((long)arg);
	while (!atomic_load(&stop)) {
		for (i = 0; i < hot_pages; i++)
			mprotect(hot[i], page_size, PROT_READ);
		for (i = 0; i < hot_pages; i++)
			mprotect(hot[i], page_size, PROT_READ | PROT_WRITE);
		atomic_fetch_add(&wprotects, 1);
	}
	return NULL;
}

static int uffd = -1;

static int uffd_wp(void *addr, unsigned long len, int on)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (unsigned long)addr, .len = len },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
}

static void *uffd_toggle_fn(void *arg)
{
	unsigned long len = region_mb * 1048576;

	bench_pin((long)arg);
	while (!atomic_load(&stop)) {
		if (uffd_wp(region, len, 1) || uffd_wp(region, len, 0)) {
			perror("luflost: UFFDIO_WRITEPROTECT");
			exit(2);
		}
		atomic_fetch_add(&wprotects, 1);
	}
	return NULL;
}

/* Drain fault messages; the toggler's un-protect wakes the writers. */
static void *uffd_drain_fn(void *arg)
{
	struct uffd_msg msg;
	struct pollfd p = { .fd = uffd, .events = POLLIN };

	while (!atomic_load(&stop)) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT) {
			atomic_fetch_add(&wp_faults, 1);
			uffd_wp((void *)(msg.arg.pagefault.address & ~(page_size - 1)),
				page_size, 0);
		}
	}
	return NULL;
}

static int uffd_setup(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP,
	};
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)region,
			   .len = region_mb * 1048576 },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		printf("userfaultfd write-protect not available: %s\n",
		       strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The migrating process: the hot set of @pid between node 0 and node 1,
 * @chunk pages per call, until killed.  Reports the pages it moved through
 * a pipe when it is told to stop (SIGTERM).
 */
static volatile sig_atomic_t mig_stop;

static void mig_term(int sig)
{
	mig_stop = 1;
}

static void migrator(pid_t pid, int out, long cpu)
{
	int *nodes = calloc(chunk, sizeof(int));
	int *status = calloc(chunk, sizeof(int));
	long moved = 0, i, node = 1;

	signal(SIGTERM, mig_term);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	bench_pin(cpu);
	while (!mig_stop) {
		for (i = 0; i < hot_pages && !mig_stop; i += chunk) {
			long n = hot_pages - i < chunk ? hot_pages - i : chunk;
			long m = bench_move_all(pid, n, hot + i, nodes, status,
						node);

			if (m < 0) {
				perror("luflost: move_pages");
				_exit(2);
			}
			moved += m;
		}
		node = !node;
	}
	if (write(out, &moved, sizeof(moved)) != sizeof(moved))
		_exit(2);
	_exit(0);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: luflost [-m fork|mprotect|uffd-wp|none] [-d seconds] [-s region-MiB]\n"
		"               [-n hot-pages] [-t writers] [--chunk pages]\n"
		"               [--final-wait-ms ms] [--large]\n");
	exit(2);
}

enum { OPT_CHUNK = 256, OPT_FINAL_WAIT_MS, OPT_LARGE };

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "chunk", required_argument, NULL, OPT_CHUNK },
	{ "final-wait-ms", required_argument, NULL, OPT_FINAL_WAIT_MS },
	{ "large", no_argument, NULL, OPT_LARGE },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct writer w[8];
	pthread_t wp_thread, drain_thread;
	int fd[2], opt, i, ncpus, mig_cpu;
	long region_pages, moved = 0, migrated, large;
	pid_t mig;

	while ((opt = getopt_long(argc, argv, "m:d:s:n:t:", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			mode = opt_choice("-m", optarg, mode_names, NR_MODES);
			break;
		case 'd': seconds = opt_num("-d", optarg, 1, 86400); break;
		case 's': region_mb = opt_num("-s", optarg, 1, 1L << 20); break;
		case 'n': hot_pages = opt_num("-n", optarg, 1, 1L << 24); break;
		case 't': nwriters = opt_num("-t", optarg, 1, 8); break;
		case OPT_CHUNK: chunk = opt_num("--chunk", optarg, 1, 1L << 24); break;
		case OPT_FINAL_WAIT_MS:
			wait_ms = opt_num("--final-wait-ms", optarg, 0, 3600000);
			break;
		case OPT_LARGE: large_ok = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();

	page_size = sysconf(_SC_PAGESIZE);
	region_pages = region_mb * 1048576 / page_size;
	if (hot_pages > region_pages)
		usage();
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 3) {
		printf("needs at least 3 CPUs, have %d\n", ncpus);
		return 4;
	}

	region = mmap(NULL, region_pages * page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("luflost: mmap");
		return 2;
	}
	if (!large_ok)
		madvise(region, region_pages * page_size, MADV_NOHUGEPAGE);
	if (region_pages > hot_pages) {
		unsigned long node1 = 1UL << 1;

		/* Best effort: without node 1 the cold part stays local. */
		syscall(SYS_mbind, region + hot_pages * page_size,
			(region_pages - hot_pages) * page_size, MPOL_BIND_MODE,
			&node1, 8 * sizeof(node1), 0);
	}
	memset(region, 0, region_pages * page_size);
	/* Pages of the hot set in large folios, before anything moves. */
	large = bench_large_pages(region, hot_pages, 1, NULL);
	hot = calloc(hot_pages, sizeof(*hot));
	for (i = 0; i < hot_pages; i++)
		hot[i] = region + i * page_size;

	if (mode == M_UFFD_WP && uffd_setup())
		return 4;
	if (mode == M_MPROTECT) {
		struct sigaction sa = { .sa_sigaction = segv_handler,
					.sa_flags = SA_SIGINFO };

		sigaction(SIGSEGV, &sa, NULL);
	}

	/* CPU 0 migrates, the write-protector has the last, writers between. */
	mig_cpu = 0;
	if (pipe(fd)) {
		perror("luflost: pipe");
		return 2;
	}
	mig = fork();
	if (mig < 0) {
		perror("luflost: fork");
		return 2;
	}
	if (mig == 0) {
		close(fd[0]);
		migrator(getppid(), fd[1], mig_cpu);
	}
	close(fd[1]);

	for (i = 0; i < nwriters; i++) {
		w[i].cpu = 1 + i % (ncpus - 2);
		w[i].first = hot_pages * i / nwriters;
		w[i].n = hot_pages * (i + 1) / nwriters - w[i].first;
		w[i].expect = calloc(hot_pages, sizeof(uint64_t));
		pthread_create(&w[i].thread, NULL, writer_fn, &w[i]);
	}
	switch (mode) {
	case M_FORK:
		pthread_create(&wp_thread, NULL, forker_fn, (void *)(long)(ncpus - 1));
		break;
	case M_MPROTECT:
		pthread_create(&wp_thread, NULL, mprotect_fn, (void *)(long)(ncpus - 1));
		break;
	case M_UFFD_WP:
		pthread_create(&drain_thread, NULL, uffd_drain_fn, NULL);
		pthread_create(&wp_thread, NULL, uffd_toggle_fn, (void *)(long)(ncpus - 1));
		break;
	default:
		break;
	}

	sleep(seconds);

	/* Migration first, so that nothing is unmapped while the rest stops. */
	kill(mig, SIGTERM);
	if (read(fd[0], &moved, sizeof(moved)) != sizeof(moved))
		moved = -1;
	waitpid(mig, NULL, 0);
	atomic_store(&stop, 1);
	if (mode != M_NONE)
		pthread_join(wp_thread, NULL);
	if (mode == M_UFFD_WP)
		pthread_join(drain_thread, NULL);
	for (i = 0; i < nwriters; i++)
		pthread_join(w[i].thread, NULL);

	/* Past max_defer_ms everything deferred is flushed: last check. */
	usleep(wait_ms * 1000L);
	for (i = 0; i < nwriters; i++) {
		long p;

		for (p = w[i].first; p < w[i].first + w[i].n; p++)
			if (*counter(p) != w[i].expect[p] &&
			    atomic_fetch_add(&lost, 1) < 10) {
				fprintf(stderr, "luflost: page %ld: final counter %llu, expected %llu\n",
					p, (unsigned long long)*counter(p),
					(unsigned long long)w[i].expect[p]);
			}
	}

	migrated = moved;
	printf("mode=%s seconds=%d hot=%ld large=%ld chunk=%ld writers=%d migrated=%ld visits=%ld forks=%ld wprotects=%ld wp_faults=%ld lost=%ld\n",
	       mode_names[mode], seconds, hot_pages, large, chunk, nwriters,
	       migrated,
	       atomic_load(&visits), atomic_load(&forks),
	       atomic_load(&wprotects), atomic_load(&wp_faults),
	       atomic_load(&lost));
	if (migrated <= 0) {
		fprintf(stderr, "luflost: nothing migrated\n");
		return 2;
	}
	return atomic_load(&lost) ? 1 : 0;
}
