// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress: migrate read-only pages under readers and report stale reads.
 *
 * Readers, one per CPU, spin over pages whose contents they know; a migrator
 * ping-pongs the pages between two NUMA nodes with move_pages(2); a hog
 * allocates, poisons and frees memory so that freed pages are reused at
 * once.  A reader that sees anything but the expected contents read through a
 * stale TLB entry: after migration the old page was freed and reused (or,
 * with a writer, the new page changed while the old one was still visible).
 *
 * Every 64-bit word i of page p holds sig(p, i) + epoch.  Readers load the
 * published epoch E before reading a word; the word must decode to page p
 * with an epoch in [E, newest].  Poison from the hog, another page's
 * contents or an epoch older than E is a violation.
 *
 * Modes (-m), each described in the file that implements it:
 *   anon.c	anon, shmem, cow, mprotect, mprotect-shared, force, excl
 *   file.c	file, write, truncate, and the timing of write mode
 *		(--quiet-ms, --pass-bound, --aio)
 *   split.c	split
 *   fuse.c	fuse-store, fuse-inval
 *   uffd.c	uffd-move, uffd-copy
 *   device.c	device
 *   reclaim.c	the reclaim passes of --source pageout; how uffd-copy and
 *		device let reclaim discard their pages
 *
 * Unmapping source (--source):
 *   migrate	move_pages(2) ping-pong between node 0 and node 1 (default)
 *   pageout	madvise(MADV_PAGEOUT): reclaim; file modes on a real
 *		filesystem (-f), whose clean pages need no swap
 *
 * Reuse (--hog-cpu cpu, --pread):
 *   --hog-cpu	pin the hog and the migrator to this CPU (give the readers
 *		the others, -t): the pages a migration frees go to that
 *		CPU's free lists, where the hog allocates next
 *   --pread	file modes: the hog process also reads the file with
 *		pread(2) in a loop, a page-cache lookup that holds a
 *		reference to each page for a moment, as any reader of the
 *		file does while its pages migrate
 *
 * --thp-head (excl, -n a multiple of 1024): the cold half in 2 MiB THPs,
 * fresh each round, mapped by read-only PTEs the first of which userfaultfd
 * write-protects, see anon.c; thp_rounds: the rounds in which they were
 * so at the last pass, on node 0 (excl_round()).
 *
 * Allocator exits (--soft-offline pages, anon mode, root): after each
 * migration pass the frame one page left behind is soft-offlined through
 * /sys/devices/system/memory/soft_offline_page, at most this many in all
 * (each one is lost to the guest for good): memory failure takes it off
 * the free lists with take_page_off_buddy() while the readers may still
 * hold it.  With 64 KiB mTHP the frames leave as order-4 blocks, which skip
 * the per-CPU lists and reach the buddy lists at once.
 *
 * Output: one line of "key=value" counters (large: pages of the area in
 * large folios at the start, -1 if /proc/kpageflags cannot be read;
 * uffd_moved: pages put in place by UFFDIO_COPY or UFFDIO_MOVE, or taken by
 * the device; kept:
 * uffd-copy pages and device passes that reclaim did not discard, which
 * test nothing); exit status 1 if any violation was seen, 2 on a usage or
 * setup error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lufstress.h"

#define MAGIC		0x6c75660000000000ULL	/* "luf" */
#define POISON		0xdeadbeefdeadbeefULL

/* Each mode: its name, its set-up and its writer's round (none: no writer). */
static const struct {
	const char *name;
	void (*setup)(size_t len);
	enum round (*round)(uint64_t e, uint64_t *buf);
} modes[NR_MODES] = {
	[M_ANON] = { "anon", anon_setup },
	[M_FILE] = { "file", file_setup },
	[M_SHMEM] = { "shmem", shmem_setup },
	[M_SPLIT] = { "split", split_setup },
	[M_WRITE] = { "write", file_setup, write_round },
	[M_TRUNCATE] = { "truncate", file_setup, truncate_round },
	[M_COW] = { "cow", anon_setup, cow_round },
	[M_MPROTECT] = { "mprotect", anon_setup, mprotect_round },
	[M_MPROTECT_SHARED] = { "mprotect-shared", file_setup,
				mprotect_shared_round },
	[M_UFFD_MOVE] = { "uffd-move", uffd_move_setup, uffd_move_round },
	[M_FUSE_STORE] = { "fuse-store", fuse_setup, fuse_store_round },
	[M_FUSE_INVAL] = { "fuse-inval", fuse_setup, fuse_inval_round },
	[M_FORCE] = { "force", anon_setup, force_round },
	[M_UFFD_COPY] = { "uffd-copy", uffd_copy_setup, uffd_copy_round },
	[M_DEVICE] = { "device", device_setup, device_round },
	[M_EXCL] = { "excl", anon_setup, excl_round },
};

