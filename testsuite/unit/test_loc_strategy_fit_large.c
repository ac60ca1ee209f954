/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_fit_large.c - the fit strategies' search where it
 * runs over thousands of windows: the least-span fallback on machines of
 * 4,093 to 32,768 nodes against a reference, its vector least arc
 * (st_fit_simd.c) at every level this CPU runs, and the word-wise run
 * check that rules out long runs before any search.
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

/* The first window of least arc (fr[w + k - 1] - fr[w], around the ring
 * for the last k - 1 windows when ring), straight from the definition. */
static int _ref_least_arc(const int *fr, int m, int k, int n, bool ring)
{
	int nwin = ring ? m : m - k + 1, best = -1, best_w = -1;

	for (int w = 0; w < nwin; w++) {
		int j = w + k - 1;
		int arc = j < m ? fr[j] - fr[w] : fr[j - m] + n - fr[w];

		if (best_w < 0 || arc < best) {
			best = arc;
			best_w = w;
		}
	}
	return best_w;
}

/*
 * The fallback where it runs over thousands of windows: no interval holds
 * k, on meshes and tori of 4,093 to 32,768 nodes. Fragmented maps tie
 * often (runs of equal length a period apart), so a vector search that
 * kept the last least window, or missed the wrapping ones, fails here.
 */
static void test_fit_fallback_on_large_machines(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 4093 } }, { 3, { 16, 16, 16 } }, { 2, { 61, 67 } },
		{ 3, { 32, 32, 32 } },
	};
	static const int ks[] = { 40, 300, 1100, 4096 };
	int nshapes = (int)(sizeof(shapes) / sizeof(shapes[0]));
	uint64_t s = 515;
	int checked = 0;

	(void)state;
	for (int gi = 0; gi < 2 * nshapes; gi++) {
		const shape_t *sh = &shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool ring = tu_all_torus(g);
		tu_win_t b;

		tu_win_init(&b, n);
		for (int kind = LOC_STRATEGY_FIRSTFIT;
		     kind <= LOC_STRATEGY_SUMSQUARES; kind++) {
			loc_alloc_t *a = tu_alloc(g, kind, (gi + kind) % 3);
			const loc_curve_t *cv = loc_alloc_curve(a);

			for (int st = 0; st < 4; st++) {
				int m, longest;

				tu_fragmented(b.cand, n, 0.35 + 0.1 * st,
					      s + 31 * st + kind);
				m = tu_free_ranks(cv, b.cand, n, b.fr);
				longest = tu_longest_run(cv, b.cand, n, ring);
				for (int ki = 0; ki < 4; ki++) {
					int k = ks[ki], w;

					if (k <= longest || k >= m)
						continue;
					w = _ref_least_arc(b.fr, m, k, n, ring);
					tu_expect_window(a, &b, n, m, k, w);
					checked++;
				}
			}
			loc_alloc_destroy(a);
		}
		tu_win_free(&b);
		loc_grid_destroy(g);
	}
	assert_true(checked > 150);
}

/* The vector least arc at every level, against a plain loop, on random
 * arrays and hostile ranges (empty, shorter than a vector, odd tails). */
static void test_fit_least_arc_at_every_level(void **state)
{
	enum { LEN = 700 };
	int first[LEN], last[LEN];
	uint64_t s = 8;
	int checked = 0;

	(void)state;
	for (int round = 0; round < 400; round++) {
		int from = tu_below(&s, LEN), to = tu_below(&s, LEN + 1);
		int add = tu_below(&s, 3) ? 0 : 1 + tu_below(&s, 40000);
		int want = 2147483647;

		if (round % 3 == 0)
			to = from + tu_below(&s, 40) < LEN ?
				     from + tu_below(&s, 40) : LEN;
		for (int i = 0; i < LEN; i++) {
			first[i] = tu_below(&s, 1 << 20);
			last[i] = first[i] + tu_below(&s, 1 << 16);
		}
		/* The least, once, at a random place. */
		if (to > from)
			last[from + tu_below(&s, to - from)] -= 1 << 17;
		for (int i = from; i < to; i++)
			want = last[i] + add - first[i] < want ?
				       last[i] + add - first[i] : want;
		for (int lv = LOC_SIMD_NONE; lv <= (int)loc__simd_level();
		     lv++) {
			assert_int_equal(loc__fit_least_arc(first, last, add,
							    from, to,
							    (loc_simd_t)lv),
					 want);
			checked++;
		}
	}
	assert_true(checked >= 400);
}

/*
 * The fits and span rule out long runs with loc__bits_may_hold_run()
 * before searching: it must never say no where a run is. Every length
 * from 64 to 260 at every offset in a word, alone in the map, with the
 * range ending at the run or a little past it on either side.
 */
static void test_run_check_never_misses_a_run(void **state)
{
	int checked = 0;

	(void)state;
	for (int len = 64; len <= 260; len++)
		for (int p = 0; p < 64; p++)
			for (int edge = 0; edge < 4; edge++) {
				uint64_t bits[LOC__BITS_WORDS(512)] = { 0 };
				int start = 64 + p, end = start + len, iv[2];
				int from = edge & 1 ? start : start - 3;
				int to = edge & 2 ? end : end + 5;

				for (int r = start; r < end; r++)
					bits[r >> 6] |= 1ULL << (r & 63);
				assert_true(loc__bits_may_hold_run(bits, from,
								   to, len));
				assert_int_equal(loc__bits_runs(bits, from, to,
								len, iv, 1),
						 1);
				assert_int_equal(iv[0], start);
				assert_int_equal(loc__bits_runs(bits, from, to,
								len + 1, iv,
								1),
						 0);
				checked++;
			}
	assert_true(checked == 197 * 64 * 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_fallback_on_large_machines),
		cmocka_unit_test(test_fit_least_arc_at_every_level),
		cmocka_unit_test(test_run_check_never_misses_a_run),
	};

	tu_simd_report("test_loc_strategy_fit_large");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
