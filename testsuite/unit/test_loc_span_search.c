/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_span_search.c - span's vector searches for the least window
 * (st_span_simd.c, st_span_stripes.c) at every level this CPU runs,
 * against 64-bit prefix sums: the 32-bit passes, the striped and rotated
 * searches, and the 64-bit step search past the 32-bit bound, with their
 * ties, short tails and refusals; and the first window's total and the
 * ring's second lap that the searches build on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "strategies/st_span.h"
#include "loc_test_util.h"
#include "loc_test_simd.h"

/*
 * What loc__span_least_simd() must answer for windows [0, nwin) of k
 * positions of x (m of them): the least total pairwise distance and its
 * first window, the largest x[i + k] - x[i] among them, and window nwin's
 * total; by 64-bit prefix sums of x[i] and i x[i].
 */
static void _ref_least(const int *x, int m, int k, int nwin,
		       loc__span_least_t *want)
{
	int64_t *p = malloc(sizeof(int64_t) * (m + 1));
	int64_t *r = malloc(sizeof(int64_t) * (m + 1));

	assert_true(p && r);
	p[0] = r[0] = 0;
	for (int i = 0; i < m; i++) {
		p[i + 1] = p[i] + x[i];
		r[i + 1] = r[i] + (int64_t)i * x[i];
	}
	want->best = INT64_MAX;
	want->at = -1;
	want->far = 0;
	for (int i = 0; i <= nwin; i++) {
		int64_t sum = p[i + k] - p[i];
		int64_t d = 2 * (r[i + k] - r[i] - i * sum) -
			    (int64_t)(k - 1) * sum;

		if (i == nwin) {
			want->next = d;
			break;
		}
		if (d < want->best) {
			want->best = d;
			want->at = i;
		}
		if (x[i + k] - x[i] > want->far)
			want->far = x[i + k] - x[i];
	}
	free(p);
	free(r);
}

static void _assert_least(const loc__span_least_t *got,
			  const loc__span_least_t *want)
{
	assert_int_equal(got->best, want->best);
	assert_int_equal(got->at, want->at);
	assert_int_equal(got->far, want->far);
	assert_int_equal(got->next, want->next);
}

/*
 * loc__span_least_simd() at each vector level the CPU runs, against every
 * window's total in 64 bits: increasing positions with random gaps of 1
 * to 4, or periodic ones (windows a period apart tie), k from 2 across the
 * AVX-512 pass's k >= 16 limit to hundreds, window counts around the
 * vector widths.
 */
static void test_vector_search_at_every_level(void **state)
{
	static const int ks[] = { 2, 3, 8, 9, 15, 16, 17, 31, 64, 100, 600 };
	uint64_t s = 11;
	int checked = 0;

	(void)state;
	for (int level = LOC_SIMD_AVX2; level <= (int)loc__simd_level();
	     level++) {
		for (int trial = 0; trial < 400; trial++) {
			int k = ks[trial % 11], nwin = 8 + tu_below(&s, 700);
			int m = nwin + k + tu_below(&s, 3);
			int *x = malloc(sizeof(int) * m);
			uint32_t *pre = malloc(sizeof(uint32_t) * (2 * m + 2));
			loc__span_least_t got, want;

			assert_true(x && pre);
			x[0] = tu_below(&s, 5);
			for (int i = 1; i < m; i++)
				x[i] = x[i - 1] + 1 + tu_below(&s, 4);
			/* Every other trial periodic gaps: windows a period
			 * apart tie, and the first must win. */
			if (trial % 2)
				for (int i = 1, p = 1 + tu_below(&s, 20);
				     i < m; i++)
					x[i] = x[i - 1] + (i % p ? 1 : 3);
			_ref_least(x, m, k, nwin, &want);
			assert_true(loc__span_least_simd(x, m, k, nwin, pre,
							 &got, level));
			_assert_least(&got, &want);
			free(x);
			free(pre);
			checked++;
		}
	}
	/* Say so when the CPU runs no vector level: nothing was checked. */
	if (loc__simd_level() == LOC_SIMD_NONE)
		skip();
	assert_true(checked >= 400);
}

/*
 * m increasing positions: gaps of 1 to g at random (kind 0), periodic
 * ones (1: windows a period apart tie, the first must win), shrinking ones
 * (2: the least at the very end) or 1-2 (3); from x[used] on, gaps of
 * `after`, which no window's far may see.
 */
static void _positions(int *x, int m, int used, int kind, int g, int after,
		       uint64_t *s)
{
	x[0] = tu_below(s, 5);
	for (int i = 1, per = 1 + tu_below(s, 40); i < m; i++)
		x[i] = x[i - 1] +
		       (i >= used ? after :
			kind == 0 ? 1 + tu_below(s, g) :
			kind == 1 ? (i % per ? 1 : 3) :
			kind == 2 ? 1 + (m - i) * 4 / m :
				    1 + tu_below(s, 2));
}

