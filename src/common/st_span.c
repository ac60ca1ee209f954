/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_span.c - the exact one-dimensional optimum: the k free nodes of least
 * total pairwise rank distance (seed 002, Leung et al., SAND2003-3702,
 * sec. 5.1.1).
 *
 * Some optimal set is convex: k consecutive free nodes in rank order
 * (Theorem 4), so only those windows are scored, each in O(1) from the
 * previous one by the paper's recurrence over the distances delta between
 * consecutive free ranks:
 *   L' = L - (k-1) delta_{i+1} + S',  R' = R - S + (k-1) delta_{i+k},
 *   D' = D - L + R'
 * (L, R: distances to the window's leftmost / rightmost member, S: its
 * linear span, D: its total).
 *
 * Ring case (every grid dimension a torus): two ranks are min(d, N - d)
 * apart. The paper doubles the points and runs the same recurrence, but
 * that measures a pair the long way round once it is more than N/2 apart
 * (a window spanning more than half the ring) and can then pick a worse
 * window. Here the recurrence runs on the doubled points as in the paper
 * and a correction C, the sum over such far pairs of 2d - N, is kept
 * alongside: sliding removes the leaving node's far pairs and adds the
 * entering node's, each a range found by a pointer that only moves
 * forward and summed with prefix sums. D - C is the exact ring total; the
 * common case (no far pair) costs two comparisons per window. Windows of
 * consecutive free nodes stay optimal on a ring (exchange argument: the
 * ring distance is concave between members; checked against brute force
 * in the tests).
 */
#include <math.h>

#include "loc_strategy_internal.h"

/* Offers per call: enough alternatives for SL, bounded work. */
#define SPAN_MAX_OFFERS 32

typedef struct span {
	loc__ctx_t *ctx;
	const int *order; /* rank -> node */
	int n, k, m, ring;
	const int *frank; /* free ranks, ascending [m] */
	int64_t *pre;     /* ring: pre[t] = frank[0] + ... + frank[t-1] */
	bool have_pre;
	/* Scan results: the windows to offer, in order. */
	int64_t best;
	double limit;
	int win[SPAN_MAX_OFFERS];
	int64_t cost[SPAN_MAX_OFFERS];
	int nwin, maxwin; /* maxwin: 1 unless SL can use alternatives */
} span_t;

static bool _all_torus(const loc_grid_t *grid)
{
	const loc_shape_t *s = loc_grid_shape(grid);

	for (int d = 0; d < s->ndims; d++)
		if (!s->torus[d])
			return false;
	return true;
}

/* The walltime modes with the SL tie-break, which chooses among offers. */
static bool _sl_enabled(const loc_policy_t *p)
{
	return p->walltime == LOC_WALLTIME_SL ||
	       p->walltime == LOC_WALLTIME_COMBO ||
	       p->walltime == LOC_WALLTIME_ADJEST;
}

static double _sl_tolerance(const loc_policy_t *p)
{
	return _sl_enabled(p) ? p->sl_tolerance : 0.0;
}

/* Position t of the doubled point sequence (t < 2m). */
static inline int64_t _q(const span_t *s, int t)
{
	return t < s->m ? s->frank[t] : (int64_t)s->frank[t - s->m] + s->n;
}

/* Sum of positions [0, t) of the doubled sequence (t <= 2m). */
static inline int64_t _qsum(span_t *s, int t)
{
	if (!s->have_pre) {
		s->pre[0] = 0;
		for (int i = 0; i < s->m; i++)
			s->pre[i + 1] = s->pre[i] + s->frank[i];
		s->have_pre = true;
	}
	if (t <= s->m)
		return s->pre[t];
	return s->pre[s->m] + s->pre[t - s->m] + (int64_t)(t - s->m) * s->n;
}

/* Correction lost when position i leaves window [i, i+k): its far pairs
 * [a, i+k), a the first more than N/2 ahead. */
static int64_t _far_ahead(span_t *s, int i, int *a)
{
	int hi = i + s->k;
	int64_t qi = _q(s, i);

	if (2 * (_q(s, hi - 1) - qi) <= s->n)
		return 0;
	if (*a < i + 1)
		*a = i + 1;
	while (2 * (_q(s, *a) - qi) <= s->n)
		(*a)++;
	return 2 * (_qsum(s, hi) - _qsum(s, *a)) -
	       (int64_t)(hi - *a) * (2 * qi + s->n);
}

/* Correction gained when position e joins positions [lo, e): the far
 * pairs [lo, b), b the first within N/2 behind. */
static int64_t _far_behind(span_t *s, int lo, int e, int *b)
{
	int64_t qe = _q(s, e);

	if (2 * (qe - _q(s, lo)) <= s->n)
		return 0;
	if (*b < lo)
		*b = lo;
	while (2 * (qe - _q(s, *b)) > s->n)
		(*b)++;
	return (int64_t)(*b - lo) * (2 * qe - s->n) -
	       2 * (_qsum(s, *b) - _qsum(s, lo));
}

