/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm_inc.c - MM+Inc's local improvement (seed 003, Bender et al.,
 * WADS 2005): starting from the best MM set, swap a chosen node for a
 * nearby free one while that lowers the total pairwise hops.
 */
#include <string.h>

#include "loc_ctx.h"
#include "st_mm.h"

#define MM_INC_MAX_SWAPS 128       /* mm_inc: improving swaps per decision */
#define MM_INC_WORK (1L << 18)     /* mm_inc: and listed nodes * swaps */
#define MM_INC_PAIR_CAP (1L << 14) /* mm_inc: exhaustive pair scan limit */

/* Hops between the coordinates a and b (nd constant in callers). */
static inline int _mm_hops(const loc__mm_t *st, const int *a, const int *b,
			   const int nd)
{
	int h = 0;

	for (int d = 0; d < nd; d++)
		h += st->hop[st->hop_at[d] + a[d] - b[d]];
	return h;
}

/* Hops between listed nodes i and j. */
static int _mm_inc_hops(const loc__mm_t *st, int i, int j)
{
	return _mm_hops(st, st->inc_c + (size_t)i * st->nd,
			st->inc_c + (size_t)j * st->nd, st->nd);
}

/* The chosen node with the largest D and the outsider with the least
 * (first in list order on ties), and those values. */
typedef struct _mm_ends {
	int64_t max_in, min_out;
	int top, low;
} _mm_ends_t;

/* Fills row (per axis, at st->row_at) with the hops from coordinate c. */
static void _mm_row(const loc__mm_t *st, const int *c, int *row)
{
	for (int d = 0; d < st->nd; d++) {
		const int *h = st->hop + st->hop_at[d] - c[d];

		for (int x = 0; x < st->len[d]; x++)
			row[st->row_at[d] + x] = h[x];
	}
}

/* Sum over the axes of row at listed node i's coordinates. */
static inline int _mm_row_sum(const loc__mm_t *st, const int *row, int i,
			      const int nd)
{
	const int *x = st->inc_x + (size_t)i * nd;
	int h = row[x[0]];

	for (int d = 1; d < nd; d++)
		h += row[x[d]];
	return h;
}

/*
 * After swapping u out and v in: D(x) += hops(x, v) - hops(x, u), from
 * one per-axis row of those changes; finds the next round's ends on the
 * way (same order and ties as a separate pass).
 */
static inline void _mm_inc_update_nd(loc__mm_t *st, int n, int u, int v,
				     _mm_ends_t *e, const int nd)
{
	const int *cu = st->inc_c + (size_t)u * nd;
	const int *cv = st->inc_c + (size_t)v * nd;
	const uint8_t *in = st->inc_in;
	int *dd = st->inc_row;
	int64_t max_in = INT64_MIN, min_out = INT64_MAX;
	int top = -1, low = -1;

	for (int d = 0; d < nd; d++) {
		const int *hv = st->hop + st->hop_at[d] - cv[d];
		const int *hu = st->hop + st->hop_at[d] - cu[d];

		for (int x = 0; x < st->len[d]; x++)
			dd[st->row_at[d] + x] = hv[x] - hu[x];
	}
	for (int i = 0; i < n; i++) {
		int64_t di = st->inc_d[i] + _mm_row_sum(st, dd, i, nd);

		st->inc_d[i] = di;
		if (in[i] && di > max_in) {
			max_in = di;
			top = i;
		} else if (!in[i] && di < min_out) {
			min_out = di;
			low = i;
		}
	}
	e->max_in = max_in;
	e->min_out = min_out;
	e->top = top;
	e->low = low;
}

static void _mm_inc_update(loc__mm_t *st, int n, int u, int v, _mm_ends_t *e)
{
	switch (st->nd) {
	case 1:
		_mm_inc_update_nd(st, n, u, v, e, 1);
		break;
	case 2:
		_mm_inc_update_nd(st, n, u, v, e, 2);
		break;
	case 3:
		_mm_inc_update_nd(st, n, u, v, e, 3);
		break;
	default:
		_mm_inc_update_nd(st, n, u, v, e, 4);
		break;
	}
}