enum mode mode = M_ANON;
long npages = 256;
long passes = 0;			/* 0: run for -d seconds */
static int seconds = 10;
static int hog_mib = 64;
int nreaders;
long page_size;
int fd = -1;
const char *path = "/dev/shm/lufstress";
int pageout;

uint64_t *area;
uint64_t *warea;
struct shared *shm;
static _Atomic long violations, reads, moves_failed, hogged;
_Atomic long migrated, npasses;
static _Atomic uint64_t first_bad, first_bad_expected;
static _Atomic long sigbus, early;
_Atomic long moves, in_window, kept;
long quiet_ms;
static int pass_bound, use_pread;
int use_aio, split_no_zero, use_move;
int thp_head;
_Atomic long thp_rounds;
static long hog_cpu = -1;
static long soft_offline;		/* --soft-offline: pages left to offline */
static _Atomic long soft_offlined, soft_offline_failed;
/*
 * The TLB shootdowns (/proc/interrupts "TLB:", all CPUs) from the first
 * migration pass to the last: what the passes cost, without the threads'
 * creation and exit or the teardown's unmaps, which luf does not touch and
 * which would blur a comparison of luf off and on.  -1: not measured.
 * With BENCH_TRACE_WINDOW set, tracing is on over the same window
 * (bench_trace()), so that the flushes traced are the passes' too.
 */
static long pass_ipis = -1;
pid_t child = -1;
static pid_t hog_pid = -1;
static _Atomic long *hog_rounds;
static __thread sigjmp_buf reader_jmp;

static uint64_t sig(long p, long i)
{
	return MAGIC ^ ((uint64_t)p << 24) ^ (uint64_t)i;
}

/* Contents are at least epoch @e from now on. */
void publish(uint64_t e)
{
	atomic_store(&shm->epoch_pass, atomic_load(&shm->pass_started));
	atomic_store_explicit(&shm->epoch, e, memory_order_release);
}

/*
 * fork(), for a child that runs until it is killed (the anon child, the hog,
 * mprotect-shared's writer): it must not outlive lufstress when something
 * ends it early (a die() in another thread), spinning on for hours.
 */
pid_t fork_child(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0 &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent))
		_exit(1);
	return pid;
}

void fill_page(uint64_t *page, long p, uint64_t ep)
{
	long i, n = page_size / 8;

	for (i = 0; i < n; i++)
		page[i] = sig(p, i) + ep;
}

/* Is every byte of @v the same byte of @a or of @b? */
static int bytes_from(uint64_t v, uint64_t a, uint64_t b)
{
	int k;

	for (k = 0; k < 64; k += 8) {
		uint64_t m = 0xffULL << k;

		if ((v & m) != (a & m) && (v & m) != (b & m))
			return 0;
	}
	return 1;
}

/*
 * May a reader that saw epochs e1 (before) and e2 (after its load) read @v
 * from word i of page p?  The contents may be one epoch ahead of what was
 * published (the writer is at work), never behind.  In truncate mode a page
 * may also read zero (truncated, not yet refilled), in device mode too (the
 * device's contents).  A word the writer is
 * copying in (pwrite) may be torn between two acceptable values.
 */
