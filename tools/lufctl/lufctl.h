/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lufctl's files share.  main.c parses the options and dispatches to
 * one command per file (status.c, stats.c, set.c, apply.c, watch.c,
 * ab.c); attrs.c names the family's attributes; nl.c speaks luf's generic
 * netlink family; proc.c reads /proc; prom.c writes the Prometheus text
 * format; util.c holds the error, number, time and signal helpers.  ab's
 * statistics have a header of their own, abstat.h, for the unit test.
 * Every non-static function and variable starts with lufctl_.
 */
#ifndef LUFCTL_H
#define LUFCTL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <linux/luf_netlink.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* The name messages start with, whatever the binary is called. */
#define LUFCTL_NAME	"lufctl"

/* The file lufctl apply reads unless --file names another. */
#define LUFCTL_CONF	"/etc/luf/luf.conf"

/* Exit statuses; --help documents them. */
enum {
	EX_OK		= 0,
	EX_RUNTIME	= 1,
	EX_USAGE	= 2,
	EX_NOLUF	= 3,
	EX_PERM		= 4,
};

/* ------------------------------------------------------------------ */
/* Options and commands (main.c) */

enum {
	OPT_JSON	= 1 << 0,
	OPT_VERBOSE	= 1 << 1,
	OPT_NO_CHECK	= 1 << 2,
	OPT_INTERVAL	= 1 << 3,
	OPT_COUNT	= 1 << 4,
	OPT_ROUNDS	= 1 << 5,
	OPT_SETTLE	= 1 << 6,
	OPT_FORMAT	= 1 << 7,
	OPT_FILE	= 1 << 8,
	OPT_DRY_RUN	= 1 << 9,
};

/* --format: text (the default), json (as --json) or prometheus. */
enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_PROMETHEUS };

struct opts {
	unsigned int given;	/* OPT_* seen on the command line */
	bool json, verbose, no_check, dry_run;
	int format;
	const char *file;
	double interval;	/* seconds; the default depends on the command */
	double settle;
	uint32_t count;
	uint32_t rounds;
};

/* Limits of the numeric options, also printed by --help. */
#define INTERVAL_MIN	0.01
#define INTERVAL_MAX	86400.0
#define SETTLE_MAX	3600.0
#define ROUNDS_MAX	1000

/* At most this many KEY=VALUE pairs in one set (duplicates with --no-check). */
#define SET_MAX_PAIRS	256

/*
 * A command, defined in its own file next to the text that documents it:
 * main.c assembles --help from the synopsis and help of every command.
 */
struct lufctl_command {
	const char *name;
	int (*fn)(struct opts *o, int argc, char **argv);
	unsigned int opts;	/* the OPT_* it accepts besides -v */
	bool args;		/* takes positional arguments */
	double interval;	/* --interval's default, for those taking it */
	const char *synopsis;	/* its line under SYNOPSIS */
	const char *help;	/* its entry under COMMANDS */
};

extern const struct lufctl_command lufctl_cmd_status;
extern const struct lufctl_command lufctl_cmd_stats;
extern const struct lufctl_command lufctl_cmd_set;
extern const struct lufctl_command lufctl_cmd_apply;
extern const struct lufctl_command lufctl_cmd_watch;
extern const struct lufctl_command lufctl_cmd_ab;

void lufctl_usage_hint(void);

/* ------------------------------------------------------------------ */
/* Errors, numbers, time and signals (util.c) */

void __printf(1, 2) lufctl_err(const char *fmt, ...);
void lufctl_err_capture(char *buf, size_t len);

bool lufctl_parse_u32(const char *s, uint32_t *out);
bool lufctl_parse_seconds(const char *s, double *out);

double lufctl_now(void);
struct timespec lufctl_timespec(double s);

/*
 * watch and ab stop on a signal.  The handler only records it; the signals
 * stay blocked except inside ppoll(), so one that arrives while we talk to
 * the kernel is seen at the next wait instead of being lost between a
 * check of the flag and the wait.
 */
extern sigset_t lufctl_wait_mask;	/* to wait with: stop signals open */

void lufctl_catch_stop_signals(void);
int lufctl_stop_signal(void);
bool lufctl_nap(double s);

/* ------------------------------------------------------------------ */
/* /proc (proc.c) */

bool lufctl_proc_tlb_shootdowns(uint64_t *sum);
void lufctl_proc_vmstat(const char *const *names, unsigned int nr,
			uint64_t *v, bool *have);

/*
 * The host's own counters that tell what luf buys, with luf or without:
 * TLB shootdowns (/proc/interrupts) and /proc/vmstat's TLB-flush and
 * migration counters (pgdemote sums pgdemote_kswapd, _direct and
 * _khugepaged).  ab measures them; stats --format prometheus exports them.
 */
