/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_plan.c - the earliest-start planner shared by the plugin's
 * WILL_RUN and the replay's EASY reservation: hand cases for each rule,
 * then random states checked against a brute force that rebuilds the
 * state at every candidate time instead of releasing jobs one by one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "loc_patience.h"
#include "loc_test_plan.h"

static void test_a_job_that_fits_starts_now(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 8, 3, -1);
	_job(&f, 0, 1, 500);
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 100);
	assert_int_equal(ans.k, 3);
	assert_int_equal(out[0], 2);
	assert_int_equal(ans.attempts, 1);
	assert_false(ans.declined);
}

static void test_jobs_ending_together_are_released_together(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 6, 6, -1);
	_job(&f, 0, 1, 300);
	_job(&f, 2, 3, 200);
	_job(&f, 4, 5, 300);
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 300);
	/* not now (0 candidates), not at 200 (2 < 6): one attempt at 300 */
	assert_int_equal(ans.attempts, 1);
	assert_int_equal(f.places, 1);
	assert_true(f.placed_at[0] == 300);
}

static void test_an_overdue_job_counts_as_ending_next_second(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 4, 4, -1);
	_job(&f, 0, 3, 50); /* expected to end before now: running late */
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 101);
}

static void test_widen_now_is_tried_before_any_release(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 4, 4, -1);
	_job(&f, 0, 1, 200);
	_job(&f, 2, 3, 300);
	f.widen[f.nwiden++] = 0; /* a preemptable job's nodes */
	f.widen[f.nwiden++] = 1;
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	/* widening gives 2 of 4: still the end of job 2 */
	assert_true(ans.start == 300);
	_line(&f, 4, 2, -1);
	_job(&f, 0, 3, 300);
	f.widen[f.nwiden++] = 2;
	f.widen[f.nwiden++] = 3;
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 100);
	assert_int_equal(out[0], 2);
}

static void test_now_only_never_looks_ahead(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 4, 3, -1);
	_job(&f, 0, 1, 200);
	assert_int_equal(_plan(&f, 100, true, out, &ans), LOC_ENOFIT);
	_line(&f, 4, 3, -1);
	_job(&f, 0, 1, 200);
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 200);
}

/*
 * Node 0 of 0..3 is free now, node 3 frees at 120 (0,3: span 4 for 2
 * nodes, declined with slack 0), node 1 at 200 (0,1: compact). With the
 * deadline at 150 the answer is still the compact pair at 200, not the
 * declined one.
 */
static void test_the_first_compact_set_wins_even_past_the_deadline(
	void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 4, 2, 0);
	_job(&f, 1, 1, 200);
	_job(&f, 2, 2, 900);
	_job(&f, 3, 3, 120);
	assert_int_equal(_plan(&f, 150, false, out, &ans), 0);
	assert_true(ans.start == 200);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_false(ans.declined);
}

/*
 * Nodes 0 and 3 of 0..3 are free now and the job declines them: it gets
 * no start and no nodes (it reserves nothing while it waits), even though
 * a compact pair comes at 200. Without CompactWait it takes them now.
 */
static void test_a_job_declining_what_is_free_now_waits(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 4, 2, 0);
	_job(&f, 1, 1, 200);
	_job(&f, 2, 2, 900);
	assert_int_equal(_plan(&f, 150, false, out, &ans), LOC_ENOFIT);
	assert_true(ans.waiting);
	assert_int_equal(f.places, 1); /* nothing planned past now */
	_line(&f, 4, 2, -1);
	_job(&f, 1, 1, 200);
	_job(&f, 2, 2, 900);
	assert_int_equal(_plan(&f, 150, false, out, &ans), 0);
	assert_false(ans.waiting);
	assert_true(ans.start == 100);
	/* Widening now (preemption) may still give a set it takes. */
	_line(&f, 4, 2, 0);
	_job(&f, 1, 1, 200);
	_job(&f, 2, 2, 900);
	f.widen[f.nwiden++] = 1;
	assert_int_equal(_plan(&f, 150, false, out, &ans), 0);
	assert_true(ans.start == 100);
	assert_int_equal(out[1], 1);
}

