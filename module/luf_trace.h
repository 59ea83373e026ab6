/* SPDX-License-Identifier: GPL-2.0 */
/*
 * luf's tracepoints, documented in module/ABI: luf:luf_defer and
 * luf:luf_flush.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM luf

#if !defined(_LUF_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _LUF_TRACE_H

#include <linux/tracepoint.h>

/* The sources' and reasons' values go into the format file, for perf. */
TRACE_DEFINE_ENUM(LUF_SRC_MIGRATION);
TRACE_DEFINE_ENUM(LUF_SRC_RECLAIM);
TRACE_DEFINE_ENUM(LUF_FLUSH_ALLOC);
TRACE_DEFINE_ENUM(LUF_FLUSH_WRITE);
TRACE_DEFINE_ENUM(LUF_FLUSH_FILE_WRITE);
TRACE_DEFINE_ENUM(LUF_FLUSH_TRUNCATE);
TRACE_DEFINE_ENUM(LUF_FLUSH_PUT);
TRACE_DEFINE_ENUM(LUF_FLUSH_PARKED);
TRACE_DEFINE_ENUM(LUF_FLUSH_MPROTECT);
TRACE_DEFINE_ENUM(LUF_FLUSH_CHANGED);
TRACE_DEFINE_ENUM(LUF_FLUSH_RESERVE);
TRACE_DEFINE_ENUM(LUF_FLUSH_AGE);
TRACE_DEFINE_ENUM(LUF_FLUSH_LIMIT);
TRACE_DEFINE_ENUM(LUF_FLUSH_DISABLE);

/*
 * A batch of read-only unmaps joined generation @gen: its flush is
 * deferred.  @pages counts base pages (the core offers pages, a 64 KiB
 * folio is 16), @cpus the CPUs that may cache the unmapped entries.
 */
TRACE_EVENT(luf_defer,
	    TP_PROTO(unsigned long gen, unsigned int cpus, unsigned long pages,
		     unsigned long sources),
	    TP_ARGS(gen, cpus, pages, sources),
	    TP_STRUCT__entry(__field(unsigned long, gen)
			     __field(unsigned int, cpus)
			     __field(unsigned long, pages)
			     __field(unsigned long, sources)),
	    TP_fast_assign(__entry->gen = gen;
			   __entry->cpus = cpus;
			   __entry->pages = pages;
			   __entry->sources = sources;),
	    TP_printk("gen=%lu cpus=%u pages=%lu source=%s",
		      __entry->gen, __entry->cpus, __entry->pages,
		      __print_flags(__entry->sources, "|",
				    { BIT(LUF_SRC_MIGRATION), "migration" },
				    { BIT(LUF_SRC_RECLAIM), "reclaim" }))
);

/*
 * A flush of the deferred batch: it completed @gens generations (the
 * generation it closed, back to the last one flushed), sent @ipis IPIs to
 * the @cpus CPUs of its batch (the flushing CPU flushes itself without one;
 * idle CPUs and those that flushed since the newest deferral need none) and
 * took @duration_ns from the start of the flush to its completion.
 */
TRACE_EVENT(luf_flush,
	    TP_PROTO(unsigned int reason, unsigned long gens, unsigned int cpus,
		     unsigned int ipis, u64 duration_ns),
	    TP_ARGS(reason, gens, cpus, ipis, duration_ns),
	    TP_STRUCT__entry(__field(unsigned int, reason)
			     __field(unsigned long, gens)
			     __field(unsigned int, cpus)
			     __field(unsigned int, ipis)
			     __field(u64, duration_ns)),
	    TP_fast_assign(__entry->reason = reason;
			   __entry->gens = gens;
			   __entry->cpus = cpus;
			   __entry->ipis = ipis;
			   __entry->duration_ns = duration_ns;),
	    TP_printk("reason=%s gens=%lu cpus=%u ipis=%u duration_ns=%llu",
		      __print_symbolic(__entry->reason,
				       { LUF_FLUSH_ALLOC, "alloc" },
				       { LUF_FLUSH_WRITE, "write" },
				       { LUF_FLUSH_FILE_WRITE, "file_write" },
				       { LUF_FLUSH_TRUNCATE, "truncate" },
				       { LUF_FLUSH_PUT, "put" },
				       { LUF_FLUSH_PARKED, "parked" },
				       { LUF_FLUSH_MPROTECT, "mprotect" },
				       { LUF_FLUSH_CHANGED, "changed" },
				       { LUF_FLUSH_RESERVE, "reserve" },
				       { LUF_FLUSH_AGE, "age" },
				       { LUF_FLUSH_LIMIT, "limit" },
				       { LUF_FLUSH_DISABLE, "disable" }),
		      __entry->gens, __entry->cpus, __entry->ipis,
		      __entry->duration_ns)
);

#endif /* _LUF_TRACE_H */

/* An out-of-tree module: the header is found through ccflags' -I. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE luf_trace
#include <trace/define_trace.h>
