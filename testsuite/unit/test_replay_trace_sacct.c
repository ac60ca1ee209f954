/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_trace_sacct.c - the sacct trace reader (loc_trace.h) and the
 * field readers it relies on: Slurm durations and ISO times, the header
 * deciding the columns, job steps, pipes inside fields and multi-line
 * records, and hostile input rejected with reasons. SWF is in
 * test_replay_trace_swf.c, the real samples in test_replay_trace_samples.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "loc_trace.h"
#include "loc_test_replay.h"

/* ===================================================================== */
/* Field readers                                                         */
/* ===================================================================== */

static void test_durations_read_every_slurm_form(void **state)
{
	static const struct {
		const char *text;
		int64_t sec;
	} good[] = {
		{ "2-03:04:05", ((2 * 24 + 3) * 60 + 4) * 60 + 5 },
		{ "03:04:05", (3 * 60 + 4) * 60 + 5 },
		{ "30:00", 30 * 60 },
		{ "5", 5 * 60 },
		{ "1-12", 36 * 3600 },
		{ "1-12:30", 36 * 3600 + 30 * 60 },
		{ "0-00:00:01", 1 },
		{ "00:00.128", 0 },
		{ "01:02.5", 62 },
		{ "UNLIMITED", LOC_TRACE_UNKNOWN },
		{ "Partition_Limit", LOC_TRACE_UNKNOWN },
		{ "unlimited", LOC_TRACE_UNKNOWN },
		{ "INVALID", LOC_TRACE_UNKNOWN },
		{ "", LOC_TRACE_UNKNOWN },
	};
	static const char *const bad[] = {
		"1:2:3:4",   "-5",  "abc", "5-",  "1-2-3",
		"12:xx",     "1e3", "3.5", ":30", "99999999999999999999",
		"1-2:3:4:5",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int64_t v = -7;

		assert_int_equal(loc_trace_parse_duration(good[i].text, &v), 0);
		assert_true(v == good[i].sec);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v;

		assert_int_equal(loc_trace_parse_duration(bad[i], &v),
				 LOC_EPARSE);
	}
}

static void test_iso_times_are_utc_seconds(void **state)
{
	int64_t v;

	(void)state;
	/* values from Python's calendar.timegm */
	assert_int_equal(loc_trace_parse_time("2021-02-11T22:36:19", &v), 0);
	assert_true(v == 1613082979);
	assert_int_equal(loc_trace_parse_time("2000-02-29T12:00:00", &v), 0);
	assert_true(v == 951825600);
	assert_int_equal(loc_trace_parse_time("1999-12-31T23:59:59", &v), 0);
	assert_true(v == 946684799);
	assert_int_equal(loc_trace_parse_time("1970-01-01T00:00:00", &v), 0);
	assert_true(v == 0);
	assert_int_equal(loc_trace_parse_time("Unknown", &v), 0);
	assert_true(v == LOC_TRACE_UNKNOWN);
	assert_int_equal(loc_trace_parse_time("None", &v), 0);
	assert_true(v == LOC_TRACE_UNKNOWN);
	assert_int_equal(loc_trace_parse_time("2021-13-01T00:00:00", &v),
			 LOC_EPARSE);
	assert_int_equal(loc_trace_parse_time("2021-02-30T00:00:00", &v),
			 LOC_EPARSE);
	assert_int_equal(loc_trace_parse_time("2021-02-11T25:00:00", &v),
			 LOC_EPARSE);
	assert_int_equal(loc_trace_parse_time("2021-02-11X22:36:19", &v),
			 LOC_EPARSE);
	assert_int_equal(loc_trace_parse_time("2021-02-11T22:36:19Z", &v),
			 LOC_EPARSE);
	assert_int_equal(loc_trace_parse_time("yesterday", &v), LOC_EPARSE);
}

/* ===================================================================== */
/* sacct                                                                 */
/* ===================================================================== */

/* Columns in an unusual order: the header decides. */
static const char _sacct_good[] =
	"State|JobID|NNodes|NodeList|Submit|Start|End|Timelimit|User|Partition|"
	"NCPUS\n"
	"COMPLETED|100|2|b1,g1|2021-02-11T22:36:19|2021-02-11T22:36:29|2021-02-"
	"11T22:46:29|00:30:00|alice|normal|24\n"
	"COMPLETED|100.batch|1|b1|2021-02-11T22:36:19|2021-02-11T22:36:29|2021-"
	"02-11T22:46:29||alice|normal|12\n"
	"COMPLETED|100.0|2|b1,g1|2021-02-11T22:36:19|2021-02-11T22:36:29|2021-"
	"02-11T22:46:29||alice|normal|24\n"
	"CANCELLED by "
	"0|101_4|4|m[3-4],n[1-2]|2021-02-11T22:40:00|2021-02-11T23:00:00|2021-"
	"02-12T01:00:00|2-03:04:05|bob|debug|48\n"
	"TIMEOUT|102+1|1|n3|2021-02-11T22:41:00|2021-02-11T22:41:00|2021-02-"
	"11T22:46:00|5|bob|debug|12\n"
	"PENDING|103_[1-5]|1|None "
	"assigned|2021-02-11T22:42:00|Unknown|Unknown|30:00|carol|normal|12\n"
	"RUNNING|104|1|n4|2021-02-11T22:42:00|2021-02-11T22:43:00|Unknown|"
	"UNLIMITED|carol|normal|12\n"
	"CANCELLED by 5|105|0|None "
	"assigned|2021-02-11T22:42:00|None|2021-02-11T22:44:00|Partition_Limit|"
	"carol|normal|12\n"
	"FAILED|106|3||2021-02-11T22:50:00|2021-02-11T22:50:00|2021-02-11T22:"
	"50:10|UNLIMITED|dave|normal|36\n";

