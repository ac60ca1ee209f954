/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_grid.c - the machine model: shapes from 1-D to 4-D, row-major
 * numbering, mesh and torus hops against a direct formula, neighbours
 * (size-1 and size-2 torus dimensions), nodes per point, explicit
 * coordinates and the over-full point error, bad shapes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "loc_test_util.h"
#include "loc_grid.h"

static loc_grid_t *make(int ndims, const int *dims, const bool *torus,
			int npp, int nnodes)
{
	loc_shape_t s = { .ndims = ndims, .nodes_per_point = npp };
	loc_error_t err;
	loc_grid_t *g;

	for (int d = 0; d < ndims; d++) {
		s.dims[d] = dims[d];
		s.torus[d] = torus ? torus[d] : false;
	}
	g = loc_grid_create(&s, nnodes, &err);
	if (!g)
		fail_msg("grid rejected: %s", err.text);
	assert_int_equal(loc_grid_selfcheck(g), 0);
	return g;
}

/* Hop distance straight from the definition (design sec. 3). */
static int ref_hops(const loc_shape_t *s, const loc_coord_t *a,
		    const loc_coord_t *b)
{
	int h = 0;

	for (int d = 0; d < s->ndims; d++) {
		int x = a->c[d] - b->c[d];

		if (x < 0)
			x = -x;
		if (s->torus[d] && s->dims[d] - x < x)
			x = s->dims[d] - x;
		h += x;
	}
	return h;
}

/* Checks numbering, coordinates, hops and neighbours of g against the
 * definitions, over every point (pair). */
static void check_geometry(const loc_grid_t *g)
{
	const loc_shape_t *s = loc_grid_shape(g);
	int np = loc_grid_npoints(g), diam = 0;

	for (int p = 0; p < np; p++) {
		loc_coord_t c;
		int q = 0, nb[2 * LOC_MAX_DIMS], nn, expect_nn = 0;

		loc_grid_point_coord(g, p, &c);
		for (int d = 0; d < LOC_MAX_DIMS; d++) {
			if (d >= s->ndims) {
				assert_int_equal(c.c[d], 0);
				continue;
			}
			assert_true(c.c[d] >= 0 && c.c[d] < s->dims[d]);
			q = q * s->dims[d] + c.c[d];
		}
		assert_int_equal(q, p); /* row-major, dim 0 slowest */
		assert_int_equal(loc_grid_point_at(g, &c), p);
		for (int r = 0; r < np; r++) {
			loc_coord_t e;
			int h;

			loc_grid_point_coord(g, r, &e);
			h = loc_grid_point_hops(g, p, r);
			assert_int_equal(h, ref_hops(s, &c, &e));
			assert_int_equal(h, loc_grid_point_hops(g, r, p));
			if (h > diam)
				diam = h;
			if (h == 1)
				expect_nn++;
		}
		nn = loc_grid_point_neighbors(g, p, nb);
		assert_int_equal(nn, expect_nn);
		for (int i = 0; i < nn; i++) {
			assert_int_equal(loc_grid_point_hops(g, p, nb[i]), 1);
			for (int j = 0; j < i; j++)
				assert_int_not_equal(nb[i], nb[j]);
		}
	}
	assert_int_equal(loc_grid_diameter(g), diam);
}

static void test_one_dimensional_line_and_ring(void **state)
{
	const int dims[1] = { 7 };
	const bool ring[1] = { true };
	loc_grid_t *g = make(1, dims, NULL, 1, 7);
	loc_coord_t c = { { 0 } };

	(void)state;
	assert_int_equal(loc_grid_npoints(g), 7);
	assert_int_equal(loc_grid_ndims(g), 1);
	assert_int_equal(loc_grid_diameter(g), 6);
	assert_int_equal(loc_grid_node_hops(g, 0, 6), 6);
	c.c[0] = -1;
	assert_int_equal(loc_grid_point_at(g, &c), LOC_NONE);
	c.c[0] = 7;
	assert_int_equal(loc_grid_point_at(g, &c), LOC_NONE);
	check_geometry(g);
	loc_grid_destroy(g);

	g = make(1, dims, ring, 1, 7);
	assert_int_equal(loc_grid_diameter(g), 3);
	assert_int_equal(loc_grid_node_hops(g, 0, 6), 1);
	assert_int_equal(loc_grid_node_hops(g, 1, 5), 3);
	c.c[0] = -1;
	assert_int_equal(loc_grid_point_at(g, &c), 6);
	c.c[0] = 15;
	assert_int_equal(loc_grid_point_at(g, &c), 1);
	check_geometry(g);
	loc_grid_destroy(g);
}

