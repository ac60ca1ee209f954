/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_mm_walk.c - the Manhattan Median family's nearest-node walk
 * (st_mm_walk.c): the padded copy of the free counts holds, at every
 * centre plus every offset, what the axis tables reach; walks through it
 * record the same points as walks through the tables; grids whose
 * copy would be too large walk through the tables; the walked set's
 * total pairwise hops, with and without vectors, is the pairs' sum; and
 * the L1 star that ranks centres is the walk's hops to its centre.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loc_strategy_ops.h"
#include "loc_test_mm.h"
#include "loc_test_simd.h"

/* Every centre plus every offset reads, in the copy, the count the axis
 * tables reach (0 off a mesh edge). */
static void test_padded_copy_matches_axis_tables(void **state)
{
	long checked = 0;

	(void)state;
	for (int sc = 0; sc < TM_NSHAPES; sc++) {
		const tm_shape_t *s = &tm_shapes[sc];

		for (int npp = 1; npp <= 3; npp++) {
			loc_grid_t *g = tu_grid(s->ndims, s->dims, s->torus, npp);
			loc__mm_t *st = tm_state(g);
			uint64_t rs = 17 + sc * 101 + npp;

			assert_int_equal(st->pad != NULL, s->padded);
			for (int round = 0; round < 3 && st->pad; round++) {
				tm_load(st, &rs);
				for (int p = 0; p < st->npoints; p++) {
					const uint8_t *at =
						st->pad + loc__mm_pad_at(st, p);
					const int *tab[LOC_MAX_DIMS];

					loc__mm_tabs(st, p, tab);
					for (int i = 0; i < st->noff; i++) {
						int pt = loc__mm_off_point(
							st, tab, i, st->nd);
						int want = pt < 0 ? 0 :
							   st->point_free[pt];

						assert_int_equal(
							at[st->pad_delta[i]],
							want);
						checked++;
					}
				}
			}
			loc__st_mm.fini(st);
			loc_grid_destroy(g);
		}
	}
	print_message("%ld padded reads checked\n", checked);
	assert_true(checked > 100000);
}

/* The walk through the copy, at every vector level this CPU runs and
 * without vectors, records what the walk through the tables does: the
 * same offsets, takes and radius, for every centre. */
static void test_padded_walk_matches_table_walk(void **state)
{
	long walks = 0;

	(void)state;
	for (int sc = 0; sc < TM_NSHAPES; sc++) {
		const tm_shape_t *s = &tm_shapes[sc];

		for (int c = 0; c < 3; c++) {
			static const int npps[] = { 1, 2, 11 };
			int npp = npps[c];
			loc_grid_t *g = tu_grid(s->ndims, s->dims, s->torus, npp);
			loc__mm_t *st = tm_state(g);
			int *off = malloc(sizeof(int) * st->nnodes);
			int *take = malloc(sizeof(int) * st->nnodes);
			uint8_t *pad = st->pad;
			loc_simd_t cpu = st->simd;
			uint64_t rs = 29 + sc * 13 + npp;

			assert_non_null(off);
			assert_non_null(take);
			if (!pad) {
				loc__st_mm.fini(st);
				loc_grid_destroy(g);
				free(off);
				free(take);
				continue;
			}
			for (int round = 0; round < 4; round++) {
				int nfree = tm_load(st, &rs), k;

				if (!nfree)
					continue;
				k = 1 + tu_below(&rs, nfree);
				for (int p = 0; p < st->npoints; p++) {
					int nent, radius;

					st->pad = NULL;
					loc__mm_walk(st, p, k);
					st->pad = pad;
					nent = st->nent;
					radius = st->radius;
					memcpy(off, st->ent_off, sizeof(int) * nent);
					memcpy(take, st->ent_take,
					       sizeof(int) * nent);
					for (int lv = LOC_SIMD_NONE; lv <= (int)cpu;
					     lv++) {
						st->simd = (loc_simd_t)lv;
						loc__mm_walk(st, p, k);
						assert_int_equal(st->nent, nent);
						assert_int_equal(st->radius,
								 radius);
						assert_memory_equal(
							st->ent_off, off,
							sizeof(int) * nent);
						assert_memory_equal(
							st->ent_take, take,
							sizeof(int) * nent);
						walks++;
					}
					st->simd = cpu;
				}
			}
			loc__st_mm.fini(st);
			loc_grid_destroy(g);
			free(off);
			free(take);
		}
	}
	print_message("%ld walks compared\n", walks);
	assert_true(walks > 2000);
}

/* Hops between points p and q of st's grid, from their coordinates. */
static int64_t _hops(const loc__mm_t *st, int p, int q)
{
	int64_t h = 0;

	for (int d = 0; d < st->nd; d++) {
		int a = st->coord[(size_t)p * st->nd + d];
		int b = st->coord[(size_t)q * st->nd + d];
		int delta = a > b ? a - b : b - a;

		h += st->torus[d] && st->len[d] - delta < delta ?
			     st->len[d] - delta :
			     delta;
	}
	return h;
}

