/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_conf.c - locality.conf, the good files: every key, continuation,
 * comments and case rules; defaults; partitions; loading from a file; the
 * one-paragraph description; and the man page documenting every key the
 * parser accepts. Placement (loc_conf_build_grid) is in
 * test_loc_conf_grid.c; malformed files and hostile bytes are in
 * test_loc_conf_errors.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loc_conf.h"
#include "loc_test_conf.h"

#ifndef LOC_DOC_DIR
#error "LOC_DOC_DIR must name the doc directory (testsuite/unit/local.am)"
#endif

/* ===================================================================== */
/* Good files                                                            */
/* ===================================================================== */

static void parses_every_key(void **state)
{
	loc_conf_t *c = _ok(_all_keys);
	const loc_policy_t *p;

	(void)state;
	assert_string_equal(c->path, "locality.conf");
	assert_int_equal(c->shape.ndims, 3);
	assert_int_equal(c->shape.dims[0], 8);
	assert_int_equal(c->shape.dims[1], 8);
	assert_int_equal(c->shape.dims[2], 4);
	assert_true(c->shape.torus[0]);
	assert_false(c->shape.torus[1]);
	assert_true(c->shape.torus[2]);
	assert_int_equal(c->shape.nodes_per_point, 2);
	assert_int_equal(c->policy.strategy, LOC_STRATEGY_MM_INC);
	assert_int_equal(c->policy.curve, LOC_CURVE_SNAKE);
	assert_int_equal(c->policy.walltime, LOC_WALLTIME_ADJEST);
	assert_true(c->policy.sl_tolerance == 0.25);
	assert_int_equal(c->pf_hold_sec, 120);
	assert_int_equal(c->adjest_window, 7);
	assert_int_equal(c->record, LOC_RECORD_NONE);
	assert_int_equal(c->policy.paging_size, 3);
	assert_int_equal(c->policy.paging_index, LOC_PAGING_SHUFFLED);
	assert_int_equal(c->policy.mm_max_centers, 12);
	assert_true(c->policy.seed == UINT64_MAX);

	assert_int_equal(c->nnodes_lines, 2);
	assert_string_equal(c->nodes[0].hostlist, "n[001-004]");
	assert_int_equal(c->nodes[0].count, 4);
	assert_string_equal(c->nodes[0].names[0], "n001");
	assert_string_equal(c->nodes[0].names[3], "n004");
	assert_int_equal(c->nodes[0].start.c[0], 1);
	assert_int_equal(c->nodes[0].start.c[1], 2);
	assert_int_equal(c->nodes[0].start.c[2], 3);
	assert_int_equal(c->nodes[0].line, 9);
	assert_int_equal(c->nodes[1].count, 2);
	assert_int_equal(c->nodes[1].line, 10);

	assert_int_equal(c->npartitions, 3);
	assert_int_equal(c->partitions[1].line, 12);
	p = loc_conf_policy(c, "debug");
	assert_int_equal(p->strategy, LOC_STRATEGY_BESTFIT);
	assert_int_equal(p->curve, LOC_CURVE_ROWMAJOR);
	assert_int_equal(p->node_weight, LOC_NODE_WEIGHT_IGNORE);
	/* Keys the line does not set come from the global policy. */
	assert_int_equal(p->walltime, LOC_WALLTIME_ADJEST);
	assert_true(p->sl_tolerance == 0.25);
	assert_int_equal(p->paging_size, 3);
	assert_true(p->seed == UINT64_MAX);
	p = loc_conf_policy(c, "batch");
	assert_int_equal(p->strategy, LOC_STRATEGY_MM_INC);
	assert_int_equal(p->curve, LOC_CURVE_SNAKE);
	assert_int_equal(p->walltime, LOC_WALLTIME_PF);
	assert_true(p->sl_tolerance == 0.5);
	assert_int_equal(p->paging_size, 1);
	assert_int_equal(p->paging_index, LOC_PAGING_SNAKE);
	assert_int_equal(p->mm_max_centers, 3);
	assert_true(p->seed == 9);
	assert_true(p->pack_tolerance == 0.125);
	assert_true(loc_conf_policy(c, "debug")->pack_tolerance == 0.0);
	assert_true(p->compact_wait == 45);
	assert_true(p->compact_tolerance == 0.35);
	assert_true(p->compact_claims == 3);
	assert_true(loc_conf_policy(c, "debug")->compact_claims == 0);
	assert_true(p->plan_window == 30);
	/* Off unless the file turns it on; 0.2 once it does. */
	assert_true(loc_conf_policy(c, "debug")->compact_wait == 0);
	assert_true(loc_conf_policy(c, "debug")->compact_tolerance == 0.2);
	assert_true(loc_conf_policy(c, "debug")->plan_window == 0);
	assert_int_equal(p->plan_hold, LOC_PLAN_HOLD_RELEASED);
	assert_int_equal(loc_conf_policy(c, "debug")->plan_hold,
			 LOC_PLAN_HOLD_PLACEMENT);
	assert_int_equal(p->shared_nodes, LOC_SHARED_NODES_FIRST);
	assert_int_equal(loc_conf_policy(c, "debug")->shared_nodes,
			 LOC_SHARED_NODES_ANY);
	/* Slurm's own rule unless the file says otherwise. */
	assert_int_equal(p->node_weight, LOC_NODE_WEIGHT_TIERS);
	p = loc_conf_policy(c, "plain");
	assert_memory_equal(p, &c->policy, sizeof(*p));
	assert_ptr_not_equal(p, &c->policy);
	/* Unknown partitions and NULL get the global policy; names are
	 * case sensitive as in slurm.conf. */
	assert_ptr_equal(loc_conf_policy(c, NULL), &c->policy);
	assert_ptr_equal(loc_conf_policy(c, "nosuch"), &c->policy);
	assert_ptr_equal(loc_conf_policy(c, "DEBUG"), &c->policy);
	loc_conf_destroy(c);
}

