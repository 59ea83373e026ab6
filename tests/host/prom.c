// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl stats --format prometheus (tools/lufctl/prom.c) on known values,
 * without luf: every status field, counter and host counter set, or with
 * "unloaded", what a host without luf gets (and without the
 * CONFIG_DEBUG_TLBFLUSH counters).  Built and run by tests/host/prom.sh,
 * which checks the output with promtool and against these values.
 */
#include <string.h>

#include "lufctl.h"

int main(int argc, char **argv)
{
	static const uint64_t knobs[] = {
		[LUF_A_STATUS_ENABLED] = 1, [LUF_A_STATUS_MAX_DEFER_MS] = 1500,
		[LUF_A_STATUS_MAX_PAGES] = 65536, [LUF_A_STATUS_MIGRATION] = 1,
		[LUF_A_STATUS_RECLAIM] = 0, [LUF_A_STATUS_RESERVE] = 250,
		[LUF_A_STATUS_STATS_INTERVAL_MS] = 1000,
		[LUF_A_STATUS_PENDING_CPUS] = 3,
		[LUF_A_STATUS_PENDING_PAGES] = 12,
		[LUF_A_STATUS_OLDEST_PENDING_MS] = 20,
		[LUF_A_STATUS_NUMA] = 1,
	};
	struct status st = { .got = true };
	struct stats s = { .got = true };
	struct lufctl_host h;
	unsigned int i;

	for (i = STATUS_FIRST; i <= STATUS_LAST; i++) {
		st.have[i] = true;
		st.v[i] = i < ARRAY_SIZE(knobs) ? knobs[i] : 7;
	}
	/* Counter i is 1000 + i; the last one beyond 2^53. */
	for (i = 0; i < NR_STATS; i++) {
		s.have[i] = true;
		s.v[i] = 1000 + i;
	}
	s.v[NR_STATS - 1] = 18446744073709551615ull;
	for (i = 0; i < NR_HOST; i++) {
		h.have[i] = true;
		h.v[i] = 500 + i;
	}
	if (argc > 1 && !strcmp(argv[1], "unloaded")) {
		for (i = HOST_NR_TLB_REMOTE_FLUSH; i <= HOST_NR_TLB_LOCAL_FLUSH_ALL; i++)
			h.have[i] = false;
		lufctl_prom_print(NULL, NULL, &h);
	} else {
		lufctl_prom_print(&st, &s, &h);
	}
	return 0;
}
