// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl: luf's control tool, over the "luf" generic netlink family.
 *
 * status, stats and set are thin wrappers of the family's three "do"
 * operations; watch and ab are the reasons the tool exists: watch shows
 * what luf does second by second next to the system's TLB shootdowns, and
 * ab measures what luf buys on the running host by switching it off and on
 * in alternation while the workload of interest runs.
 *
 * Usage errors are caught before any netlink traffic (exit status 2), so
 * that they are reported the same way whether or not luf.ko is loaded.
 * The kernel checks everything again; --no-check lets its answers (and
 * their extended-ack messages) through for testing.
 *
 * The documentation is `lufctl --help`, and module/ABI for the family
 * itself; the man page, lufctl(8), is made from --help by
 * tools/lufctl-man.sh.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <linux/luf_netlink.h>

/* dkms.conf's PACKAGE_VERSION, passed in by tools/Makefile. */
#ifndef LUF_VERSION
#error "build lufctl with -DLUF_VERSION (tools/Makefile does)"
#endif

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* Exit statuses; --help documents them. */
enum {
	EX_OK		= 0,
	EX_RUNTIME	= 1,
	EX_USAGE	= 2,
	EX_NOLUF	= 3,
	EX_PERM		= 4,
};

/*
 * The knobs: the attributes SET accepts, with their sysfs names and ranges.
 * The ranges mirror the module's validation only to give a clear message
 * before sending; the kernel stays the authority (see --no-check).
 */
struct knob {
	const char *name;
	int attr;
	uint32_t min, max;
	const char *doc;
};