/*
 * Nothing compact ever: the latest declined set no later than the
 * deadline is the answer, at the deadline.
 */
static void test_without_a_compact_set_the_declined_one_waits(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 6, 3, 0);
	f.cand[1] = f.cand[3] = f.cand[5] = 0; /* never free, never released */
	f.cand[0] = f.cand[2] = 1;
	f.cand[4] = 0;
	_job(&f, 4, 4, 120);  /* 0,2,4 at 120: span 5 */
	assert_int_equal(_plan(&f, 150, false, out, &ans), 0);
	assert_true(ans.declined);
	assert_true(ans.start == 150);
	assert_int_equal(out[2], 4);
	/* the deadline long past the last release: taken at the deadline */
	_line(&f, 6, 3, 0);
	f.cand[1] = f.cand[3] = f.cand[5] = 0;
	f.cand[4] = 0;
	_job(&f, 4, 4, 120);
	assert_int_equal(_plan(&f, 1000, false, out, &ans), 0);
	assert_true(ans.start == 1000);
	/* a declined set only after the deadline: taken when it comes */
	_line(&f, 6, 3, 0);
	f.cand[1] = f.cand[3] = f.cand[5] = 0;
	f.cand[4] = 0;
	_job(&f, 4, 4, 400);
	assert_int_equal(_plan(&f, 150, false, out, &ans), 0);
	assert_true(ans.declined);
	assert_true(ans.start == 400);
}

static void test_driver_errors_end_the_plan(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 4, 4, -1);
	_job(&f, 0, 1, 200);
	_job(&f, 2, 3, 300);
	f.fail_at = 1;
	assert_int_equal(_plan(&f, 100, false, out, &ans), LOC_EIO);
}

static void test_more_running_jobs_than_nodes(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_line(&f, 4, 4, -1);
	for (int i = 0; i < 12; i++) /* suspended jobs sharing nodes */
		_job(&f, i % 4, i % 4, 200 + 10 * i);
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	/* a release frees the job's nodes (the fake's rule, and the
	 * plugin's): node 3's first job ends at 230 */
	assert_true(ans.start == 230);
}

/* A line where job i holds the next `per` nodes and ends at ends[i]; the
 * job to plan needs k nodes. */
static void _jobs_ending(fake_t *f, int per, int k, const int64_t *ends,
			 int n)
{
	_line(f, per * n, k, -1);
	for (int i = 0; i < n; i++)
		_job(f, per * i, per * i + per - 1, ends[i]);
}

static void test_a_window_offers_its_last_end(void **state)
{
	fake_t f;
	static const int64_t ends[] = { 110, 125, 150, 200 };
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	/* two nodes a job; 4 nodes fit at 125 */
	_jobs_ending(&f, 2, 4, ends, 4);
	assert_int_equal(_plan_at(&f, 100, 0, 100, false, out, &ans), 0);
	assert_true(ans.start == 125);
	/* W=30: 110 rounds up to 120, so the first window closes at 150 and
	 * holds 110, 125 and 150, offered together at 150 */
	_jobs_ending(&f, 2, 4, ends, 4);
	assert_int_equal(_plan_at(&f, 100, 30, 100, false, out, &ans), 0);
	assert_true(ans.start == 150);
	assert_int_equal(f.places, 1);
	assert_int_equal(ans.k, 4);
	assert_int_equal(out[0], 0);
}

