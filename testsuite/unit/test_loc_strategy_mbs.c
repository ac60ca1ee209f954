/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_mbs.c - the Multiple Buddy Strategy (seed 001): the
 * paper's examples by hand, the initial blocks of any grid, and
 * invariants on thousands of random fragmented states. The box strategy
 * is in test_loc_strategy_box.c.
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
#include "strategies/st_mbs.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Appends the nodes of the square <x, y, side> to list. */
static int add_square(const loc_grid_t *g, int *list, int n, int x, int y,
		      int side)
{
	for (int i = 0; i < side; i++)
		for (int j = 0; j < side; j++)
			list[n++] = n2(g, x + i, y + j);
	return n;
}

/* Asserts that out[0..k) (ascending) equals the set in want[0..k). */
static void assert_same_set(const int *out, int *want, int k)
{
	qsort(want, k, sizeof(int), cmp_int);
	for (int i = 0; i < k; i++)
		assert_int_equal(out[i], want[i]);
}

/* ------------------------------------------------------------------ */
/* MBS                                                                 */
/* ------------------------------------------------------------------ */

/* Seed 001 sec. 3.3.1 / Fig. 4: the 12x10 mesh is divided into 9
 * initial blocks <0,0,8>, <8,0,4>, <8,4,4>, <0,8,2>, ..., <10,8,2>. */
static void test_mbs_initial_blocks_of_12x10_match_paper(void **state)
{
	static const int want[9][3] = {
		{ 0, 0, 8 }, { 8, 0, 4 }, { 8, 4, 4 }, { 0, 8, 2 }, { 2, 8, 2 },
		{ 4, 8, 2 }, { 6, 8, 2 }, { 8, 8, 2 }, { 10, 8, 2 },
	};
	int dims[2] = { 12, 10 }, side[16];
	loc_coord_t org[16];
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	int n = loc__mbs_initial_blocks(g, org, side, 16);

	(void)state;
	assert_int_equal(n, 9);
	for (int i = 0; i < 9; i++) {
		assert_int_equal(org[i].c[0], want[i][0]);
		assert_int_equal(org[i].c[1], want[i][1]);
		assert_int_equal(side[i], want[i][2]);
	}
	loc_grid_destroy(g);
}

/* Any size, 1-4 dimensions: the initial blocks tile the grid exactly,
 * are power-of-two cubes over the dimensions longer than 1, and the
 * first is the largest cube that fits. */
static void test_mbs_initial_blocks_tile_any_grid(void **state)
{
	static const struct {
		int nd, dims[4];
	} cases[] = {
		{ 1, { 13 } },         { 1, { 1 } },          { 2, { 7, 5 } },
		{ 2, { 16, 16 } },     { 2, { 3, 17 } },      { 2, { 1, 9 } },
		{ 3, { 5, 4, 4 } },   { 3, { 8, 8, 5 } },
		{ 3, { 9, 1, 6 } },   { 3, { 11, 13, 7 } },
		{ 4, { 3, 5, 4, 6 } }, { 4, { 4, 4, 4, 4 } },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		loc_grid_t *g = tu_grid(cases[c].nd, cases[c].dims, false, 1);
		int np = loc_grid_npoints(g), n, mindim = 1 << 30, first;
		int *cover = calloc(np, sizeof(int)), *side;
		loc_coord_t *org;

		n = loc__mbs_initial_blocks(g, NULL, NULL, 0);
		assert_true(n >= 1 && n <= np);
		org = calloc(n, sizeof(*org));
		side = calloc(n, sizeof(int));
		assert_int_equal(loc__mbs_initial_blocks(g, org, side, n), n);
		for (int d = 0; d < cases[c].nd; d++)
			if (cases[c].dims[d] > 1 && cases[c].dims[d] < mindim)
				mindim = cases[c].dims[d];
		for (first = 1; first * 2 <= mindim && mindim < (1 << 30);
		     first *= 2)
			;
		if (mindim == 1 << 30)
			first = 1;
		assert_int_equal(side[0], first);
		for (int b = 0; b < n; b++)
			assert_true(side[b] >= 1 &&
				    (side[b] & (side[b] - 1)) == 0);
		for (int p = 0; p < np; p++) {
			loc_coord_t pc;

			loc_grid_point_coord(g, p, &pc);
			for (int b = 0; b < n; b++) {
				bool in = true;

				for (int d = 0; d < cases[c].nd; d++) {
					int len = cases[c].dims[d] > 1 ?
							  side[b] : 1;

					in = in && pc.c[d] >= org[b].c[d] &&
					     pc.c[d] < org[b].c[d] + len;
				}
				cover[p] += in;
			}
		}
		/* No block sticks out of the grid. */
		for (int b = 0; b < n; b++)
			for (int d = 0; d < cases[c].nd; d++)
				assert_true(org[b].c[d] +
						    (cases[c].dims[d] > 1 ?
							     side[b] : 1) <=
					    cases[c].dims[d]);
		for (int p = 0; p < np; p++)
			assert_int_equal(cover[p], 1);
		free(cover);
		free(org);
		free(side);
		loc_grid_destroy(g);
	}
}

