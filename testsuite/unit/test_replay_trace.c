/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_trace.c - the trace readers (loc_trace.h): SWF and sacct on
 * hand-written good and hostile inputs, field readers, and every real
 * sample in ../shared/traces (skipped when that directory is absent).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "loc_trace.h"
#include "loc_test_replay.h"

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

static loc_trace_t *_parse(const char *text, bool strict, loc_error_t *err)
{
	loc_trace_opts_t o;

	loc_trace_opts_init(&o);
	o.strict = strict;
	return loc_trace_parse(text, strlen(text), "test.swf", &o, err);
}

/* Every record is a job or a skip; every line is a comment or a record
 * (single-line formats). */
static void _assert_accounting(const loc_trace_t *t, bool one_line_records)
{
	assert_int_equal(t->njobs + loc_trace_skipped_total(t), t->records);
	if (one_line_records)
		assert_int_equal(t->comment_lines + t->records, t->lines);
	else
		assert_true(t->comment_lines + t->records <= t->lines);
}

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
/* SWF                                                                   */
/* ===================================================================== */

static const char _swf_good[] = "; Version: 2.2\n"
				"; MaxNodes: 400 (48 interactive, 352 batch)\n"
				";MaxProcs: 1600\n"
				"; UnixStartTime: 820090437\n"
				"\n"
				"    1        0 100  3600   64  9.00  -1   64  "
				"7200 -1  1  4 -1 -1 1 2 -1 -1\n"
				"    2       10  -1  60     -1   -1   -1   32  "
				"  -1 -1  0  5 -1 -1 1 3 -1 -1\n"
				"    3       20   5  9000   16   -1   -1   16  "
				"3600 -1  5  4 -1 -1 1 2 -1 -1\r\n";

static void test_swf_reads_fields_header_and_missing_values(void **state)
{
	loc_error_t err;
	loc_trace_t *t = _parse(_swf_good, false, &err);
	const loc_trace_job_t *j;

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->format, LOC_TRACE_SWF);
	assert_int_equal(t->max_nodes, 400);
	assert_int_equal(t->max_procs, 1600);
	assert_true(t->unix_start == 820090437);
	assert_int_equal(t->njobs, 3);
	assert_int_equal(t->lines, 8);
	assert_int_equal(t->comment_lines, 5);
	_assert_accounting(t, true);
	j = &t->jobs[0];
	assert_string_equal(j->id, "1");
	assert_int_equal(j->line, 6);
	assert_true(j->submit == 0 && j->start == 100 && j->runtime == 3600);
	assert_true(j->requested == 7200 && j->procs == 64 && j->nodes == 64);
	assert_int_equal(j->status, 1);
	assert_int_equal(j->user, 4);
	/* -1 allocated procs: the request counts; -1 wait and request */
	j = &t->jobs[1];
	assert_true(j->procs == 32 && j->start == LOC_TRACE_UNKNOWN);
	assert_true(j->requested == LOC_TRACE_UNKNOWN);
	/* CRLF line; runtime over its request is kept (the harness cuts it) */
	j = &t->jobs[2];
	assert_true(j->runtime == 9000 && j->requested == 3600);
	assert_int_equal(t->no_request, 1);
	assert_int_equal(t->over_request, 1);
	assert_int_equal(t->npartitions, 2);
	loc_trace_destroy(t);
}

static void test_swf_procs_per_node_scales_with_ceiling(void **state)
{
	loc_trace_opts_t o;
	loc_error_t err;
	loc_trace_t *t;

	(void)state;
	loc_trace_opts_init(&o);
	o.procs_per_node = 4;
	t = loc_trace_parse(_swf_good, strlen(_swf_good), "x", &o, &err);
	assert_non_null(t);
	assert_int_equal(t->jobs[0].nodes, 16); /* 64 / 4 */
	assert_int_equal(t->jobs[1].nodes, 8);	/* 32 / 4 */
	assert_int_equal(t->jobs[2].nodes, 4);
	assert_int_equal(loc_trace_scale(t, 20), 0);
	assert_int_equal(t->jobs[0].nodes, 4); /* ceil(64 / 20) */
	assert_int_equal(t->jobs[2].nodes, 1); /* ceil(16 / 20) */
	assert_int_equal(loc_trace_scale(t, 0.5), 0);
	assert_int_equal(t->jobs[0].nodes, 128);
	assert_int_equal(loc_trace_scale(t, 0), LOC_EINVAL);
	assert_int_equal(loc_trace_scale(t, -1), LOC_EINVAL);
	loc_trace_destroy(t);
}

