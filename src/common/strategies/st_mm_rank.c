/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm_rank.c - choosing the centres the Manhattan Median family (seed
 * 003, Bender et al., WADS 2005) evaluates exactly. Evaluating every
 * candidate costs O(centres * (walk + k)), too slow on large machines, so
 * they are ranked first and only the best max_centers kept: by their L1
 * star (hops to their k nearest free nodes, a short walk with branch and
 * bound) for small requests, else by their MC1x1 shell cost (table
 * lookups, see st_mc1x1.c), on one candidate per small block when ranking
 * them all would cost too much. Tiny requests are always evaluated in
 * full: ranking would cost as much.
 */
#include <string.h>

#include "loc_ctx.h"
#include "st_mm.h"
#include "st_shells.h"

#define MM_MIN_CENTERS 128         /* default: evaluate at least this many */
#define MM_BUDGET (3L << 18)       /* default: work units per decision */
#define MM_EVAL_FIXED 48           /* work units per centre beyond its walk */
#define MM_EXACT_WALK 16           /* walks this short: evaluate every centre */
#define MM_STAR_WALK 64            /* walks this short: rank by L1 star */
#define MM_RANK_BUDGET (1L << 20)  /* shell ranking: table lookups */

/* Counts the free nodes of every point into st->point_free. Row-major
 * grids sum runs of npp nodes (the last points may have fewer or none),
 * with no division per node. */
static void _mm_count_free(const loc__ctx_t *ctx, loc__mm_t *st)
{
	int *pf = st->point_free, p = 0;

	if (!st->rowmajor) {
		memset(pf, 0, sizeof(int) * st->npoints);
		for (int v = 0; v < ctx->nnodes; v++)
			if (ctx->free[v])
				pf[loc_grid_node_point(ctx->grid, v)]++;
		return;
	}
	if (st->npp == 1) {
		for (; p < ctx->nnodes; p++)
			pf[p] = ctx->free[p];
	} else {
		for (int v = 0; v < ctx->nnodes; p++) {
			int f = 0, end = v + st->npp < ctx->nnodes ?
						 v + st->npp : ctx->nnodes;

			for (; v < end; v++)
				f += ctx->free[v];
			pf[p] = f;
		}
	}
	memset(pf + p, 0, sizeof(int) * (st->npoints - p));
}

/*
 * Marks in st->axis_has each coordinate whose slice across axis d holds
 * a free node. Points are in row-major order, so axis d splits them
 * into outer blocks of len[d] runs of pstride[d] points: each run is
 * OR-ed whole (vector-friendly), with no chain of updates to one flag.
 */
static void _mm_axis_has(loc__mm_t *st)
{
	const int *pf = st->point_free;

	memset(st->axis_has, 0, (size_t)st->nd * st->maxlen);
	for (int d = 0; d < st->nd; d++) {
		uint8_t *has = st->axis_has + (size_t)d * st->maxlen;
		int L = st->len[d], run = st->pstride[d];

		for (int at = 0; at < st->npoints;) {
			for (int c = 0; c < L; c++, at += run) {
				int any = 0;

				for (int i = 0; i < run; i++)
					any |= pf[at + i];
				has[c] |= any != 0;
			}
		}
	}
}

/* Lists the candidate centres in point order; returns their count.
 * Branch-free inner loops: which points are free is data. */
int loc__mm_candidates(loc__ctx_t *ctx, loc__mm_t *st, bool genalg)
{
	int n = 0, *pf = st->point_free, last = st->nd - 1;
	int c[LOC_MAX_DIMS] = { 0 };
	const uint8_t *has_last;

	_mm_count_free(ctx, st);
	if (st->pad) {
		for (int p = 0; p < st->npoints; p++)
			st->pf8[p] = (uint8_t)pf[p];
		loc__mm_fill_pad(st);
	}
	if (genalg) {
		for (int p = 0; p < st->npoints; p++) {
			st->cand[n] = p;
			n += pf[p] != 0;
		}
		return n;
	}
	/* A crossing: every coordinate's slice holds a free node. Rows
	 * along the last axis, the others' coordinates counted along. */
	_mm_axis_has(st);
	has_last = st->axis_has + (size_t)last * st->maxlen;
	for (int p = 0; p < st->npoints; p += st->len[last]) {
		int outer = 1;

		for (int d = 0; d < last; d++)
			outer &= st->axis_has[d * st->maxlen + c[d]];
		for (int x = 0; outer && x < st->len[last]; x++) {
			st->cand[n] = p + x;
			n += has_last[x];
		}
		for (int d = last - 1; d >= 0 && ++c[d] == st->len[d]; d--)
			c[d] = 0;
	}
	return n;
}

