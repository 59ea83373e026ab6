// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl: luf's control tool, over the "luf" generic netlink family.
 *
 * status, stats and set are thin wrappers of the family's three "do"
 * operations, and apply is set from a file (luf.service's); watch and ab
 * are the reasons the tool exists: watch shows
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
 * tools/lufctl-man.sh.  Each command documents itself next to its code
 * (struct lufctl_command); this file puts the pieces together.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lufctl.h"

/* dkms.conf's PACKAGE_VERSION, passed in by tools/Makefile. */
#ifndef LUF_VERSION
#error "build lufctl with -DLUF_VERSION (tools/Makefile does)"
#endif

void lufctl_usage_hint(void)
{
	fprintf(stderr,
		"usage: lufctl [--json] [-v] COMMAND [ARGS]\n"
		"commands: status, stats [--format text|json|prometheus], set KEY=VALUE...,\n"
		"          apply [--file F] [--dry-run], watch [--interval S] [--count N],\n"
		"          ab [--rounds N] [--interval S] [--settle S], help\n"
		"Try 'lufctl --help' for more information.\n");
}

static int cmd_help(struct opts *o, int argc, char **argv);

static const struct lufctl_command help_command = {
	.name		= "help",
	.fn		= cmd_help,
	.opts		= ~0u,
	.args		= true,
	.synopsis	= "lufctl help | --help",
	.help		=
"    help\n"
"        Print this text.\n",
};

/* In the order --help lists them. */
static const struct lufctl_command *const commands[] = {
	&lufctl_cmd_status,
	&lufctl_cmd_stats,
	&lufctl_cmd_set,
	&lufctl_cmd_apply,
	&lufctl_cmd_watch,
	&lufctl_cmd_ab,
	&help_command,
};

/*
 * --help, also the man page (tools/lufctl-man.sh): these sections, then
 * each command's synopsis and help, the options and the keys of set.
 */
static const char manual_head[] =
"NAME\n"
"    lufctl - query, tune and measure luf (lazy unmap flush)\n"
"\n"
"SYNOPSIS\n";

static const char manual_tail[] =
"\n"
"EXIT STATUS\n"
"    0    Success.\n"
"    1    Runtime error: a netlink failure, the kernel refused a value\n"
"         (its message is printed), a write to stdout failed, apply could\n"
"         not read its file, or ab could not restore enabled (\"could not\n"
"         restore enabled=X: reason\").\n"
"    2    Usage error: bad command, option, key or value (syntax or range),\n"
"         or a bad line in apply's file, caught before anything is sent.\n"
"    3    luf is not loaded: the \"" LUF_FAMILY_NAME "\" generic netlink family is not\n"
"         registered (stats --format prometheus prints the host's counters\n"
"         all the same).\n"
"    4    Not permitted: set, apply and ab need CAP_NET_ADMIN.\n"
"    130  ab was interrupted by SIGINT (143 for SIGTERM, 129 for SIGHUP);\n"
"         enabled was restored.\n"
"\n"
"EXAMPLES\n"
"    lufctl status\n"
"    lufctl stats --json\n"
"    lufctl set max_defer_ms=20 max_pages=4096\n"
"    lufctl -v set enabled=0\n"
"    lufctl apply --dry-run --file ./luf.conf\n"
"    lufctl stats --format prometheus\n"
"    lufctl watch --interval 0.5 --count 20\n"
"    lufctl ab --rounds 10 --interval 5 --json > ab.json\n"
"\n"
"FILES\n"
"    " LUFCTL_CONF "\n"
"        The settings apply applies: KEY=VALUE lines, the keys of set.\n"
"    luf.service\n"
"        systemd unit (luf-tools package; not enabled on installation):\n"
"        modprobe luf, then lufctl apply; stopping it unloads luf.  It\n"
"        fails with one line that says why if the running kernel lacks\n"
"        core-hooks.patch or has no luf module.\n"
"    luf-metrics.timer\n"
"        systemd timer (not enabled on installation): every minute, lufctl\n"
"        stats --format prometheus into\n"
"        /var/lib/prometheus/node-exporter/luf.prom, node_exporter's\n"
"        textfile collector directory, through a temporary file renamed\n"
"        into place.\n"
"\n"
"SEE ALSO\n"
"    This text is also lufctl's man page, lufctl(8).  The generic netlink\n"
"    family, the sysfs knobs and the counters are described in module/ABI\n"
"    of luf's source tree (/usr/share/doc/luf-tools/ABI.gz in the Debian\n"
"    package).\n";

static void print_manual(void)
{
	unsigned int i;

	fputs(manual_head, stdout);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		printf("    %s\n", commands[i]->synopsis);
	printf(
"    lufctl --version\n"
"\n"
"DESCRIPTION\n"
"    lufctl talks to the luf kernel module through its generic netlink\n"
"    family \"" LUF_FAMILY_NAME "\" (version %d).  The knobs it sets are the files of\n"
"    /sys/kernel/mm/luf/ and go through the same validation in the kernel;\n"
"    the counters it reads are those of /sys/kernel/debug/luf/stats.\n"
"    Options may be given before or after the command.\n"
"\n"
"COMMANDS\n",
	       LUF_FAMILY_VERSION);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		printf("%s\n", commands[i]->help);
	printf(
"OPTIONS\n"
"    -j, --json\n"
"        Print JSON (status, stats, ab; set and apply with -v).\n"
"    -v, --verbose\n"
"        set, apply: print the status after the change.  watch: print the stats\n"
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
"    --format text|json|prometheus\n"
"        stats: the output format (json is --json).\n"
"    --file F\n"
"        apply: the file to apply instead of " LUFCTL_CONF ".\n"
"    --dry-run\n"
"        apply: check the file and print what it sets; change nothing.\n"
"    -h, --help\n"
"        Print this text.\n"
"    -V, --version\n"
"        Print the version.\n"
"\n"
"KEYS\n"
"    The keys of set, as in /sys/kernel/mm/luf/, with their ranges:\n",
	       SET_MAX_PAIRS, INTERVAL_MIN, INTERVAL_MAX, ROUNDS_MAX,
	       SETTLE_MAX);
	for (i = 0; i < NR_KNOBS; i++)
		printf("    %-18s %u..%u\n        %s\n", lufctl_knobs[i].name,
		       lufctl_knobs[i].min, lufctl_knobs[i].max,
		       lufctl_knobs[i].doc);
	fputs(manual_tail, stdout);
}

static int cmd_help(struct opts *o, int argc, char **argv)
{
	print_manual();
	return EX_OK;
}

static const struct {
	unsigned int bit;
	const char *name;
} opt_names[] = {
	{ OPT_JSON, "--json" }, { OPT_NO_CHECK, "--no-check" },
	{ OPT_INTERVAL, "--interval" }, { OPT_COUNT, "--count" },
	{ OPT_ROUNDS, "--rounds" }, { OPT_SETTLE, "--settle" },
	{ OPT_FORMAT, "--format" }, { OPT_FILE, "--file" },
	{ OPT_DRY_RUN, "--dry-run" },
};

enum {
	LOPT_NO_CHECK = 256, LOPT_COUNT, LOPT_SETTLE, LOPT_FORMAT, LOPT_FILE,
	LOPT_DRY_RUN,
};

static const char *const format_names[] = {
	[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json",
	[FORMAT_PROMETHEUS] = "prometheus",
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "no-check", no_argument, NULL, LOPT_NO_CHECK },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, LOPT_COUNT },
	{ "rounds", required_argument, NULL, 'r' },
	{ "settle", required_argument, NULL, LOPT_SETTLE },
	{ "format", required_argument, NULL, LOPT_FORMAT },
	{ "file", required_argument, NULL, LOPT_FILE },
	{ "dry-run", no_argument, NULL, LOPT_DRY_RUN },
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
			lufctl_err("unknown option '-%c'", optopt);
		else
			lufctl_err("unknown option '%s'", arg);
		return;
	}
	eq = strchr(arg, '=');
	if (optopt && eq)
		lufctl_err("option '%s': --%s takes no value", arg, lo->name);
	else
		lufctl_err("unknown option '%s'", arg);
}

