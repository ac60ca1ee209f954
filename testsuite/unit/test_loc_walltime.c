/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_walltime.c - walltime awareness (seed 004): SL scores by hand,
 * the SL tie-break inside loc_alloc_select(), PF partner choice and idle
 * neighbour regions, soft holds, AdjEst on a hand history.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "loc_test_select.h"
#include "loc_test_util.h"
#include "loc_strategy.h"
#include "loc_walltime.h"

/* ------------------------------------------------------------------ */
/* SL                                                                  */
/* ------------------------------------------------------------------ */

/* 1-D mesh of 6: nodes 0 (ends 100), 3 (ends 300), 5 (ends 50) busy;
 * node 1 finished at 5 (before now = 10). */
static void test_sl_score_by_hand(void **state)
{
	int dims[1] = { 6 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	int64_t until[6] = { 100, 5, 0, 300, 0, 50 };
	loc_view_t view = { .busy_until = until, .now = 10 };
	int p12[2] = { 1, 2 }, p4[1] = { 4 }, p24[2] = { 2, 4 }, p2[1] = { 2 };

	(void)state;
	/* {1,2}: neighbours 0 (100) and 3 (300): |100-200| and |300-200|. */
	assert_true(fabs(loc_sl_score(g, &view, 200, p12, 2) - 100) < 1e-9);
	/* {4}: 3 (300) and 5 (50): (100 + 150) / 2. */
	assert_true(fabs(loc_sl_score(g, &view, 200, p4, 1) - 125) < 1e-9);
	/* {2,4}: 3 counts once although next to both: (100 + 150) / 2. */
	assert_true(fabs(loc_sl_score(g, &view, 200, p24, 2) - 125) < 1e-9);
	/* {2}: neighbours 1 (ended) and 3: only 3. */
	assert_true(fabs(loc_sl_score(g, &view, 1000, p2, 1) - 700) < 1e-9);
	/* Nothing busy around, or nothing known. */
	until[3] = 0;
	assert_true(loc_sl_score(g, &view, 200, p2, 1) < 0);
	until[3] = 300;
	assert_true(loc_sl_score(g, &view, 0, p12, 2) < 0);
	view.busy_until = NULL;
	assert_true(loc_sl_score(g, &view, 200, p12, 2) < 0);
	loc_grid_destroy(g);
}

/* Nodes sharing a point are neighbours at 0 hops; a node of the set at
 * a busy point does not count itself. */
static void test_sl_score_counts_nodes_sharing_a_point(void **state)
{
	int dims[2] = { 2, 2 };
	loc_grid_t *g = tu_grid(2, dims, true, 2);
	int64_t until[8] = { 0 };
	loc_view_t view = { .busy_until = until, .now = 0 };
	int set[1] = { 0 };

	(void)state;
	until[1] = 400; /* same point as node 0 */
	until[7] = 100; /* point (1,1): two hops, not a neighbour */
	assert_true(fabs(loc_sl_score(g, &view, 300, set, 1) - 100) < 1e-9);
	until[2] = 200; /* point (0,1): one hop */
	assert_true(fabs(loc_sl_score(g, &view, 300, set, 1) - 100) < 1e-9);
	until[3] = 500;
	/* (100 + 100 + 200) / 3 */
	assert_true(fabs(loc_sl_score(g, &view, 300, set, 1) - 400.0 / 3) <
		    1e-9);
	loc_grid_destroy(g);
}

/*
 * SL through the allocator: on a 2x6 mesh with busy columns y = 0 (ends
 * at 100) and y = 5 (ends at 500), the box strategy finds two equally
 * good 2x2 boxes (least blocking: each at one end of the free 2x4
 * region). Without SL the first wins; with SL the one whose neighbours
 * end closest to the job's expected end.
 */
static void test_sl_tie_break_in_the_allocator(void **state)
{
	int dims2[2] = { 2, 6 }, dims1[1] = { 7 }, out[12];
	loc_grid_t *g = tu_grid(2, dims2, false, 1);
	loc_alloc_t *base = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);
	loc_alloc_t *sl = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_SL);
	uint8_t cand[12];
	int64_t until[12] = { 0 };
	loc_view_t view = { .candidate = cand, .busy_until = until, .now = 0 };
	loc_request_t req = { .nodes = 4, .expected_end = 450 };
	loc_error_t err;

	(void)state;
	memset(cand, 1, sizeof(cand));
	for (int x = 0; x < 2; x++) {
		cand[x * 6 + 0] = cand[x * 6 + 5] = 0;
		until[x * 6 + 0] = 100;
		until[x * 6 + 5] = 500;
	}
	assert_int_equal(loc_alloc_select(base, &req, &view, out, &err), 0);
	assert_int_equal(out[0], 1); /* y 1..2 */
	assert_int_equal(out[3], 8);
	assert_int_equal(loc_alloc_select(sl, &req, &view, out, &err), 0);
	assert_int_equal(out[0], 3); /* y 3..4, next to the job ending at 500 */
	assert_int_equal(out[1], 4);
	assert_int_equal(out[2], 9);
	assert_int_equal(out[3], 10);
	req.expected_end = 120;
	assert_int_equal(loc_alloc_select(sl, &req, &view, out, &err), 0);
	assert_int_equal(out[0], 1);
	/* Unknown end: no tie-break. */
	req.expected_end = 0;
	assert_int_equal(loc_alloc_select(sl, &req, &view, out, &err), 0);
	assert_int_equal(out[0], 1);
	loc_alloc_destroy(base);
	loc_alloc_destroy(sl);
	loc_grid_destroy(g);

	/* 1-D: 0 ends at 100, 6 at 500; {1,2} and {4,5} tie. */
	g = tu_grid(1, dims1, false, 1);
	sl = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_COMBO);
	memset(cand, 1, 7);
	memset(until, 0, sizeof(until));
	cand[0] = cand[6] = 0;
	until[0] = 100;
	until[6] = 500;
	req.nodes = 2;
	req.expected_end = 480;
	assert_int_equal(loc_alloc_select(sl, &req, &view, out, &err), 0);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 5);
	req.expected_end = 90;
	assert_int_equal(loc_alloc_select(sl, &req, &view, out, &err), 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	loc_alloc_destroy(sl);
	loc_grid_destroy(g);
}

