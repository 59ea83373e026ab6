// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs-write <file> <string>: write the string (no newline added) in one
 * write(2) and print the result: "ok" or the errno name.  Exit 0 on success,
 * 1 on a failed write, 2 on bad usage.  The shell's redirections cannot tell
 * EINVAL from any other failure; the sysfs tests need to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: sysfs-write <file> <string>\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("open: %s\n", strerror(errno));
		return 1;
	}
	n = write(fd, argv[2], strlen(argv[2]));
	if (n < 0) {
		printf("%s\n", errno == EINVAL ? "EINVAL" : strerror(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}