static int acceptable(uint64_t v, long p, long i, uint64_t e1, uint64_t e2)
{
	uint64_t base = sig(p, i), a, b;

	if (mode == M_SPLIT && (p & 1) && !split_no_zero)
		return v == 0;
	if (v - base >= e1 && v - base <= e2 + 1)
		return 1;
	if ((mode == M_TRUNCATE || mode == M_DEVICE) && v == 0)
		return 1;
	if (mode != M_TRUNCATE && mode != M_WRITE && mode != M_FUSE_STORE &&
	    mode != M_FUSE_INVAL && mode != M_FORCE && mode != M_UFFD_COPY)
		return 0;
	for (a = e1; a <= e2 + 1; a++) {
		if (mode == M_TRUNCATE && bytes_from(v, base + a, 0))
			return 1;
		for (b = a + 1; b <= e2 + 1; b++)
			if (bytes_from(v, base + a, base + b))
				return 1;
	}
	return 0;
}

/*
 * A truncated file raises SIGBUS beyond its end until it is extended again:
 * the reader restarts its sweep.
 */
static void on_sigbus(int sig)
{
	atomic_fetch_add(&sigbus, 1);
	siglongjmp(reader_jmp, 1);
}

/*
 * Truncate with --source pageout: the writer reclaims every page and
 * truncates the file while the readers touch nothing of it, so that none of them faults a
 * page back in between (truncation would zap that PTE, and its flush would
 * take the stale entries of the others with it).  They keep what their TLBs
 * hold, and read on once the new epoch is out.
 */
static void hold_still(void)
{
	atomic_fetch_add(&shm->paused, 1);
	while (atomic_load_explicit(&shm->pause, memory_order_acquire) &&
	       !atomic_load_explicit(&shm->stop, memory_order_relaxed))
		;
	atomic_fetch_sub(&shm->paused, 1);
}

/*
 * Split mode: while hold_gen is odd, say so (hold_ack) and wait for it to
 * change.  A reader acknowledges only here, between two reads, so once
 * every reader has acknowledged a hold, none reads until it ends: not even
 * at the end of the run (the refiller ends every hold it begins).
 */
static void split_hold(long cpu)
{
	long g = atomic_load_explicit(&shm->hold_gen, memory_order_acquire);

	if (!(g & 1))
		return;
	atomic_store_explicit(&shm->hold_ack[cpu], g, memory_order_release);
	while (atomic_load_explicit(&shm->hold_gen, memory_order_acquire) == g)
		;
}

/*
 * uffd-copy, device: called before each sweep.  A reader that sees a new
 * hold sweeps the whole area once more before it holds still, so that its
 * TLB caches every page again after the writer's MADV_FREE flushed them.
 */
static void sweep_hold(long cpu, volatile long *seen)
{
	long g = atomic_load_explicit(&shm->hold_gen, memory_order_acquire);

	if (!(g & 1))
		return;
	if (*seen != g) {
		*seen = g;
		return;
	}
	split_hold(cpu);
}

/*
 * Begin a hold and wait until every reader holds still.  At the end of the
 * run a reader may have left its loop without holding: then the hold is
 * ended at once and 0 returned.  Otherwise end it with release_readers().
 */
int hold_readers(void)
{
	long g = atomic_fetch_add(&shm->hold_gen, 1) + 1, i;

	for (i = 0; i < nreaders; i++)
		while (atomic_load_explicit(&shm->hold_ack[i],
					    memory_order_acquire) != g) {
			if (atomic_load(&shm->stop)) {
				atomic_fetch_add(&shm->hold_gen, 1);
				return 0;
			}
			usleep(100);
		}
	return 1;
}

void release_readers(void)
{
	atomic_fetch_add_explicit(&shm->hold_gen, 1, memory_order_release);
}

