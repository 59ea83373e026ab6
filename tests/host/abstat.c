// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl ab's statistics (tools/lufctl/abstat.c) on samples whose results
 * were worked out by hand, on synthetic rounds of known ratio and spread
 * (their intervals and verdict lines), and on many random runs drawn from
 * a known distribution (the 95% interval must cover the true ratio in 95%
 * of them).  Built and run by tests/host/abstat.sh; prints one line per
 * wrong value and exits 1 if there is any.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "abstat.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Tolerances: equal but for rounding, and a value derived in steps. */
#define EXACT	1e-12
#define CLOSE	1e-9

static int failed;

/* @got within @tol of @want, or both undefined (NaN) when @want is. */
static void check(const char *what, double got, double want, double tol)
{
	if (isnan(want) ? isnan(got) : fabs(got - want) <= tol)
		return;
	printf("%s = %.9g, not %.9g\n", what, got, want);
	failed = 1;
}

static void check_n(const char *what, unsigned int got, unsigned int want)
{
	if (got == want)
		return;
	printf("%s = %u, not %u\n", what, got, want);
	failed = 1;
}

static void test_mean_sd(void)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

	/* Sum 40 over 8; squares of the deviations sum to 32, over 8 - 1. */
	check("mean(2 4 4 4 5 5 7 9)", lufctl_abstat_mean(x, 8), 5, EXACT);
	check("sd(2 4 4 4 5 5 7 9)", lufctl_abstat_sd(x, 8), sqrt(32.0 / 7),
	      EXACT);
	check("mean of nothing", lufctl_abstat_mean(x, 0), NAN, 0);
	check("sd of one value", lufctl_abstat_sd(x, 1), NAN, 0);
}

static void test_t975(void)
{
	/*
	 * Exact quantiles t(0.975, df), from the regularized incomplete beta
	 * function: the table (df <= 30) holds them rounded to 3 decimals,
	 * and the interpolation beyond is said to be within 0.05% of them.
	 */
	static const double exact[30] = {
		12.70620, 4.30265, 3.18245, 2.77645, 2.57058, 2.44691,
		2.36462, 2.30600, 2.26216, 2.22814, 2.20099, 2.17881,
		2.16037, 2.14479, 2.13145, 2.11991, 2.10982, 2.10092,
		2.09302, 2.08596, 2.07961, 2.07387, 2.06866, 2.06390,
		2.05954, 2.05553, 2.05183, 2.04841, 2.04523, 2.04227,
	};
	static const struct {
		unsigned int df;
		double t;
	} beyond[] = {
		{ 35, 2.030108 }, { 45, 2.014103 }, { 50, 2.008559 },
		{ 100, 1.983972 }, { 200, 1.971896 }, { 1000, 1.962339 },
	};
	unsigned int i;
	char what[64];

	check("t975(0)", lufctl_abstat_t975(0), NAN, 0);
	for (i = 0; i < 30; i++) {
		snprintf(what, sizeof(what), "t975(%u)", i + 1);
		check(what, lufctl_abstat_t975(i + 1), exact[i], 5.1e-4);
	}
	check("t975(1)", lufctl_abstat_t975(1), 12.706, EXACT);
	check("t975(30)", lufctl_abstat_t975(30), 2.042, EXACT);
	/* The tail's own points, and linear in 1/df between them. */
	check("t975(40)", lufctl_abstat_t975(40), 2.0211, EXACT);
	check("t975(120)", lufctl_abstat_t975(120), 1.9799, EXACT);
	check("t975(35)", lufctl_abstat_t975(35),
	      2.0211 + 0.0212 * 3 / 7, CLOSE);
	for (i = 0; i < ARRAY_SIZE(beyond); i++) {
		snprintf(what, sizeof(what), "t975(%u) / exact", beyond[i].df);
		check(what, lufctl_abstat_t975(beyond[i].df) / beyond[i].t, 1,
		      5e-4);
	}
}

static void test_ratio(void)
{
	/* What ab prints as on/off and as TLB shootdowns per page. */
	check("ratio(9.5, 17.5)", lufctl_abstat_ratio(9.5, 17.5), 19.0 / 35,
	      EXACT);
	check("ratio(30, 1000)", lufctl_abstat_ratio(30, 1000), 0.03, EXACT);
	check("ratio(0, 4)", lufctl_abstat_ratio(0, 4), 0, 0);
	check("ratio(1, 0)", lufctl_abstat_ratio(1, 0), NAN, 0);
	check("ratio(1, -2)", lufctl_abstat_ratio(1, -2), NAN, 0);
	check("ratio(1, NaN)", lufctl_abstat_ratio(1, NAN), NAN, 0);
}

