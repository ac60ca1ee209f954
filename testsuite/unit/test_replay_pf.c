/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_pf.c - paired filling (PF, seed 004) in locality-replay's
 * simulator, on small hand-made SWF queues with known schedules: the
 * partner started with its job, a region paired only when the partner
 * takes it, the region held until the partner's turn as select/locality
 * holds it, and the hold keeping lower-priority jobs off.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "loc_conf.h"
#include "loc_trace.h"
#include "rp_machine.h"
#include "rp_sim.h"

#include "loc_test_replay.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pf_with_job_starts_the_partner_with_it),
		cmocka_unit_test(test_pf_holds_the_region_for_the_partners_turn),
		cmocka_unit_test(test_pf_hold_keeps_a_lower_priority_job_off),
		cmocka_unit_test(test_pf_pairs_only_a_region_the_partner_takes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