static void test_windows_double_past_the_first(void **state)
{
	static const int64_t ends[] = { 110, 160, 200, 300, 500, 700 };
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	/* W=30, base 120: windows close at 150, 180, 240, 360, 600, 840;
	 * every end falls in a window of its own */
	_jobs_ending(&f, 1, 6, ends, 6);
	assert_int_equal(_plan_at(&f, 100, 30, 100, false, out, &ans), 0);
	assert_true(ans.start == 700);
	assert_int_equal(f.places, 1); /* too few candidates before 700 */
	/* one node needed: the first window answers */
	_jobs_ending(&f, 1, 1, ends, 6);
	assert_int_equal(_plan_at(&f, 100, 30, 100, false, out, &ans), 0);
	assert_true(ans.start == 110);
	/* 170 and 175 join 160 (window to 180); 230 joins 200 (to 240) */
	_line(&f, 6, 4, -1);
	_job(&f, 0, 0, 110);
	_job(&f, 1, 1, 160);
	_job(&f, 2, 2, 170);
	_job(&f, 3, 3, 175);
	_job(&f, 4, 4, 230);
	_job(&f, 5, 5, 200);
	assert_int_equal(_plan_at(&f, 100, 30, 100, false, out, &ans), 0);
	assert_true(ans.start == 175);
	assert_int_equal(f.places, 1);
	assert_true(f.placed_at[0] == 175);
	/* ends as far as time goes: the windows stop doubling there */
	_line(&f, 2, 2, -1);
	_job(&f, 0, 0, 110);
	_job(&f, 1, 1, INT64_MAX - 1);
	assert_int_equal(_plan_at(&f, 100, 30, 100, false, out, &ans), 0);
	assert_true(ans.start == INT64_MAX - 1);
}

static void test_a_window_answer_holds_as_time_passes(void **state)
{
	/* Backfill asks again every cycle: as now moves on (before the
	 * first end), the windows stay where they were. */
	int64_t first = 0;

	(void)state;
	for (int64_t now = 100; now < 140; now += 7) {
		fake_t f;
		int out[N_MAX];
		loc_plan_answer_t ans;

		_line(&f, 8, 5, -1);
		_job(&f, 0, 1, 141);
		_job(&f, 2, 3, 160);
		_job(&f, 4, 5, 185);
		_job(&f, 6, 7, 260);
		assert_int_equal(_plan_at(&f, now, 30, now, false, out, &ans),
				 0);
		if (!first)
			first = ans.start;
		assert_true(ans.start == first);
	}
	assert_true(first == 185); /* base 150, first window to 180,
				    * second to 210 */
}

static void test_random_windows_start_no_earlier(void **state)
{
	/* A window never answers before the exact plan, and always at a
	 * running job's end. */
	uint64_t rng = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int trial = 0; trial < 2000; trial++) {
		fake_t f, g;
		int out[N_MAX], gout[N_MAX], n;
		int64_t w;
		loc_plan_answer_t ans, gans;
		bool at_end = false;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		n = 4 + (int)((rng >> 33) % (N_MAX - 3));
		w = 1 + (int64_t)((rng >> 20) % 90);
		_line(&f, n, 1 + (int)((rng >> 40) % (uint64_t)n), -1);
		for (int v = 0; v < n; v++)
			_job(&f, v, v, 101 + (int64_t)((rng >> (v % 40)) % 400));
		g = f;
		assert_int_equal(_plan_at(&f, 100, 0, 100, false, out, &ans),
				 0);
		assert_int_equal(_plan_at(&g, 100, w, 100, false, gout, &gans),
				 0);
		assert_true(gans.start >= ans.start);
		assert_true(gans.attempts <= ans.attempts);
		for (int i = 0; i < g.njobs; i++)
			at_end |= g.ends[i] == gans.start;
		assert_true(at_end);
	}
}

/* ------------------------------------------------------------------ */
/* Random states against a brute force                                 */
/* ------------------------------------------------------------------ */


/* The answer by rebuilding the state at every candidate time: the count
 * of nodes, 0 when none, -1 when the job declines what is free now. */
