/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_metrics.c - per-job metrics: hand-computed values on small
 * mesh and torus sets, pairwise hops / bounding boxes / components / spans
 * against brute force on random sets of random grids, ring vs linear span
 * (seed 002 sec. 4.3), dispersal (seed 001 sec. 3.4.1), bad input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "loc_test_util.h"
#include "loc_curve.h"
#include "loc_metrics.h"

static loc_grid_t *grid2(int a, int b, bool torus, int npp)
{
	const int dims[2] = { a, b };

	return tu_grid(2, dims, torus, npp);
}

/* Node at (x, y) of a grid with one node per point, row-major. */
static int at(const loc_grid_t *g, int x, int y)
{
	loc_coord_t c = { { x, y } };

	return loc_grid_point_at(g, &c);
}

static loc_metrics_t metrics(const loc_grid_t *g, const loc_curve_t *c,
			     const int *nodes, int k)
{
	loc_metrics_t m;

	assert_int_equal(loc_metrics_compute(g, c, nodes, k, &m), 0);
	assert_int_equal(m.nodes, k);
	assert_true(m.total_pair_hops ==
		    loc_metrics_total_pair_hops(g, nodes, k));
	return m;
}

static void assert_near(double a, double b)
{
	if (fabs(a - b) > 1e-9)
		fail_msg("%.12f != %.12f", a, b);
}

static void test_mesh_values_by_hand(void **state)
{
	loc_grid_t *g = grid2(4, 4, false, 1);
	int sq[4], far[2], strip[4];
	loc_metrics_t m;

	(void)state;
	/* A 2x2 square: four 1-hop pairs, two 2-hop diagonals. */
	sq[0] = at(g, 1, 1);
	sq[1] = at(g, 1, 2);
	sq[2] = at(g, 2, 1);
	sq[3] = at(g, 2, 2);
	m = metrics(g, NULL, sq, 4);
	assert_int_equal(m.total_pair_hops, 8);
	assert_near(m.avg_pair_hops, 8.0 / 6.0);
	assert_int_equal(m.bbox_volume, 4);
	assert_int_equal(m.bbox_side_sum, 4);
	assert_near(m.dispersal, 0.0);
	assert_near(m.weighted_dispersal, 0.0);
	assert_int_equal(m.components, 1);
	assert_int_equal(m.linear_span, 0); /* no curve */
	assert_int_equal(m.ring_span, 0);

	/* Opposite corners: 6 hops, the whole grid as box. */
	far[0] = at(g, 0, 0);
	far[1] = at(g, 3, 3);
	m = metrics(g, NULL, far, 2);
	assert_int_equal(m.total_pair_hops, 6);
	assert_near(m.avg_pair_hops, 6.0);
	assert_int_equal(m.bbox_volume, 16);
	assert_int_equal(m.bbox_side_sum, 8);
	assert_near(m.dispersal, 14.0 / 16.0);
	assert_near(m.weighted_dispersal, 14.0 / 16.0 * 2);
	assert_int_equal(m.components, 2);

	/* Four nodes in a 2x3 box (seed 001: (w*h - k) / (w*h)). */
	strip[0] = at(g, 0, 0);
	strip[1] = at(g, 0, 2);
	strip[2] = at(g, 1, 0);
	strip[3] = at(g, 1, 1);
	m = metrics(g, NULL, strip, 4);
	assert_int_equal(m.bbox_volume, 6);
	assert_int_equal(m.bbox_side_sum, 5);
	assert_near(m.dispersal, 2.0 / 6.0);
	assert_near(m.weighted_dispersal, 4 * 2.0 / 6.0);
	assert_int_equal(m.components, 2); /* (0,2) stands alone */
	/* pairs: 2,1,2, 3,2, 1 */
	assert_int_equal(m.total_pair_hops, 11);
	loc_grid_destroy(g);
}

static void test_torus_values_by_hand(void **state)
{
	loc_grid_t *g = grid2(4, 4, true, 1);
	const int ring_dims[1] = { 10 };
	loc_grid_t *r = tu_grid(1, ring_dims, true, 1);
	int two[2], wrap[2], three[3] = { 0, 9, 5 };
	loc_metrics_t m;

	(void)state;
	/* (0,0) and (3,3) are one wrap step apart in each dimension. */
	two[0] = at(g, 0, 0);
	two[1] = at(g, 3, 3);
	m = metrics(g, NULL, two, 2);
	assert_int_equal(m.total_pair_hops, 2);
	assert_int_equal(m.bbox_volume, 4); /* {3,0} x {3,0} */
	assert_int_equal(m.bbox_side_sum, 4);
	assert_near(m.dispersal, 0.5);
	assert_near(m.weighted_dispersal, 1.0);
	assert_int_equal(m.components, 2);
	/* (0,1) and (3,1): neighbours across the wrap. */
	wrap[0] = at(g, 0, 1);
	wrap[1] = at(g, 3, 1);
	m = metrics(g, NULL, wrap, 2);
	assert_int_equal(m.total_pair_hops, 1);
	assert_int_equal(m.bbox_volume, 2);
	assert_int_equal(m.components, 1);
	loc_grid_destroy(g);

	/* Ring of 10: 0-9 is 1, 0-5 is 5, 9-5 is 4; box 5..9,0 = 6. */
	m = metrics(r, NULL, three, 3);
	assert_int_equal(m.total_pair_hops, 10);
	assert_int_equal(m.bbox_volume, 6);
	assert_int_equal(m.bbox_side_sum, 6);
	assert_int_equal(m.components, 2);
	loc_grid_destroy(r);
}

