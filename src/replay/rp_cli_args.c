/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_cli_args.c - the readers of one option's argument (numbers, lists,
 * locality.conf values, --set KEY=VALUE) and the exits on bad usage,
 * shared by locality-replay and locality-advise.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loc_conf.h"
#include "rp_cli.h"

void rp_die_err(int code, const loc_error_t *err)
{
	char buf[600];

	fprintf(stderr, "%s: %s\n", PROG,
		loc_error_format(err, buf, sizeof(buf)));
	exit(code);
}

void rp_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", PROG);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", PROG);
	exit(EXIT_USAGE);
}

long rp_int_arg(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max) {
		fprintf(stderr, "%s: %s: '%s' is not a number in %ld..%ld\n",
			PROG, opt, s, min, max);
		exit(EXIT_USAGE);
	}
	return v;
}

void rp_bad_option(const char *opt, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", PROG, opt, why);
	exit(EXIT_USAGE);
}

void rp_key_arg(rp_opts_t *o, const char *opt, int key, const char *s)
{
	char why[LOC_ERROR_TEXT_MAX];

	if (loc_conf_overrides_parse(&o->keys, key, s, why, sizeof(why)))
		rp_bad_option(opt, why);
}

/* Whether --set may give key: the keys with options, and the policy keys
 * but the two each row chooses. */
static bool _settable(int key)
{
	const loc_conf_key_info_t *info = loc_conf_key_info(key);

	for (int i = 0; i < rp_nkey_options; i++)
		if ((int)rp_key_options[i].key == key)
			return true;
	return info && info->partition && key != LOC_KEY_STRATEGY &&
	       key != LOC_KEY_WALLTIME;
}

void rp_set_arg(rp_opts_t *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char why[LOC_ERROR_TEXT_MAX];
	int key = -1;

	if (!eq || eq == arg) {
		snprintf(why, sizeof(why), "'%.64s' is not KEY=VALUE", arg);
		rp_bad_option("--set", why);
	}
	for (int k = 0; k < LOC_KEY_COUNT && key < 0; k++) {
		const char *name = loc_conf_key_info(k)->name;

		if (strlen(name) == (size_t)(eq - arg) &&
		    !strncasecmp(name, arg, (size_t)(eq - arg)))
			key = k;
	}
	if (key < 0 || !_settable(key)) {
		snprintf(why, sizeof(why),
			 "'%.*s' is not a key the replay sets (the policy keys "
			 "of locality.conf(5) but Strategy and WalltimeAware, "
			 "AdjEstWindow and PFHoldTime)",
			 (int)(eq - arg > 64 ? 64 : eq - arg), arg);
		rp_bad_option("--set", why);
	}
	rp_key_arg(o, "--set", key, eq + 1);
}

double rp_real_arg(const char *opt, const char *s, double min)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v < min) {
		fprintf(stderr, "%s: %s: '%s' is not a number >= %g\n", PROG,
			opt, s, min);
		exit(EXIT_USAGE);
	}
	return v;
}

int rp_split(char *s, char **out, int max)
{
	int n = 0;

	while (s && *s && n < max) {
		char *c = strchr(s, ',');

		if (c)
			*c = '\0';
		if (*s)
			out[n++] = s;
		s = c ? c + 1 : NULL;
	}
	return n;
}

int rp_machines_total(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	long total = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long id, nodes;
		char name[128];

		if (line[0] == '#' || line[0] == ';')
			continue;
		if (sscanf(line, "%ld %127s %ld", &id, name, &nodes) == 3 &&
		    nodes > 0 && nodes < (1 << 24))
			total += nodes;
	}
	fclose(f);
	return total > 0 && total < (1 << 24) ? (int)total : -1;
}
