// SPDX-License-Identifier: GPL-2.0
/*
 * ab's statistics: mean +- standard deviation of the rounds with luf off
 * and on, the ratio on/off of the means, and a 95% confidence interval of
 * the ratio from the rounds' paired ratios (Student's t).
 */
#include <math.h>
#include <stdlib.h>

#include "abstat.h"

/*
 * t(0.975, df): from the table for df = 1..30; beyond, interpolated
 * linearly in 1/df between the quantiles for df = 30, 40, 60, 120 and
 * infinity (the normal quantile), which is within 0.05% of the exact
 * value.
 */
double lufctl_abstat_t975(unsigned int df)
{
	static const double t[30] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	static const struct {
		double inv_df;		/* 1 / df */
		double t;
	} tail[] = {
		{ 1.0 / 30, 2.0423 }, { 1.0 / 40, 2.0211 }, { 1.0 / 60, 2.0003 },
		{ 1.0 / 120, 1.9799 }, { 0, 1.95996 },
	};
	double x = 1.0 / df;
	unsigned int i;

	if (!df)
		return NAN;
	if (df <= 30)
		return t[df - 1];
	for (i = 1; x < tail[i].inv_df; i++)
		;
	return tail[i].t + (tail[i - 1].t - tail[i].t) *
			   (x - tail[i].inv_df) /
			   (tail[i - 1].inv_df - tail[i].inv_df);
}

double lufctl_abstat_mean(const double *x, unsigned int n)
{
	double sum = 0;
	unsigned int i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / n;
}

/* Sample standard deviation; undefined (NaN) for fewer than 2 values. */
double lufctl_abstat_sd(const double *x, unsigned int n)
{
	double m = lufctl_abstat_mean(x, n), ss = 0;
	unsigned int i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (n - 1));
}

/* @on / @off, undefined (NaN) unless @off is above 0. */
double lufctl_abstat_ratio(double on, double off)
{
	return off > 0 ? on / off : NAN;
}

/*
 * @off and @on hold a rate per round, NaN where a counter went down
 * during the interval: such a round is left out, off and on alike.
 */
void lufctl_abstat_analyse(const double *off, const double *on,
			   unsigned int n, struct lufctl_abstat *r)
{
	double *x = calloc(3 * (size_t)(n ? n : 1), sizeof(*x));
	double *xoff = x, *xon = x + n, *pr = x + 2 * n;
	unsigned int i;

	r->n = 0;
	r->off_mean = NAN;
	r->off_sd = NAN;
	r->on_mean = NAN;
	r->on_sd = NAN;
	r->ratio = NAN;
	r->pr_n = 0;
	r->pr_mean = NAN;
	r->ci_lo = NAN;
	r->ci_hi = NAN;
	if (!x)
		return;
	for (i = 0; i < n; i++) {
		if (!isfinite(off[i]) || !isfinite(on[i]))
			continue;
		xoff[r->n] = off[i];
		xon[r->n] = on[i];
		r->n++;
		/* A round without off activity has no ratio: leave it out. */
		if (off[i] > 0)
			pr[r->pr_n++] = on[i] / off[i];
	}
	r->off_mean = lufctl_abstat_mean(xoff, r->n);
	r->off_sd = lufctl_abstat_sd(xoff, r->n);
	r->on_mean = lufctl_abstat_mean(xon, r->n);
	r->on_sd = lufctl_abstat_sd(xon, r->n);
	r->ratio = lufctl_abstat_ratio(r->on_mean, r->off_mean);
	r->pr_mean = lufctl_abstat_mean(pr, r->pr_n);
	if (r->pr_n >= 2) {
		double half = lufctl_abstat_t975(r->pr_n - 1) *
			      lufctl_abstat_sd(pr, r->pr_n) / sqrt(r->pr_n);

		r->ci_lo = r->pr_mean - half;
		r->ci_hi = r->pr_mean + half;
	}
	free(x);
}

