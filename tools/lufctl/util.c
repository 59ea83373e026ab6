// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl's helpers: error messages, number parsing, time and the stop
 * signals of watch and ab.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lufctl.h"

/*
 * Where lufctl_err() goes: stderr, or while lufctl_err_capture() is in
 * effect, a buffer that collects the messages ("; "-separated) for the
 * caller to report as the reason of a failure of its own.
 */
static char *err_buf;
static size_t err_buf_len;

void lufctl_err_capture(char *buf, size_t len)
{
	err_buf = buf;
	err_buf_len = len;
	if (buf && len)
		buf[0] = '\0';
}

void lufctl_err(const char *fmt, ...)
{
	va_list ap;

	if (err_buf) {
		size_t used = strlen(err_buf);

		if (used && used + 2 < err_buf_len) {
			strcpy(err_buf + used, "; ");
			used += 2;
		}
		if (used + 1 < err_buf_len) {
			va_start(ap, fmt);
			vsnprintf(err_buf + used, err_buf_len - used, fmt, ap);
			va_end(ap);
		}
		return;
	}
	fprintf(stderr, "%s: ", LUFCTL_NAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* Number parsing: strict, so that "1e3", " 5", "0x10" or "-1" are refused. */

bool lufctl_parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* Seconds: digits with at most one decimal point, no sign or exponent. */
bool lufctl_parse_seconds(const char *s, double *out)
{
	bool digit = false, dot = false;
	const char *p;

	for (p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && !dot)
			dot = true;
		else
			return false;
	}
	if (!digit)
		return false;
	*out = strtod(s, NULL);
	return true;
}

/* ------------------------------------------------------------------ */
/* Time and signals */

double lufctl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct timespec lufctl_timespec(double s)
{
	struct timespec ts;

	if (s < 0)
		s = 0;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	return ts;
}

/* volatile: set by a signal handler (see lufctl.h). */
static volatile sig_atomic_t stop_signal;
sigset_t lufctl_wait_mask;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* The stop signal caught, or 0. */
int lufctl_stop_signal(void)
{
	return stop_signal;
}

void lufctl_catch_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	sigset_t block;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &lufctl_wait_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigdelset(&lufctl_wait_mask, sigs[i]);
}

/* Sleep @s seconds; false if a stop signal cut it short. */
bool lufctl_nap(double s)
{
	double end = lufctl_now() + s;

	while (!stop_signal) {
		double left = end - lufctl_now();
		struct timespec ts;

		if (left <= 0)
			return true;
		ts = lufctl_timespec(left);
		ppoll(NULL, 0, &ts, &lufctl_wait_mask);
	}
	return false;
}
