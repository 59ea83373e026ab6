// SPDX-License-Identifier: GPL-2.0
/*
 * ab's statistics: mean +- standard deviation of the rounds with luf off
 * and on, the ratio on/off of the means, and a 95% confidence interval of
 * the ratio from the rounds' paired ratios, on the log scale (Student's t
 * on the log ratios, back-transformed: a geometric mean and an interval
 * that is never negative); then one line of verdict.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The log ratios @lx (NaN: left out) as a geometric mean and interval. */
void lufctl_abstat_logci(const double *lx, unsigned int n,
			 struct lufctl_logci *c)
{
	double *x = calloc(n ? n : 1, sizeof(*x));
	unsigned int i;

	c->n = 0;
	c->gm = NAN;
	c->lo = NAN;
	c->hi = NAN;
	c->sd = NAN;
	if (!x)
		return;
	for (i = 0; i < n; i++)
		if (isfinite(lx[i]))
			x[c->n++] = lx[i];
	if (c->n) {
		double m = lufctl_abstat_mean(x, c->n);

		c->gm = exp(m);
		if (c->n >= 2) {
			double half;

			c->sd = lufctl_abstat_sd(x, c->n);
			half = lufctl_abstat_t975(c->n - 1) * c->sd / sqrt(c->n);
			c->lo = exp(m - half);
			c->hi = exp(m + half);
		}
	}
	free(x);
}

/*
 * The interval of a ratio of ratios, such as TLB shootdowns per migrated
 * page: each round's log ratio of @a minus that of @b.
 */
void lufctl_abstat_logdiff(const double *a, const double *b, unsigned int n,
			   struct lufctl_logci *c)
{
	double *d = calloc(n ? n : 1, sizeof(*d));
	unsigned int i;

	if (!d) {
		lufctl_abstat_logci(NULL, 0, c);
		return;
	}
	for (i = 0; i < n; i++)
		d[i] = a[i] - b[i];
	lufctl_abstat_logci(d, n, c);
	free(d);
}

/*
 * @off and @on hold a rate per round, NaN where a counter went down
 * during the interval: such a round is left out, off and on alike.
 * @on_s holds the on intervals' lengths in seconds (NULL: 1 s, the rates
 * are counts).  A round with off == 0 has no ratio and is left out of it;
 * one with on == 0 counts half an event over its interval (the usual
 * continuity correction), so that luf taking every event away gives a
 * finite log ratio instead of none.  @logr, if given, receives each
 * round's log ratio, NaN where it has none.
 */
void lufctl_abstat_analyse(const double *off, const double *on,
			   const double *on_s, unsigned int n,
			   struct lufctl_abstat *r, double *logr)
{
	double *x = calloc(4 * (size_t)(n ? n : 1), sizeof(*x));
	double *xoff = x, *xon = x + n, *lr = x + 2 * n, *loff = x + 3 * n;
	unsigned int i, nlr = 0, active = 0;

	r->n = 0;
	r->off_mean = NAN;
	r->off_sd = NAN;
	r->on_mean = NAN;
	r->on_sd = NAN;
	r->ratio = NAN;
	r->pr_zero = 0;
	r->off_log_sd = NAN;
	r->zero_round = 0;
	r->zero_round_on = false;
	r->all_zero = false;
	lufctl_abstat_logci(NULL, 0, &r->pr);
	for (i = 0; logr && i < n; i++)
		logr[i] = NAN;
	if (!x)
		return;
	for (i = 0; i < n; i++) {
		double o;

		lr[i] = NAN;
		if (!isfinite(off[i]) || !isfinite(on[i]))
			continue;
		xoff[r->n] = off[i];
		xon[r->n] = on[i];
		r->n++;
		if (off[i] > 0 || on[i] > 0)
			active++;
		if (!r->zero_round && (off[i] <= 0 || on[i] <= 0)) {
			r->zero_round = i + 1;
			r->zero_round_on = off[i] > 0;
		}
		/* A round without off activity has no ratio: leave it out. */
		if (off[i] <= 0)
			continue;
		o = on[i];
		if (o <= 0) {
			o = 0.5 / (on_s ? on_s[i] : 1);
			r->pr_zero++;
		}
		lr[i] = log(o / off[i]);
		loff[nlr++] = log(off[i]);
		if (logr)
			logr[i] = lr[i];
	}
	r->off_mean = lufctl_abstat_mean(xoff, r->n);
	r->off_sd = lufctl_abstat_sd(xoff, r->n);
	r->on_mean = lufctl_abstat_mean(xon, r->n);
	r->on_sd = lufctl_abstat_sd(xon, r->n);
	r->ratio = lufctl_abstat_ratio(r->on_mean, r->off_mean);
	lufctl_abstat_logci(lr, n, &r->pr);
	r->off_log_sd = lufctl_abstat_sd(loff, nlr);
	r->all_zero = r->n && !active;
	free(x);
}

static const char *const judgement_names[] = {
	[AB_HELPS]		= "helps",
	[AB_NO_EFFECT]		= "no_effect",
	[AB_ADDS]		= "adds",
	[AB_INCONCLUSIVE]	= "inconclusive",
	[AB_UNSTEADY]		= "unsteady",
	[AB_NO_DATA]		= "no_data",
};

/* A percentage, whole unless that would round 99.7 up to 100. */
static const char *pct(char *buf, size_t len, double p, bool sign)
{
	double a = fabs(p);

	if (a < 0.5)
		p = 0;
	if (a >= 99.5 && a < 100)
		snprintf(buf, len, sign ? "%+.1f%%" : "%.1f%%", p);
	else
		snprintf(buf, len, sign ? "%+.0f%%" : "%.0f%%", p);
	return buf;
}

