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
 *
 * Without SL, vectors score the windows first (_scan_simd()): on a ring
 * over the free ranks followed by the first k again plus N, so that the
 * wrapping windows are plain ones too; exact as long as no window has a
 * far pair, else the scalar scan runs as above.
 *
 * At k = 1 every window totals 0, so the first free ranks are taken
 * straight from the rank bitmap, which is read only up to the last one
 * offered (at most 32).
 *
 * k consecutive free ranks total (k^3 - k) / 6, the least any k distinct
 * ranks can, and only such a run reaches it (on a ring too, as long as
 * k - 1 <= N/2 keeps every pair of the run within half the ring; checked
 * by brute force up to N = 14). So when some run of k free ranks exists,
 * the first one is the scan's answer, found a word at a time without
 * listing the free ranks. With SL the windows near the least are wanted
 * too, so the scan runs.
 */
#include <math.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_policy_internal.h"
#include "loc_strategy_ops.h"
#include "st_span.h"

/* Offers per call: enough alternatives for SL, bounded work. */
#define SPAN_MAX_OFFERS 32

typedef struct span {
	loc__ctx_t *ctx;
	const int *order; /* rank -> node */
	int n, k, m, ring;
	int ext;          /* ring, pass 0 without SL: k (see _span_select) */
	const int *frank; /* free ranks, ascending [m], then ext doubled */
	int64_t *pre;     /* ring: pre[t] = frank[0] + ... + frank[t-1] */
	bool have_pre;
	/* Scan results: the windows to offer, in order. */
	int64_t best;
	double limit;
	int win[SPAN_MAX_OFFERS];
	int64_t cost[SPAN_MAX_OFFERS];
	int nwin, maxwin; /* maxwin: 1 unless SL can use alternatives */
} span_t;

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

/* Scan state carried from window to window. */
typedef struct span_run {
	int64_t d;   /* total of the doubled-line distances */
	int64_t sum; /* sum of the window's positions */
	int64_t c;   /* ring correction: D - C is the ring total */
	int64_t best;
	int cnt;     /* windows recorded */
} span_run_t;

/* Records window i of total v: pass 0 the least (ties in order), pass 1
 * those above it but within the SL limit. Rare: kept out of the hot loop
 * so that the loop's state fits in registers. */
__attribute__((noinline))
static void _record(span_t *s, int pass, int i, int64_t v, span_run_t *st)
{
	if (pass == 0 ? v <= st->best : v > st->best && (double)v <= s->limit) {
		if (pass == 0 && v < st->best) {
			st->best = v;
			st->cnt = 0;
		}
		if (st->cnt < s->maxwin) {
			s->win[st->cnt] = i;
			s->cost[st->cnt++] = v;
		}
	}
}

/*
 * Pass 0 records v <= bar, pass 1 v > bar (then checks the limit): ties
 * with the best count only while there is room for them.
 */
static inline int64_t _bar(const span_t *s, int pass, const span_run_t *st)
{
	if (pass == 0)
		return st->best - (st->cnt >= s->maxwin);
	return st->best;
}

/* bar + c without overflow: before the first window best is INT64_MAX. */
static inline int64_t _bar_plus(const span_t *s, int pass,
				const span_run_t *st, int64_t c)
{
	int64_t bar = _bar(s, pass, st);

	return c > 0 && bar > INT64_MAX - c ? INT64_MAX : bar + c;
}

/*
 * The innermost loop: slides from window i while the window neither needs
 * recording (d > bar) nor has a far pair (t <= half), up to window last,
 * and returns where it stopped. Seed 002's update in the equivalent form
 * D' = D + k (x_i + x_{i+k}) - t - G, t = x_{i+k} - x_i, G = 2 S, S the
 * window's sum of positions: two loads per window. No call inside, so
 * every value stays in a register (about 13 operations a window).
 */
static inline int _slide(const int *fr, const int *frk, int64_t addk,
			 int i, int last, int64_t k, int64_t half,
			 int64_t bar, int64_t *dp, int64_t *gp)
{
	int64_t d = *dp, g = *gp;

	for (; i < last; i++) {
		int64_t x0 = fr[i], xk = frk[i] + addk, t = xk - x0;

		if (t > half || d <= bar)
			break;
		d += k * (x0 + xk) - t - g;
		g += 2 * t;
	}
	*dp = d;
	*gp = g;
	return i;
}

/*
 * The hot loop: from window i, records each window and slides to the
 * next, up to window last (on one side of the wrap, i + k < m or not:
 * see _scan()) and, on a ring, while there is no far pair
 * (x_{i+k} - x_i at most N/2, so C stays as it is). Returns the first
 * window left to the caller, not yet recorded. Kept out of line so
 * that its state stays in registers.
 */
