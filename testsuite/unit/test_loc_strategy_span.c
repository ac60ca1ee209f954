/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_span.c - span on machines of thousands of nodes, where
 * its scan takes the vector paths (tested alone in test_loc_span_search.c)
 * or, past the 32-bit bound, the scalar one, against an independent 64-bit
 * reference; and the listing of
 * free ranks span starts from, and the search for runs of free ranks that
 * comes before it, against bit-by-bit ones on hostile ranges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "loc_test_util.h"
#include "loc_test_curve.h"
#include "loc_bits.h"
#include "loc_test_simd.h"

/*
 * The first window of least total pairwise distance, windows of k
 * consecutive free ranks (all m rotations on a ring), by prefix sums over
 * the doubled positions in 64 bits; -1 when some window of a ring spans
 * more than half of it (its ring total is not its line total: the small
 * maps of test_loc_strategy_curve.c brute-force those).
 */
static int _ref_least_window(const int *fr, int m, int n, bool ring, int k)
{
	int nwin = ring ? m : m - k + 1, best_w = -1;
	int64_t *p = malloc(sizeof(int64_t) * (2 * m + 1));
	int64_t *r = malloc(sizeof(int64_t) * (2 * m + 1));
	int64_t best = INT64_MAX;

	assert_non_null(p);
	assert_non_null(r);
	p[0] = r[0] = 0;
	for (int t = 0; t < 2 * m; t++) {
		int64_t q = t < m ? fr[t] : (int64_t)fr[t - m] + n;

		p[t + 1] = p[t] + q;
		r[t + 1] = r[t] + t * q;
	}
	for (int w = 0; w < nwin; w++) {
		int64_t first = p[w + 1] - p[w];
		int64_t last = p[w + k] - p[w + k - 1];
		int64_t s = p[w + k] - p[w];
		/* sum over j of (2j - (k-1)) q[w+j] */
		int64_t d = 2 * (r[w + k] - r[w] - w * s) -
			    (int64_t)(k - 1) * s;

		if (ring && 2 * (last - first) > n) {
			best_w = -1;
			break;
		}
		if (d < best) {
			best = d;
			best_w = w;
		}
	}
	free(p);
	free(r);
	return best_w;
}

/*
 * As _ref_least_window() on a ring, but exact with far pairs too: a
 * window's ring total is its line total less 2d - N for each pair d > N/2
 * apart, summed member by member (only in windows wider than N/2).
 */
static int _ref_ring_least_window(const int *fr, int m, int n, int k)
{
	int64_t *q = malloc(sizeof(int64_t) * 2 * m);
	int64_t *p = malloc(sizeof(int64_t) * (2 * m + 1));
	int64_t best = INT64_MAX;
	int best_w = -1;

	assert_true(q && p);
	p[0] = 0;
	for (int t = 0; t < 2 * m; t++) {
		q[t] = t < m ? fr[t] : (int64_t)fr[t - m] + n;
		p[t + 1] = p[t] + q[t];
	}
	for (int w = 0; w < m; w++) {
		int64_t d = 0;

		for (int j = 0; j < k; j++)
			d += (2 * (int64_t)j - (k - 1)) * q[w + j];
		if (2 * (q[w + k - 1] - q[w]) > n)
			for (int a = w, b = w; a < w + k; a++) {
				if (b <= a)
					b = a + 1;
				while (b < w + k && 2 * (q[b] - q[a]) <= n)
					b++;
				d -= 2 * (p[w + k] - p[b]) -
				     (int64_t)(w + k - b) * (2 * q[a] + n);
			}
		if (d < best) {
			best = d;
			best_w = w;
		}
	}
	free(q);
	free(p);
	return best_w;
}

/* A half-busy map with the busy nodes scattered one by one, as
 * loc_bench's default state. */
static void _scattered(uint8_t *cand, int n, double busy, uint64_t *s)
{
	for (int v = 0; v < n; v++)
		cand[v] = (int)tu_below(s, 1000) >= (int)(busy * 1000);
}

static void test_span_matches_reference_on_large_machines(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 4096 } }, { 1, { 4093 } }, { 3, { 16, 16, 16 } },
		{ 2, { 61, 67 } }, { 3, { 32, 32, 32 } },
	};
	static const int ks[] = { 2, 9, 64, 257, 512, 1500 };
	int nshapes = (int)(sizeof(shapes) / sizeof(shapes[0]));
	uint64_t s = 77;
	int checked = 0, skipped = 0;

	(void)state;
	for (int gi = 0; gi < 2 * nshapes; gi++) {
		const shape_t *sh = &shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool ring = tu_all_torus(g);
		loc_alloc_t *a = tu_alloc(g, LOC_STRATEGY_SPAN, gi % 3);
		const loc_curve_t *cv = loc_alloc_curve(a);
		tu_win_t b;

		tu_win_init(&b, n);
		for (int st = 0; st < 6; st++) {
			int m;

			if (st % 2)
				tu_fragmented(b.cand, n, 0.3 + 0.15 * (st / 2),
					      s + st);
			else
				_scattered(b.cand, n, 0.3 + 0.2 * (st / 2), &s);
			m = tu_free_ranks(cv, b.cand, n, b.fr);
			for (int ki = 0; ki < 6; ki++) {
				int k = ks[ki], w;

				if (k >= m)
					continue;
				w = _ref_least_window(b.fr, m, n, ring, k);
				if (w < 0) {
					skipped++;
					continue;
				}
				tu_expect_window(a, &b, n, m, k, w);
				checked++;
			}
		}
		tu_win_free(&b);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(checked > 250);
	assert_true(skipped < checked / 4);
}