static void test_shared_points_and_trivial_sets(void **state)
{
	loc_grid_t *g = grid2(2, 2, false, 2);
	int same[2] = { 0, 1 }, apart[2] = { 0, 2 }, one = 3;
	loc_metrics_t m;

	(void)state;
	m = metrics(g, NULL, same, 2);
	assert_int_equal(m.total_pair_hops, 0);
	assert_int_equal(m.bbox_volume, 1);
	assert_near(m.dispersal, 0.0);
	assert_int_equal(m.components, 1);
	m = metrics(g, NULL, apart, 2);
	assert_int_equal(m.total_pair_hops, 1);
	assert_int_equal(m.bbox_volume, 2);
	assert_near(m.dispersal, 0.5); /* 2 of 4 slots used */
	assert_near(m.weighted_dispersal, 1.0);
	m = metrics(g, NULL, &one, 1);
	assert_int_equal(m.total_pair_hops, 0);
	assert_near(m.avg_pair_hops, 0.0);
	assert_int_equal(m.bbox_volume, 1);
	assert_near(m.dispersal, 0.5);
	assert_int_equal(m.components, 1);
	m = metrics(g, NULL, NULL, 0);
	assert_int_equal(m.total_pair_hops, 0);
	assert_int_equal(m.bbox_volume, 0);
	assert_int_equal(m.components, 0);
	assert_near(m.dispersal, 0.0);
	loc_grid_destroy(g);
}

