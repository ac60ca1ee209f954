/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_curve.c - curves: every curve is a permutation on 1-D..4-D
 * shapes of any size, Hilbert equals the classic curve on 2^n squares and
 * is continuous on every mesh shape, snake is continuous, the seed 000/002
 * quality objective (hand-computed values, Hilbert beats row-major), and
 * node ranks with several nodes per point and partly populated grids.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "loc_test_util.h"
#include "loc_curve.h"
#include "loc_hilbert.h"

static loc_grid_t *grid_of(int nd, const int *dims, bool torus)
{
	return tu_grid(nd, dims, torus, 1);
}

/* Returns the point order of kind; asserts it is a permutation. */
static int *point_order(const loc_grid_t *g, int kind)
{
	int np = loc_grid_npoints(g);
	int *order = malloc(sizeof(int) * np);
	char *seen = calloc(np, 1);
	loc_error_t err;

	assert_non_null(order);
	assert_int_equal(loc_curve_point_order(g, kind, order, &err), 0);
	for (int r = 0; r < np; r++) {
		assert_true(order[r] >= 0 && order[r] < np);
		assert_false(seen[order[r]]);
		seen[order[r]] = 1;
	}
	free(seen);
	return order;
}

static int breaks_of(int nd, const int *dims, bool torus, int kind)
{
	loc_grid_t *g = grid_of(nd, dims, torus);
	int *order = point_order(g, kind);
	int b = loc_curve_breaks(g, order);

	free(order);
	loc_grid_destroy(g);
	return b;
}

static void test_kind_names_round_trip(void **state)
{
	(void)state;
	for (int k = 0; k < LOC_CURVE_COUNT; k++)
		assert_int_equal(loc_curve_kind_parse(loc_curve_kind_name(k)),
				 k);
	assert_int_equal(loc_curve_kind_parse("HiLbErT"), LOC_CURVE_HILBERT);
	assert_int_equal(loc_curve_kind_parse("Snake"), LOC_CURVE_SNAKE);
	assert_int_equal(loc_curve_kind_parse("hilbert2"), -1);
	assert_int_equal(loc_curve_kind_parse(""), -1);
	assert_int_equal(loc_curve_kind_parse(NULL), -1);
	assert_string_equal(loc_curve_kind_name(LOC_CURVE_COUNT), "unknown");
}

static void test_every_curve_is_a_permutation(void **state)
{
	static const struct {
		int nd, dims[4];
	} shapes[] = {
		{ 1, { 1 } }, { 1, { 7 } }, { 1, { 16 } }, { 2, { 1, 1 } },
		{ 2, { 1, 9 } }, { 2, { 9, 1 } }, { 2, { 7, 3 } },
		{ 2, { 12, 10 } }, { 2, { 16, 16 } }, { 2, { 6, 10 } },
		{ 3, { 5, 4, 4 } }, { 3, { 8, 8, 5 } }, { 3, { 2, 2, 2 } },
		{ 3, { 3, 5, 7 } }, { 3, { 1, 6, 1 } }, { 3, { 9, 1, 4 } },
		{ 4, { 2, 3, 4, 5 } }, { 4, { 3, 3, 3, 3 } },
		{ 4, { 1, 5, 1, 4 } }, { 4, { 4, 4, 4, 1 } },
	};
	uint64_t seed = 99;

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		loc_grid_t *g = grid_of(shapes[i].nd, shapes[i].dims, false);

		for (int k = 0; k < LOC_CURVE_COUNT; k++)
			free(point_order(g, k));
		loc_grid_destroy(g);
	}
	for (int t = 0; t < 300; t++) {
		int nd = 1 + tu_below(&seed, 4), dims[4];
		loc_grid_t *g;

		for (int d = 0; d < nd; d++)
			dims[d] = 1 + tu_below(&seed, nd == 1 ? 40 : 9);
		g = grid_of(nd, dims, tu_below(&seed, 2));
		for (int k = 0; k < LOC_CURVE_COUNT; k++)
			free(point_order(g, k));
		loc_grid_destroy(g);
	}
}

static void test_one_dimensional_curves_are_the_identity(void **state)
{
	const int dims[1] = { 11 };
	loc_grid_t *g = grid_of(1, dims, false);

	(void)state;
	for (int k = 0; k < LOC_CURVE_COUNT; k++) {
		int *order = point_order(g, k);

		for (int r = 0; r < 11; r++)
			assert_int_equal(order[r], r);
		free(order);
	}
	loc_grid_destroy(g);
}