__attribute__((noinline))
static int _scan_run(span_t *s, int pass, int i, int last, span_run_t *st)
{
	/* x_{i+k} is frank[i + k], or past the last free rank (i + k >= m,
	 * a ring) frank[i + k - m] + n. */
	const bool wrap = i + s->k >= s->m;
	const int *fr = s->frank, *frk = s->frank + s->k - (wrap ? s->m : 0);
	const int64_t addk = wrap ? s->n : 0;
	const int64_t k = s->k, c = st->c;
	const int64_t half = s->ring ? s->n / 2 : INT64_MAX;
	int64_t d = st->d, g = 2 * st->sum;

	if (pass == 0) {
		/* Rarely stops short: a new best, a tie with room, or a
		 * far pair. */
		while (i < last) {
			int64_t x0, xk, t;

			i = _slide(fr, frk, addk, i, last, k, half,
				   _bar_plus(s, pass, st, c), &d, &g);
			if (i == last)
				break;
			x0 = fr[i];
			xk = frk[i] + addk;
			t = xk - x0;
			if (t > half)
				break;
			_record(s, pass, i, d - c, st);
			d += k * (x0 + xk) - t - g;
			g += 2 * t;
			i++;
		}
	} else {
		int64_t bar = _bar_plus(s, pass, st, c);

		for (; i < last && st->cnt < s->maxwin; i++) {
			int64_t x0 = fr[i], xk = frk[i] + addk, t = xk - x0;

			if (t > half)
				break;
			if (d > bar)
				_record(s, pass, i, d - c, st);
			d += k * (x0 + xk) - t - g;
			g += 2 * t;
		}
	}
	st->d = d;
	st->sum = g / 2;
	return i;
}

/*
 * Pass 0 without SL: windows scored eight or sixteen at a time where the
 * CPU can (st_span_simd.c), as long as none has a far pair: on a ring
 * with the ranks doubled (ext) all but the last, a plain window each over
 * the doubled sequence; else those before x_{i+k} wraps, [0, m - k).
 * Returns the first window left to the scalar scan, with st at that
 * window and the least recorded, or 0 having changed nothing.
 */
static int _scan_simd(span_t *s, span_run_t *st)
{
	int last = s->ext ? s->m - 1 : s->m - s->k;
	loc__span_least_t lw;
	int64_t sum = 0;

	bool done = loc__span_least_simd(s->frank, s->m + s->ext, s->k, last,
					 (uint32_t *)s->pre, &lw,
					 loc__simd_level());

	/* A far pair may lie in the wrapping windows alone: then the others
	 * as without ext, the scalar scan keeping C for the rest. */
	if (done && s->ext && 2 * lw.far > s->n) {
		last = s->m - s->k;
		done = loc__span_least_simd(s->frank, s->m, s->k, last,
					    (uint32_t *)s->pre, &lw,
					    loc__simd_level());
	}
	/* The vectors' prefix sums overwrote pre. */
	s->have_pre = false;
	if (!done || (s->ring && 2 * lw.far > s->n))
		return 0;
	/* No far pair, so C is 0 throughout. */
	_record(s, 0, lw.at, lw.best, st);
	st->d = lw.next;
	/* The window sum only matters if the scalar scan slides on. */
	if (last < (s->ring ? s->m : s->m - s->k + 1) - 1)
		for (int j = 0; j < s->k; j++)
			sum += s->frank[last + j];
	st->sum = sum;
	return last;
}

/*
 * Scores windows of k consecutive free ranks (on a ring all m rotations)
 * and records, in window order, pass 0: those of least total; pass 1:
 * those above it but within the SL limit. Windows that wrap or have far
 * pairs take the general step below, the rest _scan_run().
 */
