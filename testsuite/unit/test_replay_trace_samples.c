/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_trace_samples.c - the trace readers (loc_trace.h) on every
 * real sample in ../shared/traces, SWF and sacct: full accounting of each
 * file and the known contents of some (skipped when that directory is
 * absent). Hand-written inputs are in test_replay_trace_swf.c and
 * test_replay_trace_sacct.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "loc_trace.h"
#include "loc_test_replay.h"

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
		cmocka_unit_test(
			test_every_real_sample_parses_with_full_accounting),
		cmocka_unit_test(test_real_samples_match_their_known_contents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