static void *reader(void *arg)
{
	long cpu = (long)arg, n = page_size / 8;
	volatile long i = cpu * 61, seen = 0;

	bench_pin(cpu);
	/*
	 * uffd-move: a fault means the pages are away, as they should be;
	 * wait for them to come back rather than fault on and on.
	 */
	if (sigsetjmp(reader_jmp, 1)) {
		if (mode == M_UFFD_MOVE)
			while ((atomic_load(&shm->away) & 1) &&
			       !atomic_load(&shm->stop))
				usleep(200);
		/* uffd-copy: a missing page is back with the next copy. */
		else if (mode == M_UFFD_COPY)
			usleep(200);
	}
	while (!atomic_load_explicit(&shm->stop, memory_order_relaxed)) {
		long p;

		if (mode == M_UFFD_COPY || mode == M_DEVICE)
			sweep_hold(cpu, &seen);

		for (p = 0; p < (mode == M_EXCL ? npages / 2 : npages); p++) {
			uint64_t e1;
			long ep, done, away;

			if (atomic_load_explicit(&shm->pause, memory_order_relaxed))
				hold_still();
			if (mode == M_SPLIT)
				split_hold(cpu);
			e1 = atomic_load_explicit(&shm->epoch, memory_order_acquire);
			ep = atomic_load_explicit(&shm->epoch_pass, memory_order_relaxed);
			done = atomic_load_explicit(&shm->pass_done, memory_order_acquire);
			away = atomic_load_explicit(&shm->away, memory_order_acquire);
			uint64_t v = ((volatile uint64_t *)area)[p * n + i];
			uint64_t e2 = atomic_load_explicit(&shm->epoch, memory_order_acquire);

			/*
			 * uffd-move: the whole read fell while the pages were
			 * away (nothing is mapped here), yet it returned.
			 */
			if ((away & 1) &&
			    atomic_load_explicit(&shm->away, memory_order_acquire) == away) {
				if (atomic_fetch_add(&violations, 1) == 0) {
					first_bad = v;
					first_bad_expected = 0;
				}
				goto next;
			}
			if (!acceptable(v, p, i, e1, e2)) {
				/*
				 * --pass-bound: without luf a stale entry outlives the
				 * write until the reclaim pass under way ends
				 * and flushes; only a read that began after
				 * that counts.
				 */
				if (pass_bound && (e1 != e2 || done < ep)) {
					atomic_fetch_add(&early, 1);
					goto next;
				}
				if (atomic_fetch_add(&violations, 1) == 0) {
					first_bad = v;
					first_bad_expected = sig(p, i) + e1;
				}
			}
next:
			i = (i + 1) % n;
		}
		atomic_fetch_add_explicit(&reads, npages, memory_order_relaxed);
	}
	return NULL;
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The page frame @a maps now (root reads /proc/self/pagemap), or 0. */
static uint64_t pfn_of(const void *a)
{
	static int pm = -1;
	uint64_t e;

	if (pm < 0)
		pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0 || pread(pm, &e, 8, (off_t)((uintptr_t)a / page_size) * 8) != 8 ||
	    !(e >> 63))
		return 0;
	return e & ((1ULL << 55) - 1);
}

/*
 * --soft-offline: the frame a page left behind in the pass that just moved
 * it, free now and its flush deferred while the readers still hold it,
 * goes to memory failure's soft offlining, as a host's error handling
 * might send it: take_page_off_buddy() is an exit from the allocator too.
 * Each success leaks the page for good, hence the budget.  A frame that
 * was reused meanwhile (or sits on a per-CPU list) is refused; that only
 * costs one try.
 */
static void soft_offline_frame(uint64_t pfn)
{
	char buf[32];
	int f, n;

	if (!pfn)
		return;
	f = open("/sys/devices/system/memory/soft_offline_page", O_WRONLY | O_CLOEXEC);
	if (f < 0)
		die("/sys/devices/system/memory/soft_offline_page");
	n = snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)pfn * page_size);
	if (write(f, buf, n) == n) {
		atomic_fetch_add(&soft_offlined, 1);
		soft_offline--;
	} else {
		atomic_fetch_add(&soft_offline_failed, 1);
	}
	close(f);
}