/* Seed 001 Fig. 3(a): an 8x8 mesh with <0,0,2>, <4,0,1> and <4,4,1>
 * allocated; a 5-processor job gets exactly <2,0,2> and <5,0,1>. */
static void test_mbs_five_processor_job_of_fig3a(void **state)
{
	int dims[2] = { 8, 8 }, out[64], want[8], n = 0;
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_MBS, LOC_WALLTIME_NONE);
	uint8_t cand[64];

	(void)state;
	memset(cand, 1, sizeof(cand));
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			cand[n2(g, i, j)] = 0;
	cand[n2(g, 4, 0)] = 0;
	cand[n2(g, 4, 4)] = 0;
	assert_int_equal(select_k(a, cand, 5, out), 0);
	n = add_square(g, want, 0, 2, 0, 2);
	want[n++] = n2(g, 5, 0);
	assert_same_set(out, want, 5);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* Seed 001 Fig. 3(b): no free 4x4 block, so a 16-processor request is
 * broken into four 2x2 requests, served by the first free 2x2 blocks. */
static void test_mbs_breaks_a_request_when_no_block_fits(void **state)
{
	int dims[2] = { 8, 8 }, out[64], want[16], n = 0;
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_MBS, LOC_WALLTIME_NONE);
	uint8_t cand[64];

	(void)state;
	memset(cand, 1, sizeof(cand));
	/* One busy corner per 4x4 quadrant. */
	cand[n2(g, 0, 0)] = cand[n2(g, 4, 0)] = 0;
	cand[n2(g, 0, 4)] = cand[n2(g, 4, 4)] = 0;
	assert_int_equal(select_k(a, cand, 16, out), 0);
	/* Buddy order in quadrant <0,0,4>: <2,0,2>, <0,2,2>, <2,2,2>; then
	 * quadrant <4,0,4>: <6,0,2>. */
	n = add_square(g, want, n, 2, 0, 2);
	n = add_square(g, want, n, 0, 2, 2);
	n = add_square(g, want, n, 2, 2, 2);
	n = add_square(g, want, n, 6, 0, 2);
	assert_int_equal(n, 16);
	assert_same_set(out, want, 16);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* Algorithm 2: with no free 2x2 or 1x1 block, generate_buddy breaks the
 * first free 4x4 block into buddies for the 2x2 request, and the next
 * 2x2 buddy into 1x1 blocks for the remaining processor. */
static void test_mbs_splits_larger_blocks_into_buddies(void **state)
{
	int dims[2] = { 8, 8 }, out[64], want[8], n;
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_MBS, LOC_WALLTIME_NONE);
	uint8_t cand[64];

	(void)state;
	memset(cand, 1, sizeof(cand));
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			cand[n2(g, i, j)] = 0;
	assert_int_equal(select_k(a, cand, 5, out), 0);
	n = add_square(g, want, 0, 4, 0, 2);
	want[n++] = n2(g, 6, 0);
	assert_same_set(out, want, 5);

	/* A single processor comes from the corner of <4,0,4> too. */
	assert_int_equal(select_k(a, cand, 1, out), 0);
	assert_int_equal(out[0], n2(g, 4, 0));
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* A fully free 2^n square (and cube) requested whole is one block; a
 * request of 4^i processors on it is one aligned square. */
