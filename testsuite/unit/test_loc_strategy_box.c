/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_box.c - the least-blocking box strategy (seed 004):
 * brute-force checks of every box answer on small grids, and hand-made
 * cases (fragmented space, torus wrap, compact shapes, the least-blocking
 * choice, nodes per point). The Multiple Buddy Strategy is in
 * test_loc_strategy_mbs.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "loc_test_util.h"
#include "loc_test_select.h"
#include "loc_strategy.h"

/* ------------------------------------------------------------------ */
/* Box                                                                 */
/* ------------------------------------------------------------------ */

/* The point of box (origin o, extents e) at offset i, wrapping on torus
 * dimensions; -1 when it leaves a mesh. */
static int box_point(const loc_grid_t *g, const int *o, const int *e,
		     const int *i)
{
	const loc_shape_t *sh = loc_grid_shape(g);
	loc_coord_t c;

	memset(&c, 0, sizeof(c));
	for (int d = 0; d < sh->ndims; d++) {
		(void)e;
		c.c[d] = o[d] + i[d];
		if (c.c[d] >= sh->dims[d] && !sh->torus[d])
			return -1;
	}
	return loc_grid_point_at(g, &c);
}

/* Calls fn for each box of vol points (every shape and origin); stops
 * when fn returns true. Returns whether it did. */
static bool each_box(const loc_grid_t *g, int vol,
		     bool (*fn)(const loc_grid_t *, const int *, const int *,
				void *),
		     void *arg)
{
	const loc_shape_t *sh = loc_grid_shape(g);
	int nd = sh->ndims, e[4], o[4];

	for (int code = 0;; code++) {
		int rest = code, prod = 1;

		for (int d = 0; d < nd; d++) {
			e[d] = 1 + rest % sh->dims[d];
			rest /= sh->dims[d];
			prod *= e[d];
		}
		if (rest)
			return false;
		if (prod != vol)
			continue;
		for (int oc = 0;; oc++) {
			int r2 = oc;
			bool ok = true;

			for (int d = 0; d < nd; d++) {
				o[d] = r2 % sh->dims[d];
				r2 /= sh->dims[d];
				if (!sh->torus[d] && o[d] + e[d] > sh->dims[d])
					ok = false;
			}
			if (r2)
				break;
			if (ok && fn(g, o, e, arg))
				return true;
		}
	}
}

typedef struct box_arg {
	const uint8_t *cand;
	const uint8_t *inset; /* per point: used by the answer */
	int k;
} box_arg_t;

/* Visits the points of a box; returns the candidate count, or -1 when
 * some point is outside. If inset, returns -2 unless every box point is
 * in it. */
static int box_count(const loc_grid_t *g, const int *o, const int *e,
		     const box_arg_t *ba)
{
	int nd = loc_grid_ndims(g), i[4] = { 0 }, total = 0, d;

	for (;;) {
		int p = box_point(g, o, e, i);
		const int *nodes;
		int m;

		if (p < 0)
			return -1;
		if (ba->inset && !ba->inset[p])
			return -2;
		m = loc_grid_point_nodes(g, p, &nodes);
		for (int j = 0; j < m; j++)
			total += ba->cand[nodes[j]] != 0;
		for (d = nd - 1; d >= 0; d--) {
			if (++i[d] < e[d])
				break;
			i[d] = 0;
		}
		if (d < 0)
			return total;
	}
}

static bool box_fits(const loc_grid_t *g, const int *o, const int *e,
		     void *arg)
{
	const box_arg_t *ba = arg;

	return box_count(g, o, e, ba) >= ba->k;
}

static bool box_equals(const loc_grid_t *g, const int *o, const int *e,
		       void *arg)
{
	return box_count(g, o, e, arg) >= 0;
}

/* Asserts that the answer's points form exactly one box of
 * ceil(k / npp) points (a box of that volume lying inside the answer's
 * point set is the whole set, as the set has that many points). */
