// SPDX-License-Identifier: GPL-2.0
/*
 * memhog <MiB> [node]: allocate and touch that much anonymous memory, then
 * exit.  With a node, the memory is bound there (MPOL_BIND), so the node
 * must make room by reclaim or demotion instead of spilling to another node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND 2

int main(int argc, char **argv)
{
	size_t mib, len, off;
	char *p;

	if (argc < 2 || argc > 3 || (mib = strtoul(argv[1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: memhog <MiB> [node]\n");
		return 2;
	}
	if (argc == 3) {
		unsigned long mask = 1UL << atoi(argv[2]);

		if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 8 * sizeof(mask) + 1)) {
			perror("set_mempolicy");
			return 1;
		}
	}
	len = mib << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off = 0; off < len; off += 4096)
		p[off] = (char)off | 1;
	printf("touched %zu MiB\n", mib);
	return 0;
}
