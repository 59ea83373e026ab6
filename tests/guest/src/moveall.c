// SPDX-License-Identifier: GPL-2.0
/*
 * moveall: keep the pages of a process tree moving while it runs, as NUMA
 * tiering and reclaim would on a host: the load of the selftests' second
 * pass (tests/guest/t/selftest, issue 24).
 *
 *   moveall [--interval-ms MS] [--pageout-every ROUNDS] <pid>
 *
 * Every --interval-ms (-i, default 50) it moves every page of <pid> and of each of its
 * descendants to the other node with migrate_pages(2) (as root that is
 * MPOL_MF_MOVE_ALL: shared pages too), node 0 to 1, then back; every
 * --pageout-every rounds (-r, default 4; 0: never) it also asks reclaim to page out each of their
 * mappings with process_madvise(MADV_PAGEOUT), one mapping per call so
 * that one it refuses (hugetlb, locked, special) does not stop the rest.
 * It stops when <pid> is gone or at SIGTERM, and prints one line:
 * "moveall: rounds=N processes=P unmovable=U pageouts=O".  Errors of a
 * process that exits meanwhile are ignored; exit 2 on a usage error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define MAX_PROCS 256

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		/* The command may hold spaces and parentheses: after the last ')'. */
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %*c %d", &ppid) != 1)
			ppid = -1;
	}
	fclose(f);
	return ppid;
}

/* @root and its descendants (but not us), into @pids. */
static int tree(pid_t root, pid_t *pids)
{
	pid_t all[4096], par[4096];
	int n = 0, nr = 0, i, grew;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < 4096) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		all[n] = atoi(d->d_name);
		par[n] = parent_of(all[n]);
		n++;
	}
	closedir(dir);
	pids[nr++] = root;
	do {
		grew = 0;
		for (i = 0; i < n && nr < MAX_PROCS; i++) {
			int j, known = 0, child = 0;

			if (all[i] == getpid())
				continue;
			for (j = 0; j < nr; j++) {
				known |= pids[j] == all[i];
				child |= pids[j] == par[i];
			}
			if (child && !known) {
				pids[nr++] = all[i];
				grew = 1;
			}
		}
	} while (grew);
	return nr;
}

/* MADV_PAGEOUT on each of @pid's mappings; how many calls succeeded. */
static long pageout(pid_t pid)
{
	char path[64], line[512];
	unsigned long start, end;
	long done = 0;
	FILE *f;
	int pidfd = syscall(SYS_pidfd_open, pid, 0);

	if (pidfd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		struct iovec iov;

		if (sscanf(line, "%lx-%lx", &start, &end) != 2 ||
		    strstr(line, "[vsyscall]") || strstr(line, "[vvar]") ||
		    strstr(line, "[vdso]"))
			continue;
		iov.iov_base = (void *)start;
		iov.iov_len = end - start;
		if (syscall(SYS_process_madvise, pidfd, &iov, 1UL, MADV_PAGEOUT,
			    0U) >= 0)
			done++;
	}
	if (f)
		fclose(f);
	close(pidfd);
	return done;
}

static long opt(const char *s, long min)
{
	char *e;
	long v = strtol(s, &e, 10);

	if (*s == '\0' || *e != '\0' || v < min) {
		fprintf(stderr, "moveall: bad number %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long interval = 50, every = 4, rounds = 0, unmovable = 0, pageouts = 0;
	long procs = 0;
	pid_t root, pids[MAX_PROCS];
	struct timespec ts;
	int c, i, n;

	static const struct option longopts[] = {
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "pageout-every", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};

	while ((c = getopt_long(argc, argv, "i:r:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': interval = opt(optarg, 1); break;
		case 'r': every = opt(optarg, 0); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	root = opt(argv[optind], 1);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	ts.tv_sec = interval / 1000;
	ts.tv_nsec = (interval % 1000) * 1000000L;
	while (!stop && kill(root, 0) == 0) {
		unsigned long from = 1UL << (rounds & 1), to = 1UL << !(rounds & 1);

		n = tree(root, pids);
		if (n > procs)
			procs = n;
		for (i = 0; i < n && !stop; i++) {
			long r = syscall(SYS_migrate_pages, pids[i], 64UL, &from, &to);

			if (r > 0)
				unmovable += r;
			if (every && rounds % every == every - 1)
				pageouts += pageout(pids[i]);
		}
		rounds++;
		nanosleep(&ts, NULL);
	}
	printf("moveall: rounds=%ld processes=%ld unmovable=%ld pageouts=%ld\n",
	       rounds, procs, unmovable, pageouts);
	return 0;
usage:
	fprintf(stderr, "usage: moveall [--interval-ms MS] [--pageout-every ROUNDS] <pid>\n");
	return 2;
}
