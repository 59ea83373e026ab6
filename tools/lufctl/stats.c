// SPDX-License-Identifier: GPL-2.0
/* lufctl stats: luf's counters, from STATS_GET. */
#include "lufctl.h"

static int cmd_stats(struct opts *o, int argc, char **argv)
{
	struct lufctl_nl n = { 0 };
	struct stats s;
	int ret;

	ret = lufctl_nl_open(&n);
	if (!ret)
		ret = lufctl_nl_get_stats(&n, &s);
	if (!ret)
		ret = lufctl_print_pairs("stats", lufctl_stat_names, s.v,
					 s.have, NR_STATS, o->json);
	lufctl_nl_close(&n);
	return ret;
}

const struct lufctl_command lufctl_cmd_stats = {
	.name		= "stats",
	.fn		= cmd_stats,
	.opts		= OPT_JSON,
	.synopsis	= "lufctl [--json] stats",
	.help		=
"    stats\n"
"        Print luf's counters, summed over CPUs, as \"name value\" lines in the\n"
"        format of /sys/kernel/debug/luf/stats.  With --json, one JSON object.\n",
};
