// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl set KEY=VALUE...: one SET request with every pair, which the
 * kernel applies all or none.  Every pair is checked here first, so that a
 * usage error is reported the same way whether or not luf is loaded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lufctl.h"

const struct knob *lufctl_find_knob(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		if (strlen(lufctl_knobs[i].name) == len &&
		    !strncmp(lufctl_knobs[i].name, name, len))
			return &lufctl_knobs[i];
	return NULL;
}

/*
 * One KEY=VALUE into @p; with @check, its value must be in the knob's
 * range.  Messages start with @where ("set", or apply's "FILE:LINE").
 * Returns false having said why.
 */
bool lufctl_parse_pair(const char *where, const char *arg, bool check,
		       struct pair *p)
{
	const char *eq = strchr(arg, '=');
	const struct knob *k;
	uint32_t v;

	if (!eq || eq == arg) {
		lufctl_err("%s: '%s' is not KEY=VALUE", where, arg);
		return false;
	}
	k = lufctl_find_knob(arg, (size_t)(eq - arg));
	if (!k) {
		char list[256] = "";
		unsigned int j;

		for (j = 0; j < NR_KNOBS; j++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", j ? ", " : "", lufctl_knobs[j].name);
		lufctl_err("%s: unknown key '%.*s' (keys: %s)", where,
			   (int)(eq - arg), arg, list);
		return false;
	}
	if (!lufctl_parse_u32(eq + 1, &v)) {
		lufctl_err("%s: %s: '%s' is not a decimal number (0..%u)", where,
			   k->name, eq + 1, UINT32_MAX);
		return false;
	}
	if (check && (v < k->min || v > k->max)) {
		lufctl_err("%s: %s=%" PRIu32 " is out of range: %s takes %u..%u",
			   where, k->name, v, k->name, k->min, k->max);
		return false;
	}
	p->knob = k;
	p->value = v;
	return true;
}

/*
 * Send @nr checked pairs in one SET request (none: only check that luf is
 * loaded) and, with -v, print the status after it; returns an exit status.
 */
int lufctl_set_pairs(const struct opts *o, const struct pair *p,
		     unsigned int nr)
{
	struct lufctl_nl n = { 0 };
	int ret;

	ret = lufctl_nl_open(&n);
	if (!ret && nr)
		ret = lufctl_nl_set(&n, p, nr, NULL);
	if (!ret && o->verbose) {
		struct status st;

		ret = lufctl_nl_get_status(&n, &st);
		if (!ret)
			ret = lufctl_print_status(&st, o->json);
	}
	lufctl_nl_close(&n);
	return ret;
}

static int cmd_set(struct opts *o, int argc, char **argv)
{
	bool seen[NR_KNOBS] = { false };
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
		unsigned int k;

		if (!lufctl_parse_pair("set", argv[i], !o->no_check,
				       &pairs[i])) {
			ret = EX_USAGE;
			goto out;
		}
		k = (unsigned int)(pairs[i].knob - lufctl_knobs);
		if (!o->no_check && seen[k]) {
			lufctl_err("set: %s given more than once",
				   pairs[i].knob->name);
			ret = EX_USAGE;
			goto out;
		}
		seen[k] = true;
	}

	ret = lufctl_set_pairs(o, pairs, (unsigned int)argc);
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
