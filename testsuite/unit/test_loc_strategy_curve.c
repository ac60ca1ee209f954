/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_curve.c - the curve-order strategies (freelist,
 * firstfit, bestfit, sumsquares, span), paging, random and contiguous
 * mode, through the public allocator API: invariants on random fragmented
 * states, brute force on small instances, hand-built examples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

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

static const cfg_t _cfgs[] = {
	{ .strategy = LOC_STRATEGY_FREELIST },
	{ .strategy = LOC_STRATEGY_FIRSTFIT },
	{ .strategy = LOC_STRATEGY_BESTFIT },
	{ .strategy = LOC_STRATEGY_SUMSQUARES },
	{ .strategy = LOC_STRATEGY_SPAN },
	{ .strategy = LOC_STRATEGY_PAGING, .paging_size = 1,
	  .paging_index = LOC_PAGING_ROWMAJOR },
	{ .strategy = LOC_STRATEGY_PAGING, .paging_index = LOC_PAGING_SNAKE },
	{ .strategy = LOC_STRATEGY_PAGING, .paging_size = 2,
	  .paging_index = LOC_PAGING_SHUFFLED },
	{ .strategy = LOC_STRATEGY_RANDOM },
	{ .strategy = LOC_STRATEGY_BESTFIT, .contiguous = true },
	{ .strategy = LOC_STRATEGY_SPAN, .contiguous = true },
	{ .strategy = LOC_STRATEGY_FIRSTFIT, .walltime = LOC_WALLTIME_SL },
	{ .strategy = LOC_STRATEGY_BESTFIT, .walltime = LOC_WALLTIME_SL,
	  .tolerance = 0.5 },
	{ .strategy = LOC_STRATEGY_SUMSQUARES, .walltime = LOC_WALLTIME_COMBO,
	  .tolerance = 0.2 },
	{ .strategy = LOC_STRATEGY_SPAN, .walltime = LOC_WALLTIME_SL,
	  .tolerance = 0.3 },
	{ .strategy = LOC_STRATEGY_FREELIST, .contiguous = true,
	  .walltime = LOC_WALLTIME_SL, .tolerance = 0.5 },
};

#define NCFGS ((int)(sizeof(_cfgs) / sizeof(_cfgs[0])))

typedef struct shape {
	int ndims;
	int dims[3];
} shape_t;

static const shape_t _shapes[] = {
	{ 1, { 13 } }, { 1, { 16 } },      { 2, { 5, 7 } },
	{ 2, { 4, 4 } }, { 3, { 3, 4, 5 } }, { 3, { 2, 3, 3 } },
};

#define NSHAPES ((int)(sizeof(_shapes) / sizeof(_shapes[0])))

