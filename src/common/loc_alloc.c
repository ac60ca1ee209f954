/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_alloc.c - the allocator: validates a request, runs the configured
 * strategy (or contiguous mode), collects its offers and picks one, with
 * the similar-length (SL) walltime tie-break of seed 004 when enabled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loc_rankmap.h"
#include "loc_sort.h"
#include "loc_strategy_internal.h"
#include "loc_walltime.h"

/* SL chooses among at most this many of the cheapest offers. */
#define LOC_MAX_OFFERS 32

typedef struct loc_offer {
	double cost;
	int seq; /* offer order: earlier wins ties */
	int *nodes;
} loc_offer_t;

struct loc_alloc {
	const loc_grid_t *grid;
	loc_curve_t *curve;
	loc_policy_t policy;
	const loc__strategy_ops_t *ops;
	void *state;
	int nnodes;

	/* Per-call scratch, sized once. */
	loc__freemap_t *fm; /* the candidate map, kept between calls */
	const uint8_t *free; /* its 0/1 bytes */
	uint8_t *must;      /* required nodes of the current request */
	int nmust;
	int *scratch;       /* 4 * nnodes for strategies */
	uint8_t *seen;      /* stamp per node for distinctness checks */
	uint8_t stamp;
	uint64_t *sortbits; /* node-order marks for sorting the answer */
	int bits_seq;       /* the offer sortbits holds (large ones), or -1 */
	uint64_t *keptbits; /* without SL, the kept offer's marks (swapped
			     * in from sortbits, its nodes not copied) */
	int kept_seq;       /* the offer keptbits holds, or -1 */
	int *point_dist;    /* BFS distances for required-node completion */
	int *queue;
	int *bucket;        /* 2 * (diameter + 2) counting-sort buckets */

	/* Offers of the current call. */
	loc_offer_t offer[LOC_MAX_OFFERS];
	int noffers;
	int nseq;
	int keep;           /* 1 without SL, LOC_MAX_OFFERS with SL */
};

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
	a->keep = loc__policy_sl(policy) ? LOC_MAX_OFFERS : 1;
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

/* Starts a fresh stamp generation; clears the array on wrap (one byte per
 * node keeps the marks in cache; a wrap every 255 offers is cheap). */
static uint8_t _next_stamp(loc_alloc_t *a)
{
	if (++a->stamp == 0) {
		memset(a->seen, 0, a->nnodes);
		a->stamp = 1;
	}
	return a->stamp;
}

static bool _offer_before(double cost, int seq, const loc_offer_t *o)
{
	return cost < o->cost || (cost == o->cost && seq < o->seq);
}

/* Answers of at least n / OFFER_BITS_RATIO nodes are checked through
 * their node bitmap: below that, a pass over every node's bytes costs
 * more than the per-node checks it saves. */
#define OFFER_BITS_RATIO 16

/*
 * Validation is one pass over the offer, O(k): every node in range, free
 * and not seen before in this offer. The flags are or-ed and tested once,
 * so the loop has no data-dependent branch. Large offers only stamp their
 * nodes; then one vector pass over the stamps and the free bytes counts
 * the stamped free nodes (k exactly when all are free and distinct) into
 * the node bitmap, which is also the answer in node order should the
 * offer win.
 */
/* The bitmap check's pass, once the offer's k nodes are stamped: k
 * stamped free nodes, else the offer is not k distinct free nodes. */
static int _count_marks(loc_alloc_t *a, int k, uint8_t stamp, int seq)
{
	if (loc__bits_of_marks(a->seen, stamp, a->free, a->nnodes,
			       a->sortbits, loc__simd_level()) != k)
		return LOC_EINVAL;
	a->bits_seq = seq;
	return 0;
}

static int _check_offer(loc_alloc_t *a, const int *nodes, int k, int seq)
{
	const uint8_t *fr = a->free;
	uint8_t *seen = a->seen, stamp = _next_stamp(a);
	unsigned int n = (unsigned int)a->nnodes, bad = 0;

	a->bits_seq = -1;
	if ((int64_t)k * OFFER_BITS_RATIO >= n) {
		for (int i = 0; i < k; i++) {
			if ((unsigned int)nodes[i] >= n)
				return LOC_EINVAL;
			seen[nodes[i]] = stamp;
		}
		return _count_marks(a, k, stamp, seq);
	}
	for (int i = 0; i < k; i++) {
		unsigned int v = (unsigned int)nodes[i];

		if (v >= n)
			return LOC_EINVAL;
		bad |= (fr[v] ^ 1u) | (unsigned int)(seen[v] == stamp);
		seen[v] = stamp;
	}
	return bad ? LOC_EINVAL : 0;
}

/* Keeps offer seq of cost among the best (nodes: its k nodes, or NULL
 * when only its node bitmap, one kept, will be read). */