/* The walked set's total pairwise hops, pair by pair. */
static int64_t _walk_cost_ref(const loc__mm_t *st, int centre)
{
	const int *tab[LOC_MAX_DIMS];
	int64_t total = 0;
	int *pt = malloc(sizeof(int) * st->nent);

	assert_non_null(pt);
	loc__mm_tabs(st, centre, tab);
	for (int e = 0; e < st->nent; e++)
		pt[e] = loc__mm_off_point(st, tab, st->ent_off[e], st->nd);
	for (int e = 0; e < st->nent; e++)
		for (int f = 0; f < e; f++)
			total += (int64_t)st->ent_take[e] * st->ent_take[f] *
				 _hops(st, pt[e], pt[f]);
	free(pt);
	return total;
}

/*
 * The total pairwise hops of a walked set, at every vector level this
 * CPU runs and without vectors, against the pairs one by one: sets of a
 * few points (pairs directly), up to 16 (vectors) and more (per-axis
 * counts), and a grid whose totals could pass 32 bits (no vectors).
 */
static void test_walk_cost_matches_pairs(void **state)
{
	static const tm_shape_t wide = { 1, { 2000 }, false, true };
	long sets[3] = { 0 };

	(void)state;
	for (int sc = 0; sc <= TM_NSHAPES; sc++) {
		const tm_shape_t *s = sc < TM_NSHAPES ? &tm_shapes[sc] : &wide;

		for (int npp = 1; npp <= 3; npp++) {
			int pp = sc < TM_NSHAPES ? npp : 100 + npp;
			loc_grid_t *g = tu_grid(s->ndims, s->dims, s->torus, pp);
			loc__mm_t *st = tm_state(g);
			loc_simd_t cpu = st->simd;
			uint64_t rs = 43 + sc * 7 + npp;

			assert_int_equal(st->pairs32, sc < TM_NSHAPES);
			for (int round = 0; round < 6; round++) {
				int nfree = tm_load(st, &rs);

				if (!nfree)
					continue;
				for (int i = 0; i < 40; i++) {
					int p = tu_below(&rs, st->npoints);
					int k = 1 + tu_below(&rs, nfree < 40 ?
									  nfree :
									  40);
					int64_t want;

					loc__mm_walk(st, p, k);
					want = _walk_cost_ref(st, p);
					for (int lv = LOC_SIMD_NONE; lv <= (int)cpu;
					     lv++) {
						st->simd = (loc_simd_t)lv;
						assert_int_equal(
							loc__mm_walk_cost(st),
							want);
					}
					st->simd = cpu;
					sets[st->nent <= 12 ? 0 :
					     st->nent <= 16 ? 1 : 2]++;
				}
			}
			loc__st_mm.fini(st);
			loc_grid_destroy(g);
		}
	}
	print_message("sets of <= 12 points %ld, 13-16 %ld, more %ld\n",
		      sets[0], sets[1], sets[2]);
	assert_true(sets[0] > 1000 && sets[1] > 100 && sets[2] > 100);
}

/*
 * The L1 star that ranks centres, at every vector level this CPU runs
 * and without vectors, on grids with and without the padded copy: with
 * no bound it is the walk's hops to the centre; under a bound it is
 * exact when at most the bound, else some value past it.
 */
static void test_star_matches_walk(void **state)
{
	long exact = 0, cut = 0;

	(void)state;
	for (int sc = 0; sc < TM_NSHAPES; sc++) {
		const tm_shape_t *s = &tm_shapes[sc];

		for (int npp = 1; npp <= 3; npp += 2) {
			loc_grid_t *g = tu_grid(s->ndims, s->dims, s->torus, npp);
			loc__mm_t *st = tm_state(g);
			loc_simd_t cpu = st->simd;
			uint64_t rs = 71 + sc * 5 + npp;

			for (int round = 0; round < 4; round++) {
				int nfree = tm_load(st, &rs);

				if (!nfree)
					continue;
				for (int p = 0; p < st->npoints; p++) {
					int k = 1 + tu_below(&rs, nfree);
					int64_t want = 0, bound;

					loc__mm_walk(st, p, k);
					for (int e = 0; e < st->nent; e++)
						want += (int64_t)st->ent_take[e] *
							st->off_l1[st->ent_off[e]];
					bound = tu_below(&rs, (int)want + 2);
					for (int lv = LOC_SIMD_NONE; lv <= (int)cpu;
					     lv++) {
						int64_t got;

						st->simd = (loc_simd_t)lv;
						assert_int_equal(
							loc__mm_star(st, p, k,
								     INT64_MAX),
							want);
						got = loc__mm_star(st, p, k,
								   bound);
						if (want <= bound)
							assert_int_equal(got,
									 want);
						else
							assert_true(got > bound);
						exact += want <= bound;
						cut += want > bound;
					}
					st->simd = cpu;
				}
			}
			loc__st_mm.fini(st);
			loc_grid_destroy(g);
		}
	}
	print_message("stars under their bound %ld, past it %ld\n", exact,
		      cut);
	assert_true(exact > 100 && cut > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_padded_copy_matches_axis_tables),
		cmocka_unit_test(test_padded_walk_matches_table_walk),
		cmocka_unit_test(test_walk_cost_matches_pairs),
		cmocka_unit_test(test_star_matches_walk),
	};

	tu_simd_report("test_loc_mm_walk");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