static void test_swf_cancelled_while_queued_is_not_a_job(void **state)
{
	static const char text[] =
		/* cancelled while queued: runtime 0, no processors allocated */
		"1 0 -1 0 -1 -1 -1 8 60 -1 5 1 -1 -1 -1 -1 -1 -1\n"
		/* cancelled after it ran for 0 s on 8 processors: a job */
		"2 0 0 0 8 -1 -1 8 60 -1 5 1 -1 -1 -1 -1 -1 -1\n"
		/* completed in under a second, no allocated count: a job */
		"3 0 0 0 -1 -1 -1 8 60 -1 1 1 -1 -1 -1 -1 -1 -1\n"
		/* cancelled after 30 s: a job */
		"4 0 0 30 -1 -1 -1 8 60 -1 5 1 -1 -1 -1 -1 -1 -1\n";
	loc_error_t err;
	loc_trace_t *t;

	(void)state;
	t = _parse(text, false, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 3);
	assert_string_equal(t->jobs[0].id, "2");
	assert_string_equal(t->jobs[1].id, "3");
	assert_string_equal(t->jobs[2].id, "4");
	assert_int_equal(t->skipped[LOC_SKIP_NOT_STARTED], 1);
	assert_int_equal(t->skip_first_line[LOC_SKIP_NOT_STARTED], 1);
	_assert_accounting(t, true);
	loc_trace_destroy(t);
}

static void test_swf_hostile_lines_are_counted_never_crash(void **state)
{
	static const char text[] =
		"1 0 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n" /* ok, line 1 */
		"2 5 0 10 4 -1 -1 4 60\n" /* truncated */
		"3 5 0 1x 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n" /* garbage */
		"4 -5 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n" /* negative */
		"5 5 0 10 99999999999999 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n"
		"6 5 0 10 4 -1 -1 4 1e300 -1 1 1 -1 -1 -1 -1 -1 -1\n" /* huge time */
		"7 5 0 -1 4 -1 -1 4 60 -1 5 1 -1 -1 -1 -1 -1 -1\n" /* never ran */
		"8 5 0 10 -1 -1 -1 -1 60 -1 5 1 -1 -1 -1 -1 -1 -1\n" /* no size */
		"1 9 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n" /* duplicate */
		"9 5 0 10 \xff\xfe -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n" /* non-UTF-8 */
		"10 5 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1 1 2 3 4 5\n"
		"11 5 0 10 4 -1 -1 4 nan -1 1 1 -1 -1 -1 -1 -1 -1\n"
		"12 5 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\r\n" /* ok, CRLF */
		"13 5 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1"; /* ok, no \n */
	static const char nul[] =
		"1 0 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n"
		"2 0 0 10 4 -1\0-1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n";
	loc_error_t err;
	loc_trace_t *t;

	(void)state;
	t = _parse(text, false, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 3);
	assert_int_equal(t->skipped[LOC_SKIP_TRUNCATED], 1);
	assert_int_equal(t->skip_first_line[LOC_SKIP_TRUNCATED], 2);
	assert_int_equal(t->skipped[LOC_SKIP_BAD_NUMBER], 4);
	assert_int_equal(t->skip_first_line[LOC_SKIP_BAD_NUMBER], 3);
	assert_int_equal(t->skipped[LOC_SKIP_NEGATIVE_TIME], 1);
	assert_int_equal(t->skipped[LOC_SKIP_RANGE], 2);
	assert_int_equal(t->skipped[LOC_SKIP_NOT_STARTED], 1);
	assert_int_equal(t->skipped[LOC_SKIP_NO_SIZE], 1);
	assert_int_equal(t->skipped[LOC_SKIP_DUPLICATE], 1);
	assert_int_equal(t->skip_first_line[LOC_SKIP_DUPLICATE], 9);
	assert_string_equal(t->jobs[2].id, "13");
	_assert_accounting(t, true);
	loc_trace_destroy(t);

	t = loc_trace_parse(nul, sizeof(nul) - 1, "nul.swf", NULL, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 1);
	assert_int_equal(t->skipped[LOC_SKIP_BAD_BYTES], 1);
	loc_trace_destroy(t);

	/* empty and comment-only inputs are empty traces */
	t = _parse("", false, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 0);
	loc_trace_destroy(t);
	t = _parse(";\n; MaxNodes: x\n\n", false, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 0);
	assert_int_equal(t->max_nodes, -1);
	loc_trace_destroy(t);
}

static void test_swf_strict_stops_at_first_bad_line(void **state)
{
	static const char text[] =
		"1 0 0 10 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n"
		"2 0 0 -1 4 -1 -1 4 60 -1 5 1 -1 -1 -1 -1 -1 -1\n" /* not bad */
		"3 0 0 10 4 -1 -1 4 60 -1 1 1 -1\n"
		"4 0 0 zz 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n";
	loc_error_t err;
	char buf[512];
	loc_trace_t *t;

	(void)state;
	t = _parse(text, true, &err);
	assert_null(t);
	assert_int_equal(err.code, LOC_EPARSE);
	assert_int_equal(err.line, 3);
	loc_error_format(&err, buf, sizeof(buf));
	assert_non_null(strstr(buf, "test.swf:3:"));
	assert_non_null(strstr(buf, "too few fields"));
}

