// SPDX-License-Identifier: GPL-2.0
/*
 * What watch, ab and the Prometheus export read besides luf's counters:
 * the TLB shootdown interrupts of /proc/interrupts and the counters of
 * /proc/vmstat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lufctl.h"

/*
 * The "TLB:" row of /proc/interrupts: one column per online CPU, then the
 * description.  Sums the numeric columns; false if there is no such row
 * (not x86).
 */
bool lufctl_proc_tlb_shootdowns(uint64_t *sum)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "TLB:", 4))
			continue;
		found = true;
		*sum = 0;
		p += 4;
		for (;;) {
			unsigned long long v;

			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				break;
			v = strtoull(p, &end, 10);
			if (*end != ' ' && *end != '\t' && *end != '\n' && *end)
				break;
			*sum += v;
			p = end;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* Fill @v[i] for each of @names found in /proc/vmstat; @have says which. */
void lufctl_proc_vmstat(const char *const *names, unsigned int nr,
			uint64_t *v, bool *have)
{
	char name[64];
	unsigned long long val;
	unsigned int i;
	FILE *f;

	for (i = 0; i < nr; i++) {
		have[i] = false;
		v[i] = 0;
	}
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return;
	while (fscanf(f, "%63s %llu", name, &val) == 2) {
		for (i = 0; i < nr; i++) {
			if (!strcmp(name, names[i])) {
				v[i] = val;
				have[i] = true;
			}
		}
	}
	fclose(f);
}

/* In the order of HOST_*: the names ab prints and Prometheus exports. */
const char *const lufctl_host_names[NR_HOST] = {
	"tlb_shootdowns", "nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"nr_tlb_local_flush_one", "nr_tlb_local_flush_all",
	"pgmigrate_success", "pgdemote", "pgpromote_success",
};

const char *const lufctl_host_help[NR_HOST] = {
	"TLB shootdown interrupts, summed over CPUs (/proc/interrupts TLB).",
	"TLB flushes of other CPUs requested (/proc/vmstat; CONFIG_DEBUG_TLBFLUSH).",
	"TLB flush requests from other CPUs received (/proc/vmstat; CONFIG_DEBUG_TLBFLUSH).",
	"Local single-page TLB flushes (/proc/vmstat; CONFIG_DEBUG_TLBFLUSH).",
	"Local full TLB flushes (/proc/vmstat; CONFIG_DEBUG_TLBFLUSH).",
	"Pages migrated (/proc/vmstat pgmigrate_success).",
	"Pages demoted to a slower tier (/proc/vmstat pgdemote_kswapd + pgdemote_direct + pgdemote_khugepaged).",
	"Pages promoted to a faster tier (/proc/vmstat pgpromote_success).",
};

/* The /proc/vmstat counters of HOST_*; the pgdemote_* are summed. */
static const char *const host_vmstat[] = {
	"nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"nr_tlb_local_flush_one", "nr_tlb_local_flush_all",
	"pgmigrate_success", "pgpromote_success",
	"pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged",
};

static const int host_of_vmstat[] = {
	HOST_NR_TLB_REMOTE_FLUSH, HOST_NR_TLB_REMOTE_FLUSH_RECEIVED,
	HOST_NR_TLB_LOCAL_FLUSH_ONE, HOST_NR_TLB_LOCAL_FLUSH_ALL,
	HOST_PGMIGRATE_SUCCESS, HOST_PGPROMOTE_SUCCESS,
	HOST_PGDEMOTE, HOST_PGDEMOTE, HOST_PGDEMOTE,
};

/* The HOST_* counters; @h->have says which this kernel has. */
void lufctl_proc_host(struct lufctl_host *h)
{
	uint64_t vm[ARRAY_SIZE(host_vmstat)];
	bool have[ARRAY_SIZE(host_vmstat)];
	unsigned int i;

	memset(h, 0, sizeof(*h));
	h->have[HOST_TLB_SHOOTDOWNS] =
		lufctl_proc_tlb_shootdowns(&h->v[HOST_TLB_SHOOTDOWNS]);
	lufctl_proc_vmstat(host_vmstat, ARRAY_SIZE(host_vmstat), vm, have);
	for (i = 0; i < ARRAY_SIZE(host_vmstat); i++) {
		h->v[host_of_vmstat[i]] += vm[i];
		h->have[host_of_vmstat[i]] |= have[i];
	}
}
