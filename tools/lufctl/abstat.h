/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of lufctl ab: per metric, a rate per round with luf off
 * and one with luf on, measured side by side.  Standalone (no libnl, no
 * lufctl.h) so that tests/host/abstat.sh can check it on known values.
 */
#ifndef LUFCTL_ABSTAT_H
#define LUFCTL_ABSTAT_H

#include <stdbool.h>

/*
 * A 95% interval of a ratio from per-round log ratios: the geometric mean
 * exp(mean), and exp(mean +- t(0.975, n-1) * sd / sqrt(n)).  A ratio's
 * interval is not symmetric on the linear scale; on the log scale it is,
 * and back-transformed it is never negative.  NaN where undefined.
 */
struct lufctl_logci {
	unsigned int n;			/* rounds */
	double gm, lo, hi;
	double sd;			/* of the log ratios */
};

/* What ab prints for one metric; NaN where a value is undefined. */
struct lufctl_abstat {
	unsigned int n;			/* valid rounds */
	double off_mean, off_sd, on_mean, on_sd, ratio;
	struct lufctl_logci pr;		/* paired ratios on/off (off above 0) */
	unsigned int pr_zero;		/* of those, rounds with on == 0 */
	double off_log_sd;		/* sd of log(off) over the same rounds */
	/* The first valid round with no activity off or on, and which. */
	unsigned int zero_round;	/* 1-based; 0: none */
	bool zero_round_on;
	bool all_zero;			/* no activity in any valid round */
};

double lufctl_abstat_t975(unsigned int df);
double lufctl_abstat_mean(const double *x, unsigned int n);
double lufctl_abstat_sd(const double *x, unsigned int n);
double lufctl_abstat_ratio(double on, double off);
void lufctl_abstat_logci(const double *lx, unsigned int n,
			 struct lufctl_logci *c);
void lufctl_abstat_logdiff(const double *a, const double *b, unsigned int n,
			   struct lufctl_logci *c);
void lufctl_abstat_analyse(const double *off, const double *on,
			   const double *on_s, unsigned int n,
			   struct lufctl_abstat *r, double *logr);

/*
 * The verdict line of ab, from TLB shootdowns (@tlb), pages migrated (@mig,
 * NULL if the kernel has no such counter) and TLB shootdowns per migrated
 * page (@per_page: the rounds' log ratios of tlb minus those of mig).
 */
enum lufctl_abjudgement {
	AB_HELPS,		/* fewer shootdowns, and not for less work */
	AB_NO_EFFECT,		/* the interval lies within +-10% */
	AB_ADDS,		/* more shootdowns with luf on */
	AB_INCONCLUSIVE,	/* the interval spans no change, or none */
	AB_UNSTEADY,		/* the workload does not allow a judgement */
	AB_NO_DATA,		/* nothing to judge on */
};

struct lufctl_abverdict {
	enum lufctl_abjudgement judgement;
	const char *name;		/* "helps", "no_effect", ... for JSON */
	char line[512];
};

/* An effect smaller than this (10%) counts as none. */
#define LUFCTL_AB_NO_EFFECT	1.1

void lufctl_abstat_verdict(const struct lufctl_abstat *tlb,
			   const struct lufctl_abstat *mig,
			   const struct lufctl_logci *per_page,
			   struct lufctl_abverdict *v);

#endif /* LUFCTL_ABSTAT_H */