static void check_s(const char *what, const char *got, const char *want)
{
	if (!strcmp(got, want))
		return;
	printf("%s:\n  got  '%s'\n  want '%s'\n", what, got, want);
	failed = 1;
}

static void test_logci(void)
{
	/*
	 * Log ratios ln 0.5 +- 0.2 (and one left out): mean ln 0.5, sd
	 * sqrt(4 * 0.04 / 3); the interval 0.5 * exp(+-t975(3) * sd / 2).
	 */
	double l = log(0.5), sd = sqrt(0.16 / 3), half = 3.182 * sd / 2;
	double lx[] = { l + 0.2, l - 0.2, NAN, l + 0.2, l - 0.2 };
	struct lufctl_logci c;

	lufctl_abstat_logci(lx, 5, &c);
	check_n("logci: rounds", c.n, 4);
	check("logci: geometric mean", c.gm, 0.5, CLOSE);
	check("logci: sd", c.sd, sd, CLOSE);
	check("logci: low", c.lo, 0.5 * exp(-half), CLOSE);
	check("logci: high", c.hi, 0.5 * exp(half), CLOSE);
	lufctl_abstat_logci(lx, 1, &c);
	check("logci: one round, mean", c.gm, 0.5 * exp(0.2), CLOSE);
	check("logci: one round, no interval", c.lo, NAN, 0);
	lufctl_abstat_logci(lx, 0, &c);
	check("logci: nothing", c.gm, NAN, 0);
}

