/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_plan_hold.c - which nodes a later start holds (loc_plan.h):
 * the nodes released by then where they can hold the job, so that the
 * nodes free now are not kept idle until the start; the start, the
 * CompactWait judgment and every answer now stay as they were.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "loc_test_plan.h"

/* Nodes 0-1 free; job 0 holds 2-5 until 150, job 1 holds 6-7 until 200. */
static void _two_jobs(fake_t *f, int k, int slack)
{
	_line(f, 8, k, slack);
	_job(f, 2, 5, 150);
	_job(f, 6, 7, 200);
	f->hold_released = true;
}

static void test_a_later_start_holds_released_nodes(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_two_jobs(&f, 4, -1);
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 150);
	assert_int_equal(ans.k, 4);
	assert_true(ans.released);
	/* Not 0-3, which place() took: 0 and 1 are free now. */
	for (int q = 0; q < 4; q++)
		assert_int_equal(out[q], 2 + q);
	assert_int_equal(f.released_calls, 1);
	/* Nothing placed now (two candidates): place() at 150, then
	 * place_released once. */
	assert_int_equal(ans.attempts, 2);
}

static void test_too_few_released_nodes_keep_the_placement(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	/* Six nodes at 150: four released, two free now. */
	_two_jobs(&f, 6, -1);
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 150);
	assert_int_equal(ans.k, 6);
	assert_false(ans.released);
	for (int q = 0; q < 6; q++)
		assert_int_equal(out[q], q);
	assert_int_equal(f.released_calls, 1);
}

static void test_a_start_now_holds_what_it_was_given(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_two_jobs(&f, 2, -1);
	assert_int_equal(_plan(&f, 100, false, out, &ans), 0);
	assert_true(ans.start == 100);
	assert_false(ans.released);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(f.released_calls, 0);
}

static void test_a_declined_set_at_the_deadline_is_kept(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	/* Node 0 free, 1 and 2 never candidates, 3-4 released at 150: the
	 * job (3 nodes, no slack) declines 0, 3, 4 and nothing compact ever
	 * comes, so that set is the answer at the deadline (here 150). */
	_line(&f, 5, 3, 0);
	_job(&f, 3, 4, 150);
	f.cand[1] = f.cand[2] = 0;
	f.hold_released = true;
	assert_int_equal(_plan(&f, 120, false, out, &ans), 0);
	assert_true(ans.declined);
	assert_true(ans.start == 150);
	assert_false(ans.released);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 3);
	assert_int_equal(out[2], 4);
	assert_int_equal(f.released_calls, 0);
}

static void test_place_released_errors_end_the_plan(void **state)
{
	fake_t f;
	int out[N_MAX];
	loc_plan_answer_t ans;

	(void)state;
	_two_jobs(&f, 4, -1);
	f.released_fail = LOC_EIO;
	assert_int_equal(_plan(&f, 100, false, out, &ans), LOC_EIO);
}

/*
 * Random states: with place_released the answer starts when it does
 * without (and declines what it declined); its nodes are released ones
 * when it says so, and otherwise the plain answer's.
 */
static void test_random_states_keep_their_start(void **state)
{
	int held = 0, kept = 0;

	(void)state;
	for (int trial = 0; trial < 3000; trial++) {
		fake_t f, g;
		int n = 4 + _rand(N_MAX - 3), out[N_MAX], plain[N_MAX];
		int64_t deadline = 100 + _rand(300);
		int64_t window = _rand(2) ? 0 : 60;
		loc_plan_answer_t a, b;
		int rc, rc_plain;

		_line(&f, n, 1 + _rand(n), _rand(4) - 1);
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
		g = f;
		rc_plain = _plan_at(&g, 100, window, deadline, false, plain,
				    &b);
		g = f;
		g.hold_released = true;
		rc = _plan_at(&g, 100, window, deadline, false, out, &a);
		assert_int_equal(rc, rc_plain);
		assert_int_equal(a.waiting, b.waiting);
		if (rc)
			continue;
		assert_true(a.start == b.start);
		assert_int_equal(a.declined, b.declined);
		if (!a.released) {
			assert_int_equal(a.k, b.k);
			assert_memory_equal(out, plain, sizeof(int) * a.k);
			kept++;
			continue;
		}
		assert_true(a.start > 100);
		assert_false(a.declined);
		assert_int_equal(a.k, f.k);
		for (int q = 0; q < a.k; q++)
			assert_false(f.cand[out[q]]);
		held++;
	}
	assert_true(held > 100);
	assert_true(kept > 100);
}

/* The drivers' narrowing to released nodes and back, on random maps in
 * which the later candidates hold those of now. */
static void test_narrowing_to_released_nodes(void **state)
{
	uint64_t r = 17;

	(void)state;
	for (int trial = 0; trial < 2000; trial++) {
		uint8_t now[300], cand[300], orig[300];
		int n = 1 + (int)((r = r * 6364136223846793005ULL + 1) >> 33) %
				    300;
		int want = 0;

		for (int v = 0; v < n; v++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			now[v] = (r >> 40) % 3 == 0;
			cand[v] = now[v] || (r >> 50) % 2;
			want += cand[v] && !now[v];
		}
		memcpy(orig, cand, (size_t)n);
		assert_int_equal(loc_plan_narrow_to_released(cand, now, n),
				 want);
		for (int v = 0; v < n; v++)
			assert_int_equal(cand[v], orig[v] && !now[v]);
		loc_plan_unnarrow(cand, now, n);
		assert_memory_equal(cand, orig, (size_t)n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_later_start_holds_released_nodes),
		cmocka_unit_test(test_too_few_released_nodes_keep_the_placement),
		cmocka_unit_test(test_a_start_now_holds_what_it_was_given),
		cmocka_unit_test(test_a_declined_set_at_the_deadline_is_kept),
		cmocka_unit_test(test_place_released_errors_end_the_plan),
		cmocka_unit_test(test_random_states_keep_their_start),
		cmocka_unit_test(test_narrowing_to_released_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