int main(int argc, char **argv)
{
	struct opts o = { .count = 0, .rounds = 5, .settle = 0.5 };
	const struct lufctl_command *cmd = NULL;
	unsigned int i;
	uint32_t u;
	int c;

	lufctl_nl_init();
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
			if (!lufctl_parse_seconds(optarg, &o.interval) ||
			    o.interval < INTERVAL_MIN ||
			    o.interval > INTERVAL_MAX) {
				lufctl_err("--interval: '%s' is not a number of seconds from %g to %g",
					   optarg, INTERVAL_MIN, INTERVAL_MAX);
				return EX_USAGE;
			}
			o.given |= OPT_INTERVAL;
			break;
		case LOPT_SETTLE:
			if (!lufctl_parse_seconds(optarg, &o.settle) ||
			    o.settle > SETTLE_MAX) {
				lufctl_err("--settle: '%s' is not a number of seconds from 0 to %g",
					   optarg, SETTLE_MAX);
				return EX_USAGE;
			}
			o.given |= OPT_SETTLE;
			break;
		case LOPT_COUNT:
			if (!lufctl_parse_u32(optarg, &u) || !u) {
				lufctl_err("--count: '%s' is not a whole number from 1 to %u",
					   optarg, UINT32_MAX);
				return EX_USAGE;
			}
			o.count = u;
			o.given |= OPT_COUNT;
			break;
		case 'r':
			if (!lufctl_parse_u32(optarg, &u) || !u ||
			    u > ROUNDS_MAX) {
				lufctl_err("--rounds: '%s' is not a whole number from 1 to %d",
					   optarg, ROUNDS_MAX);
				return EX_USAGE;
			}
			o.rounds = u;
			o.given |= OPT_ROUNDS;
			break;
		case LOPT_FORMAT:
			for (i = 0; i < ARRAY_SIZE(format_names); i++)
				if (!strcmp(optarg, format_names[i]))
					break;
			if (i == ARRAY_SIZE(format_names)) {
				lufctl_err("--format: '%s' is not text, json or prometheus",
					   optarg);
				return EX_USAGE;
			}
			o.format = (int)i;
			o.given |= OPT_FORMAT;
			break;
		case LOPT_FILE:
			if (!*optarg) {
				lufctl_err("--file: the file name is empty");
				return EX_USAGE;
			}
			o.file = optarg;
			o.given |= OPT_FILE;
			break;
		case LOPT_DRY_RUN:
			o.dry_run = true;
			o.given |= OPT_DRY_RUN;
			break;
		case 'h':
			print_manual();
			return EX_OK;
		case 'V':
			printf("lufctl %s (luf generic netlink family version %d)\n",
			       LUF_VERSION, LUF_FAMILY_VERSION);
			return EX_OK;
		case ':':
			lufctl_err("option %s needs a value", argv[optind - 1]);
			lufctl_usage_hint();
			return EX_USAGE;
		default:
			bad_option(argv[optind - 1]);
			lufctl_usage_hint();
			return EX_USAGE;
		}
	}

	if (optind >= argc) {
		lufctl_err("no command given");
		lufctl_usage_hint();
		return EX_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[optind], commands[i]->name))
			cmd = commands[i];
	if (!cmd) {
		lufctl_err("unknown command '%s'", argv[optind]);
		lufctl_usage_hint();
		return EX_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(opt_names); i++) {
		if ((o.given & opt_names[i].bit) &&
		    !(cmd->opts & opt_names[i].bit)) {
			lufctl_err("%s: option %s does not apply", cmd->name,
				   opt_names[i].name);
			lufctl_usage_hint();
			return EX_USAGE;
		}
	}
	if (!cmd->args && optind + 1 < argc) {
		lufctl_err("%s: unexpected argument '%s'", cmd->name,
			   argv[optind + 1]);
		lufctl_usage_hint();
		return EX_USAGE;
	}
	if (!(o.given & OPT_INTERVAL))
		o.interval = cmd->interval;
	if (o.format == FORMAT_JSON)
		o.json = true;
	if (o.format == FORMAT_PROMETHEUS && (o.given & OPT_JSON)) {
		lufctl_err("%s: --json and --format prometheus exclude each other",
			   cmd->name);
		lufctl_usage_hint();
		return EX_USAGE;
	}

	return cmd->fn(&o, argc - optind - 1, argv + optind + 1);
}
