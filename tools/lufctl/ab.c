// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl ab: a live A/B test of luf on this host.  Rounds of one interval
 * with enabled=0 and one with enabled=1, in alternating order, then the
 * statistics of abstat.c per metric.  enabled is put back on every way
 * out.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abstat.h"
#include "lufctl.h"

/* The host's counters (HOST_*, proc.c), then luf's own. */
enum {
	M_TLB			= HOST_TLB_SHOOTDOWNS,
	M_PGMIGRATE		= HOST_PGMIGRATE_SUCCESS,
	M_LUF_DEFERRED		= NR_HOST,
	M_LUF_PAGES_TAGGED,
	M_LUF_FLUSHES,
	M_LUF_IPIS,
	NR_METRICS
};

static const char *const luf_metric_names[NR_METRICS - NR_HOST] = {
	"luf_deferred", "luf_pages_tagged", "luf_flushes", "luf_ipis",
};

/* luf's counters measured, in the order of M_LUF_*. */
static const int luf_metric_stat[NR_METRICS - NR_HOST] = {
	STAT(DEFERRED), STAT(PAGES_TAGGED), STAT(FLUSHES), STAT(IPIS),
};

static const char *metric_name(unsigned int m)
{
	return m < NR_HOST ? lufctl_host_names[m] :
			     luf_metric_names[m - NR_HOST];
}

struct ab_sample {
	double t;
	uint64_t v[NR_METRICS];
	bool have[NR_METRICS];
};

static int ab_sample(struct lufctl_nl *n, struct ab_sample *a)
{
	struct lufctl_host h;
	struct stats s;
	unsigned int m;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = lufctl_nl_get_stats(n, &s);
	if (ret)
		return ret;
	lufctl_proc_host(&h);
	a->t = lufctl_now();
	for (m = 0; m < NR_HOST; m++) {
		a->v[m] = h.v[m];
		a->have[m] = h.have[m];
	}
	for (m = NR_HOST; m < NR_METRICS; m++) {
		a->v[m] = s.v[luf_metric_stat[m - NR_HOST]];
		a->have[m] = s.have[luf_metric_stat[m - NR_HOST]];
	}
	return EX_OK;
}

static void json_num(const char *key, double v, const char *fmt, bool comma)
{
	printf("\"%s\": ", key);
	if (isfinite(v))
		printf(fmt, v);
	else
		printf("null");
	if (comma)
		printf(", ");
}

static void json_array(const char *key, const double *x, unsigned int n)
{
	unsigned int i;

	printf("\"%s\": [", key);
	for (i = 0; i < n; i++) {
		if (isfinite(x[i]))
			printf("%s%.3f", i ? ", " : "", x[i]);
		else
			printf("%snull", i ? ", " : "");
	}
	printf("]");
}

/* "mean +- sd", or "-" for what is undefined. */
static void fmt_mean_sd(char *buf, size_t len, double m, double sd)
{
	if (!isfinite(m))
		snprintf(buf, len, "-");
	else if (!isfinite(sd))
		snprintf(buf, len, "%.1f", m);
	else
		snprintf(buf, len, "%.1f +- %.1f", m, sd);
}

static void fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
}

struct ab_run {
	unsigned int rounds, done;	/* rounds asked for, completed */
	unsigned int left_out;		/* intervals a counter went down in */
	bool present[NR_METRICS];
	double *off[NR_METRICS], *on[NR_METRICS];	/* per round, per s */
	double *on_s;			/* each round's on interval, s */
	uint64_t tlb_total[2], migrated_total[2];	/* [enabled] */
};

#define AB_LEFT_OUT_NOTE	"intervals left out: a counter went backwards (module reloaded?)"

/* What ab_print() prints, worked out from the rounds. */
struct ab_result {
	struct lufctl_abstat m[NR_METRICS];
	struct lufctl_logci per_page;	/* TLB shootdowns per migrated page */
	double per_page_total[2], per_page_ratio;	/* from the totals */
	struct lufctl_abverdict verdict;
};

