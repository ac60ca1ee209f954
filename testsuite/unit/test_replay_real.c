/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_real.c - locality-replay on real traces and its reports:
 * invariants on every replay of samples in ../shared/traces (no node in
 * two jobs at once, start >= submit, exact node counts, EASY never delays
 * the head's reservation), wait/BSD/LoC recomputed independently from the
 * per-job CSV, determinism, the recorded placement, machine shapes and
 * the regression (golden JSON) comparison. The trace tests skip when
 * ../shared/traces is absent. Hand-made queues are in test_replay_sim.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loc_conf.h"
#include "loc_trace.h"
#include "rp_json.h"
#include "rp_machine.h"
#include "rp_report.h"
#include "rp_sim.h"

#include "loc_test_replay.h"


/* ===================================================================== */
/* Real traces: invariants, independent recomputation, determinism       */
/* ===================================================================== */

static loc_trace_t *_real(const char *name, double ppn)
{
	char path[1024];
	loc_trace_opts_t o;
	loc_error_t err;

	loc_trace_opts_init(&o);
	o.procs_per_node = ppn;
	snprintf(path, sizeof(path), "%s/%s", RP_TRACE_DIR, name);
	return loc_trace_load(path, &o, &err);
}

static void test_every_strategy_keeps_the_invariants(void **state)
{
	setup_t s;

	(void)state;
	if (!_have_traces()) {
		skip();
		return;
	}
	/* NASA iPSC, jobs / 4 as seed 003, on a 4x8 mesh: 3000 jobs */
	_setup(&s, _real("NASA-iPSC-1993-3.1-cln.swf.gz", 4), "4x8", "no",
	       RP_ROUND_NONE, 3000);
	for (int k = 0; k < LOC_STRATEGY_COUNT; k++)
		for (int sched = 0; sched < 2; sched++)
			for (int prio = 0; prio < 2; prio++) {
				loc_alloc_t *a = _alloc(&s, k, RP_W_NONE);
				rp_run_t *run =
					_run(&s, a, sched, prio, RP_W_NONE);

				/* box may refuse sizes; the rest place all */
				if (k != LOC_STRATEGY_BOX)
					assert_int_equal(run->started,
							 s.w->njobs);
				assert_int_equal(run->started +
							 run->rejected_no_fit,
						 s.w->njobs - s.w->too_large);
				rp_run_destroy(run);
				loc_alloc_destroy(a);
			}
	_teardown(&s);
}

static void test_walltime_modes_keep_the_invariants(void **state)
{
	static const loc_strategy_kind_t kinds[] = {
		LOC_STRATEGY_BOX,
		LOC_STRATEGY_FIRSTFIT,
		LOC_STRATEGY_MM,
	};
	setup_t s;

	(void)state;
	if (!_have_traces()) {
		skip();
		return;
	}
	/* Intrepid on its 5x4x4 midplane torus, 2048 processors per unit */
	_setup(&s, _real("ANL-Intrepid-2009-first1200.swf.gz", 2048), "5x4x4",
	       "yes", RP_ROUND_NONE, 0);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int mode = 0; mode < RP_W_COUNT; mode++)
			for (int prio = 0; prio < 2; prio++) {
				loc_alloc_t *a = _alloc(&s, kinds[k], mode);
				rp_run_t *run =
					_run(&s, a, RP_SCHED_EASY, prio, mode);

				assert_int_equal(run->started +
							 run->rejected_no_fit,
						 s.w->njobs - s.w->too_large);
				rp_run_destroy(run);
				loc_alloc_destroy(a);
			}
	_teardown(&s);
}

/* Reads a CSV written by rp_write_csv into arrays (test-side parser). */
typedef struct csvjob {
	int64_t submit, start, end;
	int req, nnodes;
	double hops;
} csvjob_t;

