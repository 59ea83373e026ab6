/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UFFDIO_MOVE (Linux 6.8) is newer than the build host's uapi headers
 * (bookworm's are 6.1): its definitions, for the tools and the guest's
 * helpers that use it.
 */
#ifndef LUF_UFFD_MOVE_H
#define LUF_UFFD_MOVE_H

#include <linux/userfaultfd.h>

#ifndef UFFDIO_MOVE
#define UFFD_FEATURE_MOVE	(1 << 16)
#define _UFFDIO_MOVE		0x05
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
#define UFFDIO_MOVE_MODE_DONTWAKE		((__u64)1 << 0)
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES	((__u64)1 << 1)
	__u64 mode;
	__s64 move;
};

#define UFFDIO_MOVE		_IOWR(UFFDIO, _UFFDIO_MOVE, struct uffdio_move)
#endif

#endif