static void ab_analyse(const struct ab_run *run, struct ab_result *res)
{
	double *ltlb = calloc(run->done + 1, sizeof(double));
	double *lmig = calloc(run->done + 1, sizeof(double));
	unsigned int m, e;

	for (m = 0; m < NR_METRICS; m++) {
		double *logr = m == M_TLB ? ltlb : m == M_PGMIGRATE ? lmig : NULL;

		memset(&res->m[m], 0, sizeof(res->m[m]));
		if (run->present[m])
			lufctl_abstat_analyse(run->off[m], run->on[m], run->on_s,
					      run->done, &res->m[m],
					      logr);
	}
	/* Per migrated page: a round's log ratio of the one less the other's. */
	if (ltlb && lmig && run->present[M_TLB] && run->present[M_PGMIGRATE])
		lufctl_abstat_logdiff(ltlb, lmig, run->done, &res->per_page);
	else
		lufctl_abstat_logci(NULL, 0, &res->per_page);
	for (e = 0; e < 2; e++)
		res->per_page_total[e] = run->present[M_TLB] &&
					 run->present[M_PGMIGRATE] ?
			lufctl_abstat_ratio(run->tlb_total[e],
					    run->migrated_total[e]) : NAN;
	res->per_page_ratio = lufctl_abstat_ratio(res->per_page_total[1],
						  res->per_page_total[0]);
	lufctl_abstat_verdict(run->present[M_TLB] ? &res->m[M_TLB] : NULL,
			      run->present[M_PGMIGRATE] ?
					&res->m[M_PGMIGRATE] : NULL,
			      &res->per_page, &res->verdict);
	free(ltlb);
	free(lmig);
}

static void json_logci(const struct lufctl_logci *c)
{
	json_num("paired_ratio_geomean", c->gm, "%.4f", true);
	json_num("ci95_low", c->lo, "%.4f", true);
	json_num("ci95_high", c->hi, "%.4f", true);
	printf("\"ratio_rounds\": %u", c->n);
}

/* The geometric mean and its interval, as table columns. */
static void fmt_logci(char *gm, size_t gm_len, char *ci, size_t ci_len,
		      const struct lufctl_logci *c)
{
	char lo[24], hi[24];

	fmt_num(gm, gm_len, c->gm, "%.3f");
	fmt_num(lo, sizeof(lo), c->lo, "%.3f");
	fmt_num(hi, sizeof(hi), c->hi, "%.3f");
	if (isfinite(c->lo))
		snprintf(ci, ci_len, "%s .. %s", lo, hi);
	else
		snprintf(ci, ci_len, "-");
}

static void ab_print_json(const struct opts *o, const struct ab_run *run,
			  const struct ab_result *res, uint32_t restored)
{
	unsigned int m;

	printf("{\"rounds\": %u, ", run->done);
	json_num("interval_s", o->interval, "%g", true);
	json_num("settle_s", o->settle, "%g", true);
	printf("\"enabled_restored\": %" PRIu32 ", ", restored);
	printf("\"intervals_left_out\": %u, \"metrics\": {", run->left_out);
	for (m = 0; m < NR_METRICS; m++) {
		const struct lufctl_abstat *r = &res->m[m];

		printf("%s\"%s\": {", m ? ", " : "", metric_name(m));
		if (!run->present[m]) {
			printf("\"present\": false}");
			continue;
		}
		printf("\"present\": true, \"valid_rounds\": %u, ", r->n);
		json_num("off_mean", r->off_mean, "%.3f", true);
		json_num("off_sd", r->off_sd, "%.3f", true);
		json_num("on_mean", r->on_mean, "%.3f", true);
		json_num("on_sd", r->on_sd, "%.3f", true);
		json_num("ratio", r->ratio, "%.4f", true);
		json_logci(&r->pr);
		printf(", \"ratio_rounds_on_zero\": %u, ", r->pr_zero);
		json_num("off_log_sd", r->off_log_sd, "%.4f", true);
		json_array("off", run->off[m], run->done);
		printf(", ");
		json_array("on", run->on[m], run->done);
		printf("}");
	}
	printf("}, \"tlb_shootdowns_per_migrated_page\": {");
	json_num("off", res->per_page_total[0], "%.4f", true);
	json_num("on", res->per_page_total[1], "%.4f", true);
	json_num("ratio", res->per_page_ratio, "%.4f", true);
	json_logci(&res->per_page);
	printf("}, \"verdict\": {\"judgement\": \"%s\", \"text\": \"%s\"}}\n",
	       res->verdict.name, res->verdict.line);
}

