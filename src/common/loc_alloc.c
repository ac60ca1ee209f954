/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_alloc.c - the allocator: validates a request, runs the configured
 * strategy (or contiguous mode) and picks one of the offers it collected
 * (loc_offer.c), with the similar-length (SL) walltime tie-break of seed
 * 004 when enabled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loc_alloc_internal.h"
#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_policy_internal.h"
#include "loc_rankmap.h"
#include "loc_sort.h"
#include "loc_strategy_ops.h"
#include "loc_walltime_sl.h"
#include "strategies/st_contiguous.h"

loc_alloc_t *loc_alloc_create(const loc_grid_t *grid,
			      const loc_policy_t *policy, loc_error_t *err)
{
	loc_alloc_t *a;
	int n;

	if (!grid || !policy)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "allocator needs a grid and a policy"),
		       NULL;
	if ((int)policy->strategy < 0 || policy->strategy >= LOC_STRATEGY_COUNT)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "unknown strategy %d", policy->strategy),
		       NULL;
	if ((int)policy->walltime < 0 || policy->walltime >= LOC_WALLTIME_COUNT)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "unknown walltime mode %d",
				     policy->walltime),
		       NULL;
	if (!(policy->sl_tolerance >= 0.0) ||
	    !(policy->pack_tolerance >= 0.0) ||
	    !(policy->compact_tolerance >= 0.0) || policy->compact_wait < 0 ||
	    policy->plan_window < 0)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "tolerances, CompactWait and PlanWindow must be >= 0"),
		       NULL;
	n = loc_grid_nnodes(grid);
	a = calloc(1, sizeof(*a));
	if (!a)
		goto nomem;
	a->grid = grid;
	a->policy = *policy;
	a->ops = loc__strategy_ops(policy->strategy);
	a->nnodes = n;
	a->keep = loc_policy_sl(policy) ? LOC_MAX_OFFERS : 1;
	a->curve = loc_curve_create(grid, policy->curve, err);
	if (!a->curve) {
		loc_alloc_destroy(a);
		return NULL;
	}
	a->fm = loc__freemap_create(a->curve, n);
	a->free = a->fm ? loc__freemap_map(a->fm) : NULL;
	a->must = calloc(n, 1);
	a->scratch = malloc(sizeof(int) * 4 * (size_t)n);
	a->seen = calloc(n, 1);
	a->sortbits = calloc(LOC__BITS_WORDS(n), sizeof(uint64_t));
	a->keptbits = calloc(LOC__BITS_WORDS(n), sizeof(uint64_t));
	a->point_dist = malloc(sizeof(int) * loc_grid_npoints(grid));
	a->queue = malloc(sizeof(int) * loc_grid_npoints(grid));
	a->bucket = malloc(sizeof(int) * 2 * (loc_grid_diameter(grid) + 2));
	if (!a->fm || !a->must || !a->scratch || !a->seen || !a->sortbits ||
	    !a->keptbits || !a->point_dist || !a->queue || !a->bucket)
		goto nomem;
	if (a->ops->interval_counts &&
	    loc__freemap_track_runs(a->fm, loc_grid_all_torus(grid)))
		goto nomem;
	for (int i = 0; i < a->keep; i++) {
		a->offer[i].nodes = malloc(sizeof(int) * n);
		if (!a->offer[i].nodes)
			goto nomem;
	}
	if (a->ops->init &&
	    a->ops->init(grid, a->curve, &a->policy, &a->state, err)) {
		loc_alloc_destroy(a);
		return NULL;
	}
	return a;
nomem:
	loc_alloc_destroy(a);
	loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory creating allocator");
	return NULL;
}

void loc_alloc_forget(loc_alloc_t *alloc)
{
	if (alloc && alloc->ops && alloc->ops->forget && alloc->state)
		alloc->ops->forget(alloc->state);
}

void loc_alloc_destroy(loc_alloc_t *alloc)
{
	if (!alloc)
		return;
	if (alloc->ops && alloc->ops->fini && alloc->state)
		alloc->ops->fini(alloc->state);
	loc__freemap_destroy(alloc->fm);
	loc_curve_destroy(alloc->curve);
	free(alloc->must);
	free(alloc->scratch);
	free(alloc->seen);
	free(alloc->sortbits);
	free(alloc->keptbits);
	free(alloc->point_dist);
	free(alloc->queue);
	free(alloc->bucket);
	for (int i = 0; i < LOC_MAX_OFFERS; i++)
		free(alloc->offer[i].nodes);
	free(alloc);
}

const loc_curve_t *loc_alloc_curve(const loc_alloc_t *alloc)
{
	return alloc->curve;
}