/*
 * The striped search (st_span_stripes.c) at every level the CPU runs, on
 * the window counts and k it takes (nwin >= 256, 16 k <= nwin: its
 * stripes' lengths, the last stripe short or not, reads past x[m-1]
 * masked), on _positions() of kinds 0-2 (ties within a stripe and across
 * two), with the room it asks for; refused on the k, counts and room it
 * does not take.
 */
static void test_striped_search(void **state)
{
	uint64_t s = 37;
	int checked = 0;

	(void)state;
	for (int level = LOC_SIMD_AVX2; level <= (int)loc__simd_level();
	     level++) {
		for (int trial = 0; trial < 300; trial++) {
			int nwin = 256 + tu_below(&s, trial % 3 ? 2000 : 20000);
			int k = 2 + tu_below(&s, nwin / 16 - 1);
			int m = nwin + k + tu_below(&s, 3), kind = trial % 3;
			int *x = malloc(sizeof(int) * m);
			size_t room = (size_t)nwin + 16 * (size_t)(k + 48);
			uint32_t *pre = malloc(sizeof(uint32_t) * room);
			loc__span_least_t got, want;

			assert_true(x && pre);
			_positions(x, m, nwin + k, kind, 4, 1000, &s);
			/* Gaps of 4 at most: every total fits in an int32. */
			assert_true((int64_t)k * k * k < INT32_MAX);
			_ref_least(x, m, k, nwin, &want);
			assert_true(loc__span_least_stripes(x, m, k, nwin, pre,
							    room, &got, level));
			_assert_least(&got, &want);
			/* Too little room, too large a k, too few windows. */
			assert_false(loc__span_least_stripes(
				x, m, k, nwin, pre, (size_t)nwin, &got, level));
			assert_false(loc__span_least_stripes(
				x, m, nwin / 16 + 1, nwin, pre, room, &got,
				level));
			assert_false(loc__span_least_stripes(
				x, m, 2, 255, pre, room, &got, level));
			free(x);
			free(pre);
			checked++;
		}
	}
	if (loc__simd_level() == LOC_SIMD_NONE)
		skip();
	assert_true(checked >= 300);
}

/*
 * The rotated search (st_span_rotated.c) at every level the CPU runs
 * (sixteen lanes with AVX-512, eight with AVX2), for any k up to twice
 * nwin and totals past 32 bits, on _positions() of every kind (gaps up
 * to 64 wide; ties across lanes), with the room it asks for; refused
 * below 256 windows, with less room, without vectors, and after scoring
 * when a step might not fit in 32 bits.
 */
static void test_rotated_search(void **state)
{
	uint64_t s = 41;

	(void)state;
	if (loc__simd_level() == LOC_SIMD_NONE)
		skip();
	for (int level = LOC_SIMD_AVX2; level <= (int)loc__simd_level() &&
					level <= LOC_SIMD_AVX512;
	     level++) {
		int checked = 0, refused = 0;

		for (int trial = 0; trial < 600; trial++) {
			int nwin = 256 + tu_below(&s, trial % 4 ? 3000 : 30000);
			int k = 2 + tu_below(&s, trial % 3 ? 2 * nwin
							   : nwin / 16 + 1);
			int m = nwin + k + tu_below(&s, 3), kind = trial % 4;
			int g = 1 + tu_below(&s, trial % 5 ? 4 : 64);
			int *x = malloc(sizeof(int) * m);
			size_t room = (size_t)nwin + k + (nwin + k) / 16 + 816;
			uint32_t *pre = malloc(sizeof(uint32_t) * room);
			loc__span_least_t got, want;

			assert_true(x && pre);
			_positions(x, m, nwin + k, kind, g, 100000, &s);
			_ref_least(x, m, k, nwin, &want);
			if (loc__span_least_rotated(x, m, k, nwin, pre, room,
						    &got, level)) {
				_assert_least(&got, &want);
				checked++;
			} else {
				/* Refused only when a step might not fit. */
				assert_true((int64_t)(k - 1) * want.far >=
					    LOC_SPAN_STEP_LIMIT);
				refused++;
			}
			assert_false(loc__span_least_rotated(
				x, m, k, nwin, pre, room - 800, &got, level));
			assert_false(loc__span_least_rotated(
				x, m, k, 255, pre, room, &got, level));
			assert_false(loc__span_least_rotated(
				x, m, k, nwin, pre, room, &got,
				LOC_SIMD_NONE));
			free(x);
			free(pre);
		}
		assert_true(checked >= 400 && refused >= 10);
	}
}