static loc_trace_t *_sacct(const char *text, bool strict, loc_error_t *err)
{
	loc_trace_opts_t o;

	loc_trace_opts_init(&o);
	o.strict = strict;
	return loc_trace_parse(text, strlen(text), "test.sacct", &o, err);
}

static void test_sacct_header_decides_and_steps_are_skipped(void **state)
{
	loc_error_t err;
	loc_trace_t *t = _sacct(_sacct_good, false, &err);
	const loc_trace_job_t *j;

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->format, LOC_TRACE_SACCT);
	assert_int_equal(t->njobs, 4);
	assert_int_equal(t->skipped[LOC_SKIP_STEP], 2);
	assert_int_equal(t->skip_first_line[LOC_SKIP_STEP], 3);
	assert_int_equal(t->skipped[LOC_SKIP_NOT_STARTED], 2);
	assert_int_equal(t->skipped[LOC_SKIP_NOT_ENDED], 1);
	_assert_accounting(t, true);

	j = &t->jobs[0];
	assert_string_equal(j->id, "100");
	assert_true(j->submit == 1613082979 && j->start == 1613082989);
	assert_true(j->runtime == 600 && j->requested == 1800);
	assert_int_equal(j->nodes, 2);
	assert_int_equal(j->nrec, 2);
	assert_string_equal(t->node_names[j->rec_nodes[0]], "b1");
	assert_string_equal(t->node_names[j->rec_nodes[1]], "g1");
	assert_int_equal(j->status, 1);
	assert_true(j->procs == 24);

	j = &t->jobs[1];
	assert_string_equal(j->id, "101_4"); /* array task: a job */
	assert_int_equal(j->status, 5);	     /* "CANCELLED by 0" */
	assert_true(j->requested == ((2 * 24 + 3) * 60 + 4) * 60 + 5);
	assert_int_equal(j->nrec, 4);
	assert_string_equal(t->node_names[j->rec_nodes[0]], "m3");
	assert_string_equal(t->node_names[j->rec_nodes[3]], "n2");
	assert_string_equal(t->partitions[j->partition], "debug");

	j = &t->jobs[2];
	assert_string_equal(j->id, "102+1"); /* heterogeneous component */
	assert_true(j->requested == 300);    /* "5" = 5 minutes */
	assert_int_equal(j->status, 0);
	/* the same user name maps to the same user id */
	assert_int_equal(t->jobs[1].user, t->jobs[2].user);
	assert_true(t->jobs[0].user != t->jobs[1].user);

	j = &t->jobs[3];
	assert_string_equal(j->id, "106");
	assert_int_equal(j->nodes, 3); /* NNodes without a NodeList */
	assert_int_equal(j->nrec, 0);
	assert_true(j->requested == LOC_TRACE_UNKNOWN);
	assert_int_equal(t->no_request, 1);
	assert_int_equal(t->nnode_names, 7);
	loc_trace_destroy(t);
}