static void *migrator(void *arg)
{
	void **pages = calloc(npages, sizeof(void *));
	int *nodes = calloc(npages, sizeof(int));
	int *status = calloc(npages, sizeof(int));
	long p, pass, ipis0;

	/* --hog-cpu: the pages the migration frees go to the hog's CPU. */
	if (hog_cpu >= 0)
		bench_pin(hog_cpu);
	/* Their writers reclaim the pages themselves, see the modes. */
	if (mode == M_FUSE_INVAL || mode == M_UFFD_COPY || mode == M_DEVICE)
		return NULL;
	if (pageout) {
		pageouter();
		return NULL;
	}
	if (mode == M_SPLIT) {
		refiller();
		return NULL;
	}
	for (p = 0; p < npages; p++)
		pages[p] = (char *)area + p * page_size;
	bench_trace(1);
	ipis0 = bench_irq("TLB:");
	for (pass = 0; !atomic_load(&shm->stop); pass++) {
		void *victim = pages[(pass * 17) % npages];
		uint64_t old = soft_offline > 0 ? pfn_of(victim) : 0;
		long n = mode == M_EXCL ? npages / 2 : npages;
		long moved = bench_move_all(0, n, pages, nodes, status,
					    (pass & 1) ? 0 : 1);

		if (moved < 0)
			die("move_pages");
		if (old && pfn_of(victim) != old)
			soft_offline_frame(old);
		atomic_fetch_add(&migrated, moved);
		atomic_fetch_add(&moves_failed, n - moved);
		atomic_fetch_add(&npasses, 1);
		if (passes && pass + 1 >= passes)
			atomic_store(&shm->stop, 1);
	}
	if (ipis0 >= 0)
		pass_ipis = bench_irq("TLB:") - ipis0;
	bench_trace(0);
	return NULL;
}

/*
 * --pread: read the file again and again, page by page, as any reader of
 * it would.  Each read looks the page up in the page cache and holds a
 * reference for a moment: when it found the folio that migration was
 * replacing, its reference may be the last one, and the folio is freed by
 * this task, on this CPU, where the hog allocates next.
 */
static void *preader(void *arg)
{
	char buf[64];
	long p = 0;

	for (;;) {
		if (pread(fd, buf, sizeof(buf), p * page_size) < 0)
			die("pread");
		p = (p + 1) % npages;
	}
	return NULL;
}

/*
 * Each round maps --hog-mib MiB, writes poison over it and unmaps it: reuse of
 * freed pages by another process.  It runs in a child process, so that its
 * write faults are not taken for write-enables in the readers' mm, which
 * would flush everything.  Split mode: each round splits the area first,
 * poisons small pages (the parts are small), leaves the poison in place
 * 20 ms for the readers, and hands the area to the refiller.
 */
static void hog(_Atomic long *rounds)
{
	pid_t parent = getppid();

	/* Drop the inherited copy of the area: its unmaps are not ours. */
	if (area && mode != M_SPLIT)
		munmap(area, npages * page_size);
	if (mode == M_SPLIT)
		bench_pin(nreaders - 1);
	if (hog_cpu >= 0)
		bench_pin(hog_cpu);
	if (use_pread) {
		pthread_t th;

		pthread_create(&th, NULL, preader, NULL);
	}
	for (;;) {
		size_t len = (size_t)hog_mib << 20, i;
		uint64_t *m;

		if (mode == M_SPLIT) {
			while (atomic_load_explicit(&shm->split_done,
						    memory_order_acquire))
				sleep_ms(1);
			split_area(parent);
		}
		m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die("mmap hog");
		if (mode == M_SPLIT && madvise(m, len, MADV_NOHUGEPAGE))
			die("madvise(MADV_NOHUGEPAGE)");
		for (i = 0; i < len / 8; i += 8)
			m[i] = POISON;
		if (mode == M_SPLIT)
			sleep_ms(20);
		munmap(m, len);
		atomic_fetch_add(rounds, 1);
		if (mode == M_SPLIT)
			atomic_store_explicit(&shm->split_done, 1,
					      memory_order_release);
	}
}

