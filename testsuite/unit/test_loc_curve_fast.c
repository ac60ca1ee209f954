/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_curve_fast.c - the word-parallel shortcuts of the curve
 * strategies against simple one-rank-at-a-time references, including
 * the alternatives offered to the SL tie-break: maps built in rank order
 * so that runs cross 64-rank words and meet at the ends of rings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "loc_strategy.h"
#include "loc_walltime.h"
#include "loc_test_util.h"

/* The SL tie-break looks at no more offers than this. */
#define MAX_OFFERS 32

static int _cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

typedef struct shape {
	int ndims;
	int dims[3];
} shape_t;

/* 1 to 3 dimensions, word multiples and their neighbours. */
static const shape_t _shapes[] = {
	{ 1, { 2 } },	     { 1, { 3 } },	   { 1, { 63 } },
	{ 1, { 64 } },	     { 1, { 65 } },	   { 1, { 128 } },
	{ 1, { 191 } },	     { 2, { 16, 16 } },	   { 2, { 13, 17 } },
	{ 3, { 8, 8, 8 } },  { 3, { 7, 6, 5 } },
};
#define NSHAPES ((int)(sizeof(_shapes) / sizeof(_shapes[0])))

static loc_alloc_t *_alloc(const loc_grid_t *g, loc_strategy_kind_t s,
			   loc_curve_kind_t curve, bool sl)
{
	loc_policy_t p;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&p);
	p.strategy = s;
	p.curve = curve;
	p.walltime = sl ? LOC_WALLTIME_SL : LOC_WALLTIME_NONE;
	a = loc_alloc_create(g, &p, &err);
	assert_non_null(a);
	return a;
}

/*
 * A map drawn in rank order: free with probability pct / 100, then ranks
 * 0, 1, n - 2 and n - 1 forced now and then, so that isolated ranks and
 * joined ring ends both occur. free_rank[r] gets the rank's state.
 */
static void _rank_map(const loc_curve_t *cv, int n, int pct, uint64_t *s,
		      uint8_t *cand, uint8_t *free_rank)
{
	for (int r = 0; r < n; r++)
		free_rank[r] = (uint8_t)(tu_below(s, 100) < pct);
	if (tu_below(s, 2)) {
		free_rank[0] = (uint8_t)tu_below(s, 2);
		free_rank[n - 1] = (uint8_t)tu_below(s, 2);
		if (n > 2) {
			free_rank[1] = (uint8_t)tu_below(s, 2);
			free_rank[n - 2] = (uint8_t)tu_below(s, 2);
		}
	}
	for (int r = 0; r < n; r++)
		cand[loc_curve_node(cv, r)] =
			free_rank[r] ? (uint8_t)(1 + tu_below(s, 3)) : 0;
}

/* A map of free runs, many of 60 to 70 ranks (around the sizes sum of
 * squares counts apart), with short busy gaps; in rank order as above. */
static void _run_map(const loc_curve_t *cv, int n, uint64_t *s,
		     uint8_t *cand, uint8_t *free_rank)
{
	int r = tu_below(s, 3);

	memset(free_rank, 0, n);
	while (r < n) {
		int len = tu_below(s, 3) ? 60 + tu_below(s, 11) :
					   1 + tu_below(s, 4);

		for (int j = 0; j < len && r < n; j++)
			free_rank[r++] = 1;
		r += 1 + tu_below(s, 3);
	}
	for (int v = 0; v < n; v++)
		cand[v] = free_rank[loc_curve_rank(cv, v)];
}

/* Free ranks whose neighbours are busy (on a ring ranks 0 and n - 1 are
 * neighbours), in rank order; returns how many. */
static int _ref_isolated(const uint8_t *fr, int n, bool ring, int *pos)
{
	int cnt = 0;

	for (int r = 0; r < n; r++) {
		int left = r > 0 ? fr[r - 1] : ring ? fr[n - 1] : 0;
		int right = r < n - 1 ? fr[r + 1] : ring ? fr[0] : 0;

		if (fr[r] && !left && !right)
			pos[cnt++] = r;
	}
	return cnt;
}

/* The first free ranks, in rank order; returns how many. */
static int _ref_first_free(const uint8_t *fr, int n, bool ring, int *pos)
{
	int cnt = 0;

	(void)ring;
	for (int r = 0; r < n; r++)
		if (fr[r])
			pos[cnt++] = r;
	return cnt;
}

