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
 */

#include <linux/debugfs.h>
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
static DEFINE_MUTEX(burst_lock);
static unsigned long last_pages, last_failed, last_remote, last_us;
static unsigned long bulk_pages, bulk_got;

static int burst(unsigned long n)
{
	struct page **pages = vcalloc(n, sizeof(*pages));
	unsigned long i, j, failed = 0, remote = 0;
	ktime_t t0;

	if (!pages)
		return -ENOMEM;
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
	for (i = 0; i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	vfree(pages);
	last_pages = n;
	last_failed = failed;
	last_remote = remote;
	return 0;
}

static ssize_t burst_write(struct file *file, const char __user *buf,
			   size_t len, loff_t *ppos)
{
	unsigned long n;
	int err;

	err = kstrtoul_from_user(buf, len, 0, &n);
	if (err)
		return err;
	if (!n || n > MAX_BURST)
		return -EINVAL;
	mutex_lock(&burst_lock);
	err = burst(n);
	mutex_unlock(&burst_lock);
	return err ? err : len;
}

static ssize_t burst_read(struct file *file, char __user *buf, size_t len,
			  loff_t *ppos)
{
	char s[128];
	int n;

	mutex_lock(&burst_lock);
	n = scnprintf(s, sizeof(s),
		      "atomic_pages=%lu atomic_failed=%lu atomic_remote=%lu atomic_us=%lu\n",
		      last_pages, last_failed, last_remote, last_us);
	mutex_unlock(&burst_lock);
	return simple_read_from_buffer(buf, len, ppos, s, n);
}

static ssize_t bulk_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *ppos)
{
	struct page **pages;
	unsigned long n, got, i;
	int err;

	err = kstrtoul_from_user(buf, len, 0, &n);
	if (err)
		return err;
	if (!n || n > MAX_BURST)
		return -EINVAL;
	pages = vcalloc(n, sizeof(*pages));
	if (!pages)
		return -ENOMEM;
	got = alloc_pages_bulk_array_node(GFP_HIGHUSER_MOVABLE, 0, n, pages);
	for (i = 0; i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	vfree(pages);
	mutex_lock(&burst_lock);
	bulk_pages = n;
	bulk_got = got;
	mutex_unlock(&burst_lock);
	return len;
}

static ssize_t bulk_read(struct file *file, char __user *buf, size_t len,
			 loff_t *ppos)
{
	char s[64];
	int n;

	mutex_lock(&burst_lock);
	n = scnprintf(s, sizeof(s), "bulk_pages=%lu bulk_got=%lu\n",
		      bulk_pages, bulk_got);
	mutex_unlock(&burst_lock);
	return simple_read_from_buffer(buf, len, ppos, s, n);
}

static const struct file_operations bulk_fops = {
	.owner = THIS_MODULE,
	.read = bulk_read,
	.write = bulk_write,
	.llseek = default_llseek,
};

static const struct file_operations burst_fops = {
	.owner = THIS_MODULE,
	.read = burst_read,
	.write = burst_write,
	.llseek = default_llseek,
};

static int __init luf_atomic_init(void)
{
	dir = debugfs_create_dir("luf_atomic", NULL);
	debugfs_create_file("burst", 0600, dir, NULL, &burst_fops);
	debugfs_create_file("bulk", 0600, dir, NULL, &bulk_fops);
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
