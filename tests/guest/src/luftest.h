/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest test programs: luf's debugfs values, errors,
 * pinning.  Each program defines PROG (its name, for messages).
 */
#ifndef LUFTEST_H
#define LUFTEST_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE	(1 << 1)
#endif

static void die(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	exit(2);
}

/* "name value" from a file of /sys/kernel/debug/luf ("key value" words). */
static unsigned long luf_value(const char *file, const char *name)
{
	char path[128], k[64];
	unsigned long v, found = 0;
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/luf/%s", file);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fscanf(f, "%63s %lu", k, &v) == 2)
		if (!strcmp(k, name)) {
			found = v;
			got = 1;
		}
	fclose(f);
	if (!got) {
		errno = ENOENT;
		die(name);
	}
	return found;
}

/*
 * move_pages(2) of @n pages from @addr to @node (luf defers the flush when
 * other CPUs read them).  Returns how many are on @node now.
 */
static __attribute__((unused)) long move_to_node(volatile char *addr, long n,
						 long psz, int node)
{
	int nodes[n], status[n];
	void *pages[n];
	long p, moved = 0;

	for (p = 0; p < n; p++) {
		pages[p] = (char *)addr + p * psz;
		nodes[p] = node;
	}
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status,
		    MPOL_MF_MOVE) < 0)
		die("move_pages");
	for (p = 0; p < n; p++)
		moved += status[p] == node;
	return moved;
}

static void pin(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

#endif