/*
 * phi[x] = sum over counts cnt[y] of the axis hops from x to y, for every
 * x, in O(L) with prefix sums over the axis unrolled twice.
 */
static void _axis_phi(loc__mm_t *st, const int64_t *cnt, int L, bool torus,
		      int64_t *phi)
{
	int64_t *pc = st->pre, *ps = st->pre + 2 * L + 1;
	int half = L / 2;

	pc[0] = ps[0] = 0;
	for (int j = 0; j < 2 * L; j++) {
		int64_t c = cnt[j % L];

		pc[j + 1] = pc[j] + c;
		ps[j + 1] = ps[j] + c * j;
	}
	for (int x = 0; x < L; x++) {
		if (!torus) {
			/* Left of x: x - y; right of x: y - x. */
			phi[x] = x * pc[x] - ps[x] + (ps[L] - ps[x + 1]) -
				 x * (pc[L] - pc[x + 1]);
			continue;
		}
		/* Forward 1..half hops, then backward for the rest. */
		phi[x] = (ps[x + half + 1] - ps[x + 1]) -
			 x * (pc[x + half + 1] - pc[x + 1]) +
			 (int64_t)(L + x) * (pc[x + L] - pc[x + half + 1]) -
			 (ps[x + L] - ps[x + half + 1]);
	}
}

typedef struct _mm_swap {
	int64_t gain;
	int u, v;
} _mm_swap_t;

/* As _mm_try, with hops(u, v) from row (hops from u, or from v). */
static inline void _mm_try_row(const loc__mm_t *st, int u, int v, int j,
			       const int *row, _mm_swap_t *sw)
{
	int64_t g = st->inc_d[u] - st->inc_d[v] +
		    _mm_row_sum(st, row, j, st->nd);

	if (g > sw->gain) {
		sw->gain = g;
		sw->u = u;
		sw->v = v;
	}
}

/* Keeps swapping u out for v if it gains more than the best so far. */
static void _mm_try(const loc__mm_t *st, int u, int v, _mm_swap_t *sw)
{
	int64_t g = st->inc_d[u] - st->inc_d[v] +
		    _mm_inc_hops(st, u, v);

	if (g > sw->gain) {
		sw->gain = g;
		sw->u = u;
		sw->v = v;
	}
}

/*
 * Improves the set the last walk found (from centre, with cost): free
 * nodes within L1 radius + 1 of the centre are the candidates to swap in.
 * Each round applies the swap that lowers the total most (over every
 * pair that can gain, or, past MM_INC_PAIR_CAP pairs, the worst chosen
 * node against every outsider and the best outsider against every chosen
 * one), until none gains or the swap and work limits are reached. Writes
 * the result to st->nodes; returns its cost.
 */
