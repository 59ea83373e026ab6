// SPDX-License-Identifier: GPL-2.0
/*
 * aiowrite: AIO O_DIRECT overwrites of a file, as fast as they complete.
 *
 *   aiowrite <file> <seconds> [MiB]
 *
 * The file is first written to its full size (vfat turns extending O_DIRECT
 * writes into buffered ones), written back and dropped from the page cache,
 * so that the async writes overwrite allocated blocks of a file with no
 * cached pages (fs/direct-io.c defers the completion to a worker otherwise)
 * and, on filesystems that use fs/direct-io.c
 * (vfat, exfat), complete from the block layer's completion context:
 * aio_complete_rw() -> kiocb_end_write() -> luf's content-change hook, in
 * softirq or hardirq.  Prints the number of completed writes; exit 1 on any
 * I/O error.  Raw syscalls: no libaio in the guest.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BLK	4096
#define DEPTH	16

int main(int argc, char **argv)
{
	struct iocb cbs[DEPTH], *cbp[DEPTH];
	struct io_event ev[DEPTH];
	aio_context_t ctx = 0;
	long mib, nblk, done = 0, i;
	time_t end;
	char *buf;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: aiowrite <file> <seconds> [MiB]\n");
		return 2;
	}
	mib = argc > 3 ? atol(argv[3]) : 4;
	nblk = mib * 1048576 / BLK;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0 || posix_memalign((void **)&buf, BLK, BLK * DEPTH)) {
		perror("aiowrite: open");
		return 2;
	}
	memset(buf, 'a', BLK * DEPTH);
	for (i = 0; i < nblk; i++)
		if (pwrite(fd, buf, BLK, i * BLK) != BLK) {
			perror("aiowrite: pwrite");
			return 1;
		}
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
		perror("aiowrite: fsync/fadvise");
		return 1;
	}
	if (syscall(SYS_io_setup, DEPTH, &ctx)) {
		perror("aiowrite: io_setup");
		return 2;
	}
	end = time(NULL) + atol(argv[2]);
	while (time(NULL) < end) {
		long n;

		for (i = 0; i < DEPTH; i++) {
			memset(&cbs[i], 0, sizeof(cbs[i]));
			cbs[i].aio_fildes = fd;
			cbs[i].aio_lio_opcode = IOCB_CMD_PWRITE;
			cbs[i].aio_buf = (unsigned long)(buf + i * BLK);
			cbs[i].aio_nbytes = BLK;
			cbs[i].aio_offset = ((done + i) % nblk) * BLK;
			cbp[i] = &cbs[i];
		}
		if (syscall(SYS_io_submit, ctx, DEPTH, cbp) != DEPTH) {
			perror("aiowrite: io_submit");
			return 1;
		}
		n = syscall(SYS_io_getevents, ctx, DEPTH, DEPTH, ev, NULL);
		if (n != DEPTH) {
			perror("aiowrite: io_getevents");
			return 1;
		}
		for (i = 0; i < n; i++)
			if (ev[i].res != BLK) {
				fprintf(stderr, "aiowrite: write returned %lld\n",
					(long long)ev[i].res);
				return 1;
			}
		done += n;
	}
	printf("aio_writes=%ld\n", done);
	return 0;
}