static const struct knob knobs[] = {
	{ "enabled", LUF_A_STATUS_ENABLED, 0, 1,
	  "The A/B switch; 0 completes every outstanding flush." },
	{ "max_defer_ms", LUF_A_STATUS_MAX_DEFER_MS, 1, 60000,
	  "No deferred flush waits longer (milliseconds)." },
	{ "max_pages", LUF_A_STATUS_MAX_PAGES, 1, 1073741824,
	  "Pages whose flush may be outstanding at once." },
	{ "migration", LUF_A_STATUS_MIGRATION, 0, 1,
	  "Defer the flushes of page migration's unmaps." },
	{ "reclaim", LUF_A_STATUS_RECLAIM, 0, 1,
	  "Defer the flushes of reclaim's unmaps." },
	{ "reserve", LUF_A_STATUS_RESERVE, 0, 1000,
	  "Percent of each zone's min watermark kept flushed." },
	{ "stats_interval_ms", LUF_A_STATUS_STATS_INTERVAL_MS, 100, 60000,
	  "Period of the snapshots on the stats multicast group." },
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

static_assert(ARRAY_SIZE(knobs) == LUF_A_STATUS_STATS_INTERVAL_MS -
			  LUF_A_STATUS_ENABLED + 1,
	      "knobs[] must list every settable attribute");

/* STATUS_GET's reply, in the order of the attribute enum. */
struct field {
	const char *name;
	bool u64;
};

static const struct field status_fields[] = {
	[LUF_A_STATUS_ENABLED]		= { "enabled", false },
	[LUF_A_STATUS_MAX_DEFER_MS]	= { "max_defer_ms", false },
	[LUF_A_STATUS_MAX_PAGES]	= { "max_pages", false },
	[LUF_A_STATUS_MIGRATION]	= { "migration", false },
	[LUF_A_STATUS_RECLAIM]		= { "reclaim", false },
	[LUF_A_STATUS_RESERVE]		= { "reserve", false },
	[LUF_A_STATUS_STATS_INTERVAL_MS] = { "stats_interval_ms", false },
	[LUF_A_STATUS_ABI_VERSION]	= { "abi_version", false },
	[LUF_A_STATUS_HOOKS]		= { "hooks", false },
	[LUF_A_STATUS_GEN_FLUSHED]	= { "gen_flushed", true },
	[LUF_A_STATUS_GEN_DEFERRED]	= { "gen_deferred", true },
	[LUF_A_STATUS_GEN_OPEN]		= { "gen_open", true },
	[LUF_A_STATUS_FLUSHING]		= { "flushing", false },
	[LUF_A_STATUS_PENDING_CPUS]	= { "pending_cpus", false },
	[LUF_A_STATUS_PENDING_PAGES]	= { "pending_pages", true },
	[LUF_A_STATUS_OLDEST_PENDING_MS] = { "oldest_pending_ms", false },
};

#define STATUS_FIRST	LUF_A_STATUS_ENABLED
#define STATUS_LAST	LUF_A_STATUS_OLDEST_PENDING_MS

/* A new attribute before the pad would otherwise go unprinted. */
static_assert(ARRAY_SIZE(status_fields) == STATUS_LAST + 1 &&
	      STATUS_LAST + 1 == LUF_A_STATUS_PAD,
	      "status_fields[] must name every status attribute");

/*
 * The counters, in the order (and with the names) of
 * /sys/kernel/debug/luf/stats: `lufctl stats` must print the same lines.
 * Counter i is attribute LUF_A_STATS_OFFERED + i.
 */
static const char *const stat_names[] = {
	"offered", "deferred", "pages_tagged", "declined",
	"refused_writable", "refused_shstk", "refused_large", "refused_kept",
	"refused_split",
	"flush_alloc", "flush_write", "flush_file_write", "flush_truncate",
	"flush_put", "flush_parked", "flush_mprotect", "flush_changed",
	"flush_reserve", "flush_age", "flush_limit", "flush_disable",
	"flush_mm", "flushes", "ipis", "flush_noop",
};

#define NR_STATS	ARRAY_SIZE(stat_names)
#define STAT(x)		(LUF_A_STATS_##x - LUF_A_STATS_OFFERED)

static_assert(ARRAY_SIZE(stat_names) == LUF_A_STATS_FLUSH_NOOP - LUF_A_STATS_OFFERED + 1,
	      "stat_names[] must name every counter attribute");
static_assert(LUF_A_STATS_FLUSH_NOOP + 1 == LUF_A_STATS_PAD,
	      "a counter was added after flush_noop");

/* ------------------------------------------------------------------ */
/* Options */

enum {
	OPT_JSON	= 1 << 0,
	OPT_VERBOSE	= 1 << 1,
	OPT_NO_CHECK	= 1 << 2,
	OPT_INTERVAL	= 1 << 3,
	OPT_COUNT	= 1 << 4,
	OPT_ROUNDS	= 1 << 5,
	OPT_SETTLE	= 1 << 6,
};

struct opts {
	unsigned int given;	/* OPT_* seen on the command line */
	bool json, verbose, no_check;
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

static const char *prog = "lufctl";

/*
 * Where err_msg() goes: stderr, or while err_capture() is in effect, a
 * buffer that collects the messages ("; "-separated) for the caller to
 * report as the reason of a failure of its own.
 */
static char *err_buf;
static size_t err_buf_len;

static void err_capture(char *buf, size_t len)
{
	err_buf = buf;
	err_buf_len = len;
	if (buf && len)
		buf[0] = '\0';
}

static void usage_hint(void)
{
	fprintf(stderr,
		"usage: lufctl [--json] [-v] COMMAND [ARGS]\n"
		"commands: status, stats, set KEY=VALUE..., watch [--interval S] [--count N],\n"
		"          ab [--rounds N] [--interval S] [--settle S], help\n"
		"Try 'lufctl --help' for more information.\n");
}

static void __printf(1, 2) err_msg(const char *fmt, ...)
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
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void print_manual(void)
{
	unsigned int i;

	printf(
"NAME\n"
"    lufctl - query, tune and measure luf (lazy unmap flush)\n"
"\n"
"SYNOPSIS\n"
"    lufctl [--json] status\n"
"    lufctl [--json] stats\n"
"    lufctl [-v] [--json] [--no-check] set KEY=VALUE...\n"
"    lufctl [-v] watch [--interval S] [--count N]\n"
"    lufctl [-v] [--json] ab [--rounds N] [--interval S] [--settle S]\n"
"    lufctl help | --help\n"
"    lufctl --version\n"
"\n"
"DESCRIPTION\n"
"    lufctl talks to the luf kernel module through its generic netlink\n"
"    family \"" LUF_FAMILY_NAME "\" (version %d).  The knobs it sets are the files of\n"
"    /sys/kernel/mm/luf/ and go through the same validation in the kernel;\n"
"    the counters it reads are those of /sys/kernel/debug/luf/stats.\n"
"    Options may be given before or after the command.\n"
"\n"
"COMMANDS\n"
"    status\n"
"        Print the knobs and the state of the deferred batch as \"name value\"\n"
"        lines: the knobs (see KEYS), then abi_version, hooks, gen_flushed,\n"
"        gen_deferred, gen_open, flushing, pending_cpus, pending_pages and\n"
"        oldest_pending_ms.  With --json, one JSON object.\n"
"\n"
"    stats\n"
"        Print luf's counters, summed over CPUs, as \"name value\" lines in the\n"
"        format of /sys/kernel/debug/luf/stats.  With --json, one JSON object.\n"
"\n"
"    set KEY=VALUE...\n"
"        Set the named knobs in one request: the kernel applies all of them\n"
"        or none.  Needs CAP_NET_ADMIN.  Each key at most once; values are\n"
"        decimal.  Prints nothing on success; with -v, the new status.  A\n"
"        value the kernel refuses is reported with the kernel's own message.\n"
"\n"
"    watch [--interval S] [--count N]\n"
"        Every S seconds (default 1, fractions allowed) print one line of\n"
"        per-second rates, like vmstat: luf's deferred, pages_tagged,\n"
"        flushes, ipis, flush_age, flush_limit, flush_reserve, refused (the\n"
"        sum of the refused_* counters) and tlb_shootdowns (the \"TLB:\" row\n"
"        of /proc/interrupts summed over CPUs, \"-\" where there is none),\n"
"        with a header every 20 lines.  Counters are polled with stats, so\n"
"        the rates do not depend on stats_interval_ms.  A counter that went\n"
"        down (luf reloaded, a CPU gone from /proc/interrupts) shows \"-\" for\n"
"        that interval.  luf's notifications are printed as they arrive, one\n"
"        line each:\n"
"            event: knob enabled=0 (sysfs)\n"
"            event: forced_flush reason=limit count=12\n"
"        With -v, lufctl also joins the stats multicast group and prints its\n"
"        snapshots (\"stats_ntf: name=value ...\").  Once subscribed and the\n"
"        first sample taken, it prints \"lufctl: watching\" on stderr.  Stops\n"
"        after N lines with --count, or at Ctrl-C (exit status 0).\n"
"\n"
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
"        off and on, the ratio on/off of the means, and a 95%% confidence\n"
"        interval of the ratio from the rounds' paired ratios: mean +-\n"
"        t(0.975, n-1) * sd / sqrt(n), leaving out the rounds whose off value\n"
"        is 0 (the number of rounds used is printed).  Then the TLB\n"
"        shootdowns per migrated page (tlb_shootdowns / pgmigrate_success)\n"
"        off and on.  A counter that went down during an interval (luf\n"
"        reloaded, a CPU gone from /proc/interrupts) makes that round\n"
"        invalid for its metric: it is left out, and the number of such\n"
"        intervals is printed.  The original value of enabled is restored\n"
"        at the end, on an error and on SIGINT, SIGTERM or SIGHUP, over a\n"
"        netlink socket of its own; if that fails, lufctl says so and exits\n"
"        with status 1.  Needs CAP_NET_ADMIN.  With -v, one progress line per\n"
"        interval on stderr.\n"
"\n"
"    help\n"
"        Print this text.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print JSON (status, stats, ab; set with -v).\n"
"    -v, --verbose\n"
"        set: print the status after the change.  watch: print the stats\n"
"        group's snapshots.  ab: print progress on stderr.\n"
"    --no-check\n"
"        set: skip the client-side range, duplicate and empty-request checks\n"
"        and let the kernel judge (for testing its validation).  The value\n"
"        must still be a decimal 32-bit number, and at most %d pairs may\n"
"        be given.\n"
"    -i, --interval S\n"
"        watch, ab: the interval in seconds, %g to %g.\n"
"    --count N\n"
"        watch: stop after N lines (N >= 1).\n"
"    -r, --rounds N\n"
"        ab: the number of rounds, 1 to %d.\n"
"    --settle S\n"
"        ab: seconds to wait after each switch, 0 to %g.\n"
"    -h, --help\n"
"        Print this text.\n"
"    -V, --version\n"
"        Print the version.\n"
"\n"
"KEYS\n"
"    The keys of set, as in /sys/kernel/mm/luf/, with their ranges:\n",
	       LUF_FAMILY_VERSION, SET_MAX_PAIRS, INTERVAL_MIN, INTERVAL_MAX,
	       ROUNDS_MAX, SETTLE_MAX);
	for (i = 0; i < NR_KNOBS; i++)
		printf("    %-18s %u..%u\n        %s\n", knobs[i].name,
		       knobs[i].min, knobs[i].max, knobs[i].doc);
	printf(
"\n"
"EXIT STATUS\n"
"    0    Success.\n"
"    1    Runtime error: a netlink failure, the kernel refused a value\n"
"         (its message is printed), a write to stdout failed, or ab could\n"
"         not restore enabled (\"could not restore enabled=X: reason\").\n"
"    2    Usage error: bad command, option, key or value (syntax or range),\n"
"         caught before anything is sent.\n"
"    3    luf is not loaded: the \"" LUF_FAMILY_NAME "\" generic netlink family is not\n"
"         registered.\n"
"    4    Not permitted: set and ab need CAP_NET_ADMIN.\n"
"    130  ab was interrupted by SIGINT (143 for SIGTERM, 129 for SIGHUP);\n"
"         enabled was restored.\n"
"\n"
"EXAMPLES\n"
"    lufctl status\n"
"    lufctl stats --json\n"
"    lufctl set max_defer_ms=20 max_pages=4096\n"
"    lufctl -v set enabled=0\n"
"    lufctl watch --interval 0.5 --count 20\n"
"    lufctl ab --rounds 10 --interval 5 --json > ab.json\n"
"\n"
"SEE ALSO\n"
"    This text is also lufctl's man page, lufctl(8).  The generic netlink\n"
"    family, the sysfs knobs and the counters are described in module/ABI\n"
"    of luf's source tree (/usr/share/doc/luf-tools/ABI.gz in the Debian\n"
"    package).\n");
}

/* ------------------------------------------------------------------ */
/* Number parsing: strict, so that "1e3", " 5", "0x10" or "-1" are refused. */

static bool parse_u32(const char *s, uint32_t *out)
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
static bool parse_seconds(const char *s, double *out)
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct timespec to_timespec(double s)
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

/*
 * watch and ab stop on a signal.  The handler only records it; the signals
 * stay blocked except inside ppoll(), so one that arrives while we talk to
 * the kernel is seen at the next wait instead of being lost between a
 * check of the flag and the wait.
 */
static volatile sig_atomic_t stop_signal;	/* volatile: set by a handler */
static sigset_t wait_mask;	/* the mask to wait with: stop signals open */

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void catch_stop_signals(void)
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
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigdelset(&wait_mask, sigs[i]);
}

/* Sleep @s seconds; false if a stop signal cut it short. */
static bool nap(double s)
{
	double end = now() + s;

	while (!stop_signal) {
		double left = end - now();
		struct timespec ts;

		if (left <= 0)
			return true;
		ts = to_timespec(left);
		ppoll(NULL, 0, &ts, &wait_mask);
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Netlink */

/*
 * A reply that never comes (a wedged module) must not hang lufctl forever.
 * Generous: switching enabled off completes every outstanding flush first.
 */
#define NL_TIMEOUT_S	10

struct luf_nl {
	struct nl_sock *sk;
	int family;
};

/* One request and what came back for it. */
struct req {
	const char *what;		/* for messages: "status", "set", ... */
	int (*parse)(struct nl_msg *msg, void *arg);
	void *arg;
	struct nl_msg *sent;		/* to find the attribute at an offset */
	bool done;
	bool bad_reply;
	int replies;
	int error;			/* the errno the kernel answered with */
	char ext_msg[256];		/* NLMSGERR_ATTR_MSG */
	int bad_attr;			/* type at NLMSGERR_ATTR_OFFS, or 0 */
	uint32_t bad_value;
	bool bad_value_ok;
	int miss_type;			/* NLMSGERR_ATTR_MISS_TYPE, or 0 */
};

/*
 * The extended ack: with NETLINK_EXT_ACK the kernel appends TLVs to the
 * error (or ack) message, after the echoed request - after its header only
 * when the kernel capped the echo (NETLINK_CAP_ACK).  libnl 3.7 does not
 * parse them, so we do.
 */
static void read_ext_ack(struct req *r, const struct nlmsghdr *nlh)
{
	static struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG]	= { .type = NLA_STRING },
		[NLMSGERR_ATTR_OFFS]	= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
#ifdef NLMSGERR_ATTR_MISS_TYPE
		[NLMSGERR_ATTR_MISS_TYPE] = { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
#endif
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const struct nlmsgerr *e;
	size_t payload, hlen;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	e = (const struct nlmsgerr *)NLMSG_DATA(nlh);
	payload = nlh->nlmsg_len - NLMSG_HDRLEN;
	hlen = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len >= NLMSG_HDRLEN)
		hlen += e->msg.nlmsg_len - NLMSG_HDRLEN;
	hlen = NLMSG_ALIGN(hlen);
	if (hlen >= payload)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + hlen), (int)(payload - hlen),
		      pol) < 0)
		return;

	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(r->ext_msg, sizeof(r->ext_msg), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
#ifdef NLMSGERR_ATTR_MISS_TYPE
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		r->miss_type = (int)nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
#endif
	/*
	 * The offset is from the start of our request: find the attribute
	 * there to name the knob the kernel objects to.
	 */
	if (tb[NLMSGERR_ATTR_OFFS] && r->sent) {
		const struct nlmsghdr *req = nlmsg_hdr(r->sent);
		uint32_t off = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
		const struct nlattr *a;

		if (off < NLMSG_HDRLEN + GENL_HDRLEN ||
		    (uint64_t)off + NLA_HDRLEN > req->nlmsg_len)
			return;
		a = (const struct nlattr *)((const char *)req + off);
		if (a->nla_len < NLA_HDRLEN ||
		    (uint64_t)off + a->nla_len > req->nlmsg_len)
			return;
		r->bad_attr = nla_type(a);
		if (nla_len(a) == 4) {
			memcpy(&r->bad_value, nla_data(a), 4);
			r->bad_value_ok = true;
		}
	}
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	r->replies++;
	if (r->parse && r->parse(msg, r->arg) < 0)
		r->bad_reply = true;
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	r->done = true;
	/* A successful request may still carry a warning. */
	read_ext_ack(r, nlmsg_hdr(msg));
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct req *r = arg;

	/*
	 * libnl passes the error message's payload; its header (with the
	 * NLM_F_ACK_TLVS and NLM_F_CAPPED flags) is right before it.
	 */
	read_ext_ack(r, (const struct nlmsghdr *)((char *)e - NLMSG_HDRLEN));
	r->error = e->error < 0 ? -e->error : e->error;
	r->done = true;
	return NL_STOP;
}