/* The classic Hilbert curve on a 2^m square (index d -> x, y). */
static void classic_hilbert(int n, int d, int *x, int *y)
{
	*x = *y = 0;
	for (int s = 1; s < n; s *= 2) {
		int rx = 1 & (d / 2), ry = 1 & (d ^ rx);

		if (!ry) {
			int t;

			if (rx) {
				*x = s - 1 - *x;
				*y = s - 1 - *y;
			}
			t = *x;
			*x = *y;
			*y = t;
		}
		*x += s * rx;
		*y += s * ry;
		d /= 4;
	}
}

/* On 2^m squares the generalised curve is the classic one up to one of
 * the square's eight symmetries. */
static void test_hilbert_is_classic_on_power_of_two_squares(void **state)
{
	(void)state;
	for (int n = 2; n <= 64; n *= 2) {
		const int dims[2] = { n, n };
		loc_grid_t *g = grid_of(2, dims, false);
		int *order = point_order(g, LOC_CURVE_HILBERT), matches = 0;

		for (int sym = 0; sym < 8; sym++) {
			bool same = true;

			for (int r = 0; r < n * n && same; r++) {
				int x, y, t;

				classic_hilbert(n, r, &x, &y);
				if (sym & 1)
					x = n - 1 - x;
				if (sym & 2)
					y = n - 1 - y;
				if (sym & 4) {
					t = x;
					x = y;
					y = t;
				}
				same = order[r] == x * n + y;
			}
			matches += same;
		}
		assert_int_equal(matches, 1);
		free(order);
		loc_grid_destroy(g);
	}
}

static void test_hilbert_has_no_breaks_on_power_of_two_grids(void **state)
{
	(void)state;
	for (int a = 1; a <= 64; a *= 2)
		for (int b = 1; b <= 64; b *= 2) {
			const int d2[2] = { a, b };

			assert_int_equal(breaks_of(2, d2, false,
						   LOC_CURVE_HILBERT), 0);
		}
	for (int a = 1; a <= 16; a *= 2)
		for (int b = 1; b <= 16; b *= 2)
			for (int c = 1; c <= 16; c *= 2) {
				const int d3[3] = { a, b, c };

				assert_int_equal(breaks_of(3, d3, false,
							   LOC_CURVE_HILBERT),
						 0);
			}
}

/*
 * Every rectangle and box has a Hamiltonian path (a snake), so the
 * generalised curve must manage with unit steps on all of them: odd x
 * odd, odd x even (major side chosen even), thin and flat boxes.
 */
static void test_hilbert_is_continuous_on_any_mesh_shape(void **state)
{
	const int named[][2] = { { 6, 10 }, { 12, 10 }, { 5, 7 }, { 7, 3 },
				 { 3, 7 }, { 9, 9 }, { 15, 4 }, { 2, 33 } };

	(void)state;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		assert_int_equal(breaks_of(2, named[i], false,
					   LOC_CURVE_HILBERT), 0);
	for (int a = 1; a <= 24; a++)
		for (int b = 1; b <= 24; b++) {
			const int d2[2] = { a, b };

			assert_int_equal(breaks_of(2, d2, false,
						   LOC_CURVE_HILBERT), 0);
		}
	for (int a = 1; a <= 9; a++)
		for (int b = 1; b <= 9; b++)
			for (int c = 1; c <= 9; c++) {
				const int d3[3] = { a, b, c };

				assert_int_equal(breaks_of(3, d3, false,
							   LOC_CURVE_HILBERT),
						 0);
			}
	for (int a = 1; a <= 4; a++)
		for (int b = 1; b <= 4; b++)
			for (int c = 1; c <= 3; c++)
				for (int e = 1; e <= 5; e++) {
					const int d4[4] = { a, b, c, e };

					assert_int_equal(
						breaks_of(4, d4, false,
							  LOC_CURVE_HILBERT),
						0);
				}
	/* Wraparound only adds links: a torus stays continuous. */
	{
		const int t3[3] = { 5, 4, 4 };

		assert_int_equal(breaks_of(3, t3, true, LOC_CURVE_HILBERT), 0);
	}
}

/* Depth-first search for a unit-step walk through every point of a
 * w x h x d box from (0,0,0) to (w-1,0,0). */