static void every_key_is_exercised_by_the_good_file(void **state)
{
	const char *const *keys = loc_conf_keys();
	int n = 0;

	(void)state;
	for (; keys[n]; n++) {
		char lower[64], text[sizeof(_all_keys)];

		/* The good file spells keys in various cases. */
		for (size_t i = 0; i <= strlen(keys[n]); i++)
			lower[i] = (char)tolower((unsigned char)keys[n][i]);
		for (size_t i = 0; i < sizeof(_all_keys); i++)
			text[i] = (char)tolower((unsigned char)_all_keys[i]);
		if (!strstr(text, lower))
			fail_msg("key %s is not in the good file", keys[n]);
	}
	assert_int_equal(n, 26);
}

static void defaults_apply_to_absent_keys(void **state)
{
	loc_conf_t *c = _ok("Dimensions=5");
	loc_policy_t def;

	(void)state;
	loc_policy_init(&def);
	assert_int_equal(c->shape.ndims, 1);
	assert_int_equal(c->shape.dims[0], 5);
	assert_false(c->shape.torus[0]);
	assert_int_equal(c->shape.nodes_per_point, 1);
	assert_memory_equal(&c->policy, &def, sizeof(def));
	assert_int_equal(c->pf_hold_sec, 300);
	assert_int_equal(c->adjest_window, 10);
	assert_int_equal(c->nnodes_lines, 0);
	assert_int_equal(c->npartitions, 0);
	loc_conf_destroy(c);

	/* One Torus value covers every dimension, in any position. */
	c = _ok("Torus=true\nDimensions=2x3x4x5\n");
	assert_int_equal(c->shape.ndims, 4);
	for (int d = 0; d < 4; d++)
		assert_true(c->shape.torus[d]);
	loc_conf_destroy(c);
	c = _ok("Dimensions=3x3 Torus=0,1");
	assert_false(c->shape.torus[0]);
	assert_true(c->shape.torus[1]);
	loc_conf_destroy(c);
}

