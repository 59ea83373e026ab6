// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress's device mode:
 *
 *   device	private anonymous memory, read-only, that a device driver
 *		fills: the writer frees it with MADV_FREE, lets reclaim
 *		discard it, then migrates the empty range to device memory
 *		(lib/test_hmm's /dev/hmm_dmirror0: migrate_vma_*(), which
 *		fills each empty PTE with a device-private entry, without a
 *		fault) and publishes: the device's contents are zeros, and
 *		a reader must fault to see them.  Then it writes new
 *		contents through the CPU and makes the area read-only again.
 */
#define _GNU_SOURCE
#include <linux/types.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "lufstress.h"

static int dev_fd = -1;			/* device: /dev/hmm_dmirror0 */

/* How many pages of the area are still mapped (reclaim kept them)? */
static long resident_pages(void)
{
	unsigned char vec[npages];
	long p, n = 0;

	if (mincore(area, npages * page_size, vec))
		die("mincore");
	for (p = 0; p < npages; p++)
		n += vec[p] & 1;
	return n;
}

/*
 * device: lib/test_hmm's interface (lib/test_hmm_uapi.h in the kernel
 * source; no distribution installs it).  MIGRATE_TO_DEV migrates a range of
 * the caller's memory to the device's private memory, empty PTEs included
 * (as a GPU driver does to place a buffer before the CPU touches it), and
 * copies what the device then holds to @ptr.
 */
struct hmm_dmirror_cmd {
	__u64 addr;
	__u64 ptr;
	__u64 npages;
	__u64 cpages;
	__u64 faults;
};
#define HMM_DMIRROR_MIGRATE_TO_DEV	_IOWR('H', 0x02, struct hmm_dmirror_cmd)
static void *dev_buf;

static void device_migrate_all(void)
{
	struct hmm_dmirror_cmd cmd = {
		.addr = (uintptr_t)area,
		.ptr = (uintptr_t)dev_buf,
		.npages = npages,
	};

	if (ioctl(dev_fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd))
		die("ioctl(HMM_DMIRROR_MIGRATE_TO_DEV)");
	atomic_fetch_add(&moves, cmd.cpages);
}

void device_setup(size_t len)
{
	long p;

	dev_fd = open("/dev/hmm_dmirror0", O_RDWR | O_CLOEXEC);
	if (dev_fd < 0)
		die("/dev/hmm_dmirror0 (CONFIG_TEST_HMM)");
	dev_buf = malloc(len);
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!dev_buf || area == MAP_FAILED)
		die("malloc/mmap");
	/* Device migration would split a huge page: keep it out. */
	if (madvise(area, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	for (p = 0; p < npages; p++)
		fill_page(area + p * page_size / 8, p, 0);
	if (mprotect(area, len, PROT_READ))
		die("mprotect");
}

enum round device_round(uint64_t e, uint64_t *buf)
{
	/*
	 * New contents through the CPU, then read-only again: luf defers only
	 * the flushes of read-only unmaps.
	 */
	write_unprotected(area, e);
	publish(e);
	if (!free_and_discard())
		return ROUND_STOP;
	/*
	 * A page reclaim kept would be copied to the device as it is (and its
	 * unmap flushes the whole mm): such a pass tests nothing, and the epoch
	 * stays.  Else the device's zeros are epoch e + 1 (a page the device
	 * could not take reads the zero page), and the next pass writes e + 2.
	 */
	if (!resident_pages()) {
		device_migrate_all();
		publish(e + 1);
	} else {
		atomic_fetch_add(&kept, 1);
	}
	release_readers();
	sleep_ms(20);
	return ROUND_DONE;
}
