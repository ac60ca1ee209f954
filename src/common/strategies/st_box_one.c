/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_box_one.c - one-node requests of the box strategy (seed 004, Tang
 * et al.; see st_box.c) without its prefix-sum tables.
 *
 * For k = 1 the only shape is the single point (pair hops 0) and every
 * point holding a candidate is a placement. Its blocking count is the
 * free boxes it would destroy: its own single-point box (always 1) plus,
 * for the blocker shapes of twice its size (the dominoes along the first
 * three dimensions longer than 1, all equally compact), the dominoes
 * holding two candidates that contain the point: those at origins o - 1
 * and o along the dimension (one origin on a torus of length 2, origins
 * 0 .. L - 2 on a mesh). The offers are the points in increasing count,
 * then point order, each with its lowest candidate node, at cost
 * count / scale with st_box.c's scale (1 + every blocker box position).
 * That is what st_box.c computes through its tables for the same
 * request, in O(nnodes + npoints * ndims) here instead of several
 * O(npoints * 2^ndims) table passes (about 0.35 ms instead of 4 ms on
 * 32,768 nodes: still a pass over the machine, as the least count is a
 * global minimum); test_loc_strategy_one compares the two.
 *
 * This full pass also builds st_box_index.c's index, which keeps the
 * counts between decisions and updates them point by point.
 */
#include <string.h>

#include "loc_ctx.h"
#include "loc_offer.h"
#include "st_one.h"

/* Box positions along a dimension of length L for extent e (e <= L). */
static long long _norigins(int L, bool torus, int e)
{
	if (torus)
		return e == L ? 1 : L;
	return L - e + 1;
}

void loc__box_one_geo(const loc_grid_t *grid, loc__box_one_geo_t *geo)
{
	const loc_shape_t *sh = loc_grid_shape(grid);
	int nd = sh->ndims, np = loc_grid_npoints(grid);
	bool torus[LOC_MAX_DIMS];

	memset(geo, 0, sizeof(*geo));
	for (int d = nd - 1, s = 1; d >= 0; d--) {
		geo->stride[d] = s;
		s *= sh->dims[d];
		torus[d] = sh->torus[d] && sh->dims[d] > 1;
	}
	if (np >= 2)
		for (int d = 0; d < nd && geo->ndom < LOC__BOX_ONE_DOMINOES;
		     d++)
			if (sh->dims[d] >= 2) {
				int j = geo->ndom++;

				geo->dom[j] = d;
				geo->len[j] = sh->dims[d];
				geo->dstride[j] = geo->stride[d];
				geo->torus[j] = torus[d];
			}
	/* The scale: 1 + the positions of every blocker shape. */
	geo->scale = 1 + (double)np;
	for (int j = 0; j < geo->ndom; j++) {
		long long n = 1;

		for (int d = 0; d < nd; d++)
			n *= d == geo->dom[j] ?
				     _norigins(sh->dims[d], torus[d], 2) :
				     _norigins(sh->dims[d], torus[d], 1);
		geo->scale += (double)n;
	}
}

/* The blocking count of point p as if it held a candidate (1 + its
 * dominoes holding two candidates), from the counts cnt; x[j] is p's
 * coordinate along domino dimension j. */
static int _blocking(const loc__box_one_geo_t *geo, const int *cnt, int p,
		     const int *x)
{
	int a = 1;

	for (int j = 0; j < geo->ndom; j++) {
		int L = geo->len[j], st = geo->dstride[j];
		int base = p - x[j] * st, lo, hi;

		if (geo->torus[j] && L == 2) {
			lo = hi = 0;
		} else if (geo->torus[j]) {
			lo = x[j] - 1;
			hi = x[j];
		} else {
			lo = x[j] - 1 < 0 ? 0 : x[j] - 1;
			hi = x[j] < L - 2 ? x[j] : L - 2;
		}
		for (int q = lo; q <= hi; q++) {
			int q0 = q < 0 ? q + L : q;
			int q1 = q0 + 1 == L ? 0 : q0 + 1;

			a += cnt[base + q0 * st] + cnt[base + q1 * st] >= 2;
		}
	}
	return a;
}

int loc__box_one_count(const loc__ctx_t *ctx, const loc__box_one_geo_t *geo,
		       int *cnt, int *acc, uint8_t *full)
{
	const loc_shape_t *sh = loc_grid_shape(ctx->grid);
	int nd = sh->ndims, np = loc_grid_npoints(ctx->grid);
	int c[LOC_MAX_DIMS] = { 0 }, x[LOC__BOX_ONE_DOMINOES], maxacc = 0;

	memset(cnt, 0, sizeof(int) * np);
	for (int v = 0; v < ctx->nnodes; v++)
		cnt[loc_grid_node_point(ctx->grid, v)] += ctx->free[v];
	for (int p = 0; p < np; p++) {
		int a = 0;

		if (cnt[p] || full) {
			for (int j = 0; j < geo->ndom; j++)
				x[j] = c[geo->dom[j]];
			a = _blocking(geo, cnt, p, x);
			if (full)
				full[p] = (uint8_t)(a - 1);
			if (!cnt[p])
				a = 0;
			if (a > maxacc)
				maxacc = a;
		}
		acc[p] = a;
		for (int d = nd - 1; d >= 0; d--) {
			if (++c[d] < sh->dims[d])
				break;
			c[d] = 0;
		}
	}
	return maxacc;
}

int loc__box_one_offer(loc__ctx_t *ctx, int p, double cost)
{
	const int *pn;
	int m = loc_grid_point_nodes(ctx->grid, p, &pn);

	for (int i = 0; i < m; i++)
		if (ctx->free[pn[i]])
			return loc__offer(ctx, &pn[i], cost);
	return 0;
}

int loc__one_box(loc__ctx_t *ctx, int *cnt, int *acc)
{
	int np = loc_grid_npoints(ctx->grid), maxacc;
	loc__box_one_geo_t geo;

	loc__box_one_geo(ctx->grid, &geo);
	maxacc = loc__box_one_count(ctx, &geo, cnt, acc, NULL);
	for (int a = 1; a <= maxacc; a++)
		for (int p = 0; p < np; p++) {
			double cost;
			int rc;

			if (acc[p] != a)
				continue;
			cost = 0.0 + a / geo.scale;
			if (!(cost < loc__offer_bound(ctx)))
				return 0;
			rc = loc__box_one_offer(ctx, p, cost);
			if (rc)
				return rc;
		}
	return maxacc ? 0 : LOC_ENOFIT;
}
