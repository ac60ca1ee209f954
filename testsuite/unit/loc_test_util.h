/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_util.h - helpers shared by the cmocka unit tests: grids,
 * fragmented random states, placement checks and brute-force optima.
 * Header-only (static functions) so each test program stays one file.
 * Include after <cmocka.h>.
 */
#ifndef LOC_TEST_UTIL_H
#define LOC_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loc_grid.h"
#include "loc_metrics.h"
#include "loc_strategy.h"

/* A tiny deterministic generator for test states (not the core's). */
static inline uint64_t tu_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline int tu_below(uint64_t *s, int n)
{
	return (int)(tu_rand(s) % (uint64_t)n);
}

/*
 * A grid of ndims dims with npp nodes a point and nnodes nodes (at most
 * the points times npp): row-major, or, when shuffled, the points dealt
 * to the nodes in a random order (node v on the v % points-th of them).
 * Asserts success.
 */
static inline loc_grid_t *tu_grid_dealt(int ndims, const int *dims,
					bool torus, int npp, int nnodes,
					bool shuffled, uint64_t *rng)
{
	loc_shape_t shape = { .ndims = ndims, .nodes_per_point = npp };
	loc_error_t err;
	loc_grid_t *g;
	int np = 1, *perm;

	for (int d = 0; d < ndims; d++) {
		shape.dims[d] = dims[d];
		shape.torus[d] = torus;
		np *= dims[d];
	}
	g = loc_grid_create(&shape, nnodes, &err);
	assert_non_null(g);
	if (!shuffled)
		return g;
	perm = malloc(sizeof(int) * np);
	assert_non_null(perm);
	for (int p = 0; p < np; p++)
		perm[p] = p;
	for (int p = np - 1; p > 0; p--) {
		int j = tu_below(rng, p + 1), t = perm[p];

		perm[p] = perm[j];
		perm[j] = t;
	}
	for (int v = 0; v < nnodes; v++) {
		loc_coord_t c;
		int p = perm[v % np];

		memset(&c, 0, sizeof(c));
		for (int d = ndims - 1; d >= 0; d--) {
			c.c[d] = p % dims[d];
			p /= dims[d];
		}
		assert_int_equal(loc_grid_set_node_coord(g, v, &c, &err), 0);
	}
	assert_int_equal(loc_grid_finalize(g, &err), 0);
	free(perm);
	return g;
}

/* Makes a row-major grid, every place a node; asserts success. dims has
 * ndims entries. */
static inline loc_grid_t *tu_grid(int ndims, const int *dims, bool torus,
				  int npp)
{
	int n = npp;

	for (int d = 0; d < ndims; d++)
		n *= dims[d];
	return tu_grid_dealt(ndims, dims, torus, npp, n, false, NULL);
}

/*
 * Fills cand[n] with a fragmented state: about `busy_frac` of the nodes
 * taken by a sequence of random-size "jobs" placed at random runs and
 * some released again, like a machine after a while. seed varies it.
 */
static inline void tu_fragmented(uint8_t *cand, int n, double busy_frac,
				 uint64_t seed)
{
	uint64_t s = seed * 2654435761u + 1;
	int busy = 0, target = (int)(busy_frac * n);

	memset(cand, 1, n);
	while (busy < target) {
		int len = 1 + tu_below(&s, n / 8 + 1);
		int start = tu_below(&s, n);

		for (int i = 0; i < len && busy < target; i++) {
			int v = (start + i * (1 + tu_below(&s, 3))) % n;

			if (cand[v]) {
				cand[v] = 0;
				busy++;
			}
		}
	}
}

/* Asserts out[0..k-1] is k distinct candidate nodes in ascending order. */
static inline void tu_assert_placement(const uint8_t *cand, int n,
				       const int *out, int k)
{
	for (int i = 0; i < k; i++) {
		assert_true(out[i] >= 0 && out[i] < n);
		assert_true(cand[out[i]]);
		if (i)
			assert_true(out[i - 1] < out[i]);
	}
}

/* Counts candidates. */
static inline int tu_count(const uint8_t *cand, int n)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += cand[i] != 0;
	return c;
}

/*
 * Brute force: the least total pairwise hops over all k-subsets of the
 * candidates (only for small instances: C(nfree, k) subsets).
 */
static inline int64_t tu_brute_min_pair_hops(const loc_grid_t *g,
					     const uint8_t *cand, int n, int k)
{
	int free_nodes[64], nf = 0, idx[64], pick[64];
	int64_t best = INT64_MAX;

	for (int i = 0; i < n && nf < 64; i++)
		if (cand[i])
			free_nodes[nf++] = i;
	if (k > nf)
		return -1;
	for (int i = 0; i < k; i++)
		idx[i] = i;
	for (;;) {
		int64_t t;
		int i;

		for (i = 0; i < k; i++)
			pick[i] = free_nodes[idx[i]];
		t = loc_metrics_total_pair_hops(g, pick, k);
		if (t < best)
			best = t;
		for (i = k - 1; i >= 0 && idx[i] == nf - k + i; i--)
			;
		if (i < 0)
			break;
		idx[i]++;
		for (int j = i + 1; j < k; j++)
			idx[j] = idx[j - 1] + 1;
	}
	return best;
}

#endif /* LOC_TEST_UTIL_H */
