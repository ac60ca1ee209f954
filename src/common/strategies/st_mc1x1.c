/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mc1x1.c - MC1x1 (seed 003, Bender et al., after the MC algorithm of
 * Mache, Lo and Windisch): every free node is tried as a centre; free
 * nodes are taken shell by shell, shell 0 being the centre's point and
 * shell s the square (cube) ring of points at Chebyshev distance s, with
 * wraparound on torus dimensions. The cost of a centre is the sum of the
 * shell numbers of its k nodes; the least cost wins. The shell table and
 * the ranking of centres by that cost are in st_shells.c; this file
 * gathers the winning centres' nodes and offers them.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
#include "loc_offer.h"
#include "loc_policy_internal.h"
#include "loc_strategy_ops.h"
#include "st_one.h"
#include "st_shells.h"

/* SL alternatives offered (best first); 1 offer without SL. */
#define MC_SL_ALTS 8

typedef struct _mc_state {
	loc__shells_t *sh;
	int nd, npoints, nnodes;
	int *point_free;       /* [npoints] */
	uint32_t *point_seen;  /* [npoints] stamps */
	uint32_t stamp;
	uint64_t *key;         /* [nnodes] shell-s candidates: l1 << 32 | rank */
	int *nodes;            /* [nnodes] the placement being built */
	int *centre;           /* [npoints] centres in curve order */
} _mc_state_t;

static void _mc_fini(void *state)
{
	_mc_state_t *st = state;

	if (!st)
		return;
	loc__shells_destroy(st->sh);
	free(st->point_free);
	free(st->point_seen);
	free(st->key);
	free(st->nodes);
	free(st->centre);
	free(st);
}

static int _mc_init(const loc_grid_t *grid, const loc_curve_t *curve,
		    const loc_policy_t *policy, void **state, loc_error_t *err)
{
	_mc_state_t *st = calloc(1, sizeof(*st));

	(void)curve;
	(void)policy;
	if (!st)
		goto nomem;
	st->nd = loc_grid_ndims(grid);
	st->npoints = loc_grid_npoints(grid);
	st->nnodes = loc_grid_nnodes(grid);
	st->sh = loc__shells_create(grid);
	st->point_free = malloc(sizeof(int) * st->npoints);
	st->point_seen = calloc(st->npoints, sizeof(uint32_t));
	st->key = malloc(sizeof(uint64_t) * st->nnodes);
	st->nodes = malloc(sizeof(int) * st->nnodes);
	st->centre = malloc(sizeof(int) * st->npoints);
	if (!st->sh || !st->point_free || !st->point_seen || !st->key ||
	    !st->nodes || !st->centre)
		goto nomem;
	*state = st;
	return 0;
nomem:
	_mc_fini(st);
	return loc_error_set(err, LOC_ENOMEM, NULL, 0,
			     "out of memory for mc1x1 shell tables");
}

static uint32_t _mc_stamp(_mc_state_t *st)
{
	if (++st->stamp == 0) {
		memset(st->point_seen, 0, sizeof(uint32_t) * st->npoints);
		st->stamp = 1;
	}
	return st->stamp;
}

static int _cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/*
 * Builds the placement around point: every free node within Chebyshev
 * distance s-1, then the shell-s nodes nearest in L1 (curve rank breaks
 * ties), so the partial last shell stays as round as possible.
 */
