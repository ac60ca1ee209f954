/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_fit.c - the exact choices of the curve-order
 * strategies freelist, firstfit, bestfit, sumsquares and span: brute
 * force over all k-subsets on small instances (span, and the least-span
 * fallback of the fit strategies), hand-built examples on lines and
 * rings, and bestfit's ties offered to SL. The search on machines of
 * thousands of nodes is test_loc_strategy_fit_large.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "strategies/st_fit.h"
#include "loc_test_util.h"
#include "loc_test_curve.h"
#include "loc_bits.h"
#include "loc_test_simd.h"

/* Span of ascending ranks: linear, or n minus the largest ring gap. */
static int _span(const int *rk, int k, int n, bool ring)
{
	int gap = 0;

	if (!ring)
		return rk[k - 1] - rk[0] + 1;
	for (int i = 0; i < k; i++) {
		int nx = rk[(i + 1) % k];
		int g = (nx - rk[i] - 1 + n) % n;

		if (k == 1)
			g = n - 1;
		if (g > gap)
			gap = g;
	}
	return n - gap;
}

/* Advances idx[0..k-1] to the next k-subset of 0..m-1. Returns false
 * after the last. */
static bool _next_subset(int *idx, int k, int m)
{
	int i;

	for (i = k - 1; i >= 0 && idx[i] == m - k + i; i--)
		;
	if (i < 0)
		return false;
	idx[i]++;
	for (int j = i + 1; j < k; j++)
		idx[j] = idx[j - 1] + 1;
	return true;
}

/* Brute force over all k-subsets of the free ranks fr[0..m-1]: the least
 * total pairwise rank distance (span == false) or span (span == true). */
static int64_t _brute_min(const int *fr, int m, int k, int n, bool ring,
			  bool span)
{
	int idx[32], pick[32];
	int64_t best = INT64_MAX;

	for (int i = 0; i < k; i++)
		idx[i] = i;
	do {
		int64_t c;

		for (int i = 0; i < k; i++)
			pick[i] = fr[idx[i]];
		c = span ? _span(pick, k, n, ring) :
			   tu_rank_cost(pick, k, n, ring);
		if (c < best)
			best = c;
	} while (_next_subset(idx, k, m));
	return best;
}

/* The first window (by starting rank) whose total (span == false) or arc
 * length (span == true) is target; -1 if none. */
static int _first_window(const int *fr, int m, int k, int n, bool ring,
			 bool span, int64_t target)
{
	for (int w = 0; w < (ring ? m : m - k + 1); w++) {
		int rk[32], last = fr[(w + k - 1) % m];
		int64_t c;

		tu_window(fr, m, k, w, rk);
		c = span ? (last - fr[w] + n) % n + 1 :
			   tu_rank_cost(rk, k, n, ring);
		if (c == target)
			return w;
	}
	return -1;
}

/* Span: the least total pairwise rank distance over all k-subsets, with
 * ring distances when every dimension is a torus, and the lowest-starting
 * optimal window. Half the states ask for more than half the free nodes,
 * where ring windows pass half the ring. */