/*
 * Large k on a 32,768-node torus and mesh and a 4,093-node ring: on the
 * rings all m windows, the wrapping ones among them scored with the rest
 * over the doubled ranks, or, when one of them has a far pair (a busy
 * third of the ring: the windows across it), with the scalar scan; against
 * the references (the ring's exact with far pairs).
 */
static void test_span_large_k_on_rings_and_meshes(void **state)
{
	static const shape_t shapes[] = { { 3, { 32, 32, 32 } },
					  { 1, { 4093 } } };
	static const int ks[] = { 513, 1024, 2048, 4096, 5000 };
	uint64_t s = 31;
	int checked = 0, far = 0;

	(void)state;
	for (int gi = 0; gi < 4; gi++) {
		const shape_t *sh = &shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2 == 0, 1);
		int n = loc_grid_nnodes(g);
		bool ring = tu_all_torus(g);
		loc_alloc_t *a = tu_alloc(g, LOC_STRATEGY_SPAN, gi % 3);
		const loc_curve_t *cv = loc_alloc_curve(a);
		tu_win_t b;

		tu_win_init(&b, n);
		for (int st = 0; st < 4; st++) {
			int m;

			_scattered(b.cand, n, 0.2 + 0.25 * (st % 3), &s);
			/* A busy third of the rank order. */
			if (st == 2)
				for (int r = 0; r < n / 3; r++)
					b.cand[loc_curve_node(cv, r)] = 0;
			/* Nine in ten free across rank 0: on a ring the least
			 * window wraps. */
			for (int r = 0; st == 3 && r < n; r++)
				if (r < n / 8 || r >= n - n / 8)
					b.cand[loc_curve_node(cv, r)] =
						tu_below(&s, 10) != 0;
			m = tu_free_ranks(cv, b.cand, n, b.fr);
			for (int ki = 0; ki < 5; ki++) {
				int k = ks[ki], w;

				if (k >= m)
					continue;
				w = ring ? _ref_ring_least_window(b.fr, m, n, k) :
					   _ref_least_window(b.fr, m, n, false,
							     k);
				far += ring && _ref_least_window(b.fr, m, n,
								 true, k) < 0;
				tu_expect_window(a, &b, n, m, k, w);
				checked++;
			}
		}
		tu_win_free(&b);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(checked >= 25 && far >= 3);
}

/* loc__bits_ones_at() against a bit at a time, at every level: random
 * densities, ranges starting and ending anywhere in a word, limits above,
 * at and below the count. */
static void test_listing_free_ranks(void **state)
{
	uint64_t s = 5;

	(void)state;
	for (int trial = 0; trial < 20000; trial++) {
		uint64_t bits[LOC__BITS_WORDS(700)] = { 0 };
		int n = 1 + tu_below(&s, 700), dens = tu_below(&s, 101);
		int from = tu_below(&s, n);
		int to = from + tu_below(&s, n - from + 1);
		int max = tu_below(&s, n + 2), pos[702], want[702], c = 0;

		for (int r = 0; r < n; r++)
			if ((int)tu_below(&s, 100) < dens)
				bits[r >> 6] |= 1ULL << (r & 63);
		for (int r = from; r < to && c < max; r++)
			if (bits[r >> 6] >> (r & 63) & 1)
				want[c++] = r;
		for (int level = LOC_SIMD_NONE;
		     level <= (int)loc__simd_level(); level++) {
			assert_int_equal(loc__bits_ones_at(bits, from, to, pos,
							   max, level),
					 c);
			assert_memory_equal(pos, want, sizeof(int) * c);
		}
	}
}

/* loc__bits_runs() against a bit at a time for long runs, and the quick
 * check span makes first for len >= 64 (loc__bits_may_hold_run()): maps
 * dense enough to hold them, or not. */
static void test_long_runs(void **state)
{
	uint64_t s = 9;
	int none = 0, maybe = 0;

	(void)state;
	for (int trial = 0; trial < 20000; trial++) {
		uint64_t bits[LOC__BITS_WORDS(700)] = { 0 };
		int n = 1 + tu_below(&s, 700), busy = tu_below(&s, 60);
		int from = tu_below(&s, n);
		int to = from + tu_below(&s, n - from + 1);
		int len = 1 + tu_below(&s, 200), max = 1 + tu_below(&s, 4);
		int iv[8], want[8], c = 0;

		/* Busy one rank in `busy` on average: runs of ~busy. */
		for (int r = 0; r < n; r++)
			if (busy == 0 || tu_below(&s, busy) != 0)
				bits[r >> 6] |= 1ULL << (r & 63);
		for (int r = from; r < to && c < max;) {
			int e = r;

			while (e < to && bits[e >> 6] >> (e & 63) & 1)
				e++;
			if (e - r >= len) {
				want[2 * c] = r;
				want[2 * c++ + 1] = e;
			}
			r = e + 1;
		}
		assert_int_equal(loc__bits_runs(bits, from, to, len, iv, max),
				 c);
		assert_memory_equal(iv, want, sizeof(int) * 2 * c);
		/* The quick check may say yes wrongly, never no; and it must
		 * say no often where no long run is. */
		if (c)
			assert_true(loc__bits_may_hold_run(bits, from, to, len));
		else if (len >= 64 && to - from >= len) {
			none++;
			maybe += loc__bits_may_hold_run(bits, from, to, len);
		}
	}
	assert_true(none > 1000 && maybe < none / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_matches_reference_on_large_machines),
		cmocka_unit_test(test_span_large_k_on_rings_and_meshes),
		cmocka_unit_test(test_listing_free_ranks),
		cmocka_unit_test(test_long_runs),
	};

	tu_simd_report("test_loc_strategy_span");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
