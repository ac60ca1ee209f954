/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_mm_rank.c - how the Manhattan Median family chooses the
 * centres it evaluates (st_mm_rank.c): the ranking by L1 star keeps the
 * m least stars in order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loc_test_mm.h"

/* Candidate c's place before d's: lesser star, then candidate order. */
static const int64_t *_star_of;

static int _cmp_star(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	if (_star_of[a] != _star_of[b])
		return _star_of[a] < _star_of[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/*
 * Ranks st->cand[0..ncand) for k nodes against their stars sorted by
 * brute force, for a random m (below, at or past ncand) and star count
 * limit; returns which case that was: 0 every star counted, 1 some past
 * the count (ranked among those under it), 2 too many past it (the heap).
 */
static int _check_rank(loc__mm_t *st, int k, int ncand, int64_t *star,
		       int *order, bool lower_count, uint64_t *rs)
{
	int64_t top = 0;
	int counted = 0, m, got;

	for (int i = 0; i < ncand; i++) {
		star[i] = loc__mm_star(st, st->cand[i], k, INT64_MAX);
		order[i] = i;
		top = star[i] > top ? star[i] : top;
	}
	_star_of = star;
	qsort(order, ncand, sizeof(int), _cmp_star);
	m = 1 + tu_below(rs, ncand + 2);
	st->star_hist_len = lower_count ? 1 + tu_below(rs, (int)top + 2) :
					  MM_STAR_HIST;
	for (int i = 0; i < ncand; i++)
		counted += star[i] < st->star_hist_len;
	got = loc__mm_rank_star(st, k, ncand, m);
	assert_int_equal(got, m < ncand ? m : ncand);
	for (int i = 0; i < got; i++)
		assert_int_equal(st->eval[i], st->cand[order[i]]);
	return counted == ncand ? 0 : counted >= m ? 1 : 2;
}

/*
 * The star ranking lists the m candidates with the least star, least
 * first (ties: candidate order), with every star counted, some past the
 * count and too many past it.
 */
static void test_star_rank_keeps_least(void **state)
{
	long cases[3] = { 0 };

	(void)state;
	for (int sc = 0; sc < TM_NSHAPES; sc++) {
		const tm_shape_t *s = &tm_shapes[sc];

		for (int npp = 1; npp <= 3; npp += 2) {
			loc_grid_t *g =
				tu_grid(s->ndims, s->dims, s->torus, npp);
			loc__mm_t *st = tm_state(g);
			int64_t *star = malloc(sizeof(int64_t) * st->npoints);
			int *order = malloc(sizeof(int) * st->npoints);
			uint64_t rs = 113 + sc * 7 + npp;

			assert_non_null(star);
			assert_non_null(order);
			for (int round = 0; round < 40; round++) {
				int nfree = tm_load(st, &rs), ncand = 0;

				if (!nfree)
					continue;
				for (int p = 0; p < st->npoints; p++)
					if (tu_below(&rs, 4))
						st->cand[ncand++] = p;
				cases[_check_rank(st, 1 + tu_below(&rs, nfree),
						  ncand, star, order,
						  round % 2, &rs)]++;
			}
			loc__st_mm.fini(st);
			loc_grid_destroy(g);
			free(star);
			free(order);
		}
	}
	print_message("rankings: every star counted %ld, some past the count %ld, by the heap %ld\n",
		      cases[0], cases[1], cases[2]);
	assert_true(cases[0] > 50 && cases[1] > 50 && cases[2] > 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_star_rank_keeps_least),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
