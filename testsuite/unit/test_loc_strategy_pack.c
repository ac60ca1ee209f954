/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_pack.c - the pack strategy (st_pack.c) through the
 * public allocator API:
 *
 * - among equally compact placements it takes the one that leaves the
 *   free region the smallest perimeter (a 2x2 pocket walled in by busy
 *   nodes and the mesh edge, not the first open corner);
 * - PackTolerance trades total hops for perimeter, and only within it;
 * - on an empty grid it matches the brute-force least total hops;
 * - one node: the free node with the fewest free and the most busy
 *   neighbours and walls (then curve order), also while the candidate
 *   map changes from call to call (the index pack keeps between calls);
 * - on machines too large for the whole search (4,096 nodes and more)
 *   the bounded search still gives valid, deterministic and compact
 *   sets: never worse than mm's;
 * - questions asked again, after others or in another order, get the
 *   answer a fresh allocator gives (pack remembers its last answers:
 *   st_memo.c), also with more distinct questions than it keeps,
 *   and after loc_alloc_forget();
 * - PackTolerance is parsed from locality.conf (and described).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "loc_test_util.h"
#include "loc_conf.h"
#include "loc_strategy.h"

static loc_alloc_t *_pack(const loc_grid_t *g, double tol)
{
	loc_policy_t pol;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&pol);
	pol.strategy = LOC_STRATEGY_PACK;
	pol.curve = LOC_CURVE_ROWMAJOR;
	pol.pack_tolerance = tol;
	a = loc_alloc_create(g, &pol, &err);
	if (!a)
		fail_msg("cannot create the pack allocator: %s", err.text);
	return a;
}

static int _place(loc_alloc_t *a, const uint8_t *cand, int k, int *out)
{
	loc_request_t req = { .nodes = k };
	loc_view_t view = { .candidate = cand };

	return loc_alloc_select(a, &req, &view, out, NULL);
}

/* 6x6 mesh, row-major node numbers (node = 6 * row + col). Busy: column
 * 3 of rows 3-5 and row 3 of columns 4-5, which walls in the 2x2 pocket
 * {28, 29, 34, 35} in the bottom right corner, the last corner in curve
 * order. Every 2x2 square has the least total (8 hops); open squares add
 * 0 (a corner) to 8 to the free perimeter, the pocket -8. */
