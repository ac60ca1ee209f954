/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_record.c - each job's placement as text (loc_record.h): what is
 * written reads back, the record is found among other parts of the field
 * and replaced without touching them, hostile text is refused, and
 * locality.conf's RecordPlacement key takes its three values only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_conf.h"
#include "loc_record.h"

static loc_record_t _rec(const char *strategy, int nodes, double hops,
			 double ideal)
{
	loc_record_t r = { .nodes = nodes, .hops = hops, .ideal = ideal };

	snprintf(r.strategy, sizeof(r.strategy), "%s", strategy);
	return r;
}

static void a_record_reads_back(void **state)
{
	loc_record_t r = _rec("pack", 8, 1.7857, 1.714286), back;
	char buf[LOC_RECORD_MAX];

	(void)state;
	assert_true(loc_record_format(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf,
			    "locality strategy=pack nodes=8 hops=1.786 ideal=1.714");
	assert_int_equal(loc_record_parse(buf, &back), 1);
	assert_string_equal(back.strategy, "pack");
	assert_int_equal(back.nodes, 8);
	assert_true(fabs(back.hops - 1.786) < 1e-9);
	assert_true(fabs(back.ideal - 1.714) < 1e-9);

	/* The longest a record gets fits LOC_RECORD_MAX. */
	memset(r.strategy, 'x', sizeof(r.strategy) - 1);
	r.strategy[sizeof(r.strategy) - 1] = '\0';
	r.nodes = 1 << 30;
	r.hops = r.ideal = 99999.999;
	assert_true(loc_record_format(&r, buf, sizeof(buf)) > 0);
	assert_int_equal(loc_record_format(&r, buf, 20), -1);
}

static void bad_figures_are_not_written(void **state)
{
	char buf[LOC_RECORD_MAX];
	loc_record_t bad[] = {
		_rec("", 2, 1, 1),      _rec("a b", 2, 1, 1),
		_rec("a;b", 2, 1, 1),   _rec("a=b", 2, 1, 1),
		_rec("pack", 0, 1, 1),  _rec("pack", 2, -1, 1),
		_rec("pack", 2, 1, NAN), _rec("pack", 2, INFINITY, 1),
		/* past the bound a record no longer fits LOC_RECORD_MAX */
		_rec("pack", 2, 1e300, 1), _rec("pack", 2, 1, 1e10),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(loc_record_format(&bad[i], buf, sizeof(buf)),
				 -1);
}

static void the_record_is_found_among_other_parts(void **state)
{
	loc_record_t r;

	(void)state;
	assert_int_equal(loc_record_parse(NULL, &r), 0);
	assert_int_equal(loc_record_parse("", &r), 0);
	assert_int_equal(loc_record_parse("burst buffer: stage-in failed", &r),
			 0);
	/* The tag must begin a part: mentions inside other text are not it. */
	assert_int_equal(loc_record_parse("no locality strategy=x nodes=2", &r),
			 0);
	assert_int_equal(loc_record_parse("localityx strategy=a", &r), 0);
	assert_int_equal(
		loc_record_parse("bb failed; locality strategy=mm nodes=4 "
				 "hops=1.5 ideal=1.333 future=7; after",
				 &r),
		1);
	assert_string_equal(r.strategy, "mm");
	assert_int_equal(r.nodes, 4);
	assert_true(fabs(r.hops - 1.5) < 1e-9);
}

static void hostile_records_are_refused(void **state)
{
	const char *bad[] = {
		"locality ",
		"locality strategy=pack nodes=8 hops=1.7",
		"locality strategy=pack nodes=x hops=1 ideal=1",
		"locality strategy=pack nodes=0 hops=1 ideal=1",
		"locality strategy=pack nodes=-3 hops=1 ideal=1",
		"locality strategy=pack nodes=99999999999 hops=1 ideal=1",
		"locality strategy=pack nodes=2 hops=-1 ideal=1",
		"locality strategy=pack nodes=2 hops=nan ideal=1",
		"locality strategy=pack nodes=2 hops=inf ideal=1",
		"locality strategy=pack nodes=2 hops=1e999 ideal=1",
		/* what format refuses to write (found by fuzz_record) */
		"locality strategy=pack nodes=2 hops=1e300 ideal=1",
		"locality strategy=a=b nodes=2 hops=1 ideal=1",
		"locality strategy=pack nodes=2 hops=1x ideal=1",
		"locality strategy= nodes=2 hops=1 ideal=1",
		"locality strategy=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
		"nodes=2 hops=1 ideal=1",
		"locality strategy=pack nodes=2 hops=1 ideal=1 stray",
		"locality nodes=2 hops=1 ideal=1",
	};
	loc_record_t r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (loc_record_parse(bad[i], &r) != -1)
			fail_msg("took '%s'", bad[i]);
}

static void merging_keeps_other_text_exactly(void **state)
{
	const char *rec = "locality strategy=pack nodes=2 hops=1.000 ideal=1.000";
	struct {
		const char *old, *want;
	} cases[] = {
		{ NULL, rec },
		{ "", rec },
		{ "  ", rec },
		{ "bb: x;y", "bb: x;y; locality strategy=pack nodes=2 "
			     "hops=1.000 ideal=1.000" },
		{ "locality strategy=mm nodes=9 hops=3 ideal=2", rec },
		{ "a; locality strategy=mm nodes=9 hops=3 ideal=2; b;c",
		  "a; locality strategy=pack nodes=2 hops=1.000 "
		  "ideal=1.000; b;c" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = loc_record_merge(cases[i].old, rec);

		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
	assert_null(loc_record_merge("x", NULL));
}

static void the_key_takes_its_three_values(void **state)
{
	loc_error_t err;
	loc_conf_t *c;

	(void)state;
	c = loc_conf_parse("Dimensions=4\n", "locality.conf", &err);
	assert_non_null(c);
	assert_int_equal(c->record, LOC_RECORD_ADMIN_COMMENT);
	loc_conf_destroy(c);
	c = loc_conf_parse("Dimensions=4\nRecordPlacement=systemcomment\n",
			   "locality.conf", &err);
	assert_non_null(c);
	assert_int_equal(c->record, LOC_RECORD_SYSTEM_COMMENT);
	loc_conf_destroy(c);
	c = loc_conf_parse("Dimensions=4\nRecordPlacement=NONE\n",
			   "locality.conf", &err);
	assert_non_null(c);
	assert_int_equal(c->record, LOC_RECORD_NONE);
	loc_conf_destroy(c);
	c = loc_conf_parse("Dimensions=4\nRecordPlacement=Comment\n",
			   "locality.conf", &err);
	assert_null(c);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.text, "RecordPlacement"));
	assert_int_equal(loc_record_field_parse("adminCOMMENT"),
			 LOC_RECORD_ADMIN_COMMENT);
	assert_int_equal(loc_record_field_parse(NULL), -1);
	assert_string_equal(loc_record_field_name(LOC_RECORD_COUNT),
			    "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_record_reads_back),
		cmocka_unit_test(bad_figures_are_not_written),
		cmocka_unit_test(the_record_is_found_among_other_parts),
		cmocka_unit_test(hostile_records_are_refused),
		cmocka_unit_test(merging_keeps_other_text_exactly),
		cmocka_unit_test(the_key_takes_its_three_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