/*
 * Open a socket to the luf family.  Returns 0, or an exit status after
 * printing why not.
 */
static int luf_open(struct luf_nl *n)
{
	struct timeval tv = { .tv_sec = NL_TIMEOUT_S };
	int one = 1, err, fd;

	n->sk = nl_socket_alloc();
	if (!n->sk) {
		err_msg("out of memory");
		return EX_RUNTIME;
	}
	err = genl_connect(n->sk);
	if (err < 0) {
		err_msg("cannot open a generic netlink socket: %s",
			nl_geterror(err));
		return EX_RUNTIME;
	}
	fd = nl_socket_get_fd(n->sk);
	/*
	 * Ask for the kernel's reasons (extended acks), and for capped
	 * echoes: we keep our request and do not need it back.  Kernels
	 * without these options still answer with plain errors.
	 */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* libnl reports any failure of the lookup as "not found". */
	n->family = genl_ctrl_resolve(n->sk, LUF_FAMILY_NAME);
	if (n->family < 0) {
		err_msg("the luf generic netlink family is not registered: is the luf module loaded? (modprobe luf)");
		return EX_NOLUF;
	}
	return EX_OK;
}

static void luf_close(struct luf_nl *n)
{
	if (n->sk)
		nl_socket_free(n->sk);
	n->sk = NULL;
}

/* A request with room for @nr_u32 u32 attributes. */
static struct nl_msg *luf_msg(const struct luf_nl *n, uint8_t cmd,
			      unsigned int nr_u32)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc_size(nlmsg_total_size(GENL_HDRLEN +
			       nr_u32 * nla_total_size(sizeof(uint32_t))));

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, n->family, 0, 0, cmd,
			 LUF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * Send @msg and collect the answer into @r.  Returns 0 if the kernel
 * acknowledged, the positive errno it refused with, or a negative libnl
 * error if the exchange itself failed.
 */
static int luf_do(struct luf_nl *n, struct nl_msg *msg, struct req *r)
{
	struct nl_cb *cb;
	int err;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);
	r->sent = msg;

	err = nl_send_auto(n->sk, msg);
	if (err < 0)
		goto out;
	while (!r->done) {
		err = nl_recvmsgs(n->sk, cb);
		if (r->done)
			break;
		if (err < 0)
			goto out;
	}
	err = r->error;
out:
	nl_cb_put(cb);
	return err;
}

static const char *attr_knob_name(int attr)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		if (knobs[i].attr == attr)
			return knobs[i].name;
	return NULL;
}

/* Explain a failed luf_do(); returns the exit status. */
static int report(const struct req *r, int err)
{
	const char *name;

	if (err < 0) {
		if (err == -NLE_AGAIN)
			err_msg("%s: no answer from the kernel within %d s",
				r->what, NL_TIMEOUT_S);
		else
			err_msg("%s: netlink: %s", r->what, nl_geterror(err));
		return EX_RUNTIME;
	}
	if (err == EPERM || err == EACCES) {
		if (!strcmp(r->what, "set"))
			err_msg("not permitted: setting luf's knobs needs CAP_NET_ADMIN");
		else
			err_msg("not permitted: %s: %s", r->what, strerror(err));
		return EX_PERM;
	}
	if (r->ext_msg[0])
		err_msg("%s refused by the kernel: %s (%s)", r->what, r->ext_msg,
			strerror(err));
	else
		err_msg("%s refused by the kernel: %s", r->what, strerror(err));
	if (r->bad_attr) {
		name = attr_knob_name(r->bad_attr);
		if (name && r->bad_value_ok)
			err_msg("the kernel pointed at %s=%" PRIu32, name,
				r->bad_value);
		else if (name)
			err_msg("the kernel pointed at %s", name);
		else
			err_msg("the kernel pointed at attribute %d",
				r->bad_attr);
	}
	if (r->miss_type) {
		name = attr_knob_name(r->miss_type);
		if (name)
			err_msg("the kernel misses %s", name);
		else
			err_msg("the kernel misses attribute %d", r->miss_type);
	}
	return EX_RUNTIME;
}

/* A successful request's warning, if the kernel attached one. */
static void report_warning(const struct req *r)
{
	if (r->ext_msg[0])
		err_msg("%s: warning from the kernel: %s", r->what, r->ext_msg);
}

/* ------------------------------------------------------------------ */
/* STATUS_GET and STATS_GET */

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

/* Exact lengths: a kernel that sends a u64 for a u32 is a bug to show. */
static struct nla_policy status_policy[LUF_A_STATUS_MAX + 1];
static struct nla_policy stats_policy[LUF_A_STATS_MAX + 1];
static struct nla_policy event_policy[LUF_A_EVENT_MAX + 1];

static void init_policies(void)
{
	unsigned int a;

	for (a = STATUS_FIRST; a <= STATUS_LAST; a++) {
		uint16_t len = status_fields[a].u64 ? 8 : 4;

		status_policy[a].type = status_fields[a].u64 ? NLA_U64 : NLA_U32;
		status_policy[a].minlen = len;
		status_policy[a].maxlen = len;
	}
	for (a = 0; a < NR_STATS; a++) {
		stats_policy[LUF_A_STATS_OFFERED + a].type = NLA_U64;
		stats_policy[LUF_A_STATS_OFFERED + a].minlen = 8;
		stats_policy[LUF_A_STATS_OFFERED + a].maxlen = 8;
	}
	event_policy[LUF_A_EVENT_TYPE] =
		(struct nla_policy){ .type = NLA_U32, .minlen = 4, .maxlen = 4 };
	event_policy[LUF_A_EVENT_KNOB] = (struct nla_policy){ .type = NLA_STRING };
	event_policy[LUF_A_EVENT_VALUE] =
		(struct nla_policy){ .type = NLA_U64, .minlen = 8, .maxlen = 8 };
	event_policy[LUF_A_EVENT_ORIGIN] =
		(struct nla_policy){ .type = NLA_U32, .minlen = 4, .maxlen = 4 };
	event_policy[LUF_A_EVENT_REASON] =
		(struct nla_policy){ .type = NLA_STRING };
	event_policy[LUF_A_EVENT_COUNT] =
		(struct nla_policy){ .type = NLA_U64, .minlen = 8, .maxlen = 8 };
}

