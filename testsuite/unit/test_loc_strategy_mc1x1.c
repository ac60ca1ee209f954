/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_mc1x1.c - MC1x1 (seed 003), through the public
 * allocator API: it exactly minimises the shell cost (against brute
 * force on random states), and hand cases: shells are not L1 balls, an
 * empty mesh gives a square, shells wrap on a torus, shell zero holds
 * co-located nodes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "loc_test_util.h"
#include "loc_test_geo.h"

/* Chebyshev (torus-aware) hops between two nodes. */
static int cheb_hops(const loc_grid_t *g, int a, int b)
{
	loc_coord_t ca, cb;
	int h = 0;

	loc_grid_node_coord(g, a, &ca);
	loc_grid_node_coord(g, b, &cb);
	for (int d = 0; d < loc_grid_ndims(g); d++) {
		int x = loc_grid_axis_hops(g, d, ca.c[d], cb.c[d]);

		h = x > h ? x : h;
	}
	return h;
}

static int cmp_int(const void *x, const void *y)
{
	return *(const int *)x - *(const int *)y;
}

/*
 * Brute-force MC1x1: the least, over free centres, of the sum of the k
 * smallest Chebyshev distances. mc1x1's set must reach it around some
 * free centre (its shell sum equals the minimum).
 */
static void test_mc1x1_minimises_shell_cost(void **state)
{
	static const shape_case_t shapes[] = {
		{ 2, { 6, 5 }, false }, { 2, { 5, 7 }, true },
		{ 3, { 4, 3, 5 }, true }, { 3, { 3, 4, 4 }, false },
		{ 1, { 13 }, true },      { 1, { 12 }, true },
		{ 1, { 10 }, false },
	};
	int cases = 0;

	(void)state;
	for (size_t sc = 0; sc < sizeof(shapes) / sizeof(shapes[0]); sc++) {
		for (int npp = 1; npp <= 2; npp++) {
			const shape_case_t *s = &shapes[sc];
			loc_grid_t *g = tu_grid(s->ndims, s->dims, s->torus, npp);
			int n = loc_grid_nnodes(g);
			uint8_t *cand = malloc(n);
			int *out = malloc(sizeof(int) * n);
			int *dist = malloc(sizeof(int) * n);
			loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_MC1X1, 0,
						    false);

			for (int seed = 1; seed <= 40; seed++) {
				int nfree, k;
				int64_t best = INT64_MAX;
				bool reached = false;

				tu_fragmented(cand, n, 0.2 + 0.1 * (seed % 6),
					      seed * 2741 + sc * 13 + npp);
				nfree = tu_count(cand, n);
				if (!nfree)
					continue;
				k = 1 + (seed * 7) % nfree;
				place(a, g, cand, NULL, k, out);
				for (int c = 0; c < n; c++) {
					int m = 0;
					int64_t sum = 0;

					if (!cand[c])
						continue;
					for (int v = 0; v < n; v++)
						if (cand[v])
							dist[m++] = cheb_hops(g, c, v);
					qsort(dist, m, sizeof(int), cmp_int);
					for (int i = 0; i < k; i++)
						sum += dist[i];
					if (sum < best)
						best = sum;
				}
				/* Some centre sees out as its k nearest
				 * with the least cost. */
				for (int c = 0; c < n && !reached; c++) {
					int64_t got = 0;

					if (!cand[c])
						continue;
					for (int i = 0; i < k; i++)
						got += cheb_hops(g, c, out[i]);
					reached = got == best;
				}
				assert_true(reached);
				cases++;
			}
			loc_alloc_destroy(a);
			free(cand);
			free(out);
			free(dist);
			loc_grid_destroy(g);
		}
	}
	assert_true(cases > 400);
}

static int node_at(const loc_grid_t *g, int y, int x, int slot)
{
	loc_coord_t c = { .c = { y, x } };
	const int *nodes;
	int p = loc_grid_point_at(g, &c);

	assert_true(loc_grid_point_nodes(g, p, &nodes) > slot);
	return nodes[slot];
}

static bool contains(const int *out, int k, int v)
{
	for (int i = 0; i < k; i++)
		if (out[i] == v)
			return true;
	return false;
}

/*
 * Hand-worked shells on a 5x9 mesh: an X of five nodes around (1,1)
 * (centre + 4 diagonal neighbours: MC1x1 cost 0 + 4*1 = 4, pairwise 24)
 * and a line of five on row 4 (middle: 0 + 2*1 + 2*2 = 6, pairwise 20).
 * MC1x1 takes the X; MM takes the line, which is the optimum.
 */
