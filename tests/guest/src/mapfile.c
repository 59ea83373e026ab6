// SPDX-License-Identifier: GPL-2.0
/*
 * mapfile FILE MiB: create FILE of that size if it is shorter, map it
 * read-only and shared, read every page, print "mapped" and sleep until
 * killed.  Its pages are then page cache mapped read-only by a task that
 * does nothing: what reclaim unmaps while the system is quiet, as it does
 * while hibernation makes room for its image (tests/guest/t/hibernate).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	volatile unsigned long sum = 0;
	size_t len, off;
	struct stat st;
	char *p;
	int fd;

	if (argc != 3 || !(len = strtoul(argv[2], NULL, 10) << 20)) {
		fprintf(stderr, "usage: mapfile FILE MiB\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT, 0600);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	for (off = st.st_size; off < len; off += sizeof(buf)) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)(off + i);
		if (pwrite(fd, buf, sizeof(buf), off) != sizeof(buf)) {
			perror("pwrite");
			return 1;
		}
	}
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off = 0; off < len; off += 4096)
		sum += p[off];
	printf("mapped\n");
	fflush(stdout);
	for (;;)
		pause();
}