const loc_grid_t *loc_alloc_grid(const loc_alloc_t *alloc)
{
	return alloc->grid;
}

const loc_policy_t *loc_alloc_policy(const loc_alloc_t *alloc)
{
	return &alloc->policy;
}

static int _cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* Picks the winning offer: the cheapest, or with SL the one among the
 * offers within tolerance of the cheapest whose busy neighbours end
 * closest to the request's expected end. */
static const loc_offer_t *_choose_offer(loc_alloc_t *a, const loc__ctx_t *ctx,
					const loc_request_t *req,
					const loc_view_t *view)
{
	const loc_offer_t *best = &a->offer[0];
	double limit, best_score = -1;

	if (a->noffers == 0)
		return NULL;
	if (a->keep == 1 || !view->busy_until || req->expected_end <= 0)
		return best;
	limit = a->offer[0].cost + a->policy.sl_tolerance * fabs(a->offer[0].cost) +
		1e-9;
	for (int i = 0; i < a->noffers && a->offer[i].cost <= limit; i++) {
		double s = loc_sl_score(a->grid, view, req->expected_end,
					a->offer[i].nodes, ctx->k);

		if (s >= 0 && (best_score < 0 || s < best_score)) {
			best_score = s;
			best = &a->offer[i];
		}
	}
	return best;
}

/*
 * Completes a request that names required nodes: the remaining nodes are
 * the free ones nearest (in hops) to any required node, ties broken by
 * curve rank, so the job grows around what the user pinned.
 */
static int _complete_required(loc_alloc_t *a, const loc_request_t *req,
			      int *out)
{
	const loc_grid_t *g = a->grid;
	const int *order = loc_curve_order(a->curve);
	int np = loc_grid_npoints(g), head = 0, tail = 0, nout = 0;
	int need = req->nodes - req->nrequired, maxd = 0;
	int *bucket_count = a->bucket, *bucket_pos, *picked = a->scratch;

	for (int p = 0; p < np; p++)
		a->point_dist[p] = -1;
	for (int i = 0; i < req->nrequired; i++) {
		int p = loc_grid_node_point(g, req->required[i]);

		out[nout++] = req->required[i];
		if (a->point_dist[p] < 0) {
			a->point_dist[p] = 0;
			a->queue[tail++] = p;
		}
	}
	while (head < tail) {
		int p = a->queue[head++], nb[2 * LOC_MAX_DIMS];
		int n = loc_grid_point_neighbors(g, p, nb);

		for (int i = 0; i < n; i++) {
			if (a->point_dist[nb[i]] >= 0)
				continue;
			a->point_dist[nb[i]] = a->point_dist[p] + 1;
			if (a->point_dist[nb[i]] > maxd)
				maxd = a->point_dist[nb[i]];
			a->queue[tail++] = nb[i];
		}
	}
	/* Counting sort of free, non-required nodes by distance, stable in
	 * curve order. */
	bucket_pos = a->bucket + (maxd + 2);
	memset(bucket_count, 0, sizeof(int) * (maxd + 2));
	for (int r = 0; r < a->nnodes; r++) {
		int v = order[r];

		if (a->free[v] && !a->must[v])
			bucket_count[a->point_dist[loc_grid_node_point(g, v)] + 1]++;
	}
	for (int d = 0; d <= maxd; d++)
		bucket_count[d + 1] += bucket_count[d];
	memcpy(bucket_pos, bucket_count, sizeof(int) * (maxd + 1));
	for (int r = 0; r < a->nnodes; r++) {
		int v = order[r];

		if (a->free[v] && !a->must[v])
			picked[bucket_pos[a->point_dist[loc_grid_node_point(g, v)]]++] = v;
	}
	for (int i = 0; i < need; i++)
		out[nout++] = picked[i];
	return 0;
}

static int _check_request(loc_alloc_t *a, const loc_request_t *req,
			  const loc_view_t *view, loc_error_t *err)
{
	if (!req || !view || !view->candidate)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "request and candidate map are required");
	if (req->nodes < 1)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "request for %d nodes", req->nodes);
	if (req->nrequired < 0 || (req->nrequired && !req->required))
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "bad required node list");
	if (req->nrequired > req->nodes)
		return loc_error_set(err, LOC_ENOFIT, NULL, 0,
				     "%d required nodes exceed the %d requested",
				     req->nrequired, req->nodes);
	if (req->nodes > a->nnodes)
		return loc_error_set(err, LOC_ENOFIT, NULL, 0,
				     "%d nodes requested, the machine has %d",
				     req->nodes, a->nnodes);
	return 0;
}