static void _scan(span_t *s, int pass)
{
	const int k = s->k, m = s->m, n = s->n, ring = s->ring;
	const int nwin = ring ? m : m - k + 1;
	span_run_t st = { .best = s->best, .cnt = s->nwin };
	int a = 0, b = 0;
	int i = pass == 0 && s->maxwin == 1 ? _scan_simd(s, &st) : 0;

	/* Else the first window (k < m: no wrap yet). */
	for (int j = 0; j < k && i == 0; j++) {
		int64_t x = s->frank[j];

		st.d += (2 * (int64_t)j - (k - 1)) * x;
		st.sum += x;
		if (ring && 2 * (x - s->frank[0]) > n)
			st.c += _far_behind(s, 0, j, &b);
	}
	for (;; i++) {
		int64_t x0, xk;

		/* Fast stretches end at the last window, and where x_{i+k}
		 * wraps (i + k = m). */
		if (i < m - k && i < nwin - 1)
			i = _scan_run(s, pass, i,
				      m - k < nwin - 1 ? m - k : nwin - 1, &st);
		else if (i < nwin - 1)
			i = _scan_run(s, pass, i, nwin - 1, &st);
		_record(s, pass, i, st.d - st.c, &st);
		/* Pass 1 only appends: done once full. */
		if (i + 1 == nwin || (pass == 1 && st.cnt >= s->maxwin))
			break;
		x0 = _q(s, i);
		xk = _q(s, i + k);
		st.d += (int64_t)(k + 1) * x0 + (int64_t)(k - 1) * xk -
			2 * st.sum;
		st.sum += xk - x0;
		/* Far pairs only once a window passes half the ring. */
		if (ring && 2 * (xk - x0) > n) {
			if (2 * (_q(s, i + k - 1) - x0) > n)
				st.c -= _far_ahead(s, i, &a);
			if (2 * (xk - _q(s, i + 1)) > n)
				st.c += _far_behind(s, i + 1, i + k, &b);
		}
	}
	s->best = st.best;
	s->nwin = st.cnt;
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
		.ring = loc_grid_all_torus(ctx->grid),
		.best = INT64_MAX,
		.maxwin = loc_policy_sl(ctx->policy) ? SPAN_MAX_OFFERS : 1,
	};

	/* Scratch: prefix sums pre[m+1] (int64, first for alignment), the
	 * free ranks, and the pick over pre once scanning is done: at most
	 * 3n + 2 ints, within 4n as n >= 2 whenever k < m. On a ring without
	 * SL, when 3 (m + k) + 2 ints fit, the free ranks go on with
	 * frank[j] + n for j < k (ext), and pre takes 2 (m + k) + 2 ints for
	 * the vectors' prefix sums over them all. */
	if (m < s.k)
		return LOC_ENOFIT;
	if (s.ring && s.maxwin == 1 && 3 * ((int64_t)m + s.k) + 2 <= 4 * n)
		s.ext = s.k;
	s.pre = (int64_t *)ctx->scratch;
	frank = ctx->scratch + 2 * (m + s.ext) + 2;
	pick = ctx->scratch;
	if (s.k == m) {
		/* Every free node: one set, nothing to choose. */
		loc__bits_ones(loc__rank_bits(ctx), 0, n, pick, m);
		return loc__offer_window(ctx, pick, m, 0, pick, 0.0);
	}
	if (s.k == 1) {
		/* Every window of one node totals 0: the first free ranks
		 * tie, in order, and no SL limit reaches above 0. */
		int cnt = loc__bits_ones(loc__rank_bits(ctx), 0, n, pick,
					 s.maxwin);

		for (int w = 0; w < cnt; w++) {
			int rc, v = s.order[pick[w]];

			if (!(0.0 < loc__offer_bound(ctx)))
				continue;
			rc = loc__offer(ctx, &v, 0.0);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (s.maxwin == 1 && (!s.ring || 2 * (s.k - 1) <= n)) {
		int iv[2];

		if (loc__bits_may_hold_run(loc__rank_bits(ctx), 0, n, s.k) &&
		    loc__bits_runs(loc__rank_bits(ctx), 0, n, s.k, iv, 1)) {
			int64_t total = ((int64_t)s.k * s.k - 1) * s.k / 6;

			if (!((double)total < loc__offer_bound(ctx)))
				return 0;
			return loc__offer_window(ctx, NULL, n, iv[0], pick,
						 (double)total);
		}
	}
	loc__bits_ones(loc__rank_bits(ctx), 0, n, frank, m);
	loc__span_plus(frank + m, frank, s.ext, n, loc__simd_level());
	s.frank = frank;
	_scan(&s, 0);
	s.limit = (double)s.best +
		  loc__policy_sl_tolerance(ctx->policy) * fabs((double)s.best);
	if (s.limit > (double)s.best && s.nwin < s.maxwin)
		_scan(&s, 1);
	for (int w = 0; w < s.nwin; w++) {
		int rc;

		if (!((double)s.cost[w] < loc__offer_bound(ctx)))
			continue;
		rc = loc__offer_window(ctx, frank, m, s.win[w], pick,
				       (double)s.cost[w]);
		if (rc)
			return rc;
	}
	return 0;
}

const loc__strategy_ops_t loc__st_span = {
	.name = "span", .select = _span_select,
};