static void test_mbs_allocates_a_free_square_as_one_block(void **state)
{
	int dims2[2] = { 16, 16 }, dims3[3] = { 8, 8, 8 }, out[512], want[512];
	loc_grid_t *g = tu_grid(2, dims2, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_MBS, LOC_WALLTIME_NONE);
	uint8_t cand[512];
	int n;

	(void)state;
	memset(cand, 1, sizeof(cand));
	assert_int_equal(select_k(a, cand, 256, out), 0);
	for (int i = 0; i < 256; i++)
		assert_int_equal(out[i], i);
	assert_int_equal(select_k(a, cand, 16, out), 0);
	n = add_square(g, want, 0, 0, 0, 4);
	assert_same_set(out, want, n);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);

	/* 3-D: 64 = one 4x4x4 octet-block at the origin; 73 = 111 in base
	 * 8 around one busy node: the first free 4-cube <4,0,0>, the first
	 * free 2-cube <2,0,0> and the first free point <1,0,0>. */
	g = tu_grid(3, dims3, false, 1);
	a = make_alloc(g, LOC_STRATEGY_MBS, LOC_WALLTIME_NONE);
	assert_int_equal(select_k(a, cand, 64, out), 0);
	for (int i = 0; i < 64; i++) {
		loc_coord_t c;

		loc_grid_node_coord(g, out[i], &c);
		assert_true(c.c[0] < 4 && c.c[1] < 4 && c.c[2] < 4);
	}
	cand[0] = 0;
	assert_int_equal(select_k(a, cand, 73, out), 0);
	n = 0;
	for (int x = 0; x < 8; x++)
		for (int y = 0; y < 8; y++)
			for (int z = 0; z < 8; z++) {
				bool in4 = x >= 4 && y < 4 && z < 4;
				bool in2 = x >= 2 && x < 4 && y < 2 && z < 2;
				bool in1 = x == 1 && y == 0 && z == 0;

				if (in4 || in2 || in1)
					want[n++] = (x * 8 + y) * 8 + z;
			}
	assert_int_equal(n, 73);
	assert_same_set(out, want, 73);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* With two nodes per point, k = 2q + r: q points as blocks, the odd node
 * from a partly used point before breaking a free one. */
static void test_mbs_nodes_per_point(void **state)
{
	int dims[2] = { 4, 4 }, out[32];
	loc_grid_t *g = tu_grid(2, dims, false, 2);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_MBS, LOC_WALLTIME_NONE);
	uint8_t cand[32];

	(void)state;
	memset(cand, 1, sizeof(cand));
	cand[2 * 15] = 0; /* point (3,3) is half used */
	/* 3 nodes = one point + one node. The only free 1x1 blocks are the
	 * buddies of (3,3) in <2,2,2>, so the point is (2,2) (nodes 20, 21)
	 * rather than a split of a free 2x2 block, and the odd node is the
	 * spare node 31 of (3,3) rather than half of a free point. */
	assert_int_equal(select_k(a, cand, 3, out), 0);
	assert_int_equal(out[0], 20);
	assert_int_equal(out[1], 21);
	assert_int_equal(out[2], 31);
	/* 8 nodes = 4 points = the 2x2 block at the origin. */
	assert_int_equal(select_k(a, cand, 8, out), 0);
	for (int i = 0; i < 8; i++) {
		loc_coord_t c;

		loc_grid_node_coord(g, out[i], &c);
		assert_true(c.c[0] < 2 && c.c[1] < 2);
	}
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* Whether the aligned s x s square at (x, y) is wholly free. */
static bool free_square(const loc_grid_t *g, const uint8_t *cand, int x,
			int y, int s)
{
	for (int i = 0; i < s; i++)
		for (int j = 0; j < s; j++)
			if (!cand[n2(g, x + i, y + j)])
				return false;
	return true;
}

/*
 * For k = 4^i on a 2-D grid with one node per point: if some initial
 * block holds a free aligned 2^i square, MBS must answer with one such
 * square (a free block of that size exists, or a larger one to split).
 * Returns 1 when the case applied.
 */