/* ------------------------------------------------------------------ */
/* PF                                                                  */
/* ------------------------------------------------------------------ */

static void test_pf_partner_pick(void **state)
{
	loc_pf_job_t q[] = {
		{ 1, 4, 1000 }, { 2, 8, 3600 }, { 3, 4, 3000 },
		{ 4, 4, 3400 }, { 5, 4, 3800 }, { 6, 4, 3600 },
	};

	(void)state;
	/* Same size and closest walltime: 3400 and 3800 tie at 200 from
	 * 3600 after job 6 (exactly 3600) is skipped as self. */
	assert_int_equal(loc_pf_pick_partner(q, 6, -1, 4, 3600), 5);
	assert_int_equal(loc_pf_pick_partner(q, 6, 5, 4, 3600), 3);
	/* Size 8 has one job; it is self: none. */
	assert_int_equal(loc_pf_pick_partner(q, 6, -1, 8, 10), 1);
	assert_int_equal(loc_pf_pick_partner(q, 6, 1, 8, 10), -1);
	assert_int_equal(loc_pf_pick_partner(q, 6, -1, 16, 10), -1);
	assert_int_equal(loc_pf_pick_partner(q, 0, -1, 4, 10), -1);
	/* Earliest wins exact ties. */
	q[4].walltime = 3400;
	assert_int_equal(loc_pf_pick_partner(q, 6, 5, 4, 3400), 3);
}

/* True when some node of region is at most one hop from some placed. */
static bool touches(const loc_grid_t *g, const int *region, int k,
		    const int *placed, int kp)
{
	for (int i = 0; i < k; i++)
		for (int j = 0; j < kp; j++)
			if (loc_grid_node_hops(g, region[i], placed[j]) <= 1)
				return true;
	return false;
}