static loc_alloc_t *_alloc_full(const loc_grid_t *g, const cfg_t *c,
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

static loc_alloc_t *_alloc(const loc_grid_t *g, loc_strategy_kind_t s,
			   loc_curve_kind_t curve)
{
	cfg_t c = { .strategy = s };

	return _alloc_full(g, &c, curve, 1);
}

static int _select_req(loc_alloc_t *a, const uint8_t *cand, int k,
		       bool contiguous, const int *req, int nreq, int *out)
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

static int _select(loc_alloc_t *a, const uint8_t *cand, int k, int *out)
{
	return _select_req(a, cand, k, false, NULL, 0, out);
}

static bool _all_torus(const loc_grid_t *g)
{
	const loc_shape_t *s = loc_grid_shape(g);

	for (int d = 0; d < s->ndims; d++)
		if (!s->torus[d])
			return false;
	return true;
}

/* Rank distance, on a ring of n ranks when ring. */
static int64_t _rdist(int a, int b, int n, bool ring)
{
	int d = a > b ? a - b : b - a;

	return ring && n - d < d ? n - d : d;
}

static int64_t _rank_cost(const int *ranks, int k, int n, bool ring)
{
	int64_t t = 0;

	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			t += _rdist(ranks[i], ranks[j], n, ring);
	return t;
}

static int _cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* The ranks of out[0..k-1], ascending. */
static void _ranks_of(const loc_curve_t *cv, const int *out, int k, int *rk)
{
	for (int i = 0; i < k; i++)
		rk[i] = loc_curve_rank(cv, out[i]);
	qsort(rk, k, sizeof(int), _cmp_int);
}

/* Span of ascending ranks: linear, or n minus the largest ring gap. */
static int _span(const int *rk, int k, int n, bool ring)
{
	int gap = 0;

	if (!ring)
		return rk[k - 1] - rk[0] + 1;
	for (int i = 0; i < k; i++) {
		int nx = rk[(i + 1) % k];
		int g = (nx - rk[i] - 1 + n) % n;

		if (k == 1)
			g = n - 1;
		if (g > gap)
			gap = g;
	}
	return n - gap;
}

/* Connected on the grid (one-hop adjacency, shared points joined). */
static bool _connected(const loc_grid_t *g, const int *nodes, int k)
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
static int _free_ranks(const loc_curve_t *cv, const uint8_t *cand, int n,
		       int *fr)
{
	int m = 0;

	for (int r = 0; r < n; r++)
		if (cand[loc_curve_node(cv, r)])
			fr[m++] = r;
	return m;
}

/* One grid of a shape list: shape i / 4, torus (i / 2) % 2, npp 1 + i % 2. */
static loc_grid_t *_grid_at(const shape_t *shapes, int i)
{
	const shape_t *sh = &shapes[i / 4];

	return tu_grid(sh->ndims, sh->dims, (i / 2) % 2, 1 + i % 2);
}

/* Advances idx[0..k-1] to the next k-subset of 0..m-1. Returns false
 * after the last. */
static bool _next_subset(int *idx, int k, int m)
{
	int i;

	for (i = k - 1; i >= 0 && idx[i] == m - k + i; i--)
		;
	if (i < 0)
		return false;
	idx[i]++;
	for (int j = i + 1; j < k; j++)
		idx[j] = idx[j - 1] + 1;
	return true;
}

/* Brute force over all k-subsets of the free ranks fr[0..m-1]: the least
 * total pairwise rank distance (span == false) or span (span == true). */
static int64_t _brute_min(const int *fr, int m, int k, int n, bool ring,
			  bool span)
{
	int idx[32], pick[32];
	int64_t best = INT64_MAX;

	for (int i = 0; i < k; i++)
		idx[i] = i;
	do {
		int64_t c;

		for (int i = 0; i < k; i++)
			pick[i] = fr[idx[i]];
		c = span ? _span(pick, k, n, ring) :
			   _rank_cost(pick, k, n, ring);
		if (c < best)
			best = c;
	} while (_next_subset(idx, k, m));
	return best;
}

/* The ascending ranks of window w (k consecutive free ranks, wrapping). */
static void _window(const int *fr, int m, int k, int w, int *rk)
{
	for (int j = 0; j < k; j++)
		rk[j] = fr[(w + j) % m];
	qsort(rk, k, sizeof(int), _cmp_int);
}

/* The first window (by starting rank) whose total (span == false) or arc
 * length (span == true) is target; -1 if none. */
static int _first_window(const int *fr, int m, int k, int n, bool ring,
			 bool span, int64_t target)
{
	for (int w = 0; w < (ring ? m : m - k + 1); w++) {
		int rk[32], last = fr[(w + k - 1) % m];
		int64_t c;

		_window(fr, m, k, w, rk);
		c = span ? (last - fr[w] + n) % n + 1 :
			   _rank_cost(rk, k, n, ring);
		if (c == target)
			return w;
	}
	return -1;
}

/* Longest run of free ranks (around the ring when ring). */
static int _longest_run(const loc_curve_t *cv, const uint8_t *cand, int n,
			bool ring)
{
	int longest = 0, run = 0;

	for (int r = 0; r < (ring ? 2 * n : n); r++) {
		run = cand[loc_curve_node(cv, r % n)] ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest < n ? longest : n;
}

/* One call of configuration c: ENOFIT beyond the free count, otherwise
 * k distinct candidates (connected for contiguous, which may also say
 * ENOFIT), and the same answer when asked again. */
static void _check_call(loc_alloc_t *a, const cfg_t *c, const loc_grid_t *g,
			const uint8_t *cand, int k)
{
	int n = loc_grid_nnodes(g), out[256], again[256], rc;

	rc = _select_req(a, cand, k, c->contiguous, NULL, 0, out);
	if (k > tu_count(cand, n) || (c->contiguous && rc == LOC_ENOFIT)) {
		assert_int_equal(rc, LOC_ENOFIT);
		return;
	}
	assert_int_equal(rc, 0);
	tu_assert_placement(cand, n, out, k);
	if (c->contiguous)
		assert_true(_connected(g, out, k));
	assert_int_equal(_select_req(a, cand, k, c->contiguous, NULL, 0, again),
			 0);
	assert_memory_equal(out, again, sizeof(int) * k);
}

/* ---------------------------------------------------------------- */

/* Every configuration, on many fragmented states of 1-D, 2-D and 3-D
 * meshes and tori (odd sizes, one or two nodes per point), with every
 * curve: see _check_call(). */
static void test_random_states_keep_invariants(void **state)
{
	uint64_t s = 12345;
	int calls = 0;

	(void)state;
	for (int gi = 0; gi < 4 * NSHAPES; gi++) {
		loc_grid_t *g = _grid_at(_shapes, gi);
		int n = loc_grid_nnodes(g);

		for (int c = 0; c < NCFGS; c++) {
			loc_alloc_t *a = _alloc_full(g, &_cfgs[c],
						     (gi + c) % LOC_CURVE_COUNT,
						     c + 7);

			for (int st = 0; st < 24; st++) {
				uint8_t cand[256];
				int nf;

				tu_fragmented(cand, n, 0.2 + 0.03 * st,
					      s + st * 31 + c);
				nf = tu_count(cand, n);
				_check_call(a, &_cfgs[c], g, cand,
					    1 + tu_below(&s, nf ? nf : 1));
				_check_call(a, &_cfgs[c], g, cand,
					    1 + tu_below(&s, nf / 3 + 1));
				_check_call(a, &_cfgs[c], g, cand, nf ? nf : 1);
				_check_call(a, &_cfgs[c], g, cand, nf + 1);
				calls += 4;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(calls > 8000);
}

/* Machines of one to six nodes, every candidate map, every k. */
static void test_tiny_machines(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 1 } }, { 1, { 2 } }, { 1, { 3 } },
		{ 2, { 1, 1 } }, { 2, { 2, 2 } }, { 3, { 1, 2, 1 } },
	};

	(void)state;
	for (int gi = 0; gi < 4 * 6; gi++) {
		loc_grid_t *g = _grid_at(shapes, gi);
		int n = loc_grid_nnodes(g);

		for (int c = 0; c < NCFGS && n <= 6; c++) {
			loc_alloc_t *a = _alloc_full(g, &_cfgs[c], c % 3, 3);

			for (int mask = 0; mask < (1 << n); mask++) {
				uint8_t cand[6];

				for (int v = 0; v < n; v++)
					cand[v] = (mask >> v) & 1;
				for (int k = 1; k <= n + 1; k++)
					_check_call(a, &_cfgs[c], g, cand, k);
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
}

/* Span: the least total pairwise rank distance over all k-subsets, with
 * ring distances when every dimension is a torus, and the lowest-starting
 * optimal window. Half the states ask for more than half the free nodes,
 * where ring windows pass half the ring. */
static void test_span_matches_brute_force(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 9 } }, { 1, { 12 } }, { 2, { 3, 4 } }, { 2, { 2, 7 } },
	};
	uint64_t s = 777;
	int checked = 0;

	(void)state;
	for (int gi = 0; gi < 4 * 4; gi++) {
		loc_grid_t *g = _grid_at(shapes, gi);
		loc_alloc_t *a = _alloc(g, LOC_STRATEGY_SPAN,
					gi % 3 ? LOC_CURVE_SNAKE :
						 LOC_CURVE_HILBERT);
		const loc_curve_t *cv = loc_alloc_curve(a);
		int n = loc_grid_nnodes(g);
		bool ring = _all_torus(g);

		for (int st = 0; st < 150; st++) {
			uint8_t cand[32];
			int fr[32], out[32], rk[32], want[32], m, k, w;
			int64_t best;

			tu_fragmented(cand, n, 0.1 + 0.005 * st, s + st);
			m = _free_ranks(cv, cand, n, fr);
			if (m < 2 || m > 14)
				continue;
			k = st % 2 ? m / 2 + 1 + tu_below(&s, (m + 1) / 2) :
				     1 + tu_below(&s, m);
			k = k < m ? k : m;
			assert_int_equal(_select(a, cand, k, out), 0);
			tu_assert_placement(cand, n, out, k);
			_ranks_of(cv, out, k, rk);
			best = _brute_min(fr, m, k, n, ring, false);
			assert_int_equal(_rank_cost(rk, k, n, ring), best);
			checked++;
			if (k == m)
				continue;
			w = _first_window(fr, m, k, n, ring, false, best);
			assert_true(w >= 0);
			_window(fr, m, k, w, want);
			assert_memory_equal(want, rk, sizeof(int) * k);
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(checked > 600);
}

/* A ring where the paper's doubled-line recurrence goes wrong: free ranks
 * {0,1,3,6,7} of 10, k = 4. Measured the long way round, {6,7,0,1} looks
 * best (18); with ring distances {7,0,1,3} costs 17 (hand-computed:
 * 3+4+4+1+3+2) and every other window 18 or 19. */
static void test_span_ring_uses_ring_distances(void **state)
{
	int dims[1] = { 10 }, out[4];
	uint8_t cand[10] = { 1, 1, 0, 1, 0, 0, 1, 1, 0, 0 };
	loc_grid_t *g = tu_grid(1, dims, true, 1);
	loc_alloc_t *a = _alloc(g, LOC_STRATEGY_SPAN, LOC_CURVE_ROWMAJOR);
	const int want[4] = { 0, 1, 3, 7 };

	(void)state;
	for (int v = 0; v < 10; v++)
		assert_int_equal(loc_curve_rank(loc_alloc_curve(a), v), v);
	assert_int_equal(_select(a, cand, 4, out), 0);
	assert_memory_equal(out, want, sizeof(want));
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* 1-D line with rowmajor ranks = node numbers; free runs as listed. */
static void _line(uint8_t *cand, int n, const int *runs, int nruns)
{
	int r = 0;

	memset(cand, 0, n);
	for (int i = 0; i < nruns; i++) {
		for (int j = 0; j < runs[i]; j++)
			cand[r++] = 1;
		r++; /* one busy node after each run */
	}
}

static void _expect_run(loc_alloc_t *a, const uint8_t *cand, int k, int first)
{
	int out[64];

	assert_int_equal(_select(a, cand, k, out), 0);
	for (int i = 0; i < k; i++)
		assert_int_equal(out[i], first + i);
}

/*
 * Hand-built intervals, k = 4 (runs separated by one busy node):
 *  A: sizes 3,5,4 at ranks 0,4,10. firstfit: the 5 (4..7). bestfit: the
 *     4 (10..13). sumsquares: into the 5 leaves {3,1,4} -> 1+1+1 = 3,
 *     into the 4 leaves {3,5} -> 2: the 4.
 *  C: sizes 5,1,1,7,6 at ranks 0,6,8,10,18. N = {1:2,5:1,6:1,7:1}.
 *     into 5 -> {1:3,6:1,7:1} = 9+1+1 = 11; into 7 -> {1:2,3:1,5:1,6:1}
 *     = 4+1+1+1 = 7; into 6 -> {1:2,2:1,5:1,7:1} = 7. Tie: lowest rank,
 *     the 7 (10..13). firstfit and bestfit: the 5 (0..3).
 *  B: sizes 6,1,1,5 at ranks 0,7,9,11. bestfit: the 5 (11..14);
 *     sumsquares: into 6 -> {1:2,2:1,5:1} = 6, into 5 -> {1:3,6:1} = 10:
 *     the 6 (0..3); firstfit the 6.
 */
static void test_fit_hand_examples(void **state)
{
	int dims[1] = { 40 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_alloc_t *ff = _alloc(g, LOC_STRATEGY_FIRSTFIT, LOC_CURVE_ROWMAJOR);
	loc_alloc_t *bf = _alloc(g, LOC_STRATEGY_BESTFIT, LOC_CURVE_ROWMAJOR);
	loc_alloc_t *sq = _alloc(g, LOC_STRATEGY_SUMSQUARES,
				 LOC_CURVE_ROWMAJOR);
	const int a_runs[] = { 3, 5, 4 }, b_runs[] = { 6, 1, 1, 5 };
	const int c_runs[] = { 5, 1, 1, 7, 6 };
	uint8_t cand[40];

	(void)state;
	_line(cand, 40, a_runs, 3);
	_expect_run(ff, cand, 4, 4);
	_expect_run(bf, cand, 4, 10);
	_expect_run(sq, cand, 4, 10);
	_line(cand, 40, c_runs, 5);
	_expect_run(ff, cand, 4, 0);
	_expect_run(bf, cand, 4, 0);
	_expect_run(sq, cand, 4, 10);
	_line(cand, 40, b_runs, 4);
	_expect_run(ff, cand, 4, 0);
	_expect_run(bf, cand, 4, 11);
	_expect_run(sq, cand, 4, 0);
	/* An exact fit anywhere beats the rest for bestfit. */
	_expect_run(bf, cand, 5, 11);
	_expect_run(ff, cand, 5, 0);
	loc_alloc_destroy(ff);
	loc_alloc_destroy(bf);
	loc_alloc_destroy(sq);
	loc_grid_destroy(g);
}

/*
 * Ring vs line, 12 nodes, free ranks {0,1,4,5,6,10,11}, k = 4.
 * Torus: the runs 10,11 and 0,1 join into one interval of 4, which every
 * fit strategy takes. Mesh: no run holds 4; windows of four consecutive
 * free nodes span 6 ({0,1,4,5}), 6, 7, 7: the first, {0,1,4,5}.
 */
static void test_fit_ring_joins_end_runs(void **state)
{
	int dims[1] = { 12 }, out[4];
	const uint8_t cand[12] = { 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1 };
	const int ring_want[4] = { 0, 1, 10, 11 };
	const int line_want[4] = { 0, 1, 4, 5 };

	(void)state;
	for (int t = 0; t < 2; t++) {
		loc_grid_t *g = tu_grid(1, dims, t, 1);

		for (int s = LOC_STRATEGY_FIRSTFIT;
		     s <= LOC_STRATEGY_SUMSQUARES; s++) {
			loc_alloc_t *a = _alloc(g, s, LOC_CURVE_ROWMAJOR);

			assert_int_equal(_select(a, cand, 4, out), 0);
			assert_memory_equal(out, t ? ring_want : line_want,
					    sizeof(ring_want));
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
}

/* No interval holds k: the k consecutive free nodes of least (ring) span,
 * checked against brute force over all k-subsets, and the lowest-starting
 * such window. */
static void test_fit_min_span_fallback(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 14 } }, { 2, { 3, 5 } },
		{ 2, { 4, 4 } }, { 3, { 2, 2, 3 } },
	};
	uint64_t s = 4242;
	int checked = 0;

	(void)state;
	/* npp 1 only (even gi): 14 to 16 nodes keep brute force small. */
	for (int gi = 0; gi < 4 * 4; gi += 2) {
		loc_grid_t *g = _grid_at(shapes, gi);
		int n = loc_grid_nnodes(g);
		bool ring = _all_torus(g);

		for (int kind = LOC_STRATEGY_FIRSTFIT;
		     kind <= LOC_STRATEGY_SUMSQUARES; kind++) {
			loc_alloc_t *a = _alloc(g, kind, LOC_CURVE_SNAKE);
			const loc_curve_t *cv = loc_alloc_curve(a);

			for (int st = 0; st < 120; st++) {
				uint8_t cand[32];
				int fr[32], out[32], rk[32], want[32];
				int m, k, longest, w;
				int64_t best;

				tu_fragmented(cand, n, 0.3 + 0.002 * st,
					      s + st * 7 + kind);
				m = _free_ranks(cv, cand, n, fr);
				longest = _longest_run(cv, cand, n, ring);
				if (longest >= m)
					continue;
				k = longest + 1 + tu_below(&s, m - longest);
				assert_int_equal(_select(a, cand, k, out), 0);
				tu_assert_placement(cand, n, out, k);
				_ranks_of(cv, out, k, rk);
				best = _brute_min(fr, m, k, n, ring, true);
				assert_int_equal(_span(rk, k, n, ring), best);
				w = _first_window(fr, m, k, n, ring, true,
						  best);
				assert_true(w >= 0);
				_window(fr, m, k, w, want);
				assert_memory_equal(want, rk, sizeof(int) * k);
				checked++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(checked > 300);
}

/* freelist: the first k free nodes in curve order, for every curve. */
static void test_freelist_first_k_in_curve_order(void **state)
{
	int dims[2] = { 6, 5 };
	uint64_t s = 99;

	(void)state;
	for (int cvk = 0; cvk < LOC_CURVE_COUNT; cvk++) {
		loc_grid_t *g = tu_grid(2, dims, cvk == 1, 2);
		loc_alloc_t *a = _alloc(g, LOC_STRATEGY_FREELIST, cvk);
		const loc_curve_t *cv = loc_alloc_curve(a);
		int n = loc_grid_nnodes(g);

		for (int st = 0; st < 100; st++) {
			uint8_t cand[60];
			int out[60], want[60], m = 0;
			int k;

			tu_fragmented(cand, n, 0.5, s + st);
			k = 1 + tu_below(&s, tu_count(cand, n));
			for (int r = 0; r < n && m < k; r++)
				if (cand[loc_curve_node(cv, r)])
					want[m++] = loc_curve_node(cv, r);
			qsort(want, k, sizeof(int), _cmp_int);
			assert_int_equal(_select(a, cand, k, out), 0);
			assert_memory_equal(out, want, sizeof(int) * k);
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

static void _expect_paging(const loc_grid_t *g, loc_paging_index_t idx,
			   int size, const uint8_t *cand, int k,
			   const int *want)
{
	cfg_t c = {
		.strategy = LOC_STRATEGY_PAGING,
		.paging_index = idx,
		.paging_size = size,
	};
	loc_alloc_t *a = _alloc_full(g, &c, LOC_CURVE_HILBERT, 1);
	int out[64], sorted[64];

	memcpy(sorted, want, sizeof(int) * k);
	qsort(sorted, k, sizeof(int), _cmp_int);
	assert_int_equal(_select(a, cand, k, out), 0);
	assert_memory_equal(out, sorted, sizeof(int) * k);
	loc_alloc_destroy(a);
}

/*
 * Paging by hand. 4x4 mesh, node = 4 * row + col, pages 2x2 (size 1):
 * P0 = {0,1,4,5}, P1 = {2,3,6,7}, P2 = {8,9,12,13}, P3 = {10,11,14,15}.
 * Node 0 busy, k = 6. Rowmajor: P1 whole, then the first two of P2 in
 * row-major order (8, 9). Snake (P0 P1 P3 P2): P1, then 10, 11.
 */
static void test_paging_hand_examples(void **state)
{
	int d44[2] = { 4, 4 }, d55[2] = { 5, 5 };
	loc_grid_t *g = tu_grid(2, d44, false, 1);
	loc_grid_t *g5 = tu_grid(2, d55, false, 1);
	uint8_t cand[25];
	const int rm[6] = { 2, 3, 6, 7, 8, 9 }, sn[6] = { 2, 3, 6, 7, 10, 11 };
	/* Shuffled row-major (Z order) with 1x1 pages: (0,0) (0,1) (1,0)
	 * (1,1) (0,2): nodes 0, 1, 4, 5, 2. */
	const int sh[5] = { 0, 1, 4, 5, 2 };
	/* 5x5, 2x2 pages: P(0,0) = {0,1,5,6}, P(0,1) = {2,3,7,8}: k = 6
	 * takes P(0,0) and 2, 3. The edge page P(0,2) = {4,9} is a whole
	 * page of two nodes: with P(0,0) and P(0,1) touched it comes first. */
	const int e6[6] = { 0, 1, 5, 6, 2, 3 }, edge[2] = { 4, 9 };
	/* One busy node in every page: no whole page; the free nodes of the
	 * partly used pages in page order: P0's 1, 4, 5. */
	const int part[3] = { 1, 4, 5 };

	(void)state;
	memset(cand, 1, 16);
	cand[0] = 0;
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 1, cand, 6, rm);
	_expect_paging(g, LOC_PAGING_SNAKE, 1, cand, 6, sn);
	memset(cand, 1, 16);
	_expect_paging(g, LOC_PAGING_SHUFFLED, 0, cand, 5, sh);
	memset(cand, 1, 25);
	_expect_paging(g5, LOC_PAGING_ROWMAJOR, 1, cand, 6, e6);
	cand[0] = cand[2] = 0;
	_expect_paging(g5, LOC_PAGING_ROWMAJOR, 1, cand, 2, edge);
	memset(cand, 1, 16);
	cand[0] = cand[2] = cand[8] = cand[10] = 0;
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 1, cand, 3, part);
	loc_grid_destroy(g);
	loc_grid_destroy(g5);
}

/* Paging with two nodes per point and 1x1 pages: a point with one busy
 * node is not a whole page, so the next whole point comes first. */
static void test_paging_shared_points(void **state)
{
	int dims[1] = { 4 };
	loc_grid_t *g = tu_grid(1, dims, false, 2);
	uint8_t cand[8] = { 0, 1, 1, 1, 1, 1, 1, 1 };
	const int want[3] = { 2, 3, 4 }, spill[7] = { 1, 2, 3, 4, 5, 6, 7 };

	(void)state;
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 0, cand, 3, want);
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 0, cand, 7, spill);
	loc_grid_destroy(g);
}

static void test_paging_rejects_negative_size(void **state)
{
	int dims[1] = { 4 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_policy_t p;
	loc_error_t err;

	(void)state;
	loc_policy_init(&p);
	p.strategy = LOC_STRATEGY_PAGING;
	p.paging_size = -1;
	assert_null(loc_alloc_create(g, &p, &err));
	loc_grid_destroy(g);
}

/* Random: each free node about equally often over many seeds, busy ones
 * never; the same seed and state give the same answer. */
static void test_random_is_uniform_and_seeded(void **state)
{
	int dims[2] = { 4, 4 }, count[16] = { 0 }, out[3], again[3];
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	uint8_t cand[16] = { 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1 };
	const int seeds = 3000;
	bool differ = false;
	int first[3];

	(void)state;
	for (int sd = 0; sd < seeds; sd++) {
		cfg_t c = { .strategy = LOC_STRATEGY_RANDOM };
		loc_alloc_t *a = _alloc_full(g, &c, LOC_CURVE_SNAKE, sd + 1);

		assert_int_equal(_select(a, cand, 3, out), 0);
		tu_assert_placement(cand, 16, out, 3);
		assert_int_equal(_select(a, cand, 3, again), 0);
		assert_memory_equal(out, again, sizeof(out));
		if (!sd)
			memcpy(first, out, sizeof(first));
		else if (memcmp(first, out, sizeof(first)))
			differ = true;
		for (int i = 0; i < 3; i++)
			count[out[i]]++;
		loc_alloc_destroy(a);
	}
	assert_true(differ);
	/* 10 free nodes, 3 picks: 900 expected each, sd about 25. */
	for (int v = 0; v < 16; v++) {
		if (!cand[v]) {
			assert_int_equal(count[v], 0);
			continue;
		}
		assert_in_range(count[v], 780, 1020);
	}
	loc_grid_destroy(g);
}

/*
 * Random on a machine large enough for each way of drawing (rejection
 * when at least an eighth of the nodes are free and k <= 64, the sparse
 * shuffle otherwise, the dense one past k = 64): the answer depends only
 * on the map (the allocator hashes it incrementally, so loads of other
 * maps in between must not matter), a map one node away (in the nodes
 * past the last block of eight) draws anew, and over many seeds every
 * free node is drawn about equally often.
 */
static void test_random_large_is_uniform_and_state_only(void **state)
{
	enum { N = 61 * 33, SEEDS = 400 }; /* N % 8 = 5: a tail */
	int dims[2] = { 61, 33 };
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	static uint8_t maps[3][N];
	static int count[N];
	static int out[300], again[300], fresh[300], near[300];
	/* busy fraction, k: rejection (small, large k), sparse, dense */
	const struct { double busy; int k; } cases[] = {
		{ 0.50, 3 }, { 0.50, 100 }, { 0.95, 3 }, { 0.50, 300 },
	};

	(void)state;
	for (int c = 0; c < 4; c++) {
		int k = cases[c].k, nfree, same = 0;
		long total = 0;

		tu_fragmented(maps[0], N, cases[c].busy, 11 + c);
		tu_fragmented(maps[1], N, 0.3, 99 + c);
		memcpy(maps[2], maps[0], N);
		maps[2][N - 1] ^= 1; /* differs in the tail node only */
		nfree = tu_count(maps[0], N);
		memset(count, 0, sizeof(count));
		for (int sd = 0; sd < SEEDS; sd++) {
			cfg_t cf = { .strategy = LOC_STRATEGY_RANDOM };
			loc_alloc_t *a = _alloc_full(g, &cf, LOC_CURVE_SNAKE,
						     sd + 1);
			loc_alloc_t *b = _alloc_full(g, &cf, LOC_CURVE_SNAKE,
						     sd + 1);

			assert_int_equal(_select(a, maps[0], k, out), 0);
			tu_assert_placement(maps[0], N, out, k);
			/* Other maps in between, then the first again. */
			assert_int_equal(_select(a, maps[1], k, again), 0);
			assert_int_equal(_select(a, maps[2], k, near), 0);
			same += !memcmp(out, near, sizeof(int) * k);
			assert_int_equal(_select(a, maps[0], k, again), 0);
			assert_memory_equal(out, again, sizeof(int) * k);
			/* A fresh allocator, straight to the map. */
			assert_int_equal(_select(b, maps[0], k, fresh), 0);
			assert_memory_equal(out, fresh, sizeof(int) * k);
			for (int i = 0; i < k; i++)
				count[out[i]]++;
			loc_alloc_destroy(a);
			loc_alloc_destroy(b);
		}
		assert_true(same < SEEDS / 20);
		/* Each free node: SEEDS k / nfree expected; a chi-square
		 * over the free nodes stays near nfree - 1 times 1 - k /
		 * nfree (k drawn without replacement each time), within
		 * four sd, sqrt(2 / (nfree - 1)), of that. */
		{
			double expect = (double)SEEDS * k / nfree, chi = 0;

			for (int v = 0; v < N; v++) {
				if (!maps[0][v]) {
					assert_int_equal(count[v], 0);
					continue;
				}
				chi += (count[v] - expect) * (count[v] - expect) /
				       expect;
				total += count[v];
			}
			assert_int_equal(total, (long)SEEDS * k);
			chi /= (nfree - 1) * (1 - (double)k / nfree);
			assert_true(fabs(chi - 1) < 4 * sqrt(2.0 / (nfree - 1)));
		}
	}
	loc_grid_destroy(g);
}

/* Length and start (*istart) of the free interval holding the free
 * ranks w..w+k-1 (mod n on a ring). */
static int _interval_around(const loc_curve_t *cv, const uint8_t *cand,
			    int n, bool ring, int w, int k, int *istart)
{
	int lo = w, hi = w + k - 1;

	if (tu_count(cand, n) == n) {
		*istart = 0;
		return n;
	}
	while ((ring || lo > 0) &&
	       cand[loc_curve_node(cv, ((lo - 1) % n + n) % n)])
		lo--;
	while ((ring || hi < n - 1) && cand[loc_curve_node(cv, (hi + 1) % n)])
		hi++;
	*istart = (lo % n + n) % n;
	return hi - lo + 1;
}

/* Whether ranks w..w+k-1 (mod n) are free, connected and hold the nmust
 * required nodes; fills nodes. */
static bool _window_ok(const loc_grid_t *g, const loc_curve_t *cv,
		       const uint8_t *cand, int k, const uint8_t *must,
		       int nmust, int w, int *nodes)
{
	int n = loc_grid_nnodes(g), held = 0;

	for (int j = 0; j < k; j++) {
		nodes[j] = loc_curve_node(cv, (w + j) % n);
		if (!cand[nodes[j]])
			return false;
		held += must ? must[nodes[j]] : 0;
	}
	return held == nmust && _connected(g, nodes, k);
}

/*
 * The window contiguous mode must pick: among k consecutive free ranks
 * (wrapping when all dimensions are tori) that are connected and hold the
 * required nodes, the least leftover of the enclosing free interval, then
 * the lowest interval start, then the window nearest that start. Fills
 * want (ascending) and returns true, or false when there is none.
 */
static bool _expected_window(const loc_grid_t *g, const loc_curve_t *cv,
			     const uint8_t *cand, int k, const uint8_t *must,
			     int nmust, int *want)
{
	int n = loc_grid_nnodes(g), bw = -1, nodes[256];
	int64_t best = INT64_MAX;
	bool ring = _all_torus(g);

	for (int w = 0; w < (ring ? n : n - k + 1); w++) {
		int istart, len;
		int64_t key;

		if (ring && k == n && w)
			break;
		if (!_window_ok(g, cv, cand, k, must, nmust, w, nodes))
			continue;
		len = _interval_around(cv, cand, n, ring, w, k, &istart);
		key = ((int64_t)(len - k) * n + istart) * n +
		      (w - istart + n) % n;
		if (key < best) {
			best = key;
			bw = w;
		}
	}
	if (bw < 0)
		return false;
	_window_ok(g, cv, cand, k, must, nmust, bw, want);
	qsort(want, k, sizeof(int), _cmp_int);
	return true;
}

/* Checks one contiguous call against _expected_window(); when there is
 * no window the answer is a connected set from the box fallback holding
 * the required nodes, or ENOFIT. Returns 1 when a window was expected. */
static int _check_contiguous(loc_alloc_t *a, const uint8_t *cand, int k,
			     const int *req, int nreq)
{
	const loc_grid_t *g = loc_alloc_grid(a);
	int n = loc_grid_nnodes(g), out[256], want[256], rc;
	uint8_t must[256] = { 0 };

	for (int i = 0; i < nreq; i++)
		must[req[i]] = 1;
	rc = _select_req(a, cand, k, true, req, nreq, out);
	if (_expected_window(g, loc_alloc_curve(a), cand, k, must, nreq,
			     want)) {
		assert_int_equal(rc, 0);
		assert_memory_equal(out, want, sizeof(int) * k);
		return 1;
	}
	if (rc == LOC_ENOFIT)
		return 0;
	assert_int_equal(rc, 0);
	tu_assert_placement(cand, n, out, k);
	assert_true(_connected(g, out, k));
	for (int i = 0; i < nreq; i++)
		assert_non_null(
			bsearch(&req[i], out, k, sizeof(int), _cmp_int));
	return 0;
}

/* Contiguous mode on fragmented states of every shape and curve. */
static void test_contiguous_picks_tightest_connected_window(void **state)
{
	uint64_t s = 31337;
	int found = 0;

	(void)state;
	for (int gi = 0; gi < 4 * NSHAPES; gi++) {
		loc_grid_t *g = _grid_at(_shapes, gi);
		int n = loc_grid_nnodes(g);

		for (int cvk = 0; cvk < LOC_CURVE_COUNT; cvk++) {
			loc_alloc_t *a = _alloc(g, LOC_STRATEGY_FREELIST, cvk);

			for (int st = 0; st < 20; st++) {
				uint8_t cand[256];
				int nf, k;

				tu_fragmented(cand, n, 0.15 + 0.03 * st,
					      s + st);
				nf = tu_count(cand, n);
				k = 1 + tu_below(&s, 1 + nf / 2);
				if (nf)
					found += _check_contiguous(a, cand, k,
								   NULL, 0);
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(found > 600);
}

/* A checkerboard has no two adjacent free nodes: no window and no box
 * of 2. Rowmajor ranks 2..5 of a 4x4 mesh are free but split over two
 * rows without touching: no connected window of 4, while 2 fits. */
static void test_contiguous_refuses_disconnected(void **state)
{
	int d66[2] = { 6, 6 }, d44[2] = { 4, 4 }, out[4];
	loc_grid_t *g6 = tu_grid(2, d66, false, 1);
	loc_grid_t *g4 = tu_grid(2, d44, false, 1);
	loc_alloc_t *a6 = _alloc(g6, LOC_STRATEGY_SPAN, LOC_CURVE_SNAKE);
	loc_alloc_t *a4 = _alloc(g4, LOC_STRATEGY_BESTFIT, LOC_CURVE_ROWMAJOR);
	uint8_t cand[36] = { 0 };
	const int two[2] = { 2, 3 };

	(void)state;
	for (int v = 0; v < 36; v++)
		cand[v] = (v / 6 + v % 6) % 2;
	assert_int_equal(_select_req(a6, cand, 2, true, NULL, 0, out),
			 LOC_ENOFIT);
	assert_int_equal(_select_req(a6, cand, 1, true, NULL, 0, out), 0);
	memset(cand, 0, sizeof(cand));
	cand[2] = cand[3] = cand[4] = cand[5] = 1;
	assert_int_equal(_select_req(a4, cand, 4, true, NULL, 0, out),
			 LOC_ENOFIT);
	assert_int_equal(_select_req(a4, cand, 2, true, NULL, 0, out), 0);
	assert_memory_equal(out, two, sizeof(two));
	loc_alloc_destroy(a6);
	loc_alloc_destroy(a4);
	loc_grid_destroy(g6);
	loc_grid_destroy(g4);
}

/* Required nodes in contiguous mode: the window must hold them. */
static void test_contiguous_honours_required(void **state)
{
	int dims[1] = { 16 }, d2[2] = { 5, 6 }, out[16], checked = 0;
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_alloc_t *a = _alloc(g, LOC_STRATEGY_FIRSTFIT, LOC_CURVE_ROWMAJOR);
	uint8_t cand[30];
	const int r9[1] = { 9 }, apart[2] = { 3, 12 }, busy[1] = { 5 };
	const int want[4] = { 6, 7, 8, 9 };
	uint64_t s = 5;

	(void)state;
	memset(cand, 1, 16);
	assert_int_equal(_select_req(a, cand, 4, true, r9, 1, out), 0);
	assert_memory_equal(out, want, sizeof(want));
	/* Two required nodes too far apart for any window (or box) of 4. */
	assert_int_equal(_select_req(a, cand, 4, true, apart, 2, out),
			 LOC_ENOFIT);
	cand[5] = 0;
	assert_int_equal(_select_req(a, cand, 4, true, busy, 1, out),
			 LOC_ENOFIT);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);

	/* Random states and required nodes on a 2-D torus. */
	g = tu_grid(2, d2, true, 1);
	a = _alloc(g, LOC_STRATEGY_BESTFIT, LOC_CURVE_SNAKE);
	for (int st = 0; st < 300; st++) {
		int req[2], nreq, fr[30], m, k;

		tu_fragmented(cand, 30, 0.3, s + st);
		m = _free_ranks(loc_alloc_curve(a), cand, 30, fr);
		if (m < 2)
			continue;
		k = 1 + tu_below(&s, m);
		nreq = 1 + tu_below(&s, k < 2 ? 1 : 2);
		for (int i = 0; i < 2; i++)
			req[i] = loc_curve_node(loc_alloc_curve(a),
						fr[tu_below(&s, m)]);
		if (nreq == 2 && req[1] == req[0])
			nreq = 1;
		checked += _check_contiguous(a, cand, k, req, nreq);
	}
	assert_true(checked > 50);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* SL sees the equally tight alternatives: two free runs of 4 (ranks 0..3
 * and 10..13 of a 20-node line) for k = 4; the second's busy neighbours
 * end when the job does, so SL moves the job there. Skipped while the SL
 * score is not yet implemented. */
static void test_bestfit_offers_ties_to_sl(void **state)
{
	int dims[1] = { 20 }, out[4];
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	uint8_t cand[20] = { 0 };
	int64_t until[20];
	loc_view_t view = {
		.candidate = cand, .busy_until = until, .now = 100,
	};
	loc_request_t r = { .nodes = 4, .expected_end = 5000 };
	const int probe[1] = { 10 }, want[4] = { 10, 11, 12, 13 };
	loc_policy_t p;
	loc_error_t err;
	loc_alloc_t *a;

	(void)state;
	for (int v = 0; v < 20; v++)
		until[v] = 1000;
	for (int v = 0; v < 4; v++)
		cand[v] = cand[10 + v] = 1, until[v] = until[10 + v] = 0;
	until[9] = until[14] = 5000;
	if (loc_sl_score(g, &view, 5000, probe, 1) < 0)
		skip();
	loc_policy_init(&p);
	p.strategy = LOC_STRATEGY_BESTFIT;
	p.curve = LOC_CURVE_ROWMAJOR;
	p.walltime = LOC_WALLTIME_SL;
	a = loc_alloc_create(g, &p, &err);
	assert_non_null(a);
	assert_int_equal(loc_alloc_select(a, &r, &view, out, &err), 0);
	assert_memory_equal(out, want, sizeof(want));
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* ---------------------------------------------------------------- */

/*
 * Reference versions of the curve strategies, written for clarity (one
 * rank at a time, no bitmaps): the allocator scans 64 ranks per step, so
 * these check it on maps of several words, runs across word boundaries
 * and rings whose ends join.
 */

/* Free intervals as the fit strategies define them: maximal runs of free
 * ranks; on a ring the runs at both ends join, listed last. Returns the
 * count; iv[2i], iv[2i+1] = start, end (exclusive, may exceed n). */
static int _ref_intervals(const int *fr, int m, int n, bool ring, int *iv)
{
	int nint = 0;

	for (int i = 0; i < m; i++) {
		if (i && fr[i] == fr[i - 1] + 1) {
			iv[2 * nint - 1]++;
			continue;
		}
		iv[2 * nint] = fr[i];
		iv[2 * nint + 1] = fr[i] + 1;
		nint++;
	}
	if (ring && nint >= 2 && iv[0] == 0 && iv[2 * nint - 1] == n) {
		iv[2 * nint - 1] = n + iv[1];
		memmove(iv, iv + 2, sizeof(int) * 2 * (nint - 1));
		nint--;
	}
	return nint;
}

/* Sum of squares of the interval size counts after placing k in an
 * interval of size len (hist: counts by size, n + 1 entries). */
static int64_t _ref_sumsq(const int *hist, int n, int len, int k)
{
	int64_t q = 0;

	for (int sz = 1; sz <= n; sz++) {
		int64_t c = hist[sz] - (sz == len) + (sz == len - k);

		q += c * c;
	}
	return q;
}

/*
 * The ranks a curve strategy (freelist, first/best fit, sum of squares,
 * span) must choose on this map, ascending; k <= m. For span the total
 * pairwise distance is brute-forced per window, so keep k small.
 */
static void _ref_choice(loc_strategy_kind_t kind, const int *fr, int m,
			int n, bool ring, int k, int *want)
{
	int *iv = malloc(sizeof(int) * 2 * (m + 1)), nint, best_i = -1;
	int nwin = ring ? m : m - k + 1;
	int64_t best = INT64_MAX;

	assert_non_null(iv);
	if (kind == LOC_STRATEGY_FREELIST || k == m) {
		memcpy(want, fr, sizeof(int) * k);
		free(iv);
		return;
	}
	nint = _ref_intervals(fr, m, n, ring, iv);
	if (kind == LOC_STRATEGY_SPAN) {
		for (int w = 0; w < nwin; w++) {
			int rk[512];
			int64_t c;

			_window(fr, m, k, w, rk);
			c = _rank_cost(rk, k, n, ring);
			if (c < best) {
				best = c;
				best_i = w;
			}
		}
		_window(fr, m, k, best_i, want);
		free(iv);
		return;
	}
	for (int i = 0; i < nint; i++) {
		int len = iv[2 * i + 1] - iv[2 * i];
		int64_t c;
		int hist[520] = { 0 };

		if (len < k)
			continue;
		if (kind == LOC_STRATEGY_FIRSTFIT) {
			best_i = i;
			break;
		}
		if (kind == LOC_STRATEGY_BESTFIT) {
			c = len - k;
		} else {
			for (int j = 0; j < nint; j++)
				hist[iv[2 * j + 1] - iv[2 * j]]++;
			c = _ref_sumsq(hist, n, len, k);
		}
		if (c < best) {
			best = c;
			best_i = i;
		}
	}
	if (best_i >= 0) {
		for (int j = 0; j < k; j++)
			want[j] = (iv[2 * best_i] + j) % n;
		qsort(want, k, sizeof(int), _cmp_int);
		free(iv);
		return;
	}
	/* No interval holds k: the first window of least span. */
	for (int w = 0; w < nwin; w++) {
		int64_t c = (fr[(w + k - 1) % m] - fr[w] + n) % n + 1;

		if (c < best) {
			best = c;
			best_i = w;
		}
	}
	_window(fr, m, k, best_i, want);
	free(iv);
}

/* Grids of 63 to 512 nodes: runs cross 64-rank words, rings wrap. */
static const shape_t _wide_shapes[] = {
	{ 1, { 63 } }, { 1, { 64 } }, { 1, { 65 } }, { 1, { 127 } },
	{ 1, { 129 } }, { 1, { 200 } }, { 2, { 16, 16 } }, { 2, { 13, 17 } },
	{ 3, { 8, 8, 8 } }, { 3, { 7, 6, 5 } },
};

/* State st of a wide grid: fragmented, or every fourth a sparse random
 * map whose free nodes have candidate bytes 1 to 255. */
static void _wide_map(uint8_t *cand, int n, int st, uint64_t *s)
{
	if (st % 4 != 3) {
		tu_fragmented(cand, n, 0.1 + 0.055 * st, *s + st);
		return;
	}
	for (int v = 0; v < n; v++)
		cand[v] = (uint8_t)(tu_below(s, 4) ? 1 + tu_below(s, 255) : 0);
}

/* The curve strategies against _ref_choice() on wide grids, every curve,
 * dense and sparse maps (candidate bytes other than 1 count as free). */
static void test_curve_strategies_match_reference_on_wide_maps(void **state)
{
	static const loc_strategy_kind_t kinds[] = {
		LOC_STRATEGY_FREELIST, LOC_STRATEGY_FIRSTFIT,
		LOC_STRATEGY_BESTFIT, LOC_STRATEGY_SUMSQUARES,
		LOC_STRATEGY_SPAN,
	};
	int nshapes = (int)(sizeof(_wide_shapes) / sizeof(_wide_shapes[0]));
	uint64_t s = 2024;
	int checked = 0;

	(void)state;
	for (int gi = 0; gi < 2 * nshapes; gi++) {
		const shape_t *sh = &_wide_shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool ring = _all_torus(g);

		for (int ki = 0; ki < 5; ki++) {
			loc_alloc_t *a = _alloc(g, kinds[ki], (gi + ki) % 3);
			const loc_curve_t *cv = loc_alloc_curve(a);

			for (int st = 0; st < 16; st++) {
				uint8_t cand[512];
				int fr[512], out[512], rk[512], want[512];
				int m, k, longest;

				_wide_map(cand, n, st, &s);
				m = _free_ranks(cv, cand, n, fr);
				if (!m)
					continue;
				longest = _longest_run(cv, cand, n, ring);
				switch (st % 4) {
				case 0:
					k = longest;
					break;
				case 1:
					k = longest < m ? longest + 1 : m;
					break;
				default:
					k = 1 + tu_below(&s, m);
				}
				/* Span's reference is quadratic per window. */
				if (kinds[ki] == LOC_STRATEGY_SPAN && k > 24 &&
				    k < m)
					k = 1 + tu_below(&s, 24);
				assert_int_equal(_select(a, cand, k, out), 0);
				tu_assert_placement(cand, n, out, k);
				_ranks_of(cv, out, k, rk);
				_ref_choice(kinds[ki], fr, m, n, ring, k,
					    want);
				assert_memory_equal(rk, want, sizeof(int) * k);
				checked++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(checked > 1000);
}

/*
 * The allocator keeps its copy of the candidate map (and the map in curve
 * order) from one call to the next, patching what changed: an allocator
 * that saw a long history of maps must answer exactly as a fresh one.
 * Maps drift by a few nodes, now and then by many (a rebuild), and use
 * candidate bytes other than 0 and 1.
 */
static void test_answers_do_not_depend_on_history(void **state)
{
	static const cfg_t cfgs[] = {
		{ .strategy = LOC_STRATEGY_FREELIST },
		{ .strategy = LOC_STRATEGY_FIRSTFIT },
		{ .strategy = LOC_STRATEGY_BESTFIT },
		{ .strategy = LOC_STRATEGY_SUMSQUARES },
		{ .strategy = LOC_STRATEGY_SPAN },
		{ .strategy = LOC_STRATEGY_RANDOM },
		{ .strategy = LOC_STRATEGY_PAGING },
		{ .strategy = LOC_STRATEGY_FREELIST, .contiguous = true },
		{ .strategy = LOC_STRATEGY_SPAN, .walltime = LOC_WALLTIME_SL,
		  .tolerance = 0.3 },
	};
	static const shape_t shapes[] = {
		{ 2, { 16, 16 } }, { 1, { 200 } }, { 3, { 9, 7, 5 } },
	};
	int ncfgs = (int)(sizeof(cfgs) / sizeof(cfgs[0]));
	uint64_t s = 77;
	int calls = 0;

	(void)state;
	for (int gi = 0; gi < 6; gi++) {
		loc_grid_t *g = tu_grid(shapes[gi / 2].ndims,
					shapes[gi / 2].dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);

		for (int c = 0; c < ncfgs; c++) {
			loc_alloc_t *a = _alloc_full(g, &cfgs[c], gi % 3, 5);
			uint8_t cand[512];

			tu_fragmented(cand, n, 0.4, s + c);
			for (int step = 0; step < 60; step++) {
				loc_alloc_t *fresh;
				int nf, k, out[512], want[512], rc;
				/* Mostly a few nodes; every tenth step,
				 * half the machine. */
				int flips = 1 + tu_below(&s, 6);

				if (step % 10 == 9)
					flips = n / 2;
				for (int i = 0; i < flips; i++) {
					int v = tu_below(&s, n);

					cand[v] = (uint8_t)(cand[v] ? 0 :
						1 + tu_below(&s, 3) * 100);
				}
				nf = tu_count(cand, n);
				k = 1 + tu_below(&s, nf ? nf : 1);
				rc = _select_req(a, cand, k, cfgs[c].contiguous,
						 NULL, 0, out);
				fresh = _alloc_full(g, &cfgs[c], gi % 3, 5);
				assert_int_equal(_select_req(fresh, cand, k,
							     cfgs[c].contiguous,
							     NULL, 0, want),
						 rc);
				if (!rc)
					assert_memory_equal(out, want,
							    sizeof(int) * k);
				loc_alloc_destroy(fresh);
				calls++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(calls > 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_states_keep_invariants),
		cmocka_unit_test(test_tiny_machines),
		cmocka_unit_test(test_span_matches_brute_force),
		cmocka_unit_test(test_span_ring_uses_ring_distances),
		cmocka_unit_test(test_fit_hand_examples),
		cmocka_unit_test(test_fit_ring_joins_end_runs),
		cmocka_unit_test(test_fit_min_span_fallback),
		cmocka_unit_test(test_freelist_first_k_in_curve_order),
		cmocka_unit_test(test_paging_hand_examples),
		cmocka_unit_test(test_paging_shared_points),
		cmocka_unit_test(test_paging_rejects_negative_size),
		cmocka_unit_test(test_random_is_uniform_and_seeded),
		cmocka_unit_test(test_random_large_is_uniform_and_state_only),
		cmocka_unit_test(
			test_contiguous_picks_tightest_connected_window),
		cmocka_unit_test(test_contiguous_refuses_disconnected),
		cmocka_unit_test(test_contiguous_honours_required),
		cmocka_unit_test(test_bestfit_offers_ties_to_sl),
		cmocka_unit_test(
			test_curve_strategies_match_reference_on_wide_maps),
		cmocka_unit_test(test_answers_do_not_depend_on_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