static void test_swf_metacentrum_extension_gives_recorded_nodes(void **state)
{
	static const char text[] =
		"0 100 0 50 4 1 1024 4 86400 -1 1 62 1 1 -1 1 1 1 "
		"{1241,1241,7,7} q_1d 1:ppn=2\n"
		"1 101 5 50 1 1 1024 1 86400 -1 1 62 1 1 -1 1 1 1 {7} q_2h "
		"1:ppn=1\n"
		"2 102 5 50 1 1 1024 1 86400 -1 1 62 1 1 -1 1 1 1 {7,x} q_2h "
		"1\n";
	loc_error_t err;
	loc_trace_t *t = _parse(text, false, &err);

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->njobs, 2);
	assert_int_equal(t->skipped[LOC_SKIP_BAD_NODELIST], 1);
	assert_int_equal(t->nnode_names, 2);
	assert_string_equal(t->node_names[0], "1241");
	assert_string_equal(t->node_names[1], "7");
	assert_int_equal(t->jobs[0].nrec, 2);
	assert_int_equal(t->jobs[0].rec_nodes[0], 0);
	assert_int_equal(t->jobs[0].rec_nodes[1], 1);
	assert_int_equal(t->jobs[1].nrec, 1);
	assert_string_equal(t->partitions[t->jobs[0].partition], "q_1d");
	assert_string_equal(t->partitions[t->jobs[1].partition], "q_2h");
	loc_trace_destroy(t);
}

static void test_swf_gzip_and_plain_files_load(void **state)
{
#ifndef HAVE_ZLIB
	(void)state;
	print_message("SKIP: built without zlib\n");
	skip();
#else
	char gzpath[] = "/tmp/test_replay_traceXXXXXX";
	char plain[] = "/tmp/test_replay_plainXXXXXX";
	int fd = mkstemp(gzpath), fd2 = mkstemp(plain);
	gzFile gz;
	FILE *f;
	loc_error_t err;
	loc_trace_t *t;

	(void)state;
	assert_true(fd >= 0 && fd2 >= 0);
	close(fd);
	gz = gzopen(gzpath, "wb");
	assert_non_null(gz);
	assert_true(gzwrite(gz, _swf_good, sizeof(_swf_good) - 1) > 0);
	gzclose(gz);
	f = fdopen(fd2, "w");
	fputs(_swf_good, f);
	fclose(f);
	t = loc_trace_load(gzpath, NULL, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 3);
	assert_int_equal(t->max_nodes, 400);
	loc_trace_destroy(t);
	t = loc_trace_load(plain, NULL, &err);
	assert_non_null(t);
	assert_int_equal(t->njobs, 3);
	loc_trace_destroy(t);
	unlink(gzpath);
	unlink(plain);
	t = loc_trace_load("/nonexistent/trace.swf", NULL, &err);
	assert_null(t);
	assert_int_equal(err.code, LOC_EIO);
#endif
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

/* ===================================================================== */
/* Real samples                                                          */
/* ===================================================================== */

static void test_every_real_sample_parses_with_full_accounting(void **state)
{
	static const char *const dirs[] = { RP_TRACE_DIR,
					    RP_TRACE_DIR "/sacct" };
	int files = 0;

	(void)state;
	if (!_have_traces()) {
		skip();
		return;
	}
	for (int d = 0; d < 2; d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *e;

		assert_non_null(dir);
		while ((e = readdir(dir))) {
			char path[1024];
			loc_error_t err;
			loc_trace_t *t;
			size_t l = strlen(e->d_name);

			if (!(l > 7 && !strcmp(e->d_name + l - 7, ".swf.gz")) &&
			    !(l > 4 && (!strcmp(e->d_name + l - 4, ".txt") ||
					!strcmp(e->d_name + l - 4, ".log"))))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d],
				 e->d_name);
			t = loc_trace_load(path, NULL, &err);
			assert_non_null(t);
			_assert_accounting(t, t->format == LOC_TRACE_SWF);
			for (int i = 0; i < t->njobs; i++) {
				const loc_trace_job_t *j = &t->jobs[i];

				assert_true(j->nodes >= 1 && j->runtime >= 0);
				assert_true(j->submit >= 0 && j->procs >= 1);
				assert_true(j->nrec >= 0 && j->id[0]);
				for (int k = 0; k < j->nrec; k++)
					assert_true(j->rec_nodes[k] >= 0 &&
						    j->rec_nodes[k] <
							    t->nnode_names);
			}
			files++;
			loc_trace_destroy(t);
		}
		closedir(dir);
	}
	assert_true(files >= 15);
}

