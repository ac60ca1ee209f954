/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_sim.c - locality-replay's simulator on small hand-made SWF
 * queues with known schedules: FCFS, EASY and its reservations, WFP,
 * CompactWait, patient jobs and their claims, PlanWindow, rejected jobs,
 * rp_run_check on broken runs, and loss of capacity by hand. Node
 * weights are in test_replay_weights.c, PF's pairs and holds in
 * test_replay_pf.c, replays of real traces in test_replay_real.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "loc_conf.h"
#include "loc_trace.h"
#include "rp_machine.h"
#include "rp_report.h"
#include "rp_sim.h"

#include "loc_test_replay.h"

/* ===================================================================== */
/* Hand-made schedules                                                   */
/* ===================================================================== */

/* 4 nodes. Job 1 (3 nodes) runs 0-100; job 2 (4 nodes) must wait for
 * it; job 3 (1 node, ends at 52) fits before job 2's reservation at 100;
 * job 4 (1 node, 200 s) would run past it on nodes job 2 needs, so it
 * waits. */
static const char _easy_swf[] =
	"1 0 -1 100 3 -1 -1 3 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 1 -1 50 4 -1 -1 4 50 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 2 -1 50 1 -1 -1 1 50 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 3 -1 200 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void test_easy_backfills_only_what_keeps_the_reservation(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;

	(void)state;
	_setup_text(&s, _easy_swf, "4");
	a = _alloc(&s, LOC_STRATEGY_FREELIST, RP_W_NONE);

	run = _run(&s, a, RP_SCHED_EASY, RP_PRIO_FCFS, RP_W_NONE);
	assert_true(_start_of(&s, run, "1") == 0);
	assert_true(_start_of(&s, run, "2") == 100);
	assert_true(_start_of(&s, run, "3") == 2);
	assert_true(_start_of(&s, run, "4") == 150);
	assert_true(run->first_shadow[_index_of(&s, "2")] == 100);
	assert_true(run->backfilled[_index_of(&s, "3")]);
	assert_int_equal(run->nbackfilled, 1);
	rp_run_destroy(run);

	/* plain FCFS: the head blocks everyone */
	run = _run(&s, a, RP_SCHED_FCFS, RP_PRIO_FCFS, RP_W_NONE);
	assert_true(_start_of(&s, run, "2") == 100);
	assert_true(_start_of(&s, run, "3") == 150);
	assert_true(_start_of(&s, run, "4") == 150);
	assert_int_equal(run->nbackfilled, 0);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* 4 nodes in a line. Jobs 1-3 take nodes 0, 1, 2; job 2 ends at 20,
 * leaving nodes 1 and 3 free (2 hops apart) for job 4, a 2-node job
 * submitted at 10 whose compact pair (1 hop) exists only from 100, when
 * jobs 1 and 3 end. */
static const char _compact_swf[] =
	"1 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 0 -1 20 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 10 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n";

/* Job 4's start and first node under CompactWait=wait. */
static int64_t _compact_start(const setup_t *s, int64_t wait, int *first)
{
	loc_policy_t pol = s->m->conf->policy;
	loc_error_t err;
	loc_alloc_t *a;
	rp_run_t *run;
	int64_t t;
	int j = _index_of(s, "4");

	pol.strategy = LOC_STRATEGY_FREELIST;
	pol.compact_wait = wait;
	pol.compact_tolerance = 0.5;
	a = loc_alloc_create(s->m->grid, &pol, &err);
	assert_non_null(a);
	run = _run(s, a, RP_SCHED_EASY, RP_PRIO_FCFS, RP_W_NONE);
	t = run->start[j];
	*first = run->pool[run->node_off[j]];
	assert_int_equal(run->deferrals, wait ? 1 : 0);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	return t;
}