static int parse_status(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[LUF_A_STATUS_MAX + 1];
	struct status *st = arg;
	unsigned int a;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, LUF_A_STATUS_MAX,
			  status_policy) < 0)
		return -1;
	for (a = STATUS_FIRST; a <= STATUS_LAST; a++) {
		if (!tb[a])
			continue;
		st->have[a] = true;
		st->v[a] = status_fields[a].u64 ? nla_get_u64(tb[a]) :
						  nla_get_u32(tb[a]);
	}
	st->got = true;
	return 0;
}

/* Both the STATS_GET reply and the STATS_NTF notification. */
static int parse_stats_attrs(struct nlmsghdr *nlh, struct stats *s)
{
	struct nlattr *tb[LUF_A_STATS_MAX + 1];
	unsigned int i;

	if (genlmsg_parse(nlh, 0, tb, LUF_A_STATS_MAX, stats_policy) < 0)
		return -1;
	for (i = 0; i < NR_STATS; i++) {
		struct nlattr *a = tb[LUF_A_STATS_OFFERED + i];

		s->have[i] = a;
		s->v[i] = a ? nla_get_u64(a) : 0;
	}
	s->got = true;
	return 0;
}

static int parse_stats(struct nl_msg *msg, void *arg)
{
	return parse_stats_attrs(nlmsg_hdr(msg), arg);
}

/* A do-request without attributes; returns an exit status. */
static int luf_get(struct luf_nl *n, uint8_t cmd, const char *what,
		   int (*parse)(struct nl_msg *, void *), void *arg, bool *got)
{
	struct req r = { .what = what, .parse = parse, .arg = arg };
	struct nl_msg *msg;
	int err;

	msg = luf_msg(n, cmd, 0);
	if (!msg) {
		err_msg("out of memory");
		return EX_RUNTIME;
	}
	err = luf_do(n, msg, &r);
	nlmsg_free(msg);
	if (err)
		return report(&r, err);
	report_warning(&r);
	if (r.bad_reply) {
		err_msg("%s: malformed reply from the kernel", what);
		return EX_RUNTIME;
	}
	if (!*got) {
		err_msg("%s: the kernel acknowledged without a reply", what);
		return EX_RUNTIME;
	}
	return EX_OK;
}

static int get_status(struct luf_nl *n, struct status *st)
{
	memset(st, 0, sizeof(*st));
	return luf_get(n, LUF_CMD_STATUS_GET, "status", parse_status, st,
		       &st->got);
}

static int get_stats(struct luf_nl *n, struct stats *s)
{
	memset(s, 0, sizeof(*s));
	return luf_get(n, LUF_CMD_STATS_GET, "stats", parse_stats, s, &s->got);
}

/*
 * Print a reply as "name value" lines or one JSON object.  An attribute
 * the kernel left out is a kernel bug: the rest is printed, then it is
 * named and the exit status is 1.
 */
static int print_pairs(const char *what, const char *const *names,
		       const uint64_t *v, const bool *have, unsigned int nr,
		       bool json)
{
	const char *sep = "";
	int ret = EX_OK;
	unsigned int i;

	if (json)
		putchar('{');
	for (i = 0; i < nr; i++) {
		if (!have[i])
			continue;
		if (json)
			printf("%s\"%s\": %" PRIu64, sep, names[i], v[i]);
		else
			printf("%s %" PRIu64 "\n", names[i], v[i]);
		sep = ", ";
	}
	if (json)
		printf("}\n");
	if (fflush(stdout)) {
		err_msg("%s: cannot write: %s", what, strerror(errno));
		return EX_RUNTIME;
	}
	for (i = 0; i < nr; i++) {
		if (!have[i]) {
			err_msg("%s: the kernel's reply lacks %s", what,
				names[i]);
			ret = EX_RUNTIME;
		}
	}
	return ret;
}

static int print_status(const struct status *st, bool json)
{
	const char *names[STATUS_LAST];
	unsigned int a;

	for (a = STATUS_FIRST; a <= STATUS_LAST; a++)
		names[a - STATUS_FIRST] = status_fields[a].name;
	return print_pairs("status", names, st->v + STATUS_FIRST,
			   st->have + STATUS_FIRST, STATUS_LAST, json);
}

/* ------------------------------------------------------------------ */
/* Commands: status, stats, set */

static int cmd_status(struct opts *o, int argc, char **argv)
{
	struct luf_nl n = { 0 };
	struct status st;
	int ret;

	ret = luf_open(&n);
	if (!ret)
		ret = get_status(&n, &st);
	if (!ret)
		ret = print_status(&st, o->json);
	luf_close(&n);
	return ret;
}

static int cmd_stats(struct opts *o, int argc, char **argv)
{
	struct luf_nl n = { 0 };
	struct stats s;
	int ret;

	ret = luf_open(&n);
	if (!ret)
		ret = get_stats(&n, &s);
	if (!ret)
		ret = print_pairs("stats", stat_names, s.v, s.have, NR_STATS,
				  o->json);
	luf_close(&n);
	return ret;
}

struct pair {
	const struct knob *knob;
	uint32_t value;
};

/*
 * One SET request with @nr pairs, in order; returns an exit status.  If
 * @refused is given, it tells whether the kernel answered with an error,
 * which means that it changed nothing (SET is all or nothing), as opposed
 * to an exchange that failed on our side.
 */
static int luf_set(struct luf_nl *n, const struct pair *p, unsigned int nr,
		   bool *refused)
{
	struct req r = { .what = "set" };
	struct nl_msg *msg;
	unsigned int i;
	int err;

	if (refused)
		*refused = false;
	/* The caller checked @nr against SET_MAX_PAIRS: the room is there. */
	msg = luf_msg(n, LUF_CMD_SET, nr);
	if (!msg) {
		err_msg("out of memory");
		return EX_RUNTIME;
	}
	for (i = 0; i < nr; i++) {
		if (nla_put_u32(msg, p[i].knob->attr, p[i].value) < 0) {
			nlmsg_free(msg);
			err_msg("set: cannot build the request");
			return EX_RUNTIME;
		}
	}
	err = luf_do(n, msg, &r);
	nlmsg_free(msg);
	if (err > 0 && refused)
		*refused = true;
	if (err)
		return report(&r, err);
	report_warning(&r);
	return EX_OK;
}

static const struct knob *find_knob(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		if (strlen(knobs[i].name) == len &&
		    !strncmp(knobs[i].name, name, len))
			return &knobs[i];
	return NULL;
}

static int cmd_set(struct opts *o, int argc, char **argv)
{
	bool seen[NR_KNOBS] = { false };
	struct luf_nl n = { 0 };
	struct pair *pairs;
	int i, ret;

	if (!argc && !o->no_check) {
		err_msg("set: nothing to set: give KEY=VALUE pairs");
		usage_hint();
		return EX_USAGE;
	}
	if (argc > SET_MAX_PAIRS) {
		err_msg("set: %d pairs, at most %d fit in one request", argc,
			SET_MAX_PAIRS);
		return EX_USAGE;
	}
	pairs = calloc(argc ? argc : 1, sizeof(*pairs));
	if (!pairs) {
		err_msg("out of memory");
		return EX_RUNTIME;
	}

	/* Every pair is checked before anything is sent: all or nothing. */
	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const struct knob *k;
		uint32_t v;

		if (!eq || eq == argv[i]) {
			err_msg("set: '%s' is not KEY=VALUE", argv[i]);
			ret = EX_USAGE;
			goto out;
		}
		k = find_knob(argv[i], (size_t)(eq - argv[i]));
		if (!k) {
			char list[256] = "";
			unsigned int j;

			for (j = 0; j < NR_KNOBS; j++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list),
					 "%s%s", j ? ", " : "", knobs[j].name);
			err_msg("set: unknown key '%.*s' (keys: %s)",
				(int)(eq - argv[i]), argv[i], list);
			ret = EX_USAGE;
			goto out;
		}
		if (!parse_u32(eq + 1, &v)) {
			err_msg("set: %s: '%s' is not a decimal number (0..%u)",
				k->name, eq + 1, UINT32_MAX);
			ret = EX_USAGE;
			goto out;
		}
		if (!o->no_check && (v < k->min || v > k->max)) {
			err_msg("set: %s=%" PRIu32 " is out of range: %s takes %u..%u",
				k->name, v, k->name, k->min, k->max);
			ret = EX_USAGE;
			goto out;
		}
		if (!o->no_check && seen[k - knobs]) {
			err_msg("set: %s given more than once", k->name);
			ret = EX_USAGE;
			goto out;
		}
		seen[k - knobs] = true;
		pairs[i].knob = k;
		pairs[i].value = v;
	}

	ret = luf_open(&n);
	if (!ret)
		ret = luf_set(&n, pairs, (unsigned int)argc, NULL);
	if (!ret && o->verbose) {
		struct status st;

		ret = get_status(&n, &st);
		if (!ret)
			ret = print_status(&st, o->json);
	}
	luf_close(&n);