static void test_span_matches_brute_force(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 9 } }, { 1, { 12 } }, { 2, { 3, 4 } }, { 2, { 2, 7 } },
	};
	uint64_t s = 777;
	int checked = 0;

	(void)state;
	for (int gi = 0; gi < 4 * 4; gi++) {
		loc_grid_t *g = tu_grid_at(shapes, gi);
		loc_alloc_t *a = tu_alloc(g, LOC_STRATEGY_SPAN,
					  gi % 3 ? LOC_CURVE_SNAKE :
						   LOC_CURVE_HILBERT);
		const loc_curve_t *cv = loc_alloc_curve(a);
		int n = loc_grid_nnodes(g);
		bool ring = tu_all_torus(g);

		for (int st = 0; st < 150; st++) {
			uint8_t cand[32];
			int fr[32], out[32], rk[32], want[32], m, k, w;
			int64_t best;

			tu_fragmented(cand, n, 0.1 + 0.005 * st, s + st);
			m = tu_free_ranks(cv, cand, n, fr);
			if (m < 2 || m > 14)
				continue;
			k = st % 2 ? m / 2 + 1 + tu_below(&s, (m + 1) / 2) :
				     1 + tu_below(&s, m);
			k = k < m ? k : m;
			assert_int_equal(tu_select(a, cand, k, out), 0);
			tu_assert_placement(cand, n, out, k);
			tu_ranks_of(cv, out, k, rk);
			best = _brute_min(fr, m, k, n, ring, false);
			assert_int_equal(tu_rank_cost(rk, k, n, ring), best);
			checked++;
			if (k == m)
				continue;
			w = _first_window(fr, m, k, n, ring, false, best);
			assert_true(w >= 0);
			tu_window(fr, m, k, w, want);
			assert_memory_equal(want, rk, sizeof(int) * k);
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(checked > 600);
}

/* A ring where the paper's doubled-line recurrence goes wrong: free ranks
 * {0,1,3,6,7} of 10, k = 4. Measured the long way round, {6,7,0,1} looks
 * best (18); with ring distances {7,0,1,3} costs 17 (hand-computed:
 * 3+4+4+1+3+2) and every other window 18 or 19. */
static void test_span_ring_uses_ring_distances(void **state)
{
	int dims[1] = { 10 }, out[4];
	uint8_t cand[10] = { 1, 1, 0, 1, 0, 0, 1, 1, 0, 0 };
	loc_grid_t *g = tu_grid(1, dims, true, 1);
	loc_alloc_t *a = tu_alloc(g, LOC_STRATEGY_SPAN, LOC_CURVE_ROWMAJOR);
	const int want[4] = { 0, 1, 3, 7 };

	(void)state;
	for (int v = 0; v < 10; v++)
		assert_int_equal(loc_curve_rank(loc_alloc_curve(a), v), v);
	assert_int_equal(tu_select(a, cand, 4, out), 0);
	assert_memory_equal(out, want, sizeof(want));
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* 1-D line with rowmajor ranks = node numbers; free runs as listed. */
static void _line(uint8_t *cand, int n, const int *runs, int nruns)
{
	int r = 0;

	memset(cand, 0, n);
	for (int i = 0; i < nruns; i++) {
		for (int j = 0; j < runs[i]; j++)
			cand[r++] = 1;
		r++; /* one busy node after each run */
	}
}

static void _expect_run(loc_alloc_t *a, const uint8_t *cand, int k, int first)
{
	int out[64];

	assert_int_equal(tu_select(a, cand, k, out), 0);
	for (int i = 0; i < k; i++)
		assert_int_equal(out[i], first + i);
}

/*
 * Hand-built intervals, k = 4 (runs separated by one busy node):
 *  A: sizes 3,5,4 at ranks 0,4,10. firstfit: the 5 (4..7). bestfit: the
 *     4 (10..13). sumsquares: into the 5 leaves {3,1,4} -> 1+1+1 = 3,
 *     into the 4 leaves {3,5} -> 2: the 4.
 *  C: sizes 5,1,1,7,6 at ranks 0,6,8,10,18. N = {1:2,5:1,6:1,7:1}.
 *     into 5 -> {1:3,6:1,7:1} = 9+1+1 = 11; into 7 -> {1:2,3:1,5:1,6:1}
 *     = 4+1+1+1 = 7; into 6 -> {1:2,2:1,5:1,7:1} = 7. Tie: lowest rank,
 *     the 7 (10..13). firstfit and bestfit: the 5 (0..3).
 *  B: sizes 6,1,1,5 at ranks 0,7,9,11. bestfit: the 5 (11..14);
 *     sumsquares: into 6 -> {1:2,2:1,5:1} = 6, into 5 -> {1:3,6:1} = 10:
 *     the 6 (0..3); firstfit the 6.
 */
static void test_fit_hand_examples(void **state)
{
	int dims[1] = { 40 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_alloc_t *ff = tu_alloc(g, LOC_STRATEGY_FIRSTFIT,
				   LOC_CURVE_ROWMAJOR);
	loc_alloc_t *bf = tu_alloc(g, LOC_STRATEGY_BESTFIT, LOC_CURVE_ROWMAJOR);
	loc_alloc_t *sq = tu_alloc(g, LOC_STRATEGY_SUMSQUARES,
				   LOC_CURVE_ROWMAJOR);
	const int a_runs[] = { 3, 5, 4 }, b_runs[] = { 6, 1, 1, 5 };
	const int c_runs[] = { 5, 1, 1, 7, 6 };
	uint8_t cand[40];

	(void)state;
	_line(cand, 40, a_runs, 3);
	_expect_run(ff, cand, 4, 4);
	_expect_run(bf, cand, 4, 10);
	_expect_run(sq, cand, 4, 10);
	_line(cand, 40, c_runs, 5);
	_expect_run(ff, cand, 4, 0);
	_expect_run(bf, cand, 4, 0);
	_expect_run(sq, cand, 4, 10);
	_line(cand, 40, b_runs, 4);
	_expect_run(ff, cand, 4, 0);
	_expect_run(bf, cand, 4, 11);
	_expect_run(sq, cand, 4, 0);
	/* An exact fit anywhere beats the rest for bestfit. */
	_expect_run(bf, cand, 5, 11);
	_expect_run(ff, cand, 5, 0);
	loc_alloc_destroy(ff);
	loc_alloc_destroy(bf);
	loc_alloc_destroy(sq);
	loc_grid_destroy(g);
}

/*
 * Ring vs line, 12 nodes, free ranks {0,1,4,5,6,10,11}, k = 4.
 * Torus: the runs 10,11 and 0,1 join into one interval of 4, which every
 * fit strategy takes. Mesh: no run holds 4; windows of four consecutive
 * free nodes span 6 ({0,1,4,5}), 6, 7, 7: the first, {0,1,4,5}.
 */
static void test_fit_ring_joins_end_runs(void **state)
{
	int dims[1] = { 12 }, out[4];
	const uint8_t cand[12] = { 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1 };
	const int ring_want[4] = { 0, 1, 10, 11 };
	const int line_want[4] = { 0, 1, 4, 5 };

	(void)state;
	for (int t = 0; t < 2; t++) {
		loc_grid_t *g = tu_grid(1, dims, t, 1);

		for (int s = LOC_STRATEGY_FIRSTFIT;
		     s <= LOC_STRATEGY_SUMSQUARES; s++) {
			loc_alloc_t *a = tu_alloc(g, s, LOC_CURVE_ROWMAJOR);

			assert_int_equal(tu_select(a, cand, 4, out), 0);
			assert_memory_equal(out, t ? ring_want : line_want,
					    sizeof(ring_want));
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
}

/* No interval holds k: the k consecutive free nodes of least (ring) span,
 * checked against brute force over all k-subsets, and the lowest-starting
 * such window. */
static void test_fit_min_span_fallback(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 14 } }, { 2, { 3, 5 } },
		{ 2, { 4, 4 } }, { 3, { 2, 2, 3 } },
	};
	uint64_t s = 4242;
	int checked = 0;

	(void)state;
	/* npp 1 only (even gi): 14 to 16 nodes keep brute force small. */
	for (int gi = 0; gi < 4 * 4; gi += 2) {
		loc_grid_t *g = tu_grid_at(shapes, gi);
		int n = loc_grid_nnodes(g);
		bool ring = tu_all_torus(g);

		for (int kind = LOC_STRATEGY_FIRSTFIT;
		     kind <= LOC_STRATEGY_SUMSQUARES; kind++) {
			loc_alloc_t *a = tu_alloc(g, kind, LOC_CURVE_SNAKE);
			const loc_curve_t *cv = loc_alloc_curve(a);

			for (int st = 0; st < 120; st++) {
				uint8_t cand[32];
				int fr[32], out[32], rk[32], want[32];
				int m, k, longest, w;
				int64_t best;

				tu_fragmented(cand, n, 0.3 + 0.002 * st,
					      s + st * 7 + kind);
				m = tu_free_ranks(cv, cand, n, fr);
				longest = tu_longest_run(cv, cand, n, ring);
				if (longest >= m)
					continue;
				k = longest + 1 + tu_below(&s, m - longest);
				assert_int_equal(tu_select(a, cand, k, out), 0);
				tu_assert_placement(cand, n, out, k);
				tu_ranks_of(cv, out, k, rk);
				best = _brute_min(fr, m, k, n, ring, true);
				assert_int_equal(_span(rk, k, n, ring), best);
				w = _first_window(fr, m, k, n, ring, true,
						  best);
				assert_true(w >= 0);
				tu_window(fr, m, k, w, want);
				assert_memory_equal(want, rk, sizeof(int) * k);
				checked++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(checked > 300);
}

/* freelist: the first k free nodes in curve order, for every curve. */
static void test_freelist_first_k_in_curve_order(void **state)
{
	int dims[2] = { 6, 5 };
	uint64_t s = 99;

	(void)state;
	for (int cvk = 0; cvk < LOC_CURVE_COUNT; cvk++) {
		loc_grid_t *g = tu_grid(2, dims, cvk == 1, 2);
		loc_alloc_t *a = tu_alloc(g, LOC_STRATEGY_FREELIST, cvk);
		const loc_curve_t *cv = loc_alloc_curve(a);
		int n = loc_grid_nnodes(g);

		for (int st = 0; st < 100; st++) {
			uint8_t cand[60];
			int out[60], want[60], m = 0;
			int k;

			tu_fragmented(cand, n, 0.5, s + st);
			k = 1 + tu_below(&s, tu_count(cand, n));
			for (int r = 0; r < n && m < k; r++)
				if (cand[loc_curve_node(cv, r)])
					want[m++] = loc_curve_node(cv, r);
			qsort(want, k, sizeof(int), tu_cmp_int);
			assert_int_equal(tu_select(a, cand, k, out), 0);
			assert_memory_equal(out, want, sizeof(int) * k);
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

/* SL sees the equally tight alternatives: two free runs of 4 (ranks 0..3
 * and 10..13 of a 20-node line) for k = 4; the second's busy neighbours
 * end when the job does, so SL moves the job there. Skipped while the SL
 * score is not yet implemented. */
/*
 * Two free intervals of k nodes tie for best fit; SL must pick the one
 * whose busy neighbours end with the job. Scale 1 is k = 4 on 20 nodes;
 * scale 10 makes the answer large enough to be read back from the node
 * bitmap its check built, which only the last offer checked still has:
 * with good_first, the winner is not that offer.
 */
static void _bestfit_sl_tie(int scale, bool good_first)
{
	int n = 20 * scale, k = 4 * scale, a0 = 0, b0 = 10 * scale;
	int good = good_first ? a0 : b0;
	loc_grid_t *g = tu_grid(1, &n, false, 1);
	uint8_t *cand = calloc(n, 1);
	int64_t *until = malloc(sizeof(int64_t) * n);
	int *out = malloc(sizeof(int) * k);
	loc_view_t view = {
		.candidate = cand, .busy_until = until, .now = 100,
	};
	loc_request_t r = { .nodes = k, .expected_end = 5000 };
	const int probe[1] = { b0 };
	loc_policy_t p;
	loc_error_t err;
	loc_alloc_t *a;

	assert_true(cand && until && out);
	for (int v = 0; v < n; v++)
		until[v] = 1000;
	for (int v = 0; v < k; v++)
		cand[a0 + v] = cand[b0 + v] = 1, until[a0 + v] = until[b0 + v] = 0;
	if (good > 0)
		until[good - 1] = 5000;
	until[good + k] = 5000;
	if (loc_sl_score(g, &view, 5000, probe, 1) < 0)
		skip();
	loc_policy_init(&p);
	p.strategy = LOC_STRATEGY_BESTFIT;
	p.curve = LOC_CURVE_ROWMAJOR;
	p.walltime = LOC_WALLTIME_SL;
	a = loc_alloc_create(g, &p, &err);
	assert_non_null(a);
	assert_int_equal(loc_alloc_select(a, &r, &view, out, &err), 0);
	for (int i = 0; i < k; i++)
		assert_int_equal(out[i], good + i);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
	free(cand);
	free(until);
	free(out);
}

/*
 * The same with an answer out of node order that is not the last offer
 * checked: two rows, snake ranks, so row 1 runs backwards. Intervals B
 * and C of k = 40 free nodes lie in row 1, B first; the busy row 0 below
 * B ends with the job. SL takes B, whose nodes must be sorted from its
 * own list: the node bitmap the last check built is C's.
 */
static void _bestfit_sl_tie_not_last(void)
{
	enum { W = 100, K = 40 };
	int dims[2] = { 2, W }, out[K], want[K];
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	uint8_t cand[2 * W] = { 0 };
	int64_t until[2 * W];
	loc_view_t view = {
		.candidate = cand, .busy_until = until, .now = 100,
	};
	loc_request_t r = { .nodes = K, .expected_end = 5000 };
	const loc_curve_t *cv;
	loc_policy_t p;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&p);
	p.strategy = LOC_STRATEGY_BESTFIT;
	p.curve = LOC_CURVE_SNAKE;
	p.walltime = LOC_WALLTIME_SL;
	a = loc_alloc_create(g, &p, &err);
	assert_non_null(a);
	cv = loc_alloc_curve(a);
	/* Row 1 backwards in node order, else this tests nothing. */
	assert_true(loc_curve_node(cv, W) > loc_curve_node(cv, W + 1));
	for (int v = 0; v < 2 * W; v++)
		until[v] = 1000;
	for (int j = 0; j < K; j++) {
		int b = loc_curve_node(cv, W + j);

		cand[b] = cand[loc_curve_node(cv, W + K + 1 + j)] = 1;
		until[b] = until[loc_curve_node(cv, W + K + 1 + j)] = 0;
		until[loc_curve_node(cv, W - 1 - j)] = 5000; /* below b */
		want[j] = b;
	}
	qsort(want, K, sizeof(int), tu_cmp_int);
	assert_int_equal(loc_alloc_select(a, &r, &view, out, &err), 0);
	assert_memory_equal(out, want, sizeof(want));
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

static void test_bestfit_offers_ties_to_sl(void **state)
{
	(void)state;
	_bestfit_sl_tie(1, false);
	_bestfit_sl_tie(1, true);
	_bestfit_sl_tie(10, false);
	_bestfit_sl_tie(10, true);
	_bestfit_sl_tie_not_last();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_matches_brute_force),
		cmocka_unit_test(test_span_ring_uses_ring_distances),
		cmocka_unit_test(test_fit_hand_examples),
		cmocka_unit_test(test_fit_ring_joins_end_runs),
		cmocka_unit_test(test_fit_min_span_fallback),
		cmocka_unit_test(test_freelist_first_k_in_curve_order),
		cmocka_unit_test(test_bestfit_offers_ties_to_sl),
	};

	tu_simd_report("test_loc_strategy_fit");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
