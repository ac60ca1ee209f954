/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_size.c - how many nodes a request needs: loc_fewest_covering()
 * by hand (alike and mixed nodes, zero need, nodes of no CPUs, too little
 * in all) and on random small sets against brute force over every subset;
 * loc_narrow_to_even_share() by hand and on random sets (any k of what it
 * leaves cover the need; what it sets aside comes back whole);
 * loc_drop_one() by hand and against brute force over every node on
 * random sets of random meshes and tori; loc_fewer_nodes_compact()'s
 * bar.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "loc_metrics.h"
#include "loc_size.h"
#include "loc_test_util.h"

static void test_by_hand(void **state)
{
	uint32_t alike[4] = { 8, 8, 8, 8 };
	uint32_t mixed[5] = { 4, 64, 8, 4, 32 };
	uint32_t none[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(loc_fewest_covering(alike, 4, 0), 0);
	assert_int_equal(loc_fewest_covering(alike, 4, 1), 1);
	assert_int_equal(loc_fewest_covering(alike, 4, 8), 1);
	assert_int_equal(loc_fewest_covering(alike, 4, 9), 2);
	assert_int_equal(loc_fewest_covering(alike, 4, 32), 4);
	assert_int_equal(loc_fewest_covering(alike, 4, 33), 5);
	/* 64 + 32 = 96: two nodes, the largest ones, whatever their order. */
	assert_int_equal(loc_fewest_covering(mixed, 5, 96), 2);
	assert_int_equal(loc_fewest_covering(mixed, 5, 97), 3);
	assert_int_equal(loc_fewest_covering(mixed, 5, 112), 5);
	assert_int_equal(loc_fewest_covering(mixed, 5, 113), 6);
	assert_int_equal(loc_fewest_covering(none, 3, 1), 4);
	assert_int_equal(loc_fewest_covering(none, 3, 0), 0);
	assert_int_equal(loc_fewest_covering(NULL, 0, 1), 1);
	/* A need past 32 bits is not cut short. */
	assert_int_equal(loc_fewest_covering(alike, 4, UINT64_C(1) << 40), 5);
}

/* The fewest of v[0..n) that sum to need, over every subset. */
static int _brute(const uint32_t *v, int n, uint64_t need)
{
	int best = n + 1;

	for (unsigned s = 0; s < (1u << n); s++) {
		uint64_t sum = 0;
		int k = 0;

		for (int i = 0; i < n; i++)
			if (s & (1u << i)) {
				sum += v[i];
				k++;
			}
		if (sum >= need && k < best)
			best = k;
	}
	return best;
}

static void test_against_brute_force(void **state)
{
	uint32_t v[12], copy[12];

	(void)state;
	srand(20261128);
	for (int trial = 0; trial < 4000; trial++) {
		int n = rand() % 13;
		/* Half the trials alike, as most clusters' nodes are. */
		int alike = trial % 2, top = 1 + rand() % 64;
		uint64_t total = 0, need;

		for (int i = 0; i < n; i++) {
			v[i] = alike ? (uint32_t)top : (uint32_t)(rand() % 65);
			copy[i] = v[i];
			total += v[i];
		}
		need = (uint64_t)(rand() % (int)(total + 8));
		assert_int_equal(loc_fewest_covering(copy, n, need),
				 _brute(v, n, need));
	}
}

static void test_even_share_by_hand(void **state)
{
	/* Two kinds of node: 4 and 8 CPUs, one not a candidate. */
	uint32_t cpus[6] = { 4, 8, 4, 8, 4, 8 };
	uint8_t cand[6] = { 1, 1, 1, 1, 1, 0 }, aside[6] = { 0 };
	const uint8_t before[6] = { 1, 1, 1, 1, 1, 0 };

	(void)state;
	/* 12 CPUs on 2 nodes: 6 each, the two 8-CPU candidates. */
	assert_int_equal(loc_narrow_to_even_share(cand, aside, cpus, 6, 12, 2),
			 2);
	assert_int_equal(cand[0] + cand[2] + cand[4] + cand[5], 0);
	assert_int_equal(cand[1] + cand[3], 2);
	assert_int_equal(aside[0] + aside[2] + aside[4], 3);
	assert_int_equal(aside[5], 0); /* never a candidate */
	loc_unnarrow(cand, aside, 6);
	assert_memory_equal(cand, before, sizeof(before));
	for (int i = 0; i < 6; i++)
		assert_int_equal(aside[i], 0);
	/* 8 on 2 nodes: every candidate holds 4, nothing to narrow. */
	assert_int_equal(loc_narrow_to_even_share(cand, aside, cpus, 6, 8, 2),
			 -1);
	/* 18 on 2: 9 each, none holds it; 12 on 3: 4 each, all do. */
	assert_int_equal(loc_narrow_to_even_share(cand, aside, cpus, 6, 18, 2),
			 -1);
	assert_int_equal(loc_narrow_to_even_share(cand, aside, cpus, 6, 12, 3),
			 -1);
	/* 20 on 3: 7 each, only two candidates hold it. */
	assert_int_equal(loc_narrow_to_even_share(cand, aside, cpus, 6, 20, 3),
			 -1);
	assert_int_equal(loc_narrow_to_even_share(cand, aside, cpus, 6, 0, 2),
			 -1);
	assert_int_equal(loc_narrow_to_even_share(cand, aside, cpus, 6, 8, 0),
			 -1);
	assert_memory_equal(cand, before, sizeof(before));
	for (int i = 0; i < 6; i++)
		assert_int_equal(aside[i], 0);
}

static void test_even_share_compact(void **state)
{
	(void)state;
	/* A pair: its ideal is 1 hop; at 0.1, only an adjacent pair. */
	assert_true(loc_fewer_nodes_compact(1, 1, 0.1));
	assert_false(loc_fewer_nodes_compact(2, 1, 0.1));
	/* Four in a line (10) against a square (8): within 0.25, not 0.1. */
	assert_false(loc_fewer_nodes_compact(10, 8, 0.1));
	assert_true(loc_fewer_nodes_compact(10, 8, 0.25));
	/* One node: no hops, ideal 0. */
	assert_true(loc_fewer_nodes_compact(0, 0, 0.0));
	/* An ideal the core could not give, or hops it could not count. */
	assert_false(loc_fewer_nodes_compact(1, -1, 0.1));
	assert_false(loc_fewer_nodes_compact(-1, 1, 0.1));
}

static int _cmp_asc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void test_even_share_random(void **state)
{
	uint32_t v[16], left[16];
	uint8_t cand[16], was[16], aside[16];

	(void)state;
	srand(20261207);
	for (int trial = 0; trial < 4000; trial++) {
		int n = 1 + rand() % 16, k = 1 + rand() % 6, nleft = 0, rc;
		int ncand = 0;
		uint64_t need = (uint64_t)(rand() % 200), sum = 0;

		for (int i = 0; i < n; i++) {
			v[i] = (uint32_t)(rand() % 3 == 0 ? 64 : rand() % 33);
			cand[i] = was[i] = (uint8_t)(rand() % 4 != 0);
			aside[i] = 0;
			ncand += cand[i];
		}
		rc = loc_narrow_to_even_share(cand, aside, v, n, need, k);
		for (int i = 0; i < n; i++) {
			/* Only candidates move, and only out of cand[]. */
			assert_false(aside[i] && !was[i]);
			assert_int_equal(cand[i] + aside[i], was[i]);
			if (cand[i])
				left[nleft++] = v[i];
		}
		if (rc < 0) {
			assert_int_equal(nleft, ncand);
			continue;
		}
		assert_int_equal(rc, nleft);
		assert_true(nleft >= k && nleft < ncand);
		/* The k smallest left cover need, so any k of them do. */
		qsort(left, (size_t)nleft, sizeof(*left), _cmp_asc);
		for (int i = 0; i < k; i++)
			sum += left[i];
		assert_true(sum >= need);
		loc_unnarrow(cand, aside, n);
		assert_memory_equal(cand, was, (size_t)n);
	}
}

/* A line of 3 (8, 4 and 8 CPUs) and a 2x3 mesh of two kinds (row 0, nodes
 * 0-2, of 8 CPUs; row 1, nodes 3-5, of 4). */
static void test_drop_one_by_hand(void **state)
{
	const int line_dims[1] = { 3 }, mesh_dims[2] = { 2, 3 };
	loc_grid_t *line = tu_grid(1, line_dims, false, 1);
	loc_grid_t *mesh = tu_grid(2, mesh_dims, false, 1);
	int all[6] = { 0, 1, 2, 3, 4, 5 }, l_block[4] = { 0, 1, 3, 4 };
	uint32_t l_cpus[3] = { 8, 4, 8 }, m_cpus[4] = { 8, 8, 4, 4 };
	int64_t hops = -7;

	(void)state;
	/* 12 CPUs: either end can go (3 hops each to the others, the middle
	 * 2); the first is dropped, leaving a pair 1 hop apart. */
	assert_int_equal(loc_drop_one(line, all, l_cpus, 3, 12, &hops), 0);
	assert_true(hops == 1);
	/* 16: only the middle can go; the ends are 2 apart. */
	assert_int_equal(loc_drop_one(line, all, l_cpus, 3, 16, &hops), 1);
	assert_true(hops == 2);
	/* 20: all of them are needed; 21: they fall short. */
	hops = -7;
	assert_int_equal(loc_drop_one(line, all, l_cpus, 3, 20, &hops),
			 LOC_ENOFIT);
	assert_int_equal(loc_drop_one(line, all, l_cpus, 3, 21, &hops),
			 LOC_ENOFIT);
	assert_true(hops == -7);
	/* The square 0, 1, 3, 4 of the mesh: 16 CPUs, one node goes; each
	 * is 4 hops from the other three, so one holding less: the first
	 * of the row of 4. */
	assert_int_equal(loc_drop_one(mesh, l_block, m_cpus, 4, 16, &hops),
			 2);
	assert_true(hops == 4);
	/* One node, none, bad arguments. */
	assert_int_equal(loc_drop_one(line, all, l_cpus, 1, 4, &hops),
			 LOC_ENOFIT);
	assert_int_equal(loc_drop_one(line, all, l_cpus, 0, 0, &hops),
			 LOC_ENOFIT);
	assert_int_equal(loc_drop_one(NULL, all, l_cpus, 3, 4, &hops),
			 LOC_EINVAL);
	assert_int_equal(loc_drop_one(line, all, NULL, 3, 4, &hops),
			 LOC_EINVAL);
	assert_int_equal(loc_drop_one(line, all, l_cpus, 3, 4, NULL),
			 LOC_EINVAL);
	loc_grid_destroy(line);
	loc_grid_destroy(mesh);
}

/* Against every node dropped in turn, on random sets of random grids:
 * the node returned can go, and no node that can go leaves fewer hops. */
static void test_drop_one_random(void **state)
{
	uint64_t seed = 20261208;
	int checked = 0, none = 0;

	(void)state;
	for (int t = 0; t < 600; t++) {
		int nd = 1 + tu_below(&seed, 3), np = 1, n, rc;
		int dims[3], nodes[24], rest[24], pick = 0;
		bool torus = tu_below(&seed, 2);
		uint32_t cpus[24];
		uint64_t need, sum = 0;
		int64_t hops = -1, best = -1;
		loc_grid_t *g;

		for (int d = 0; d < nd; d++) {
			dims[d] = 1 + tu_below(&seed, nd == 1 ? 24 : 5);
			np *= dims[d];
		}
		g = tu_grid(nd, dims, torus, 1);
		n = 1 + tu_below(&seed, np < 24 ? np : 24);
		/* n distinct nodes: a random start, then a random stride. */
		for (int i = 0, at = tu_below(&seed, np); i < n; i++) {
			for (bool dup = true; dup;) {
				dup = false;
				at = (at + 1 + tu_below(&seed, 3)) % np;
				for (int j = 0; j < i; j++)
					dup = dup || nodes[j] == at;
			}
			nodes[i] = at;
			cpus[i] = tu_below(&seed, 2) ? 8 : 4;
			sum += cpus[i];
		}
		need = (uint64_t)tu_below(&seed, (int)sum + 4);
		rc = loc_drop_one(g, nodes, cpus, n, need, &hops);
		for (int i = 0; i < n; i++) {
			int64_t h;
			int m = 0;

			if (sum - cpus[i] < need || n < 2)
				continue;
			for (int j = 0; j < n; j++)
				if (j != i)
					rest[m++] = nodes[j];
			h = loc_metrics_total_pair_hops(g, rest, m);
			if (best < 0 || h < best) {
				best = h;
				pick = i;
			}
		}
		if (best < 0) {
			assert_int_equal(rc, LOC_ENOFIT);
			none++;
		} else {
			assert_true(rc >= 0 && rc < n);
			assert_true(sum - cpus[rc] >= need);
			assert_true(hops == best);
			(void)pick;
			checked++;
		}
		loc_grid_destroy(g);
	}
	assert_true(checked > 300 && none > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_even_share_by_hand),
		cmocka_unit_test(test_even_share_random),
		cmocka_unit_test(test_even_share_compact),
		cmocka_unit_test(test_drop_one_by_hand),
		cmocka_unit_test(test_drop_one_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