static void partitions_see_globals_set_later(void **state)
{
	loc_conf_t *c = _ok("PartitionName=p1 Curve=rowmajor\n"
			    "Dimensions=4x4\n"
			    "Strategy=span Curve=snake\n");

	(void)state;
	assert_int_equal(loc_conf_policy(c, "p1")->strategy,
			 LOC_STRATEGY_SPAN);
	assert_int_equal(loc_conf_policy(c, "p1")->curve, LOC_CURVE_ROWMAJOR);
	assert_int_equal(loc_conf_policy(c, NULL)->curve, LOC_CURVE_SNAKE);
	loc_conf_destroy(c);
}

/* What a test job asks for: the GRES names in arg, NULL-terminated. */
static bool _asks(const char *gres, void *arg)
{
	for (const char *const *g = arg; *g; g++)
		if (!strcmp(*g, gres))
			return true;
	return false;
}

static void gres_lines_apply_over_the_partition(void **state)
{
	loc_conf_t *c = _ok("Dimensions=4x4 CompactWait=60\n"
			    "GresName=gpu CompactTolerance=0.3\n"
			    "PartitionName=big Strategy=span CompactWait=30\n"
			    "GresName=mps CompactWait=0 Strategy=bestfit\n"
			    "PartitionName=small\n");
	const char *gpu[] = { "gpu", NULL }, *mps[] = { "mps", NULL };
	const char *both[] = { "mps", "gpu", NULL }, *nic[] = { "nic", NULL };
	const char *none[] = { NULL };
	const loc_policy_t *p;
	char buf[1024];

	(void)state;
	assert_int_equal(c->ngres, 2);
	assert_string_equal(c->gres[0].name, "gpu");
	assert_int_equal(c->gres[0].line, 2);
	/* A GPU job in big: big's keys, then the gpu line's. */
	p = loc_conf_job_policy(c, "big", _asks, gpu);
	assert_int_equal(p->strategy, LOC_STRATEGY_SPAN);
	assert_int_equal(p->compact_wait, 30);
	assert_true(p->compact_tolerance == 0.3);
	/* Outside any partition line: the global policy under the line. */
	p = loc_conf_job_policy(c, NULL, _asks, gpu);
	assert_int_equal(p->strategy, LOC_STRATEGY_PACK);
	assert_int_equal(p->compact_wait, 60);
	assert_true(p->compact_tolerance == 0.3);
	assert_ptr_equal(loc_conf_job_policy(c, "nosuch", _asks, gpu), p);
	/* The line overrides what the partition sets. */
	p = loc_conf_job_policy(c, "big", _asks, mps);
	assert_int_equal(p->strategy, LOC_STRATEGY_BESTFIT);
	assert_int_equal(p->compact_wait, 0);
	assert_true(p->compact_tolerance == 0.2);
	/* The first line in file order that names one of the job's GRES,
	 * whatever order the job names them in. */
	p = loc_conf_job_policy(c, "small", _asks, both);
	assert_true(p->compact_tolerance == 0.3);
	assert_int_equal(p->compact_wait, 60);
	/* No line for the job's GRES, no GRES, or no answer: the
	 * partition's policy itself. */
	assert_ptr_equal(loc_conf_job_policy(c, "big", _asks, nic),
			 loc_conf_policy(c, "big"));
	assert_ptr_equal(loc_conf_job_policy(c, "big", _asks, none),
			 loc_conf_policy(c, "big"));
	assert_ptr_equal(loc_conf_job_policy(c, "big", NULL, NULL),
			 loc_conf_policy(c, "big"));
	assert_null(loc_conf_job_policy(NULL, "big", _asks, gpu));
	loc_conf_describe(c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "; GRES overrides: gpu (CompactTolerance=0.3), "
				    "mps (Strategy=bestfit CompactWait=0)."));
	loc_conf_destroy(c);
	/* Partition lines after the GresName lines count too, and GRES
	 * names are case sensitive, as in slurm.conf. */
	c = _ok("GresName=gpu\nDimensions=4\nPartitionName=p Seed=5\n");
	p = loc_conf_job_policy(c, "p", _asks, gpu);
	assert_true(p->seed == 5);
	assert_ptr_not_equal(p, loc_conf_policy(c, "p"));
	assert_memory_equal(p, loc_conf_policy(c, "p"), sizeof(*p));
	{
		const char *upper[] = { "GPU", NULL };

		assert_ptr_equal(loc_conf_job_policy(c, "p", _asks, upper),
				 loc_conf_policy(c, "p"));
	}
	loc_conf_describe(c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "gpu (none)"));
	loc_conf_destroy(c);
}