static void test_pocket_wins_among_equal_squares(void **state)
{
	const int dims[2] = { 6, 6 }, pocket[4] = { 28, 29, 34, 35 };
	const int busy[] = { 21, 22, 23, 27, 33 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = _pack(g, 0.0);
	uint8_t cand[36];
	int out[36];

	(void)state;
	memset(cand, 1, sizeof(cand));
	for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++)
		cand[busy[i]] = 0;
	assert_int_equal(_place(a, cand, 4, out), 0);
	assert_memory_equal(out, pocket, sizeof(pocket));
	assert_int_equal(loc_metrics_total_pair_hops(g, out, 4), 8);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* 6x6 mesh; row 1 of columns 1-5 and node 1 busy: the free 1x4 line
 * {2, 3, 4, 5} (10 hops, perimeter -10) is walled in; the rest is open
 * and holds 2x2 squares (8 hops). Tolerance 0 keeps a square; 0.25
 * (up to 10 hops) takes the walled-in line; 0.2 (up to 9) does not. */
static void test_tolerance_trades_hops_for_perimeter(void **state)
{
	const int dims[2] = { 6, 6 }, line[4] = { 2, 3, 4, 5 };
	const int busy[] = { 1, 7, 8, 9, 10, 11 };
	const double tols[3] = { 0.0, 0.2, 0.25 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	uint8_t cand[36];
	int out[36];

	(void)state;
	memset(cand, 1, sizeof(cand));
	for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++)
		cand[busy[i]] = 0;
	for (int t = 0; t < 3; t++) {
		loc_alloc_t *a = _pack(g, tols[t]);

		assert_int_equal(_place(a, cand, 4, out), 0);
		if (t < 2) {
			assert_int_equal(loc_metrics_total_pair_hops(g, out, 4),
					 8);
		} else {
			assert_memory_equal(out, line, sizeof(line));
		}
		loc_alloc_destroy(a);
	}
	loc_grid_destroy(g);
}

/* Empty 4x4 torus and 5x3 mesh: pack reaches the brute-force least total
 * for every k; on fragmented states it stays valid and deterministic. */
static void test_optimal_on_empty_small_grids(void **state)
{
	const int d1[2] = { 4, 4 }, d2[2] = { 5, 3 };
	loc_grid_t *gs[2] = { tu_grid(2, d1, true, 1), tu_grid(2, d2, false, 1) };

	(void)state;
	for (int gi = 0; gi < 2; gi++) {
		loc_grid_t *g = gs[gi];
		loc_alloc_t *a = _pack(g, 0.0);
		int n = loc_grid_nnodes(g), out[16], again[16];
		uint8_t cand[16];

		memset(cand, 1, sizeof(cand));
		for (int k = 1; k <= 8; k++) {
			assert_int_equal(_place(a, cand, k, out), 0);
			tu_assert_placement(cand, n, out, k);
			assert_int_equal(loc_metrics_total_pair_hops(g, out, k),
					 tu_brute_min_pair_hops(g, cand, n, k));
		}
		for (int trial = 0; trial < 40; trial++) {
			int nf, k;

			tu_fragmented(cand, n, 0.3 + 0.1 * (trial % 5), trial);
			nf = tu_count(cand, n);
			k = 1 + trial % nf;
			assert_int_equal(_place(a, cand, k, out), 0);
			tu_assert_placement(cand, n, out, k);
			assert_int_equal(_place(a, cand, k, again), 0);
			assert_memory_equal(out, again, sizeof(int) * k);
		}
		assert_int_equal(_place(a, cand, n + 1, out), LOC_ENOFIT);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

/* Pack's one-node figure for v: each side facing a free node counts +1,
 * each facing a busy node or a wall -1 (nodes of v's point are sides). */
static int _one_figure(const loc_grid_t *g, const uint8_t *cand, int v)
{
	int p = loc_grid_node_point(g, v), nb[2 * LOC_MAX_DIMS], c, fig;
	const int *o;

	c = loc_grid_point_neighbors(g, p, nb);
	fig = -(2 * loc_grid_ndims(g) - c);
	for (int i = -1; i < c; i++) {
		int cnt = loc_grid_point_nodes(g, i < 0 ? p : nb[i], &o);

		for (int j = 0; j < cnt; j++)
			if (o[j] != v)
				fig += cand[o[j]] ? 1 : -1;
	}
	return fig;
}

/* Meshes, tori, a torus axis of 2, several nodes per point: a long run
 * of one-node requests while the candidate map changes a little (a few
 * nodes flip: pack updates what it keeps) or a lot (a new state: pack
 * starts over); each answer is the brute-force one. */
static void test_one_node_takes_the_most_enclosed(void **state)
{
	static const struct {
		int nd, dims[3], npp;
		bool torus;
	} shapes[] = {
		{ 2, { 6, 6 }, 1, false },
		{ 3, { 4, 4, 4 }, 1, true },
		{ 2, { 3, 5 }, 2, false },
		{ 2, { 2, 7 }, 1, true },
	};

	(void)state;
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		loc_grid_t *g = tu_grid(shapes[si].nd, shapes[si].dims,
					shapes[si].torus, shapes[si].npp);
		loc_alloc_t *a = _pack(g, 0.0);
		const int *ranks = loc_curve_ranks(loc_alloc_curve(a));
		int n = loc_grid_nnodes(g), out[64];
		uint8_t cand[64];
		uint64_t rs = 77 + si;

		memset(cand, 1, sizeof(cand));
		for (int step = 0; step < 150; step++) {
			int want = -1, want_fig = 0;

			if (step % 25 == 24) {
				tu_fragmented(cand, n, 0.2 + 0.1 * (step % 4),
					      step);
			} else {
				for (int f = 1 + tu_below(&rs, 3); f > 0; f--) {
					int v = tu_below(&rs, n);

					cand[v] = !cand[v];
				}
			}
			if (!tu_count(cand, n))
				cand[tu_below(&rs, n)] = 1;
			for (int v = 0; v < n; v++) {
				int fig;

				if (!cand[v])
					continue;
				fig = _one_figure(g, cand, v);
				if (want < 0 || fig < want_fig ||
				    (fig == want_fig && ranks[v] < ranks[want])) {
					want = v;
					want_fig = fig;
				}
			}
			assert_int_equal(_place(a, cand, 1, out), 0);
			assert_int_equal(out[0], want);
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

/* 16x16x16 torus (and 10x10x10 with two nodes per point), 40-60% busy:
 * too large for the whole search at these sizes, so pack plans a
 * bounded one. Every answer is valid, the same on a second call and
 * from a fresh allocator, at least as compact as mm's, and optimal for
 * two nodes (two neighbours, or two nodes of one point). */
static void test_bounded_search_on_large_machines(void **state)
{
	static const int ks[] = { 2, 8, 64, 512 };
	const int d16[3] = { 16, 16, 16 }, d10[3] = { 10, 10, 10 };
	loc_grid_t *gs[2] = { tu_grid(3, d16, true, 1),
			      tu_grid(3, d10, true, 2) };

	(void)state;
	for (int gi = 0; gi < 2; gi++) {
		loc_grid_t *g = gs[gi];
		int n = loc_grid_nnodes(g);
		uint8_t *cand = malloc(n);
		int *out = malloc(sizeof(int) * n), *again = malloc(sizeof(int) * n);
		loc_alloc_t *a = _pack(g, 0.0);
		loc_policy_t mp;

		assert_non_null(cand);
		assert_non_null(out);
		assert_non_null(again);
		loc_policy_init(&mp);
		mp.strategy = LOC_STRATEGY_MM;
		for (int seed = 1; seed <= 2; seed++) {
			tu_fragmented(cand, n, 0.3 + 0.2 * seed, seed);
			for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
				int k = ks[ki];
				loc_alloc_t *fresh = _pack(g, 0.0);
				loc_alloc_t *mm = loc_alloc_create(g, &mp, NULL);
				int64_t total;

				assert_non_null(mm);
				assert_int_equal(_place(a, cand, k, out), 0);
				tu_assert_placement(cand, n, out, k);
				total = loc_metrics_total_pair_hops(g, out, k);
				assert_int_equal(_place(a, cand, k, again), 0);
				assert_memory_equal(out, again, sizeof(int) * k);
				assert_int_equal(_place(fresh, cand, k, again), 0);
				assert_memory_equal(out, again, sizeof(int) * k);
				assert_int_equal(_place(mm, cand, k, again), 0);
				assert_true(total <=
					    loc_metrics_total_pair_hops(g, again, k));
				if (k == 2)
					assert_int_equal(total, gi ? 0 : 1);
				loc_alloc_destroy(fresh);
				loc_alloc_destroy(mm);
			}
		}
		free(cand);
		free(out);
		free(again);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

/* 8x8 torus (the replay's advice machine): 12 fragmented maps x 3 sizes,
 * asked in an order that repeats questions at once, a little later and
 * after more than the memo's 16 slots; every answer is a fresh
 * allocator's. */
static void test_repeated_questions_get_fresh_answers(void **state)
{
	enum { NMAPS = 12, NK = 3, N = 64 };
	static const int ks[NK] = { 2, 5, 17 };
	const int dims[2] = { 8, 8 };
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	loc_alloc_t *a = _pack(g, 0.1);
	uint8_t cand[NMAPS][N];
	int fresh_out[NMAPS][NK][N], out[N];

	(void)state;
	for (int m = 0; m < NMAPS; m++) {
		tu_fragmented(cand[m], N, 0.3 + 0.03 * m, m + 1);
		for (int ki = 0; ki < NK; ki++) {
			loc_alloc_t *fresh = _pack(g, 0.1);

			assert_int_equal(_place(fresh, cand[m], ks[ki],
						fresh_out[m][ki]), 0);
			loc_alloc_destroy(fresh);
		}
	}
	for (int q = 0; q < 300; q++) {
		/* Runs of one map, then a jump: repeats near and far. */
		int m = (q / 3 * 5 + q % 2) % NMAPS, ki = (q * 7 / 5) % NK;

		/* Forgetting (as the benchmarks do) changes no answer. */
		if (q % 50 == 49)
			loc_alloc_forget(a);
		assert_int_equal(_place(a, cand[m], ks[ki], out), 0);
		assert_memory_equal(out, fresh_out[m][ki],
				    sizeof(int) * ks[ki]);
	}
	loc_alloc_forget(NULL);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

static void test_conf_key(void **state)
{
	loc_error_t err;
	loc_conf_t *c;
	char buf[512];

	(void)state;
	c = loc_conf_parse("Dimensions=8x8\nStrategy=pack PackTolerance=0.05\n"
			   "PartitionName=big PackTolerance=0.2\n",
			   "locality.conf", &err);
	assert_non_null(c);
	assert_int_equal(loc_conf_policy(c, NULL)->strategy, LOC_STRATEGY_PACK);
	assert_true(loc_conf_policy(c, NULL)->pack_tolerance == 0.05);
	assert_true(loc_conf_policy(c, "big")->pack_tolerance == 0.2);
	assert_non_null(strstr(loc_conf_describe(c, buf, sizeof(buf)),
			       "PackTolerance=0.05"));
	loc_conf_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pocket_wins_among_equal_squares),
		cmocka_unit_test(test_tolerance_trades_hops_for_perimeter),
		cmocka_unit_test(test_optimal_on_empty_small_grids),
		cmocka_unit_test(test_one_node_takes_the_most_enclosed),
		cmocka_unit_test(test_bounded_search_on_large_machines),
		cmocka_unit_test(test_repeated_questions_get_fresh_answers),
		cmocka_unit_test(test_conf_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