static void test_mc1x1_hand_example_shells_not_l1(void **state)
{
	static const int dims[2] = { 5, 9 };
	static const int xs[5][2] = { { 1, 1 }, { 0, 0 }, { 0, 2 },
				      { 2, 0 }, { 2, 2 } };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	int n = loc_grid_nnodes(g), out[5], want[5];
	uint8_t *cand = calloc(n, 1);
	loc_alloc_t *mc = make_alloc(g, LOC_STRATEGY_MC1X1, 0, false);
	loc_alloc_t *mm = make_alloc(g, LOC_STRATEGY_MM, -1, false);

	(void)state;
	for (int i = 0; i < 5; i++) {
		cand[node_at(g, xs[i][0], xs[i][1], 0)] = 1;
		cand[node_at(g, 4, 4 + i, 0)] = 1;
	}
	assert_int_equal(tu_brute_min_pair_hops(g, cand, n, 5), 20);
	place(mc, g, cand, NULL, 5, out);
	for (int i = 0; i < 5; i++)
		want[i] = node_at(g, xs[i][0], xs[i][1], 0);
	qsort(want, 5, sizeof(int), cmp_int);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(loc_metrics_total_pair_hops(g, out, 5), 24);
	assert_int_equal(place(mm, g, cand, NULL, 5, out), 20);
	for (int i = 0; i < 5; i++)
		assert_int_equal(out[i], node_at(g, 4, 4 + i, 0));
	loc_alloc_destroy(mc);
	loc_alloc_destroy(mm);
	free(cand);
	loc_grid_destroy(g);
}

/* An empty 5x5 mesh and k = 9: every interior centre costs 8 (one node
 * in shell 0, eight in shell 1), a border one at least 3*1 + 5*2 = 13,
 * so the answer is a full 3x3 square. */
static void test_mc1x1_empty_mesh_gives_square(void **state)
{
	static const int dims[2] = { 5, 5 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	int n = loc_grid_nnodes(g), out[9], lo[2] = { 9, 9 }, hi[2] = { 0, 0 };
	uint8_t *cand = malloc(n);
	loc_alloc_t *mc = make_alloc(g, LOC_STRATEGY_MC1X1, 0, false);

	(void)state;
	memset(cand, 1, n);
	/* A 3x3 square: per axis three rows of three, 9 pairs 1 apart
	 * twice and 9 pairs 2 apart, 36; 72 in all. */
	assert_int_equal(place(mc, g, cand, NULL, 9, out), 72);
	for (int i = 0; i < 9; i++) {
		loc_coord_t c;

		loc_grid_node_coord(g, out[i], &c);
		for (int d = 0; d < 2; d++) {
			lo[d] = c.c[d] < lo[d] ? c.c[d] : lo[d];
			hi[d] = c.c[d] > hi[d] ? c.c[d] : hi[d];
		}
	}
	assert_int_equal(hi[0] - lo[0], 2);
	assert_int_equal(hi[1] - lo[1], 2);
	loc_alloc_destroy(mc);
	free(cand);
	loc_grid_destroy(g);
}

/* Shells wrap on a torus: on a 5x5 torus the four corners are one shell
 * from each other (cost 3) while the middle node is two shells away. */
static void test_mc1x1_shells_wrap_on_torus(void **state)
{
	static const int dims[2] = { 5, 5 };
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	int n = loc_grid_nnodes(g), out[4], want[4];
	uint8_t *cand = calloc(n, 1);
	loc_alloc_t *mc = make_alloc(g, LOC_STRATEGY_MC1X1, 0, false);

	(void)state;
	want[0] = node_at(g, 0, 0, 0);
	want[1] = node_at(g, 0, 4, 0);
	want[2] = node_at(g, 4, 0, 0);
	want[3] = node_at(g, 4, 4, 0);
	for (int i = 0; i < 4; i++)
		cand[want[i]] = 1;
	cand[node_at(g, 2, 2, 0)] = 1;
	place(mc, g, cand, NULL, 4, out);
	assert_memory_equal(out, want, sizeof(want));
	loc_alloc_destroy(mc);
	free(cand);
	loc_grid_destroy(g);
}

/* With two nodes per point, shell 0 holds both nodes of the centre: on a
 * 3x3 mesh with (1,1) fully free and one node free at (0,0) and (2,2),
 * centre (1,1) costs 0 + 0 + 1 = 1 and must be chosen whole. */
static void test_mc1x1_shell_zero_holds_colocated_nodes(void **state)
{
	static const int dims[2] = { 3, 3 };
	loc_grid_t *g = tu_grid(2, dims, false, 2);
	int n = loc_grid_nnodes(g), out[3];
	uint8_t *cand = calloc(n, 1);
	loc_alloc_t *mc = make_alloc(g, LOC_STRATEGY_MC1X1, 0, false);
	int a = node_at(g, 0, 0, 1), b = node_at(g, 2, 2, 0);

	(void)state;
	cand[node_at(g, 1, 1, 0)] = cand[node_at(g, 1, 1, 1)] = 1;
	cand[a] = cand[b] = 1;
	place(mc, g, cand, NULL, 3, out);
	assert_true(contains(out, 3, node_at(g, 1, 1, 0)));
	assert_true(contains(out, 3, node_at(g, 1, 1, 1)));
	assert_true(contains(out, 3, a) != contains(out, 3, b));
	loc_alloc_destroy(mc);
	free(cand);
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mc1x1_minimises_shell_cost),
		cmocka_unit_test(test_mc1x1_hand_example_shells_not_l1),
		cmocka_unit_test(test_mc1x1_empty_mesh_gives_square),
		cmocka_unit_test(test_mc1x1_shells_wrap_on_torus),
		cmocka_unit_test(test_mc1x1_shell_zero_holds_colocated_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
