/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_trace_swf.c - the SWF trace reader (loc_trace.h) on
 * hand-written good and hostile inputs: fields, header and missing values,
 * processors per node and scaling, jobs cancelled while queued, strict
 * mode, the MetaCentrum node-list extension, and gzip and plain files.
 * sacct and the field readers are in test_replay_trace_sacct.c, the real
 * samples in test_replay_trace_samples.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

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
	char gzpath[] = "/tmp/test_replay_trace_swfXXXXXX";
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