/*
 * The 64-bit search past the 32-bit bound, at every level: k from 513 to
 * 5000 with gaps wide enough that floor(k/2) ceil(k/2) spread passes
 * INT32_MAX, random, periodic (windows a period apart tie: the first must
 * win) or shrinking (a new least in nearly every block), against 64-bit
 * prefix sums; and gaps so wide that the steps might not fit, which must
 * be refused.
 */
static void test_vector_search_past_32_bits(void **state)
{
	uint64_t s = 23;
	int checked = 0, refused = 0;

	(void)state;
	for (int level = LOC_SIMD_AVX2; level <= (int)loc__simd_level();
	     level++) {
		for (int trial = 0; trial < 120; trial++) {
			int k = 513 + tu_below(&s, 4488);
			int nwin = 8 + tu_below(&s, 3000), m = nwin + k;
			int g = (int)((1LL << 27) / ((int64_t)k * k));
			int *x = malloc(sizeof(int) * m);
			uint32_t *pre = malloc(sizeof(uint32_t) * (2 * m + 2));
			int kind = trial % 4;
			loc__span_least_t got, want;

			assert_true(x && pre);
			/* kind 3: steps up to 8 (k-1) far, refused. */
			if (kind == 3)
				g = (int)((1LL << 31) / ((int64_t)k * k));
			x[0] = tu_below(&s, 100);
			/* Periodic after a costlier lead: the ties come past
			 * window 0, several in a block. */
			for (int i = 1, per = 2 + tu_below(&s, 4),
				 lead = tu_below(&s, 200);
			     i < m; i++)
				x[i] = x[i - 1] +
				       (kind == 1 ? (i < lead ? 2 * g :
						     i % per ? 1 : g) :
					kind == 2 ? 1 + (int)((int64_t)g *
							      (m - i) / m) :
						    1 + tu_below(&s, g));
			_ref_least(x, m, k, nwin, &want);
			/* The 32-bit bound fails: this is the 64-bit path. */
			assert_true((int64_t)(k / 2) * ((k + 1) / 2) *
					    (x[m - 1] - x[0]) >=
				    INT32_MAX);
			if (!loc__span_least_simd(x, m, k, nwin, pre, &got,
						  level)) {
				/* Refused only when a step might not fit. */
				assert_true((int64_t)(k - 1) * want.far >=
					    (1LL << 27));
				refused++;
			} else {
				_assert_least(&got, &want);
				checked++;
			}
			free(x);
			free(pre);
		}
	}
	if (loc__simd_level() == LOC_SIMD_NONE)
		skip();
	assert_true(checked >= 80 && refused >= 20);
}

/*
 * loc__span_first_total() and loc__span_plus() at every level, scalar
 * included, against a plain loop: k and cnt across the vector widths and
 * their tails, positions past 65,536 (a ring's doubled ranks) and sums
 * past 32 bits, and gaps so wide that products do not fit in 32 bits.
 */
static void test_first_total_and_plus(void **state)
{
	static const int ks[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31,
				  32, 33, 100, 4095, 4096, 4097, 20000 };
	uint64_t s = 31;
	int x[20000 + 1], got[20000 + 1];

	(void)state;
	for (int level = LOC_SIMD_NONE; level <= (int)loc__simd_level();
	     level++) {
		for (size_t t = 0; t < 2 * sizeof(ks) / sizeof(ks[0]); t++) {
			int k = ks[t / 2], add = tu_below(&s, 65537);
			/* Odd t: gaps so wide (up to 400,000, for k up to
			 * 4,097) that products pass 32 bits. */
			int gap = t % 2 && k <= 4097 ? 400000 : 6;
			int64_t want = 0;

			x[0] = tu_below(&s, 4);
			for (int j = 1; j < k; j++)
				x[j] = x[j - 1] + 1 + tu_below(&s, gap);
			for (int j = 0; j < k; j++)
				want += (2 * (int64_t)j - (k - 1)) * x[j];
			assert_int_equal(loc__span_first_total(x, k, level),
					 want);
			/* One value past cnt must stay as it was. */
			got[k] = -7;
			loc__span_plus(got, x, k, add, level);
			for (int j = 0; j < k; j++)
				assert_int_equal(got[j], x[j] + add);
			assert_int_equal(got[k], -7);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector_search_at_every_level),
		cmocka_unit_test(test_striped_search),
		cmocka_unit_test(test_rotated_search),
		cmocka_unit_test(test_vector_search_past_32_bits),
		cmocka_unit_test(test_first_total_and_plus),
	};

	tu_simd_report("test_loc_span_search");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