static int _read_csv(const char *path, csvjob_t *jobs, int max)
{
	FILE *f = fopen(path, "r");
	static char line[1 << 20];
	int n = 0;

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "job_id,submit,start,end,requested_nodes,"
				  "nodes,mean_pairwise_hops,span,bbox_volume,"
				  "dispersal,components\n");
	while (fgets(line, sizeof(line), f) && n < max) {
		char *fld[12], *p = line;
		int nf = 0;

		while (nf < 12) {
			fld[nf++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		assert_int_equal(nf, 11);
		jobs[n].submit = atoll(fld[1]);
		jobs[n].start = atoll(fld[2]);
		jobs[n].end = atoll(fld[3]);
		jobs[n].req = atoi(fld[4]);
		jobs[n].nnodes = 1;
		for (char *c = fld[5]; *c; c++)
			jobs[n].nnodes += *c == ';';
		jobs[n].hops = atof(fld[6]);
		n++;
	}
	fclose(f);
	return n;
}

static int _cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* LoC by its definition, the slow way: every interval between event
 * times, every job checked. */
static double _naive_loc(const csvjob_t *j, int n, int nodes)
{
	int64_t *t = malloc(sizeof(int64_t) * 3 * n);
	int m = 0, u = 0;
	double lost = 0;

	for (int i = 0; i < n; i++) {
		t[m++] = j[i].submit;
		t[m++] = j[i].start;
		t[m++] = j[i].end;
	}
	qsort(t, m, sizeof(int64_t), _cmp_i64);
	for (int i = 0; i < m; i++)
		if (!u || t[u - 1] != t[i])
			t[u++] = t[i];
	for (int i = 0; i + 1 < u; i++) {
		int busy = 0, small = 0;

		for (int q = 0; q < n; q++)
			if (j[q].start <= t[i] && t[i] < j[q].end)
				busy += j[q].nnodes;
		for (int q = 0; q < n; q++)
			if (j[q].submit <= t[i] && t[i] < j[q].start &&
			    j[q].nnodes < nodes - busy)
				small = 1;
		if (small)
			lost += (double)(nodes - busy) * (t[i + 1] - t[i]);
	}
	lost /= (double)nodes * (t[u - 1] - t[0]);
	free(t);
	return lost;
}

static double _json_num(const rp_json_t *sum, const char *row, const char *key)
{
	const rp_json_t *v = rp_json_get(
		rp_json_get(rp_json_get(sum, "strategies"), row), key);

	assert_non_null(v);
	assert_int_equal(v->type, RJ_NUM);
	return v->num;
}

static bool _same_file(const char *a, const char *b)
{
	FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
	int c1, c2;
	bool same = true;

	assert_non_null(x);
	assert_non_null(y);
	do {
		c1 = fgetc(x);
		c2 = fgetc(y);
		if (c1 != c2)
			same = false;
	} while (same && c1 != EOF);
	fclose(x);
	fclose(y);
	return same;
}

/* Replays, writes summary.json and the CSV into dir. */
static void _write_outputs(setup_t *s, const char *dir, rp_row_t *row,
			   loc_strategy_kind_t kind, rp_wmode_t mode,
			   rp_prio_t prio)
{
	loc_alloc_t *a = _alloc(s, kind, mode);
	rp_report_ctx_t ctx = { .trace = s->trace, .w = s->w, .m = s->m };
	rp_row_t *rows[1] = { row };
	char path[512];
	loc_error_t err;

	memset(row, 0, sizeof(*row));
	snprintf(row->name, sizeof(row->name), "%s",
		 loc_strategy_kind_name(kind));
	row->run = _run(s, a, RP_SCHED_EASY, prio, mode);
	assert_int_equal(
		rp_row_from_run(row, s->w, s->m, loc_alloc_curve(a), false), 0);
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	assert_int_equal(rp_write_summary(path, &ctx, rows, 1, &err), 0);
	snprintf(path, sizeof(path), "%s/%s.csv", dir, row->file);
	assert_int_equal(rp_write_csv(path, &ctx, row, &err), 0);
	loc_alloc_destroy(a);
}

static void test_csv_recomputes_wait_bsd_and_loc(void **state)
{
	static const struct {
		const char *trace;
		double ppn;
		const char *grid, *torus;
		loc_strategy_kind_t kind;
		rp_wmode_t mode;
		rp_prio_t prio;
		int limit;
	} cases[] = {
		{ "ANL-Intrepid-2009-first1200.swf.gz", 2048, "5x4x4", "yes",
		  LOC_STRATEGY_BOX, RP_W_COMBO, RP_PRIO_WFP, 0 },
		{ "NASA-iPSC-1993-3.1-cln.swf.gz", 4, "4x8", "no",
		  LOC_STRATEGY_MM, RP_W_NONE, RP_PRIO_FCFS, 1500 },
		{ "sacct/ubccr-micro-sacct.txt", 1, "10", "no",
		  LOC_STRATEGY_FIRSTFIT, RP_W_PF, RP_PRIO_FCFS, 0 },
	};
	char dir[] = "/tmp/test_replay_simXXXXXX";

	(void)state;
	if (!_have_traces()) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(dir));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		setup_t s;
		rp_row_t row;
		char path[600];
		csvjob_t *jobs;
		int n;
		double wait = 0, bsd = 0, hops = 0;
		loc_error_t err;
		rp_json_t *sum;

		_setup(&s, _real(cases[c].trace, cases[c].ppn), cases[c].grid,
		       cases[c].torus, RP_ROUND_NONE, cases[c].limit);
		_write_outputs(&s, dir, &row, cases[c].kind, cases[c].mode,
			       cases[c].prio);
		jobs = malloc(sizeof(csvjob_t) * (s.w->njobs + 1));
		snprintf(path, sizeof(path), "%s/%s.csv", dir, row.file);
		n = _read_csv(path, jobs, s.w->njobs);
		assert_int_equal(n, row.sum.jobs);
		for (int i = 0; i < n; i++) {
			int64_t run = jobs[i].end - jobs[i].start;
			int64_t w = jobs[i].start - jobs[i].submit;

			assert_true(w >= 0);
			assert_int_equal(jobs[i].nnodes, jobs[i].req);
			wait += w;
			bsd += fmax(1.0,
				    (double)(w + run) / (run > 10 ? run : 10));
			hops += jobs[i].hops;
		}
		snprintf(path, sizeof(path), "%s/summary.json", dir);
		sum = rp_json_load(path, &err);
		assert_non_null(sum);
		assert_true(fabs(_json_num(sum, row.name, "mean_wait_s") -
				 wait / n) < 1e-5);
		assert_true(fabs(_json_num(sum, row.name, "mean_bsd") -
				 bsd / n) < 1e-5);
		assert_true(fabs(_json_num(sum, row.name, "loss_of_capacity") -
				 _naive_loc(jobs, n, s.m->nnodes)) < 1e-5);
		assert_true(
			fabs(_json_num(sum, row.name, "mean_pairwise_hops") -
			     hops / n) < 1e-5);
		assert_int_equal((int)_json_num(sum, row.name, "jobs"), n);
		rp_json_free(sum);
		free(jobs);
		rp_row_free(&row);
		_teardown(&s);
	}
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

