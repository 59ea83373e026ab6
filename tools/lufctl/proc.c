// SPDX-License-Identifier: GPL-2.0
/*
 * What watch and ab read besides luf's counters: the TLB shootdown
 * interrupts of /proc/interrupts and the counters of /proc/vmstat.
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
