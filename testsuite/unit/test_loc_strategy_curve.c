/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_curve.c - every curve-order configuration (freelist,
 * firstfit, bestfit, sumsquares, span, paging, random, contiguous mode,
 * SL) through the public allocator API: invariants on random fragmented
 * states and tiny machines, the five curve strategies against reference
 * versions on wide maps, and answers that do not depend on history.
 * Exact choices on small instances are in test_loc_strategy_fit.c,
 * paging, random and contiguous mode in test_loc_strategy_paging.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "loc_test_util.h"
#include "loc_test_curve.h"

static const cfg_t _cfgs[] = {
	{ .strategy = LOC_STRATEGY_FREELIST },
	{ .strategy = LOC_STRATEGY_FIRSTFIT },
	{ .strategy = LOC_STRATEGY_BESTFIT },
	{ .strategy = LOC_STRATEGY_SUMSQUARES },
	{ .strategy = LOC_STRATEGY_SPAN },
	{ .strategy = LOC_STRATEGY_PAGING, .paging_size = 1,
	  .paging_index = LOC_PAGING_ROWMAJOR },
	{ .strategy = LOC_STRATEGY_PAGING, .paging_index = LOC_PAGING_SNAKE },
	{ .strategy = LOC_STRATEGY_PAGING, .paging_size = 2,
	  .paging_index = LOC_PAGING_SHUFFLED },
	{ .strategy = LOC_STRATEGY_RANDOM },
	{ .strategy = LOC_STRATEGY_BESTFIT, .contiguous = true },
	{ .strategy = LOC_STRATEGY_SPAN, .contiguous = true },
	{ .strategy = LOC_STRATEGY_FIRSTFIT, .walltime = LOC_WALLTIME_SL },
	{ .strategy = LOC_STRATEGY_BESTFIT, .walltime = LOC_WALLTIME_SL,
	  .tolerance = 0.5 },
	{ .strategy = LOC_STRATEGY_SUMSQUARES, .walltime = LOC_WALLTIME_COMBO,
	  .tolerance = 0.2 },
	{ .strategy = LOC_STRATEGY_SPAN, .walltime = LOC_WALLTIME_SL,
	  .tolerance = 0.3 },
	{ .strategy = LOC_STRATEGY_FREELIST, .contiguous = true,
	  .walltime = LOC_WALLTIME_SL, .tolerance = 0.5 },
};

#define NCFGS ((int)(sizeof(_cfgs) / sizeof(_cfgs[0])))

/* One call of configuration c: ENOFIT beyond the free count, otherwise
 * k distinct candidates (connected for contiguous, which may also say
 * ENOFIT), and the same answer when asked again. */
static void _check_call(loc_alloc_t *a, const cfg_t *c, const loc_grid_t *g,
			const uint8_t *cand, int k)
{
	int n = loc_grid_nnodes(g), out[256], again[256], rc;

	rc = tu_select_req(a, cand, k, c->contiguous, NULL, 0, out);
	if (k > tu_count(cand, n) || (c->contiguous && rc == LOC_ENOFIT)) {
		assert_int_equal(rc, LOC_ENOFIT);
		return;
	}
	assert_int_equal(rc, 0);
	tu_assert_placement(cand, n, out, k);
	if (c->contiguous)
		assert_true(tu_connected(g, out, k));
	assert_int_equal(
		tu_select_req(a, cand, k, c->contiguous, NULL, 0, again), 0);
	assert_memory_equal(out, again, sizeof(int) * k);
}

/* ---------------------------------------------------------------- */

/* Every configuration, on many fragmented states of 1-D, 2-D and 3-D
 * meshes and tori (odd sizes, one or two nodes per point), with every
 * curve: see _check_call(). */