int64_t loc__mm_improve(loc__ctx_t *ctx, loc__mm_t *st, int centre,
			int64_t cost)
{
	const int *tab[LOC_MAX_DIMS];
	int r = st->radius + 1 > st->maxrad ? st->maxrad : st->radius + 1;
	int n = 0, k = ctx->k, reach = 2 * r;
	uint32_t stamp;
	_mm_ends_t e;

	if (++st->stamp == 0) {
		memset(st->mark, 0, sizeof(uint32_t) * st->nnodes);
		st->stamp = 1;
	}
	stamp = st->stamp;
	loc__mm_walk_nodes(ctx, st);
	for (int i = 0; i < k; i++)
		st->mark[st->nodes[i]] = stamp;
	/* Chosen nodes and their free neighbourhood, in walk order. */
	loc__mm_tabs(st, centre, tab);
	for (int i = 0; i < st->rad_end[r]; i++) {
		int pt = loc__mm_off_point(st, tab, i, st->nd), m;
		const int *pn;

		if (pt < 0 || !st->point_free[pt])
			continue;
		m = loc_grid_point_nodes(ctx->grid, pt, &pn);
		for (int j = 0; j < m; j++) {
			if (!ctx->free[pn[j]])
				continue;
			st->inc_node[n] = pn[j];
			st->inc_pt[n] = pt;
			memcpy(st->inc_c + (size_t)n * st->nd,
			       st->coord + (size_t)pt * st->nd,
			       sizeof(int) * st->nd);
			st->inc_in[n++] = st->mark[pn[j]] == stamp;
		}
	}
	/* Hops from every listed node to the chosen set, per axis. */
	for (int i = 0; i < n; i++)
		st->inc_d[i] = 0;
	for (int d = 0; d < st->nd; d++) {
		int64_t *phi = st->phi + (size_t)d * st->maxlen;

		memset(st->hist, 0, sizeof(int64_t) * st->len[d]);
		for (int i = 0; i < n; i++)
			if (st->inc_in[i])
				st->hist[st->coord[(size_t)st->inc_pt[i] *
						   st->nd + d]]++;
		_axis_phi(st, st->hist, st->len[d], st->torus[d], phi);
		for (int i = 0; i < n; i++)
			st->inc_d[i] += phi[st->coord[(size_t)st->inc_pt[i] *
						      st->nd + d]];
	}
	/* Row coordinates, and the first round's ends. */
	e.max_in = INT64_MIN;
	e.min_out = INT64_MAX;
	e.top = e.low = -1;
	for (int i = 0; i < n; i++) {
		const int *c = st->coord + (size_t)st->inc_pt[i] * st->nd;

		for (int d = 0; d < st->nd; d++)
			st->inc_x[(size_t)i * st->nd + d] = st->row_at[d] + c[d];
		if (st->inc_in[i] && st->inc_d[i] > e.max_in) {
			e.max_in = st->inc_d[i];
			e.top = i;
		} else if (!st->inc_in[i] && st->inc_d[i] < e.min_out) {
			e.min_out = st->inc_d[i];
			e.low = i;
		}
	}
	for (int round = 0;
	     round < MM_INC_MAX_SWAPS &&
	     (round < 8 || (long)round * n < MM_INC_WORK);
	     round++) {
		int64_t max_in = e.max_in, min_out = e.min_out;
		int nu = 0, nv = 0, top = e.top, low = e.low;
		_mm_swap_t sw = { .gain = 0, .u = -1, .v = -1 };

		/* Swapping u out and v in gains D(u) - D(v) + hops(u, v),
		 * and hops(u, v) <= reach. */
		if (low < 0 || max_in - min_out + reach <= 0)
			break;
		/* Branch-free: which side a node falls on is data. */
		for (int i = 0; i < n; i++) {
			int in = st->inc_in[i];
			int64_t di = st->inc_d[i];

			st->inc_u[nu] = i;
			st->inc_v[nv] = i;
			nu += in & (di > min_out - reach);
			nv += !in & (di < max_in + reach);
		}
		if ((long)nu * nv > MM_INC_PAIR_CAP) {
			/* Too many pairs: the worst chosen node against every
			 * outsider, the best outsider against every chosen. */
			int *row = st->inc_row + st->nd * st->maxlen;

			_mm_row(st, st->inc_c + (size_t)top * st->nd, row);
			for (int j = 0; j < nv; j++)
				_mm_try_row(st, top, st->inc_v[j],
					    st->inc_v[j], row, &sw);
			_mm_row(st, st->inc_c + (size_t)low * st->nd, row);
			for (int j = 0; j < nu; j++)
				_mm_try_row(st, st->inc_u[j], low,
					    st->inc_u[j], row, &sw);
		} else {
			for (int i = 0; i < nu; i++)
				for (int j = 0; j < nv; j++)
					_mm_try(st, st->inc_u[i], st->inc_v[j],
						&sw);
		}
		if (sw.gain <= 0)
			break;
		cost -= sw.gain;
		st->inc_in[sw.u] = 0;
		st->inc_in[sw.v] = 1;
		_mm_inc_update(st, n, sw.u, sw.v, &e);
	}
	for (int i = 0, m = 0; i < n; i++)
		if (st->inc_in[i])
			st->nodes[m++] = st->inc_node[i];
	return cost;
}
