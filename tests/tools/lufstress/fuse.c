// SPDX-License-Identifier: GPL-2.0
/*
 * lufstress's FUSE modes:
 *
 *   fuse-store	a file of a FUSE filesystem that lufstress serves itself
 *		(mounted on -f, a directory), mapped read-only and shared;
 *		the writer stores new contents straight into its page cache
 *		with FUSE_NOTIFY_STORE, as a FUSE server may, then publishes
 *   fuse-inval	the same FUSE file; the writer reclaims its pages
 *		(MADV_PAGEOUT: reclaim drops them from the page cache),
 *		changes the file on the server's side and tells the kernel
 *		with FUSE_NOTIFY_INVAL_INODE, as a FUSE server (or NFS,
 *		CIFS, Ceph revalidating a file) does, then publishes: a page
 *		read back must show the new contents, and so must every
 *		reader.  No migration, and no reclaim between the writer's
 *		own pass and its change: a pass that ages young PTEs
 *		flushes, stale entries included.
 */
#define _GNU_SOURCE
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "lufstress.h"

/*
 * fuse-store: a FUSE server for one regular file, "f" (node 2), in the
 * root directory (node 1).  It answers what mounting, opening, faulting in
 * and closing the file need, from fuse_buf: the contents of the newest
 * epoch.  The writer changes fuse_buf, then stores it into the page cache
 * with FUSE_NOTIFY_STORE.
 */
#define FUSE_FILE_NODE	2
static int fuse_fd = -1;
static uint64_t *fuse_buf;
static char fuse_dir[4096];
static pthread_t fuse_thread;

static void fuse_attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->blksize = page_size;
	if (node == FUSE_FILE_NODE) {
		a->mode = S_IFREG | 0444;
		a->size = npages * page_size;
		a->blocks = a->size / 512;
	} else {
		a->mode = S_IFDIR | 0555;
	}
}

/* One reply: the header, then @len bytes of @arg. */
static void fuse_reply(uint64_t unique, int error, const void *arg, size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &oh, sizeof(oh) }, { (void *)arg, error ? 0 : len },
	};

	/* The kernel forgets a request it gave up on: ENOENT, not fatal. */
	if (writev(fuse_fd, iov, 2) < 0 && errno != ENOENT)
		die("fuse reply");
}

static void *fuse_server(void *arg)
{
	size_t size = 1 << 20;
	char *req = malloc(size + 4096);

	for (;;) {
		struct fuse_in_header *ih = (void *)req;
		void *in = req + sizeof(*ih);
		ssize_t n = read(fuse_fd, req, size + 4096);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < 0)
			break;		/* ENODEV: unmounted */
		switch (ih->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = in;
			struct fuse_init_out io = {
				.major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = ii->max_readahead,
				.max_write = 1 << 16,
			};

			fuse_reply(ih->unique, 0, &io, sizeof(io));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out eo = {
				.nodeid = FUSE_FILE_NODE,
				.generation = 1,
				.entry_valid = 86400,
				.attr_valid = 86400,
			};

			if (ih->nodeid != FUSE_ROOT_ID || strcmp(in, "f")) {
				fuse_reply(ih->unique, -ENOENT, NULL, 0);
				break;
			}
			fuse_attr(&eo.attr, FUSE_FILE_NODE);
			fuse_reply(ih->unique, 0, &eo, sizeof(eo));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out ao = { .attr_valid = 86400 };

			fuse_attr(&ao.attr, ih->nodeid);
			fuse_reply(ih->unique, 0, &ao, sizeof(ao));
			break;
		}
		case FUSE_OPEN: {
			/* Keep the page cache across opens. */
			struct fuse_open_out oo = {
				.fh = 1,
				.open_flags = FOPEN_KEEP_CACHE,
			};

			fuse_reply(ih->unique, 0, &oo, sizeof(oo));
			break;
		}
		case FUSE_READ: {
			struct fuse_read_in *ri = in;
			uint64_t end = (uint64_t)npages * page_size;
			uint64_t len = ri->size;

			if (ri->offset >= end)
				len = 0;
			else if (ri->offset + len > end)
				len = end - ri->offset;
			fuse_reply(ih->unique, 0, (char *)fuse_buf + ri->offset, len);
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;		/* no reply */
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_DESTROY:
			fuse_reply(ih->unique, 0, NULL, 0);
			break;
		default:
			fuse_reply(ih->unique, -ENOSYS, NULL, 0);
		}
	}
	free(req);
	return NULL;
}