static void test_sacct_pipes_inside_fields_and_multiline_records(void **state)
{
	static const char text[] =
		"JobID|JobName|Constraints|NNodes|Submit|Start|End|Timelimit|"
		"SubmitLine|NCPUS\n"
		/* '|' in JobName and in Constraints */
		"200|qlo|gin|cpu-a|cpu-b|1|2021-01-01T00:00:00|2021-01-01T00:"
		"00:10|2021-01-01T00:01:10|10:00|sbatch x|4\n"
		/* SubmitLine over three lines, with a pipe inside */
		"201|job|a|2|2021-01-01T00:00:00|2021-01-01T00:00:00|2021-01-"
		"01T00:00:30|10:00|sbatch --wrap='\n"
		"  env | grep SLURM\n"
		"  sleep 1'|8\n"
		/* a truncated line must not swallow the good line after it */
		"202|job||1|2021-01-01T00:00:00\n"
		"203|job||1|2021-01-01T00:00:00|2021-01-01T00:00:00|2021-01-"
		"01T00:00:05|UNLIMITED|x|1\r\n";
	loc_error_t err;
	loc_trace_t *t = _sacct(text, false, &err);

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->njobs, 3);
	assert_string_equal(t->jobs[0].id, "200");
	assert_true(t->jobs[0].runtime == 60 && t->jobs[0].requested == 600);
	assert_string_equal(t->jobs[1].id, "201");
	assert_int_equal(t->jobs[1].nodes, 2);
	assert_true(t->jobs[1].procs == 8);
	assert_string_equal(t->jobs[2].id, "203");
	assert_int_equal(t->jobs[1].line, 3);
	assert_int_equal(t->jobs[2].line, 7);
	assert_int_equal(t->skipped[LOC_SKIP_TRUNCATED], 1);
	assert_int_equal(t->skip_first_line[LOC_SKIP_TRUNCATED], 6);
	assert_int_equal(t->lines, 7);
	_assert_accounting(t, false);
	loc_trace_destroy(t);

	/* SubmitLine last: its first line already has enough separators
	 * ("a | b"), the next line still belongs to it; a truncated record
	 * after it is not swallowed */
	t = _sacct("JobID|NNodes|Submit|Start|End|SubmitLine\n"
		   "1|1|2021-01-01T00:00:00|2021-01-01T00:00:00|2021-01-01T00:"
		   "00:09|srun a | tee o\n"
		   "  echo done\n"
		   "2|1|2021-01-01T00:00:00|2021-01-01T00:00:00|2021-01-01T00:"
		   "00:09|x\n"
		   "3|1|2021-01-01T00:00:00\n"
		   "4|1|2021-01-01T00:00:00|2021-01-01T00:00:00|2021-01-01T00:"
		   "00:09|y\n",
		   false, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 3);
	assert_string_equal(t->jobs[1].id, "2");
	assert_int_equal(t->jobs[1].line, 4);
	assert_string_equal(t->jobs[2].id, "4");
	assert_int_equal(t->skipped[LOC_SKIP_TRUNCATED], 1);
	assert_int_equal(t->skip_first_line[LOC_SKIP_TRUNCATED], 5);
	_assert_accounting(t, false);
	loc_trace_destroy(t);
}

static void test_sacct_hostile_input_is_rejected_with_reasons(void **state)
{
	static const char text[] =
		"JobID|NNodes|Submit|Start|End|Timelimit|NodeList\n"
		"300|1|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-01T00:"
		"00:20|10|n1\n"
		"301|1|yesterday|2021-01-01T00:00:10|2021-01-01T00:00:20|10|"
		"n1\n"
		"302|1|2021-01-01T00:00:00|2021-01-01T00:00:30|2021-01-01T00:"
		"00:20|10|n1\n"
		"303|99999999999|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-"
		"01-01T00:00:20|10|\n"
		"304|1|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-01T00:"
		"00:20|10|n[5-1]\n"
		"305|1|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-01T00:"
		"00:20|1:2:3:4|n1\n"
		"306|0|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-01T00:"
		"00:20|10|\n"
		"300|1|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-01T00:"
		"00:20|10|n1\n"
		"x\xff\xfe|1|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-"
		"01T00:00:20|10|n1\n"
		"307|1|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-01T00:"
		"00:20|10|n[1-1000000000]\n";
	static const char nohdr[] = "JobID|NNodes|Start|End\n1|1|x|y\n";
	loc_error_t err;
	loc_trace_t *t = _sacct(text, false, &err);

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->njobs, 1);
	assert_int_equal(t->skipped[LOC_SKIP_BAD_TIME], 2);
	assert_int_equal(t->skip_first_line[LOC_SKIP_BAD_TIME], 3);
	assert_int_equal(t->skipped[LOC_SKIP_NEGATIVE_TIME], 1);
	assert_int_equal(t->skipped[LOC_SKIP_BAD_NUMBER], 1); /* "x\xff" */
	assert_int_equal(t->skipped[LOC_SKIP_RANGE], 1);      /* 303 */
	assert_int_equal(t->skipped[LOC_SKIP_BAD_NODELIST], 2);
	assert_int_equal(t->skipped[LOC_SKIP_NO_SIZE], 1);
	assert_int_equal(t->skipped[LOC_SKIP_DUPLICATE], 1);
	_assert_accounting(t, true);
	loc_trace_destroy(t);

	/* strict: the first bad line, by number */
	t = _sacct(text, true, &err);
	assert_null(t);
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.text, "Submit"));

	/* a header without Submit cannot be read */
	t = loc_trace_parse(nohdr, strlen(nohdr), "h.sacct", NULL, &err);
	assert_null(t);
	assert_int_equal(err.code, LOC_EPARSE);
	assert_non_null(strstr(err.text, "Submit"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations_read_every_slurm_form),
		cmocka_unit_test(test_iso_times_are_utc_seconds),
		cmocka_unit_test(
			test_sacct_header_decides_and_steps_are_skipped),
		cmocka_unit_test(
			test_sacct_pipes_inside_fields_and_multiline_records),
		cmocka_unit_test(
			test_sacct_hostile_input_is_rejected_with_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