const uint64_t *loc__rank_bits_cached(const loc__ctx_t *ctx)
{
	return loc__freemap_rank_bits(ctx->alloc->fm, false);
}

const loc__runhist_t *loc__rank_runs(loc__ctx_t *ctx)
{
	return loc__freemap_runs(ctx->alloc->fm);
}

uint64_t loc__map_hash(const loc__ctx_t *ctx)
{
	return loc__freemap_hash(ctx->alloc->fm);
}

const uint64_t *loc__rank_bits(loc__ctx_t *ctx)
{
	return loc__freemap_rank_bits(ctx->alloc->fm, true);
}

/* Marks the required nodes in a->must, checking each. a->must is all zero
 * between calls: _clear_must() undoes exactly what this set. */
static int _load_must(loc_alloc_t *a, const loc_request_t *req,
		      loc_error_t *err)
{
	a->nmust = 0;
	for (int i = 0; i < req->nrequired; i++) {
		int v = req->required[i];

		if (v < 0 || v >= a->nnodes)
			return loc_error_set(err, LOC_EINVAL, NULL, 0,
					     "required node %d does not exist", v);
		if (a->must[v])
			return loc_error_set(err, LOC_EINVAL, NULL, 0,
					     "required node %d listed twice", v);
		if (!a->free[v])
			return loc_error_set(err, LOC_ENOFIT, NULL, 0,
					     "required node %d is not a candidate",
					     v);
		a->must[v] = 1;
		a->nmust++;
	}
	return 0;
}

static void _clear_must(loc_alloc_t *a, const loc_request_t *req)
{
	for (int i = 0; i < req->nrequired; i++)
		if (req->required[i] >= 0 && req->required[i] < a->nnodes)
			a->must[req->required[i]] = 0;
	a->nmust = 0;
}

static int _select(loc_alloc_t *a, const loc_request_t *req,
		   const loc_view_t *view, int *out, loc_error_t *err);

int loc_alloc_select(loc_alloc_t *a, const loc_request_t *req,
		     const loc_view_t *view, int *out, loc_error_t *err)
{
	int rc = _check_request(a, req, view, err);

	if (rc)
		return rc;
	rc = _select(a, req, view, out, err);
	_clear_must(a, req);
	return rc;
}

static int _select(loc_alloc_t *a, const loc_request_t *req,
		   const loc_view_t *view, int *out, loc_error_t *err)
{
	loc__ctx_t ctx;
	const loc_offer_t *win;
	int rc, nfree;

	nfree = loc__freemap_load(a->fm, view->candidate);
	if (nfree < req->nodes)
		return loc_error_set(err, LOC_ENOFIT, NULL, 0,
				     "%d nodes requested, %d candidates free",
				     req->nodes, nfree);
	rc = _load_must(a, req, err);
	if (rc)
		return rc;

	if (a->nmust && !req->contiguous) {
		_complete_required(a, req, out);
		qsort(out, req->nodes, sizeof(int), _cmp_int);
		return 0;
	}

	memset(&ctx, 0, sizeof(ctx));
	ctx.alloc = a;
	ctx.grid = a->grid;
	ctx.curve = a->curve;
	ctx.policy = &a->policy;
	ctx.view = view;
	ctx.free = a->free;
	ctx.nfree = nfree;
	ctx.k = req->nodes;
	ctx.nnodes = a->nnodes;
	ctx.scratch = a->scratch;
	ctx.state = a->state;
	ctx.must = a->nmust ? a->must : NULL;
	ctx.nmust = a->nmust;
	a->noffers = 0;
	a->nseq = 0;
	a->bits_seq = -1;
	a->kept_seq = -1;

	rc = req->contiguous ? loc__contiguous_select(&ctx) : a->ops->select(&ctx);
	if (rc && rc != LOC_ENOFIT)
		return loc_error_set(err, rc, NULL, 0, "strategy %s failed: %s",
				     a->ops->name, loc_strerror(rc));
	win = _choose_offer(a, &ctx, req, view);
	if (!win)
		return loc_error_set(err, LOC_ENOFIT, NULL, 0,
				     req->contiguous ?
					     "no contiguous interval or box of %d free nodes%s" :
					     "strategy found no placement for %d nodes%s",
				     req->nodes,
				     a->nmust ? " holding the required nodes" : "");
	if (win->seq == a->kept_seq)
		loc__bits_ones(a->keptbits, 0, a->nnodes, out, req->nodes);
	else if (win->seq == a->bits_seq)
		loc__bits_ones(a->sortbits, 0, a->nnodes, out, req->nodes);
	else
		loc__sort_nodes(win->nodes, req->nodes, a->nnodes,
				a->sortbits, a->scratch, out);
	return 0;
}
