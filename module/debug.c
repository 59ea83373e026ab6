// SPDX-License-Identifier: GPL-2.0
/*
 * Debug build only (LUF_DEBUG): inspection of free pages' tags, for the
 * tests of the allocator's tag handling.  Reads struct page fields of free
 * pages without the zone lock: good enough for a test that re-checks what it
 * finds, never for anything else.
 */

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/luf_debug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/seq_file.h>

#include "internal.h"

static bool luf_debug_pending(unsigned long tag)
{
	return (long)(tag - READ_ONCE(luf_core.gens->flushed)) > 0;
}

static int debug_core_get(void *data, u64 *val)
{
	*val = READ_ONCE(luf_core.gens->debug);
	return 0;
}

static int debug_core_set(void *data, u64 val)
{
	WRITE_ONCE(luf_core.gens->debug, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(debug_core_fops, debug_core_get, debug_core_set,
			 "%llu\n");

/*
 * Call the content-change hook from a timer, i.e. in softirq, as an I/O
 * completion would (kiocb_end_write() from a block layer softirq): it must
 * queue its flush, never wait for IPIs there.  Writing N does it N times,
 * 10 ms apart, and returns when the last one ran.
 */
struct luf_debug_softirq {
	struct timer_list timer;
	struct completion done;
	unsigned long left;
};

static void luf_debug_softirq_fn(struct timer_list *t)
{
	struct luf_debug_softirq *s = from_timer(s, t, timer);

	luf_contents_changed(NULL, LUF_FLUSH_FILE_WRITE);
	if (--s->left)
		mod_timer(&s->timer, jiffies + msecs_to_jiffies(10));
	else
		complete(&s->done);
}

static ssize_t softirq_change_write(struct file *file,
				    const char __user *ubuf, size_t len,
				    loff_t *ppos)
{
	struct luf_debug_softirq s;
	unsigned long n;
	int err = kstrtoul_from_user(ubuf, len, 0, &n);

	if (err)
		return err;
	if (!n || n > 10000)
		return -EINVAL;
	s.left = n;
	init_completion(&s.done);
	timer_setup_on_stack(&s.timer, luf_debug_softirq_fn, 0);
	mod_timer(&s.timer, jiffies + 1);
	wait_for_completion(&s.done);
	del_timer_sync(&s.timer);
	destroy_timer_on_stack(&s.timer);
	return len;
}

static const struct file_operations softirq_change_fops = {
	.write		= softirq_change_write,
	.llseek		= noop_llseek,
};

#if IS_ENABLED(CONFIG_LUF_DEBUG) && IS_ENABLED(CONFIG_NUMA_BALANCING)
/*
 * "<pid> <start> <len>": a NUMA hinting pass over that range of the task's
 * mm now (luf_debug_numa_pass()), as task_numa_work() makes one, so that a
 * test can act while its flush is held.  Fails with the pass's error.
 */
static ssize_t numa_pass_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	unsigned long start, size;
	char buf[64];
	long ret;
	int pid;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%d %lu %lu", &pid, &start, &size) != 3)
		return -EINVAL;
	ret = luf_debug_numa_pass(pid, start, size);
	return ret < 0 ? ret : len;
}

static const struct file_operations numa_pass_fops = {
	.write		= numa_pass_write,
	.llseek		= noop_llseek,
};
#endif

/*
 * A free block of order >= 1 in @zone whose tag is pending.  Such blocks sit
 * at the tail of their free list (luf.h): walking the lists from there
 * finds one at once, where a walk of every pfn took minutes in a loaded
 * emulator.
 */
static unsigned long split_check_zone(struct zone *zone)
{
	unsigned long pfn = 0, flags;
	unsigned int order, mt;
	struct page *page;

	spin_lock_irqsave(&zone->lock, flags);
	for (order = 1; order < MAX_PAGE_ORDER && !pfn; order++) {
		for (mt = 0; mt < MIGRATE_TYPES && !pfn; mt++) {
			struct list_head *list =
				&zone->free_area[order].free_list[mt];

			list_for_each_entry_reverse(page, list, buddy_list) {
				if (luf_debug_pending(page->luf_tag)) {
					pfn = page_to_pfn(page);
					break;
				}
			}
		}
	}
	spin_unlock_irqrestore(&zone->lock, flags);
	return pfn;
}

static unsigned long split_check_find(void)
{
	unsigned long pfn = 0;
	int nid, z;

	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES && !pfn; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (populated_zone(zone))
				pfn = split_check_zone(zone);
		}
	}
	return pfn;
}

/*
 * Split a free block the way memory failure does, and look at the piece
 * left at its head.  Finds the first free block of order >= 1 with a
 * pending tag, stores 1 (long flushed) in its second page's tag field (a
 * leftover, as merges leave behind: unused while that page is inside the
 * block), and poisons that second page with memory_failure(), which takes
 * it off the free lists with take_page_off_buddy(): the block is broken
 * down to it, and the head becomes a free order-0 piece that must still
 * carry the block's tag.  Reads back "pfn P order O tag T piece_tag X
 * piece_free F" (X is meaningful only while F is 1: a piece that was
 * allocated meanwhile holds other data), or "none".  The poisoned page is
 * lost to the system: debug kernels only.
 */