/* Append to @v's line. */
static void __attribute__((format(printf, 2, 3)))
say(struct lufctl_abverdict *v, const char *fmt, ...)
{
	size_t used = strlen(v->line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->line + used, sizeof(v->line) - used, fmt, ap);
	va_end(ap);
}

/* "by 87% (95% CI 71% .. 94%)": a cut, or a rise, in percent. */
static void say_change(struct lufctl_abverdict *v, const char *what,
		       const struct lufctl_logci *c)
{
	bool cut = c->gm < 1;
	double s = cut ? -100 : 100;
	char a[16], b[16], m[16];

	say(v, "luf %s %s by %s", cut ? "cut" : "raised", what,
	    pct(m, sizeof(m), s * (c->gm - 1), false));
	if (c->n >= 2)
		say(v, " (95%% CI %s .. %s)",
		    pct(a, sizeof(a), s * ((cut ? c->hi : c->lo) - 1), false),
		    pct(b, sizeof(b), s * ((cut ? c->lo : c->hi) - 1), false));
	say(v, " over %u round%s", c->n, c->n == 1 ? "" : "s");
}

/*
 * Judged on TLB shootdowns, their interval against 1.  Not judged: a run
 * where a round migrated nothing while others did (the workload stopped or
 * paused, so that round's ratio measures the pause), or whose off rounds
 * vary by more than the effect (a drift of that size within a round can
 * make or hide the effect; at least LUFCTL_AB_NO_EFFECT, so that a
 * workload luf does not change is not called unsteady for its noise).
 * Fewer shootdowns count as help unless pages migrated fell too and the
 * shootdowns per migrated page did not.
 */
void lufctl_abstat_verdict(const struct lufctl_abstat *tlb,
			   const struct lufctl_abstat *mig,
			   const struct lufctl_logci *per_page,
			   struct lufctl_abverdict *v)
{
	const struct lufctl_logci *c;
	char a[16], b[16], m[16];
	double effect;

	v->line[0] = '\0';
	v->judgement = AB_NO_DATA;
	if (!tlb) {
		say(v, "no TLB shootdown counter on this host (/proc/interrupts has no TLB row): no verdict");
		goto out;
	}
	c = &tlb->pr;
	if (!tlb->n) {
		say(v, "no complete round: no verdict");
		goto out;
	}
	if (!c->n) {
		say(v, "no TLB shootdowns with luf off in %u round%s: nothing for luf to cut",
		    tlb->n, tlb->n == 1 ? "" : "s");
		goto out;
	}
	say_change(v, "TLB shootdowns", c);
	if (mig && mig->all_zero) {
		say(v, "; no page migrated");
	} else if (mig && mig->pr.n) {
		say(v, "; pages migrated %s",
		    pct(m, sizeof(m), 100 * (mig->pr.gm - 1), true));
		if (mig->pr.n >= 2)
			say(v, " (CI %s .. %s)",
			    pct(a, sizeof(a), 100 * (mig->pr.lo - 1), true),
			    pct(b, sizeof(b), 100 * (mig->pr.hi - 1), true));
	}
	say(v, ": ");

	effect = fmax(fabs(log(c->gm)), log(LUFCTL_AB_NO_EFFECT));
	if (mig && !mig->all_zero && mig->zero_round) {
		v->judgement = AB_UNSTEADY;
		say(v, "workload not steady enough to judge: no page migrated in round %u with luf %s",
		    mig->zero_round, mig->zero_round_on ? "on" : "off");
	} else if (c->n < 2) {
		v->judgement = AB_INCONCLUSIVE;
		say(v, "inconclusive: one round gives no interval; run more rounds");
	} else if (tlb->off_log_sd > effect) {
		v->judgement = AB_UNSTEADY;
		say(v, "workload not steady enough to judge: the rounds with luf off vary by %s, more than the effect",
		    pct(m, sizeof(m), 100 * (exp(tlb->off_log_sd) - 1), false));
	} else if (c->hi < 1) {
		if (mig && mig->pr.n >= 2 && mig->pr.hi < 1 && per_page &&
		    per_page->n >= 2 && per_page->hi >= 1) {
			v->judgement = AB_INCONCLUSIVE;
			say(v, "inconclusive: pages migrated fell as much");
		} else if (mig && mig->pr.n >= 2 && mig->pr.hi < 1 &&
			   per_page && per_page->n >= 2) {
			v->judgement = AB_HELPS;
			say(v, "luf helps, also per migrated page (cut %s, CI %s .. %s)",
			    pct(m, sizeof(m), 100 * (1 - per_page->gm), false),
			    pct(a, sizeof(a), 100 * (1 - per_page->hi), false),
			    pct(b, sizeof(b), 100 * (1 - per_page->lo), false));
		} else {
			v->judgement = AB_HELPS;
			say(v, "luf helps");
		}
	} else if (c->lo > 1) {
		v->judgement = AB_ADDS;
		say(v, "luf adds TLB shootdowns");
	} else if (c->lo >= 1 / LUFCTL_AB_NO_EFFECT &&
		   c->hi <= LUFCTL_AB_NO_EFFECT) {
		v->judgement = AB_NO_EFFECT;
		say(v, "no effect (within %.0f%%)",
		    100 * (LUFCTL_AB_NO_EFFECT - 1));
	} else {
		v->judgement = AB_INCONCLUSIVE;
		say(v, "inconclusive: the interval spans no change; run more rounds");
	}
out:
	v->name = judgement_names[v->judgement];
}
