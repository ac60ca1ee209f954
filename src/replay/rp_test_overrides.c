/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_test_overrides.c - a row's own CompactWait, CompactTolerance,
 * PlanWindow and PlanHold (rp_spec_t's overrides) are the ones it is
 * replayed with, give it its own name, and are the ones its
 * locality.conf lines print; the values are read by locality.conf's own
 * parser (loc_conf_overrides_t). Runs on the bundled example trace
 * ($srcdir/testsuite/replay/data); exit 0 when every check holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_advise.h"
#include "rp_cli.h"
#include "rp_run.h"

static int fails;

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			printf("FAIL: " __VA_ARGS__);                       \
			printf("\n");                                       \
			fails++;                                            \
		}                                                           \
	} while (0)

/* The policy lines of the row r of set, as the advice prints them. */
static const char *_lines(rp_rowset_t *set, int r, const rp_opts_t *o,
			  const rp_input_t *in, char *buf, size_t len)
{
	rp_advice_row_t a = { .row = &set->rows[r], .spec = &set->specs[r] };

	return rp_advise_conf_lines(&a, o, in->m->conf, buf, len);
}

/* Sets key to text in ov as the command line would; 0 or an error. */
static int _set(loc_conf_overrides_t *ov, loc_conf_key_t key,
		const char *text)
{
	char why[200];
	int rc = loc_conf_overrides_parse(ov, key, text, why, sizeof(why));

	if (rc)
		printf("FAIL: %s\n", why);
	return rc;
}

/* The command line's values are locality.conf's: the same parser says
 * the same of a bad value, and applying sets only the keys given. */
static void _check_core_parser(void)
{
	loc_conf_overrides_t ov = { 0 };
	loc_error_t err = { 0 };
	loc_conf_t *conf = loc_conf_parse("Dimensions=4x4\nPlanWindow=86401\n",
					  "t.conf", &err);
	loc_policy_t pol;
	char why[200], val[64];

	CHECK(!conf && loc_conf_overrides_parse(&ov, LOC_KEY_PLAN_WINDOW,
						"86401", why, sizeof(why)) &&
		      !strcmp(why, err.text),
	      "the option says '%s', locality.conf '%s'", why, err.text);
	loc_conf_destroy(conf);
	CHECK(ov.set == 0, "a bad value marked its key set");
	CHECK(loc_conf_overrides_parse(&ov, LOC_KEY_DIMENSIONS, "4x4", why,
				       sizeof(why)) == LOC_EINVAL,
	      "Dimensions parsed as a single value");
	CHECK(!loc_conf_overrides_parse(&ov, LOC_KEY_SLTOL, "0.25", why,
					sizeof(why)) &&
		      !loc_conf_overrides_parse(&ov, LOC_KEY_ADJEST, "7", why,
						sizeof(why)),
	      "SLTolerance=0.25 or AdjEstWindow=7 rejected: %s", why);
	loc_policy_init(&pol);
	loc_conf_overrides_apply(&ov, NULL, &pol);
	CHECK(pol.sl_tolerance == 0.25 && pol.compact_wait == 0,
	      "apply: SLTolerance %g, CompactWait %lld", pol.sl_tolerance,
	      (long long)pol.compact_wait);
	CHECK(loc_conf_overrides_value(&ov, LOC_KEY_ADJEST, val, sizeof(val)) &&
		      !strcmp(val, "7"),
	      "AdjEstWindow formats as '%s'", val);
}