/* Points a walk visits: about k / (free nodes per point). */
static double _mm_walk_len(const loc__ctx_t *ctx, const loc__mm_t *st)
{
	return (double)ctx->k * st->npoints / ctx->nfree;
}

/* How many centres to evaluate exactly. */
static int _mm_budget(const loc__ctx_t *ctx, const loc__mm_t *st,
		      int ncand)
{
	double walk = _mm_walk_len(ctx, st);
	long per, m;

	/* Ranking would cost as much as evaluating tiny requests. */
	if (st->max_centers < 0 || walk <= MM_EXACT_WALK)
		return ncand;
	if (st->max_centers > 0)
		return st->max_centers < ncand ? st->max_centers : ncand;
	per = (long)walk + ctx->k + MM_EVAL_FIXED;
	m = MM_BUDGET / per;
	/* The floor gives way only for huge requests (within 4 budgets). */
	if (m < MM_MIN_CENTERS)
		m = 4 * MM_BUDGET / per < MM_MIN_CENTERS ?
			    4 * MM_BUDGET / per + 1 : MM_MIN_CENTERS;
	/* Ranking many costs more than evaluating the rest. */
	return 2 * m < ncand ? (int)m : ncand;
}

/*
 * The L1 star of point: hops from it to its k nearest free nodes, or a
 * value > bound once the rest of the walk cannot bring it under bound.
 * Reads the padded copy when there is one (nd is then unused), sixteen
 * offsets a step with AVX-512, eight with AVX2.
 */
static inline int64_t _mm_star_nd(const loc__mm_t *st, int point, int k,
				  int64_t bound, const int nd)
{
	const int *tab[LOC_MAX_DIMS], *pf = st->point_free;
	const uint8_t *at = NULL;
	int64_t star = 0;
	int need = k, i = 0;

	if (st->pad)
		at = st->pad + loc__mm_pad_at(st, point);
	else
		loc__mm_tabs(st, point, tab);
#if MM_VECTORS
	if (at && st->simd >= LOC_SIMD_AVX512)
		i = loc__mm_star_avx512(st, at, bound, &need, &star);
	else if (at && st->simd >= LOC_SIMD_AVX2)
		i = loc__mm_star_avx2(st, at, bound, &need, &star);
	if (i < 0)
		return star;
#endif
	for (; i < st->noff; i++) {
		int f, take;
		int64_t lb;

		if (at) {
			f = at[st->pad_delta[i]];
		} else {
			int pt = loc__mm_off_point(st, tab, i, nd);

			f = pf[pt < 0 ? st->npoints : pt];
		}
		take = f < need ? f : need;
		star += (int64_t)take * st->off_l1[i];
		need -= take;
		if (!need)
			return star;
		lb = star + (int64_t)need * st->off_l1[i];
		if (lb > bound)
			return lb;
	}
	return star;
}

int64_t loc__mm_star(const loc__mm_t *st, int point, int k, int64_t bound)
{
	switch (st->pad ? 0 : st->nd) {
	case 0:
	case 1:
		return _mm_star_nd(st, point, k, bound, 1);
	case 2:
		return _mm_star_nd(st, point, k, bound, 2);
	case 3:
		return _mm_star_nd(st, point, k, bound, 3);
	default:
		return _mm_star_nd(st, point, k, bound, 4);
	}
}

/* The m candidates with the least L1 star, best first, by a heap (ties:
 * point order): for stars too large to count. Returns how many. */
static int _mm_rank_star_heap(loc__mm_t *st, int k, int ncand, int m)
{
	loc__shell_rank_t *h = st->rank;
	int n = 0;

	for (int i = 0; i < ncand; i++) {
		/* A later candidate must beat the worst kept outright. */
		int64_t bound = n == m ? h[0].cost - 1 : INT64_MAX;
		int64_t star = loc__mm_star(st, st->cand[i], k, bound);

		if (star <= bound)
			loc__shells_rank_push(h, &n, m, star, i);
	}
	loc__shells_rank_sort(h, n);
	for (int i = 0; i < n; i++)
		st->eval[i] = st->cand[h[i].idx];
	return n;
}

/*
 * Stars are small integers, so the m least are selected by counting:
 * every star under the cut is listed (st->rank, in candidate order) and
 * counted (st->star_hist). Once m are listed the cut is the m-th least
 * star; a later candidate must come under it, and each that does may
 * lower it. A counting sort of the list then gives the order (ties:
 * point order). Stars past star_hist_len are not counted: when fewer
 * than m come under it, the heap ranks instead.
 */