static void test_pf_neighbor_region(void **state)
{
	int dims1[1] = { 12 }, dims2[2] = { 4, 4 }, out[16];
	loc_grid_t *g = tu_grid(1, dims1, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);
	uint8_t cand[16];
	loc_view_t view = { .candidate = cand };
	loc_error_t err;
	int placed[4] = { 4, 5 }, corner[4] = { 0, 1, 4, 5 };

	(void)state;
	/* The placed nodes are still candidates in the map: never chosen. */
	memset(cand, 1, sizeof(cand));
	assert_int_equal(loc_pf_neighbor_region(a, &view, placed, 2, out, &err),
			 0);
	assert_true(out[0] != 4 && out[0] != 5 && out[1] != 4 && out[1] != 5);
	assert_int_equal(out[1], out[0] + 1);
	assert_true(touches(g, out, 2, placed, 2));
	/* Walled in by busy nodes 3 and 6: no touching region. */
	cand[3] = cand[6] = 0;
	assert_int_equal(loc_pf_neighbor_region(a, &view, placed, 2, out, &err),
			 LOC_ENOFIT);
	/* One idle neighbour (3), then busy 2 and 6: the only boxes of 2
	 * within reach ({7,8}, {8,9}, {0,1}) do not touch. */
	cand[2] = 0;
	cand[3] = 1;
	assert_int_equal(loc_pf_neighbor_region(a, &view, placed, 2, out, &err),
			 LOC_ENOFIT);
	cand[2] = 1;
	/* Only one idle neighbour: the box of 3 grows away from it. */
	cand[3] = 1;
	assert_int_equal(loc_pf_neighbor_region(a, &view, placed, 3, out, &err),
			 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[2], 3);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);

	/* 2-D: a 2x2 job in a corner of a 4x4 mesh; its partner's 2x2 box
	 * must touch it. */
	g = tu_grid(2, dims2, false, 1);
	a = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);
	memset(cand, 1, sizeof(cand));
	for (int i = 0; i < 4; i++)
		cand[corner[i]] = 0;
	assert_int_equal(loc_pf_neighbor_region(a, &view, corner, 4, out, &err),
			 0);
	tu_assert_placement(cand, 16, out, 4);
	assert_true(touches(g, out, 4, corner, 4));
	assert_int_equal(loc_metrics_total_pair_hops(g, out, 4), 8);
	/* MBS too: non-contiguous is fine, touching is not optional. */
	loc_alloc_destroy(a);
	a = make_alloc(g, LOC_STRATEGY_MBS, LOC_WALLTIME_NONE);
	assert_int_equal(loc_pf_neighbor_region(a, &view, corner, 4, out, &err),
			 0);
	tu_assert_placement(cand, 16, out, 4);
	assert_true(touches(g, out, 4, corner, 4));
	/* Fewer idle nodes than the partner needs. */
	memset(cand, 0, sizeof(cand));
	cand[2] = cand[8] = cand[15] = 1;
	assert_int_equal(loc_pf_neighbor_region(a, &view, corner, 4, out, &err),
			 LOC_ENOFIT);
	/* Enough idle nodes, none touching the placement. */
	cand[10] = 1;
	cand[2] = cand[8] = 0;
	cand[11] = cand[14] = 1;
	assert_int_equal(loc_pf_neighbor_region(a, &view, corner, 4, out, &err),
			 LOC_ENOFIT);
	assert_int_equal(loc_pf_neighbor_region(a, &view, corner, 0, out, &err),
			 LOC_EINVAL);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* ------------------------------------------------------------------ */
/* Holds                                                               */
/* ------------------------------------------------------------------ */

/*
 * The PF region is a compact neighbour, not a thin shell around the job:
 * on an empty 8x8 torus mm places 6 nodes around the corner point (26
 * total pairwise hops); the partner region beside it must be as tight as
 * a 2x3 block (25), where the nodes one hop from the job alone (a shell)
 * cost 42.
 */