static void test_compact_wait_is_bounded(void **state)
{
	setup_t s;
	int first;

	(void)state;
	_setup_text(&s, _compact_swf, "4");
	/* off: the first two free nodes, 1 and 3, at 20 */
	assert_true(_compact_start(&s, 0, &first) == 20);
	assert_int_equal(first, 1);
	/* a long wait: the compact pair when it frees up */
	assert_true(_compact_start(&s, 200, &first) == 100);
	assert_int_equal(first, 0);
	/* a short one: the best set there is at the deadline, 50 s after
	 * the job could first start (20), not after its submission (10) */
	assert_true(_compact_start(&s, 50, &first) == 70);
	assert_int_equal(first, 1);
	_teardown(&s);
}

/* 4 nodes. Jobs 1 (nodes 0-1, to 100) and 2 (node 2, to 125) run; job 3
 * (3 nodes) is EASY's pivot: it fits at 100. Job 4 (1 node, 120 s) would
 * hold node 3, the pivot's, past 100, so it waits for job 1 and 2 to end.
 * With PlanWindow=30 the ends at 100 and 125 fall in one window (100
 * rounds up to 120, the window closes at 150), the pivot is planned at
 * 125, and job 4 ends by 122: it starts at once, and the pivot at 122. */
static const char _window_swf[] =
	"1 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 0 -1 125 1 -1 -1 1 125 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 1 -1 50 3 -1 -1 3 50 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 2 -1 120 1 -1 -1 1 120 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void _window_starts(const setup_t *s, int64_t window, int64_t *t3,
			   int64_t *t4)
{
	loc_policy_t pol = s->m->conf->policy;
	loc_error_t err;
	loc_alloc_t *a;
	rp_run_t *run;

	pol.strategy = LOC_STRATEGY_FREELIST;
	pol.plan_window = window;
	a = loc_alloc_create(s->m->grid, &pol, &err);
	assert_non_null(a);
	run = _run(s, a, RP_SCHED_EASY, RP_PRIO_FCFS, RP_W_NONE);
	*t3 = run->start[_index_of(s, "3")];
	*t4 = run->start[_index_of(s, "4")];
	rp_run_destroy(run);
	loc_alloc_destroy(a);
}

static void test_a_plan_window_lets_more_jobs_backfill(void **state)
{
	setup_t s;
	int64_t t3, t4;

	(void)state;
	_setup_text(&s, _window_swf, "4");
	_window_starts(&s, 0, &t3, &t4);
	assert_true(t3 == 100);
	assert_true(t4 == 125);
	_window_starts(&s, 30, &t3, &t4);
	assert_true(t4 == 2);
	assert_true(t3 == 122);
	/* a window too short to join 100 and 125 changes nothing */
	_window_starts(&s, 5, &t3, &t4);
	assert_true(t3 == 100);
	assert_true(t4 == 125);
	_teardown(&s);
}

/* EASY, FCFS, freelist with CompactWait=50 and CompactTolerance=0.5: the
 * setting of the patient-job cases below. *a is the allocator to free. */
static rp_run_t *_run_patient(setup_t *s, loc_alloc_t **a)
{
	loc_policy_t pol = s->m->conf->policy;
	loc_error_t err;

	pol.strategy = LOC_STRATEGY_FREELIST;
	pol.compact_wait = 50;
	pol.compact_tolerance = 0.5;
	*a = loc_alloc_create(s->m->grid, &pol, &err);
	assert_non_null(*a);
	return _run(s, *a, RP_SCHED_EASY, RP_PRIO_FCFS, RP_W_NONE);
}

/* The same line, plus job 5 (1 node, 500 s) submitted at 15. Job 4 is
 * EASY's pivot; the projection offers it nodes 1 and 3 at 20, which it
 * would decline, so its reservation is the compact pair {0, 1} at 100:
 * job 5 starts at once on node 3, and job 4 gets its pair at 100 (at its
 * deadline, 60, only node 1 is free). Reserving the declined pair from
 * 60 would keep node 3 idle for job 4 and start job 5 only at 100. */