/* Print the results; returns an exit status (stdout may be gone). */
static int ab_print(const struct opts *o, const struct ab_run *run,
		    uint32_t restored)
{
	struct ab_result *res = calloc(1, sizeof(*res));
	char gm[24], ci[64];
	unsigned int m;

	if (!res) {
		lufctl_err("out of memory");
		return EX_RUNTIME;
	}
	ab_analyse(run, res);
	if (o->json) {
		ab_print_json(o, run, res, restored);
		goto flush;
	}

	printf("lufctl ab: %u rounds of %g s off and %g s on (settle %g s); enabled restored to %" PRIu32 "\n",
	       run->done, o->interval, o->interval, o->settle, restored);
	printf("%-30s %24s %24s %8s %8s %21s %6s\n", "per second",
	       "off (mean +- sd)", "on (mean +- sd)", "on/off", "geomean",
	       "95% CI of geomean", "rounds");
	for (m = 0; m < NR_METRICS; m++) {
		const struct lufctl_abstat *r = &res->m[m];
		char offs[48], ons[48], ratio[24];

		if (!run->present[m]) {
			printf("%-30s absent\n", metric_name(m));
			continue;
		}
		fmt_mean_sd(offs, sizeof(offs), r->off_mean, r->off_sd);
		fmt_mean_sd(ons, sizeof(ons), r->on_mean, r->on_sd);
		fmt_num(ratio, sizeof(ratio), r->ratio, "%.3f");
		fmt_logci(gm, sizeof(gm), ci, sizeof(ci), &r->pr);
		printf("%-30s %24s %24s %8s %8s %21s %3u/%u\n", metric_name(m),
		       offs, ons, ratio, gm, ci, r->pr.n, run->done);
	}
	{
		char off[24], on[24], ratio[24];

		fmt_num(off, sizeof(off), res->per_page_total[0], "%.4f");
		fmt_num(on, sizeof(on), res->per_page_total[1], "%.4f");
		fmt_num(ratio, sizeof(ratio), res->per_page_ratio, "%.3f");
		fmt_logci(gm, sizeof(gm), ci, sizeof(ci), &res->per_page);
		printf("%-30s %24s %24s %8s %8s %21s %3u/%u\n",
		       "tlb_shootdowns/migrated_page", off, on, ratio, gm, ci,
		       res->per_page.n, run->done);
	}
	if (run->left_out)
		printf("%u " AB_LEFT_OUT_NOTE "\n", run->left_out);
	printf("%s\n", res->verdict.line);
flush:
	free(res);
	if (fflush(stdout) || ferror(stdout)) {
		lufctl_err("ab: cannot write the results: %s",
			   strerror(errno));
		return EX_RUNTIME;
	}
	return EX_OK;
}

static int ab_set_enabled(struct lufctl_nl *n, uint32_t v, bool *refused)
{
	struct pair p = { &lufctl_knobs[0], v };

	return lufctl_nl_set(n, &p, 1, refused);
}

/*
 * Put enabled back to @orig.  On a socket of its own: after a request that
 * timed out, its late answer could otherwise pass for this one's.  Returns
 * an exit status, having said why if it failed.
 */
static int ab_restore(uint32_t orig)
{
	struct lufctl_nl n = { 0 };
	char why[512];
	int ret;

	lufctl_err_capture(why, sizeof(why));
	ret = lufctl_nl_open(&n);
	if (!ret)
		ret = ab_set_enabled(&n, orig, NULL);
	lufctl_nl_close(&n);
	lufctl_err_capture(NULL, 0);
	if (ret) {
		lufctl_err("could not restore enabled=%" PRIu32 ": %s", orig,
			   why[0] ? why : "unknown error");
		return EX_RUNTIME;
	}
	if (why[0])	/* the kernel's warning */
		lufctl_err("%s", why);
	return EX_OK;
}

/*
 * One measured interval with enabled=@e: switch, settle, measure.
 * Returns an exit status; EX_OK with a stop signal caught if interrupted.
 */
