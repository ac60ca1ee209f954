/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_fit.c - one-dimensional bin packing on the curve: first fit, best fit
 * and sum of squares (seed 000, Leung et al., "Processor allocation on
 * Cplant", sec. 4.3; seed 002, SAND2003-3702).
 *
 * The free intervals are the maximal runs of consecutive free ranks. When
 * some interval holds k nodes the job goes into one of them:
 *   firstfit   the first such interval (lowest starting rank),
 *   bestfit    the one leaving the fewest free nodes in it,
 *   sumsquares the one minimising sum over sizes s of N(s)^2, N(s) being
 *              the number of free intervals of size s that would remain
 *              (computed in O(1) per interval from a size histogram).
 * Ties go to the lowest starting rank. The job takes the first k nodes of
 * the interval; taking its last k leaves the same interval sizes, so that
 * placement is offered too, as an equally good alternative for the SL
 * walltime tie-break.
 *
 * When no interval holds k, the job spreads over several: the k
 * consecutive free nodes (in rank order) of least span, ties to the
 * lowest starting rank. When every grid dimension is a torus the ranks
 * are read as a ring (seed 000 uses ring span): an interval may wrap from
 * the last rank to rank 0 and a window's span is measured around the
 * ring. Otherwise spans are linear.
 *
 * Intervals and free ranks come from the rank bitmap (loc_bits.c), a
 * word at a time: first and best fit look only at the intervals that hold
 * k. Best fit at k = 1 first looks for isolated free ranks (intervals of
 * one), O(N / 64) without listing any interval. Sum of squares takes the
 * interval counts the allocator keeps as ranks flip (loc_runhist.h) and
 * looks only for the first interval of the best length; with SL
 * alternatives it lists every interval, when one holds k.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_policy_internal.h"
#include "loc_strategy_ops.h"
#include "st_fit.h"

/* Offers per call: enough alternatives for SL, bounded work. */
#define FIT_MAX_OFFERS 32

enum { FIT_FIRST, FIT_BEST, FIT_SUMSQ };

typedef struct fit {
	loc__ctx_t *ctx;
	int n, k, ring, kind;
	/* Free intervals in rank order (a wrapping one comes last): interval
	 * i runs from rank iv[2i] to iv[2i+1] (exclusive, may exceed n). */
	int nint;
	int *iv;
	int *hist;          /* sumsquares: hist[s - 1] = intervals of size s */
	int64_t sumsq;      /* sum of hist^2 */
	/* Candidates to offer, in order: interval (or window) indices; for
	 * intervals, bit 0 of the entry is the alignment (1 = last k). */
	int cand[FIT_MAX_OFFERS];
	int64_t cost[FIT_MAX_OFFERS];
	int ncand, maxcand; /* maxcand: 1 unless SL can use alternatives */
} fit_t;

/* Appends a candidate while there is room. Returns false when full. */
static bool _add(fit_t *f, int cand, int64_t cost)
{
	if (f->ncand == f->maxcand)
		return false;
	f->cand[f->ncand] = cand;
	f->cost[f->ncand++] = cost;
	return true;
}

static inline int _ist(const fit_t *f, int i)
{
	return f->iv[2 * i];
}

static inline int _ilen(const fit_t *f, int i)
{
	return f->iv[2 * i + 1] - f->iv[2 * i];
}

/* Sizes counted in the interleaved copies; larger ones are rare. */
#define FIT_SMALL 64

/*
 * Counts the intervals of each size into hist[size - 1] and returns the
 * largest size. Most intervals share a few small sizes, and an increment
 * of a count just increased waits for it: sizes up to FIT_SMALL are
 * counted in four interleaved copies (at the end of scratch, histroom
 * ints from hist) in turn, with the largest size as one more bucket, so
 * the pass has no branch; larger sizes then take a second, rarely
 * branching pass. Machines too small for the copies count plainly.
 */
static int _build_histogram(fit_t *f, int histroom)
{
	int *h = f->hist, maxlen = 0, i = 0, small[FIT_SMALL + 1] = { 0 };
	const int nb = FIT_SMALL + 1;

	if (f->n + 4 * nb > histroom) {
		for (int j = 0; j < f->nint; j++)
			maxlen = _ilen(f, j) > maxlen ? _ilen(f, j) : maxlen;
		memset(h, 0, sizeof(int) * (size_t)maxlen);
		for (int j = 0; j < f->nint; j++)
			h[_ilen(f, j) - 1]++;
	} else {
		int *w = h + histroom - 4 * nb;

		memset(w, 0, sizeof(int) * 4 * nb);
		for (; i + 4 <= f->nint; i += 4)
			for (int j = 0; j < 4; j++) {
				int len = _ilen(f, i + j);

				w[j * nb + (len < nb ? len : nb) - 1]++;
			}
		for (; i < f->nint; i++) {
			int len = _ilen(f, i);

			w[(len < nb ? len : nb) - 1]++;
		}
		for (int s = 0; s < nb; s++)
			small[s] = w[s] + w[nb + s] + w[2 * nb + s] +
				   w[3 * nb + s];
		if (small[nb - 1]) {
			for (int j = 0; j < f->nint; j++)
				if (_ilen(f, j) > maxlen)
					maxlen = _ilen(f, j);
		} else {
			for (int s = 0; s < FIT_SMALL; s++)
				if (small[s])
					maxlen = s + 1;
		}
		/* maxlen <= n: the copies at the end are not reached. */
		memset(h, 0, sizeof(int) * (size_t)maxlen);
		memcpy(h, small, sizeof(int) *
				 (size_t)(maxlen < FIT_SMALL ? maxlen :
							       FIT_SMALL));
		if (small[nb - 1])
			for (int j = 0; j < f->nint; j++)
				if (_ilen(f, j) > FIT_SMALL)
					h[_ilen(f, j) - 1]++;
	}
	f->sumsq = 0;
	for (int s = 0; s < maxlen; s++)
		f->sumsq += (int64_t)f->hist[s] * f->hist[s];
	return maxlen;
}

/* Best fit or sum of squares cost of an interval of len >= k nodes. */
static int64_t _len_cost(const fit_t *f, int len)
{
	int rest = len - f->k;
	int64_t q;

	if (f->kind == FIT_BEST)
		return rest;
	/* Only the counts of size len and size rest change (no branch on
	 * rest: interval sizes are irregular). */
	q = f->sumsq - 2 * (int64_t)f->hist[len - 1] + 1;
	q += (2 * (int64_t)f->hist[rest > 0 ? rest - 1 : 0] + 1) &
	     -(int64_t)(rest > 0);
	return q;
}

static int64_t _interval_cost(const fit_t *f, int i)
{
	return _len_cost(f, _ilen(f, i));
}

/* Adds interval i's placements: first k nodes, then (if different) last k. */
static bool _add_interval(fit_t *f, int i, int64_t cost)
{
	if (!_add(f, 2 * i, cost))
		return false;
	return _ilen(f, i) == f->k || _add(f, 2 * i + 1, cost);
}

/*
 * Best fit / sum of squares: collects the least-cost intervals, then
 * (SL tolerance) the near ones. Returns false when no interval holds k.
 * Best fit lists only the intervals holding k, sum of squares all. The
 * cost depends only on an interval's size, so the least cost is found
 * over the sizes present, then the first interval of that cost.
 */
static bool _collect_intervals(fit_t *f, int histroom)
{
	int64_t best = INT64_MAX;
	int maxlen = 0, minlen = INT_MAX, bi = -1;
	double limit;

	if (f->kind == FIT_SUMSQ) {
		maxlen = _build_histogram(f, histroom);
	} else {
		/* Without a branch per interval: sizes are irregular. */
		for (int i = 0; i < f->nint; i++) {
			int len = _ilen(f, i);
			int fits = len >= f->k ? len : INT_MAX;

			maxlen = len > maxlen ? len : maxlen;
			minlen = fits < minlen ? fits : minlen;
		}
	}
	if (maxlen < f->k)
		return false;
	if (f->kind == FIT_SUMSQ) {
		for (int len = f->k; len <= maxlen; len++)
			if (f->hist[len - 1] && _len_cost(f, len) < best)
				best = _len_cost(f, len);
	} else {
		best = minlen - f->k;
	}
	for (int i = 0; i < f->nint && bi < 0; i++)
		if (_ilen(f, i) >= f->k && _interval_cost(f, i) == best)
			bi = i;
	/* Ties in rank order, then the others within the SL tolerance. */
	for (int i = bi; i < f->nint && f->ncand < f->maxcand; i++)
		if (_ilen(f, i) >= f->k && _interval_cost(f, i) == best &&
		    !_add_interval(f, i, best))
			break;
	limit = (double)best +
		loc__policy_sl_tolerance(f->ctx->policy) * fabs((double)best);
	if (limit > (double)best)
		for (int i = 0; i < f->nint; i++) {
			int64_t c;

			if (_ilen(f, i) < f->k)
				continue;
			c = _interval_cost(f, i);
			if (c > best && (double)c <= limit &&
			    !_add_interval(f, i, c))
				break;
		}
	return true;
}

/* The arc (span minus one) of window i of k consecutive free ranks. */
static inline int _arc(const fit_t *f, const int *frank, int m, int i)
{
	int j = i + f->k - 1;

	return j < m ? frank[j] - frank[i] : frank[j - m] + f->n - frank[i];
}

/*
 * Minimum span over windows of k consecutive free nodes, frank[0..m-1]
 * being the free ranks. On a ring every window is tried, so the least arc
 * found is the least ring span: a set's ring span is the arc outside its
 * largest gap, and the k consecutive free nodes starting at that arc's
 * beginning lie inside it. Windows are collected as for intervals: the
 * least in order, then (SL) those within the tolerance.
 */
/* Windows per chunk of the least-arc scan. */
#define FIT_CHUNK 512

/*
 * The least arc last[i] + add - frank[i] over windows [from, to), found
 * chunk by chunk with vectors (st_fit_simd.c); then the first window
 * reaching it, searched in the first chunk that did instead of from the
 * start. Returns INT_MAX (and *at = to) when from >= to.
 */
static int _least_window(const int *frank, const int *last, int add,
			 int from, int to, int *at)
{
	const loc_simd_t level = loc__simd_level();
	int best = INT_MAX, bc = to, i;

	for (int c = from; c < to; c += FIT_CHUNK) {
		int a = loc__fit_least_arc(frank, last, add, c,
					   to - c < FIT_CHUNK ? to :
								c + FIT_CHUNK,
					   level);

		if (a < best) {
			best = a;
			bc = c;
		}
	}
	for (i = bc; i < to; i++)
		if (last[i] + add - frank[i] == best)
			break;
	*at = i;
	return best;
}

static void _collect_windows(fit_t *f, const int *frank, int m)
{
	int k = f->k, nlin = m - k + 1, nwin = f->ring ? m : nlin, bi, wi;
	int best;
	double limit;

	/* The linear windows, then (ring) those whose last member wraps:
	 * window nlin + j ends at frank[j] + n. Ties to the first. */
	best = _least_window(frank, frank + k - 1, 0, 0, nlin, &bi);
	if (nwin > nlin &&
	    _least_window(frank + nlin, frank, f->n, 0, nwin - nlin, &wi) <
		    best) {
		bi = nlin + wi;
		best = _arc(f, frank, m, bi);
	}
	for (int i = bi; i < nwin && f->ncand < f->maxcand; i++)
		if (_arc(f, frank, m, i) == best)
			_add(f, i, best + 1);
	limit = (double)(best + 1) +
		loc__policy_sl_tolerance(f->ctx->policy) * fabs((double)(best + 1));
	if (!(limit > (double)(best + 1)))
		return;
	for (int i = 0; i < nwin; i++) {
		int64_t span = _arc(f, frank, m, i) + 1;

		if (span > best + 1 && (double)span <= limit &&
		    !_add(f, i, span))
			break;
	}
}

static int _offer_all(fit_t *f, const int *frank, int m, int *pick)
{
	loc__ctx_t *ctx = f->ctx;

	for (int c = 0; c < f->ncand; c++) {
		int rc;

		if (!((double)f->cost[c] < loc__offer_bound(ctx)))
			continue;
		if (frank) {
			rc = loc__offer_window(ctx, frank, m, f->cand[c], pick,
					       (double)f->cost[c]);
		} else {
			int i = f->cand[c] / 2;
			int s = _ist(f, i) +
				(f->cand[c] % 2 ? _ilen(f, i) - f->k : 0);

			rc = loc__offer_window(ctx, NULL, f->n,
					       s < f->n ? s : s - f->n, pick,
					       (double)f->cost[c]);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* Lengths of equal least cost followed at once; more ties are rare. */
#define FIT_TIED 8

/*
 * Sum of squares without SL alternatives, from the kept interval counts:
 * the least cost over the lengths present (_len_cost() on the counts),
 * then the first interval in rank order of a length with that cost.
 * Returns 1 when no interval holds k (the caller spreads over windows), 2
 * when the counts cannot settle it (too many tied lengths: the caller
 * lists the intervals), else as _offer_all().
 */
static int _sumsq_from_counts(fit_t *f)
{
	const loc__runhist_t *rh = loc__rank_runs(f->ctx);
	int64_t best = INT64_MAX;
	int lens[FIT_TIED], nlens = 0;

	if (!rh)
		return 2;
	for (int len = loc__runhist_next(rh, f->k); len;
	     len = loc__runhist_next(rh, len + 1)) {
		int rest = len - f->k;
		int64_t q = rh->sumsq - 2 * (int64_t)rh->count[len] + 1;

		if (rest > 0)
			q += 2 * (int64_t)rh->count[rest] + 1;
		if (q < best) {
			best = q;
			nlens = 0;
		}
		if (q == best && nlens++ == FIT_TIED)
			return 2;
		if (q == best)
			lens[nlens - 1] = len;
	}
	if (!nlens)
		return 1;
	if (!loc__runhist_first_of(rh, loc__rank_bits(f->ctx), lens, nlens,
				   f->iv))
		return 2;
	f->nint = 1;
	_add_interval(f, 0, best);
	return _offer_all(f, NULL, 0, f->hist);
}

static int _fit_select(loc__ctx_t *ctx, int kind)
{
	int n = ctx->nnodes, *frank, m;
	fit_t f = {
		.ctx = ctx,
		.n = n,
		.k = ctx->k,
		.ring = loc_grid_all_torus(ctx->grid),
		.kind = kind,
		.maxcand = loc_policy_sl(ctx->policy) ? FIT_MAX_OFFERS : 1,
	};

	/* Scratch: iv[n + 1], then hist[n] (sum of squares), which ends up
	 * as the pick: at most 2n + 1 ints. First fit needs the first
	 * interval holding k, best fit each one; sum of squares every
	 * interval, but only when one holds k. */
	f.iv = ctx->scratch;
	f.hist = ctx->scratch + n + 1;
	if (kind == FIT_BEST && f.k == 1) {
		/* An interval of one rank leaves nothing free, so the best
		 * fits are the isolated free ranks, in order; found a word
		 * at a time instead of listing every interval. */
		int cnt = loc__rank_isolated(ctx, f.ring, f.hist, f.maxcand);

		for (int i = 0; i < cnt; i++) {
			f.iv[2 * i] = f.hist[i];
			f.iv[2 * i + 1] = f.hist[i] + 1;
		}
		if ((f.nint = cnt)) {
			_collect_intervals(&f, 3 * n - 1);
			return _offer_all(&f, NULL, 0, f.hist);
		}
	}
	if (kind == FIT_SUMSQ && f.maxcand == 1) {
		int rc = _sumsq_from_counts(&f);

		if (rc != 1 && rc != 2)
			return rc;
		f.nint = 0;
		if (rc == 2)
			f.nint = loc__rank_intervals(ctx, f.ring, f.k, f.iv, 1);
	} else {
		f.nint = loc__rank_intervals(ctx, f.ring, f.k, f.iv,
					     kind == FIT_BEST ? n : 1);
	}
	if (f.nint && kind == FIT_SUMSQ)
		f.nint = loc__rank_intervals(ctx, f.ring, 1, f.iv, n);
	if (f.nint) {
		if (kind == FIT_FIRST)
			_add_interval(&f, 0, 0);
		else
			_collect_intervals(&f, 3 * n - 1);
		return _offer_all(&f, NULL, 0, f.hist);
	}

	/* No interval holds k: free ranks at scratch[0..m), pick after. */
	frank = ctx->scratch;
	m = loc__bits_ones(loc__rank_bits(ctx), 0, n, frank, n);
	if (m < f.k)
		return LOC_ENOFIT;
	/* All free nodes: a single set whatever the window. */
	if (m == f.k) {
		_add(&f, 0, 0);
		return _offer_all(&f, frank, m, frank + m);
	}
	_collect_windows(&f, frank, m);
	return _offer_all(&f, frank, m, frank + m);
}

static int _firstfit_select(loc__ctx_t *ctx)
{
	return _fit_select(ctx, FIT_FIRST);
}

static int _bestfit_select(loc__ctx_t *ctx)
{
	return _fit_select(ctx, FIT_BEST);
}

static int _sumsquares_select(loc__ctx_t *ctx)
{
	return _fit_select(ctx, FIT_SUMSQ);
}

const loc__strategy_ops_t loc__st_firstfit = {
	.name = "firstfit",
	.select = _firstfit_select,
};

const loc__strategy_ops_t loc__st_bestfit = {
	.name = "bestfit",
	.select = _bestfit_select,
};

const loc__strategy_ops_t loc__st_sumsquares = {
	.name = "sumsquares",
	.select = _sumsquares_select,
	.interval_counts = true,
};