out:
	free(pairs);
	return ret;
}

/* ------------------------------------------------------------------ */
/* /proc readers */

/*
 * The "TLB:" row of /proc/interrupts: one column per online CPU, then the
 * description.  Sums the numeric columns; false if there is no such row
 * (not x86).
 */
static bool read_tlb_shootdowns(uint64_t *sum)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "TLB:", 4))
			continue;
		found = true;
		*sum = 0;
		p += 4;
		for (;;) {
			unsigned long long v;

			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				break;
			v = strtoull(p, &end, 10);
			if (*end != ' ' && *end != '\t' && *end != '\n' && *end)
				break;
			*sum += v;
			p = end;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* Fill @v[i] for each of @names found in /proc/vmstat; @have says which. */
static void read_vmstat(const char *const *names, unsigned int nr,
			uint64_t *v, bool *have)
{
	char name[64];
	unsigned long long val;
	unsigned int i;
	FILE *f;

	for (i = 0; i < nr; i++) {
		have[i] = false;
		v[i] = 0;
	}
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return;
	while (fscanf(f, "%63s %llu", name, &val) == 2) {
		for (i = 0; i < nr; i++) {
			if (!strcmp(name, names[i])) {
				v[i] = val;
				have[i] = true;
			}
		}
	}
	fclose(f);
}

/* ------------------------------------------------------------------ */
/* watch */

/* The columns: luf counters, refused_* summed, and the TLB row. */
#define COL_REFUSED	-1
#define COL_TLB		-2

static const struct {
	const char *name;
	int stat;
} watch_cols[] = {
	{ "deferred", STAT(DEFERRED) },
	{ "pages_tagged", STAT(PAGES_TAGGED) },
	{ "flushes", STAT(FLUSHES) },
	{ "ipis", STAT(IPIS) },
	{ "flush_age", STAT(FLUSH_AGE) },
	{ "flush_limit", STAT(FLUSH_LIMIT) },
	{ "flush_reserve", STAT(FLUSH_RESERVE) },
	{ "refused", COL_REFUSED },
	{ "tlb_shootdowns", COL_TLB },
};

#define WATCH_HEADER_EVERY	20

struct watch_sample {
	double t;
	struct stats s;
	uint64_t tlb;
	bool have_tlb;
};

/*
 * The increase of the refused_* counters from @a to @b; false if one went
 * down (luf reloaded in between).
 */
static bool refused_delta(const struct stats *a, const struct stats *b,
			  uint64_t *d)
{
	int i;

	*d = 0;
	for (i = STAT(REFUSED_WRITABLE); i <= STAT(REFUSED_SPLIT); i++) {
		if (b->v[i] < a->v[i])
			return false;
		*d += b->v[i] - a->v[i];
	}
	return true;
}

static int watch_width(unsigned int c)
{
	int w = (int)strlen(watch_cols[c].name);

	return w < 8 ? 8 : w;
}

static void watch_header(void)
{
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(watch_cols); c++)
		printf("%s%*s", c ? " " : "", watch_width(c),
		       watch_cols[c].name);
	putchar('\n');
}

static void watch_line(const struct watch_sample *a,
		       const struct watch_sample *b)
{
	double dt = b->t - a->t;
	unsigned int c;

	if (dt <= 0)
		dt = 1e-9;
	for (c = 0; c < ARRAY_SIZE(watch_cols); c++) {
		int stat = watch_cols[c].stat, w = watch_width(c);
		const char *sep = c ? " " : "";
		bool valid;
		uint64_t d;

		/*
		 * A counter that went down (luf reloaded, a CPU row gone
		 * from /proc/interrupts) has no rate for this interval.
		 */
		if (stat == COL_TLB) {
			valid = a->have_tlb && b->have_tlb && b->tlb >= a->tlb;
			d = valid ? b->tlb - a->tlb : 0;
		} else if (stat == COL_REFUSED) {
			valid = refused_delta(&a->s, &b->s, &d);
		} else {
			valid = b->s.v[stat] >= a->s.v[stat];
			d = valid ? b->s.v[stat] - a->s.v[stat] : 0;
		}
		if (valid)
			printf("%s%*.0f", sep, w, (double)d / dt);
		else
			printf("%s%*s", sep, w, "-");
	}
	putchar('\n');
}

static int watch_sample(struct luf_nl *n, struct watch_sample *w)
{
	int ret = get_stats(n, &w->s);

	w->have_tlb = read_tlb_shootdowns(&w->tlb);
	w->t = now();
	return ret;
}

static void fmt_u64_attr(char *buf, size_t len, struct nlattr *a)
{
	if (a)
		snprintf(buf, len, "%" PRIu64, nla_get_u64(a));
	else
		snprintf(buf, len, "?");
}

static void print_event(struct nlattr **tb)
{
	char num[24];
	uint32_t type;

	if (!tb[LUF_A_EVENT_TYPE]) {
		printf("event: without a type\n");
		return;
	}
	type = nla_get_u32(tb[LUF_A_EVENT_TYPE]);
	switch (type) {
	case LUF_EVENT_TYPE_KNOB: {
		const char *origin = "?";
		char obuf[24];

		if (tb[LUF_A_EVENT_ORIGIN]) {
			uint32_t o = nla_get_u32(tb[LUF_A_EVENT_ORIGIN]);

			if (o == LUF_ORIGIN_SYSFS) {
				origin = "sysfs";
			} else if (o == LUF_ORIGIN_NETLINK) {
				origin = "netlink";
			} else {
				snprintf(obuf, sizeof(obuf), "origin %u", o);
				origin = obuf;
			}
		}
		fmt_u64_attr(num, sizeof(num), tb[LUF_A_EVENT_VALUE]);
		printf("event: knob %s=%s (%s)\n",
		       tb[LUF_A_EVENT_KNOB] ? nla_get_string(tb[LUF_A_EVENT_KNOB]) : "?",
		       num, origin);
		break;
	}
	case LUF_EVENT_TYPE_FORCED_FLUSH:
		fmt_u64_attr(num, sizeof(num), tb[LUF_A_EVENT_COUNT]);
		printf("event: forced_flush reason=%s count=%s\n",
		       tb[LUF_A_EVENT_REASON] ?
				nla_get_string(tb[LUF_A_EVENT_REASON]) : "?",
		       num);
		break;
	default:
		printf("event: type %u\n", type);
		break;
	}
}

static void print_stats_ntf(const struct stats *s)
{
	unsigned int i;

	printf("stats_ntf:");
	for (i = 0; i < NR_STATS; i++) {
		if (s->have[i])
			printf(" %s=%" PRIu64, stat_names[i], s->v[i]);
	}
	putchar('\n');
}

/* Multicast messages on the watch socket. */
static int on_notification(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	bool verbose = *(bool *)arg;
	struct genlmsghdr *g;

	if (!genlmsg_valid_hdr(nlh, 0))
		return NL_SKIP;
	g = genlmsg_hdr(nlh);
	if (g->cmd == LUF_CMD_EVENT) {
		struct nlattr *tb[LUF_A_EVENT_MAX + 1];

		if (genlmsg_parse(nlh, 0, tb, LUF_A_EVENT_MAX,
				  event_policy) < 0)
			printf("event: malformed\n");
		else
			print_event(tb);
		fflush(stdout);
	} else if (g->cmd == LUF_CMD_STATS_NTF && verbose) {
		struct stats s;

		/*
		 * The rates come from polling, which does not depend on
		 * stats_interval_ms; the snapshots are shown on request.
		 */
		if (parse_stats_attrs(nlh, &s) < 0)
			printf("stats_ntf: malformed\n");
		else
			print_stats_ntf(&s);
		fflush(stdout);
	}
	return NL_OK;
}

