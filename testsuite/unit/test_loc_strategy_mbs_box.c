/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_mbs_box.c - the Multiple Buddy Strategy (seed 001)
 * and the least-blocking box strategy (seed 004): the paper's examples by
 * hand, brute-force checks of every box answer on small grids, and
 * invariants on thousands of random fragmented states.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "loc_test_util.h"
#include "loc_strategy.h"
#include "st_mbs.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static loc_alloc_t *make_alloc(const loc_grid_t *g, int strategy, int wt)
{
	loc_policy_t pol;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&pol);
	pol.strategy = strategy;
	pol.walltime = wt;
	a = loc_alloc_create(g, &pol, &err);
	if (!a)
		fail_msg("cannot create allocator: %s", err.text);
	return a;
}

/* Node at 2-D point (x, y) of a row-major grid with one node per point
 * (x is dimension 0, the paper's first coordinate). */
static int n2(const loc_grid_t *g, int x, int y)
{
	return x * loc_grid_shape(g)->dims[1] + y;
}

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

static int select_k(loc_alloc_t *a, const uint8_t *cand, int k, int *out)
{
	loc_request_t req = { .nodes = k };
	loc_view_t view = { .candidate = cand };
	loc_error_t err;

	return loc_alloc_select(a, &req, &view, out, &err);
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
		cmocka_unit_test(test_mbs_initial_blocks_of_12x10_match_paper),
		cmocka_unit_test(test_mbs_initial_blocks_tile_any_grid),
		cmocka_unit_test(test_mbs_five_processor_job_of_fig3a),
		cmocka_unit_test(test_mbs_breaks_a_request_when_no_block_fits),
		cmocka_unit_test(test_mbs_splits_larger_blocks_into_buddies),
		cmocka_unit_test(test_mbs_allocates_a_free_square_as_one_block),
		cmocka_unit_test(test_mbs_nodes_per_point),
		cmocka_unit_test(test_mbs_random_states),
		cmocka_unit_test(test_box_matches_brute_force),
		cmocka_unit_test(test_box_refuses_fragmented_space),
		cmocka_unit_test(test_box_wraps_on_a_torus),
		cmocka_unit_test(test_box_prefers_compact_shapes),
		cmocka_unit_test(test_box_least_blocking_choice),
		cmocka_unit_test(test_box_nodes_per_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