static loc_trace_t *_real(const char *name)
{
	char path[1024];
	loc_error_t err;
	loc_trace_t *t;

	snprintf(path, sizeof(path), "%s/%s", RP_TRACE_DIR, name);
	t = loc_trace_load(path, NULL, &err);
	assert_non_null(t);
	return t;
}

static void test_real_samples_match_their_known_contents(void **state)
{
	loc_trace_t *t;
	int found = 0;

	(void)state;
	if (!_have_traces()) {
		skip();
		return;
	}
	/* README: 18239 jobs, 128 nodes, no requested times */
	t = _real("NASA-iPSC-1993-3.1-cln.swf.gz");
	assert_int_equal(t->njobs, 18239);
	assert_int_equal(t->max_nodes, 128);
	assert_int_equal(t->no_request, 18239);
	loc_trace_destroy(t);

	t = _real("ANL-Intrepid-2009-first1200.swf.gz");
	assert_int_equal(t->njobs, 1200);
	assert_true(t->max_procs == 163840 && t->max_nodes == 40960);
	assert_string_equal(t->jobs[0].id, "1");
	assert_true(t->jobs[0].procs == 2048 && t->jobs[0].requested == 10800);
	loc_trace_destroy(t);

	/* 500 jobs, all with a node list on a 10-node cluster */
	t = _real("sacct/ubccr-micro-sacct.txt");
	assert_int_equal(t->njobs, 500);
	assert_int_equal(t->nnode_names, 10);
	for (int i = 0; i < t->njobs; i++)
		assert_true(t->jobs[i].nrec >= 1);
	loc_trace_destroy(t);

	/* the multi-line SubmitLine trap: the 16-node job is read whole */
	t = _real("sacct/ubccr-sacct_submitline_multiline.log");
	assert_int_equal(t->skipped[LOC_SKIP_TRUNCATED], 0);
	assert_int_equal(t->skipped[LOC_SKIP_AMBIGUOUS], 0);
	for (int i = 0; i < t->njobs; i++) {
		if (strcmp(t->jobs[i].id, "9067954"))
			continue;
		found = 1;
		assert_int_equal(t->jobs[i].nrec, 16);
		assert_true(t->jobs[i].requested == 5 * 3600);
		assert_true(t->jobs[i].runtime == 9600);
	}
	assert_true(found);
	assert_true(t->skipped[LOC_SKIP_STEP] >= 5);
	loc_trace_destroy(t);

	/* '|' inside Constraints and JobName: every record is placed */
	t = _real("sacct/ubccr-sacct_dump2110.log");
	assert_int_equal(t->skipped[LOC_SKIP_AMBIGUOUS], 0);
	assert_int_equal(t->skipped[LOC_SKIP_TRUNCATED], 0);
	assert_int_equal(t->njobs, 1);
	assert_int_equal(t->records, 7);
	loc_trace_destroy(t);

	/* its last line is a record cut short */
	t = _real("sacct/ubccr-sacct_dump2101.log");
	assert_int_equal(t->skipped[LOC_SKIP_TRUNCATED], 1);
	assert_int_equal(t->skip_first_line[LOC_SKIP_TRUNCATED], 16);
	assert_int_equal(t->njobs, 12);
	loc_trace_destroy(t);

	/* MetaCentrum: a recorded node list per job */
	t = _real("MetaCentrum-wagap-2013-nodelists.swf.gz");
	assert_true(t->njobs > 17800);
	assert_int_equal(t->nnode_names, 44);
	for (int i = 0; i < t->njobs; i++)
		assert_true(t->jobs[i].nrec >= 1);
	loc_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations_read_every_slurm_form),
		cmocka_unit_test(test_iso_times_are_utc_seconds),
		cmocka_unit_test(
			test_swf_reads_fields_header_and_missing_values),
		cmocka_unit_test(test_swf_procs_per_node_scales_with_ceiling),
		cmocka_unit_test(
			test_swf_hostile_lines_are_counted_never_crash),
		cmocka_unit_test(test_swf_cancelled_while_queued_is_not_a_job),
		cmocka_unit_test(test_swf_strict_stops_at_first_bad_line),
		cmocka_unit_test(
			test_swf_metacentrum_extension_gives_recorded_nodes),
		cmocka_unit_test(test_swf_gzip_and_plain_files_load),
		cmocka_unit_test(
			test_sacct_header_decides_and_steps_are_skipped),
		cmocka_unit_test(
			test_sacct_pipes_inside_fields_and_multiline_records),
		cmocka_unit_test(
			test_sacct_hostile_input_is_rejected_with_reasons),
		cmocka_unit_test(
			test_every_real_sample_parses_with_full_accounting),
		cmocka_unit_test(test_real_samples_match_their_known_contents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
