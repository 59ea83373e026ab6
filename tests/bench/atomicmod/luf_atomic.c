// SPDX-License-Identifier: GPL-2.0
/*
 * luf_atomic: bursts of GFP_ATOMIC page allocations, as a network driver's
 * receive path makes them, for make bench's "atomic" workload.
 *
 * Writing N to /sys/kernel/debug/luf_atomic/burst allocates N order-0 pages
 * with GFP_ATOMIC, preferring node 0, in batches of 64 with bottom halves
 * disabled (as in NAPI polling), then frees them all.  Reading the file
 * gives the last burst's "atomic_pages=N atomic_failed=F atomic_remote=R
 * atomic_us=T": pages asked for, allocations that failed, pages that came
 * from another node than node 0, and the time the allocations took.
 *
 * Writing N to /sys/kernel/debug/luf_atomic/bulk makes one
 * alloc_pages_bulk_array_node() call for N pages on node 0, with
 * GFP_HIGHUSER_MOVABLE: an allocation that may sleep, from the free lists
 * that page-cache pages go back to.  Reading it gives "bulk_pages=N
 * bulk_got=G": what the call returned (it may return fewer than asked).
 * The tests of luf's flush in alloc_pages_bulk() use it.
 *
 * Writing N (at most 4096) to /sys/kernel/debug/luf_atomic/nowake
 * allocates N order-0 pages of node 0 with interrupts off and without
 * __GFP_KSWAPD_RECLAIM, as debugobjects fills its pool (it may do so under
 * the scheduler's or the workqueue pool's locks: such an allocation may
 * wake nobody), then frees them.  __GFP_MOVABLE, so that they come from
 * the free lists that page-cache pages go back to.  Reading it gives
 * "nowake_pages=N nowake_got=G nowake_remote=R".
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define BATCH		64
#define MAX_BURST	(1 << 20)

static struct dentry *dir;
/* Serialises the runs and guards the results below. */
static DEFINE_MUTEX(run_lock);
static unsigned long last_pages, last_failed, last_remote, last_us;
static unsigned long bulk_pages, bulk_got;
static unsigned long nowake_pages, nowake_got, nowake_remote;

static int burst(unsigned long n, struct page **pages)
{
	unsigned long i, j, failed = 0, remote = 0;
	ktime_t t0;

	t0 = ktime_get();
	for (i = 0; i < n; i += BATCH) {
		local_bh_disable();
		for (j = i; j < n && j < i + BATCH; j++) {
			pages[j] = alloc_pages_node(0, GFP_ATOMIC | __GFP_NOWARN, 0);
			if (!pages[j])
				failed++;
			else if (page_to_nid(pages[j]) != 0)
				remote++;
		}
		local_bh_enable();
	}
	last_us = ktime_us_delta(ktime_get(), t0);
	last_pages = n;
	last_failed = failed;
	last_remote = remote;
	return 0;
}

static int burst_show(char *s, size_t size)
{
	return scnprintf(s, size,
			 "atomic_pages=%lu atomic_failed=%lu atomic_remote=%lu atomic_us=%lu\n",
			 last_pages, last_failed, last_remote, last_us);
}

static int bulk(unsigned long n, struct page **pages)
{
	bulk_got = alloc_pages_bulk_array_node(GFP_HIGHUSER_MOVABLE, 0, n,
					       pages);
	bulk_pages = n;
	return 0;
}

static int bulk_show(char *s, size_t size)
{
	return scnprintf(s, size, "bulk_pages=%lu bulk_got=%lu\n",
			 bulk_pages, bulk_got);
}

static int nowake(unsigned long n, struct page **pages)
{
	unsigned long i, flags, got = 0, remote = 0;

	/* Not a burst: interrupts stay off throughout. */
	if (n > 4096)
		return -EINVAL;
	local_irq_save(flags);
	for (i = 0; i < n; i++) {
		pages[i] = alloc_pages_node(0, __GFP_HIGH | __GFP_MOVABLE |
					    __GFP_NOWARN, 0);
		if (pages[i]) {
			got++;
			remote += page_to_nid(pages[i]) != 0;
		}
	}
	local_irq_restore(flags);
	nowake_pages = n;
	nowake_got = got;
	nowake_remote = remote;
	return 0;
}

static int nowake_show(char *s, size_t size)
{
	return scnprintf(s, size, "nowake_pages=%lu nowake_got=%lu nowake_remote=%lu\n",
			 nowake_pages, nowake_got, nowake_remote);
}

/* One debugfs file: what a write of N runs, and what a read shows. */
struct luf_atomic_file {
	const char *name;
	int (*run)(unsigned long n, struct page **pages);
	int (*show)(char *s, size_t size);
};

static const struct luf_atomic_file files[] = {
	{ "burst", burst, burst_show },
	{ "bulk", bulk, bulk_show },
	{ "nowake", nowake, nowake_show },
};

static ssize_t run_write(struct file *file, const char __user *buf,
			 size_t len, loff_t *ppos)
{
	const struct luf_atomic_file *f = file->private_data;
	struct page **pages;
	unsigned long n, i;
	int err;

	err = kstrtoul_from_user(buf, len, 0, &n);
	if (err)
		return err;
	if (!n || n > MAX_BURST)
		return -EINVAL;
	/* Before the run: this allocation must not be part of what it sees. */
	pages = vcalloc(n, sizeof(*pages));
	if (!pages)
		return -ENOMEM;
	mutex_lock(&run_lock);
	err = f->run(n, pages);
	mutex_unlock(&run_lock);
	for (i = 0; i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	vfree(pages);
	return err ? err : len;
}

static ssize_t run_read(struct file *file, char __user *buf, size_t len,
			loff_t *ppos)
{
	const struct luf_atomic_file *f = file->private_data;
	char s[128];
	int n;

	mutex_lock(&run_lock);
	n = f->show(s, sizeof(s));
	mutex_unlock(&run_lock);
	return simple_read_from_buffer(buf, len, ppos, s, n);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = run_read,
	.write = run_write,
	.llseek = default_llseek,
};

static int __init luf_atomic_init(void)
{
	int i;

	dir = debugfs_create_dir("luf_atomic", NULL);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		debugfs_create_file(files[i].name, 0600, dir,
				    (void *)&files[i], &run_fops);
	return 0;
}

static void __exit luf_atomic_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(luf_atomic_init);
module_exit(luf_atomic_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("luf benchmark helper: bursts of GFP_ATOMIC allocations");
