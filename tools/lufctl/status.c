// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl status: the knobs and the state of the deferred batch, from
 * STATUS_GET.  Also how every reply is printed (stats and set -v too).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lufctl.h"

/*
 * Print a reply as "name value" lines or one JSON object.  An attribute
 * the kernel left out is a kernel bug: the rest is printed, then it is
 * named and the exit status is 1.
 */
int lufctl_print_pairs(const char *what, const char *const *names,
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
		lufctl_err("%s: cannot write: %s", what, strerror(errno));
		return EX_RUNTIME;
	}
	for (i = 0; i < nr; i++) {
		if (!have[i]) {
			lufctl_err("%s: the kernel's reply lacks %s", what,
				   names[i]);
			ret = EX_RUNTIME;
		}
	}
	return ret;
}

static bool is_knob(unsigned int attr)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		if (lufctl_knobs[i].attr == (int)attr)
			return true;
	return false;
}

/*
 * The knobs first, in the order of KEYS, then the state in the order of
 * the attributes: a knob added later is numbered after the state.
 */
int lufctl_print_status(const struct status *st, bool json)
{
	const char *names[STATUS_LAST];
	uint64_t v[STATUS_LAST];
	bool have[STATUS_LAST];
	unsigned int a, i, n = 0;

	for (i = 0; i < NR_KNOBS; i++) {
		a = (unsigned int)lufctl_knobs[i].attr;
		names[n] = lufctl_status_fields[a].name;
		v[n] = st->v[a];
		have[n++] = st->have[a];
	}
	for (a = STATUS_FIRST; a <= STATUS_LAST; a++) {
		if (is_knob(a))
			continue;
		names[n] = lufctl_status_fields[a].name;
		v[n] = st->v[a];
		have[n++] = st->have[a];
	}
	return lufctl_print_pairs("status", names, v, have, n, json);
}

static int cmd_status(struct opts *o, int argc, char **argv)
{
	struct lufctl_nl n = { 0 };
	struct status st;
	int ret;

	ret = lufctl_nl_open(&n);
	if (!ret)
		ret = lufctl_nl_get_status(&n, &st);
	if (!ret)
		ret = lufctl_print_status(&st, o->json);
	lufctl_nl_close(&n);
	return ret;
}

const struct lufctl_command lufctl_cmd_status = {
	.name		= "status",
	.fn		= cmd_status,
	.opts		= OPT_JSON,
	.synopsis	= "lufctl [--json] status",
	.help		=
"    status\n"
"        Print the knobs and the state of the deferred batch as \"name value\"\n"
"        lines: the knobs (see KEYS), then abi_version, hooks, gen_flushed,\n"
"        gen_deferred, gen_open, flushing, pending_cpus, pending_pages and\n"
"        oldest_pending_ms.  With --json, one JSON object.\n",
};