static void test_identical_inputs_give_identical_bytes(void **state)
{
	char d1[] = "/tmp/test_replay_detAXXXXXX",
	     d2[] = "/tmp/test_replay_detBXXXXXX";
	char a[600], b[600], cmd[700];
	setup_t s;
	rp_row_t r1, r2;

	(void)state;
	if (!_have_traces()) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(d1));
	assert_non_null(mkdtemp(d2));
	_setup(&s, _real("ANL-Intrepid-2009-first1200.swf.gz", 2048), "5x4x4",
	       "yes", RP_ROUND_NONE, 0);
	_write_outputs(&s, d1, &r1, LOC_STRATEGY_BOX, RP_W_ADJEST, RP_PRIO_WFP);
	_write_outputs(&s, d2, &r2, LOC_STRATEGY_BOX, RP_W_ADJEST, RP_PRIO_WFP);
	snprintf(a, sizeof(a), "%s/summary.json", d1);
	snprintf(b, sizeof(b), "%s/summary.json", d2);
	assert_true(_same_file(a, b));
	snprintf(a, sizeof(a), "%s/box.csv", d1);
	snprintf(b, sizeof(b), "%s/box.csv", d2);
	assert_true(_same_file(a, b));
	rp_row_free(&r1);
	rp_row_free(&r2);
	_teardown(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", d1, d2);
	assert_int_equal(system(cmd), 0);
}

static void test_recorded_row_uses_the_trace_placement(void **state)
{
	setup_t s;
	rp_row_t row;
	loc_error_t err;
	int64_t snap = 0;

	(void)state;
	if (!_have_traces()) {
		skip();
		return;
	}
	_setup(&s, _real("sacct/ubccr-micro-sacct.txt", 1), "10", "no",
	       RP_ROUND_NONE, 0);
	assert_true(s.m->named);
	memset(&row, 0, sizeof(row));
	snap = s.w->jobs[100].submit;
	assert_int_equal(rp_row_recorded(&row, s.trace, s.w, s.m,
					 LOC_CURVE_HILBERT, &snap, 1, false,
					 &err),
			 0);
	assert_int_equal(row.njobs, 500);
	for (int i = 0; i < row.njobs; i++) {
		const rp_rowjob_t *j = &row.jobs[i];
		const loc_trace_job_t *tj = &s.trace->jobs[j->trace_index];

		assert_int_equal(j->nnodes, tj->nrec);
		for (int q = 0; q < j->nnodes; q++)
			assert_string_equal(
				s.m->names[j->nodes[q]],
				s.trace->node_names[tj->rec_nodes[q]]);
		assert_true(j->start == tj->start);
	}
	rp_row_free(&row);
	_teardown(&s);
}