/* Rewrite all pages with epoch e + 1 through the writer's path, publish. */
static void *writer(void *arg)
{
	uint64_t *buf = malloc(page_size * (quiet_ms ? npages : 1));

	/*
	 * uffd-copy, device: MADV_FREE leaves the folios in a per-CPU LRU
	 * batch (so do the folios uffd-copy --move writes to be moved), which
	 * holds a reference that keeps reclaim from discarding them, and
	 * MADV_PAGEOUT drains only its own CPU's: stay on one.
	 */
	if (mode == M_UFFD_COPY || mode == M_DEVICE)
		bench_pin(nreaders - 1);
	if (!modes[mode].round)
		return NULL;
	while (!atomic_load(&shm->stop)) {
		uint64_t e = atomic_load(&shm->epoch) + 1;
		enum round r = modes[mode].round(e, buf);

		if (r == ROUND_STOP)
			return NULL;
		if (r == ROUND_DONE)
			continue;
		publish(e);
		sleep_ms(20);
	}
	return NULL;
}

static void start_hog(void)
{
	_Atomic long *rounds;

	if (!hog_mib)
		return;
	rounds = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rounds == MAP_FAILED)
		die("mmap");
	hog_pid = fork_child();
	if (hog_pid < 0)
		die("fork");
	if (hog_pid == 0)
		hog(rounds);
	hog_rounds = rounds;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: lufstress [-m anon|file|shmem|split|write|truncate|cow|mprotect|\n"
		"                     mprotect-shared|uffd-move|fuse-store|fuse-inval|\n"
		"                     force|uffd-copy|device|excl]\n"
		"                 [-n pages] [-d seconds | -p passes] [-t readers]\n"
		"                 [-f file] [--hog-mib MiB] [--source migrate|pageout]\n"
		"                 [--quiet-ms ms] [--pass-bound] [--aio] [--no-zero]\n"
		"                 [--hog-cpu cpu] [--pread] [--move]\n"
		"                 [--soft-offline pages]\n"
		"                 [--thp-head]\n"
		"  (-m excl needs the debug build of luf: debug_numa_pass)\n");
	exit(2);
}

enum {
	OPT_HOG_MIB = 256, OPT_SOURCE, OPT_QUIET_MS, OPT_PASS_BOUND, OPT_AIO,
	OPT_NO_ZERO, OPT_HOG_CPU, OPT_PREAD, OPT_MOVE, OPT_SOFT_OFFLINE,
	OPT_THP_HEAD,
};