static const char _patient_pivot_swf[] =
	"1 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 0 -1 20 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 10 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"5 15 -1 500 1 -1 -1 1 500 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void test_a_patient_pivot_reserves_its_compact_set(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	int j4, j5;

	(void)state;
	_setup_text(&s, _patient_pivot_swf, "4");
	run = _run_patient(&s, &a);
	j4 = _index_of(&s, "4");
	j5 = _index_of(&s, "5");
	assert_true(run->first_shadow[j4] == 100);
	assert_true(run->start[j5] == 15);
	assert_int_equal(run->pool[run->node_off[j5]], 3);
	assert_true(run->start[j4] == 100);
	assert_int_equal(run->pool[run->node_off[j4]], 0);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* The line again, with job 6 (1 node, 500 s) submitted at 25 instead of
 * job 5. From 20 job 4 waits for a compact pair rather than take nodes 1
 * and 3; a waiting job reserves nothing (loc_plan.h: sched/backfill would
 * hold free nodes idle for it), so job 6 starts at once on the first free
 * node, 1. Were job 4 EASY's pivot, its reservation (the pair {0, 1} at
 * 100) would keep job 6 on node 3. */
static const char _waiting_swf[] =
	"1 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 0 -1 20 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 10 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"6 25 -1 500 1 -1 -1 1 500 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void test_a_waiting_job_reserves_nothing(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	int j4, j6;

	(void)state;
	_setup_text(&s, _waiting_swf, "4");
	run = _run_patient(&s, &a);
	j4 = _index_of(&s, "4");
	j6 = _index_of(&s, "6");
	assert_true(run->start[j6] == 25);
	assert_int_equal(run->pool[run->node_off[j6]], 1);
	assert_true(run->start[j4] >= 70); /* not before its deadline */
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* The same line under topology/locality's claims (o.claims): when job 4
 * declines nodes 1 and 3 at 20 it claims the translate of its compact
 * pair with the most of them free, the pair itself ({0, 1}: every
 * translate holds one, ties go to the placement). Job 6 then keeps off
 * node 1 and takes node 3, and job 4 gets the pair {0, 1} at 100, not
 * the scattered {0, 2} it gets without the claim (o.claims false, or
 * CompactClaims=0). */
static void test_a_waiting_job_claims_a_region(void **state)
{
	static const struct {
		bool claims;
		int compact_claims;
	} runs[] = { { false, 16 }, { true, 16 }, { true, 0 } };
	loc_policy_t pol;
	setup_t s;
	loc_alloc_t *a;
	loc_error_t err;
	rp_sim_opts_t o;
	rp_run_t *run;
	int j4, j6;

	(void)state;
	_setup_text(&s, _waiting_swf, "4");
	j4 = _index_of(&s, "4");
	j6 = _index_of(&s, "6");
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		bool claimed = runs[r].claims && runs[r].compact_claims > 0;

		pol = s.m->conf->policy;
		pol.strategy = LOC_STRATEGY_FREELIST;
		pol.compact_wait = 50;
		pol.compact_tolerance = 0.5;
		pol.compact_claims = runs[r].compact_claims;
		a = loc_alloc_create(s.m->grid, &pol, &err);
		assert_non_null(a);
		rp_sim_opts_init(&o);
		o.sched = RP_SCHED_EASY;
		o.claims = runs[r].claims;
		run = rp_sim_run(s.w, a, &o, &err);
		assert_non_null(run);
		assert_int_equal(rp_run_check(s.w, run, true, &err), 0);
		assert_true(run->start[j6] == 25);
		assert_int_equal(run->pool[run->node_off[j6]], claimed ? 3 : 1);
		assert_true(run->start[j4] == 100);
		assert_int_equal(run->pool[run->node_off[j4]], 0);
		assert_int_equal(run->pool[run->node_off[j4] + 1],
				 claimed ? 1 : 2);
		rp_run_destroy(run);
		loc_alloc_destroy(a);
	}
	_teardown(&s);
}

/* The same, with job 5 (3 nodes, 10 s) submitted at 25 and job 6 at 26:
 * job 4 waits, so job 5 is EASY's pivot; it reserves nodes 0-2 at 100,
 * and job 6 (500 s) must keep off them: node 3. That reservation is no
 * promise (job 4, ahead of it, takes two of those nodes at 100), so it
 * is not recorded as job 5's first shadow. */
