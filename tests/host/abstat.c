// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl ab's statistics (tools/lufctl/abstat.c) on samples whose results
 * were worked out by hand.  Built and run by tests/host/abstat.sh; prints
 * one line per wrong value and exits 1 if there is any.
 */
#include <math.h>
#include <stdio.h>

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

static void test_analyse(void)
{
	/*
	 * Five rounds.  The fifth has no off rate (a counter went down): it
	 * is left out, off and on alike.  The third has off = 0: it counts
	 * for the means but has no paired ratio.
	 *   off 10 20 0 40: mean 17.5, squares of deviations 875 over 3
	 *   on   5 12 3 18: mean 9.5, squares of deviations 141 over 3
	 *   paired ratios 0.5 0.6 0.45: mean 31/60, squares of deviations
	 *   0.0116667 over 2; half width t975(2) * sd / sqrt(3)
	 */
	static const double off[] = { 10, 20, 0, 40, NAN };
	static const double on[] = { 5, 12, 3, 18, 7 };
	double sd = sqrt(0.035 / 3 / 2), half = 4.303 * sd / sqrt(3);
	struct lufctl_abstat r;

	lufctl_abstat_analyse(off, on, 5, &r);
	check_n("rounds", r.n, 4);
	check("off_mean", r.off_mean, 17.5, EXACT);
	check("off_sd", r.off_sd, sqrt(875.0 / 3), CLOSE);
	check("on_mean", r.on_mean, 9.5, EXACT);
	check("on_sd", r.on_sd, sqrt(141.0 / 3), CLOSE);
	check("ratio", r.ratio, 19.0 / 35, EXACT);
	check_n("ratio rounds", r.pr_n, 3);
	check("paired ratio mean", r.pr_mean, 31.0 / 60, EXACT);
	check("ci95 low", r.ci_lo, 31.0 / 60 - half, CLOSE);
	check("ci95 high", r.ci_hi, 31.0 / 60 + half, CLOSE);
	/* As figures: 0.3269222 .. 0.7064111 (worked out separately). */
	check("ci95 low (figure)", r.ci_lo, 0.3269222, 1e-7);
	check("ci95 high (figure)", r.ci_hi, 0.7064111, 1e-7);

	/* Off never active: no ratio, no interval. */
	{
		static const double zero[] = { 0, 0 };
		static const double some[] = { 3, 5 };

		lufctl_abstat_analyse(zero, some, 2, &r);
		check_n("all-zero off: rounds", r.n, 2);
		check("all-zero off: on_mean", r.on_mean, 4, EXACT);
		check("all-zero off: ratio", r.ratio, NAN, 0);
		check_n("all-zero off: ratio rounds", r.pr_n, 0);
		check("all-zero off: paired mean", r.pr_mean, NAN, 0);
		check("all-zero off: ci95 low", r.ci_lo, NAN, 0);
	}
	/* One usable round: means, but no spread and no interval. */
	{
		static const double one_off[] = { 8 };
		static const double one_on[] = { 2 };

		lufctl_abstat_analyse(one_off, one_on, 1, &r);
		check("one round: ratio", r.ratio, 0.25, EXACT);
		check("one round: off_sd", r.off_sd, NAN, 0);
		check("one round: paired mean", r.pr_mean, 0.25, EXACT);
		check("one round: ci95 high", r.ci_hi, NAN, 0);
	}
	/* No round at all (ab interrupted before the first one ended). */
	lufctl_abstat_analyse(off, on, 0, &r);
	check_n("no round: rounds", r.n, 0);
	check("no round: off_mean", r.off_mean, NAN, 0);
	check("no round: ratio", r.ratio, NAN, 0);
}

int main(void)
{
	test_mean_sd();
	test_t975();
	test_ratio();
	test_analyse();
	return failed;
}