/* ===================================================================== */
/* Machine, JSON                                                         */
/* ===================================================================== */

static void test_derived_shapes_are_compact(void **state)
{
	int d[3];

	(void)state;
	assert_int_equal(rp_derive_shape(80, 3, d), 80);
	assert_true(d[0] == 5 && d[1] == 4 && d[2] == 4);
	assert_int_equal(rp_derive_shape(128, 2, d), 128);
	assert_true(d[0] == 16 && d[1] == 8);
	assert_int_equal(rp_derive_shape(256, 2, d), 256);
	assert_true(d[0] == 16 && d[1] == 16);
	/* a prime grows to a shape whose sides differ by at most 2x */
	{
		int m = rp_derive_shape(1151, 3, d);

		assert_true(m >= 1151 && m <= 1151 + 115);
		assert_int_equal(d[0] * d[1] * d[2], m);
		assert_true(d[0] <= 2 * d[2] && d[0] >= d[1] && d[1] >= d[2]);
	}
	assert_int_equal(rp_derive_shape(1, 3, d), 1);
	assert_int_equal(rp_derive_shape(0, 3, d), 0);
	assert_true(rp_natural_cmp("n2", "n10") < 0);
	assert_true(rp_natural_cmp("n10", "n9") > 0);
	assert_true(rp_natural_cmp("b1", "g1") < 0);
	assert_true(rp_natural_cmp("cpn-q06-04-01", "cpn-q06-04-02") < 0);
	assert_int_equal(rp_natural_cmp("m3", "m3"), 0);
}

static void test_golden_comparison_respects_the_tolerance(void **state)
{
	static const char g[] = "{\"strategies\": {\"a\": {\"x\": 100.0, "
				"\"n\": \"s\", \"l\": [1, 2]}}}";
	static const char n1[] = "{\"strategies\": {\"a\": {\"x\": 100.9, "
				 "\"n\": \"s\", \"l\": [1, 2], \"new\": 1}}}";
	static const char n2[] = "{\"strategies\": {\"a\": {\"x\": 102.0, "
				 "\"n\": \"t\", \"l\": [1]}}}";
	static const char bad[] = "{\"a\": [1, 2,}";
	loc_error_t err;
	rp_json_t *jg = rp_json_parse(g, strlen(g), "g", &err);
	rp_json_t *j1 = rp_json_parse(n1, strlen(n1), "n1", &err);
	rp_json_t *j2 = rp_json_parse(n2, strlen(n2), "n2", &err);

	(void)state;
	assert_non_null(jg);
	assert_non_null(j1);
	assert_non_null(j2);
	assert_int_equal(rp_json_compare(jg, j1, 0.01, NULL, 0), 0);
	assert_int_equal(rp_json_compare(jg, j1, 0.001, NULL, 0), 1);
	assert_int_equal(rp_json_compare(jg, j2, 0.01, NULL, 0), 3);
	/* the golden's members must all be there */
	assert_int_equal(rp_json_compare(j1, jg, 0.01, NULL, 0), 1);
	assert_null(rp_json_parse(bad, strlen(bad), "bad", &err));
	assert_int_equal(err.code, LOC_EPARSE);
	rp_json_free(jg);
	rp_json_free(j1);
	rp_json_free(j2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_strategy_keeps_the_invariants),
		cmocka_unit_test(test_walltime_modes_keep_the_invariants),
		cmocka_unit_test(test_csv_recomputes_wait_bsd_and_loc),
		cmocka_unit_test(test_identical_inputs_give_identical_bytes),
		cmocka_unit_test(test_recorded_row_uses_the_trace_placement),
		cmocka_unit_test(test_derived_shapes_are_compact),
		cmocka_unit_test(test_golden_comparison_respects_the_tolerance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
