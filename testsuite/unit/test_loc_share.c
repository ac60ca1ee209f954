/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_share.c - SharedNodes=first (loc_share.h): idle members of a
 * set swapped for in-use candidates at no cost in hops, by hand (the
 * swap taken, the one refused for hops, capacity or weight) and on random
 * states of meshes and tori against a brute-force reading of the rule
 * that searches every in-use candidate, not the pool.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "loc_metrics.h"
#include "loc_share.h"
#include "loc_test_util.h"

#define N_MAX 128

static int _cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int _run(const loc_grid_t *g, const loc_share_job_t *job, int *set,
		int k)
{
	loc_share_t s;
	loc_error_t err;
	int swaps;

	assert_int_equal(loc_share_init(&s, loc_grid_nnodes(g), &err), 0);
	swaps = loc_share_first(&s, g, job, set, k);
	/* The membership marks are left clear for the next job. */
	for (int i = 0; i < loc_grid_nnodes(g); i++)
		assert_int_equal(s.in[i], 0);
	loc_share_fini(&s);
	loc_share_fini(&s); /* a zeroed s is fine */
	qsort(set, k, sizeof(*set), _cmp_int);
	return swaps;
}

/* A 4x4 mesh, row-major: nodes 0 1 / 4 5 are a square. */
static void test_by_hand(void **state)
{
	int dims[2] = { 4, 4 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	uint8_t cand[16], in_use[16] = { 0 };
	uint32_t cap[16];
	uint64_t w[16];
	loc_share_job_t job = { .candidate = cand, .in_use = in_use };
	int set[2];

	(void)state;
	memset(cand, 1, sizeof(cand));
	for (int i = 0; i < 16; i++) {
		cap[i] = 4;
		w[i] = 1;
	}
	/* {0, 1} with 4 in use: 1 -> 4 keeps one hop; 0 -> 4 would not be
	 * a swap of an idle member for a better one (4 is next to 0). */
	in_use[4] = 1;
	set[0] = 0, set[1] = 1;
	assert_int_equal(_run(g, &job, set, 2), 1);
	assert_true(set[0] == 0 && set[1] == 4);

	/* 10 in use is two hops from {0, 1}: no swap keeps the hops. */
	in_use[4] = 0, in_use[10] = 1;
	set[0] = 0, set[1] = 1;
	assert_int_equal(_run(g, &job, set, 2), 0);
	assert_true(set[0] == 0 && set[1] == 1);

	/* Capacity: 4 gives 1 CPU, the job needs 6 of the set's 8. */
	in_use[10] = 0, in_use[4] = 1;
	cap[4] = 1;
	job.capacity = cap;
	job.need = 6;
	set[0] = 0, set[1] = 1;
	assert_int_equal(_run(g, &job, set, 2), 0);
	job.need = 5;
	assert_int_equal(_run(g, &job, set, 2), 1);
	assert_true(set[0] == 0 && set[1] == 4);

	/* Weight: 4 is heavier than both members. */
	job.weight = w;
	w[4] = 2;
	set[0] = 0, set[1] = 1;
	assert_int_equal(_run(g, &job, set, 2), 0);
	w[4] = 1;

	/* In-use members stay; a non-candidate never comes in. */
	in_use[1] = 1;
	set[0] = 0, set[1] = 1;
	assert_int_equal(_run(g, &job, set, 2), 0); /* 0 -> 4 adds a hop */
	assert_true(set[0] == 0 && set[1] == 1);
	in_use[1] = 0;
	cand[4] = 0;
	set[0] = 0, set[1] = 1;
	assert_int_equal(_run(g, &job, set, 2), 0);
	loc_grid_destroy((loc_grid_t *)g);
}

/* The rule read directly: while some pair (idle member v, in-use
 * candidate p outside) adds no hops and keeps capacity and weight, take
 * the one of least (added hops, p, v). */
static void _brute(const loc_grid_t *g, const loc_share_job_t *job,
		   int *set, int k)
{
	int n = loc_grid_nnodes(g);

	for (;;) {
		int64_t before = loc_metrics_total_pair_hops(g, set, k), cap = 0;
		int64_t best = 1;
		int bj = -1, bp = -1;
		uint8_t in[N_MAX] = { 0 };

		for (int j = 0; j < k; j++) {
			in[set[j]] = 1;
			cap += job->capacity ? job->capacity[set[j]] : 0;
		}
		for (int p = 0; p < n; p++) {
			if (!job->candidate[p] || !job->in_use[p] || in[p])
				continue;
			for (int j = 0; j < k; j++) {
				int v = set[j];
				int64_t d;

				if (job->in_use[v] ||
				    (job->weight &&
				     job->weight[p] > job->weight[v]) ||
				    (job->capacity &&
				     cap - job->capacity[v] + job->capacity[p] <
					     (int64_t)job->need))
					continue;
				set[j] = p;
				d = loc_metrics_total_pair_hops(g, set, k) -
				    before;
				set[j] = v;
				if (d <= 0 &&
				    (bj < 0 || d < best ||
				     (d == best && p == bp && v < set[bj]))) {
					best = d;
					bj = j;
					bp = p;
				}
			}
		}
		if (bj < 0)
			return;
		set[bj] = bp;
	}
}

static void _random_case(uint64_t *rng, const loc_grid_t *g)
{
	int n = loc_grid_nnodes(g), k, ncand = 0;
	uint8_t cand[N_MAX], in_use[N_MAX];
	uint32_t cap[N_MAX];
	uint64_t w[N_MAX];
	int pool[N_MAX], set[N_MAX], want[N_MAX];
	loc_share_job_t job = { .candidate = cand, .in_use = in_use };
	int64_t hops0, total = 0;

	for (int i = 0; i < n; i++) {
		cand[i] = tu_below(rng, 10) < 8;
		in_use[i] = cand[i] && tu_below(rng, 3) == 0;
		cap[i] = 1 + tu_below(rng, 4);
		w[i] = 1 + tu_below(rng, 2);
		if (cand[i])
			pool[ncand++] = i;
	}
	if (ncand < 2)
		return;
	k = 2 + tu_below(rng, ncand - 1 < 7 ? ncand - 1 : 7);
	/* A random k of the candidates (partial shuffle). */
	for (int j = 0; j < k; j++) {
		int r = j + tu_below(rng, ncand - j), x = pool[r];

		pool[r] = pool[j];
		pool[j] = x;
		set[j] = x;
		total += cap[x];
	}
	if (tu_below(rng, 2)) {
		job.capacity = cap;
		job.need = (uint64_t)(total - tu_below(rng, 4));
	}
	if (tu_below(rng, 2))
		job.weight = w;
	memcpy(want, set, k * sizeof(*set));
	hops0 = loc_metrics_total_pair_hops(g, set, k);
	_brute(g, &job, want, k);
	qsort(want, k, sizeof(*want), _cmp_int);
	(void)_run(g, &job, set, k);
	assert_memory_equal(set, want, k * sizeof(*set));
	assert_true(loc_metrics_total_pair_hops(g, set, k) <= hops0);
	for (int j = 0; j < k; j++) {
		assert_true(cand[set[j]]);
		if (j)
			assert_true(set[j] != set[j - 1]);
	}
}

static void test_random_against_brute_force(void **state)
{
	static const int shapes[][5] = {
		/* ndims, three sizes (the unused 0), torus */
		{ 2, 4, 4, 0, 0 }, { 2, 4, 4, 0, 1 }, { 2, 6, 5, 0, 0 },
		{ 2, 8, 8, 0, 1 }, { 3, 3, 3, 3, 1 }, { 3, 4, 4, 4, 1 },
		{ 3, 4, 3, 2, 0 },
	};
	uint64_t rng = 20261206;

	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int ndims = shapes[s][0], dims[3];
		bool torus;
		loc_grid_t *g;

		for (int d = 0; d < ndims; d++)
			dims[d] = shapes[s][1 + d];
		torus = shapes[s][4];
		g = tu_grid(ndims, dims, torus, 1);
		for (int c = 0; c < 400; c++)
			_random_case(&rng, g);
		loc_grid_destroy(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_random_against_brute_force),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