static void assert_is_box(const loc_grid_t *g, const uint8_t *cand,
			  const int *out, int k)
{
	int np = loc_grid_npoints(g), npp = loc_grid_shape(g)->nodes_per_point;
	int vol = (k + npp - 1) / npp, used = 0;
	uint8_t *inset = calloc(np, 1);
	box_arg_t ba = { .cand = cand, .inset = inset, .k = k };

	for (int i = 0; i < k; i++) {
		int p = loc_grid_node_point(g, out[i]);

		used += !inset[p];
		inset[p] = 1;
	}
	assert_int_equal(used, vol);
	assert_true(each_box(g, vol, box_equals, &ba));
	free(inset);
}

/* Random states on small grids (mesh and torus, 1-4 dimensions, several
 * nodes per point): box answers are boxes of exactly k candidates, and
 * ENOFIT exactly when brute force finds no box. */
static void test_box_matches_brute_force(void **state)
{
	static const struct {
		int nd, dims[4];
		bool torus;
		int npp;
	} cases[] = {
		{ 1, { 11 }, false, 1 },      { 1, { 9 }, true, 1 },
		{ 2, { 5, 7 }, false, 1 },    { 2, { 6, 4 }, true, 1 },
		{ 2, { 4, 5 }, true, 2 },     { 3, { 3, 4, 5 }, false, 1 },
		{ 3, { 4, 3, 4 }, true, 1 },  { 3, { 3, 3, 2 }, true, 3 },
		{ 4, { 3, 2, 3, 2 }, true, 1 },
	};
	uint64_t seed = 0xb0c5;
	int fits = 0, nofits = 0;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		loc_grid_t *g = tu_grid(cases[c].nd, cases[c].dims,
					cases[c].torus, cases[c].npp);
		loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BOX,
					    LOC_WALLTIME_NONE);
		int n = loc_grid_nnodes(g);
		uint8_t *cand = malloc(n);
		int *out = malloc(sizeof(int) * n);
		int *again = malloc(sizeof(int) * n);

		for (int it = 0; it < 300; it++) {
			int nfree, k, rc;
			box_arg_t ba;

			tu_fragmented(cand, n, (tu_rand(&seed) % 80) / 100.0,
				      tu_rand(&seed));
			nfree = tu_count(cand, n);
			if (!nfree)
				continue;
			k = 1 + tu_below(&seed, nfree < 12 ? nfree : 12);
			ba = (box_arg_t){ .cand = cand, .k = k };
			rc = select_k(a, cand, k, out);
			if (each_box(g, (k + cases[c].npp - 1) / cases[c].npp,
				     box_fits, &ba)) {
				assert_int_equal(rc, 0);
				tu_assert_placement(cand, n, out, k);
				assert_is_box(g, cand, out, k);
				assert_int_equal(select_k(a, cand, k, again),
						 0);
				assert_memory_equal(out, again,
						    sizeof(int) * k);
				fits++;
			} else {
				assert_int_equal(rc, LOC_ENOFIT);
				nofits++;
			}
		}
		free(cand);
		free(out);
		free(again);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(fits > 1000);
	assert_true(nofits > 50);
}

/* Half the nodes free in a checkerboard: plenty of nodes, no box. */
static void test_box_refuses_fragmented_space(void **state)
{
	int dims[2] = { 4, 4 }, out[16];
	uint8_t cand[16];

	(void)state;
	for (int t = 0; t < 2; t++) {
		loc_grid_t *g = tu_grid(2, dims, t, 1);
		loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BOX,
					    LOC_WALLTIME_NONE);

		for (int x = 0; x < 4; x++)
			for (int y = 0; y < 4; y++)
				cand[n2(g, x, y)] = (x + y) % 2;
		assert_int_equal(select_k(a, cand, 1, out), 0);
		assert_int_equal(select_k(a, cand, 2, out), LOC_ENOFIT);
		assert_int_equal(select_k(a, cand, 8, out), LOC_ENOFIT);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

/* On a torus a box may wrap around. */
static void test_box_wraps_on_a_torus(void **state)
{
	int dims[1] = { 8 }, out[8];
	uint8_t cand[8] = { 1, 1, 0, 0, 0, 0, 1, 1 };
	loc_grid_t *g = tu_grid(1, dims, true, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);

	(void)state;
	assert_int_equal(select_k(a, cand, 4, out), 0);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 6);
	assert_int_equal(out[3], 7);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);

	g = tu_grid(1, dims, false, 1);
	a = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);
	assert_int_equal(select_k(a, cand, 4, out), LOC_ENOFIT);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* The most compact shape wins over an elongated one. */
