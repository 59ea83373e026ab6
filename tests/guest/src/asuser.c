// SPDX-License-Identifier: GPL-2.0
/*
 * asuser <uid> <command> [args...]: run a command as an unprivileged user
 * (gid = uid, no supplementary groups, no capabilities), for the tests that
 * check what a non-root caller may do.  busybox has no setuidgid.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser <uid> <command> [args...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("asuser: dropping privileges");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror("asuser: exec");
	return 127;
}