static int ab_interval(const struct opts *o, struct lufctl_nl *n,
		       struct ab_run *run, unsigned int round, uint32_t e,
		       bool *switched)
{
	struct ab_sample a, b;
	double dt, rate[NR_METRICS];
	bool was_switched = *switched, refused, backwards = false;
	char tlb[24], deferred[24], flushes[24];
	struct status st;
	int ret;
	unsigned int m;

	/*
	 * Switched before sending: a set that times out on our side may
	 * still be applied by the kernel.  Only a refusal from the kernel
	 * (all or nothing) says that nothing changed.
	 */
	*switched = true;
	ret = ab_set_enabled(n, e, &refused);
	if (ret) {
		if (refused)
			*switched = was_switched;
		return ret;
	}
	if (!lufctl_nap(o->settle))
		return EX_OK;
	ret = ab_sample(n, &a);
	if (ret)
		return ret;
	if (!lufctl_nap(o->interval))
		return EX_OK;
	ret = ab_sample(n, &b);
	if (ret)
		return ret;

	dt = b.t - a.t;
	for (m = 0; m < NR_METRICS; m++) {
		rate[m] = NAN;
		/* A counter missing from any sample counts as absent. */
		if (!a.have[m] || !b.have[m]) {
			run->present[m] = false;
			continue;
		}
		/*
		 * One that went down (luf reloaded, a CPU row gone from
		 * /proc/interrupts) has no rate: NaN leaves the round out.
		 */
		if (b.v[m] < a.v[m])
			backwards = true;
		else
			rate[m] = (double)(b.v[m] - a.v[m]) / dt;
		if (e)
			run->on[m][round] = rate[m];
		else
			run->off[m][round] = rate[m];
	}
	if (e)
		run->on_s[round] = dt;
	if (backwards)
		run->left_out++;
	if (isfinite(rate[M_TLB]) && isfinite(rate[M_PGMIGRATE])) {
		run->tlb_total[e] += b.v[M_TLB] - a.v[M_TLB];
		run->migrated_total[e] += b.v[M_PGMIGRATE] - a.v[M_PGMIGRATE];
	}
	if (o->verbose) {
		fmt_num(tlb, sizeof(tlb), rate[M_TLB], "%.1f");
		fmt_num(deferred, sizeof(deferred), rate[M_LUF_DEFERRED], "%.1f");
		fmt_num(flushes, sizeof(flushes), rate[M_LUF_FLUSHES], "%.1f");
		fprintf(stderr, "%s: round %u/%u enabled=%" PRIu32 ": tlb_shootdowns %s/s luf_deferred %s/s luf_flushes %s/s%s\n",
			LUFCTL_NAME, round + 1, run->rounds, e, tlb, deferred,
			flushes, backwards ? " (a counter went backwards)" : "");
	}

	/* Someone else switching luf meanwhile spoils the interval. */
	ret = lufctl_nl_get_status(n, &st);
	if (ret)
		return ret;
	if (st.have[LUF_A_STATUS_ENABLED] && st.v[LUF_A_STATUS_ENABLED] != e)
		lufctl_err("ab: warning: enabled changed to %" PRIu64 " during round %u, behind lufctl's back",
			   st.v[LUF_A_STATUS_ENABLED], round + 1);
	return EX_OK;
}

static int cmd_ab(struct opts *o, int argc, char **argv)
{
	struct ab_run run = { .rounds = o->rounds };
	struct lufctl_nl n = { 0 };
	bool switched = false;
	uint32_t orig = 0;
	struct status st;
	unsigned int m, r;
	int ret;

	/*
	 * A reader of stdout that went away must not kill lufctl with
	 * enabled left at 0: writes fail instead, and are reported.
	 */
	signal(SIGPIPE, SIG_IGN);
	run.on_s = calloc(o->rounds, sizeof(double));
	if (!run.on_s) {
		lufctl_err("out of memory");
		ret = EX_RUNTIME;
		goto out;
	}
	for (m = 0; m < NR_METRICS; m++) {
		run.off[m] = calloc(o->rounds, sizeof(double));
		run.on[m] = calloc(o->rounds, sizeof(double));
		if (!run.off[m] || !run.on[m]) {
			lufctl_err("out of memory");
			ret = EX_RUNTIME;
			goto out;
		}
	}
	ret = lufctl_nl_open(&n);
	if (ret)
		goto out;
	ret = lufctl_nl_get_status(&n, &st);
	if (ret)
		goto out;
	if (!st.have[LUF_A_STATUS_ENABLED]) {
		lufctl_err("ab: the kernel's status lacks enabled");
		ret = EX_RUNTIME;
		goto out;
	}
	orig = (uint32_t)st.v[LUF_A_STATUS_ENABLED];
	for (m = 0; m < NR_METRICS; m++)
		run.present[m] = true;

	/* From here on, every way out restores enabled. */
	lufctl_catch_stop_signals();
	for (r = 0; r < o->rounds && !ret && !lufctl_stop_signal(); r++) {
		/* off,on then on,off: a drift of the load cancels out. */
		uint32_t first = r % 2;

		ret = ab_interval(o, &n, &run, r, first, &switched);
		if (!ret && !lufctl_stop_signal())
			ret = ab_interval(o, &n, &run, r, !first, &switched);
		if (!ret && !lufctl_stop_signal())
			run.done = r + 1;
	}

	/* Nothing more on this socket: a late answer there is dropped. */
	lufctl_nl_close(&n);
	if (switched && ab_restore(orig)) {
		if (lufctl_stop_signal())
			lufctl_err("ab: interrupted by signal %d after %u of %u rounds",
				   lufctl_stop_signal(), run.done, run.rounds);
		ret = EX_RUNTIME;
		goto out;
	}
	if (lufctl_stop_signal()) {
		lufctl_err("ab: interrupted by signal %d after %u of %u rounds; enabled %s %"
			   PRIu32, lufctl_stop_signal(), run.done, run.rounds,
			   switched ? "restored to" : "left at", orig);
		ret = 128 + lufctl_stop_signal();
		goto out;
	}
	if (!ret)
		ret = ab_print(o, &run, orig);
out:
	lufctl_nl_close(&n);
	for (m = 0; m < NR_METRICS; m++) {
		free(run.off[m]);
		free(run.on[m]);
	}
	free(run.on_s);
	return ret;
}