static void test_box_prefers_compact_shapes(void **state)
{
	int dims[2] = { 8, 8 }, out[64];
	uint8_t cand[64];
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);

	(void)state;
	memset(cand, 1, sizeof(cand));
	assert_int_equal(select_k(a, cand, 16, out), 0);
	assert_int_equal(loc_metrics_total_pair_hops(g, out, 16),
			 /* a 4x4 square: 2 * 16 * 4 * (sum |i-j| over 4) */
			 2 * 16 * 10);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/*
 * Least blocking on a 6x4 mesh split by a busy column x = 3 into a 3x4
 * region (x 0..2) and a 2x4 region (x 4..5). A 2x2 job in the big region
 * would destroy more free 2x2 boxes and one or two free 2x4 boxes; in a
 * corner of the small region it destroys the fewest, so it goes there
 * and the 3x4 region stays whole (first fit would take <0,0>).
 */
static void test_box_least_blocking_choice(void **state)
{
	int dims[2] = { 6, 4 }, out[24];
	uint8_t cand[24];
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);
	loc_coord_t c;
	int ylo;

	(void)state;
	memset(cand, 1, sizeof(cand));
	for (int y = 0; y < 4; y++)
		cand[n2(g, 3, y)] = 0;
	assert_int_equal(select_k(a, cand, 4, out), 0);
	loc_grid_node_coord(g, out[0], &c);
	assert_int_equal(c.c[0], 4);
	ylo = c.c[1];
	assert_true(ylo == 0 || ylo == 2);
	assert_int_equal(out[1], n2(g, 4, ylo + 1));
	assert_int_equal(out[2], n2(g, 5, ylo));
	assert_int_equal(out[3], n2(g, 5, ylo + 1));

	/* 1-D: a 2-node job goes into the 3-hole, not the 4-hole. */
	{
		int d1[1] = { 8 }, o1[8];
		uint8_t c1[8] = { 1, 1, 1, 1, 0, 1, 1, 1 };
		loc_grid_t *g1 = tu_grid(1, d1, false, 1);
		loc_alloc_t *a1 = make_alloc(g1, LOC_STRATEGY_BOX,
					     LOC_WALLTIME_NONE);

		assert_int_equal(select_k(a1, c1, 2, o1), 0);
		assert_true(o1[0] >= 5);
		/* ...at its end, not in its middle. */
		assert_true(o1[0] == 5 || o1[0] == 6);
		assert_int_equal(o1[1], o1[0] + 1);
		loc_alloc_destroy(a1);
		loc_grid_destroy(g1);
	}
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* With several nodes per point a box takes whole points in row-major
 * order and may use the spare nodes of a partly used point. */
static void test_box_nodes_per_point(void **state)
{
	int dims[1] = { 4 }, out[8];
	uint8_t cand[8] = { 0, 0, 0, 1, 1, 1, 0, 0 };
	loc_grid_t *g = tu_grid(1, dims, false, 2);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BOX, LOC_WALLTIME_NONE);

	(void)state;
	/* Point 1 has node 3 spare, point 2 is free: 3 nodes fit. */
	assert_int_equal(select_k(a, cand, 3, out), 0);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 4);
	assert_int_equal(out[2], 5);
	/* 4 nodes need two whole points: none. */
	assert_int_equal(select_k(a, cand, 4, out), LOC_ENOFIT);
	/* 2 nodes: one point suffices; the whole free point 2. */
	assert_int_equal(select_k(a, cand, 2, out), 0);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 5);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_matches_brute_force),
		cmocka_unit_test(test_box_refuses_fragmented_space),
		cmocka_unit_test(test_box_wraps_on_a_torus),
		cmocka_unit_test(test_box_prefers_compact_shapes),
		cmocka_unit_test(test_box_least_blocking_choice),
		cmocka_unit_test(test_box_nodes_per_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