/* Store fuse_buf, the new contents, into the file's page cache. */
static void fuse_store_all(void)
{
	struct fuse_notify_store_out so = {
		.nodeid = FUSE_FILE_NODE,
		.offset = 0,
		.size = npages * page_size,
	};
	struct fuse_out_header oh = {
		.len = sizeof(oh) + sizeof(so) + so.size,
		.error = FUSE_NOTIFY_STORE,
	};
	struct iovec iov[3] = {
		{ &oh, sizeof(oh) }, { &so, sizeof(so) },
		{ fuse_buf, so.size },
	};

	if (writev(fuse_fd, iov, 3) != (ssize_t)oh.len)
		die("FUSE_NOTIFY_STORE");
}

/*
 * fuse-inval: the file changed on the server's side (fuse_buf); tell the
 * kernel, which drops what it has cached of it.
 */
static void fuse_inval_all(void)
{
	struct fuse_notify_inval_inode_out io = {
		.ino = FUSE_FILE_NODE,
		.off = 0,
		.len = 0,		/* to the end */
	};
	struct fuse_out_header oh = {
		.len = sizeof(oh) + sizeof(io),
		.error = FUSE_NOTIFY_INVAL_INODE,
	};
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { &io, sizeof(io) } };

	if (writev(fuse_fd, iov, 2) != (ssize_t)oh.len)
		die("FUSE_NOTIFY_INVAL_INODE");
}

void fuse_setup(size_t len)
{
	char opts[128], file[4200];
	long p;

	fuse_buf = malloc(len);
	for (p = 0; p < npages; p++)
		fill_page(fuse_buf + p * page_size / 8, p, 0);
	snprintf(fuse_dir, sizeof(fuse_dir), "%s",
		 strcmp(path, "/dev/shm/lufstress") ? path : "/tmp/lufstress-fuse");
	mkdir(fuse_dir, 0755);
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0)
		die("/dev/fuse");
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 fuse_fd);
	if (mount("lufstress", fuse_dir, "fuse.lufstress", MS_NOSUID | MS_NODEV,
		  opts))
		die("mount fuse");
	pthread_create(&fuse_thread, NULL, fuse_server, NULL);
	snprintf(file, sizeof(file), "%s/f", fuse_dir);
	fd = open(file, O_RDONLY);
	if (fd < 0)
		die(file);
	area = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		die("mmap fuse file");
}

void fuse_teardown(void)
{
	munmap(area, npages * page_size);
	close(fd);
	umount2(fuse_dir, MNT_DETACH);
	pthread_join(fuse_thread, NULL);
}

enum round fuse_store_round(uint64_t e, uint64_t *buf)
{
	long p;

	for (p = 0; p < npages; p++)
		fill_page(fuse_buf + p * page_size / 8, p, e);
	fuse_store_all();
	return ROUND_PUBLISH;
}

enum round fuse_inval_round(uint64_t e, uint64_t *buf)
{
	long p;

	if (madvise(area, npages * page_size, MADV_PAGEOUT))
		die("madvise(MADV_PAGEOUT)");
	atomic_fetch_add(&migrated, npages);
	atomic_fetch_add(&npasses, 1);
	sleep_ms(5);
	for (p = 0; p < npages; p++)
		fill_page(fuse_buf + p * page_size / 8, p, e);
	fuse_inval_all();
	return ROUND_PUBLISH;
}
