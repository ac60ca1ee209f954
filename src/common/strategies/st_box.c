/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_box.c - contiguous boxes, least-blocking choice (seed 004: Tang,
 * Lan, Desai, Buettner, Yu, "Reducing fragmentation on torus-connected
 * supercomputers", sec. II-B: the partitioned-torus model of Blue Gene
 * and Cobalt's minimum partition blocking scheme).
 *
 * A job gets an axis-aligned sub-box of points (wrapping on torus
 * dimensions) of exactly ceil(k / NodesPerPoint) points holding at least
 * k candidate nodes; with one node per point that is a box of k free
 * points. Nodes are taken point by point in the box's row-major order,
 * candidate nodes of a point in ascending order, so with several nodes
 * per point only the last point may be partly used (and a box may reuse
 * the spare nodes of a partly used point).
 *
 * Which box:
 *  1. The most compact shapes first: shapes are ordered by the total
 *     pairwise hop distance of a full box of that shape (near-cubic
 *     first, torus-aware), and only the BOX_MAX_SHAPES most compact
 *     factorisations of the point count are tried.
 *  2. Among positions of equally compact shapes, the least-blocking one.
 *     Cobalt "selects the smallest partition that can accommodate the job
 *     and consumes the fewest additional new resources"; the paper's
 *     example prefers the two-midplane placements that do not fragment a
 *     free 1x1x4 block. We measure that directly: the number of free
 *     boxes the placement would destroy (overlap), counted over the
 *     equally compact shapes of the job's own size and the most compact
 *     shapes of twice its size. Fewer destroyed boxes is better, which
 *     also pushes small jobs into holes and against busy nodes.
 *  3. Ties are all offered (in shape, then row-major origin order) so
 *     the SL walltime tie-break has the equivalent candidates of seed
 *     004 Algorithm 1 to choose from.
 *
 * Cost = pair hops of the shape + destroyed / (max possible + 1), so
 * compactness dominates and blocking breaks its ties.
 *
 * Box tests are O(1): prefix sums over the candidate counts on a grid
 * extended to twice the length of each torus dimension, so a wrapping
 * box is one rectangle in it (the workspace and its tables are in
 * st_box_ws.c, shared through st_box.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
#include "loc_offer.h"
#include "loc_strategy_ops.h"
#include "st_box.h"
#include "st_contiguous.h"

static int _box_init(const loc_grid_t *grid, const loc_curve_t *curve,
		     const loc_policy_t *policy, void **state,
		     loc_error_t *err)
{
	(void)curve;
	(void)policy;
	*state = loc__box_ws_create(grid);
	if (!*state)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0,
				     "out of memory building box tables");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Shapes                                                              */
/* ------------------------------------------------------------------ */

/* Total pairwise hops of a full box of points of extents e. */
static double _shape_pair_hops(const box_ws_t *w, const int *e)
{
	double vol = 1, total = 0;

	for (int d = 0; d < w->nd; d++)
		vol *= e[d];
	for (int d = 0; d < w->nd; d++) {
		double line = 0, rows = vol / e[d];

		for (int g = 1; g < e[d]; g++) {
			int h = g;

			if (w->torus[d] && w->dims[d] - g < h)
				h = w->dims[d] - g;
			line += (double)(e[d] - g) * h;
		}
		total += rows * rows * line;
	}
	return total;
}

static bool _shape_before(const box_ws_t *w, const box_shape_t *a,
			  const box_shape_t *b)
{
	if (a->pair_hops != b->pair_hops)
		return a->pair_hops < b->pair_hops;
	for (int d = 0; d < w->nd; d++)
		if (a->e[d] != b->e[d])
			return a->e[d] > b->e[d];
	return false;
}

/* Keeps the `max` best shapes in out[0..*n) sorted. */
static void _keep_shape(const box_ws_t *w, const int *e, box_shape_t *out,
			int *n, int max)
{
	box_shape_t s;
	int pos;

	memset(&s, 0, sizeof(s));
	memcpy(s.e, e, sizeof(int) * w->nd);
	s.pair_hops = _shape_pair_hops(w, e);
	if (*n == max && !_shape_before(w, &s, &out[max - 1]))
		return;
	pos = *n < max ? (*n)++ : max - 1;
	while (pos > 0 && _shape_before(w, &s, &out[pos - 1])) {
		out[pos] = out[pos - 1];
		pos--;
	}
	out[pos] = s;
}

/* Enumerates the factorisations of vol into extents fitting the grid. */
static void _shapes(const box_ws_t *w, int d, long long vol, int *e,
		    box_shape_t *out, int *n, int max)
{
	if (d == w->nd - 1) {
		if (vol <= w->dims[d]) {
			e[d] = (int)vol;
			_keep_shape(w, e, out, n, max);
		}
		return;
	}
	for (int x = 1; x <= w->dims[d] && x <= vol; x++) {
		if (vol % x)
			continue;
		e[d] = x;
		_shapes(w, d + 1, vol / x, e, out, n, max);
	}
}

/* ------------------------------------------------------------------ */
/* Placements                                                          */
/* ------------------------------------------------------------------ */

/* Origins per dimension for extent e: every position on a torus (one
 * when the box spans the ring), L - e + 1 on a mesh. */
static int _norigins(const box_ws_t *w, int d, int e)
{
	if (e > w->dims[d])
		return 0;
	if (w->torus[d])
		return e == w->dims[d] ? 1 : w->dims[d];
	return w->dims[d] - e + 1;
}

/* Advances counter c[0..n) (last fastest) below limits; returns false
 * after the last value. */
static bool _odometer(int *c, const int *limit, int n)
{
	int d = n - 1;

	while (d >= 0 && ++c[d] == limit[d])
		c[d--] = 0;
	return d >= 0;
}

/* Marks in fl[] (per origin point) the origins of shape e whose box
 * holds at least `need` candidates; returns how many. If list is not
 * NULL, appends tag + origin for each. The 2^nd corner offsets of the
 * box in the prefix array are fixed per shape, so each origin costs
 * 2^nd loads. */
static int _scan(const box_ws_t *w, const int *e, int need, uint8_t *fl,
		 int *list, int *nlist, int tag)
{
	int no[LOC_MAX_DIMS], o[LOC_MAX_DIMS] = { 0 }, hits = 0;
	int ncorner = 1 << w->nd, last = w->nd - 1;
	ptrdiff_t off[1 << LOC_MAX_DIMS];
	int sign[1 << LOC_MAX_DIMS];
	const int *pre = w->pre;

	for (int d = 0; d < w->nd; d++) {
		no[d] = _norigins(w, d, e[d]);
		if (!no[d])
			return 0;
	}
	for (int m = 0; m < ncorner; m++) {
		int neg = 0;

		off[m] = 0;
		for (int d = 0; d < w->nd; d++) {
			if (m >> d & 1)
				off[m] += (ptrdiff_t)e[d] * w->pstride[d];
			else
				neg ^= 1;
		}
		sign[m] = neg ? -1 : 1;
	}
	for (;;) {
		ptrdiff_t base = 0;
		int point = 0;

		for (int d = 0; d < last; d++) {
			base += (ptrdiff_t)o[d] * w->pstride[d];
			point += o[d] * w->stride[d];
		}
		/* One row along the last dimension (pstride and stride 1). */
		for (int x = 0; x < no[last]; x++) {
			const int *at = pre + base + x;
			int sum = 0;

			for (int m = 0; m < ncorner; m++)
				sum += sign[m] * at[off[m]];
			if (sum >= need) {
				if (fl)
					fl[point + x] = 1;
				if (list)
					list[(*nlist)++] = tag + point + x;
				hits++;
			}
		}
		if (!_odometer(o, no, last))
			break;
	}
	return hits;
}

/* Number of valid origins of shape e (its possible boxes). */
static long long _count_origins(const box_ws_t *w, const int *e)
{
	long long n = 1;

	for (int d = 0; d < w->nd; d++)
		n *= _norigins(w, d, e[d]);
	return n;
}

/* Adds to acc[] the number of free boxes of shape r (free origins in
 * rpre) overlapping each listed placement: the free origins in the range
 * [o - E + 1, o + e - 1] of each dimension (cyclic on a torus, clipped
 * to the valid origins on a mesh). Unclipped ranges share fixed corner
 * offsets per chunk shape. */
static void _add_blocked(box_ws_t *w, const int *r, int nlist,
			 const box_shape_t *chunk, int nchunk)
{
	int ncorner = 1 << w->nd;
	int full[BOX_CHUNK][LOC_MAX_DIMS];
	ptrdiff_t off[BOX_CHUNK][1 << LOC_MAX_DIMS];
	int sign[1 << LOC_MAX_DIMS];

	for (int m = 0; m < ncorner; m++)
		sign[m] = (w->nd - __builtin_popcount(m)) & 1 ? -1 : 1;
	for (int s = 0; s < nchunk; s++) {
		for (int d = 0; d < w->nd; d++) {
			full[s][d] = chunk[s].e[d] + r[d] - 1;
			if (w->torus[d] && full[s][d] > w->dims[d])
				full[s][d] = w->dims[d];
		}
		for (int m = 0; m < ncorner; m++) {
			off[s][m] = 0;
			for (int d = 0; d < w->nd; d++)
				if (m >> d & 1)
					off[s][m] += (ptrdiff_t)full[s][d] *
						     w->pstride[d];
		}
	}
	for (int i = 0; i < nlist; i++) {
		int tag = w->list[i], s = tag / w->npoints;
		const int *oc = w->coord + (tag % w->npoints) * w->nd;
		int lo[LOC_MAX_DIMS], len[LOC_MAX_DIMS];
		bool clipped = false;
		ptrdiff_t base = 0;

		for (int d = 0; d < w->nd; d++) {
			int L = w->dims[d], o = oc[d];
			int e = chunk[s].e[d], E = r[d];

			if (w->torus[d]) {
				lo[d] = o - E + 1;
				if (lo[d] < 0)
					lo[d] += L;
				len[d] = full[s][d];
			} else {
				int a = o - E + 1 > 0 ? o - E + 1 : 0;
				int b = o + e - 1 < L - E ? o + e - 1 : L - E;

				if (b < a)
					goto next;
				lo[d] = a;
				len[d] = b - a + 1;
				clipped |= len[d] != full[s][d];
			}
			base += (ptrdiff_t)lo[d] * w->pstride[d];
		}
		if (clipped) {
			w->acc[tag] += loc__box_query(w, w->rpre, lo, len);
		} else {
			const int *at = w->rpre + base;
			int sum = 0;

			for (int m = 0; m < ncorner; m++)
				sum += sign[m] * at[off[s][m]];
			w->acc[tag] += sum;
		}
next:;
	}
}

/* Prepares rpre for blocker shape r: origins whose box holds need. */
static void _blocker(box_ws_t *w, const int *r, int need)
{
	memset(w->rfree, 0, w->npoints);
	_scan(w, r, need, w->rfree, NULL, NULL, 0);
	loc__box_prefix(w, NULL, w->rfree, w->rpre);
}

/* Builds the node list of a placement; returns how many (== k). */
static int _placement_nodes(box_ws_t *w, const loc__ctx_t *ctx,
			    const int *e, int origin)
{
	int o[LOC_MAX_DIMS], i[LOC_MAX_DIMS] = { 0 }, n = 0;

	for (int d = 0; d < w->nd; d++)
		o[d] = w->coord[origin * w->nd + d];
	while (n < ctx->k) {
		const int *nodes;
		int point = 0, cnt;

		for (int d = 0; d < w->nd; d++)
			point += ((o[d] + i[d]) % w->dims[d]) * w->stride[d];
		cnt = loc_grid_point_nodes(w->grid, point, &nodes);
		for (int j = 0; j < cnt && n < ctx->k; j++)
			if (ctx->free[nodes[j]])
				w->nodes[n++] = nodes[j];
		if (!_odometer(i, e, w->nd))
			break;
	}
	return n;
}

/*
 * Scores and offers the feasible placements of chunk shapes: destroyed
 * boxes of the blocker shapes, then offers in increasing cost (stable in
 * scan order) while an offer can still be kept.
 */
static int _offer_chunk(box_ws_t *w, loc__ctx_t *ctx,
			const box_shape_t *chunk, int nchunk, int nlist,
			const box_shape_t *ref, const int *ref_need, int nref,
			double scale)
{
	int maxd = 0;

	for (int i = 0; i < nlist; i++)
		w->acc[w->list[i]] = 0;
	for (int j = 0; j < nref; j++) {
		_blocker(w, ref[j].e, ref_need[j]);
		_add_blocked(w, ref[j].e, nlist, chunk, nchunk);
	}
	for (int i = 0; i < nlist; i++)
		if (w->acc[w->list[i]] > maxd)
			maxd = w->acc[w->list[i]];
	if (maxd + 2 > w->nbucket)
		return LOC_EINVAL;
	memset(w->bucket, 0, sizeof(int) * (maxd + 2));
	for (int i = 0; i < nlist; i++)
		w->bucket[w->acc[w->list[i]] + 1]++;
	for (int b = 1; b <= maxd + 1; b++)
		w->bucket[b] += w->bucket[b - 1];
	for (int i = 0; i < nlist; i++)
		w->sorted[w->bucket[w->acc[w->list[i]]]++] = w->list[i];

	for (int i = 0; i < nlist; i++) {
		int tag = w->sorted[i];
		const box_shape_t *s = &chunk[tag / w->npoints];
		double cost = s->pair_hops + w->acc[tag] / scale;
		int rc;

		if (!(cost < loc__offer_bound(ctx)))
			break;
		if (_placement_nodes(w, ctx, s->e, tag % w->npoints) != ctx->k)
			return LOC_EINVAL;
		rc = loc__offer(ctx, w->nodes, cost);
		if (rc)
			return rc;
	}
	return 0;
}

static int _offer_all(box_ws_t *w, loc__ctx_t *ctx)
{
	int e[LOC_MAX_DIMS], p = (ctx->k + w->npp - 1) / w->npp, offered = 0;

	if (p > w->npoints)
		return LOC_ENOFIT;
	for (int v = 0; v < w->npoints; v++)
		w->cnt[v] = 0;
	for (int v = 0; v < ctx->nnodes; v++)
		if (ctx->free[v])
			w->cnt[loc_grid_node_point(w->grid, v)]++;
	loc__box_prefix(w, w->cnt, NULL, w->pre);

	w->nshapes = 0;
	_shapes(w, 0, p, e, w->shape, &w->nshapes, BOX_MAX_SHAPES);
	/* Blockers of twice the size: only the most compact ones. */
	{
		box_shape_t tmp[BOX_MAX_SHAPES];
		int n = 0;

		w->ndbl = 0;
		if (2LL * p <= w->npoints)
			_shapes(w, 0, 2LL * p, e, tmp, &n, BOX_MAX_SHAPES);
		for (int i = 0; i < n && w->ndbl < BOX_DOUBLE_REF &&
				tmp[i].pair_hops == tmp[0].pair_hops;
		     i++)
			w->dbl[w->ndbl++] = tmp[i];
	}

	for (int g0 = 0, g1; g0 < w->nshapes; g0 = g1) {
		box_shape_t ref[BOX_MAX_REF];
		int ref_need[BOX_MAX_REF], nref = 0;
		double scale = 1;

		if (!(w->shape[g0].pair_hops < loc__offer_bound(ctx)))
			break;
		g1 = g0 + 1;
		while (g1 < w->nshapes &&
		       w->shape[g1].pair_hops == w->shape[g0].pair_hops)
			g1++;
		/* Blockers: this group's first shapes and the doubles. */
		for (int i = g0; i < g1 && nref < BOX_GROUP_REF; i++) {
			ref_need[nref] = ctx->k;
			ref[nref++] = w->shape[i];
		}
		for (int i = 0; i < w->ndbl; i++) {
			ref_need[nref] = 2 * ctx->k;
			ref[nref++] = w->dbl[i];
		}
		for (int j = 0; j < nref; j++)
			scale += (double)_count_origins(w, ref[j].e);

		for (int c0 = g0; c0 < g1; c0 += BOX_CHUNK) {
			int nc = g1 - c0 < BOX_CHUNK ? g1 - c0 : BOX_CHUNK;
			int nlist = 0, rc;

			for (int s = 0; s < nc; s++)
				_scan(w, w->shape[c0 + s].e, ctx->k, NULL,
				      w->list, &nlist, s * w->npoints);
			if (!nlist)
				continue;
			offered += nlist;
			rc = _offer_chunk(w, ctx, w->shape + c0, nc, nlist, ref,
					  ref_need, nref, scale);
			if (rc)
				return rc;
		}
	}
	return offered ? 0 : LOC_ENOFIT;
}

int loc__box_offer_all(loc__ctx_t *ctx)
{
	box_ws_t *w;
	int rc;

	/* The box strategy built its tables at create time; contiguous
	 * mode under another strategy builds them for this call only
	 * (it falls back to boxes only when no curve interval fits). */
	if (ctx->policy->strategy == LOC_STRATEGY_BOX && ctx->state)
		return _offer_all(ctx->state, ctx);
	w = loc__box_ws_create(ctx->grid);
	if (!w)
		return LOC_ENOMEM;
	rc = _offer_all(w, ctx);
	loc__box_ws_destroy(w);
	return rc;
}

static int _box_select(loc__ctx_t *ctx)
{
	box_ws_t *w = ctx->state;

	/* One node: per-point counts kept between decisions instead of
	 * the tables. */
	if (ctx->k == 1 && loc__fast_one && w)
		return loc__box_index_one(&w->one, ctx, w->cnt, w->acc);
	return loc__box_offer_all(ctx);
}

const loc__strategy_ops_t loc__st_box = {
	.name = "box",
	.select = _box_select,
	.init = _box_init,
	.fini = loc__box_ws_destroy,
};