static bool ham_dfs(int w, int h, int d, char *seen, int x, int y, int z,
		    int left)
{
	static const int step[6][3] = { { 1, 0, 0 },  { -1, 0, 0 },
					{ 0, 1, 0 },  { 0, -1, 0 },
					{ 0, 0, 1 },  { 0, 0, -1 } };

	if (left == 1)
		return x == w - 1 && y == 0 && z == 0;
	if (x == w - 1 && y == 0 && z == 0)
		return false; /* reached the end too early */
	for (int i = 0; i < 6; i++) {
		int nx = x + step[i][0], ny = y + step[i][1],
		    nz = z + step[i][2], p;

		if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h ||
		    nz >= d)
			continue;
		p = (nx * h + ny) * d + nz;
		if (seen[p])
			continue;
		seen[p] = 1;
		if (ham_dfs(w, h, d, seen, nx, ny, nz, left - 1))
			return true;
		seen[p] = 0;
	}
	return false;
}

/* The recursion's walkability rule is exactly when such a walk exists. */
static void test_walkable_rule_matches_exhaustive_search(void **state)
{
	(void)state;
	for (int w = 1; w <= 6; w++)
		for (int h = 1; h <= 4; h++)
			for (int d = 1; d <= 3; d++) {
				char seen[72] = { 0 };
				bool exists, rule;

				if (w * h * d > 18)
					continue;
				seen[0] = 1;
				exists = ham_dfs(w, h, d, seen, 0, 0, 0,
						 w * h * d);
				rule = loc__hilbert_walkable(w, h, d);
				if (exists != rule)
					fail_msg("%dx%dx%d: search %d rule %d",
						 w, h, d, exists, rule);
			}
}

static void test_snake_is_continuous_and_rowmajor_is_not(void **state)
{
	uint64_t seed = 7;

	(void)state;
	for (int t = 0; t < 300; t++) {
		int nd = 1 + tu_below(&seed, 4), dims[4];

		for (int d = 0; d < nd; d++)
			dims[d] = 1 + tu_below(&seed, 7);
		assert_int_equal(breaks_of(nd, dims, false, LOC_CURVE_SNAKE),
				 0);
	}
	/* Row-major jumps back at every row end of a 2-D mesh. */
	for (int a = 1; a <= 9; a++)
		for (int b = 1; b <= 9; b++) {
			const int d2[2] = { a, b };

			assert_int_equal(breaks_of(2, d2, false,
						   LOC_CURVE_ROWMAJOR),
					 b >= 2 ? a - 1 : 0);
		}
}

static void test_snake_turns_planes_too(void **state)
{
	const int dims[3] = { 2, 2, 3 };
	loc_grid_t *g = grid_of(3, dims, false);
	int *order = point_order(g, LOC_CURVE_SNAKE);
	/* Plane 0 rows 0,1 then plane 1 rows 1,0, each row reversing. */
	const int expect[12] = { 0, 1, 2, 5, 4, 3, 9, 10, 11, 8, 7, 6 };

	(void)state;
	for (int r = 0; r < 12; r++)
		assert_int_equal(order[r], expect[r]);
	free(order);
	loc_grid_destroy(g);
}

static void test_quality_and_breaks_by_hand(void **state)
{
	const int line[1] = { 4 }, sq[2] = { 2, 2 }, rect[2] = { 2, 3 };
	loc_grid_t *g;
	int *order;

	(void)state;
	/* Line 0-1-2-3: gap 1: 3 x 1; gap 2: 2 x 2 x 1/2; gap 3: 3 x 1/4. */
	g = grid_of(1, line, false);
	order = point_order(g, LOC_CURVE_ROWMAJOR);
	assert_true(loc_curve_quality(g, order, 1) == 3.0);
	assert_true(loc_curve_quality(g, order, 3) == 5.75);
	assert_true(loc_curve_quality(g, order, 100) == 5.75);
	assert_true(loc_curve_quality(g, order, 0) == 0.0);
	assert_int_equal(loc_curve_breaks(g, order), 0);
	free(order);
	loc_grid_destroy(g);
	/* On a ring the gap-3 pair (0, 3) is one hop. */
	g = grid_of(1, line, true);
	order = point_order(g, LOC_CURVE_ROWMAJOR);
	assert_true(loc_curve_quality(g, order, 3) == 5.25);
	free(order);
	loc_grid_destroy(g);
	/* 2x2 square walked as a U: gap 2 pairs are diagonals (2 hops). */
	g = grid_of(2, sq, false);
	order = point_order(g, LOC_CURVE_HILBERT);
	assert_true(loc_curve_quality(g, order, 3) == 3.0 + 2.0 + 0.25);
	assert_int_equal(loc_curve_breaks(g, order), 0);
	free(order);
	order = point_order(g, LOC_CURVE_ROWMAJOR);
	/* (0,0) (0,1) (1,0) (1,1): gap 1 = 1+2+1, gap 2 = 1+1, gap 3 = 2. */
	assert_true(loc_curve_quality(g, order, 3) == 4.0 + 1.0 + 0.5);
	assert_int_equal(loc_curve_breaks(g, order), 1);
	free(order);
	loc_grid_destroy(g);
	/* 2x3 row-major: (0,2) -> (1,0) is the one break (3 hops). */
	g = grid_of(2, rect, false);
	order = point_order(g, LOC_CURVE_ROWMAJOR);
	assert_int_equal(loc_curve_breaks(g, order), 1);
	free(order);
	loc_grid_destroy(g);
}