static void comments_continuation_and_line_endings(void **state)
{
	loc_conf_t *c;

	(void)state;
	/* CRLF, blank lines, '#' inside a continued line, a continued
	 * line whose next part is only a comment, valid UTF-8 in comments. */
	c = _ok("# Maschinenbeschreibung f\xc3\xbcr den Test \xe2\x9c\x93\r\n"
		"Dimensions=4x4 \\\r\n"
		"  # comment line inside the continuation\r\n"
		"\r\n"
		"Strategy=box\t\t# tabs\r\n"
		"Seed=0");
	assert_int_equal(c->shape.dims[1], 4);
	assert_int_equal(c->policy.strategy, LOC_STRATEGY_BOX);
	assert_true(c->policy.seed == 0);
	loc_conf_destroy(c);
	/* A '\' inside a comment does not continue the line. */
	c = _ok("Dimensions=3 # not continued \\\nStrategy=span\n");
	assert_int_equal(c->policy.strategy, LOC_STRATEGY_SPAN);
	loc_conf_destroy(c);
}

static void every_strategy_curve_and_mode_name_parses(void **state)
{
	(void)state;
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
		char text[128];
		loc_conf_t *c;

		snprintf(text, sizeof(text), "Dimensions=2 Strategy=%s",
			 loc_strategy_kind_name(s));
		c = _ok(text);
		assert_int_equal(c->policy.strategy, s);
		loc_conf_destroy(c);
	}
	for (int s = 0; s < LOC_CURVE_COUNT; s++) {
		char text[128];
		loc_conf_t *c;

		snprintf(text, sizeof(text), "Dimensions=2 Curve=%s",
			 loc_curve_kind_name(s));
		c = _ok(text);
		assert_int_equal(c->policy.curve, s);
		loc_conf_destroy(c);
	}
	for (int s = 0; s < LOC_WALLTIME_COUNT; s++) {
		char text[128];
		loc_conf_t *c;

		snprintf(text, sizeof(text),
			 "Dimensions=2\nPartitionName=x WalltimeAware=%s",
			 loc_walltime_mode_name(s));
		c = _ok(text);
		assert_int_equal(loc_conf_policy(c, "x")->walltime, s);
		loc_conf_destroy(c);
	}
}

static void load_reads_a_file_like_parse(void **state)
{
	const char *path = _tmpfile(_all_keys, strlen(_all_keys));
	loc_error_t err;
	loc_conf_t *a = loc_conf_load(path, &err), *b = _ok(_all_keys);

	(void)state;
	assert_non_null(a);
	assert_string_equal(a->path, path);
	assert_memory_equal(&a->shape, &b->shape, sizeof(a->shape));
	assert_memory_equal(&a->policy, &b->policy, sizeof(a->policy));
	assert_int_equal(a->npartitions, b->npartitions);
	assert_int_equal(a->nnodes_lines, b->nnodes_lines);
	loc_conf_destroy(a);
	loc_conf_destroy(b);
	unlink(path);
}

/* ===================================================================== */
/* Description and documentation                                         */
/* ===================================================================== */

