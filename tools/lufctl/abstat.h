/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of lufctl ab: per metric, a rate per round with luf off
 * and one with luf on, measured side by side.  Standalone (no libnl, no
 * lufctl.h) so that tests/host/abstat.sh can check it on known values.
 */
#ifndef LUFCTL_ABSTAT_H
#define LUFCTL_ABSTAT_H

/* What ab prints for one metric; NaN where a value is undefined. */
struct lufctl_abstat {
	unsigned int n;			/* valid rounds */
	double off_mean, off_sd, on_mean, on_sd, ratio;
	double pr_mean, ci_lo, ci_hi;	/* paired ratios */
	unsigned int pr_n;		/* rounds used for them */
};

double lufctl_abstat_t975(unsigned int df);
double lufctl_abstat_mean(const double *x, unsigned int n);
double lufctl_abstat_sd(const double *x, unsigned int n);
double lufctl_abstat_ratio(double on, double off);
void lufctl_abstat_analyse(const double *off, const double *on,
			   unsigned int n, struct lufctl_abstat *r);

#endif /* LUFCTL_ABSTAT_H */