typedef int (*ref_offers_f)(const uint8_t *fr, int n, bool ring, int *pos);

/*
 * One-node requests whose equally good offers are ref's ranks, in order:
 * the first wins, and with SL the first MAX_OFFERS are offered and the
 * one whose busy neighbours end closest to the job's end wins (the first
 * on ties). Random ends tell which offers were made. States where ref
 * finds nothing are skipped.
 */
static void _check_one_node_offers(loc_strategy_kind_t kind, ref_offers_f ref)
{
	uint64_t s = 77;
	int checked = 0;

	for (int gi = 0; gi < 2 * NSHAPES; gi++) {
		const shape_t *sh = &_shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool ring = gi % 2;

		for (int sl = 0; sl < 2; sl++) {
			loc_alloc_t *a = _alloc(g, kind, (gi + sl) % 3, sl);
			const loc_curve_t *cv = loc_alloc_curve(a);

			for (int st = 0; st < 40; st++) {
				uint8_t cand[512], fr[512];
				int64_t until[512];
				int pos[512], out[1], want, npos;
				loc_view_t view = {
					.candidate = cand, .busy_until = until,
					.now = 1,
				};
				loc_request_t r = {
					.nodes = 1,
					.expected_end = 1 + tu_below(&s, 1000),
				};
				double best = -1;
				loc_error_t err;

				_rank_map(cv, n, 10 + 20 * (st % 5), &s, cand,
					  fr);
				for (int v = 0; v < n; v++)
					until[v] = cand[v] ? 0 :
							     tu_below(&s, 1000);
				npos = ref(fr, n, ring, pos);
				if (!npos)
					continue;
				assert_int_equal(
					loc_alloc_select(a, &r, &view, out,
							 &err),
					0);
				want = loc_curve_node(cv, pos[0]);
				for (int i = 0; sl && i < npos && i < MAX_OFFERS;
				     i++) {
					int v = loc_curve_node(cv, pos[i]);
					double sc = loc_sl_score(g, &view,
								 r.expected_end,
								 &v, 1);

					if (sc >= 0 && (best < 0 || sc < best)) {
						best = sc;
						want = v;
					}
				}
				assert_int_equal(out[0], want);
				checked++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(checked > 500);
}

/* Best fit at k = 1: an isolated free rank when there is one. */
static void test_bestfit_one_node_takes_isolated_ranks(void **state)
{
	(void)state;
	_check_one_node_offers(LOC_STRATEGY_BESTFIT, _ref_isolated);
}

/* Span at k = 1: every single node totals 0, so the first free ranks. */
static void test_span_one_node_takes_first_free_ranks(void **state)
{
	(void)state;
	_check_one_node_offers(LOC_STRATEGY_SPAN, _ref_first_free);
}

/* Free intervals of the rank map: maximal runs, the two end runs joined
 * last on a ring (unless every rank is free). iv as start, end pairs. */
static int _ref_intervals(const uint8_t *fr, int n, bool ring, int *iv)
{
	int nint = 0;

	for (int r = 0; r < n; r++) {
		if (!fr[r])
			continue;
		if (r && fr[r - 1]) {
			iv[2 * nint - 1]++;
			continue;
		}
		iv[2 * nint] = r;
		iv[2 * nint + 1] = r + 1;
		nint++;
	}
	if (ring && nint >= 2 && iv[0] == 0 && iv[2 * nint - 1] == n) {
		iv[2 * nint - 1] = n + iv[1];
		memmove(iv, iv + 2, sizeof(int) * 2 * (nint - 1));
		nint--;
	}
	return nint;
}

/*
 * Sum of squares against its definition on machines of up to 1,024
 * nodes whose intervals run from 1 to hundreds of ranks: the first
 * interval holding k of least sum over sizes of (intervals of that size
 * after placing)^2, its first k ranks.
 */
static void test_sumsquares_matches_definition_on_long_runs(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 130 } }, { 1, { 131 } }, { 2, { 32, 32 } },
		{ 3, { 10, 10, 10 } },
	};
	uint64_t s = 99;
	int checked = 0;

	(void)state;
	for (int gi = 0; gi < 8; gi++) {
		const shape_t *sh = &shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool ring = gi % 2;
		loc_alloc_t *a = _alloc(g, LOC_STRATEGY_SUMSQUARES, gi % 3,
					false);
		const loc_curve_t *cv = loc_alloc_curve(a);

		for (int st = 0; st < 60; st++) {
			static uint8_t cand[1024], fr[1024];
			static int iv[2 * 1024 + 2], hist[1025], out[1024];
			int nint, k = 1 + tu_below(&s, st % 3 ? 8 : 80);
			int best_i = -1;
			int64_t best = INT64_MAX;

			if (st % 2)
				_run_map(cv, n, &s, cand, fr);
			else
				_rank_map(cv, n, 50 + 8 * (st % 6), &s, cand,
					  fr);
			nint = _ref_intervals(fr, n, ring, iv);
			memset(hist, 0, sizeof(hist));
			for (int i = 0; i < nint; i++)
				hist[iv[2 * i + 1] - iv[2 * i]]++;
			for (int i = 0; i < nint; i++) {
				int len = iv[2 * i + 1] - iv[2 * i];
				int64_t q = 0;

				if (len < k)
					continue;
				for (int sz = 1; sz <= n; sz++) {
					int64_t c = hist[sz] - (sz == len) +
						    (sz == len - k);

					q += c * c;
				}
				if (q < best) {
					best = q;
					best_i = i;
				}
			}
			if (best_i < 0)
				continue;
			{
				loc_view_t view = { .candidate = cand };
				loc_request_t r = { .nodes = k };
				loc_error_t err;
				int want[1024];

				assert_int_equal(loc_alloc_select(a, &r, &view,
								  out, &err),
						 0);
				for (int j = 0; j < k; j++)
					want[j] = loc_curve_node(
						cv, (iv[2 * best_i] + j) % n);
				qsort(want, k, sizeof(int), _cmp_int);
				assert_memory_equal(out, want,
						    sizeof(int) * k);
			}
			checked++;
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(checked > 300);
}

/*
 * The fit strategies' fallback (no interval holds k) against its
 * definition on machines of thousands of ranks, where the least-span
 * scan runs in several chunks: the windows of k consecutive free ranks
 * of least span (on a ring also those wrapping past the last rank), the
 * first of them; with SL the first MAX_OFFERS of them are offered and
 * walltime picks one.
 */
static void test_fit_fallback_takes_first_least_window(void **state)
{
	static const shape_t shapes[] = {
		{ 1, { 3000 } }, { 2, { 48, 50 } }, { 3, { 16, 16, 16 } },
	};
	static const loc_strategy_kind_t kinds[] = {
		LOC_STRATEGY_FIRSTFIT, LOC_STRATEGY_BESTFIT,
		LOC_STRATEGY_SUMSQUARES,
	};
	uint64_t s = 5;
	int checked = 0;

	(void)state;
	for (int gi = 0; gi < 6; gi++) {
		const shape_t *sh = &shapes[gi / 2];
		loc_grid_t *g = tu_grid(sh->ndims, sh->dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool ring = gi % 2;

		for (int ki = 0; ki < 6; ki++) {
			bool sl = ki >= 3;
			loc_alloc_t *a = _alloc(g, kinds[ki % 3], ki % 3, sl);
			const loc_curve_t *cv = loc_alloc_curve(a);

			for (int st = 0; st < 8; st++) {
				static uint8_t cand[4096], fr[4096];
				static int frank[4096], out[4096], set[4096];
				static int64_t until[4096];
				int m = 0, run = 0, longest = 0, k, nwin, best;
				int want = -1, nties = 0;
				double bsc = -1;
				loc_view_t view = {
					.candidate = cand, .busy_until = until,
					.now = 1,
				};
				loc_request_t r = {
					.expected_end = 1 + tu_below(&s, 1000),
				};
				loc_error_t err;

				_rank_map(cv, n, 30 + 10 * (st % 4), &s, cand,
					  fr);
				for (int v = 0; v < n; v++)
					until[v] = cand[v] ? 0 :
							     tu_below(&s, 1000);
				/* Longest run, counting a ring's joined ends. */
				for (int i = 0; i < 2 * n; i++) {
					run = fr[i % n] ? run + 1 : 0;
					longest = run > longest ? run : longest;
				}
				for (int i = 0; i < n; i++)
					if (fr[i])
						frank[m++] = i;
				k = longest + 1 + tu_below(&s, 3 + 40 * (st % 2));
				if (longest >= n || k >= m)
					continue;
				r.nodes = k;
				nwin = ring ? m : m - k + 1;
				best = n + 1;
				for (int w = 0; w < nwin; w++) {
					int j = w + k - 1;
					int arc = j < m ? frank[j] - frank[w] :
							  frank[j - m] + n - frank[w];

					best = arc < best ? arc : best;
				}
				for (int w = 0; w < nwin && nties < MAX_OFFERS;
				     w++) {
					int j = w + k - 1;
					int arc = j < m ? frank[j] - frank[w] :
							  frank[j - m] + n - frank[w];
					double sc;

					if (arc != best || (nties++ && !sl))
						continue;
					for (int t = 0; t < k; t++)
						set[t] = loc_curve_node(
							cv, frank[(w + t) % m]);
					sc = sl ? loc_sl_score(g, &view,
							       r.expected_end,
							       set, k) :
						  -1;
					if (want < 0 ||
					    (sc >= 0 && (bsc < 0 || sc < bsc))) {
						want = w;
						if (sc >= 0)
							bsc = sc;
					}
				}
				assert_int_equal(loc_alloc_select(a, &r, &view,
								  out, &err),
						 0);
				for (int t = 0; t < k; t++)
					set[t] = loc_curve_node(
						cv, frank[(want + t) % m]);
				qsort(set, k, sizeof(int), _cmp_int);
				assert_memory_equal(out, set, sizeof(int) * k);
				checked++;
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(checked > 200);
}

/*
 * Answers of tens to hundreds of nodes on machines of 16,384 and 90,000
 * nodes (two and three radix passes when the allocator sorts them): the
 * first k free nodes in curve order, ascending; and paging's (one node a
 * page, row-major: node order already, which the allocator keeps).
 */
static void test_answers_sorted_on_large_machines(void **state)
{
	static const shape_t shapes[] = { { 2, { 128, 128 } },
					  { 2, { 300, 300 } } };
	uint64_t s = 11;

	(void)state;
	for (int gi = 0; gi < 4; gi++) {
		loc_grid_t *g = tu_grid(2, shapes[gi % 2].dims, gi % 2, 1);
		int n = loc_grid_nnodes(g);
		bool paging = gi >= 2;
		loc_alloc_t *a = _alloc(g, paging ? LOC_STRATEGY_PAGING :
						    LOC_STRATEGY_FREELIST,
					gi % 2, false);
		const loc_curve_t *cv = loc_alloc_curve(a);
		uint8_t *cand = malloc(n);
		int *out = malloc(sizeof(int) * n), *want = malloc(sizeof(int) * n);

		assert_non_null(cand);
		assert_non_null(out);
		assert_non_null(want);
		for (int st = 0; st < 20; st++) {
			loc_view_t view = { .candidate = cand };
			loc_request_t r = { .nodes = 32 + tu_below(&s, 320) };
			loc_error_t err;
			int m = 0;

			/* About 400 free nodes: answers spread over the
			 * whole machine, so every digit matters. */
			for (int v = 0; v < n; v++)
				cand[v] = (uint8_t)(tu_below(&s, n / 400) == 0);
			for (int rk = 0; rk < n && m < r.nodes; rk++) {
				int v = paging ? rk : loc_curve_node(cv, rk);

				if (cand[v])
					want[m++] = v;
			}
			if (m < r.nodes)
				continue;
			qsort(want, m, sizeof(int), _cmp_int);
			assert_int_equal(loc_alloc_select(a, &r, &view, out,
							  &err),
					 0);
			assert_memory_equal(out, want, sizeof(int) * r.nodes);
		}
		free(cand);
		free(out);
		free(want);
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bestfit_one_node_takes_isolated_ranks),
		cmocka_unit_test(test_span_one_node_takes_first_free_ranks),
		cmocka_unit_test(test_sumsquares_matches_definition_on_long_runs),
		cmocka_unit_test(test_fit_fallback_takes_first_least_window),
		cmocka_unit_test(test_answers_sorted_on_large_machines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
