// SPDX-License-Identifier: GPL-2.0
/*
 * Calls every inline luf hook of the kernel's public headers, the way a
 * filesystem or driver built as a module inlines them: modpost then fails
 * if one of them reaches a symbol the kernel does not export.  Built by
 * tests/host/inline-exports.sh against the patched kernel; never loaded.
 * That script also checks that every inline luf function of those headers
 * is called here.
 */
#include <linux/fs.h>
#include <linux/luf.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/module.h>

void luf_probe(struct file *file, struct kiocb *iocb, struct mm_struct *mm,
	       unsigned long tag);

void luf_probe(struct file *file, struct kiocb *iocb, struct mm_struct *mm,
	       unsigned long tag)
{
	if (luf_enabled() && luf_busy() && luf_tag_pending(tag) &&
	    luf_tag_after(luf_tag_merge(tag, tag + 1, luf_flushed()), tag))
		luf_contents_changed(NULL, LUF_FLUSH_ALLOC);
	luf_contents_changed(file->f_mapping, LUF_FLUSH_FILE_WRITE);
	if (luf_space_of(file->f_mapping) == LUF_SPACE_ANY)
		luf_contents_changed(NULL, LUF_FLUSH_TRUNCATE);
	file_end_write(file);
	kiocb_end_write(iocb);
	luf_wrprotect_begin(mm);
	if (luf_wrprotect_pending(mm) || luf_numa_lazy())
		luf_wrprotect_end(mm);
}
EXPORT_SYMBOL_GPL(luf_probe);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Build-time probe of luf's inline hooks (never loaded)");