int main(void)
{
	const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char conf[4096], trace[4096], out[4096], lines[512];
	/* --out is checked (a directory can be made there), never written */
	char *argv[] = { "locality-advise", "-c", conf, "-t", trace, "-o",
			 out, "-q", "--no-progress", NULL };
	rp_opts_t o;
	rp_input_t in;
	loc_error_t err = { 0 };
	rp_rowset_t *set = rp_rowset_create();
	rp_spec_t plain = RP_SPEC_UNSET, waits = RP_SPEC_UNSET;
	rp_spec_t same_again;
	int r_plain, r_waits, dup = -1;

	_check_core_parser();
	snprintf(conf, sizeof(conf), "%s/testsuite/replay/data/"
		 "example-locality.conf", srcdir);
	snprintf(trace, sizeof(trace), "%s/testsuite/replay/data/"
		 "example-sacct.txt", srcdir);
	snprintf(out, sizeof(out), "%s/rp_test_overrides.unused", tmpdir);
	rp_cli_parse((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv, &o,
		     RP_MODE_ADVISE);
	o.threads = 2;
	if (!set || rp_input_load(&o, &in, &err)) {
		printf("FAIL: cannot load the example: %s\n", err.text);
		return 1;
	}
	plain.strategy = waits.strategy = LOC_STRATEGY_PACK;
	CHECK(!_set(&waits.keys, LOC_KEY_COMPACT_WAIT, "600") &&
		      !_set(&waits.keys, LOC_KEY_COMPACT_TOL, "0.1") &&
		      !_set(&waits.keys, LOC_KEY_PLAN_WINDOW, "30") &&
		      !_set(&waits.keys, LOC_KEY_PLAN_HOLD, "released"),
	      "the row's keys do not parse");
	r_plain = rp_rowset_add(set, &plain, NULL);
	r_waits = rp_rowset_add(set, &waits, NULL);
	CHECK(r_plain == 0 && r_waits == 1,
	      "the rows with and without overrides are not two rows (%d, %d)",
	      r_plain, r_waits);
	CHECK(!strcmp(set->rows[0].name, "pack"), "plain row named '%s'",
	      set->rows[0].name);
	CHECK(!strcmp(set->rows[1].name,
		      "pack cw=600 ct=0.1 pw=30 hold=released"),
	      "override row named '%s'", set->rows[1].name);
	same_again = waits;
	CHECK(rp_rowset_add(set, &same_again, &dup) == -1 && dup == 1,
	      "the same overrides again are not the same row");
	_set(&same_again.keys, LOC_KEY_PLAN_HOLD, "placement");
	CHECK(rp_rowset_add(set, &same_again, NULL) == 2,
	      "another PlanHold is not another row");
	if (r_plain != 0 || r_waits != 1 || fails)
		return 1;
	if (rp_rowset_run(set, &o, &in, &err)) {
		printf("FAIL: replay: %s\n", err.text);
		return 1;
	}
	/* CompactWait makes jobs wait for compact sets: closer, later */
	CHECK(set->rows[1].sum.mean_wait_s != set->rows[0].sum.mean_wait_s,
	      "the overrides did not change the mean wait (%.3f s)",
	      set->rows[0].sum.mean_wait_s);
	CHECK(set->rows[1].sum.hops.mean < set->rows[0].sum.hops.mean,
	      "CompactWait=600 did not place closer (%.4f vs %.4f hops)",
	      set->rows[1].sum.hops.mean, set->rows[0].sum.hops.mean);

	_lines(set, 1, &o, &in, lines, sizeof(lines));
	CHECK(strstr(lines, "Strategy=pack\n") &&
		      strstr(lines, "CompactWait=600\n") &&
		      strstr(lines, "CompactTolerance=0.1\n") &&
		      strstr(lines, "PlanWindow=30\n") &&
		      strstr(lines, "PlanHold=released\n"),
	      "the override row's lines miss a key:\n%s", lines);
	_lines(set, 0, &o, &in, lines, sizeof(lines));
	CHECK(!strstr(lines, "CompactWait") && !strstr(lines, "PlanWindow") &&
		      !strstr(lines, "PlanHold"),
	      "the plain row's lines name a key it left default:\n%s", lines);
	/* a global option is the fallback of a row without its override */
	_set(&o.keys, LOC_KEY_COMPACT_WAIT, "120");
	_lines(set, 0, &o, &in, lines, sizeof(lines));
	CHECK(strstr(lines, "CompactWait=120\n") &&
		      strstr(lines, "CompactTolerance=0.2\n"),
	      "--compact-wait 120 is not in the plain row's lines:\n%s",
	      lines);
	_lines(set, 1, &o, &in, lines, sizeof(lines));
	CHECK(strstr(lines, "CompactWait=600\n") != NULL,
	      "the row's own CompactWait does not win over --compact-wait:\n%s",
	      lines);

	rp_rowset_free(set);
	rp_input_free(&in);
	printf("rp_test_overrides: %d failures\n", fails);
	return fails ? 1 : 0;
}
