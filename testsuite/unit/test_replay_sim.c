/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_sim.c - locality-replay's simulator on small hand-made SWF
 * queues with known schedules: FCFS, EASY and its reservations, WFP, PF,
 * CompactWait, patient jobs and their claims, PlanWindow, node weights,
 * rejected jobs, rp_run_check on broken runs, and loss of capacity by
 * hand. Replays of real traces are in test_replay_real.c.
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

static void _setup_text(setup_t *s, const char *swf, const char *grid)
{
	loc_error_t err;

	_setup(s, loc_trace_parse(swf, strlen(swf), "hand.swf", NULL, &err),
	       grid, "no", RP_ROUND_NONE, 0);
}

/* Start time of the job with trace id `id`. */
static int64_t _start_of(const setup_t *s, const rp_run_t *run, const char *id)
{
	for (int j = 0; j < s->w->njobs; j++)
		if (!strcmp(s->trace->jobs[s->w->jobs[j].trace_index].id, id))
			return run->start[j];
	fail_msg("no job %s", id);
	return -2;
}

static int _index_of(const setup_t *s, const char *id)
{
	for (int j = 0; j < s->w->njobs; j++)
		if (!strcmp(s->trace->jobs[s->w->jobs[j].trace_index].id, id))
			return j;
	return -1;
}

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

/* 4 nodes in a line. Job 20 holds them all until t=10, when the queue
 * is job 21 (2 nodes), job 22 (4 nodes), job 23 (2 nodes). FCFS starts
 * 21 and blocks at 22. PF as seed 004 has it (Alg. 2, pf_with_job) sees
 * 21's idle neighbour of 2 nodes and starts 23 there with it. */
static const char _pf_swf[] =
	"20 0 -1 10 4 -1 -1 4 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"21 1 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"22 2 -1 100 4 -1 -1 4 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"23 3 -1 90 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n";

/* A run of the queue in mode with PF's hold of hold seconds, or (hold <
 * 0) PF starting the partner with its job. */
static rp_run_t *_pf_held(const setup_t *s, loc_alloc_t *a, rp_sched_t sched,
			  rp_wmode_t mode, int64_t hold)
{
	rp_sim_opts_t o = _opts(sched, RP_PRIO_FCFS, mode);

	o.pf_hold = hold < 0 ? 0 : hold;
	o.pf_with_job = hold < 0;
	return _run_with(s, a, &o);
}

/* A PF run of the FCFS queue in mode, the partner started with its job. */
static rp_run_t *_pf_with_job(const setup_t *s, loc_alloc_t *a,
			      rp_wmode_t mode)
{
	return _pf_held(s, a, RP_SCHED_FCFS, mode, -1);
}

static void test_pf_with_job_starts_the_partner_with_it(void **state)
{
	static const rp_wmode_t modes[] = { RP_W_PF, RP_W_COMBO, RP_W_ADJEST };
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;

	(void)state;
	_setup_text(&s, _pf_swf, "4");
	a = _alloc(&s, LOC_STRATEGY_FIRSTFIT, RP_W_NONE);
	run = _run(&s, a, RP_SCHED_FCFS, RP_PRIO_FCFS, RP_W_NONE);
	assert_true(_start_of(&s, run, "21") == 10);
	assert_true(_start_of(&s, run, "23") == 210);
	assert_int_equal(run->pf_pairs, 0);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int j1 = _index_of(&s, "23");

		a = _alloc(&s, LOC_STRATEGY_FIRSTFIT, modes[i]);
		run = _pf_with_job(&s, a, modes[i]);
		assert_true(_start_of(&s, run, "21") == 10);
		assert_true(_start_of(&s, run, "23") == 10);
		assert_true(run->pf_partner[j1]);
		assert_int_equal(run->pf_pairs, 1);
		/* the pair fills the machine: 21 on nodes 0-1, 23 on 2-3 */
		assert_int_equal(run->pool[run->node_off[j1]], 2);
		assert_true(_start_of(&s, run, "22") == 110);
		rp_run_destroy(run);
		loc_alloc_destroy(a);
	}
	_teardown(&s);
}

/* PF under CompactWait: _pf_swf's partner takes its compact region
 * (1 hop, its reference) with the job. On a line of 7 whose nodes 0, 4
 * and 6 are busy to 1000 (jobs 1-6 arrive one a second, so none waits
 * for PF to pair it), the region left for 23 beside 21's pair {1, 2} is
 * nodes 3 and 5, 2 hops apart: 23's CompactWait (tolerance 0.5, so at
 * most 1.5 hops) would decline it, so PF pairs it only without
 * CompactWait. */