static const char _next_pivot_swf[] =
	"1 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 0 -1 20 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 10 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"5 25 -1 10 3 -1 -1 3 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"6 26 -1 500 1 -1 -1 1 500 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void test_the_job_after_a_waiting_one_is_the_pivot(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	int j5, j6;

	(void)state;
	_setup_text(&s, _next_pivot_swf, "4");
	run = _run_patient(&s, &a);
	j5 = _index_of(&s, "5");
	j6 = _index_of(&s, "6");
	assert_true(run->first_shadow[j5] == RP_NEVER ||
		    run->first_shadow[j5] >= run->start[j5]);
	assert_true(run->start[j6] == 26);
	assert_int_equal(run->pool[run->node_off[j6]], 3);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* 2 nodes. At t=100 two 2-node jobs wait: job 11 (submitted at 10, asks
 * 1000 s) and job 12 (at 20, asks 10 s). WFP: (90/1000)^3*2 = 0.0015
 * against (80/10)^3*2 = 1024, so job 12 goes first. */
static const char _wfp_swf[] =
	"10 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"11 10 -1 10 2 -1 -1 2 1000 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"12 20 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void test_wfp_orders_by_wait_over_request_cubed(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;

	(void)state;
	_setup_text(&s, _wfp_swf, "2");
	a = _alloc(&s, LOC_STRATEGY_FIRSTFIT, RP_W_NONE);
	run = _run(&s, a, RP_SCHED_FCFS, RP_PRIO_FCFS, RP_W_NONE);
	assert_true(_start_of(&s, run, "11") == 100);
	assert_true(_start_of(&s, run, "12") == 110);
	rp_run_destroy(run);
	run = _run(&s, a, RP_SCHED_FCFS, RP_PRIO_WFP, RP_W_NONE);
	assert_true(_start_of(&s, run, "12") == 100);
	assert_true(_start_of(&s, run, "11") == 110);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

static void test_jobs_too_large_or_unplaceable_are_reported(void **state)
{
	static const char swf[] =
		"31 0 -1 10 81 -1 -1 81 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
		"32 1 -1 10 7 -1 -1 7 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
		"33 2 -1 10 8 -1 -1 8 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
		"34 3 -1 10 5 -1 -1 5 10 -1 1 1 -1 -1 -1 -1 -1 -1\n";
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	loc_error_t err;

	(void)state;
	_setup(&s, loc_trace_parse(swf, strlen(swf), "x.swf", NULL, &err),
	       "5x4x4", "yes", RP_ROUND_NONE, 0);
	assert_int_equal(s.w->too_large, 1);
	a = _alloc(&s, LOC_STRATEGY_BOX, RP_W_NONE);
	run = _run(&s, a, RP_SCHED_EASY, RP_PRIO_FCFS, RP_W_NONE);
	assert_int_equal(run->reject[_index_of(&s, "31")], RP_REJECT_TOO_LARGE);
	/* no box of 7 points in 5x4x4 */
	assert_int_equal(run->reject[_index_of(&s, "32")], RP_REJECT_NO_FIT);
	assert_int_equal(run->reject[_index_of(&s, "33")], RP_OK);
	assert_int_equal(run->reject[_index_of(&s, "34")], RP_OK);
	assert_int_equal(run->rejected_no_fit, 1);
	assert_int_equal(run->started, 2);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);

	/* rounding up to powers of two makes them fit */
	_setup(&s, loc_trace_parse(swf, strlen(swf), "x.swf", NULL, &err),
	       "5x4x4", "yes", RP_ROUND_POW2, 0);
	assert_int_equal(s.w->jobs[1].nodes, 8);
	assert_int_equal(s.w->jobs[3].nodes, 8);
	assert_int_equal(s.w->too_large, 1);
	_teardown(&s);
}