static void test_pf_region_is_compact(void **state)
{
	const int dims[2] = { 8, 8 };
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	loc_policy_t pol;
	loc_alloc_t *a;
	uint8_t cand[64];
	int placed[6], region[6];
	loc_request_t req = { .nodes = 6 };
	loc_view_t view = { .candidate = cand };
	bool touches = false;

	(void)state;
	loc_policy_init(&pol);
	pol.strategy = LOC_STRATEGY_MM;
	a = loc_alloc_create(g, &pol, NULL);
	assert_non_null(a);
	memset(cand, 1, sizeof(cand));
	assert_int_equal(loc_alloc_select(a, &req, &view, placed, NULL), 0);
	assert_int_equal(loc_metrics_total_pair_hops(g, placed, 6), 26);
	for (int i = 0; i < 6; i++)
		cand[placed[i]] = 0;
	assert_int_equal(loc_pf_neighbor_region(a, &view, placed, 6, region,
						NULL),
			 0);
	tu_assert_placement(cand, 64, region, 6);
	assert_true(loc_metrics_total_pair_hops(g, region, 6) <= 25);
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			touches |= loc_grid_node_hops(g, region[i], placed[j]) == 1;
	assert_true(touches);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

static void test_holds(void **state)
{
	loc_holds_t *h = loc_holds_create(10);
	uint8_t in[10], out[10];
	int held, n1[3] = { 1, 2, 3 }, n2[2] = { 3, 7 }, bad[1] = { 10 };

	(void)state;
	assert_non_null(h);
	memset(in, 1, sizeof(in));
	in[2] = 0; /* busy anyway: not counted as cleared */
	assert_int_equal(loc_holds_add(h, 7, 5, n1, 3, 100), 0);
	assert_int_equal(loc_holds_count(h, &held), 1);
	assert_int_equal(held, 3);

	/* A lower-priority job is kept off; an equal one queued after the
	 * partner (a higher id) too, not one queued before it; job id 0
	 * (no job) meets every hold. */
	assert_int_equal(loc_holds_filter(h, 9, 3, 50, in, out), 2);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[3], 0);
	assert_int_equal(out[4], 1);
	assert_int_equal(loc_holds_filter(h, 9, 5, 50, in, out), 2);
	assert_int_equal(loc_holds_filter(h, 6, 5, 50, in, out), 0);
	assert_int_equal(loc_holds_filter(h, 0, 5, 50, in, out), 2);
	/* A higher-priority job ignores the hold; so does the partner. */
	assert_int_equal(loc_holds_filter(h, 9, 6, 50, in, out), 0);
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(loc_holds_filter(h, 7, 5, 50, in, out), 0);
	assert_memory_equal(in, out, sizeof(in));
	/* At its deadline the hold no longer applies. */
	assert_int_equal(loc_holds_filter(h, 9, 3, 100, in, out), 0);

	/* Replacing and overlapping holds; the partner keeps its own
	 * region even where another hold overlaps it. */
	assert_int_equal(loc_holds_add(h, 8, 9, n2, 2, 200), 0);
	assert_int_equal(loc_holds_add(h, 7, 5, n1, 2, 150), 0);
	assert_int_equal(loc_holds_count(h, &held), 2);
	assert_int_equal(held, 4);
	assert_int_equal(loc_holds_add(h, 7, 5, n1, 3, 150), 0);
	assert_int_equal(loc_holds_count(h, &held), 2);
	assert_int_equal(held, 5);
	assert_int_equal(loc_holds_filter(h, 7, 5, 120, in, out), 1);
	assert_int_equal(out[7], 0);
	assert_int_equal(out[3], 1);
	assert_int_equal(loc_holds_filter(h, 9, 1, 120, in, out), 3);

	/* Whether a start took the region held for it: every node, in any
	 * order, of a live hold of that partner. */
	{
		int took[3] = { 3, 1, 2 }, part[2] = { 2, 1 },
		    off[2] = { 1, 4 };

		assert_true(loc_holds_covers(h, 7, 120, took, 3));
		assert_true(loc_holds_covers(h, 7, 120, part, 2));
		assert_false(loc_holds_covers(h, 7, 120, off, 2));
		assert_false(loc_holds_covers(h, 8, 120, took, 3));
		assert_false(loc_holds_covers(h, 9, 120, took, 1));
		assert_false(loc_holds_covers(h, 7, 150, took, 3));
		assert_false(loc_holds_covers(h, 7, 120, took, 0));
		assert_false(loc_holds_covers(NULL, 7, 120, took, 3));
	}
	/* The partner's turn: its region's nodes among the candidates,
	 * enough of them or not, while the hold lasts. */
	{
		uint8_t got[10];

		assert_int_equal(loc_holds_turn(h, 7, 120, in, 2, got), 2);
		assert_int_equal(got[1] + got[3], 2);
		assert_int_equal(got[2] + got[4] + got[7], 0);
		assert_int_equal(loc_holds_turn(h, 7, 120, in, 3, got),
				 LOC_ENOFIT);
		in[2] = 1;
		assert_int_equal(loc_holds_turn(h, 7, 120, in, 3, got), 3);
		assert_int_equal(got[2], 1);
		in[2] = 0;
		assert_int_equal(loc_holds_turn(h, 7, 150, in, 2, got), 0);
		assert_int_equal(loc_holds_turn(h, 9, 120, in, 1, got), 0);
		assert_int_equal(loc_holds_turn(NULL, 7, 120, in, 1, got), 0);
		assert_int_equal(loc_holds_partner(h, 0) + loc_holds_partner(h, 1),
				 15);
		assert_int_equal(loc_holds_partner(h, 2), 0);
		assert_true(loc_holds_has(h, 7, 120));
		assert_false(loc_holds_has(h, 7, 150));
		assert_false(loc_holds_has(h, 9, 120));
		assert_false(loc_holds_has(NULL, 7, 120));
		assert_int_equal(loc_holds_partner(h, -1), 0);
	}

	/* Expiry drops only holds at or past their deadline. */
	assert_int_equal(loc_holds_expire(h, 149), 0);
	assert_int_equal(loc_holds_expire(h, 150), 1);
	assert_int_equal(loc_holds_count(h, &held), 1);
	assert_int_equal(held, 2);
	assert_int_equal(loc_holds_release(h, 7), LOC_ENOENT);
	assert_int_equal(loc_holds_release(h, 8), 0);
	assert_int_equal(loc_holds_count(h, NULL), 0);
	assert_int_equal(loc_holds_filter(h, 9, 0, 0, in, out), 0);
	assert_int_equal(loc_holds_add(h, 1, 1, bad, 1, 10), LOC_EINVAL);
	assert_int_equal(loc_holds_count(h, NULL), 0);
	loc_holds_destroy(h);
	loc_holds_destroy(NULL);
}

