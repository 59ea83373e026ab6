// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl stats: luf's counters, from STATS_GET; with --format prometheus,
 * also its state and the host's counters (prom.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lufctl.h"

/*
 * Printed in full or not at all, except when luf is not loaded: then the
 * host's counters and luf_loaded 0, and exit status 3 all the same.
 */
static int stats_prometheus(void)
{
	struct lufctl_nl n = { 0 };
	struct lufctl_host h;
	struct status st;
	struct stats s;
	unsigned int i;
	int ret;

	ret = lufctl_nl_open(&n);
	if (!ret)
		ret = lufctl_nl_get_status(&n, &st);
	if (!ret)
		ret = lufctl_nl_get_stats(&n, &s);
	lufctl_nl_close(&n);
	if (ret && ret != EX_NOLUF)
		return ret;
	lufctl_proc_host(&h);
	lufctl_prom_print(ret ? NULL : &st, ret ? NULL : &s, &h);
	if (fflush(stdout) || ferror(stdout)) {
		lufctl_err("stats: cannot write: %s", strerror(errno));
		return EX_RUNTIME;
	}
	for (i = 0; !ret && i < NR_STATS; i++) {
		if (!s.have[i]) {
			lufctl_err("stats: the kernel's reply lacks %s",
				   lufctl_stat_names[i]);
			ret = EX_RUNTIME;
		}
	}
	return ret;
}

static int cmd_stats(struct opts *o, int argc, char **argv)
{
	struct lufctl_nl n = { 0 };
	struct stats s;
	int ret;

	if (o->format == FORMAT_PROMETHEUS)
		return stats_prometheus();
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
	.opts		= OPT_JSON | OPT_FORMAT,
	.synopsis	= "lufctl [--json] stats [--format text|json|prometheus]",
	.help		=
"    stats [--format text|json|prometheus]\n"
"        Print luf's counters, summed over CPUs, as \"name value\" lines in the\n"
"        format of /sys/kernel/debug/luf/stats.  With --json (--format json),\n"
"        one JSON object.  With --format prometheus, the Prometheus text\n"
"        exposition format, each with HELP and TYPE, no labels: every\n"
"        counter as luf_NAME_total; the state as gauges in base units:\n"
"        luf_loaded, luf_enabled, luf_max_defer_seconds, luf_max_pages,\n"
"        luf_migration_enabled, luf_reclaim_enabled, luf_numa_enabled,\n"
"        luf_reserve_ratio (reserve / 100), luf_stats_interval_seconds,\n"
"        luf_pending_pages, luf_pending_cpus, luf_oldest_pending_seconds;\n"
"        and the host's counters that ab measures, which count with or\n"
"        without luf, as luf_host_NAME_total: tlb_shootdowns,\n"
"        pgmigrate_success, pgdemote, pgpromote_success and, with\n"
"        CONFIG_DEBUG_TLBFLUSH, nr_tlb_remote_flush,\n"
"        nr_tlb_remote_flush_received, nr_tlb_local_flush_one and\n"
"        nr_tlb_local_flush_all.  When luf is not loaded it still prints\n"
"        those, with luf_loaded 0 and luf_enabled 0, and exits with\n"
"        status 3.  luf-metrics.timer writes it for node_exporter's\n"
"        textfile collector.\n",
};
