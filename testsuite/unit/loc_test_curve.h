/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_curve.h - helpers shared by the unit tests of the curve-order
 * strategies (test_loc_strategy_curve.c, test_loc_strategy_fit.c,
 * test_loc_strategy_span.c, test_loc_strategy_paging.c): configurations
 * and grids under test, allocator calls, measures on curve ranks, and
 * the check that an answer is a given window of free ranks.
 * Header-only (static functions), like loc_test_util.h; include after it.
 */
#ifndef LOC_TEST_CURVE_H
#define LOC_TEST_CURVE_H

#include "loc_strategy.h"
#include "loc_walltime.h"
#include "loc_test_util.h"

/* A strategy configuration under test. */
typedef struct cfg {
	loc_strategy_kind_t strategy;
	loc_paging_index_t paging_index;
	int paging_size;
	bool contiguous;
	loc_walltime_mode_t walltime; /* SL keeps many offers: more paths */
	double tolerance;
} cfg_t;

typedef struct shape {
	int ndims;
	int dims[3];
} shape_t;

static const shape_t tu_shapes[] = {
	{ 1, { 13 } }, { 1, { 16 } },      { 2, { 5, 7 } },
	{ 2, { 4, 4 } }, { 3, { 3, 4, 5 } }, { 3, { 2, 3, 3 } },
};

#define NSHAPES ((int)(sizeof(tu_shapes) / sizeof(tu_shapes[0])))

static inline loc_alloc_t *tu_alloc_full(const loc_grid_t *g, const cfg_t *c,
					 loc_curve_kind_t curve, uint64_t seed)
{
	loc_policy_t p;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&p);
	p.strategy = c->strategy;
	p.curve = curve;
	p.paging_index = c->paging_index;
	p.paging_size = c->paging_size;
	p.seed = seed;
	p.walltime = c->walltime;
	p.sl_tolerance = c->tolerance;
	a = loc_alloc_create(g, &p, &err);
	assert_non_null(a);
	return a;
}

static inline loc_alloc_t *tu_alloc(const loc_grid_t *g,
				    loc_strategy_kind_t s,
				    loc_curve_kind_t curve)
{
	cfg_t c = { .strategy = s };

	return tu_alloc_full(g, &c, curve, 1);
}

static inline int tu_select_req(loc_alloc_t *a, const uint8_t *cand, int k,
				bool contiguous, const int *req, int nreq,
				int *out)
{
	loc_view_t view = { .candidate = cand };
	loc_request_t r = {
		.nodes = k,
		.contiguous = contiguous,
		.required = req,
		.nrequired = nreq,
	};
	loc_error_t err;

	return loc_alloc_select(a, &r, &view, out, &err);
}

static inline int tu_select(loc_alloc_t *a, const uint8_t *cand, int k,
			    int *out)
{
	return tu_select_req(a, cand, k, false, NULL, 0, out);
}

static inline bool tu_all_torus(const loc_grid_t *g)
{
	const loc_shape_t *s = loc_grid_shape(g);

	for (int d = 0; d < s->ndims; d++)
		if (!s->torus[d])
			return false;
	return true;
}

/* Rank distance, on a ring of n ranks when ring. */
static inline int64_t tu_rdist(int a, int b, int n, bool ring)
{
	int d = a > b ? a - b : b - a;

	return ring && n - d < d ? n - d : d;
}

static inline int64_t tu_rank_cost(const int *ranks, int k, int n, bool ring)
{
	int64_t t = 0;

	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			t += tu_rdist(ranks[i], ranks[j], n, ring);
	return t;
}

static inline int tu_cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* The ranks of out[0..k-1], ascending. */
static inline void tu_ranks_of(const loc_curve_t *cv, const int *out, int k,
			       int *rk)
{
	for (int i = 0; i < k; i++)
		rk[i] = loc_curve_rank(cv, out[i]);
	qsort(rk, k, sizeof(int), tu_cmp_int);
}

/* Connected on the grid (one-hop adjacency, shared points joined). */
static inline bool tu_connected(const loc_grid_t *g, const int *nodes, int k)
{
	int seen[256] = { 0 }, queue[256], head = 0, tail = 0;

	assert_true(k <= 256);
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail) {
		int i = queue[head++];

		for (int j = 0; j < k; j++) {
			if (seen[j] ||
			    loc_grid_node_hops(g, nodes[i], nodes[j]) > 1)
				continue;
			seen[j] = 1;
			queue[tail++] = j;
		}
	}
	return tail == k;
}

/* The free ranks, ascending; returns their count. */
static inline int tu_free_ranks(const loc_curve_t *cv, const uint8_t *cand,
				int n, int *fr)
{
	int m = 0;

	for (int r = 0; r < n; r++)
		if (cand[loc_curve_node(cv, r)])
			fr[m++] = r;
	return m;
}

/* One grid of a shape list: shape i / 4, torus (i / 2) % 2, npp 1 + i % 2. */
static inline loc_grid_t *tu_grid_at(const shape_t *shapes, int i)
{
	const shape_t *sh = &shapes[i / 4];

	return tu_grid(sh->ndims, sh->dims, (i / 2) % 2, 1 + i % 2);
}

/* The ascending ranks of window w (k consecutive free ranks, wrapping). */
static inline void tu_window(const int *fr, int m, int k, int w, int *rk)
{
	for (int j = 0; j < k; j++)
		rk[j] = fr[(w + j) % m];
	qsort(rk, k, sizeof(int), tu_cmp_int);
}

/* Longest run of free ranks (around the ring when ring). */
static inline int tu_longest_run(const loc_curve_t *cv, const uint8_t *cand,
				 int n, bool ring)
{
	int longest = 0, run = 0;

	for (int r = 0; r < (ring ? 2 * n : n); r++) {
		run = cand[loc_curve_node(cv, r % n)] ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest < n ? longest : n;
}

/* Buffers of n entries for the window tests on large machines. */
typedef struct tu_win {
	uint8_t *cand;
	int *fr, *out, *rk, *want;
} tu_win_t;

static inline void tu_win_init(tu_win_t *b, int n)
{
	b->cand = malloc(n);
	b->fr = malloc(sizeof(int) * n);
	b->out = malloc(sizeof(int) * n);
	b->rk = malloc(sizeof(int) * n);
	b->want = malloc(sizeof(int) * n);
	assert_true(b->cand && b->fr && b->out && b->rk && b->want);
}

static inline void tu_win_free(tu_win_t *b)
{
	free(b->cand);
	free(b->fr);
	free(b->out);
	free(b->rk);
	free(b->want);
}

/* Selects k nodes on b->cand (n nodes) through a and checks the answer
 * is window w of the m free ranks in b->fr. */
static inline void tu_expect_window(loc_alloc_t *a, tu_win_t *b, int n,
				    int m, int k, int w)
{
	assert_int_equal(tu_select(a, b->cand, k, b->out), 0);
	tu_assert_placement(b->cand, n, b->out, k);
	tu_ranks_of(loc_alloc_curve(a), b->out, k, b->rk);
	tu_window(b->fr, m, k, w, b->want);
	assert_memory_equal(b->rk, b->want, sizeof(int) * k);
}

#endif /* LOC_TEST_CURVE_H */