/* ------------------------------------------------------------------ */
/* AdjEst                                                              */
/* ------------------------------------------------------------------ */

static void test_adjest(void **state)
{
	loc_adjest_t *adj = loc_adjest_create(3);

	(void)state;
	assert_non_null(adj);
	assert_null(loc_adjest_create(0));
	/* No history: the request stands. */
	assert_int_equal(loc_adjest_estimate(adj, 1, 3600), 3600);
	/* Accuracies 0.5, 0.25, 1.0: mean 7/12; 600 * 7/12 = 350. */
	assert_int_equal(loc_adjest_record(adj, 1, 1000, 500), 0);
	assert_int_equal(loc_adjest_record(adj, 1, 1000, 250), 0);
	assert_int_equal(loc_adjest_record(adj, 1, 2000, 2000), 0);
	assert_int_equal(loc_adjest_estimate(adj, 1, 600), 350);
	/* The window drops 0.5: 0.25, 1.0, 0.1 -> 0.45 -> 450. */
	assert_int_equal(loc_adjest_record(adj, 1, 1000, 100), 0);
	assert_int_equal(loc_adjest_estimate(adj, 1, 1000), 450);
	/* Clamped to [60 s, requested]. */
	assert_int_equal(loc_adjest_record(adj, 2, 1000, 10), 0);
	assert_int_equal(loc_adjest_estimate(adj, 2, 3600), 60);
	assert_int_equal(loc_adjest_estimate(adj, 2, 30), 30);
	/* Overruns count as accurate requests. */
	assert_int_equal(loc_adjest_record(adj, 3, 100, 200), 0);
	assert_int_equal(loc_adjest_estimate(adj, 3, 5000), 5000);
	assert_int_equal(loc_adjest_record(adj, 3, 100, 0), 0);
	assert_int_equal(loc_adjest_estimate(adj, 3, 5000), 2500);
	assert_int_equal(loc_adjest_record(adj, 3, 0, 10), LOC_EINVAL);
	assert_int_equal(loc_adjest_record(adj, 3, 10, -1), LOC_EINVAL);
	/* Many users: each keeps its own history through table growth. */
	for (uint32_t u = 100; u < 1100; u++)
		assert_int_equal(loc_adjest_record(adj, u, 1000, u - 100), 0);
	for (uint32_t u = 100; u < 1100; u++) {
		int64_t want = (int64_t)llround(10000.0 * (u - 100) / 1000);

		if (want < 60)
			want = 60;
		assert_int_equal(loc_adjest_estimate(adj, u, 10000), want);
	}
	assert_int_equal(loc_adjest_estimate(adj, 1, 1000), 450);
	loc_adjest_destroy(adj);
	loc_adjest_destroy(NULL);
}

/* Which modes the drivers gather end times (SL) and partners (PF) for:
 * combo and adjest are both, none neither; every mode is listed. */
static void test_policy_predicates(void **state)
{
	static const struct {
		const char *mode;
		bool sl, pf;
	} want[] = {
		{ "none", false, false }, { "sl", true, false },
		{ "pf", false, true },    { "combo", true, true },
		{ "adjest", true, true },
	};
	loc_policy_t p;
	(void)state;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int mode = loc_walltime_mode_parse(want[i].mode);

		assert_true(mode >= 0);
		loc_policy_init(&p);
		p.walltime = (loc_walltime_mode_t)mode;
		assert_int_equal(loc_policy_sl(&p), want[i].sl);
		assert_int_equal(loc_policy_pf(&p), want[i].pf);
	}
	assert_int_equal(LOC_WALLTIME_COUNT, sizeof(want) / sizeof(want[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sl_score_by_hand),
		cmocka_unit_test(test_sl_score_counts_nodes_sharing_a_point),
		cmocka_unit_test(test_sl_tie_break_in_the_allocator),
		cmocka_unit_test(test_pf_partner_pick),
		cmocka_unit_test(test_pf_neighbor_region),
		cmocka_unit_test(test_pf_region_is_compact),
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_adjest),
		cmocka_unit_test(test_policy_predicates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
