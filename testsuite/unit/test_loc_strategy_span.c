/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_span.c - what span (and the fits) start from on large
 * machines: the listing of free ranks, at every vector level this CPU
 * runs, and the search for runs of free ranks, against bit-by-bit ones on
 * hostile ranges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "loc_strategy_internal.h"
#include "loc_test_util.h"

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

/* loc__bits_runs() against a bit at a time for long runs (len >= 64 takes
 * a quick check first): maps dense enough to hold them, or not. */
static void test_long_runs(void **state)
{
	uint64_t s = 9;

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
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listing_free_ranks),
		cmocka_unit_test(test_long_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
