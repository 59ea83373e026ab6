// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl stats --format prometheus: luf's counters, its state and the
 * host's own TLB-shootdown and migration counters in the Prometheus text
 * exposition format, for node_exporter's textfile collector (the timer
 * luf-metrics.timer writes it there).  Prometheus's conventions: base
 * units in the names (seconds, not milliseconds; a ratio, not percent),
 * counters end in _total, and no labels, so that nothing can multiply the
 * series of a host.  The names stay fixed once published: dashboards
 * compare hosts by them.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lufctl.h"

/* The gauges of STATUS_GET's reply, scaled to base units. */
static const struct {
	int attr;
	const char *name;
	unsigned int div;	/* ms: 1000 (seconds); percent: 100 (ratio) */
	const char *help;
} gauges[] = {
	{ LUF_A_STATUS_ENABLED, "luf_enabled", 1,
	  "1 while luf defers TLB flushes (the A/B switch, knob enabled); 0 when off or not loaded." },
	{ LUF_A_STATUS_MAX_DEFER_MS, "luf_max_defer_seconds", 1000,
	  "No deferred flush waits longer (knob max_defer_ms)." },
	{ LUF_A_STATUS_MAX_PAGES, "luf_max_pages", 1,
	  "Pages whose flush may be outstanding at once (knob max_pages)." },
	{ LUF_A_STATUS_MIGRATION, "luf_migration_enabled", 1,
	  "1 if the flushes of page migration's unmaps are deferred (knob migration)." },
	{ LUF_A_STATUS_RECLAIM, "luf_reclaim_enabled", 1,
	  "1 if the flushes of reclaim's unmaps are deferred (knob reclaim)." },
	{ LUF_A_STATUS_NUMA, "luf_numa_enabled", 1,
	  "1 if the TLB flushes of NUMA balancing's hinting passes are handed to luf (knob numa)." },
	{ LUF_A_STATUS_RESERVE, "luf_reserve_ratio", 100,
	  "Free pages kept flushed, as a ratio of each zone's min watermark (knob reserve, percent)." },
	{ LUF_A_STATUS_STATS_INTERVAL_MS, "luf_stats_interval_seconds", 1000,
	  "Period of the snapshots on the netlink stats group (knob stats_interval_ms)." },
	{ LUF_A_STATUS_PENDING_PAGES, "luf_pending_pages", 1,
	  "Pages whose deferred flush is outstanding." },
	{ LUF_A_STATUS_PENDING_CPUS, "luf_pending_cpus", 1,
	  "CPUs the outstanding flush has to reach." },
	{ LUF_A_STATUS_OLDEST_PENDING_MS, "luf_oldest_pending_seconds", 1000,
	  "Age of the oldest outstanding deferred flush." },
};

static void metric(const char *name, const char *suffix, const char *type,
		   const char *help)
{
	printf("# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help, name,
	       suffix, type);
}

/* @v / @div, exactly: 1500 / 1000 is "1.5", 20 / 1000 "0.02". */
static void print_scaled(uint64_t v, unsigned int div)
{
	uint64_t frac = v % div;
	int digits = div == 1000 ? 3 : div == 100 ? 2 : 0;

	printf("%" PRIu64, v / div);
	if (!frac)
		return;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	printf(".%0*" PRIu64, digits, frac);
}

/*
 * Every value is printed, with its HELP and TYPE lines, if the kernel gave
 * it; when luf is not loaded (@st and @s NULL) only luf_loaded and
 * luf_enabled (both 0) and the host's counters: a host without luf still
 * has the counters a dashboard compares it by.
 */
void lufctl_prom_print(const struct status *st, const struct stats *s,
		       const struct lufctl_host *h)
{
	unsigned int i;

	metric("luf_loaded", "", "gauge",
	       "1 if the luf module is loaded (its netlink family answers).");
	printf("luf_loaded %d\n", st ? 1 : 0);
	for (i = 0; i < ARRAY_SIZE(gauges); i++) {
		int a = gauges[i].attr;

		if (st ? !st->have[a] : a != LUF_A_STATUS_ENABLED)
			continue;
		metric(gauges[i].name, "", "gauge", gauges[i].help);
		printf("%s ", gauges[i].name);
		print_scaled(st ? st->v[a] : 0, gauges[i].div);
		putchar('\n');
	}
	for (i = 0; s && i < NR_STATS; i++) {
		char name[64];

		if (!s->have[i])
			continue;
		snprintf(name, sizeof(name), "luf_%s", lufctl_stat_names[i]);
		metric(name, "_total", "counter", lufctl_stat_help[i]);
		printf("%s_total %" PRIu64 "\n", name, s->v[i]);
	}
	for (i = 0; i < NR_HOST; i++) {
		char name[64];

		if (!h->have[i])
			continue;
		snprintf(name, sizeof(name), "luf_host_%s",
			 lufctl_host_names[i]);
		metric(name, "_total", "counter", lufctl_host_help[i]);
		printf("%s_total %" PRIu64 "\n", name, h->v[i]);
	}
}