static int _keep_offer(loc_alloc_t *a, const int *nodes, int k, int seq,
		       double cost)
{
	int pos;

	if (isnan(cost))
		return LOC_EINVAL;
	if (a->noffers == a->keep &&
	    !_offer_before(cost, seq, &a->offer[a->keep - 1]))
		return 0;
	/* Insert in (cost, seq) order; the buffer of the dropped last offer
	 * is recycled. */
	pos = a->noffers < a->keep ? a->noffers : a->keep - 1;
	{
		int *buf = a->offer[pos].nodes;

		while (pos > 0 &&
		       _offer_before(cost, seq, &a->offer[pos - 1])) {
			a->offer[pos] = a->offer[pos - 1];
			pos--;
		}
		a->offer[pos].nodes = buf;
	}
	a->offer[pos].cost = cost;
	a->offer[pos].seq = seq;
	if (a->keep == 1 && a->bits_seq == seq) {
		/* The answer will be listed from these marks: keep them
		 * (a pointer swap) rather than copy k nodes that would
		 * not be read. */
		uint64_t *t = a->keptbits;

		a->keptbits = a->sortbits;
		a->sortbits = t;
		a->kept_seq = seq;
	} else {
		memcpy(a->offer[pos].nodes, nodes, sizeof(int) * k);
	}
	if (a->noffers < a->keep)
		a->noffers++;
	return 0;
}

int loc__offer(loc__ctx_t *ctx, const int *nodes, double cost)
{
	loc_alloc_t *a = ctx->alloc;
	int seq = a->nseq++, k = ctx->k;

	/* k in a local: the checks' byte stores could alias ctx->k. */
	if (_check_offer(a, nodes, k, seq))
		return LOC_EINVAL;
	/* Contiguous requests with required nodes: only offers that
	 * contain all of them count. */
	if (a->nmust) {
		int must_hit = 0;

		for (int i = 0; i < k; i++)
			must_hit += a->must[nodes[i]];
		if (must_hit != a->nmust)
			return 0;
	}
	return _keep_offer(a, nodes, k, seq, cost);
}

/* Stamps order[r] for the ranks r = ranks[i] (ranks NULL: i) with i in
 * [from, to); false on a rank out of range. */
static bool _stamp_ranks(const int *order, const int *ranks, int from,
			 int to, unsigned int n, uint8_t *seen, uint8_t stamp)
{
	if (!ranks) {
		for (int i = from; i < to; i++)
			seen[order[i]] = stamp;
		return true;
	}
	for (int i = from; i < to; i++) {
		if ((unsigned int)ranks[i] >= n)
			return false;
		seen[order[ranks[i]]] = stamp;
	}
	return true;
}

/* dst[j] = order[src[j]] for j < cnt; nonzero on a rank out of range
 * (which reads node 0). */
static inline unsigned int _map_run(const int *order, const int *src,
				    int cnt, unsigned int n, int *dst)
{
	unsigned int bad = 0;

	for (int j = 0; j < cnt; j++) {
		unsigned int r = (unsigned int)src[j];

		bad |= r >= n;
		dst[j] = order[r < n ? r : 0];
	}
	return bad;
}

/* Writes order[ranks[(start + j) mod len]] (ranks NULL: the rank itself)
 * for j < k into buf, without a division per node; false on a rank out
 * of range. */
static bool _map_ranks(const int *order, const int *ranks, int len,
		       int start, int k, unsigned int n, int *buf)
{
	int a = len - start < k ? len - start : k;

	if (!ranks) {
		memcpy(buf, order + start, sizeof(int) * a);
		memcpy(buf + a, order, sizeof(int) * (k - a));
		return true;
	}
	return !(_map_run(order, ranks + start, a, n, buf) |
		 _map_run(order, ranks, k - a, n, buf + a));
}

/*
 * As mapping the ranks into buf and offering those nodes; when the offer
 * takes the bitmap check and is the one kept (no SL, no required nodes),
 * the nodes are stamped straight from the ranks and never listed: the
 * answer comes from the bitmap.
 */
int loc__offer_ranks(loc__ctx_t *ctx, const int *ranks, int len, int start,
		     int *buf, double cost)
{
	loc_alloc_t *a = ctx->alloc;
	const int *order = loc_curve_order(a->curve);
	int k = ctx->k, seq, a_end;
	unsigned int n = (unsigned int)a->nnodes;
	uint8_t stamp;

	if (start < 0 || start >= len || k > len || (unsigned int)len > n ||
	    (!ranks && (unsigned int)len != n))
		return LOC_EINVAL;
	if (a->keep != 1 || a->nmust || (int64_t)k * OFFER_BITS_RATIO < n) {
		if (!_map_ranks(order, ranks, len, start, k, n, buf))
			return LOC_EINVAL;
		return loc__offer(ctx, buf, cost);
	}
	seq = a->nseq++;
	stamp = _next_stamp(a);
	a->bits_seq = -1;
	a_end = len - start < k ? len : start + k;
	if (!_stamp_ranks(order, ranks, start, a_end, n, a->seen, stamp) ||
	    !_stamp_ranks(order, ranks, 0, k - (a_end - start), n, a->seen,
			  stamp) ||
	    _count_marks(a, k, stamp, seq))
		return LOC_EINVAL;
	return _keep_offer(a, NULL, k, seq, cost);
}

double loc__offer_bound(const loc__ctx_t *ctx)
{
	const loc_alloc_t *a = ctx->alloc;

	if (a->noffers < a->keep)
		return INFINITY;
	if (a->keep == 1)
		return a->offer[0].cost;
	/* SL keeps near-ties, so anything under the worst kept may count. */
	return a->offer[a->keep - 1].cost;
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