/* Quality figures (seed 000/002 objective, gaps 1..16) printed for the
 * record; Hilbert must beat row-major everywhere and snake on the cubes
 * and squares. */
static void test_hilbert_quality_beats_rowmajor(void **state)
{
	static const struct {
		int nd, dims[3];
		bool beat_snake;
	} shapes[] = {
		{ 2, { 16, 16 }, true }, { 2, { 32, 32 }, true },
		{ 3, { 8, 8, 8 }, true }, { 3, { 5, 4, 4 }, false },
		{ 2, { 12, 10 }, false }, { 3, { 8, 8, 5 }, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		loc_grid_t *g = grid_of(shapes[i].nd, shapes[i].dims, false);
		double q[LOC_CURVE_COUNT];
		char desc[64];

		for (int k = 0; k < LOC_CURVE_COUNT; k++) {
			int *order = point_order(g, k);

			q[k] = loc_curve_quality(g, order, 16);
			free(order);
		}
		snprintf(desc, sizeof(desc), "%d", shapes[i].dims[0]);
		for (int d = 1; d < shapes[i].nd; d++)
			snprintf(desc + strlen(desc),
				 sizeof(desc) - strlen(desc), "x%d",
				 shapes[i].dims[d]);
		print_message("quality %-8s hilbert %9.2f snake %9.2f rowmajor %9.2f\n",
			      desc, q[LOC_CURVE_HILBERT], q[LOC_CURVE_SNAKE],
			      q[LOC_CURVE_ROWMAJOR]);
		assert_true(q[LOC_CURVE_HILBERT] < q[LOC_CURVE_ROWMAJOR]);
		assert_true(q[LOC_CURVE_SNAKE] < q[LOC_CURVE_ROWMAJOR]);
		if (shapes[i].beat_snake)
			assert_true(q[LOC_CURVE_HILBERT] < q[LOC_CURVE_SNAKE]);
		loc_grid_destroy(g);
	}
}

/* Node ranks: a bijection, monotone in the point order, nodes sharing a
 * point consecutive and ascending, empty points skipped. */
static void check_node_ranks(const loc_grid_t *g, int kind)
{
	int n = loc_grid_nnodes(g), np = loc_grid_npoints(g);
	int *porder = point_order(g, kind), *prank = malloc(sizeof(int) * np);
	loc_error_t err;
	loc_curve_t *c = loc_curve_create(g, kind, &err);
	const int *order, *ranks;

	assert_non_null(c);
	assert_int_equal(loc_curve_kind(c), kind);
	assert_ptr_equal(loc_curve_grid(c), g);
	order = loc_curve_order(c);
	ranks = loc_curve_ranks(c);
	for (int r = 0; r < np; r++)
		prank[porder[r]] = r;
	for (int r = 0; r < n; r++) {
		int node = order[r];

		assert_true(node >= 0 && node < n);
		assert_int_equal(ranks[node], r);
		assert_int_equal(loc_curve_node(c, r), node);
		assert_int_equal(loc_curve_rank(c, node), r);
		if (r) {
			int a = prank[loc_grid_node_point(g, order[r - 1])];
			int b = prank[loc_grid_node_point(g, node)];

			assert_true(a <= b);
			if (a == b)
				assert_true(order[r - 1] < node);
		}
	}
	loc_curve_destroy(c);
	free(prank);
	free(porder);
}

static void test_node_ranks_with_shared_and_empty_points(void **state)
{
	const int dims[2] = { 3, 4 };
	loc_shape_t s = { .ndims = 2, .dims = { 3, 4 }, .nodes_per_point = 3 };
	loc_error_t err;
	loc_grid_t *g;
	loc_curve_t *c;

	(void)state;
	/* Full grid, three nodes per point. */
	g = tu_grid(2, dims, false, 3);
	for (int k = 0; k < LOC_CURVE_COUNT; k++)
		check_node_ranks(g, k);
	c = loc_curve_create(g, LOC_CURVE_HILBERT, &err);
	assert_non_null(c);
	for (int r = 0; r < 36; r += 3) {
		assert_int_equal(loc_curve_node(c, r) % 3, 0);
		assert_int_equal(loc_curve_node(c, r + 1),
				 loc_curve_node(c, r) + 1);
	}
	loc_curve_destroy(c);
	loc_grid_destroy(g);

	/* Partly populated: 20 of 36 slots, tail points empty. */
	g = loc_grid_create(&s, 20, &err);
	assert_non_null(g);
	for (int k = 0; k < LOC_CURVE_COUNT; k++)
		check_node_ranks(g, k);
	/* Explicit coordinates leaving holes in the middle, uneven counts. */
	for (int i = 0; i < 20; i++) {
		loc_coord_t co = { { (i * 7) % 3, (i / 3) % 4 } };

		if (co.c[1] == 1)
			co.c[1] = 3; /* column 1 stays empty */
		assert_int_equal(loc_grid_set_node_coord(g, i, &co, &err), 0);
	}
	if (loc_grid_finalize(g, &err) == 0) {
		for (int k = 0; k < LOC_CURVE_COUNT; k++)
			check_node_ranks(g, k);
	} else {
		fail_msg("test layout over-fills a point: %s", err.text);
	}
	loc_grid_destroy(g);
}

static void test_bad_arguments_are_rejected(void **state)
{
	const int dims[2] = { 4, 4 };
	loc_grid_t *g = grid_of(2, dims, false);
	loc_error_t err;
	int order[16];

	(void)state;
	loc_error_clear(&err);
	assert_null(loc_curve_create(NULL, LOC_CURVE_HILBERT, &err));
	assert_int_equal(err.code, LOC_EINVAL);
	loc_error_clear(&err);
	assert_null(loc_curve_create(g, LOC_CURVE_COUNT, &err));
	assert_int_equal(err.code, LOC_EINVAL);
	assert_null(loc_curve_create(g, (loc_curve_kind_t)-1, NULL));
	assert_int_equal(loc_curve_point_order(g, LOC_CURVE_SNAKE, NULL, &err),
			 LOC_EINVAL);
	assert_int_equal(loc_curve_point_order(NULL, LOC_CURVE_SNAKE, order,
					       &err),
			 LOC_EINVAL);
	assert_int_equal(loc_curve_point_order(g, LOC_CURVE_COUNT, order,
					       &err),
			 LOC_EINVAL);
	loc_curve_destroy(NULL);
	loc_grid_destroy(g);
}

/* 32x32x32 (and a 4-D grid of the same size) builds every curve; the
 * time is printed, not asserted. */
static void test_large_grids_build_quickly(void **state)
{
	const int d3[3] = { 32, 32, 32 }, d4[4] = { 8, 8, 8, 64 };
	const int *shapes[2] = { d3, d4 };

	(void)state;
	for (int s = 0; s < 2; s++) {
		loc_grid_t *g = grid_of(s ? 4 : 3, shapes[s], false);

		for (int k = 0; k < LOC_CURVE_COUNT; k++) {
			struct timespec t0, t1;
			loc_curve_t *c;
			int *order;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			c = loc_curve_create(g, k, NULL);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			assert_non_null(c);
			print_message("%s %s: %.2f ms for %d points\n",
				      s ? "8x8x8x64" : "32x32x32",
				      loc_curve_kind_name(k),
				      (t1.tv_sec - t0.tv_sec) * 1e3 +
					      (t1.tv_nsec - t0.tv_nsec) / 1e6,
				      loc_grid_npoints(g));
			loc_curve_destroy(c);
			order = point_order(g, k);
			if (k != LOC_CURVE_ROWMAJOR)
				assert_int_equal(loc_curve_breaks(g, order), 0);
			free(order);
		}
		loc_grid_destroy(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names_round_trip),
		cmocka_unit_test(test_every_curve_is_a_permutation),
		cmocka_unit_test(test_one_dimensional_curves_are_the_identity),
		cmocka_unit_test(test_hilbert_is_classic_on_power_of_two_squares),
		cmocka_unit_test(test_hilbert_has_no_breaks_on_power_of_two_grids),
		cmocka_unit_test(test_hilbert_is_continuous_on_any_mesh_shape),
		cmocka_unit_test(test_walkable_rule_matches_exhaustive_search),
		cmocka_unit_test(test_snake_is_continuous_and_rowmajor_is_not),
		cmocka_unit_test(test_snake_turns_planes_too),
		cmocka_unit_test(test_quality_and_breaks_by_hand),
		cmocka_unit_test(test_hilbert_quality_beats_rowmajor),
		cmocka_unit_test(test_node_ranks_with_shared_and_empty_points),
		cmocka_unit_test(test_bad_arguments_are_rejected),
		cmocka_unit_test(test_large_grids_build_quickly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