static const char _pf_scattered_swf[] =
	"1 0 -1 1000 1 -1 -1 1 1000 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 1 -1 9 2 -1 -1 2 9 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 2 -1 8 1 -1 -1 1 8 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 3 -1 1000 1 -1 -1 1 1000 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"5 4 -1 6 1 -1 -1 1 6 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"6 5 -1 1000 1 -1 -1 1 1000 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"21 6 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"22 7 -1 100 7 -1 -1 7 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"23 8 -1 90 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n";

/* A PF run of the FCFS queue with CompactWait=wait (tolerance 0.5). */
static rp_run_t *_pf_run(const setup_t *s, int64_t wait, loc_alloc_t **a)
{
	loc_policy_t pol = s->m->conf->policy;
	loc_error_t err;

	pol.strategy = LOC_STRATEGY_FREELIST;
	pol.walltime = rp_wmode_policy(RP_W_PF);
	pol.compact_wait = wait;
	pol.compact_tolerance = 0.5;
	*a = loc_alloc_create(s->m->grid, &pol, &err);
	assert_non_null(*a);
	return _pf_with_job(s, *a, RP_W_PF);
}

static void test_pf_pairs_only_a_region_the_partner_takes(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	int j23;

	(void)state;
	_setup_text(&s, _pf_swf, "4");
	run = _pf_run(&s, 50, &a);
	assert_int_equal(run->pf_pairs, 1);
	assert_true(_start_of(&s, run, "23") == 10);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);

	_setup_text(&s, _pf_scattered_swf, "7");
	j23 = _index_of(&s, "23");
	run = _pf_run(&s, 0, &a);
	assert_true(_start_of(&s, run, "21") == 10);
	assert_int_equal(run->pf_pairs, 1);
	assert_true(_start_of(&s, run, "23") == 10);
	assert_int_equal(run->pool[run->node_off[j23]], 3);
	assert_int_equal(run->pool[run->node_off[j23] + 1], 5);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	run = _pf_run(&s, 50, &a);
	assert_true(_start_of(&s, run, "21") == 10);
	assert_int_equal(run->pf_pairs, 0);
	assert_false(run->pf_partner[j23]);
	assert_true(_start_of(&s, run, "23") > 1000);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* PF as select/locality does it: the region is held for the partner
 * until its turn. _pf_swf with job 22 a 2-node job of 10 s ahead of 23:
 * PF still chooses 23 (walltime 100, 21's own), but 22 outranks it and
 * takes the region at 10; at 23's turn its region is gone, so is its
 * hold, and it starts at 20 where 22 was. */
static const char _pf_outranked_swf[] =
	"20 0 -1 10 4 -1 -1 4 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"21 1 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"22 2 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"23 3 -1 90 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n";

/* EASY: at 10 job 21 starts on nodes 0-1 and PF holds 2-3 for 23
 * (walltime 150: closer to 21's 100 than 24's 40). 22 (4 nodes) is the
 * pivot, reserved at 110 on all four; 23 runs past that, so its turn
 * offers it only unreserved nodes, none: its hold ends, and 24 (40 s)
 * backfills on 2-3 at 10, as with no PF. A hold kept to its 300 s
 * would have kept 24 off until after 22 (the replay found such a hold
 * delaying a reserved job on LLNL-Thunder). */
static const char _pf_held_swf[] =
	"20 0 -1 10 4 -1 -1 4 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"21 1 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"22 2 -1 100 4 -1 -1 4 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"23 3 -1 150 2 -1 -1 2 150 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"24 4 -1 40 2 -1 -1 2 40 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void test_pf_holds_the_region_for_the_partners_turn(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	int j23;

	(void)state;
	/* _pf_swf under EASY: 22 is the pivot (110), 23 backfills at its
	 * turn in the same pass and takes its region; with PFHoldTime=0
	 * there is no hold, and it takes the same nodes as its own choice */
	_setup_text(&s, _pf_swf, "4");
	j23 = _index_of(&s, "23");
	a = _alloc(&s, LOC_STRATEGY_FIRSTFIT, RP_W_PF);
	run = _pf_held(&s, a, RP_SCHED_EASY, RP_W_PF, 300);
	assert_int_equal(run->pf_pairs, 1);
	assert_true(_start_of(&s, run, "23") == 10);
	assert_int_equal(run->pool[run->node_off[j23]], 2);
	assert_true(run->pf_partner[j23]);
	rp_run_destroy(run);
	run = _pf_held(&s, a, RP_SCHED_EASY, RP_W_PF, 0);
	assert_int_equal(run->pf_pairs, 1);
	assert_true(_start_of(&s, run, "23") == 10);
	assert_int_equal(run->pool[run->node_off[j23]], 2);
	assert_false(run->pf_partner[j23]);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);

	_setup_text(&s, _pf_outranked_swf, "4");
	j23 = _index_of(&s, "23");
	a = _alloc(&s, LOC_STRATEGY_FIRSTFIT, RP_W_PF);
	run = _pf_held(&s, a, RP_SCHED_FCFS, RP_W_PF, 300);
	assert_int_equal(run->pf_pairs, 1);
	assert_true(_start_of(&s, run, "21") == 10);
	assert_true(_start_of(&s, run, "22") == 10);
	assert_int_equal(run->pool[run->node_off[_index_of(&s, "22")]], 2);
	assert_true(_start_of(&s, run, "23") == 20);
	assert_int_equal(run->pool[run->node_off[j23]], 2);
	assert_false(run->pf_partner[j23]);
	rp_run_destroy(run);
	/* seed 004's PF starts 23 at once; 22 then waits for a pair */
	run = _pf_with_job(&s, a, RP_W_PF);
	assert_true(_start_of(&s, run, "23") == 10);
	assert_true(run->pf_partner[j23]);
	assert_true(_start_of(&s, run, "22") == 100);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);

	_setup_text(&s, _pf_held_swf, "4");
	j23 = _index_of(&s, "23");
	a = _alloc(&s, LOC_STRATEGY_FIRSTFIT, RP_W_PF);
	run = _pf_held(&s, a, RP_SCHED_EASY, RP_W_PF, 300);
	assert_true(_start_of(&s, run, "21") == 10);
	assert_true(_start_of(&s, run, "24") == 10);
	assert_int_equal(run->pool[run->node_off[_index_of(&s, "24")]], 2);
	assert_true(_start_of(&s, run, "22") == 110);
	assert_true(run->pf_pairs >= 1);
	assert_false(run->pf_partner[j23]);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* Conservative backfilling on a line of 6: job 10 runs on 0-1 until 100;
 * 11 (6 nodes) is planned at 100; 12 (2 nodes, 300 s) cannot start
 * before it, and is planned at 110. 13 (2 nodes, 50 s) starts on 2-3 at
 * 3, and PF holds the idle 4-5 for 12: a partner ahead of the job that
 * found its region (under EASY it cannot be: its turn, before 13's,
 * would have taken those nodes). 14 (1 node, 20 s), after 12 in the
 * queue, tries in the same pass and is kept off 4-5; it starts when 13
 * ends, on 2, once 12's turn has ended the hold. With PFHoldTime=0 it
 * starts at 3 on 4. */
