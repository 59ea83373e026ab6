// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl set KEY=VALUE...: one SET request with every pair, which the
 * kernel applies all or none.  Every pair is checked here first, so that a
 * usage error is reported the same way whether or not luf is loaded.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lufctl.h"

/*
 * The keys, as in /sys/kernel/mm/luf/; --help lists them under KEYS with
 * their ranges and documentation.  enabled comes first: ab switches it.
 */
const struct knob lufctl_knobs[] = {
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

static_assert(ARRAY_SIZE(lufctl_knobs) == NR_KNOBS,
	      "lufctl_knobs[] must list every settable attribute");

static const struct knob *find_knob(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		if (strlen(lufctl_knobs[i].name) == len &&
		    !strncmp(lufctl_knobs[i].name, name, len))
			return &lufctl_knobs[i];
	return NULL;
}

static int cmd_set(struct opts *o, int argc, char **argv)
{
	bool seen[NR_KNOBS] = { false };
	struct lufctl_nl n = { 0 };
	struct pair *pairs;
	int i, ret;

	if (!argc && !o->no_check) {
		lufctl_err("set: nothing to set: give KEY=VALUE pairs");
		lufctl_usage_hint();
		return EX_USAGE;
	}
	if (argc > SET_MAX_PAIRS) {
		lufctl_err("set: %d pairs, at most %d fit in one request",
			   argc, SET_MAX_PAIRS);
		return EX_USAGE;
	}
	pairs = calloc(argc ? argc : 1, sizeof(*pairs));
	if (!pairs) {
		lufctl_err("out of memory");
		return EX_RUNTIME;
	}

	/* Every pair is checked before anything is sent: all or nothing. */
	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const struct knob *k;
		uint32_t v;

		if (!eq || eq == argv[i]) {
			lufctl_err("set: '%s' is not KEY=VALUE", argv[i]);
			ret = EX_USAGE;
			goto out;
		}
		k = find_knob(argv[i], (size_t)(eq - argv[i]));
		if (!k) {
			char list[256] = "";
			unsigned int j;

			for (j = 0; j < NR_KNOBS; j++)
				snprintf(list + strlen(list),
					 sizeof(list) - strlen(list), "%s%s",
					 j ? ", " : "", lufctl_knobs[j].name);
			lufctl_err("set: unknown key '%.*s' (keys: %s)",
				   (int)(eq - argv[i]), argv[i], list);
			ret = EX_USAGE;
			goto out;
		}
		if (!lufctl_parse_u32(eq + 1, &v)) {
			lufctl_err("set: %s: '%s' is not a decimal number (0..%u)",
				   k->name, eq + 1, UINT32_MAX);
			ret = EX_USAGE;
			goto out;
		}
		if (!o->no_check && (v < k->min || v > k->max)) {
			lufctl_err("set: %s=%" PRIu32 " is out of range: %s takes %u..%u",
				   k->name, v, k->name, k->min, k->max);
			ret = EX_USAGE;
			goto out;
		}
		if (!o->no_check && seen[k - lufctl_knobs]) {
			lufctl_err("set: %s given more than once", k->name);
			ret = EX_USAGE;
			goto out;
		}
		seen[k - lufctl_knobs] = true;
		pairs[i].knob = k;
		pairs[i].value = v;
	}

	ret = lufctl_nl_open(&n);
	if (!ret)
		ret = lufctl_nl_set(&n, pairs, (unsigned int)argc, NULL);
	if (!ret && o->verbose) {
		struct status st;

		ret = lufctl_nl_get_status(&n, &st);
		if (!ret)
			ret = lufctl_print_status(&st, o->json);
	}
	lufctl_nl_close(&n);
out:
	free(pairs);
	return ret;
}

const struct lufctl_command lufctl_cmd_set = {
	.name		= "set",
	.fn		= cmd_set,
	.opts		= OPT_JSON | OPT_NO_CHECK,
	.args		= true,
	.synopsis	= "lufctl [-v] [--json] [--no-check] set KEY=VALUE...",
	.help		=
"    set KEY=VALUE...\n"
"        Set the named knobs in one request: the kernel applies all of them\n"
"        or none.  Needs CAP_NET_ADMIN.  Each key at most once; values are\n"
"        decimal.  Prints nothing on success; with -v, the new status.  A\n"
"        value the kernel refuses is reported with the kernel's own message.\n",
};