/* Notifications carry sequence number 0: do not check them. */
static int no_seq_check(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

static int watch_subscribe(struct luf_nl *n, struct nl_sock *mon,
			   const char *group)
{
	int id, err;

	id = genl_ctrl_resolve_grp(n->sk, LUF_FAMILY_NAME, group);
	if (id < 0) {
		err_msg("watch: the luf family has no multicast group '%s'",
			group);
		return EX_RUNTIME;
	}
	err = nl_socket_add_membership(mon, id);
	if (err == -NLE_PERM || err == -NLE_NOACCESS) {
		err_msg("not permitted: watch: joining luf's '%s' group: %s",
			group, nl_geterror(err));
		return EX_PERM;
	}
	if (err < 0) {
		err_msg("watch: joining luf's '%s' group: %s", group,
			nl_geterror(err));
		return EX_RUNTIME;
	}
	return EX_OK;
}

static int cmd_watch(struct opts *o, int argc, char **argv)
{
	struct watch_sample prev, cur;
	struct luf_nl n = { 0 };
	struct nl_sock *mon = NULL;
	struct nl_cb *cb = NULL;
	struct itimerspec its;
	struct pollfd pfd[2];
	uint32_t lines = 0;
	int ret, tfd = -1;

	ret = luf_open(&n);
	if (ret)
		goto out;

	/* A second socket for the multicast groups, kept out of the way of
	 * the requests' replies and acks.
	 */
	mon = nl_socket_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!mon || !cb) {
		err_msg("out of memory");
		ret = EX_RUNTIME;
		goto out;
	}
	ret = genl_connect(mon);
	if (ret < 0) {
		err_msg("watch: cannot open a netlink socket: %s",
			nl_geterror(ret));
		ret = EX_RUNTIME;
		goto out;
	}
	ret = watch_subscribe(&n, mon, LUF_MCGRP_EVENTS);
	/* The snapshots are only printed with -v: no need for them otherwise. */
	if (!ret && o->verbose)
		ret = watch_subscribe(&n, mon, LUF_MCGRP_STATS);
	if (ret)
		goto out;
	nl_socket_set_nonblocking(mon);
	/* Room for a burst of forced-flush events. */
	nl_socket_set_buffer_size(mon, 1 << 20, 0);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_notification, &o->verbose);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);

	catch_stop_signals();
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tfd < 0) {
		err_msg("watch: timerfd: %s", strerror(errno));
		ret = EX_RUNTIME;
		goto out;
	}
	its.it_value = to_timespec(o->interval);
	its.it_interval = its.it_value;
	ret = watch_sample(&n, &prev);
	if (ret)
		goto out;
	if (timerfd_settime(tfd, 0, &its, NULL) < 0) {
		err_msg("watch: timerfd: %s", strerror(errno));
		ret = EX_RUNTIME;
		goto out;
	}
	/* Subscribed and sampled: from here on nothing is missed. */
	fprintf(stderr, "%s: watching\n", prog);

	pfd[0] = (struct pollfd){ .fd = nl_socket_get_fd(mon), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
	while (!stop_signal) {
		if (ppoll(pfd, 2, NULL, &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			err_msg("watch: poll: %s", strerror(errno));
			ret = EX_RUNTIME;
			break;
		}
		if (pfd[0].revents) {
			int err;

			/* Drain: each call reads one datagram. */
			while ((err = nl_recvmsgs(mon, cb)) >= 0)
				;
			if (err == -NLE_NOMEM) {
				/* ENOBUFS: the socket overflowed. */
				printf("event: overrun, some notifications were lost\n");
				fflush(stdout);
			} else if (err != -NLE_AGAIN) {
				err_msg("watch: netlink: %s", nl_geterror(err));
				ret = EX_RUNTIME;
				break;
			}
		}
		if (pfd[1].revents) {
			uint64_t ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0 &&
			    errno != EAGAIN) {
				err_msg("watch: timerfd: %s", strerror(errno));
				ret = EX_RUNTIME;
				break;
			}
			ret = watch_sample(&n, &cur);
			if (ret)
				break;
			if (lines % WATCH_HEADER_EVERY == 0)
				watch_header();
			watch_line(&prev, &cur);
			if (fflush(stdout)) {
				err_msg("watch: cannot write: %s",
					strerror(errno));
				ret = EX_RUNTIME;
				break;
			}
			prev = cur;
			if (++lines == o->count && (o->given & OPT_COUNT))
				break;
		}
	}
out:
	if (tfd >= 0)
		close(tfd);
	if (cb)
		nl_cb_put(cb);
	if (mon)
		nl_socket_free(mon);
	luf_close(&n);
	/* Ctrl-C is the normal way to end a watch. */
	return ret;
}

/* ------------------------------------------------------------------ */
/* ab */

enum {
	M_TLB,
	M_REMOTE_FLUSH,
	M_REMOTE_FLUSH_RECEIVED,
	M_LOCAL_FLUSH_ONE,
	M_LOCAL_FLUSH_ALL,
	M_PGMIGRATE,
	M_PGDEMOTE,
	M_PGPROMOTE,
	M_LUF_DEFERRED,
	M_LUF_PAGES_TAGGED,
	M_LUF_FLUSHES,
	M_LUF_IPIS,
	NR_METRICS
};

static const char *const metric_names[NR_METRICS] = {
	[M_TLB]			= "tlb_shootdowns",
	[M_REMOTE_FLUSH]	= "nr_tlb_remote_flush",
	[M_REMOTE_FLUSH_RECEIVED] = "nr_tlb_remote_flush_received",
	[M_LOCAL_FLUSH_ONE]	= "nr_tlb_local_flush_one",
	[M_LOCAL_FLUSH_ALL]	= "nr_tlb_local_flush_all",
	[M_PGMIGRATE]		= "pgmigrate_success",
	[M_PGDEMOTE]		= "pgdemote",
	[M_PGPROMOTE]		= "pgpromote_success",
	[M_LUF_DEFERRED]	= "luf_deferred",
	[M_LUF_PAGES_TAGGED]	= "luf_pages_tagged",
	[M_LUF_FLUSHES]		= "luf_flushes",
	[M_LUF_IPIS]		= "luf_ipis",
};

/* The /proc/vmstat names read; the three pgdemote_* are summed. */
static const char *const ab_vmstat[] = {
	"nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"nr_tlb_local_flush_one", "nr_tlb_local_flush_all",
	"pgmigrate_success", "pgpromote_success",
	"pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged",
};

struct ab_sample {
	double t;
	uint64_t v[NR_METRICS];
	bool have[NR_METRICS];
};

static int ab_sample(struct luf_nl *n, struct ab_sample *a)
{
	uint64_t vm[ARRAY_SIZE(ab_vmstat)];
	bool have[ARRAY_SIZE(ab_vmstat)];
	struct stats s;
	int ret, i;

	memset(a, 0, sizeof(*a));
	ret = get_stats(n, &s);
	if (ret)
		return ret;
	a->have[M_TLB] = read_tlb_shootdowns(&a->v[M_TLB]);
	read_vmstat(ab_vmstat, ARRAY_SIZE(ab_vmstat), vm, have);
	a->t = now();

	for (i = 0; i < 6; i++) {
		static const int m[6] = {
			M_REMOTE_FLUSH, M_REMOTE_FLUSH_RECEIVED,
			M_LOCAL_FLUSH_ONE, M_LOCAL_FLUSH_ALL, M_PGMIGRATE,
			M_PGPROMOTE,
		};

		a->v[m[i]] = vm[i];
		a->have[m[i]] = have[i];
	}
	for (i = 6; i < 9; i++) {
		a->v[M_PGDEMOTE] += vm[i];
		a->have[M_PGDEMOTE] |= have[i];
	}
	a->v[M_LUF_DEFERRED] = s.v[STAT(DEFERRED)];
	a->v[M_LUF_PAGES_TAGGED] = s.v[STAT(PAGES_TAGGED)];
	a->v[M_LUF_FLUSHES] = s.v[STAT(FLUSHES)];
	a->v[M_LUF_IPIS] = s.v[STAT(IPIS)];
	a->have[M_LUF_DEFERRED] = s.have[STAT(DEFERRED)];
	a->have[M_LUF_PAGES_TAGGED] = s.have[STAT(PAGES_TAGGED)];
	a->have[M_LUF_FLUSHES] = s.have[STAT(FLUSHES)];
	a->have[M_LUF_IPIS] = s.have[STAT(IPIS)];
	return EX_OK;
}

/*
 * t(0.975, df): from the table for df = 1..30; beyond, interpolated
 * linearly in 1/df between the quantiles for df = 30, 40, 60, 120 and
 * infinity (the normal quantile), which is within 0.05% of the exact
 * value.
 */
static double t975(unsigned int df)
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

static double mean_of(const double *x, unsigned int n)
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
static double sd_of(const double *x, unsigned int n)
{
	double m = mean_of(x, n), ss = 0;
	unsigned int i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (n - 1));
}

