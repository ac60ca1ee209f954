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
 */
#include <math.h>
#include <string.h>

#include "loc_strategy_internal.h"

/* Offers per call: enough alternatives for SL, bounded work. */
#define FIT_MAX_OFFERS 32

enum { FIT_FIRST, FIT_BEST, FIT_SUMSQ };

typedef struct fit {
	loc__ctx_t *ctx;
	const int *order;   /* rank -> node */
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

/*
 * The runs of free ranks: iv[2i] and iv[2i+1] are the start and end
 * (exclusive) of run i. ford[n] is scratch for the free map in rank
 * order, scanned eight ranks at a time for transitions: the map of a busy
 * machine is close to random, so per-rank branches would mispredict.
 * Returns the number of runs (at most (n+1)/2).
 */
static int _free_runs(const uint8_t *fr, const int *order, int n,
		      uint8_t *ford, int *iv)
{
	uint64_t carry = 0;
	int ne = 0;

	for (int r = 0; r < n; r++)
		ford[r] = fr[order[r]];
	for (int r = 0; r < n; r += 8) {
		uint64_t w = 0, t;

		/* Rank r + j in byte j; bytes past n are 0, which closes a
		 * run ending at n. */
		if (r + 8 <= n) {
			memcpy(&w, ford + r, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			w = __builtin_bswap64(w);
#endif
		} else {
			for (int j = 0; r + j < n; j++)
				w |= (uint64_t)ford[r + j] << (8 * j);
		}
		/* A byte of t is set where the map changes. */
		t = w ^ ((w << 8) | carry);
		carry = w >> 56;
		while (t) {
			iv[ne++] = r + (__builtin_ctzll(t) >> 3);
			t &= t - 1;
		}
	}
	if (ne % 2)
		iv[ne++] = n;
	return ne / 2;
}

/* Lists the free intervals; on a ring the runs at both ends join. */
static void _build_intervals(fit_t *f)
{
	f->nint = _free_runs(f->ctx->free, f->order, f->n,
			     (uint8_t *)f->hist, f->iv);
	if (f->ring && f->nint >= 2 && f->iv[0] == 0 &&
	    f->iv[2 * f->nint - 1] == f->n) {
		f->iv[2 * f->nint - 1] = f->n + f->iv[1];
		f->iv += 2;
		f->nint--;
	}
}

static void _build_histogram(fit_t *f)
{
	int maxlen = 0;

	for (int i = 0; i < f->nint; i++)
		if (_ilen(f, i) > maxlen)
			maxlen = _ilen(f, i);
	for (int s = 0; s < maxlen; s++)
		f->hist[s] = 0;
	for (int i = 0; i < f->nint; i++)
		f->hist[_ilen(f, i) - 1]++;
	f->sumsq = 0;
	for (int s = 0; s < maxlen; s++)
		f->sumsq += (int64_t)f->hist[s] * f->hist[s];
}

/* Best fit or sum of squares cost of interval i (len >= k). */
static int64_t _interval_cost(const fit_t *f, int i)
{
	int len = _ilen(f, i), rest = len - f->k;
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

/* Adds interval i's placements: first k nodes, then (if different) last k. */
static bool _add_interval(fit_t *f, int i, int64_t cost)
{
	if (!_add(f, 2 * i, cost))
		return false;
	return _ilen(f, i) == f->k || _add(f, 2 * i + 1, cost);
}

/* Best fit / sum of squares: collects the least-cost intervals, then
 * (SL tolerance) the near ones. Returns false when no interval holds k. */
static bool _collect_intervals(fit_t *f)
{
	int64_t best = INT64_MAX;
	int first = -1, bi = -1;
	double limit;

	for (int i = 0; i < f->nint && first < 0; i++)
		if (_ilen(f, i) >= f->k)
			first = i;
	if (first < 0)
		return false;
	if (f->kind == FIT_SUMSQ)
		_build_histogram(f);
	for (int i = first; i < f->nint; i++) {
		int64_t c;

		if (_ilen(f, i) < f->k)
			continue;
		c = _interval_cost(f, i);
		if (c < best) {
			best = c;
			bi = i;
		}
	}
	/* Ties in rank order, then the others within the SL tolerance. */
	for (int i = bi; i < f->nint; i++)
		if (_ilen(f, i) >= f->k && _interval_cost(f, i) == best &&
		    !_add_interval(f, i, best))
			break;
	limit = (double)best +
		_sl_tolerance(f->ctx->policy) * fabs((double)best);
	if (limit > (double)best)
		for (int i = first; i < f->nint; i++) {
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

/*
 * Minimum span over windows of k consecutive free nodes, frank[0..m-1]
 * being the free ranks. On a ring every window is tried, so the least arc
 * found is the least ring span: a set's ring span is the arc outside its
 * largest gap, and the k consecutive free nodes starting at that arc's
 * beginning lie inside it. Windows are collected as for intervals.
 */
static void _collect_windows(fit_t *f, const int *frank, int m)
{
	int k = f->k, nlin = m - k + 1, nwin = f->ring ? m : nlin, bi = 0;
	int64_t best = INT64_MAX;
	double limit = 0.0;

	for (int pass = 0; pass < 3; pass++) {
		for (int i = pass == 1 ? bi : 0; i < nwin; i++) {
			int last = i < nlin ? frank[i + k - 1] :
					      frank[i + k - 1 - m] + f->n;
			int64_t span = last - frank[i] + 1;

			if (pass == 0 && span < best) {
				best = span;
				bi = i;
			} else if (pass == 1 && span == best &&
				   !_add(f, i, span)) {
				break;
			} else if (pass == 2 && span > best &&
				   (double)span <= limit && !_add(f, i, span)) {
				break;
			}
		}
		limit = (double)best +
			_sl_tolerance(f->ctx->policy) * fabs((double)best);
		if (pass == 1 && !(limit > (double)best))
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
			for (int j = 0; j < f->k; j++)
				pick[j] = f->order[frank[(f->cand[c] + j) % m]];
		} else {
			int i = f->cand[c] / 2;
			int s = _ist(f, i) +
				(f->cand[c] % 2 ? _ilen(f, i) - f->k : 0);

			for (int j = 0; j < f->k; j++)
				pick[j] = f->order[(s + j) % f->n];
		}
		rc = loc__offer(ctx, pick, (double)f->cost[c]);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * First fit without listing every interval: stops at the first run of k
 * (on a ring the run at rank 0 belongs to the wrapping interval, which
 * comes last). Stores it as interval 0. Returns false when none holds k.
 */
static bool _first_interval(fit_t *f)
{
	const uint8_t *fr = f->ctx->free;
	int n = f->n, k = f->k, head = 0, r, run = 0, s;
	bool join;

	while (head < n && fr[f->order[head]])
		head++;
	if (head == n) {
		f->iv[0] = 0;
		f->iv[1] = n;
		return n >= k;
	}
	join = f->ring && head && fr[f->order[n - 1]];
	/* Run length so far, without a data-dependent branch. */
	for (r = join ? head : 0; r < n; r++) {
		run = (run + 1) & -(int)fr[f->order[r]];
		if (run >= k)
			break;
	}
	if (r == n) {
		/* The wrapping run may still hold k. */
		if (!join || run + head < k)
			return false;
		f->iv[0] = n - run;
		f->iv[1] = n + head;
		return true;
	}
	s = r - k + 1;
	while (r < n && fr[f->order[r]])
		r++;
	f->iv[0] = s;
	f->iv[1] = r + (r == n && join ? head : 0);
	return true;
}

static int _fit_select(loc__ctx_t *ctx, int kind)
{
	int n = ctx->nnodes, cap = (n + 1) / 2, *frank, m = 0;
	fit_t f = {
		.ctx = ctx,
		.order = loc_curve_order(ctx->curve),
		.n = n,
		.k = ctx->k,
		.ring = _all_torus(ctx->grid),
		.kind = kind,
		.maxcand = _sl_enabled(ctx->policy) ? FIT_MAX_OFFERS : 1,
	};

	/* Scratch: iv[2 * cap], then hist[n], which first holds the free map
	 * in rank order and ends up as the pick: at most 2n + 1 ints. */
	f.iv = ctx->scratch;
	f.hist = ctx->scratch + 2 * cap;
	if (kind == FIT_FIRST) {
		if (_first_interval(&f)) {
			f.nint = 1;
			_add_interval(&f, 0, 0);
			return _offer_all(&f, NULL, 0, f.hist);
		}
	} else {
		_build_intervals(&f);
		if (_collect_intervals(&f))
			return _offer_all(&f, NULL, 0, f.hist);
	}

	/* No interval holds k: free ranks at scratch[0..m), pick after. */
	frank = ctx->scratch;
	for (int r = 0; r < n; r++) {
		frank[m] = r;
		m += ctx->free[f.order[r]];
	}
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
};
