/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lufstress's files share.  main.c is what every mode runs: the
 * readers and the epochs they check, the migrator, the hog, the writer's
 * loop and the options.  Each family of modes has a file with its set-up
 * and its writer's round, where its modes are documented: anon.c, file.c,
 * split.c, fuse.c, uffd.c and device.c; reclaim.c has the reclaim passes
 * of --source pageout and the discards of uffd-copy and device.
 *
 * Include after defining _GNU_SOURCE (CPU_SET).
 */
#ifndef LUFSTRESS_H
#define LUFSTRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "../bench.h"

enum mode {
	M_ANON, M_FILE, M_SHMEM, M_SPLIT, M_WRITE, M_TRUNCATE, M_COW, M_MPROTECT,
	M_MPROTECT_SHARED, M_UFFD_MOVE, M_FUSE_STORE, M_FUSE_INVAL, M_FORCE,
	M_UFFD_COPY, M_DEVICE, M_EXCL, NR_MODES,
};

/* The options (main.c), and what they set up. */
extern enum mode mode;
extern long npages;
extern long passes;
extern int nreaders;
extern long page_size;
extern int fd;
extern const char *path;
extern int pageout;
extern long quiet_ms;
extern int use_aio, split_no_zero, use_move;
extern int thp_head;		/* excl --thp-head */
extern _Atomic long thp_rounds;	/* its rounds that tested what it is for */

extern uint64_t *area;		/* the readers' mapping */
extern uint64_t *warea;		/* the writer's mapping (cow, mprotect;
				 * where uffd-move moves the pages) */
/* Shared with the writer process of mprotect-shared. */
struct shared {
	_Atomic uint64_t epoch;		/* published: contents are at least this */
	_Atomic int stop;
	_Atomic int pause;		/* truncate, pageout: readers hold still */
	_Atomic int paused;		/* readers holding still */
	_Atomic int quiet;		/* write --quiet-ms: reclaim pauses */
	_Atomic long pass_started;	/* pageout: reclaim passes begun */
	_Atomic long pass_done;		/* ... and ended */
	_Atomic long epoch_pass;	/* pass_started when epoch was published */
	_Atomic long away;		/* uffd-move: odd while the pages are moved away */
	_Atomic int split_done;		/* split: the hog split the area, its turn is over */
	_Atomic long hold_gen;		/* split, uffd-copy, device: odd while
					 * readers must hold still */
	_Atomic long hold_ack[64];	/* ... the hold_gen each reader holds for */
};

extern struct shared *shm;
/* Counters of the output line (main.c) that the modes count. */
extern _Atomic long migrated, npasses, moves, in_window, kept;
extern pid_t child;		/* anon: the child sharing the pages */

/* main.c */
void publish(uint64_t e);
void fill_page(uint64_t *page, long p, uint64_t ep);
pid_t fork_child(void);
int hold_readers(void);
void release_readers(void);
void sleep_ms(long ms);

/*
 * One round of the writer, the contents of epoch @e (@buf: a page, or the
 * whole area with --quiet-ms, for a round that writes from a buffer).
 * ROUND_PUBLISH: the caller publishes @e and waits 20 ms; ROUND_DONE: the
 * round published what it wrote itself; ROUND_STOP: the writer is done.
 */
enum round { ROUND_PUBLISH, ROUND_DONE, ROUND_STOP };

/* anon.c */
void anon_setup(size_t len);
void shmem_setup(size_t len);
void write_unprotected(uint64_t *a, uint64_t e);
enum round cow_round(uint64_t e, uint64_t *buf);
enum round mprotect_round(uint64_t e, uint64_t *buf);
enum round mprotect_shared_round(uint64_t e, uint64_t *buf);
enum round force_round(uint64_t e, uint64_t *buf);
enum round excl_round(uint64_t e, uint64_t *buf);

/* file.c */
void file_setup(size_t len);
enum round write_round(uint64_t e, uint64_t *buf);
enum round truncate_round(uint64_t e, uint64_t *buf);

/* split.c */
void split_setup(size_t len);
void split_area(pid_t pid);
void refiller(void);

/* fuse.c */
void fuse_setup(size_t len);
void fuse_teardown(void);
enum round fuse_store_round(uint64_t e, uint64_t *buf);
enum round fuse_inval_round(uint64_t e, uint64_t *buf);

/* uffd.c */
void uffd_move_setup(size_t len);
void uffd_copy_setup(size_t len);
void uffd_wp_heads(void *addr, size_t len, size_t stride);
void uffd_unregister_heads(void *addr, size_t len);
enum round uffd_move_round(uint64_t e, uint64_t *buf);
enum round uffd_copy_round(uint64_t e, uint64_t *buf);

/* device.c */
void device_setup(size_t len);
enum round device_round(uint64_t e, uint64_t *buf);

/* reclaim.c */
extern pthread_mutex_t pageout_lock;
void pageouter(void);
int free_and_discard(void);

#endif
