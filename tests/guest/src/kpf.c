// SPDX-License-Identifier: GPL-2.0
/*
 * kpf: count poisoned pages in /proc/kpageflags, and those of them that sit
 * on the free lists (KPF_BUDDY: /proc/kpageflags reports it for every page
 * of a free block, not only its head).  A poisoned page must never be free:
 * the next allocation would hand it out (tests/guest/t/park-poison).
 *
 * Output: "hwpoison=N hwpoison_free=M"; exit 2 if the file cannot be read.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define KPF_BUDDY	10
#define KPF_HWPOISON	19

int main(void)
{
	static uint64_t buf[4096];
	long poisoned = 0, free_poisoned = 0;
	int fd = open("/proc/kpageflags", O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror("kpf: /proc/kpageflags");
		return 2;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		long i;

		for (i = 0; i < n / 8; i++) {
			if (!(buf[i] & (1ULL << KPF_HWPOISON)))
				continue;
			poisoned++;
			if (buf[i] & (1ULL << KPF_BUDDY))
				free_poisoned++;
		}
	}
	if (n < 0) {
		perror("kpf: read");
		return 2;
	}
	printf("hwpoison=%ld hwpoison_free=%ld\n", poisoned, free_poisoned);
	return 0;
}