static void _mc_gather(loc__ctx_t *ctx, _mc_state_t *st, int point)
{
	const loc__shells_t *sh = st->sh;
	const int *c = sh->coord + (size_t)point * sh->nd;
	const int *ranks = loc_curve_ranks(ctx->curve);
	const int *order = loc_curve_order(ctx->curve);
	int s = st->point_free[point] >= ctx->k ?
			0 : loc__shells_radius(sh, point, ctx->k);
	int wlen[LOC_MAX_DIMS], wpos[LOC_MAX_DIMS], idx[LOC_MAX_DIMS] = { 0 };
	int n = 0, nkey = 0, d;

	/* Window of each dimension as (first coordinate, length). */
	for (d = 0; d < sh->nd; d++) {
		int L = sh->len[d];

		if (sh->torus[d] && 2 * s + 1 >= L) {
			wpos[d] = 0;
			wlen[d] = L;
		} else if (sh->torus[d]) {
			wpos[d] = c[d] - s;
			wlen[d] = 2 * s + 1;
		} else {
			int a = c[d] - s < 0 ? 0 : c[d] - s;
			int b = c[d] + s >= L ? L - 1 : c[d] + s;

			wpos[d] = a;
			wlen[d] = b - a + 1;
		}
	}
	for (;;) {
		int pt = 0, cheb = 0, l1 = 0;

		for (d = 0; d < sh->nd; d++) {
			int L = sh->len[d], x = wpos[d] + idx[d], h;

			x = ((x % L) + L) % L;
			pt += x * sh->pstride[d];
			h = x > c[d] ? x - c[d] : c[d] - x;
			if (sh->torus[d] && L - h < h)
				h = L - h;
			l1 += h;
			if (h > cheb)
				cheb = h;
		}
		if (st->point_free[pt]) {
			const int *pn;
			int m = loc_grid_point_nodes(ctx->grid, pt, &pn);

			for (int i = 0; i < m; i++) {
				if (!ctx->free[pn[i]])
					continue;
				if (cheb < s)
					st->nodes[n++] = pn[i];
				else
					st->key[nkey++] = (uint64_t)l1 << 32 |
							  (uint32_t)ranks[pn[i]];
			}
		}
		for (d = sh->nd - 1; d >= 0; d--) {
			if (++idx[d] < wlen[d])
				break;
			idx[d] = 0;
		}
		if (d < 0)
			break;
	}
	qsort(st->key, nkey, sizeof(uint64_t), _cmp_u64);
	for (int i = 0; n < ctx->k && i < nkey; i++)
		st->nodes[n++] = order[(uint32_t)st->key[i]];
}

static int _mc_select(loc__ctx_t *ctx)
{
	_mc_state_t *st = ctx->state;
	const int *order = loc_curve_order(ctx->curve);
	loc__shell_rank_t best[MC_SL_ALTS];
	int ncentre = 0, nbest = 0;
	int want = loc_policy_sl(ctx->policy) ? MC_SL_ALTS : 1;
	uint32_t stamp;

	if (ctx->k == 1 && loc__fast_one)
		return loc__one_mc1x1(ctx);
	stamp = _mc_stamp(st);
	memset(st->point_free, 0, sizeof(int) * st->npoints);
	for (int v = 0; v < ctx->nnodes; v++)
		if (ctx->free[v])
			st->point_free[loc_grid_node_point(ctx->grid, v)]++;
	/* Centres in curve order, so the first of equal cost wins as in a
	 * sorted free list. Nodes sharing a point share their shells. */
	for (int r = 0; r < ctx->nnodes; r++) {
		int v = order[r], p;

		if (!ctx->free[v])
			continue;
		p = loc_grid_node_point(ctx->grid, v);
		if (st->point_seen[p] == stamp)
			continue;
		st->point_seen[p] = stamp;
		/* k nodes in shell 0 cost nothing: the first such centres
		 * are the answer, no table needed. */
		if (st->point_free[p] >= ctx->k && nbest < want) {
			best[nbest].cost = 0;
			best[nbest++].idx = ncentre;
		}
		st->centre[ncentre++] = p;
	}
	if (nbest < want) {
		loc__shells_load(st->sh, st->point_free);
		nbest = loc__shells_rank(st->sh, st->centre, ncentre, ctx->k,
					 want, best);
	}
	for (int i = 0; i < nbest; i++) {
		int rc;

		if (i && !((double)best[i].cost < loc__offer_bound(ctx)))
			break;
		_mc_gather(ctx, st, st->centre[best[i].idx]);
		rc = loc__offer(ctx, st->nodes, (double)best[i].cost);
		if (rc)
			return rc;
	}
	return nbest ? 0 : LOC_ENOFIT;
}

const loc__strategy_ops_t loc__st_mc1x1 = {
	.name = "mc1x1",
	.select = _mc_select,
	.init = _mc_init,
	.fini = _mc_fini,
};