static void test_analyse(void)
{
	/*
	 * Five rounds.  The fifth has no off rate (a counter went down): it
	 * is left out, off and on alike.  The third has off = 0: it counts
	 * for the means but has no paired ratio.
	 *   off 10 20 0 40: mean 17.5, squares of deviations 875 over 3
	 *   on   5 12 3 18: mean 9.5, squares of deviations 141 over 3
	 *   paired ratios 0.5 0.6 0.45: geometric mean 0.135^(1/3), and the
	 *   interval of their logs with t975(2); log off rates ln 10 + k ln 2
	 *   (k = 0, 1, 2): sd ln 2
	 */
	static const double off[] = { 10, 20, 0, 40, NAN };
	static const double on[] = { 5, 12, 3, 18, 7 };
	double lr[] = { log(0.5), log(0.6), log(0.45) }, logr[5];
	double m = (lr[0] + lr[1] + lr[2]) / 3, ss = 0, half;
	struct lufctl_abstat r;
	unsigned int i;

	for (i = 0; i < 3; i++)
		ss += (lr[i] - m) * (lr[i] - m);
	half = 4.303 * sqrt(ss / 2) / sqrt(3);
	lufctl_abstat_analyse(off, on, NULL, 5, &r, logr);
	check_n("rounds", r.n, 4);
	check("off_mean", r.off_mean, 17.5, EXACT);
	check("off_sd", r.off_sd, sqrt(875.0 / 3), CLOSE);
	check("on_mean", r.on_mean, 9.5, EXACT);
	check("on_sd", r.on_sd, sqrt(141.0 / 3), CLOSE);
	check("ratio", r.ratio, 19.0 / 35, EXACT);
	check_n("ratio rounds", r.pr.n, 3);
	check("geometric mean", r.pr.gm, cbrt(0.135), CLOSE);
	check("ci95 low", r.pr.lo, exp(m - half), CLOSE);
	check("ci95 high", r.pr.hi, exp(m + half), CLOSE);
	/* As figures (the linear interval was 0.327 .. 0.706). */
	check("ci95 low (figure)", r.pr.lo, 0.3573353, 1e-7);
	check("ci95 high (figure)", r.pr.hi, 0.7364556, 1e-7);
	check("off log sd", r.off_log_sd, log(2), CLOSE);
	check("log ratio of round 2", logr[1], log(0.6), CLOSE);
	check("log ratio of round 3 (off 0)", logr[2], NAN, 0);
	check("log ratio of round 5 (left out)", logr[4], NAN, 0);
	check_n("first round without activity", r.zero_round, 3);
	check_n("... with luf off", r.zero_round_on, 0);

	/*
	 * Bursty rounds whose linear interval runs below zero (ratios 0.3,
	 * 0.05 and 0.145: mean 0.165, half width 0.313): on the log scale
	 * it stays above it, around the geometric mean.
	 */
	{
		static const double boff[] = { 20, 400, 200 };
		static const double bon[] = { 6, 20, 29 };

		lufctl_abstat_analyse(boff, bon, NULL, 3, &r, NULL);
		if (!(r.pr.lo > 0 && r.pr.lo < r.pr.gm && r.pr.gm < r.pr.hi)) {
			printf("bursty rounds: interval %g .. %g around %g\n",
			       r.pr.lo, r.pr.hi, r.pr.gm);
			failed = 1;
		}
		check("bursty rounds: geometric mean", r.pr.gm,
		      cbrt(0.3 * 0.05 * 0.145), CLOSE);
	}
	/*
	 * luf takes every event away in one round: half an event over its
	 * 2 s counts, 0.25/s against 100/s.
	 */
	{
		static const double zoff[] = { 100, 100 };
		static const double zon[] = { 0, 10 };
		static const double zs[] = { 2, 2 };

		lufctl_abstat_analyse(zoff, zon, zs, 2, &r, NULL);
		check_n("on zero: ratio rounds", r.pr.n, 2);
		check_n("on zero: counted", r.pr_zero, 1);
		check("on zero: geometric mean", r.pr.gm, sqrt(0.0025 * 0.1),
		      CLOSE);
		check_n("on zero: first such round", r.zero_round, 1);
		check_n("on zero: ... with luf on", r.zero_round_on, 1);
	}
	/* Off never active: no ratio, no interval. */
	{
		static const double zero[] = { 0, 0 };
		static const double some[] = { 3, 5 };

		lufctl_abstat_analyse(zero, some, NULL, 2, &r, NULL);
		check_n("all-zero off: rounds", r.n, 2);
		check("all-zero off: on_mean", r.on_mean, 4, EXACT);
		check("all-zero off: ratio", r.ratio, NAN, 0);
		check_n("all-zero off: ratio rounds", r.pr.n, 0);
		check("all-zero off: geometric mean", r.pr.gm, NAN, 0);
		check("all-zero off: ci95 low", r.pr.lo, NAN, 0);
		check_n("all-zero off: not all zero", r.all_zero, 0);
		lufctl_abstat_analyse(zero, zero, NULL, 2, &r, NULL);
		check_n("nothing at all: all zero", r.all_zero, 1);
	}
	/* One usable round: means, but no spread and no interval. */
	{
		static const double one_off[] = { 8 };
		static const double one_on[] = { 2 };

		lufctl_abstat_analyse(one_off, one_on, NULL, 1, &r, NULL);
		check("one round: ratio", r.ratio, 0.25, EXACT);
		check("one round: off_sd", r.off_sd, NAN, 0);
		check("one round: geometric mean", r.pr.gm, 0.25, CLOSE);
		check("one round: ci95 high", r.pr.hi, NAN, 0);
	}
	/* No round at all (ab interrupted before the first one ended). */
	lufctl_abstat_analyse(off, on, NULL, 0, &r, NULL);
	check_n("no round: rounds", r.n, 0);
	check("no round: off_mean", r.off_mean, NAN, 0);
	check("no round: ratio", r.ratio, NAN, 0);
}

/*
 * Synthetic rounds of a known ratio and spread: off rates 1000 * e^(+-@os)
 * (two up, two down: their logs' sd is @os * sqrt(9.6 / 9)) and on = off *
 * @g * e^(+-@d), alternating by round (@flip: the other way), so that over
 * 10 rounds the log ratios have mean ln @g and standard deviation
 * @d * sqrt(10 / 9) exactly: the interval is @g * exp(+-t975(9) * @d / 3).
 */
#define R	10
struct series {
	double off[R], on[R], logr[R];
	struct lufctl_abstat r;
};

static void synth(struct series *s, double g, double d, double os, bool flip)
{
	unsigned int i;

	for (i = 0; i < R; i++) {
		bool up = (i % 2 == 0) != flip;

		s->off[i] = 1000 * exp(i % 4 < 2 ? os : -os);
		s->on[i] = s->off[i] * g * exp(up ? d : -d);
	}
	lufctl_abstat_analyse(s->off, s->on, NULL, R, &s->r, s->logr);
}

static void verdict_of(const char *what, struct series *tlb,
		       struct series *mig, enum lufctl_abjudgement want_j,
		       const char *want)
{
	struct lufctl_logci pp;
	struct lufctl_abverdict v;

	if (tlb && mig)
		lufctl_abstat_logdiff(tlb->logr, mig->logr, R, &pp);
	lufctl_abstat_verdict(tlb ? &tlb->r : NULL, mig ? &mig->r : NULL,
			      tlb && mig ? &pp : NULL, &v);
	check_s(what, v.line, want);
	check_n(what, v.judgement, want_j);
}