/*
 * Scores windows of k consecutive free ranks (on a ring all m rotations)
 * and records, in window order, pass 0: those of least total; pass 1:
 * those above it but within the SL limit. Hot loop: state in locals.
 */
static void _scan(span_t *s, int pass)
{
	const int *fr = s->frank;
	const int k = s->k, m = s->m, n = s->n, ring = s->ring;
	const int nwin = ring ? m : m - k + 1, maxwin = s->maxwin;
	const double limit = s->limit;
	int64_t sp = 0, l = 0, r = 0, d = 0, c = 0, best = s->best;
	int a = 0, b = 0, cnt = s->nwin;

	for (int j = 1; j < k; j++) {
		int64_t delta = _q(s, j) - _q(s, j - 1);

		sp += delta;
		l += (int64_t)(k - j) * delta;
		r += (int64_t)j * delta;
		d += (int64_t)j * (k - j) * delta;
		if (ring)
			c += _far_behind(s, 0, j, &b);
	}
	for (int i = 0;; i++) {
		int64_t q0, q1, qk1, qk, d_in, d_out, sp_next, v = d - c;

		if (pass == 0 && v < best) {
			best = v;
			cnt = 0;
		}
		if ((pass == 0 ? v == best :
				 v > best && (double)v <= limit) &&
		    cnt < maxwin) {
			s->win[cnt] = i;
			s->cost[cnt++] = v;
		}
		if (i + 1 == nwin)
			break;
		if (i + k < m) {
			q0 = fr[i];
			q1 = fr[i + 1];
			qk1 = fr[i + k - 1];
			qk = fr[i + k];
		} else {
			q0 = _q(s, i);
			q1 = _q(s, i + 1);
			qk1 = _q(s, i + k - 1);
			qk = _q(s, i + k);
		}
		/* Seed 002's update, in order: S', L', R', D'. */
		d_out = q1 - q0;
		d_in = qk - qk1;
		sp_next = sp - d_out + d_in;
		d -= l;
		l += sp_next - (int64_t)(k - 1) * d_out;
		r += (int64_t)(k - 1) * d_in - sp;
		d += r;
		sp = sp_next;
		/* Far pairs only once the window passes half the ring. */
		if (ring && 2 * (qk1 - q0) > n)
			c -= _far_ahead(s, i, &a);
		if (ring && 2 * (qk - q1) > n)
			c += _far_behind(s, i + 1, i + k, &b);
	}
	s->best = best;
	s->nwin = cnt;
}

static int _span_select(loc__ctx_t *ctx)
{
	int n = ctx->nnodes, m = ctx->nfree, *frank, *pick;
	span_t s = {
		.ctx = ctx,
		.order = loc_curve_order(ctx->curve),
		.n = n,
		.k = ctx->k,
		.m = m,
		.ring = _all_torus(ctx->grid),
		.best = INT64_MAX,
		.maxwin = _sl_enabled(ctx->policy) ? SPAN_MAX_OFFERS : 1,
	};

	/* Scratch: prefix sums pre[m+1] (int64, first for alignment), the
	 * free ranks, and the pick over pre once scanning is done: at most
	 * 3n + 2 ints, within 4n as n >= 2 whenever k < m. */
	s.pre = (int64_t *)ctx->scratch;
	frank = ctx->scratch + 2 * m + 2;
	pick = ctx->scratch;
	if (m < s.k)
		return LOC_ENOFIT;
	if (s.k == m) {
		/* Every free node: one set, nothing to choose. */
		for (int r = 0, j = 0; r < n; r++)
			if (ctx->free[s.order[r]])
				pick[j++] = s.order[r];
		return loc__offer(ctx, pick, 0.0);
	}
	for (int r = 0, j = 0; r < n; r++) {
		frank[j] = r;
		j += ctx->free[s.order[r]];
	}
	s.frank = frank;
	_scan(&s, 0);
	s.limit = (double)s.best +
		  _sl_tolerance(ctx->policy) * fabs((double)s.best);
	if (s.limit > (double)s.best && s.nwin < s.maxwin)
		_scan(&s, 1);
	for (int w = 0; w < s.nwin; w++) {
		int rc;

		if (!((double)s.cost[w] < loc__offer_bound(ctx)))
			continue;
		for (int j = 0; j < s.k; j++)
			pick[j] = s.order[frank[(s.win[w] + j) % m]];
		rc = loc__offer(ctx, pick, (double)s.cost[w]);
		if (rc)
			return rc;
	}
	return 0;
}

const loc__strategy_ops_t loc__st_span = {
	.name = "span", .select = _span_select,
};