static void test_single_point_grids(void **state)
{
	const int one[2] = { 1, 1 };
	const bool ring[2] = { true, true };
	int nb[2 * LOC_MAX_DIMS];
	loc_grid_t *g;

	(void)state;
	for (int t = 0; t < 2; t++) {
		g = make(2, one, t ? ring : NULL, 1, 1);
		assert_int_equal(loc_grid_npoints(g), 1);
		assert_int_equal(loc_grid_diameter(g), 0);
		assert_int_equal(loc_grid_point_neighbors(g, 0, nb), 0);
		assert_int_equal(loc_grid_node_hops(g, 0, 0), 0);
		loc_grid_destroy(g);
	}
	/* One point holding three nodes: all 0 hops apart. */
	g = make(2, one, NULL, 3, 3);
	assert_int_equal(loc_grid_node_hops(g, 0, 2), 0);
	loc_grid_destroy(g);
}

static void test_odd_and_mixed_shapes_match_the_definition(void **state)
{
	static const struct {
		int nd, dims[4];
		bool torus[4];
	} cases[] = {
		{ 2, { 5, 7 }, { false, false } },
		{ 2, { 5, 7 }, { true, false } },
		{ 2, { 3, 8 }, { true, true } },
		{ 3, { 5, 4, 4 }, { true, true, true } },
		{ 3, { 3, 1, 5 }, { false, true, true } },
		{ 3, { 2, 3, 5 }, { true, false, true } },
		{ 4, { 2, 3, 2, 3 }, { false, true, true, false } },
		{ 4, { 1, 4, 1, 3 }, { true, true, true, true } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = 1;
		loc_grid_t *g;

		for (int d = 0; d < cases[i].nd; d++)
			n *= cases[i].dims[d];
		g = make(cases[i].nd, cases[i].dims, cases[i].torus, 1, n);
		check_geometry(g);
		loc_grid_destroy(g);
	}
}

static void test_torus_wrap_hops(void **state)
{
	const int dims[2] = { 8, 5 };
	const bool torus[2] = { true, true };
	loc_grid_t *g = make(2, dims, torus, 1, 40);
	loc_coord_t c = { { -1, 5 } };

	(void)state;
	assert_int_equal(loc_grid_axis_hops(g, 0, 0, 7), 1);
	assert_int_equal(loc_grid_axis_hops(g, 0, 1, 6), 3);
	assert_int_equal(loc_grid_axis_hops(g, 0, 0, 4), 4);
	assert_int_equal(loc_grid_axis_hops(g, 1, 0, 4), 1);
	assert_int_equal(loc_grid_axis_hops(g, 1, 0, 2), 2);
	assert_int_equal(loc_grid_axis_hops(g, 1, 0, 3), 2);
	/* (0,0) to (7,4): one wrap step in each dimension. */
	assert_int_equal(loc_grid_point_hops(g, 0, 7 * 5 + 4), 2);
	assert_int_equal(loc_grid_diameter(g), 4 + 2);
	assert_int_equal(loc_grid_point_at(g, &c), 7 * 5 + 0);
	loc_grid_destroy(g);
}

static void test_size_two_torus_lists_a_neighbour_once(void **state)
{
	const int d23[2] = { 2, 3 }, d22[2] = { 2, 2 }, d14[2] = { 1, 4 };
	const bool torus[2] = { true, true };
	int nb[2 * LOC_MAX_DIMS];
	loc_grid_t *g;

	(void)state;
	g = make(2, d23, torus, 1, 6);
	for (int p = 0; p < 6; p++)
		assert_int_equal(loc_grid_point_neighbors(g, p, nb), 1 + 2);
	assert_int_equal(loc_grid_axis_hops(g, 0, 0, 1), 1);
	loc_grid_destroy(g);

	g = make(2, d22, torus, 1, 4);
	for (int p = 0; p < 4; p++)
		assert_int_equal(loc_grid_point_neighbors(g, p, nb), 2);
	assert_int_equal(loc_grid_diameter(g), 2);
	loc_grid_destroy(g);

	/* A size-1 torus dimension has no neighbour at all. */
	g = make(2, d14, torus, 1, 4);
	for (int p = 0; p < 4; p++)
		assert_int_equal(loc_grid_point_neighbors(g, p, nb), 2);
	loc_grid_destroy(g);
}

static void test_nodes_per_point_fill_row_major(void **state)
{
	const int dims[2] = { 3, 3 };
	loc_grid_t *g = make(2, dims, NULL, 4, 30);
	const int *nodes;

	(void)state;
	assert_int_equal(loc_grid_nnodes(g), 30);
	for (int i = 0; i < 30; i++)
		assert_int_equal(loc_grid_node_point(g, i), i / 4);
	assert_int_equal(loc_grid_point_nodes(g, 2, &nodes), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(nodes[i], 8 + i);
	assert_int_equal(loc_grid_point_nodes(g, 7, &nodes), 2);
	assert_int_equal(nodes[0], 28);
	assert_int_equal(nodes[1], 29);
	assert_int_equal(loc_grid_point_nodes(g, 8, &nodes), 0);
	assert_int_equal(loc_grid_node_hops(g, 8, 11), 0);
	assert_int_equal(loc_grid_node_hops(g, 0, 29), 2 + 1);
	loc_grid_destroy(g);
}

static void test_explicit_coordinates(void **state)
{
	const int dims[2] = { 2, 3 };
	loc_grid_t *g = make(2, dims, NULL, 2, 5);
	loc_error_t err;
	loc_coord_t c = { { 1, 2 } }, got;
	const int *nodes;

	(void)state;
	/* Node 0 moves to (1,2), node 4 to (0,0) next to node 1. */
	assert_int_equal(loc_grid_set_node_coord(g, 0, &c, &err), 0);
	c.c[0] = 0;
	c.c[1] = 0;
	assert_int_equal(loc_grid_set_node_coord(g, 4, &c, &err), 0);
	assert_int_equal(loc_grid_selfcheck(g), LOC_EINVAL); /* unfinalized */
	assert_int_equal(loc_grid_finalize(g, &err), 0);
	assert_int_equal(loc_grid_selfcheck(g), 0);
	loc_grid_node_coord(g, 0, &got);
	assert_int_equal(got.c[0], 1);
	assert_int_equal(got.c[1], 2);
	assert_int_equal(loc_grid_node_point(g, 0), 5);
	assert_int_equal(loc_grid_point_nodes(g, 0, &nodes), 2);
	assert_int_equal(nodes[0], 1); /* ascending node order */
	assert_int_equal(nodes[1], 4);
	assert_int_equal(loc_grid_node_hops(g, 0, 1), 1 + 2);

	/* Out of range coordinates and node indices. */
	c.c[0] = 2;
	assert_int_equal(loc_grid_set_node_coord(g, 1, &c, &err), LOC_ERANGE);
	c.c[0] = 0;
	c.c[1] = -1;
	assert_int_equal(loc_grid_set_node_coord(g, 1, &c, &err), LOC_ERANGE);
	c.c[1] = 0;
	assert_int_equal(loc_grid_set_node_coord(g, 5, &c, &err), LOC_ERANGE);
	assert_int_equal(loc_grid_set_node_coord(g, -1, &c, &err), LOC_ERANGE);

	/* A third node at (0,0) over-fills it (NodesPerPoint=2). */
	assert_int_equal(loc_grid_set_node_coord(g, 2, &c, &err), 0);
	assert_int_equal(loc_grid_finalize(g, &err), LOC_EEXIST);
	assert_int_equal(err.code, LOC_EEXIST);
	assert_non_null(strstr(err.text, "point 0"));
	assert_non_null(strstr(err.text, "nodes 1 and 2"));
	loc_grid_destroy(g);
}

static void test_bad_shapes_are_rejected(void **state)
{
	static const struct {
		loc_shape_t s;
		int nnodes, code;
	} bad[] = {
		{ { .ndims = 0, .dims = { 4 }, .nodes_per_point = 1 }, 4,
		  LOC_EINVAL },
		{ { .ndims = 5, .dims = { 2, 2, 2, 2 }, .nodes_per_point = 1 },
		  16, LOC_EINVAL },
		{ { .ndims = 2, .dims = { 4, 0 }, .nodes_per_point = 1 }, 4,
		  LOC_EINVAL },
		{ { .ndims = 2, .dims = { -3, 4 }, .nodes_per_point = 1 }, 4,
		  LOC_EINVAL },
		{ { .ndims = 2, .dims = { 4, 4 }, .nodes_per_point = 0 }, 4,
		  LOC_EINVAL },
		{ { .ndims = 2, .dims = { 4, 4 }, .nodes_per_point = 1 }, 0,
		  LOC_EINVAL },
		{ { .ndims = 2, .dims = { 4, 4 }, .nodes_per_point = 1 }, 17,
		  LOC_ERANGE },
		{ { .ndims = 2, .dims = { 4, 4 }, .nodes_per_point = 2 }, 33,
		  LOC_ERANGE },
		{ { .ndims = 3, .dims = { 1024, 1024, 1024 },
		    .nodes_per_point = 1 }, 8, LOC_ERANGE },
	};
	loc_error_t err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		loc_error_clear(&err);
		assert_null(loc_grid_create(&bad[i].s, bad[i].nnodes, &err));
		assert_int_equal(err.code, bad[i].code);
		assert_true(err.text[0] != '\0');
	}
	assert_null(loc_grid_create(NULL, 4, &err));
	assert_int_equal(err.code, LOC_EINVAL);
	assert_null(loc_grid_create(&bad[0].s, 4, NULL)); /* err optional */
	loc_grid_destroy(NULL);
}

static void test_describe_names_the_shape(void **state)
{
	const int dims[3] = { 5, 4, 4 };
	const bool torus[3] = { true, false, true };
	loc_grid_t *g = make(3, dims, torus, 2, 150);
	char buf[128];

	(void)state;
	loc_grid_describe(g, buf, sizeof(buf));
	assert_non_null(strstr(buf, "5x4x4"));
	assert_non_null(strstr(buf, "torus,mesh,torus"));
	/* A short buffer is truncated, not overrun. */
	memset(buf, 'z', sizeof(buf));
	loc_grid_describe(g, buf, 4);
	assert_int_equal(strlen(buf), 3);
	assert_int_equal(buf[5], 'z');
	loc_grid_destroy(g);
}

/* Random shapes and random node coordinate overrides keep the index
 * consistent (selfcheck) and hops symmetric with a zero diagonal. */
static void test_random_grids_pass_selfcheck(void **state)
{
	uint64_t seed = 12345;

	(void)state;
	for (int t = 0; t < 200; t++) {
		int nd = 1 + tu_below(&seed, 4), dims[4], np = 1, npp, n;
		bool torus[4];
		loc_grid_t *g;
		loc_error_t err;
		int *fill;

		for (int d = 0; d < nd; d++) {
			dims[d] = 1 + tu_below(&seed, 5);
			torus[d] = tu_below(&seed, 2);
			np *= dims[d];
		}
		npp = 1 + tu_below(&seed, 3);
		n = 1 + tu_below(&seed, np * npp);
		g = make(nd, dims, torus, npp, n);
		/* Scatter the nodes over random points with room. */
		fill = calloc(np, sizeof(int));
		for (int i = 0; i < n; i++) {
			int p, rc;
			loc_coord_t c;

			do
				p = tu_below(&seed, np);
			while (fill[p] == npp);
			fill[p]++;
			loc_grid_point_coord(g, p, &c);
			rc = loc_grid_set_node_coord(g, i, &c, &err);
			assert_int_equal(rc, 0);
		}
		assert_int_equal(loc_grid_finalize(g, &err), 0);
		assert_int_equal(loc_grid_selfcheck(g), 0);
		for (int p = 0; p < np; p++) {
			const int *nodes;

			assert_int_equal(loc_grid_point_nodes(g, p, &nodes),
					 fill[p]);
		}
		for (int i = 0; i < n; i++) {
			assert_int_equal(loc_grid_node_hops(g, i, i), 0);
			for (int j = 0; j < i; j++)
				assert_int_equal(loc_grid_node_hops(g, i, j),
						 loc_grid_node_hops(g, j, i));
		}
		free(fill);
		loc_grid_destroy(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_dimensional_line_and_ring),
		cmocka_unit_test(test_single_point_grids),
		cmocka_unit_test(test_odd_and_mixed_shapes_match_the_definition),
		cmocka_unit_test(test_torus_wrap_hops),
		cmocka_unit_test(test_size_two_torus_lists_a_neighbour_once),
		cmocka_unit_test(test_nodes_per_point_fill_row_major),
		cmocka_unit_test(test_explicit_coordinates),
		cmocka_unit_test(test_bad_shapes_are_rejected),
		cmocka_unit_test(test_describe_names_the_shape),
		cmocka_unit_test(test_random_grids_pass_selfcheck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