static void test_verdict(void)
{
	struct series tlb, mig;
	struct lufctl_abstat one;

	synth(&tlb, 0.13, 0.1, 0.05, false);
	check("synthetic: geometric mean", tlb.r.pr.gm, 0.13, CLOSE);
	check("synthetic: ci95 low", tlb.r.pr.lo, 0.13 * exp(-2.262 * 0.1 / 3),
	      CLOSE);
	check("synthetic: ci95 high", tlb.r.pr.hi,
	      0.13 * exp(2.262 * 0.1 / 3), CLOSE);
	check("synthetic: off log sd", tlb.r.off_log_sd, 0.05 * sqrt(9.6 / 9),
	      CLOSE);
	synth(&mig, 1.18, 0.3, 0.05, false);
	verdict_of("helps", &tlb, &mig, AB_HELPS,
		   "luf cut TLB shootdowns by 87% (95% CI 86% .. 88%) over 10 rounds; pages migrated +18% (CI -6% .. +48%): luf helps");
	mig.on[3] = 0;
	lufctl_abstat_analyse(mig.off, mig.on, NULL, R, &mig.r, mig.logr);
	mig.off[1] = 0;
	lufctl_abstat_analyse(mig.off, mig.on, NULL, R, &mig.r, mig.logr);
	{
		struct lufctl_abverdict v;
		const char *tail = ": workload not steady enough to judge: no page migrated in round 2 with luf off";

		lufctl_abstat_verdict(&tlb.r, &mig.r, NULL, &v);
		if (strlen(v.line) < strlen(tail) ||
		    strcmp(v.line + strlen(v.line) - strlen(tail), tail)) {
			printf("no migration in a round: '%s'\n", v.line);
			failed = 1;
		}
		check_n("no migration in a round", v.judgement, AB_UNSTEADY);
	}
	memset(mig.off, 0, sizeof(mig.off));
	memset(mig.on, 0, sizeof(mig.on));
	lufctl_abstat_analyse(mig.off, mig.on, NULL, R, &mig.r, mig.logr);
	verdict_of("no migration at all", &tlb, &mig, AB_HELPS,
		   "luf cut TLB shootdowns by 87% (95% CI 86% .. 88%) over 10 rounds; no page migrated: luf helps");

	synth(&tlb, 0.95, 0.01, 0.5, false);
	verdict_of("off rounds vary more than the effect", &tlb, NULL,
		   AB_UNSTEADY,
		   "luf cut TLB shootdowns by 5% (95% CI 4% .. 6%) over 10 rounds: workload not steady enough to judge: the rounds with luf off vary by 68%, more than the effect");
	synth(&tlb, 1.02, 0.05, 0.05, false);
	verdict_of("no effect", &tlb, NULL, AB_NO_EFFECT,
		   "luf raised TLB shootdowns by 2% (95% CI -2% .. 6%) over 10 rounds: no effect (within 10%)");
	synth(&tlb, 0.9, 0.3, 0.05, false);
	verdict_of("inconclusive", &tlb, NULL, AB_INCONCLUSIVE,
		   "luf cut TLB shootdowns by 10% (95% CI -13% .. 28%) over 10 rounds: inconclusive: the interval spans no change; run more rounds");
	synth(&tlb, 1.5, 0.05, 0.05, false);
	verdict_of("adds", &tlb, NULL, AB_ADDS,
		   "luf raised TLB shootdowns by 50% (95% CI 44% .. 56%) over 10 rounds: luf adds TLB shootdowns");
	/* Fewer pages migrated too: judged per migrated page (0.2 +- 0.1). */
	synth(&tlb, 0.1, 0.05, 0.05, false);
	synth(&mig, 0.5, 0.05, 0.05, true);
	verdict_of("helps per page", &tlb, &mig, AB_HELPS,
		   "luf cut TLB shootdowns by 90% (95% CI 90% .. 90%) over 10 rounds; pages migrated -50% (CI -52% .. -48%): luf helps, also per migrated page (cut 80%, CI 78% .. 81%)");
	synth(&tlb, 0.5, 0.1, 0.05, false);
	synth(&mig, 0.5, 0.1, 0.05, true);
	verdict_of("as many per page", &tlb, &mig, AB_INCONCLUSIVE,
		   "luf cut TLB shootdowns by 50% (95% CI 46% .. 54%) over 10 rounds; pages migrated -50% (CI -54% .. -46%): inconclusive: pages migrated fell as much");

	{
		static const double off1[] = { 100 }, on1[] = { 13 };
		struct lufctl_abverdict v;

		lufctl_abstat_analyse(off1, on1, NULL, 1, &one, NULL);
		lufctl_abstat_verdict(&one, NULL, NULL, &v);
		check_s("one round", v.line,
			"luf cut TLB shootdowns by 87% over 1 round: inconclusive: one round gives no interval; run more rounds");
		lufctl_abstat_analyse(off1, on1, NULL, 0, &one, NULL);
		lufctl_abstat_verdict(&one, NULL, NULL, &v);
		check_s("no round", v.line, "no complete round: no verdict");
		lufctl_abstat_verdict(NULL, NULL, NULL, &v);
		check_s("no TLB counter", v.line,
			"no TLB shootdown counter on this host (/proc/interrupts has no TLB row): no verdict");
		check_s("no TLB counter: name", v.name, "no_data");
	}
	{
		static const double z[3] = { 0 }, s3[] = { 1, 2, 3 };
		struct lufctl_abverdict v;

		lufctl_abstat_analyse(z, s3, NULL, 3, &one, NULL);
		lufctl_abstat_verdict(&one, NULL, NULL, &v);
		check_s("no TLB shootdowns off", v.line,
			"no TLB shootdowns with luf off in 3 rounds: nothing for luf to cut");
	}
}