static void test_random_states_keep_invariants(void **state)
{
	uint64_t s = 12345;
	int calls = 0;

	(void)state;
	for (int gi = 0; gi < 4 * NSHAPES; gi++) {
		loc_grid_t *g = tu_grid_at(tu_shapes, gi);
		int n = loc_grid_nnodes(g);

		for (int c = 0; c < NCFGS; c++) {
			loc_alloc_t *a = tu_alloc_full(
				g, &_cfgs[c], (gi + c) % LOC_CURVE_COUNT,
				c + 7);

			for (int st = 0; st < 24; st++) {
				uint8_t cand[256];
				int nf;

				tu_fragmented(cand, n, 0.2 + 0.03 * st,
					      s + st * 31 + c);
				nf = tu_count(cand, n);
				_check_call(a, &_cfgs[c], g, cand,
					    1 + tu_below(&s, nf ? nf : 1));
				_check_call(a, &_cfgs[c], g, cand,
					    1 + tu_below(&s, nf / 3 + 1));
				_check_call(a, &_cfgs[c], g, cand, nf ? nf : 1);
				_check_call(a, &_cfgs[c], g, cand, nf + 1);
				calls += 4;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(calls > 8000);
}

/* Machines of one to six nodes, every candidate map, every k. */
static void test_tiny_machines(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 1 } }, { 1, { 2 } }, { 1, { 3 } },
		{ 2, { 1, 1 } }, { 2, { 2, 2 } }, { 3, { 1, 2, 1 } },
	};

	(void)state;
	for (int gi = 0; gi < 4 * 6; gi++) {
		loc_grid_t *g = tu_grid_at(shapes, gi);
		int n = loc_grid_nnodes(g);

		for (int c = 0; c < NCFGS && n <= 6; c++) {
			loc_alloc_t *a = tu_alloc_full(g, &_cfgs[c], c % 3, 3);

			for (int mask = 0; mask < (1 << n); mask++) {
				uint8_t cand[6];

				for (int v = 0; v < n; v++)
					cand[v] = (mask >> v) & 1;
				for (int k = 1; k <= n + 1; k++)
					_check_call(a, &_cfgs[c], g, cand, k);
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
}

/* ---------------------------------------------------------------- */

/*
 * Reference versions of the curve strategies, written for clarity (one
 * rank at a time, no bitmaps): the allocator scans 64 ranks per step, so
 * these check it on maps of several words, runs across word boundaries
 * and rings whose ends join.
 */

/* Free intervals as the fit strategies define them: maximal runs of free
 * ranks; on a ring the runs at both ends join, listed last. Returns the
 * count; iv[2i], iv[2i+1] = start, end (exclusive, may exceed n). */
static int _ref_intervals(const int *fr, int m, int n, bool ring, int *iv)
{
	int nint = 0;

	for (int i = 0; i < m; i++) {
		if (i && fr[i] == fr[i - 1] + 1) {
			iv[2 * nint - 1]++;
			continue;
		}
		iv[2 * nint] = fr[i];
		iv[2 * nint + 1] = fr[i] + 1;
		nint++;
	}
	if (ring && nint >= 2 && iv[0] == 0 && iv[2 * nint - 1] == n) {
		iv[2 * nint - 1] = n + iv[1];
		memmove(iv, iv + 2, sizeof(int) * 2 * (nint - 1));
		nint--;
	}
	return nint;
}

/* Sum of squares of the interval size counts after placing k in an
 * interval of size len (hist: counts by size, n + 1 entries). */
static int64_t _ref_sumsq(const int *hist, int n, int len, int k)
{
	int64_t q = 0;

	for (int sz = 1; sz <= n; sz++) {
		int64_t c = hist[sz] - (sz == len) + (sz == len - k);

		q += c * c;
	}
	return q;
}

/*
 * The ranks a curve strategy (freelist, first/best fit, sum of squares,
 * span) must choose on this map, ascending; k <= m. For span the total
 * pairwise distance is brute-forced per window, so keep k small.
 */
static void _ref_choice(loc_strategy_kind_t kind, const int *fr, int m,
			int n, bool ring, int k, int *want)
{
	int *iv = malloc(sizeof(int) * 2 * (m + 1)), nint, best_i = -1;
	int nwin = ring ? m : m - k + 1;
	int64_t best = INT64_MAX;

	assert_non_null(iv);
	if (kind == LOC_STRATEGY_FREELIST || k == m) {
		memcpy(want, fr, sizeof(int) * k);
		free(iv);
		return;
	}
	nint = _ref_intervals(fr, m, n, ring, iv);
	if (kind == LOC_STRATEGY_SPAN) {
		for (int w = 0; w < nwin; w++) {
			int rk[512];
			int64_t c;

			tu_window(fr, m, k, w, rk);
			c = tu_rank_cost(rk, k, n, ring);
			if (c < best) {
				best = c;
				best_i = w;
			}
		}
		tu_window(fr, m, k, best_i, want);
		free(iv);
		return;
	}
	for (int i = 0; i < nint; i++) {
		int len = iv[2 * i + 1] - iv[2 * i];
		int64_t c;
		int hist[520] = { 0 };

		if (len < k)
			continue;
		if (kind == LOC_STRATEGY_FIRSTFIT) {
			best_i = i;
			break;
		}
		if (kind == LOC_STRATEGY_BESTFIT) {
			c = len - k;
		} else {
			for (int j = 0; j < nint; j++)
				hist[iv[2 * j + 1] - iv[2 * j]]++;
			c = _ref_sumsq(hist, n, len, k);
		}
		if (c < best) {
			best = c;
			best_i = i;
		}
	}
	if (best_i >= 0) {
		for (int j = 0; j < k; j++)
			want[j] = (iv[2 * best_i] + j) % n;
		qsort(want, k, sizeof(int), tu_cmp_int);
		free(iv);
		return;
	}
	/* No interval holds k: the first window of least span. */
	for (int w = 0; w < nwin; w++) {
		int64_t c = (fr[(w + k - 1) % m] - fr[w] + n) % n + 1;

		if (c < best) {
			best = c;
			best_i = w;
		}
	}
	tu_window(fr, m, k, best_i, want);
	free(iv);
}

/* Grids of 63 to 512 nodes: runs cross 64-rank words, rings wrap. */
static const shape_t _wide_shapes[] = {
	{ 1, { 63 } }, { 1, { 64 } }, { 1, { 65 } }, { 1, { 127 } },
	{ 1, { 129 } }, { 1, { 200 } }, { 2, { 16, 16 } }, { 2, { 13, 17 } },
	{ 3, { 8, 8, 8 } }, { 3, { 7, 6, 5 } },
};

/* State st of a wide grid: fragmented, or every fourth a sparse random
 * map whose free nodes have candidate bytes 1 to 255. */
static void _wide_map(uint8_t *cand, int n, int st, uint64_t *s)
{
	if (st % 4 != 3) {
		tu_fragmented(cand, n, 0.1 + 0.055 * st, *s + st);
		return;
	}
	for (int v = 0; v < n; v++)
		cand[v] = (uint8_t)(tu_below(s, 4) ? 1 + tu_below(s, 255) : 0);
}

/* The curve strategies against _ref_choice() on wide grids, every curve,
 * dense and sparse maps (candidate bytes other than 1 count as free). */
static void test_curve_strategies_match_reference_on_wide_maps(void **state)
{
	static const loc_strategy_kind_t kinds[] = {
		LOC_STRATEGY_FREELIST, LOC_STRATEGY_FIRSTFIT,
		LOC_STRATEGY_BESTFIT, LOC_STRATEGY_SUMSQUARES,
		LOC_STRATEGY_SPAN,
	};
	int nshapes = (int)(sizeof(_wide_shapes) / sizeof(_wide_shapes[0]));
	uint64_t s = 2024;
	int checked = 0;

	(void)state;
	for (int gi = 0; gi < 2 * nshapes; gi++) {
		const shape_t *sh = &_wide_shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool ring = tu_all_torus(g);

		for (int ki = 0; ki < 5; ki++) {
			loc_alloc_t *a = tu_alloc(g, kinds[ki], (gi + ki) % 3);
			const loc_curve_t *cv = loc_alloc_curve(a);

			for (int st = 0; st < 16; st++) {
				uint8_t cand[512];
				int fr[512], out[512], rk[512], want[512];
				int m, k, longest;

				_wide_map(cand, n, st, &s);
				m = tu_free_ranks(cv, cand, n, fr);
				if (!m)
					continue;
				longest = tu_longest_run(cv, cand, n, ring);
				switch (st % 4) {
				case 0:
					k = longest;
					break;
				case 1:
					k = longest < m ? longest + 1 : m;
					break;
				default:
					k = 1 + tu_below(&s, m);
				}
				/* Span's reference is quadratic per window. */
				if (kinds[ki] == LOC_STRATEGY_SPAN && k > 24 &&
				    k < m)
					k = 1 + tu_below(&s, 24);
				assert_int_equal(tu_select(a, cand, k, out), 0);
				tu_assert_placement(cand, n, out, k);
				tu_ranks_of(cv, out, k, rk);
				_ref_choice(kinds[ki], fr, m, n, ring, k,
					    want);
				assert_memory_equal(rk, want, sizeof(int) * k);
				checked++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(checked > 1000);
}

/*
 * The allocator keeps its copy of the candidate map (and the map in curve
 * order) from one call to the next, patching what changed: an allocator
 * that saw a long history of maps must answer exactly as a fresh one.
 * Maps drift by a few nodes, now and then by many (a rebuild), and use
 * candidate bytes other than 0 and 1.
 */
static void test_answers_do_not_depend_on_history(void **state)
{
	static const cfg_t cfgs[] = {
		{ .strategy = LOC_STRATEGY_FREELIST },
		{ .strategy = LOC_STRATEGY_FIRSTFIT },
		{ .strategy = LOC_STRATEGY_BESTFIT },
		{ .strategy = LOC_STRATEGY_SUMSQUARES },
		{ .strategy = LOC_STRATEGY_SPAN },
		{ .strategy = LOC_STRATEGY_RANDOM },
		{ .strategy = LOC_STRATEGY_PAGING },
		{ .strategy = LOC_STRATEGY_FREELIST, .contiguous = true },
		{ .strategy = LOC_STRATEGY_SPAN, .walltime = LOC_WALLTIME_SL,
		  .tolerance = 0.3 },
	};
	static const shape_t shapes[] = {
		{ 2, { 16, 16 } }, { 1, { 200 } }, { 3, { 9, 7, 5 } },
	};
	int ncfgs = (int)(sizeof(cfgs) / sizeof(cfgs[0]));
	uint64_t s = 77;
	int calls = 0;

	(void)state;
	for (int gi = 0; gi < 6; gi++) {
		loc_grid_t *g = tu_grid(shapes[gi / 2].ndims,
					shapes[gi / 2].dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);

		for (int c = 0; c < ncfgs; c++) {
			loc_alloc_t *a = tu_alloc_full(g, &cfgs[c], gi % 3, 5);
			uint8_t cand[512];

			tu_fragmented(cand, n, 0.4, s + c);
			for (int step = 0; step < 60; step++) {
				loc_alloc_t *fresh;
				int nf, k, out[512], want[512], rc;
				/* Mostly a few nodes; every tenth step,
				 * half the machine. */
				int flips = 1 + tu_below(&s, 6);

				if (step % 10 == 9)
					flips = n / 2;
				for (int i = 0; i < flips; i++) {
					int v = tu_below(&s, n);

					cand[v] = (uint8_t)(cand[v] ? 0 :
						1 + tu_below(&s, 3) * 100);
				}
				nf = tu_count(cand, n);
				k = 1 + tu_below(&s, nf ? nf : 1);
				rc = tu_select_req(a, cand, k,
						   cfgs[c].contiguous, NULL, 0,
						   out);
				fresh = tu_alloc_full(g, &cfgs[c], gi % 3, 5);
				assert_int_equal(
					tu_select_req(fresh, cand, k,
						      cfgs[c].contiguous, NULL,
						      0, want),
					rc);
				if (!rc)
					assert_memory_equal(out, want,
							    sizeof(int) * k);
				loc_alloc_destroy(fresh);
				calls++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(calls > 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_states_keep_invariants),
		cmocka_unit_test(test_tiny_machines),
		cmocka_unit_test(
			test_curve_strategies_match_reference_on_wide_maps),
		cmocka_unit_test(test_answers_do_not_depend_on_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