static void describe_is_one_readable_paragraph(void **state)
{
	loc_conf_t *c = _ok(_all_keys);
	char buf[1024], small[40];

	(void)state;
	loc_conf_describe(c, buf, sizeof(buf));
	assert_null(strchr(buf, '\n'));
	assert_non_null(strstr(buf, "locality.conf: Dimensions=8x8x4"));
	assert_non_null(strstr(buf, "Torus=yes,no,yes"));
	assert_non_null(strstr(buf, "NodesPerPoint=2"));
	assert_non_null(strstr(buf, "Strategy=mm_inc"));
	assert_non_null(strstr(buf, "WalltimeAware=adjest"));
	assert_non_null(strstr(buf, "PFHoldTime=120"));
	assert_non_null(strstr(buf, "2 NodeName lines placing 6 nodes"));
	assert_non_null(strstr(buf, "debug (Strategy=bestfit Curve=rowmajor "
				    "NodeWeight=ignore)"));
	assert_non_null(strstr(buf, "plain (none)"));
	assert_true(buf[strlen(buf) - 1] == '.');
	/* Truncation stays inside the buffer and terminated. */
	memset(small, 'Z', sizeof(small));
	loc_conf_describe(c, small, 20);
	assert_int_equal(strlen(small), 19);
	assert_true(small[25] == 'Z');
	loc_conf_destroy(c);
}

static void every_key_is_documented(void **state)
{
	const char *const *keys = loc_conf_keys();
	FILE *f = fopen(LOC_DOC_DIR "/locality.conf.5", "r");
	char *doc;
	long len;

	(void)state;
	if (!f)
		fail_msg("cannot open %s: %s", LOC_DOC_DIR "/locality.conf.5",
			 strerror(errno));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	doc = calloc(1, len + 1);
	assert_non_null(doc);
	assert_int_equal(fread(doc, 1, len, f), (size_t)len);
	fclose(f);
	for (int i = 0; keys[i]; i++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR", keys[i]);
		if (!strstr(doc, want))
			fail_msg("%s is not documented as %s", keys[i], want);
	}
	/* And every strategy, curve and walltime mode has its entry. */
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR",
			 loc_strategy_kind_name(s));
		if (!strstr(doc, want))
			fail_msg("strategy %s is not documented",
				 loc_strategy_kind_name(s));
	}
	for (int s = 0; s < LOC_CURVE_COUNT; s++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR",
			 loc_curve_kind_name(s));
		assert_non_null(strstr(doc, want));
	}
	for (int s = 0; s < LOC_WALLTIME_COUNT; s++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR",
			 loc_walltime_mode_name(s));
		assert_non_null(strstr(doc, want));
	}
	free(doc);
}

static void man_page_examples_parse(void **state)
{
	FILE *f = fopen(LOC_DOC_DIR "/locality.conf.5", "r");
	char line[512], text[4096];
	size_t o = 0;
	int in = 0, examples = 0;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".nf", 3)) {
			in = 1;
			o = 0;
			continue;
		}
		if (!strncmp(line, ".fi", 3) && in) {
			loc_error_t err;
			char msg[600];
			loc_conf_t *c;

			text[o] = '\0';
			c = loc_conf_parse(text, "example", &err);
			if (!c)
				fail_msg("example %d: %s", examples + 1,
					 loc_error_format(&err, msg,
							  sizeof(msg)));
			loc_conf_destroy(c);
			examples++;
			in = 0;
			continue;
		}
		if (!in)
			continue;
		/* Undo the roff escapes the page uses: \- and \\. */
		for (char *s = line; *s && o + 1 < sizeof(text); s++) {
			if (s[0] == '\\' && (s[1] == '-' || s[1] == '\\'))
				s++;
			text[o++] = *s;
		}
	}
	fclose(f);
	assert_int_equal(examples, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_every_key),
		cmocka_unit_test(every_key_is_exercised_by_the_good_file),
		cmocka_unit_test(defaults_apply_to_absent_keys),
		cmocka_unit_test(partitions_see_globals_set_later),
		cmocka_unit_test(gres_lines_apply_over_the_partition),
		cmocka_unit_test(comments_continuation_and_line_endings),
		cmocka_unit_test(every_strategy_curve_and_mode_name_parses),
		cmocka_unit_test(load_reads_a_file_like_parse),
		cmocka_unit_test(describe_is_one_readable_paragraph),
		cmocka_unit_test(every_key_is_documented),
		cmocka_unit_test(man_page_examples_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