/*
 * make check's lufctl-ab test, one run (6 rounds of 5 s, migbench): TLB
 * shootdowns and pages migrated per second.  Fewer pages migrated with
 * luf on, and far fewer shootdowns per page: luf helps.
 */
static void test_real_rounds(void)
{
	static const double toff[] = { 36.305, 40.339, 33.232, 32.643, 40.250, 41.960 };
	static const double ton[] = { 2.369, 2.385, 2.574, 2.962, 2.769, 2.359 };
	static const double moff[] = { 6970.590, 7361.607, 6342.696, 5910.859, 7345.465, 7365.736 };
	static const double mon[] = { 3335.503, 3562.201, 3750.774, 3134.085, 3139.031, 4126.955 };
	double lt[6], lm[6];
	struct lufctl_abstat t, m;
	struct lufctl_logci pp;
	struct lufctl_abverdict v;

	lufctl_abstat_analyse(toff, ton, NULL, 6, &t, lt);
	lufctl_abstat_analyse(moff, mon, NULL, 6, &m, lm);
	lufctl_abstat_logdiff(lt, lm, 6, &pp);
	lufctl_abstat_verdict(&t, &m, &pp, &v);
	if (!(t.pr.lo > 0 && t.pr.hi < 0.1) || v.judgement != AB_HELPS) {
		printf("real rounds: %g .. %g: %s\n", t.pr.lo, t.pr.hi, v.line);
		failed = 1;
	}
}

/* xorshift64*: the same random numbers on every host. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((rng * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(void)
{
	double u = uniform();

	while (u <= 0)
		u = uniform();
	return sqrt(-2 * log(u)) * cos(2 * M_PI * uniform());
}

/*
 * Runs of @n rounds whose log ratios are normal around ln 0.3 with sd
 * 0.5, off rates drifting by a factor e^N(0, 0.3): the interval covers 0.3
 * in 95% of 4000 runs (binomial sd 0.34%: 93.5% .. 96.5% is 4.4 sd).
 */
static void test_coverage(unsigned int n)
{
	double off[30], on[30];
	unsigned int run, i, covered = 0;
	struct lufctl_abstat r;
	char what[64];

	for (run = 0; run < 4000; run++) {
		for (i = 0; i < n; i++) {
			off[i] = 500 * exp(0.3 * normal());
			on[i] = off[i] * 0.3 * exp(0.5 * normal());
		}
		lufctl_abstat_analyse(off, on, NULL, n, &r, NULL);
		if (r.pr.lo <= 0.3 && 0.3 <= r.pr.hi)
			covered++;
		if (!(r.pr.lo > 0)) {
			printf("coverage: an interval reaches %g\n", r.pr.lo);
			failed = 1;
			return;
		}
	}
	snprintf(what, sizeof(what), "coverage with %u rounds", n);
	check(what, covered / 4000.0, 0.95, 0.015);
}

int main(void)
{
	test_mean_sd();
	test_t975();
	test_ratio();
	test_logci();
	test_analyse();
	test_verdict();
	test_real_rounds();
	test_coverage(3);
	test_coverage(10);
	test_coverage(30);
	return failed;
}