static const struct option long_opts[] = {
	BENCH_LONG_OPTS,
	{ "hog-mib", required_argument, NULL, OPT_HOG_MIB },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "quiet-ms", required_argument, NULL, OPT_QUIET_MS },
	{ "pass-bound", no_argument, NULL, OPT_PASS_BOUND },
	{ "aio", no_argument, NULL, OPT_AIO },
	{ "no-zero", no_argument, NULL, OPT_NO_ZERO },
	{ "hog-cpu", required_argument, NULL, OPT_HOG_CPU },
	{ "pread", no_argument, NULL, OPT_PREAD },
	{ "move", no_argument, NULL, OPT_MOVE },
	{ "soft-offline", required_argument, NULL, OPT_SOFT_OFFLINE },
	{ "thp-head", no_argument, NULL, OPT_THP_HEAD },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	pthread_t th[64], mig, wr;
	int c, i, m;
	long large;

	page_size = sysconf(_SC_PAGESIZE);
	/* One reader per CPU by default, as many as th[] holds. */
	nreaders = sysconf(_SC_NPROCESSORS_ONLN);
	if (nreaders > 64)
		nreaders = 64;
	while ((c = getopt_long(argc, argv, "m:n:d:p:t:f:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'm':
			for (m = 0; m < NR_MODES && strcmp(optarg, modes[m].name); m++)
				;
			if (m == NR_MODES)
				usage();
			mode = m;
			break;
		case 'n': npages = opt_num("-n", optarg, 1, 1L << 24); break;
		case 'd': seconds = opt_num("-d", optarg, 1, 86400); break;
		case 'p': passes = opt_num("-p", optarg, 0, LONG_MAX); break;
		case 't': nreaders = opt_num("-t", optarg, 1, 64); break;
		case 'f': path = optarg; break;
		case OPT_HOG_MIB:
			hog_mib = opt_num("--hog-mib", optarg, 0, 1 << 20);
			break;
		case OPT_QUIET_MS:
			quiet_ms = opt_num("--quiet-ms", optarg, 0, 3600000);
			break;
		case OPT_PASS_BOUND: pass_bound = 1; break;
		case OPT_AIO: use_aio = 1; break;
		case OPT_NO_ZERO: split_no_zero = 1; break;
		case OPT_HOG_CPU:
			hog_cpu = opt_num("--hog-cpu", optarg, 0, 63);
			break;
		case OPT_PREAD: use_pread = 1; break;
		case OPT_MOVE: use_move = 1; break;
		case OPT_THP_HEAD: thp_head = 1; break;
		case OPT_SOFT_OFFLINE:
			soft_offline = opt_num("--soft-offline", optarg, 1, 4096);
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "pageout"))
				pageout = 1;
			else if (strcmp(optarg, "migrate"))
				usage();
			break;
		default: usage();
		}
	}
	if (optind != argc || (pass_bound && !pageout) ||
	    (mode == M_SPLIT && (pageout || !hog_mib)) ||
	    (split_no_zero && mode != M_SPLIT) ||
	    ((mode == M_FUSE_INVAL || mode == M_UFFD_COPY ||
	      mode == M_DEVICE) && pageout) ||
	    (use_pread && ((mode != M_FILE && mode != M_WRITE) || !hog_mib)) ||
	    (hog_cpu >= 0 && !hog_mib) || (use_move && mode != M_UFFD_COPY) ||
	    (thp_head && (mode != M_EXCL || npages % 1024)) ||
	    (soft_offline && (pageout || mode != M_ANON)))
		usage();

	shm = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap");
	/*
	 * uffd-move: a hog forked after setup would share the pages, and
	 * UFFDIO_MOVE moves exclusive pages only.
	 */
	if (mode == M_UFFD_MOVE)
		start_hog();
	modes[mode].setup(npages * page_size);
	large = mode == M_UFFD_MOVE || !area ? -1 :
		bench_large_pages(area, npages, 1, NULL);
	signal(SIGBUS, on_sigbus);
	for (i = 0; i < nreaders; i++)
		pthread_create(&th[i], NULL, reader, (void *)(long)i);
	pthread_create(&mig, NULL, migrator, NULL);
	if (mode != M_UFFD_MOVE)
		start_hog();
	if (mode >= M_WRITE)
		pthread_create(&wr, NULL, writer, NULL);
	if (!passes) {
		for (i = 0; i < seconds * 10 && !atomic_load(&shm->stop); i++)
			sleep_ms(100);
		atomic_store(&shm->stop, 1);
	}
	pthread_join(mig, NULL);
	for (i = 0; i < nreaders; i++)
		pthread_join(th[i], NULL);
	if (hog_pid > 0) {
		kill(hog_pid, SIGKILL);
		waitpid(hog_pid, NULL, 0);
		hogged = *hog_rounds;
	}
	if (mode >= M_WRITE)
		pthread_join(wr, NULL);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (mode == M_FUSE_STORE || mode == M_FUSE_INVAL)
		fuse_teardown();

	printf("mode=%s pages=%ld large=%ld passes=%ld migrated=%ld move_failed=%ld reads=%ld hog_rounds=%ld epoch=%llu sigbus=%ld early=%ld in_window=%ld uffd_moved=%ld kept=%ld violations=%ld",
	       modes[mode].name, npages, large, (long)npasses, (long)migrated,
	       (long)moves_failed, (long)reads, (long)hogged,
	       (unsigned long long)shm->epoch, (long)sigbus, (long)early,
	       (long)in_window, (long)moves, (long)kept, (long)violations);
	if (pass_ipis >= 0)
		printf(" pass_tlb_ipis=%ld", pass_ipis);
	if (thp_head)
		printf(" thp_rounds=%ld", (long)thp_rounds);
	if (soft_offlined || soft_offline_failed)
		printf(" soft_offlined=%ld soft_offline_failed=%ld",
		       (long)soft_offlined, (long)soft_offline_failed);
	if (violations)
		printf(" first_bad=%#llx expected=%#llx",
		       (unsigned long long)first_bad,
		       (unsigned long long)first_bad_expected);
	printf("\n");
	return violations ? 1 : 0;
}
