/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_claim.c - the region a waiting job lets drain: by hand on a
 * torus and a mesh (edges, unusable nodes, no translate at all), and on
 * random grids, placements and states against a brute force over every
 * coordinate offset, worked out from node coordinates alone; and the
 * claims in force: disjoint regions, one per job, at most CompactClaims,
 * dropped nodes freed, and the weighing other jobs see.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "loc_claim.h"
#include "loc_test_util.h"

static void _sort(int *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

static void test_torus_by_hand(void **state)
{
	int dims[2] = { 4, 4 };
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	int place[4] = { 0, 1, 4, 5 }, out[4];
	uint8_t usable[16], idle[16] = { 0 };
	loc_error_t err;

	(void)state;
	memset(usable, 1, sizeof(usable));
	/* The 2x2 box at (2,2) is idle: the region is there. */
	idle[10] = idle[11] = idle[14] = idle[15] = 1;
	assert_int_equal(loc_claim_region(g, place, 4, usable, idle, out, &err),
			 4);
	_sort(out, 4);
	assert_true(out[0] == 10 && out[1] == 11 && out[2] == 14 &&
		    out[3] == 15);
	/* Across the wrap: (3,3), (3,0), (0,3), (0,0) hold 3 idle nodes. */
	memset(idle, 0, sizeof(idle));
	idle[15] = idle[12] = idle[3] = 1;
	assert_int_equal(loc_claim_region(g, place, 4, usable, idle, out, &err),
			 3);
	_sort(out, 4);
	assert_true(out[0] == 0 && out[1] == 3 && out[2] == 12 &&
		    out[3] == 15);
	/* Nothing idle: the placement itself. */
	memset(idle, 0, sizeof(idle));
	assert_int_equal(loc_claim_region(g, place, 4, usable, idle, out, &err),
			 0);
	_sort(out, 4);
	assert_true(out[0] == 0 && out[1] == 1 && out[2] == 4 && out[3] == 5);
	loc_grid_destroy(g);
}

static void test_mesh_edges_and_unusable(void **state)
{
	int dims[2] = { 4, 4 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	int place[4] = { 0, 1, 4, 5 }, out[4];
	uint8_t usable[16], idle[16] = { 0 };
	loc_error_t err;

	(void)state;
	memset(usable, 1, sizeof(usable));
	/* Idle across the wrap counts nothing on a mesh: (3,3) and (0,0)
	 * are in no box together; the box at (2,2) holds one idle. */
	idle[15] = idle[12] = idle[3] = idle[0] = 1;
	assert_int_equal(loc_claim_region(g, place, 4, usable, idle, out, &err),
			 1);
	_sort(out, 4);
	assert_true(out[0] == 0 && out[1] == 1 && out[2] == 4 && out[3] == 5);
	/* A box with an unusable node is not a region. */
	memset(idle, 0, sizeof(idle));
	idle[10] = idle[11] = idle[14] = idle[15] = 1;
	usable[15] = 0;
	assert_int_equal(loc_claim_region(g, place, 4, usable, idle, out, &err),
			 2);
	for (int j = 0; j < 4; j++)
		assert_true(usable[out[j]]);
	/* No 2x2 box lies on usable nodes: none. */
	memset(usable, 0, sizeof(usable));
	usable[0] = usable[1] = usable[4] = usable[6] = 1;
	assert_int_equal(loc_claim_region(g, place, 4, usable, idle, out, &err),
			 LOC_ENOFIT);
	assert_int_equal(loc_claim_region(g, place, 0, usable, idle, out, &err),
			 LOC_EINVAL);
	loc_grid_destroy(g);
}

/* The node at coordinate c with slot s (the s-th node of that point in
 * node order), or -1: worked out by scanning every node's coordinates. */
static int _node_at(const loc_grid_t *g, const loc_coord_t *c, int slot)
{
	int nd = loc_grid_ndims(g), seen = 0;

	for (int v = 0; v < loc_grid_nnodes(g); v++) {
		loc_coord_t vc;
		bool same = true;

		loc_grid_node_coord(g, v, &vc);
		for (int d = 0; d < nd; d++)
			same = same && vc.c[d] == c->c[d];
		if (same && seen++ == slot)
			return v;
	}
	return -1;
}

static int _slot_of(const loc_grid_t *g, int node)
{
	loc_coord_t c;

	loc_grid_node_coord(g, node, &c);
	for (int s = 0;; s++)
		if (_node_at(g, &c, s) == node)
			return s;
}

/* The most idle nodes of any translate on usable nodes, over every
 * offset with |o_d| < L_d; -1 when none. */
static int _brute(const loc_grid_t *g, const int *place, int k,
		  const uint8_t *usable, const uint8_t *idle)
{
	const loc_shape_t *sh = loc_grid_shape(g);
	int nd = sh->ndims, best = -1, span = 1;

	for (int d = 0; d < nd; d++)
		span *= 2 * sh->dims[d] - 1;
	for (int i = 0; i < span; i++) {
		loc_coord_t o;
		int r = i, nidle = 0;
		bool ok = true;

		for (int d = 0; d < nd; d++) {
			o.c[d] = r % (2 * sh->dims[d] - 1) - (sh->dims[d] - 1);
			r /= 2 * sh->dims[d] - 1;
		}
		for (int j = 0; j < k && ok; j++) {
			loc_coord_t c;
			int v;

			loc_grid_node_coord(g, place[j], &c);
			for (int d = 0; d < nd; d++) {
				int L = sh->dims[d];

				c.c[d] += o.c[d];
				if (sh->torus[d])
					c.c[d] = ((c.c[d] % L) + L) % L;
				else if (c.c[d] < 0 || c.c[d] >= L)
					ok = false;
			}
			v = ok ? _node_at(g, &c, _slot_of(g, place[j])) : -1;
			ok = ok && v >= 0 && usable[v];
			nidle += ok && idle[v];
		}
		if (ok && nidle > best)
			best = nidle;
	}
	return best;
}

static void test_random_against_brute_force(void **state)
{
	uint64_t rng = 0x5eed;
	int runs = 0, found = 0;

	(void)state;
	for (int it = 0; it < 300; it++) {
		int nd = 2 + tu_below(&rng, 2), dims[3], np = 1;
		bool torus = tu_below(&rng, 2);
		int npp = 1 + tu_below(&rng, 2), n, k, *place, *out, got, want;
		uint8_t *usable, *idle, *in;
		loc_grid_t *g;
		loc_error_t err;

		for (int d = 0; d < nd; d++) {
			dims[d] = 2 + tu_below(&rng, nd == 2 ? 5 : 3);
			np *= dims[d];
		}
		n = np * npp;
		g = tu_grid(nd, dims, torus, npp);
		k = 1 + tu_below(&rng, n < 8 ? n : 8);
		place = calloc(k, sizeof(int));
		out = calloc(k, sizeof(int));
		usable = calloc(n, 1);
		idle = calloc(n, 1);
		in = calloc(n, 1);
		assert_true(place && out && usable && idle && in);
		/* k distinct usable nodes, then random usable and idle. */
		for (int v = 0; v < n; v++) {
			usable[v] = tu_below(&rng, 5) != 0;
			idle[v] = usable[v] && tu_below(&rng, 2);
		}
		for (int j = 0; j < k;) {
			int v = tu_below(&rng, n);

			if (!in[v]) {
				in[v] = 1;
				usable[v] = 1;
				place[j++] = v;
			}
		}
		got = loc_claim_region(g, place, k, usable, idle, out, &err);
		want = _brute(g, place, k, usable, idle);
		assert_true(want >= 0); /* the placement itself */
		assert_int_equal(got, want);
		{
			int nidle = 0;

			memset(in, 0, n);
			for (int j = 0; j < k; j++) {
				assert_true(usable[out[j]]);
				assert_false(in[out[j]]);
				in[out[j]] = 1;
				nidle += idle[out[j]];
			}
			assert_int_equal(nidle, got);
			if (torus)
				assert_int_equal(
					loc_metrics_total_pair_hops(g, out, k),
					loc_metrics_total_pair_hops(g, place,
								    k));
		}
		found += got > 0;
		runs++;
		free(place);
		free(out);
		free(usable);
		free(idle);
		free(in);
		loc_grid_destroy(g);
	}
	assert_int_equal(runs, 300);
	assert_true(found > 200); /* the states were not all trivial */
}

/* Past LOC_CLAIM_BUDGET only every n-th translate is tried: the answer is
 * still a translate on usable nodes, never below the placement's own. */
static void test_budget(void **state)
{
	int dims[2] = { 256, 256 }, k = 128, *place, *out, got, own = 0;
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	int n = 256 * 256;
	uint8_t *usable = malloc(n), *idle = calloc(n, 1);
	loc_error_t err;

	(void)state;
	place = calloc(k, sizeof(int));
	out = calloc(k, sizeof(int));
	assert_true(usable && idle && place && out);
	memset(usable, 1, n);
	for (int j = 0; j < k; j++)
		place[j] = (j / 16) * 256 + j % 16; /* a 16x8 box at 0 */
	for (int v = 0; v < n; v += 3)
		idle[v] = 1;
	for (int j = 0; j < k; j++)
		own += idle[place[j]];
	got = loc_claim_region(g, place, k, usable, idle, out, &err);
	assert_true(got >= own);
	assert_int_equal(loc_metrics_total_pair_hops(g, out, k),
			 loc_metrics_total_pair_hops(g, place, k));
	free(place);
	free(out);
	free(usable);
	free(idle);
	loc_grid_destroy(g);
}

/* The set of claims on a 4x4 torus: regions stay off each other, a job
 * holds one, a drop frees its nodes, and only other jobs' candidates
 * weigh heavier. */
static void test_claims_in_force(void **state)
{
	int dims[2] = { 4, 4 };
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	int place[4] = { 0, 1, 4, 5 };
	uint8_t usable[16], idle[16] = { 0 }, cand[16];
	uint64_t w[16];
	loc_claims_t c;
	loc_error_t err;
	int mine = 0;

	(void)state;
	memset(usable, 1, sizeof(usable));
	assert_int_equal(loc_claims_init(&c, 16, &err), 0);
	/* Job 7 claims the idle box at (2,2). */
	idle[10] = idle[11] = idle[14] = idle[15] = 1;
	assert_int_equal(loc_claims_make(&c, g, 16, 7, 100, place, 4, usable,
					 NULL, idle, &err),
			 4);
	assert_true(loc_claims_held(&c, 7) && !loc_claims_held(&c, 8));
	assert_int_equal(loc_claims_make(&c, g, 16, 7, 100, place, 4, usable,
					 NULL, idle, &err),
			 LOC_EEXIST);
	/* Job 8 sees the same idle nodes but must keep off job 7's box,
	 * which holds them all. */
	assert_int_equal(loc_claims_make(&c, g, 16, 8, 100, place, 4, usable,
					 NULL, idle, &err),
			 0);
	for (int v = 0; v < 16; v++) {
		mine += c.owner[v] == 8;
		assert_false(c.owner[v] == 8 && idle[v]);
	}
	assert_int_equal(mine, 4);
	/* Job 8 weighs job 7's candidates one heavier, its own not. */
	memset(cand, 1, sizeof(cand));
	for (int v = 0; v < 16; v++)
		w[v] = 10;
	assert_true(loc_claims_weigh(&c, 8, cand, w, true));
	for (int v = 0; v < 16; v++)
		assert_true(w[v] == (c.owner[v] == 7 ? 11u : 10u));
	/* Without weights of its own a job gets 0 and 1. */
	cand[10] = 0;
	assert_true(loc_claims_weigh(&c, 8, cand, w, false));
	for (int v = 0; v < 16; v++)
		assert_true(w[v] == (c.owner[v] == 7 && v != 10 ? 1u : 0u));
	/* No candidate claimed by another job (its own and unclaimed
	 * ones): weights untouched. */
	for (int v = 0; v < 16; v++) {
		cand[v] = c.owner[v] != 7;
		w[v] = 5;
	}
	assert_false(loc_claims_weigh(&c, 8, cand, w, false));
	for (int v = 0; v < 16; v++)
		assert_true(w[v] == 5);
	/* Dropping job 7's claim frees its nodes; job 8's stays. */
	assert_int_equal(c.c[0].job_id, 7);
	loc_claims_drop(&c, 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.c[0].job_id, 8);
	for (int v = 0; v < 16; v++)
		assert_true(c.owner[v] == 0 || c.owner[v] == 8);
	/* Twelve 1-node claims take the other nodes; then no translate
	 * lies off the claims. */
	for (uint32_t id = 100; id < 112; id++)
		assert_int_equal(loc_claims_make(&c, g, 16, id, 100, place, 1,
						 usable, NULL, idle, &err),
				 id < 104); /* the idle box first */
	assert_int_equal(c.n, 13);
	assert_int_equal(loc_claims_make(&c, g, 16, 112, 100, place, 1, usable,
					 NULL, idle, &err),
			 LOC_ENOFIT);
	/* At most CompactClaims in force (13 now), and never more than
	 * LOC_CLAIMS_MAX. */
	memset(c.owner, 0, 16 * sizeof(*c.owner));
	assert_int_equal(loc_claims_make(&c, g, 13, 99, 100, place, 1, usable,
					 NULL, idle, &err),
			 LOC_ERANGE);
	assert_int_equal(loc_claims_make(&c, g, 14, 99, 100, place, 1, usable,
					 NULL, idle, &err),
			 1);
	for (uint32_t id = 300; c.n < LOC_CLAIMS_MAX; id++)
		c.c[c.n++].job_id = id;
	assert_int_equal(loc_claims_make(&c, g, LOC_CLAIMS_MAX + 1, 98, 100,
					 place, 1, usable, NULL, idle, &err),
			 LOC_ERANGE);
	loc_claims_fini(&c);
	loc_claims_fini(&c); /* accepts a zeroed set */
	/* With weights, a region lies no heavier than the placement's
	 * heaviest node: the idle box at (2,2) is heavier, so the claim
	 * keeps to the light nodes, off it. */
	{
		uint64_t wt[16];

		assert_int_equal(loc_claims_init(&c, 16, &err), 0);
		for (int v = 0; v < 16; v++)
			wt[v] = v >= 8 ? 2 : 1;
		assert_int_equal(loc_claims_make(&c, g, 16, 9, 100, place, 4,
						 usable, wt, idle, &err),
				 0);
		for (int v = 0; v < 16; v++)
			assert_false(c.owner[v] == 9 && wt[v] > 1);
		loc_claims_fini(&c);
	}
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_torus_by_hand),
		cmocka_unit_test(test_mesh_edges_and_unusable),
		cmocka_unit_test(test_random_against_brute_force),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_claims_in_force),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