static int _brute(const fake_t *f0, int64_t deadline, int *out, int64_t *t_out,
		  bool *declined)
{
	int64_t times[J_MAX + 1], fb_t = 0;
	int nt = 0, fb[N_MAX], fb_k = 0;

	times[nt++] = 100;
	for (int i = 0; i < f0->njobs; i++)
		times[nt++] = f0->ends[i] > 100 ? f0->ends[i] : 101;
	for (int a = 1; a < nt; a++) /* sort, then unique */
		for (int b = a; b > 0 && times[b] < times[b - 1]; b--) {
			int64_t x = times[b];

			times[b] = times[b - 1];
			times[b - 1] = x;
		}
	for (int ti = 0; ti < nt; ti++) {
		fake_t f = *f0;
		int k;

		if (ti && times[ti] == times[ti - 1])
			continue;
		for (int i = 0; i < f.njobs; i++)
			if ((f.ends[i] > 100 ? f.ends[i] : 101) <= times[ti])
				_release(&f, i);
		if (_count(&f) < f.k || _place(&f, times[ti], out, &k))
			continue;
		if (!_declines(&f, out, k, times[ti])) {
			*t_out = times[ti];
			*declined = false;
			return k;
		}
		if (times[ti] == 100)
			return -1;
		if (!fb_t || times[ti] <= deadline) {
			memcpy(fb, out, sizeof(int) * k);
			fb_k = k;
			fb_t = times[ti] > deadline ? times[ti] : deadline;
		}
	}
	if (!fb_t)
		return 0;
	memcpy(out, fb, sizeof(int) * fb_k);
	*t_out = fb_t;
	*declined = true;
	return fb_k;
}

static void test_random_states_match_the_brute_force(void **state)
{
	int waiting = 0;

	(void)state;
	for (int trial = 0; trial < 3000; trial++) {
		fake_t f;
		int n = 4 + _rand(N_MAX - 3), out[N_MAX], bout[N_MAX], bk;
		int64_t deadline = 100 + _rand(300), bt = 0;
		bool bdecl = false;
		loc_plan_answer_t ans;
		int rc;

		_line(&f, n, 1 + _rand(n), _rand(4) - 1);
		/* running jobs on random disjoint runs of nodes */
		for (int v = 0; v < n && f.njobs < J_MAX;) {
			int len = 1 + _rand(3);

			if (_rand(3) == 0) {
				v += len;
				continue;
			}
			len = v + len > n ? n - v : len;
			_job(&f, v, v + len - 1, 50 + 50 * _rand(8));
			v += len;
		}
		bk = _brute(&f, deadline, bout, &bt, &bdecl);
		rc = _plan(&f, deadline, false, out, &ans);
		if (bk <= 0) {
			assert_int_equal(rc, LOC_ENOFIT);
			assert_int_equal(ans.waiting, bk < 0);
			waiting += bk < 0;
			continue;
		}
		if (rc || ans.start != bt || ans.k != bk ||
		    memcmp(out, bout, sizeof(int) * bk))
			print_message("trial %d: n=%d k=%d slack=%d deadline=%lld: "
				      "plan rc=%d t=%lld k=%d, brute t=%lld k=%d\n",
				      trial, n, f.k, f.slack,
				      (long long)deadline, rc,
				      (long long)ans.start, ans.k,
				      (long long)bt, bk);
		assert_int_equal(rc, 0);
		assert_true(ans.start == bt);
		assert_int_equal(ans.k, bk);
		assert_int_equal(ans.declined, bdecl);
		assert_memory_equal(out, bout, sizeof(int) * bk);
	}
	/* Jobs that wait for a compact set come up (every node is free in
	 * the end, so a declined set is never the answer here: the hand
	 * cases above check that). */
	assert_true(waiting > 100);
}

