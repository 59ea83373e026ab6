// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl apply [--file F]: the settings of /etc/luf/luf.conf, for
 * luf.service at boot.  The file holds what set takes, one KEY=VALUE a
 * line; every line is checked before anything is sent, and the pairs go in
 * one SET request, which the kernel applies all or none.  A bad line is
 * named with its number, and then nothing is applied.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lufctl.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* @s without the blanks at either end, in place. */
static char *trim(char *s)
{
	char *end;

	while (blank(*s))
		s++;
	end = s + strlen(s);
	while (end > s && blank(end[-1]))
		*--end = '\0';
	return s;
}

struct conf {
	const char *path;
	struct pair pairs[NR_KNOBS];
	unsigned int line_of[NR_KNOBS];	/* by knob: where it was set, or 0 */
	unsigned int nr, bad;
};

/*
 * One line: blank, a comment (from '#' to the end), or KEY=VALUE with
 * blanks allowed around the key and the value, as in sysctl.conf.
 */
static void conf_line(struct conf *c, char *line, size_t len,
		      unsigned int lineno)
{
	char where[4200], pair[4200], *s = line, *eq, *key, *val;
	struct pair p;
	unsigned int k;

	snprintf(where, sizeof(where), "%s:%u", c->path, lineno);
	if (strlen(line) != len) {
		lufctl_err("%s: the line holds a NUL byte", where);
		c->bad++;
		return;
	}
	s[strcspn(s, "#")] = '\0';
	s = trim(s);
	if (!*s)
		return;
	eq = strchr(s, '=');
	if (!eq) {
		lufctl_err("%s: '%s' is not KEY=VALUE", where, s);
		c->bad++;
		return;
	}
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	snprintf(pair, sizeof(pair), "%s=%s", key, val);
	if (!lufctl_parse_pair(where, pair, true, &p)) {
		c->bad++;
		return;
	}
	k = (unsigned int)(p.knob - lufctl_knobs);
	if (c->line_of[k]) {
		lufctl_err("%s: %s given more than once (first on line %u)",
			   where, p.knob->name, c->line_of[k]);
		c->bad++;
		return;
	}
	c->line_of[k] = lineno;
	c->pairs[c->nr++] = p;
}

/* Read and check the whole file; returns an exit status. */
static int conf_read(struct conf *c)
{
	unsigned int lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;
	FILE *f;

	f = fopen(c->path, "re");
	if (!f) {
		lufctl_err("apply: cannot read %s: %s", c->path,
			   strerror(errno));
		return EX_RUNTIME;
	}
	while ((len = getline(&line, &cap, f)) >= 0)
		conf_line(c, line, (size_t)len, ++lineno);
	free(line);
	if (ferror(f)) {
		lufctl_err("apply: cannot read %s: %s", c->path,
			   strerror(errno));
		fclose(f);
		return EX_RUNTIME;
	}
	fclose(f);
	if (c->bad) {
		lufctl_err("%s: %u bad line%s: nothing applied", c->path, c->bad,
			   c->bad == 1 ? "" : "s");
		return EX_USAGE;
	}
	return EX_OK;
}

static int cmd_apply(struct opts *o, int argc, char **argv)
{
	struct conf c = { .path = o->file ? o->file : LUFCTL_CONF };
	unsigned int i;
	int ret;

	ret = conf_read(&c);
	if (ret)
		return ret;
	if (o->dry_run) {
		for (i = 0; i < c.nr; i++)
			printf("%s=%" PRIu32 "\n", c.pairs[i].knob->name,
			       c.pairs[i].value);
		if (fflush(stdout)) {
			lufctl_err("apply: cannot write: %s", strerror(errno));
			return EX_RUNTIME;
		}
		return EX_OK;
	}

	/* A file with nothing set still says whether luf is there. */
	return lufctl_set_pairs(o, c.pairs, c.nr);
}

const struct lufctl_command lufctl_cmd_apply = {
	.name		= "apply",
	.fn		= cmd_apply,
	.opts		= OPT_JSON | OPT_FILE | OPT_DRY_RUN,
	.synopsis	= "lufctl [-v] [--json] apply [--file F] [--dry-run]",
	.help		=
"    apply [--file F] [--dry-run]\n"
"        Apply the settings of " LUFCTL_CONF " (or of F): what set takes,\n"
"        one KEY=VALUE a line, with blanks allowed around the key and the\n"
"        value; '#' starts a comment, to the end of the line.  Each key at\n"
"        most once, in its range (see KEYS).  Every line is checked first:\n"
"        a bad one is named as FILE:LINE with the reason, every bad line is\n"
"        reported, and then nothing is applied (exit status 2).  The pairs\n"
"        go in one request, which the kernel applies all or none; keys the\n"
"        file does not set keep their values.  A file that sets nothing\n"
"        only checks that luf is loaded.  luf.service runs it at boot,\n"
"        after modprobe luf.  Needs CAP_NET_ADMIN.  Prints nothing on\n"
"        success; with -v, the new status.  With --dry-run, checks the file\n"
"        and prints the pairs it would apply, KEY=VALUE, without luf.\n",
};