int loc__mm_rank_star(loc__mm_t *st, int k, int ncand, int m)
{
	uint32_t *hist = st->star_hist;
	loc__shell_rank_t *list = st->rank;
	int64_t bound = st->star_hist_len - 1;
	int n = 0, cut = -1, under = 0; /* listed, the cut, stars under it */

	if (m <= 0)
		return 0;
	memset(hist, 0, sizeof(*hist) * st->star_hist_len);
	for (int i = 0; i < ncand; i++) {
		int64_t star = loc__mm_star(st, st->cand[i], k, bound);

		if (star > bound)
			continue;
		list[n].cost = star;
		list[n++].idx = i;
		hist[star]++;
		if (cut >= 0) {
			/* star < cut: one more under it */
			if (++under < m)
				continue;
			do
				cut--;
			while (!hist[cut]);
			under -= hist[cut];
		} else if (n == m) {
			for (cut = (int)bound; !hist[cut]; cut--)
				;
			under = m - hist[cut];
		} else {
			continue;
		}
		bound = cut - 1;
	}
	if (cut < 0 && n < ncand)
		return _mm_rank_star_heap(st, k, ncand, m);
	if (cut < 0) { /* m > ncand: every candidate listed */
		for (cut = (int)bound; cut > 0 && !hist[cut]; cut--)
			;
		m = n;
	}
	/* Positions by star; the cut's own take what is left of m. */
	for (int v = 0, at = 0; v <= cut; v++) {
		int c = (int)hist[v];

		hist[v] = (uint32_t)at;
		at += c;
	}
	for (int j = 0; j < n; j++) {
		int64_t v = list[j].cost;
		uint32_t pos;

		if (v > cut)
			continue;
		pos = hist[v]++;
		if (pos < (uint32_t)m)
			st->eval[pos] = st->cand[list[j].idx];
	}
	return m;
}

/*
 * Shell ranking costs about (radius + 1) * 2^ndims lookups per centre.
 * When that exceeds MM_RANK_BUDGET over all candidates, only the first
 * candidate of each t^ndims block is ranked (t at most a quarter of the
 * radius: the shell cost barely changes over such a step). Fills
 * st->thin; returns its length.
 */
static int _mm_thin(const loc__ctx_t *ctx, loc__mm_t *st, int ncand)
{
	double need = _mm_walk_len(ctx, st);
	int s = 0, t = 1, n = 0, nb[LOC_MAX_DIMS];
	uint32_t stamp;

	for (;; s++) {
		double vol = 1;

		for (int d = 0; d < st->nd; d++)
			vol *= 2 * s + 1;
		if (vol >= need)
			break;
	}
	while (4 * (t + 1) <= s) {
		double blocks = ncand;

		for (int d = 0; d < st->nd; d++)
			blocks /= t;
		if (blocks * (s + 1) * (1 << st->nd) <= MM_RANK_BUDGET)
			break;
		t++;
	}
	if (t == 1) {
		memcpy(st->thin, st->cand, sizeof(int) * ncand);
		return ncand;
	}
	if (++st->bstamp == 0) {
		memset(st->block_seen, 0, sizeof(uint32_t) * st->npoints);
		st->bstamp = 1;
	}
	stamp = st->bstamp;
	for (int d = 0; d < st->nd; d++)
		nb[d] = (st->len[d] + t - 1) / t;
	for (int i = 0; i < ncand; i++) {
		const int *c = st->coord + (size_t)st->cand[i] * st->nd;
		int b = 0;

		for (int d = 0; d < st->nd; d++)
			b = b * nb[d] + c[d] / t;
		if (st->block_seen[b] != stamp) {
			st->block_seen[b] = stamp;
			st->thin[n++] = st->cand[i];
		}
	}
	return n;
}

/*
 * Fills st->eval with the centres to evaluate, best first: every
 * candidate in point order when affordable, else the m with the least
 * L1 star when walks are short, or with the least MC1x1 shell cost
 * (ties: point order). Returns how many.
 */
int loc__mm_rank(loc__ctx_t *ctx, loc__mm_t *st, int ncand)
{
	int m = _mm_budget(ctx, st, ncand), n = 0;

	/* k nodes on one point cost 0: nothing else needs a look. */
	for (int i = 0; i < ncand; i++)
		if (st->point_free[st->cand[i]] >= ctx->k)
			st->eval[n++] = st->cand[i];
	if (n)
		return n;
	if (m >= ncand) {
		memcpy(st->eval, st->cand, sizeof(int) * ncand);
		return ncand;
	}
	if (_mm_walk_len(ctx, st) <= MM_STAR_WALK) {
		m = loc__mm_rank_star(st, ctx->k, ncand, m);
	} else {
		int nthin = _mm_thin(ctx, st, ncand);

		loc__shells_load(st->sh, st->point_free);
		m = loc__shells_rank(st->sh, st->thin, nthin, ctx->k, m,
				     st->rank);
		for (int i = 0; i < m; i++)
			st->eval[i] = st->thin[st->rank[i].idx];
	}
	return m;
}