static void test_bad_arguments(void **state)
{
	loc_error_t err;
	loc_planner_t *p;
	loc_plan_ops_t ops = { .place = _place, .release = _release };
	loc_plan_request_t req = { .now = 1, .nrunning = 2 };
	loc_plan_answer_t ans;
	int out[4];

	(void)state;
	assert_null(loc_planner_create(0, &err));
	p = loc_planner_create(4, &err);
	assert_non_null(p);
	/* running jobs without their ends */
	assert_int_equal(loc_plan_earliest(p, &req, &ops, NULL, out, &ans,
					   &err),
			 LOC_EINVAL);
	ops.place = NULL;
	req.nrunning = 0;
	assert_int_equal(loc_plan_earliest(p, &req, &ops, NULL, out, &ans,
					   &err),
			 LOC_EINVAL);
	loc_planner_destroy(p);
	loc_planner_destroy(NULL);
}

/* CompactWait's rule (loc_patience.h): the tolerance, the deadline, and a
 * wait that begins when the job is first offered nodes now. */
static void test_patience_rule(void **state)
{
	loc_policy_t pol;
	loc_patience_t p = LOC_PATIENCE_INIT;

	(void)state;
	loc_policy_init(&pol);
	/* off: never defers; the deadline is the start itself */
	assert_false(loc_patience_defer(&pol, 4, 1000, 10, 0));
	assert_true(loc_patience_deadline(&pol, 7) == 7);
	pol.compact_wait = 30;
	pol.compact_tolerance = 0.2;
	assert_true(loc_patience_defer(&pol, 4, 13, 10, 0));  /* 13 > 12 */
	assert_false(loc_patience_defer(&pol, 4, 12, 10, 0)); /* within */
	assert_false(loc_patience_defer(&pol, 4, 13, 10, 30)); /* too late */
	assert_false(loc_patience_defer(&pol, 1, 13, 10, 0)); /* one node */
	assert_false(loc_patience_defer(&pol, 4, 13, 0, 0));  /* no reference */
	assert_true(loc_patience_deadline(&pol, 7) == 37);
	/* projected offers do not begin the wait; the first offer now does,
	 * at time 0 too, and later offers keep it */
	assert_true(loc_patience_began(&pol, &p, 5, false) == 5);
	assert_true(p.began == LOC_PATIENCE_UNSET);
	assert_true(loc_patience_began(&pol, &p, 0, true) == 0);
	assert_true(p.began == 0);
	assert_true(loc_patience_began(&pol, &p, 20, true) == 0);
	assert_true(loc_patience_began(&pol, &p, 50, true) == 0); /* 30 s */
	assert_true(loc_patience_began(&pol, &p, 60, false) == 0);
	/* offered nothing for more than CompactWait: it was queued, and
	 * its wait begins again at the next offer, once */
	assert_true(loc_patience_began(&pol, &p, 81, true) == 81);
	assert_true(p.restarts == 1);
	assert_true(loc_patience_began(&pol, &p, 200, true) == 81);
	assert_true(p.offered == 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_job_that_fits_starts_now),
		cmocka_unit_test(test_jobs_ending_together_are_released_together),
		cmocka_unit_test(test_an_overdue_job_counts_as_ending_next_second),
		cmocka_unit_test(test_widen_now_is_tried_before_any_release),
		cmocka_unit_test(test_now_only_never_looks_ahead),
		cmocka_unit_test(
			test_the_first_compact_set_wins_even_past_the_deadline),
		cmocka_unit_test(test_a_job_declining_what_is_free_now_waits),
		cmocka_unit_test(test_without_a_compact_set_the_declined_one_waits),
		cmocka_unit_test(test_driver_errors_end_the_plan),
		cmocka_unit_test(test_more_running_jobs_than_nodes),
		cmocka_unit_test(test_a_window_offers_its_last_end),
		cmocka_unit_test(test_windows_double_past_the_first),
		cmocka_unit_test(test_a_window_answer_holds_as_time_passes),
		cmocka_unit_test(test_random_windows_start_no_earlier),
		cmocka_unit_test(test_random_states_match_the_brute_force),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_patience_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