static const char _pf_ahead_swf[] =
	"10 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"11 1 -1 10 6 -1 -1 6 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"12 2 -1 300 2 -1 -1 2 300 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"13 3 -1 50 2 -1 -1 2 50 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"14 3 -1 20 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n";

static void test_pf_hold_keeps_a_lower_priority_job_off(void **state)
{
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;
	int j14;

	(void)state;
	_setup_text(&s, _pf_ahead_swf, "6");
	j14 = _index_of(&s, "14");
	a = _alloc(&s, LOC_STRATEGY_FIRSTFIT, RP_W_PF);
	run = _pf_held(&s, a, RP_SCHED_CONSERVATIVE, RP_W_PF, 300);
	assert_true(_start_of(&s, run, "13") == 3);
	assert_int_equal(run->pool[run->node_off[_index_of(&s, "13")]], 2);
	assert_int_equal(run->pf_pairs, 1);
	assert_true(_start_of(&s, run, "14") == 53);
	assert_int_equal(run->pool[run->node_off[j14]], 2);
	assert_true(_start_of(&s, run, "11") == 100);
	assert_true(_start_of(&s, run, "12") == 110);
	rp_run_destroy(run);
	run = _pf_held(&s, a, RP_SCHED_CONSERVATIVE, RP_W_PF, 0);
	assert_true(_start_of(&s, run, "14") == 3);
	assert_int_equal(run->pool[run->node_off[j14]], 4);
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

/* A line of 8 nodes, the first four of Weight=100: jobs 1 and 2 (two
 * nodes each) take the light nodes 4-7, job 3 (three nodes) finds no
 * light node free and takes the heavy 0-2; without weights, freelist
 * takes 0-1, 2-3 and 4-6. */
static const char _weights_swf[] =
	"1 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 0 -1 100 3 -1 -1 3 100 -1 1 1 -1 -1 -1 -1 -1 -1\n";

/* The first node of each of the three jobs, with the given weights. */
static void _weighted_firsts(const char *weights, loc_node_weight_t rule,
			     int firsts[3])
{
	rp_machine_opts_t mo = { .grid = "8", .torus = "no" };
	rp_workload_opts_t wo = { 0 };
	loc_policy_t pol;
	rp_sim_opts_t o;
	loc_error_t err;
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;

	if (weights) {
		mo.node_weights[0] = weights;
		mo.nnode_weights = 1;
	}
	s.trace = loc_trace_parse(_weights_swf, strlen(_weights_swf),
				  "hand.swf", NULL, &err);
	assert_non_null(s.trace);
	s.m = rp_machine_create(&mo, s.trace, &err);
	assert_non_null(s.m);
	assert_true(!weights || s.m->weight);
	wo.machine_nodes = s.m->nnodes;
	s.w = rp_workload_create(s.trace, &wo, &err);
	assert_non_null(s.w);
	pol = s.m->conf->policy;
	pol.strategy = LOC_STRATEGY_FREELIST;
	pol.node_weight = rule;
	a = loc_alloc_create(s.m->grid, &pol, &err);
	assert_non_null(a);
	rp_sim_opts_init(&o);
	o.node_weight = s.m->weight;
	run = rp_sim_run(s.w, a, &o, &err);
	assert_non_null(run);
	assert_int_equal(rp_run_check(s.w, run, true, &err), 0);
	for (int j = 0; j < 3; j++) {
		assert_int_equal(run->start[j], 0);
		firsts[j] = run->pool[run->node_off[j]];
	}
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

static void test_node_weights_use_the_light_tier_first(void **state)
{
	int f[3];

	(void)state;
	_weighted_firsts("[0-3]=100", LOC_NODE_WEIGHT_TIERS, f);
	assert_int_equal(f[0], 4);
	assert_int_equal(f[1], 6);
	assert_int_equal(f[2], 0);
	_weighted_firsts(NULL, LOC_NODE_WEIGHT_TIERS, f);
	assert_int_equal(f[0], 0);
	assert_int_equal(f[1], 2);
	assert_int_equal(f[2], 4);
	/* NodeWeight=ignore: locality alone */
	_weighted_firsts("[0-3]=100", LOC_NODE_WEIGHT_IGNORE, f);
	assert_int_equal(f[0], 0);
	assert_int_equal(f[1], 2);
	assert_int_equal(f[2], 4);
}

/* --node-weight's hostile input: each is refused with a message. */
static void test_node_weight_specs_are_checked(void **state)
{
	static const char *bad[] = { "[0-3]", "=5", "[0-3]=", "[0-3]=x",
				     "[0-3]=-1", "[0-3]=4294967296",
				     "[0-8]=2", "n1=2", "[3-1]=2",
				     "[0-3]=1e3" };
	rp_machine_opts_t mo = { .grid = "8", .torus = "no" };
	loc_error_t err;
	loc_trace_t *trace;
	rp_machine_t *m;

	(void)state;
	trace = loc_trace_parse(_weights_swf, strlen(_weights_swf), "hand.swf",
				NULL, &err);
	assert_non_null(trace);
	mo.nnode_weights = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mo.node_weights[0] = bad[i];
		m = rp_machine_create(&mo, trace, &err);
		if (m)
			fail_msg("--node-weight '%s' was taken", bad[i]);
		assert_true(err.code < 0 && err.text[0]);
	}
	/* a later spec overrides an earlier one; others weigh 1 */
	mo.node_weights[0] = "[0-3]=100";
	mo.node_weights[1] = "3=4294967295";
	mo.nnode_weights = 2;
	m = rp_machine_create(&mo, trace, &err);
	assert_non_null(m);
	assert_true(m->weight[0] == 100 && m->weight[2] == 100);
	assert_true(m->weight[3] == 4294967295u && m->weight[4] == 1);
	rp_machine_destroy(m);
	loc_trace_destroy(trace);
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
		cmocka_unit_test(test_pf_with_job_starts_the_partner_with_it),
		cmocka_unit_test(test_pf_holds_the_region_for_the_partners_turn),
		cmocka_unit_test(test_pf_hold_keeps_a_lower_priority_job_off),
		cmocka_unit_test(test_pf_pairs_only_a_region_the_partner_takes),
		cmocka_unit_test(test_node_weights_use_the_light_tier_first),
		cmocka_unit_test(test_node_weight_specs_are_checked),
		cmocka_unit_test(
			test_jobs_too_large_or_unplaceable_are_reported),
		cmocka_unit_test(test_run_check_catches_broken_runs),
		cmocka_unit_test(test_loss_of_capacity_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