enum {
	HOST_TLB_SHOOTDOWNS,
	HOST_NR_TLB_REMOTE_FLUSH,
	HOST_NR_TLB_REMOTE_FLUSH_RECEIVED,
	HOST_NR_TLB_LOCAL_FLUSH_ONE,
	HOST_NR_TLB_LOCAL_FLUSH_ALL,
	HOST_PGMIGRATE_SUCCESS,
	HOST_PGDEMOTE,
	HOST_PGPROMOTE_SUCCESS,
	NR_HOST
};

struct lufctl_host {
	uint64_t v[NR_HOST];
	bool have[NR_HOST];
};

extern const char *const lufctl_host_names[NR_HOST];
extern const char *const lufctl_host_help[NR_HOST];

void lufctl_proc_host(struct lufctl_host *h);

/* ------------------------------------------------------------------ */
/* The family's attributes */

/*
 * The knobs: the attributes SET accepts, with their sysfs names and ranges
 * (attrs.c).  The ranges mirror the module's validation only to give a
 * clear message before sending; the kernel stays the authority (see
 * --no-check).
 */
struct knob {
	const char *name;
	int attr;
	uint32_t min, max;
	const char *doc;
};

/*
 * ENABLED .. STATS_INTERVAL_MS, and NUMA: a knob added later takes the next
 * free attribute number, after the state's.
 */
#define NR_KNOBS	(LUF_A_STATUS_STATS_INTERVAL_MS - LUF_A_STATUS_ENABLED + 2)

extern const struct knob lufctl_knobs[NR_KNOBS];

/* STATUS_GET's reply, in the order of the attribute enum (attrs.c). */
struct field {
	const char *name;
	bool u64;
};

#define STATUS_FIRST	LUF_A_STATUS_ENABLED
#define STATUS_LAST	LUF_A_STATUS_NUMA

extern const struct field lufctl_status_fields[STATUS_LAST + 1];

/*
 * The counters, in the order (and with the names) of
 * /sys/kernel/debug/luf/stats (attrs.c), and what each counts.  Counter i
 * is attribute LUF_A_STATS_OFFERED + i.
 */
#define NR_STATS	(LUF_A_STATS_NUMA_SYNC - LUF_A_STATS_OFFERED + 1)
#define STAT(x)		(LUF_A_STATS_##x - LUF_A_STATS_OFFERED)

extern const char *const lufctl_stat_names[NR_STATS];
extern const char *const lufctl_stat_help[NR_STATS];

struct status {
	uint64_t v[STATUS_LAST + 1];
	bool have[STATUS_LAST + 1];
	bool got;
};

struct stats {
	uint64_t v[NR_STATS];
	bool have[NR_STATS];
	bool got;
};

/* ------------------------------------------------------------------ */
/* Netlink (nl.c) */

struct nl_sock;
struct nlmsghdr;

struct lufctl_nl {
	struct nl_sock *sk;
	int family;
};

/* One KEY=VALUE of a SET request. */
struct pair {
	const struct knob *knob;
	uint32_t value;
};

void lufctl_nl_init(void);
int lufctl_nl_open(struct lufctl_nl *n);
void lufctl_nl_close(struct lufctl_nl *n);
int lufctl_nl_get_status(struct lufctl_nl *n, struct status *st);
int lufctl_nl_get_stats(struct lufctl_nl *n, struct stats *s);
int lufctl_nl_parse_stats(struct nlmsghdr *nlh, struct stats *s);
int lufctl_nl_set(struct lufctl_nl *n, const struct pair *p, unsigned int nr,
		  bool *refused);

/* ------------------------------------------------------------------ */
/* KEY=VALUE, for set and apply (set.c) */

const struct knob *lufctl_find_knob(const char *name, size_t len);
bool lufctl_parse_pair(const char *where, const char *arg, bool check,
		       struct pair *p);
int lufctl_set_pairs(const struct opts *o, const struct pair *p,
		     unsigned int nr);

/* ------------------------------------------------------------------ */
/* Printing replies (status.c) */

int lufctl_print_pairs(const char *what, const char *const *names,
		       const uint64_t *v, const bool *have, unsigned int nr,
		       bool json);
int lufctl_print_status(const struct status *st, bool json);

/* ------------------------------------------------------------------ */
/* The Prometheus text format (prom.c) */

/* @st and @s are NULL when luf is not loaded. */
void lufctl_prom_print(const struct status *st, const struct stats *s,
		       const struct lufctl_host *h);

#endif /* LUFCTL_H */