static int check_power_of_four(const loc_grid_t *g, const uint8_t *cand,
			       const int *out, int k, const loc_coord_t *org,
			       const int *side, int nb)
{
	int s = 1;
	bool exists = false, aligned = false;
	loc_coord_t c0;

	if ((k & (k - 1)) || (__builtin_ctz(k) & 1))
		return 0;
	while (s * s < k)
		s *= 2;
	for (int b = 0; b < nb && !exists; b++)
		for (int x = 0; x + s <= side[b] && !exists; x += s)
			for (int y = 0; y + s <= side[b] && !exists; y += s)
				exists = free_square(g, cand, org[b].c[0] + x,
						     org[b].c[1] + y, s);
	if (!exists)
		return 0;
	loc_grid_node_coord(g, out[0], &c0);
	for (int b = 0; b < nb; b++)
		aligned |= side[b] >= s && c0.c[0] >= org[b].c[0] &&
			   c0.c[0] < org[b].c[0] + side[b] &&
			   c0.c[1] >= org[b].c[1] &&
			   c0.c[1] < org[b].c[1] + side[b] &&
			   (c0.c[0] - org[b].c[0]) % s == 0 &&
			   (c0.c[1] - org[b].c[1]) % s == 0;
	assert_true(aligned);
	for (int i = 0; i < k; i++) {
		loc_coord_t ci;

		loc_grid_node_coord(g, out[i], &ci);
		assert_true(ci.c[0] >= c0.c[0] && ci.c[0] < c0.c[0] + s &&
			    ci.c[1] >= c0.c[1] && ci.c[1] < c0.c[1] + s);
	}
	return 1;
}

/* Random fragmented states in 1-4 dimensions, odd sizes, tori, two
 * nodes per point: always k distinct candidates, deterministically. In
 * 2-D with one node per point, a request for 4^i nodes is one aligned
 * 2^i square whenever some free aligned block of that size or larger
 * exists (the buddy rules never split it needlessly). */
static void test_mbs_random_states(void **state)
{
	static const struct {
		int nd, dims[4];
		bool torus;
		int npp;
	} cases[] = {
		{ 1, { 37 }, false, 1 },       { 2, { 12, 10 }, false, 1 },
		{ 2, { 13, 7 }, true, 1 },     { 2, { 16, 16 }, false, 1 },
		{ 2, { 6, 5 }, false, 2 },     { 3, { 5, 4, 4 }, true, 1 },
		{ 3, { 7, 6, 5 }, false, 1 },  { 3, { 4, 4, 3 }, false, 3 },
		{ 4, { 3, 4, 5, 2 }, false, 1 },
	};
	uint64_t seed = 0x5eed;
	int runs = 0, checked = 0;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		loc_grid_t *g = tu_grid(cases[c].nd, cases[c].dims,
					cases[c].torus, cases[c].npp);
		loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_MBS,
					    LOC_WALLTIME_NONE);
		int n = loc_grid_nnodes(g), nb;
		uint8_t *cand = malloc(n);
		int *out = malloc(sizeof(int) * n);
		int *again = malloc(sizeof(int) * n);
		loc_coord_t org[512];
		int side[512];

		nb = loc__mbs_initial_blocks(g, org, side, 512);
		assert_true(nb <= 512);
		for (int it = 0; it < 400; it++) {
			int nfree, k;

			tu_fragmented(cand, n, (tu_rand(&seed) % 90) / 100.0,
				      tu_rand(&seed));
			nfree = tu_count(cand, n);
			if (!nfree)
				continue;
			k = 1 + tu_below(&seed, nfree);
			if (it % 3 == 0 && cases[c].nd == 2 &&
			    cases[c].npp == 1) {
				int i = tu_below(&seed, 3);

				k = 1 << (2 * i);
				if (k > nfree)
					k = 1;
			}
			assert_int_equal(select_k(a, cand, k, out), 0);
			tu_assert_placement(cand, n, out, k);
			assert_int_equal(select_k(a, cand, k, again), 0);
			assert_memory_equal(out, again, sizeof(int) * k);
			runs++;

			if (cases[c].nd == 2 && cases[c].npp == 1)
				checked += check_power_of_four(g, cand, out, k,
							       org, side, nb);
		}
		free(cand);
		free(out);
		free(again);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(runs > 3000);
	assert_true(checked > 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbs_initial_blocks_of_12x10_match_paper),
		cmocka_unit_test(test_mbs_initial_blocks_tile_any_grid),
		cmocka_unit_test(test_mbs_five_processor_job_of_fig3a),
		cmocka_unit_test(test_mbs_breaks_a_request_when_no_block_fits),
		cmocka_unit_test(test_mbs_splits_larger_blocks_into_buddies),
		cmocka_unit_test(test_mbs_allocates_a_free_square_as_one_block),
		cmocka_unit_test(test_mbs_nodes_per_point),
		cmocka_unit_test(test_mbs_random_states),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