static void test_run_check_catches_broken_runs(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	loc_error_t err;
	int c = 0, d = 0;

	(void)state;
	_setup_text(&s, _easy_swf, "4");
	a = _alloc(&s, LOC_STRATEGY_FREELIST, RP_W_NONE);
	run = _run(&s, a, RP_SCHED_EASY, RP_PRIO_FCFS, RP_W_NONE);
	c = _index_of(&s, "3");
	d = _index_of(&s, "4");
	/* job 4 on job 3's node while job 3 runs */
	run->start[d] -= 147; /* now 3, its submit time */
	run->end[d] -= 147;
	run->pool[run->node_off[d]] = run->pool[run->node_off[c]];
	assert_int_equal(rp_run_check(s.w, run, false, &err), LOC_EINVAL);
	assert_non_null(strstr(err.text, "two jobs"));
	/* before its submit */
	run->start[d] = 0;
	run->end[d] = 200;
	assert_int_equal(rp_run_check(s.w, run, false, &err), LOC_EINVAL);
	rp_run_destroy(run);
	/* after its reservation */
	run = _run(&s, a, RP_SCHED_EASY, RP_PRIO_FCFS, RP_W_NONE);
	run->first_shadow[_index_of(&s, "2")] = 99;
	assert_int_equal(rp_run_check(s.w, run, true, &err), LOC_EINVAL);
	assert_non_null(strstr(err.text, "reservation"));
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* ===================================================================== */
/* Loss of capacity                                                      */
/* ===================================================================== */

static void test_loss_of_capacity_by_hand(void **state)
{
	/* N = 4. A: 2 nodes 0-10. B: 3 nodes, waits 0-10, runs 10-20.
	 * C: 1 node, waits 0-10, runs 10-12. During [0,10) 2 nodes idle
	 * and C (1 < 2) waits: 20 node-seconds lost of 4 x 20. */
	int64_t sub[] = { 0, 0, 0 }, st[] = { 0, 10, 10 },
		en[] = { 10, 20, 12 };
	int sz[] = { 2, 3, 1 };
	/* Only a job of exactly the idle size waits: counted only with le. */
	int64_t sub2[] = { 0, 0 }, st2[] = { 0, 10 }, en2[] = { 10, 20 };
	int sz2[] = { 2, 2 };
	/* Nothing small enough waits: no loss (seed 004's 512/1024 case). */
	int64_t sub3[] = { 0, 0 }, st3[] = { 0, 10 }, en3[] = { 10, 20 };
	int sz3[] = { 3, 4 };

	(void)state;
	assert_true(fabs(rp_loss_of_capacity(4, 3, sub, st, en, sz, false) -
			 0.25) < 1e-12);
	assert_true(rp_loss_of_capacity(4, 2, sub2, st2, en2, sz2, false) == 0);
	assert_true(fabs(rp_loss_of_capacity(4, 2, sub2, st2, en2, sz2, true) -
			 2.0 * 10 / (4 * 20)) < 1e-12);
	assert_true(rp_loss_of_capacity(4, 2, sub3, st3, en3, sz3, true) == 0);
	assert_true(rp_loss_of_capacity(4, 0, NULL, NULL, NULL, NULL, false) ==
		    0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_easy_backfills_only_what_keeps_the_reservation),
		cmocka_unit_test(test_wfp_orders_by_wait_over_request_cubed),
		cmocka_unit_test(test_compact_wait_is_bounded),
		cmocka_unit_test(test_a_plan_window_lets_more_jobs_backfill),
		cmocka_unit_test(test_a_patient_pivot_reserves_its_compact_set),
		cmocka_unit_test(test_a_waiting_job_reserves_nothing),
		cmocka_unit_test(test_a_waiting_job_claims_a_region),
		cmocka_unit_test(test_the_job_after_a_waiting_one_is_the_pivot),
		cmocka_unit_test(
			test_jobs_too_large_or_unplaceable_are_reported),
		cmocka_unit_test(test_run_check_catches_broken_runs),
		cmocka_unit_test(test_loss_of_capacity_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