static void test_ring_and_linear_span(void **state)
{
	const int dims[1] = { 10 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_curve_t *c = loc_curve_create(g, LOC_CURVE_ROWMAJOR, NULL);
	static const struct {
		int k, nodes[4], linear, ring;
	} cases[] = {
		{ 4, { 0, 1, 8, 9 }, 10, 4 }, /* wraps round the end */
		{ 3, { 4, 2, 3 }, 3, 3 },     /* an interval */
		{ 2, { 0, 5 }, 6, 6 },        /* both gaps 4 */
		{ 2, { 1, 9 }, 9, 3 },        /* 9, 0, 1 */
		{ 1, { 7 }, 1, 1 },
	};
	loc_metrics_t m;

	(void)state;
	assert_non_null(c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(loc_metrics_linear_span(c, cases[i].nodes,
							 cases[i].k),
				 cases[i].linear);
		assert_int_equal(loc_metrics_ring_span(c, cases[i].nodes,
						       cases[i].k),
				 cases[i].ring);
		m = metrics(g, c, cases[i].nodes, cases[i].k);
		assert_int_equal(m.linear_span, cases[i].linear);
		assert_int_equal(m.ring_span, cases[i].ring);
	}
	assert_int_equal(loc_metrics_linear_span(NULL, cases[0].nodes, 4), 0);
	assert_int_equal(loc_metrics_ring_span(c, cases[0].nodes, 0), 0);
	loc_curve_destroy(c);
	loc_grid_destroy(g);
}

static void test_checkerboard_components(void **state)
{
	int nodes[8], k = 0;
	loc_grid_t *g;

	(void)state;
	for (int t = 0; t < 2; t++) {
		g = grid2(4, 4, t, 1);
		k = 0;
		for (int x = 0; x < 4; x++)
			for (int y = 0; y < 4; y++)
				if ((x + y) % 2 == 0)
					nodes[k++] = at(g, x, y);
		/* Even sides: even on a torus no two black squares touch. */
		assert_int_equal(metrics(g, NULL, nodes, k).components, 8);
		loc_grid_destroy(g);
	}
	/* Odd torus side: the wrap joins (0,0) and (4,0). */
	g = grid2(5, 1, true, 1);
	nodes[0] = 0;
	nodes[1] = 2;
	nodes[2] = 4;
	assert_int_equal(metrics(g, NULL, nodes, 3).components, 2);
	loc_grid_destroy(g);
}

/* Brute-force reference values of a node set. */
static int64_t brute_pairs(const loc_grid_t *g, const int *nodes, int k)
{
	int64_t t = 0;

	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			t += loc_grid_node_hops(g, nodes[i], nodes[j]);
	return t;
}

/* Smallest (wrapped on a torus) interval of an axis covering the nodes'
 * coordinates, by trying every start and length. */
static int brute_side(const loc_grid_t *g, const int *nodes, int k, int d)
{
	const loc_shape_t *s = loc_grid_shape(g);
	int L = s->dims[d];

	for (int len = 1; len <= L; len++) {
		for (int start = 0; start < L; start++) {
			bool ok = true;

			if (!s->torus[d] && start + len > L)
				continue;
			for (int i = 0; i < k && ok; i++) {
				loc_coord_t c;
				int off;

				loc_grid_node_coord(g, nodes[i], &c);
				off = ((c.c[d] - start) % L + L) % L;
				ok = off < len;
			}
			if (ok)
				return len;
		}
	}
	return -1;
}

static int uf_find(int *parent, int x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

static int brute_components(const loc_grid_t *g, const int *nodes, int k)
{
	int parent[256], comps = k;

	for (int i = 0; i < k; i++)
		parent[i] = i;
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++) {
			int a, b;

			if (loc_grid_node_hops(g, nodes[i], nodes[j]) > 1)
				continue;
			a = uf_find(parent, i);
			b = uf_find(parent, j);
			if (a != b) {
				parent[a] = b;
				comps--;
			}
		}
	return comps;
}

/* Shortest arc of the rank ring holding every rank: try each start. */
static int brute_ring_span(const loc_curve_t *c, const int *nodes, int k)
{
	int n = loc_grid_nnodes(loc_curve_grid(c)), best = n;

	for (int i = 0; i < k; i++) {
		int s = loc_curve_rank(c, nodes[i]), len = 0;

		for (int j = 0; j < k; j++) {
			int off = (loc_curve_rank(c, nodes[j]) - s + n) % n;

			if (off + 1 > len)
				len = off + 1;
		}
		if (len < best)
			best = len;
	}
	return best;
}

static void test_random_sets_match_brute_force(void **state)
{
	uint64_t seed = 2024;

	(void)state;
	for (int t = 0; t < 400; t++) {
		int nd = 1 + tu_below(&seed, 4), np = 1, npp, n, k;
		loc_shape_t s = { .ndims = nd };
		loc_grid_t *g;
		loc_curve_t *c;
		int nodes[256], *perm;
		int64_t sums[256];
		loc_metrics_t m;
		int64_t vol = 1;
		int sides = 0;

		for (int d = 0; d < nd; d++) {
			s.dims[d] = 1 + tu_below(&seed, nd == 1 ? 30 : 8);
			s.torus[d] = tu_below(&seed, 2);
			np *= s.dims[d];
		}
		npp = 1 + tu_below(&seed, 3);
		s.nodes_per_point = npp;
		n = 1 + tu_below(&seed, np * npp);
		g = loc_grid_create(&s, n, NULL);
		assert_non_null(g);
		c = loc_curve_create(g, tu_below(&seed, LOC_CURVE_COUNT), NULL);
		assert_non_null(c);
		k = 1 + tu_below(&seed, n < 200 ? n : 200);
		/* k distinct random nodes (partial Fisher-Yates). */
		perm = malloc(sizeof(int) * n);
		for (int i = 0; i < n; i++)
			perm[i] = i;
		for (int i = 0; i < k; i++) {
			int j = i + tu_below(&seed, n - i), tmp = perm[i];

			perm[i] = perm[j];
			perm[j] = tmp;
			nodes[i] = perm[i];
		}
		free(perm);

		m = metrics(g, c, nodes, k);
		assert_true(m.total_pair_hops == brute_pairs(g, nodes, k));
		assert_int_equal(loc_metrics_node_hop_sums(g, nodes, k, sums),
				 0);
		for (int i = 0; i < k; i++) {
			int64_t own = 0;

			for (int j = 0; j < k; j++)
				own += loc_grid_node_hops(g, nodes[i],
							  nodes[j]);
			assert_true(sums[i] == own);
		}
		if (k > 1)
			assert_near(m.avg_pair_hops,
				    (double)m.total_pair_hops /
					    (k * (k - 1) / 2.0));
		for (int d = 0; d < nd; d++) {
			int side = brute_side(g, nodes, k, d);

			vol *= side;
			sides += side;
		}
		assert_true(m.bbox_volume == vol);
		assert_int_equal(m.bbox_side_sum, sides);
		assert_near(m.dispersal,
			    (double)(vol * npp - k) / (double)(vol * npp));
		assert_near(m.weighted_dispersal, m.dispersal * k);
		assert_int_equal(m.components, brute_components(g, nodes, k));
		assert_int_equal(m.ring_span, brute_ring_span(c, nodes, k));
		assert_true(m.ring_span <= m.linear_span);
		assert_true(m.linear_span >= k && m.linear_span <= n);
		loc_curve_destroy(c);
		loc_grid_destroy(g);
	}
}

/* A long ring with few nodes, and many nodes of a big torus: the pair
 * sum must not depend on O(k^2) and still be exact. */
static void test_large_sets(void **state)
{
	const int ring_dims[1] = { 100001 }, cube[3] = { 32, 32, 32 };
	loc_grid_t *g = tu_grid(1, ring_dims, true, 1);
	int few[3] = { 0, 50000, 100000 }, *many;
	int64_t expect = 0, sums[3], *big;

	(void)state;
	/* 0-50000: 50000; 0-100000: 1; 50000-100000: 50000. */
	assert_true(loc_metrics_total_pair_hops(g, few, 3) == 100001);
	assert_int_equal(loc_metrics_node_hop_sums(g, few, 3, sums), 0);
	assert_true(sums[0] == 50001 && sums[1] == 100000 &&
		    sums[2] == 50001);
	loc_grid_destroy(g);

	/* Every node of a 32^3 torus: per axis each ordered pair of
	 * coordinates occurs 1024^2 times; sum over one axis of ring
	 * distances over ordered coordinate pairs is 32 * 256. */
	g = tu_grid(3, cube, true, 1);
	many = malloc(sizeof(int) * 32768);
	for (int i = 0; i < 32768; i++)
		many[i] = i;
	expect = 3 * (int64_t)1024 * 1024 * 32 * 256 / 2;
	assert_true(loc_metrics_total_pair_hops(g, many, 32768) == expect);
	/* Each node: 1024 nodes at each coordinate of an axis, 256 hops
	 * from one coordinate to the 32 of its ring. */
	big = malloc(sizeof(int64_t) * 32768);
	assert_int_equal(loc_metrics_node_hop_sums(g, many, 32768, big), 0);
	for (int i = 0; i < 32768; i++)
		assert_true(big[i] == 3 * (int64_t)1024 * 256);
	free(big);
	free(many);
	loc_grid_destroy(g);
}

static void test_bad_input_is_rejected(void **state)
{
	loc_grid_t *g = grid2(3, 3, false, 1), *other = grid2(2, 2, false, 1);
	loc_curve_t *c = loc_curve_create(other, LOC_CURVE_SNAKE, NULL);
	int dup[3] = { 1, 4, 1 }, out_of_range[2] = { 0, 9 }, ok[2] = { 0, 1 };
	loc_metrics_t m;

	(void)state;
	assert_int_equal(loc_metrics_compute(g, NULL, dup, 3, &m), LOC_EINVAL);
	assert_int_equal(m.nodes, 0);
	assert_int_equal(loc_metrics_compute(g, NULL, out_of_range, 2, &m),
			 LOC_EINVAL);
	assert_int_equal(loc_metrics_compute(g, NULL, ok, -1, &m), LOC_EINVAL);
	assert_int_equal(loc_metrics_compute(g, NULL, NULL, 2, &m), LOC_EINVAL);
	assert_int_equal(loc_metrics_compute(NULL, NULL, ok, 2, &m),
			 LOC_EINVAL);
	assert_int_equal(loc_metrics_compute(g, NULL, ok, 2, NULL), LOC_EINVAL);
	/* A curve over a grid with another node count. */
	assert_int_equal(loc_metrics_compute(g, c, ok, 2, &m), LOC_EINVAL);
	assert_true(loc_metrics_total_pair_hops(g, out_of_range, 2) < 0);
	{
		int64_t sums[3];

		assert_int_equal(loc_metrics_node_hop_sums(g, out_of_range, 2,
							   sums),
				 LOC_EINVAL);
		assert_int_equal(loc_metrics_node_hop_sums(g, ok, 2, NULL),
				 LOC_EINVAL);
		assert_int_equal(loc_metrics_node_hop_sums(g, ok, 0, NULL), 0);
	}
	loc_curve_destroy(c);
	loc_grid_destroy(other);
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mesh_values_by_hand),
		cmocka_unit_test(test_torus_values_by_hand),
		cmocka_unit_test(test_shared_points_and_trivial_sets),
		cmocka_unit_test(test_ring_and_linear_span),
		cmocka_unit_test(test_checkerboard_components),
		cmocka_unit_test(test_random_sets_match_brute_force),
		cmocka_unit_test(test_large_sets),
		cmocka_unit_test(test_bad_input_is_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