static int split_check_show(struct seq_file *m, void *v)
{
	unsigned long pfn = split_check_find(), order, tag;
	struct page *page;
	int err;

	if (!pfn) {
		seq_puts(m, "none\n");
		return 0;
	}
	/*
	 * Freed or allocated since the lists were walked: the read-back says
	 * (piece_free), and the test tries again.
	 */
	page = pfn_to_page(pfn);
	order = page_private(page);
	tag = page->luf_tag;
	if (!PageBuddy(page) || order < 1 || order >= MAX_PAGE_ORDER) {
		seq_puts(m, "none\n");
		return 0;
	}
	page[1].luf_tag = 1;
	err = memory_failure(pfn + 1, 0);
	seq_printf(m, "pfn %lu order %lu tag %lu piece_tag %lu piece_free %d err %d\n",
		   pfn, order, tag, page->luf_tag,
		   PageBuddy(page) && !page_private(page), err);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(split_check);

/*
 * The state of the free lists, for the tests of which frees are tagged and
 * of merging: "free F tagged T unmerged U tagged_frees N".  F free pages, T
 * of them in blocks whose tag is pending, U pairs of free buddies of the
 * same order below pageblock_order that did not merge (the buddy allocator
 * without luf leaves none: it merges on free), N the core's count of frees
 * that tagged a block.  Walks every zone under its lock: debug kernels
 * only.
 */
struct free_tags {
	unsigned long free, tagged, unmerged, counted;
};

static void free_tags_zone(struct zone *zone, struct free_tags *ft)
{
	unsigned long pfn = zone->zone_start_pfn;
	unsigned long end = zone_end_pfn(zone);
	unsigned long flags;

	spin_lock_irqsave(&zone->lock, flags);
	while (pfn < end) {
		struct page *page = pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
		unsigned long order, bpfn;
		struct page *buddy;

		if (!page || !PageBuddy(page)) {
			pfn++;
			continue;
		}
		order = page_private(page);
		ft->free += 1UL << order;
		if (luf_debug_pending(page->luf_tag))
			ft->tagged += 1UL << order;
		bpfn = pfn ^ (1UL << order);
		buddy = pfn_valid(bpfn) ? pfn_to_page(bpfn) : NULL;
		/* Count each pair once, from its lower half. */
		if (order < pageblock_order && bpfn > pfn && bpfn < end &&
		    buddy && PageBuddy(buddy) && page_private(buddy) == order)
			ft->unmerged++;
		pfn += 1UL << order;
	}
	if (luf_debug_pending(zone->luf_tagged_gen))
		ft->counted += zone->luf_tagged;
	spin_unlock_irqrestore(&zone->lock, flags);
}

static int free_tags_show(struct seq_file *m, void *v)
{
	struct free_tags ft = {};
	int nid, z;

	/* for_each_populated_zone() needs symbols modules do not get. */
	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (populated_zone(zone))
				free_tags_zone(zone, &ft);
			cond_resched();
		}
	}
	seq_printf(m, "free %lu tagged %lu unmerged %lu tagged_frees %ld counted %lu\n",
		   ft.free, ft.tagged, ft.unmerged,
		   atomic_long_read(&luf_core.gens->tagged), ft.counted);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(free_tags);

void luf_debug_files(struct dentry *dir)
{
	debugfs_create_ulong("debug_skip", 0600, dir, &luf_debug_skip);
	debugfs_create_ulong("debug_defer_delay_us", 0600, dir,
			     &luf_debug_defer_delay_us);
	debugfs_create_ulong("debug_flush_delay_us", 0600, dir,
			     &luf_debug_flush_delay_us);
	debugfs_create_ulong("debug_bound_wq", 0600, dir, &luf_debug_bound_wq);
	debugfs_create_ulong("debug_trim", 0600, dir, &luf_debug_trim);
	debugfs_create_ulong("debug_tick", 0600, dir, &luf_debug_tick);
	debugfs_create_ulong("debug_numa", 0600, dir, &luf_debug_numa);
	debugfs_create_file_unsafe("debug_core", 0600, dir, NULL,
				   &debug_core_fops);
	debugfs_create_file("debug_softirq_change", 0200, dir, NULL,
			    &softirq_change_fops);
	debugfs_create_file("debug_split_check", 0400, dir, NULL,
			    &split_check_fops);
	debugfs_create_file("debug_free_tags", 0400, dir, NULL,
			    &free_tags_fops);
#if IS_ENABLED(CONFIG_LUF_DEBUG) && IS_ENABLED(CONFIG_NUMA_BALANCING)
	debugfs_create_file("debug_numa_pass", 0200, dir, NULL,
			    &numa_pass_fops);
#endif
}