struct ab_result {
	bool present;
	unsigned int n;			/* valid rounds */
	double off_mean, off_sd, on_mean, on_sd, ratio;
	double pr_mean, ci_lo, ci_hi;	/* paired ratios */
	unsigned int pr_n;		/* rounds used for them */
};

/*
 * @off and @on hold a rate per round, NaN where a counter went down
 * during the interval: such a round is left out, off and on alike.
 */
static void ab_analyse(const double *off, const double *on, unsigned int n,
		       struct ab_result *r)
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
	r->off_mean = mean_of(xoff, r->n);
	r->off_sd = sd_of(xoff, r->n);
	r->on_mean = mean_of(xon, r->n);
	r->on_sd = sd_of(xon, r->n);
	r->ratio = r->off_mean > 0 ? r->on_mean / r->off_mean : NAN;
	r->pr_mean = mean_of(pr, r->pr_n);
	if (r->pr_n >= 2) {
		double half = t975(r->pr_n - 1) * sd_of(pr, r->pr_n) /
			      sqrt(r->pr_n);

		r->ci_lo = r->pr_mean - half;
		r->ci_hi = r->pr_mean + half;
	}
	free(x);
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
	uint64_t tlb_total[2], migrated_total[2];	/* [enabled] */
};

#define AB_LEFT_OUT_NOTE	"intervals left out: a counter went backwards (module reloaded?)"

/* Print the results; returns an exit status (stdout may be gone). */
static int ab_print(const struct opts *o, const struct ab_run *run,
		    uint32_t restored)
{
	struct ab_result res[NR_METRICS];
	double per_page[2];
	unsigned int m, e;

	for (m = 0; m < NR_METRICS; m++) {
		memset(&res[m], 0, sizeof(res[m]));
		res[m].present = run->present[m];
		if (run->present[m])
			ab_analyse(run->off[m], run->on[m], run->done, &res[m]);
	}
	for (e = 0; e < 2; e++)
		per_page[e] = run->present[M_TLB] &&
			      run->present[M_PGMIGRATE] &&
			      run->migrated_total[e] ?
			(double)run->tlb_total[e] / run->migrated_total[e] :
			NAN;

	if (o->json) {
		printf("{\"rounds\": %u, ", run->done);
		json_num("interval_s", o->interval, "%g", true);
		json_num("settle_s", o->settle, "%g", true);
		printf("\"enabled_restored\": %" PRIu32 ", ", restored);
		printf("\"intervals_left_out\": %u, \"metrics\": {",
		       run->left_out);
		for (m = 0; m < NR_METRICS; m++) {
			const struct ab_result *r = &res[m];

			printf("%s\"%s\": {", m ? ", " : "", metric_names[m]);
			if (!r->present) {
				printf("\"present\": false}");
				continue;
			}
			printf("\"present\": true, \"valid_rounds\": %u, ", r->n);
			json_num("off_mean", r->off_mean, "%.3f", true);
			json_num("off_sd", r->off_sd, "%.3f", true);
			json_num("on_mean", r->on_mean, "%.3f", true);
			json_num("on_sd", r->on_sd, "%.3f", true);
			json_num("ratio", r->ratio, "%.4f", true);
			json_num("paired_ratio_mean", r->pr_mean, "%.4f", true);
			json_num("ci95_low", r->ci_lo, "%.4f", true);
			json_num("ci95_high", r->ci_hi, "%.4f", true);
			printf("\"ratio_rounds\": %u, ", r->pr_n);
			json_array("off", run->off[m], run->done);
			printf(", ");
			json_array("on", run->on[m], run->done);
			printf("}");
		}
		printf("}, \"tlb_shootdowns_per_migrated_page\": {");
		json_num("off", per_page[0], "%.4f", true);
		json_num("on", per_page[1], "%.4f", true);
		json_num("ratio", per_page[0] > 0 ? per_page[1] / per_page[0] :
			 NAN, "%.4f", false);
		printf("}}\n");
		goto flush;
	}

	printf("lufctl ab: %u rounds of %g s off and %g s on (settle %g s); enabled restored to %" PRIu32 "\n",
	       run->done, o->interval, o->interval, o->settle, restored);
	printf("%-30s %24s %24s %8s %21s %6s\n", "per second", "off (mean +- sd)",
	       "on (mean +- sd)", "on/off", "95% CI of on/off", "rounds");
	for (m = 0; m < NR_METRICS; m++) {
		const struct ab_result *r = &res[m];
		char offs[48], ons[48], ratio[24], lo[24], hi[24], ci[64];

		if (!r->present) {
			printf("%-30s absent\n", metric_names[m]);
			continue;
		}
		fmt_mean_sd(offs, sizeof(offs), r->off_mean, r->off_sd);
		fmt_mean_sd(ons, sizeof(ons), r->on_mean, r->on_sd);
		fmt_num(ratio, sizeof(ratio), r->ratio, "%.3f");
		fmt_num(lo, sizeof(lo), r->ci_lo, "%.3f");
		fmt_num(hi, sizeof(hi), r->ci_hi, "%.3f");
		if (isfinite(r->ci_lo))
			snprintf(ci, sizeof(ci), "%s .. %s", lo, hi);
		else
			snprintf(ci, sizeof(ci), "-");
		printf("%-30s %24s %24s %8s %21s %3u/%u\n", metric_names[m],
		       offs, ons, ratio, ci, r->pr_n, run->done);
	}
	{
		char off[24], on[24], ratio[24];

		fmt_num(off, sizeof(off), per_page[0], "%.4f");
		fmt_num(on, sizeof(on), per_page[1], "%.4f");
		fmt_num(ratio, sizeof(ratio),
			per_page[0] > 0 ? per_page[1] / per_page[0] : NAN,
			"%.3f");
		printf("%-30s %24s %24s %8s\n", "tlb_shootdowns/migrated_page",
		       off, on, ratio);
	}
	if (run->left_out)
		printf("%u " AB_LEFT_OUT_NOTE "\n", run->left_out);
flush:
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("ab: cannot write the results: %s", strerror(errno));
		return EX_RUNTIME;
	}
	return EX_OK;
}

static int ab_set_enabled(struct luf_nl *n, uint32_t v, bool *refused)
{
	struct pair p = { &knobs[0], v };

	return luf_set(n, &p, 1, refused);
}

/*
 * Put enabled back to @orig.  On a socket of its own: after a request that
 * timed out, its late answer could otherwise pass for this one's.  Returns
 * an exit status, having said why if it failed.
 */
static int ab_restore(uint32_t orig)
{
	struct luf_nl n = { 0 };
	char why[512];
	int ret;

	err_capture(why, sizeof(why));
	ret = luf_open(&n);
	if (!ret)
		ret = ab_set_enabled(&n, orig, NULL);
	luf_close(&n);
	err_capture(NULL, 0);
	if (ret) {
		err_msg("could not restore enabled=%" PRIu32 ": %s", orig,
			why[0] ? why : "unknown error");
		return EX_RUNTIME;
	}
	if (why[0])	/* the kernel's warning */
		err_msg("%s", why);
	return EX_OK;
}

/*
 * One measured interval with enabled=@e: switch, settle, measure.
 * Returns an exit status; EX_OK with stop_signal set if interrupted.
 */
static int ab_interval(const struct opts *o, struct luf_nl *n,
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
	if (!nap(o->settle))
		return EX_OK;
	ret = ab_sample(n, &a);
	if (ret)
		return ret;
	if (!nap(o->interval))
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
			prog, round + 1, run->rounds, e, tlb, deferred,
			flushes, backwards ? " (a counter went backwards)" : "");
	}

	/* Someone else switching luf meanwhile spoils the interval. */
	ret = get_status(n, &st);
	if (ret)
		return ret;
	if (st.have[LUF_A_STATUS_ENABLED] && st.v[LUF_A_STATUS_ENABLED] != e)
		err_msg("ab: warning: enabled changed to %" PRIu64 " during round %u, behind lufctl's back",
			st.v[LUF_A_STATUS_ENABLED], round + 1);
	return EX_OK;
}

