/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_mm_rank.c - how the Manhattan Median family chooses the
 * centres it evaluates (st_mm_rank.c): the free counts per point and the
 * candidate centres, on row-major grids, partly filled ones and nodes
 * listed out of order; and the ranking by L1 star, which keeps the m
 * least stars in order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loc_ctx.h"
#include "loc_strategy_ops.h"
#include "loc_test_mm.h"

/* A random free map over ctx's nodes, denser or sparser by round (sparse
 * rounds leave whole slices empty); pf gets its counts per point. */
static void _random_free(loc__ctx_t *ctx, uint8_t *free_map, int *pf,
			 int np, int round, uint64_t *rs)
{
	int one_in = 8 * (1 + round % 4);

	memset(pf, 0, sizeof(int) * np);
	ctx->nfree = 0;
	for (int v = 0; v < ctx->nnodes; v++) {
		free_map[v] = tu_below(rs, one_in) == 0 ||
			      (round % 4 == 3 && tu_below(rs, 2));
		ctx->nfree += free_map[v];
		pf[loc_grid_node_point(ctx->grid, v)] += free_map[v];
	}
}

/* The candidates by definition, in point order, into want: genalg's
 * hold a free node; mm's have one in their slice across every axis. */
static int _want_candidates(const loc__mm_t *st, const int *pf, bool genalg,
			    uint8_t *has, int *want)
{
	int nd = st->nd, n = 0;

	memset(has, 0, (size_t)nd * st->maxlen);
	for (int p = 0; p < st->npoints; p++)
		for (int d = 0; d < nd; d++)
			has[d * st->maxlen + st->coord[p * nd + d]] |=
				pf[p] != 0;
	for (int p = 0; p < st->npoints; p++) {
		bool all = true;

		for (int d = 0; d < nd; d++)
			all &= has[d * st->maxlen + st->coord[p * nd + d]];
		if (genalg ? pf[p] != 0 : all)
			want[n++] = p;
	}
	return n;
}

/*
 * The free counts per point (whatever point_free held before), their
 * byte copy, and the candidates, on row-major grids, grids whose last
 * slots have no node, and nodes spread over the slots out of order.
 */
static void test_candidates_match_brute_force(void **state)
{
	long short_lists[2] = { 0 }, rowmajor = 0, other = 0;

	(void)state;
	for (int sc = 0; sc < TM_NSHAPES; sc++) {
		for (int form = 0; form < 6; form++) {
			const tm_shape_t *s = &tm_shapes[sc];
			uint64_t rs = 7 + sc * 31 + form;
			int npp = 1 + form % 3, np = 1, nnodes;
			loc_grid_t *g;
			loc__mm_t *st;
			uint8_t *free_map, *has;
			int *pf, *want;

			for (int d = 0; d < s->ndims; d++)
				np *= s->dims[d];
			nnodes = np * npp;
			if (form >= 3)
				nnodes -= tu_below(&rs, npp * 3);
			g = tu_grid_dealt(s->ndims, s->dims, s->torus, npp,
					  nnodes, form == 2 || form == 5, &rs);
			st = tm_state(g);
			rowmajor += st->rowmajor;
			other += !st->rowmajor;
			free_map = malloc(nnodes);
			pf = malloc(sizeof(int) * np);
			want = malloc(sizeof(int) * np);
			has = malloc((size_t)s->ndims * st->maxlen);
			assert_true(free_map && pf && want && has);
			for (int round = 0; round < 16; round++) {
				loc__ctx_t ctx = { .grid = g, .free = free_map,
						   .nnodes = nnodes, .k = 1 };
				bool genalg = round % 2;
				int n, nw;

				_random_free(&ctx, free_map, pf, np, round / 2,
					     &rs);
				memset(st->point_free, 0x55, sizeof(int) * np);
				n = loc__mm_candidates(&ctx, st, genalg);
				assert_memory_equal(st->point_free, pf,
						    sizeof(int) * np);
				assert_int_equal(st->point_free[np], 0);
				for (int p = 0; st->pad && p < np; p++)
					assert_int_equal(st->pf8[p], pf[p]);
				nw = _want_candidates(st, pf, genalg, has,
						      want);
				assert_int_equal(n, nw);
				assert_memory_equal(st->cand, want,
						    sizeof(int) * nw);
				short_lists[genalg] += nw < np;
			}
			loc__st_mm.fini(st);
			loc_grid_destroy(g);
			free(free_map);
			free(pf);
			free(want);
			free(has);
		}
	}
	print_message("lists short of every point: mm %ld, genalg %ld\n",
		      short_lists[0], short_lists[1]);
	print_message("row-major grids %ld, others %ld\n", rowmajor, other);
	assert_true(short_lists[0] > 50 && short_lists[1] > 200);
	assert_true(rowmajor > 20 && other > 10);
}

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
		cmocka_unit_test(test_candidates_match_brute_force),
		cmocka_unit_test(test_star_rank_keeps_least),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