const struct lufctl_command lufctl_cmd_ab = {
	.name		= "ab",
	.fn		= cmd_ab,
	.opts		= OPT_JSON | OPT_INTERVAL | OPT_ROUNDS | OPT_SETTLE,
	.interval	= 10,
	.synopsis	=
		"lufctl [-v] [--json] ab [--rounds N] [--interval S] [--settle S]",
	.help		=
"    ab [--rounds N] [--interval S] [--settle S]\n"
"        A live A/B test of luf on this host, for the workload running now.\n"
"        Each of N rounds (default 5) measures one interval of S seconds\n"
"        (default 10) with enabled=0 and one with enabled=1, in alternating\n"
"        order (off,on then on,off, ...) so that a drift of the workload\n"
"        cancels out; after each switch it waits --settle seconds (default\n"
"        0.5) before measuring.  Per interval it takes the per-second rates\n"
"        of: tlb_shootdowns (/proc/interrupts \"TLB:\"), the /proc/vmstat\n"
"        counters nr_tlb_remote_flush, nr_tlb_remote_flush_received,\n"
"        nr_tlb_local_flush_one, nr_tlb_local_flush_all (those need\n"
"        CONFIG_DEBUG_TLBFLUSH; \"absent\" otherwise), pgmigrate_success,\n"
"        pgdemote (pgdemote_kswapd + pgdemote_direct + pgdemote_khugepaged),\n"
"        pgpromote_success, and luf's deferred, pages_tagged, flushes and\n"
"        ipis.  For each it prints the mean +- standard deviation with luf\n"
"        off and on, the ratio on/off of the means, and the rounds' paired\n"
"        ratios on/off: their geometric mean and its 95% confidence\n"
"        interval, exp(m +- t(0.975, n-1) * s / sqrt(n)) for the mean m and\n"
"        standard deviation s of the rounds' log ratios (never negative,\n"
"        and as wide either way as a ratio's uncertainty is).  Rounds whose\n"
"        off value is 0 have no ratio and are left out (the number of\n"
"        rounds used is printed); an on value of 0 counts as half an event\n"
"        in its interval.  Then the TLB shootdowns per migrated page\n"
"        (tlb_shootdowns / pgmigrate_success) off and on, from the totals,\n"
"        and their paired interval.  A counter that went down during an\n"
"        interval (luf reloaded, a CPU gone from /proc/interrupts) makes\n"
"        that round invalid for its metric: it is left out, and the number\n"
"        of such intervals is printed.  The last line is the verdict, for\n"
"        example \"luf cut TLB shootdowns by 87% (95% CI 71% .. 94%) over 10\n"
"        rounds; pages migrated +18% (CI -5% .. +46%): luf helps\": judged\n"
"        on the interval of TLB shootdowns, it ends with \"luf helps\"\n"
"        (below no change; if pages migrated fell too, the shootdowns per\n"
"        migrated page must fall as well), \"luf adds TLB shootdowns\",\n"
"        \"no effect\" (within 10% either way), \"inconclusive\" (the\n"
"        interval spans no change, or one round gives none) or \"workload\n"
"        not steady enough to judge\": a round migrated no page while\n"
"        others did, or the off rounds vary (standard deviation of their\n"
"        logs) by more than the effect, 10% at least.  --json has the same\n"
"        as \"verdict\": judgement (helps, no_effect, adds, inconclusive,\n"
"        unsteady or no_data) and text.  The original value of enabled is\n"
"        restored at the end, on an error and on SIGINT, SIGTERM or SIGHUP,\n"
"        over a netlink socket of its own; if that fails, lufctl says so\n"
"        and exits with status 1.  Needs CAP_NET_ADMIN.  With -v, one\n"
"        progress line per interval on stderr.\n",
};