static int cmd_ab(struct opts *o, int argc, char **argv)
{
	struct ab_run run = { .rounds = o->rounds };
	struct luf_nl n = { 0 };
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
	for (m = 0; m < NR_METRICS; m++) {
		run.off[m] = calloc(o->rounds, sizeof(double));
		run.on[m] = calloc(o->rounds, sizeof(double));
		if (!run.off[m] || !run.on[m]) {
			err_msg("out of memory");
			ret = EX_RUNTIME;
			goto out;
		}
	}
	ret = luf_open(&n);
	if (ret)
		goto out;
	ret = get_status(&n, &st);
	if (ret)
		goto out;
	if (!st.have[LUF_A_STATUS_ENABLED]) {
		err_msg("ab: the kernel's status lacks enabled");
		ret = EX_RUNTIME;
		goto out;
	}
	orig = (uint32_t)st.v[LUF_A_STATUS_ENABLED];
	for (m = 0; m < NR_METRICS; m++)
		run.present[m] = true;

	/* From here on, every way out restores enabled. */
	catch_stop_signals();
	for (r = 0; r < o->rounds && !ret && !stop_signal; r++) {
		/* off,on then on,off: a drift of the load cancels out. */
		uint32_t first = r % 2;

		ret = ab_interval(o, &n, &run, r, first, &switched);
		if (!ret && !stop_signal)
			ret = ab_interval(o, &n, &run, r, !first, &switched);
		if (!ret && !stop_signal)
			run.done = r + 1;
	}

	/* Nothing more on this socket: a late answer there is dropped. */
	luf_close(&n);
	if (switched && ab_restore(orig)) {
		if (stop_signal)
			err_msg("ab: interrupted by signal %d after %u of %u rounds",
				(int)stop_signal, run.done, run.rounds);
		ret = EX_RUNTIME;
		goto out;
	}
	if (stop_signal) {
		err_msg("ab: interrupted by signal %d after %u of %u rounds; enabled %s %" PRIu32,
			(int)stop_signal, run.done, run.rounds,
			switched ? "restored to" : "left at", orig);
		ret = 128 + stop_signal;
		goto out;
	}
	if (!ret)
		ret = ab_print(o, &run, orig);
out:
	luf_close(&n);
	for (m = 0; m < NR_METRICS; m++) {
		free(run.off[m]);
		free(run.on[m]);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/*
 * Static linking.  libnl's address and protocol helpers (nl_addr_info(),
 * nl_ip_proto2str(), ...) sit in objects we cannot avoid pulling in, and
 * they refer to glibc's NSS lookups, which make every static link warn.
 * lufctl never resolves a name: the Makefile redirects those references
 * here (ld --wrap) so that the NSS code is neither linked nor warned about.
 */
int __wrap_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res);
struct protoent *__wrap_getprotobynumber(int proto);
struct protoent *__wrap_getprotobyname(const char *name);

int __wrap_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res)
{
	return EAI_FAIL;
}

struct protoent *__wrap_getprotobynumber(int proto)
{
	return NULL;
}

struct protoent *__wrap_getprotobyname(const char *name)
{
	return NULL;
}

/* ------------------------------------------------------------------ */
/* main */

static int cmd_help(struct opts *o, int argc, char **argv)
{
	print_manual();
	return EX_OK;
}

struct command {
	const char *name;
	int (*fn)(struct opts *o, int argc, char **argv);
	unsigned int opts;	/* the OPT_* it accepts besides -v */
	bool args;		/* takes positional arguments */
};

static const struct command commands[] = {
	{ "status", cmd_status, OPT_JSON, false },
	{ "stats", cmd_stats, OPT_JSON, false },
	{ "set", cmd_set, OPT_JSON | OPT_NO_CHECK, true },
	{ "watch", cmd_watch, OPT_INTERVAL | OPT_COUNT, false },
	{ "ab", cmd_ab, OPT_JSON | OPT_INTERVAL | OPT_ROUNDS | OPT_SETTLE,
	  false },
	{ "help", cmd_help, ~0u, true },
};

static const struct {
	unsigned int bit;
	const char *name;
} opt_names[] = {
	{ OPT_JSON, "--json" }, { OPT_NO_CHECK, "--no-check" },
	{ OPT_INTERVAL, "--interval" }, { OPT_COUNT, "--count" },
	{ OPT_ROUNDS, "--rounds" }, { OPT_SETTLE, "--settle" },
};

enum { LOPT_NO_CHECK = 256, LOPT_COUNT, LOPT_SETTLE };

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "no-check", no_argument, NULL, LOPT_NO_CHECK },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, LOPT_COUNT },
	{ "rounds", required_argument, NULL, 'r' },
	{ "settle", required_argument, NULL, LOPT_SETTLE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * getopt_long() returned '?'.  A long option's failure (unknown, ambiguous,
 * or given a value it does not take) sets optopt to 0 or to the option's
 * val and leaves it in @arg, as the user typed it; a short option's sets
 * optopt to an unknown character, which getopt may still be in the middle
 * of @arg's cluster for.
 */
static void bad_option(const char *arg)
{
	const struct option *lo;
	const char *eq;

	for (lo = long_opts; lo->name; lo++)
		if (optopt == lo->val)
			break;
	if ((optopt && !lo->name) || strncmp(arg, "--", 2)) {
		if (optopt > ' ' && optopt < 127)
			err_msg("unknown option '-%c'", optopt);
		else
			err_msg("unknown option '%s'", arg);
		return;
	}
	eq = strchr(arg, '=');
	if (optopt && eq)
		err_msg("option '%s': --%s takes no value", arg, lo->name);
	else
		err_msg("unknown option '%s'", arg);
}

int main(int argc, char **argv)
{
	struct opts o = { .count = 0, .rounds = 5, .settle = 0.5 };
	const struct command *cmd = NULL;
	unsigned int i;
	uint32_t u;
	int c;

	init_policies();
	opterr = 0;
	/*
	 * GNU getopt permutes: options may follow the command.  KEY=VALUE
	 * never starts with '-', so it is never taken for an option.
	 */
	while ((c = getopt_long(argc, argv, ":jvi:r:hV", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			o.given |= OPT_JSON;
			break;
		case 'v':
			o.verbose = true;
			o.given |= OPT_VERBOSE;
			break;
		case LOPT_NO_CHECK:
			o.no_check = true;
			o.given |= OPT_NO_CHECK;
			break;
		case 'i':
			if (!parse_seconds(optarg, &o.interval) ||
			    o.interval < INTERVAL_MIN ||
			    o.interval > INTERVAL_MAX) {
				err_msg("--interval: '%s' is not a number of seconds from %g to %g",
					optarg, INTERVAL_MIN, INTERVAL_MAX);
				return EX_USAGE;
			}
			o.given |= OPT_INTERVAL;
			break;
		case LOPT_SETTLE:
			if (!parse_seconds(optarg, &o.settle) ||
			    o.settle > SETTLE_MAX) {
				err_msg("--settle: '%s' is not a number of seconds from 0 to %g",
					optarg, SETTLE_MAX);
				return EX_USAGE;
			}
			o.given |= OPT_SETTLE;
			break;
		case LOPT_COUNT:
			if (!parse_u32(optarg, &u) || !u) {
				err_msg("--count: '%s' is not a whole number from 1 to %u",
					optarg, UINT32_MAX);
				return EX_USAGE;
			}
			o.count = u;
			o.given |= OPT_COUNT;
			break;
		case 'r':
			if (!parse_u32(optarg, &u) || !u || u > ROUNDS_MAX) {
				err_msg("--rounds: '%s' is not a whole number from 1 to %d",
					optarg, ROUNDS_MAX);
				return EX_USAGE;
			}
			o.rounds = u;
			o.given |= OPT_ROUNDS;
			break;
		case 'h':
			print_manual();
			return EX_OK;
		case 'V':
			printf("lufctl %s (luf generic netlink family version %d)\n",
			       LUF_VERSION, LUF_FAMILY_VERSION);
			return EX_OK;
		case ':':
			err_msg("option %s needs a value", argv[optind - 1]);
			usage_hint();
			return EX_USAGE;
		default:
			bad_option(argv[optind - 1]);
			usage_hint();
			return EX_USAGE;
		}
	}

	if (optind >= argc) {
		err_msg("no command given");
		usage_hint();
		return EX_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[optind], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		err_msg("unknown command '%s'", argv[optind]);
		usage_hint();
		return EX_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(opt_names); i++) {
		if ((o.given & opt_names[i].bit) && !(cmd->opts & opt_names[i].bit)) {
			err_msg("%s: option %s does not apply", cmd->name,
				opt_names[i].name);
			usage_hint();
			return EX_USAGE;
		}
	}
	if (!cmd->args && optind + 1 < argc) {
		err_msg("%s: unexpected argument '%s'", cmd->name,
			argv[optind + 1]);
		usage_hint();
		return EX_USAGE;
	}
	if (!(o.given & OPT_INTERVAL))
		o.interval = cmd->fn == cmd_ab ? 10 : 1;

	return cmd->fn(&o, argc - optind - 1, argv + optind + 1);
}
