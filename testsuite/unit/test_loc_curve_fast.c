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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bestfit_one_node_takes_isolated_ranks),
		cmocka_unit_test(test_span_one_node_takes_first_free_ranks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
