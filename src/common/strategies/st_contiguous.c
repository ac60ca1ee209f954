/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_contiguous.c - contiguous mode, used for every request with
 * contiguous=true whatever the strategy (design sec. 5).
 *
 * Offers windows of k consecutive ranks that are all free and connected
 * on the grid (one component under one-hop adjacency; nodes sharing a
 * point are connected). On a grid that is a torus in every dimension the
 * ranks form a ring and windows may wrap. Windows are tried in best-fit
 * order of their free interval (seed 000/002: fewest free nodes left in
 * the enclosing interval, then lowest rank), so a contiguous job does not
 * cut a large hole when a tight one exists. When no window qualifies the
 * boxes of st_box.c are offered instead.
 *
 * Connectivity: a window without a curve break (two consecutive ranks
 * more than one hop apart) is a path, hence connected; the break count is
 * kept while sliding, so that check is O(1). Windows with breaks (row
 * ends of a row-major curve, seams of a curve on an awkward shape) get a
 * breadth-first search over their points, within a work budget of one
 * sweep of the machine plus 16384 node visits per call (a few hundred
 * microseconds at worst on 32768 nodes); once it is spent such windows
 * are passed over, which may send the job to a box although a connected
 * window exists further on. An exact test for every window would be
 * connectivity under a sliding window, i.e. with deletions: a dynamic
 * spanning forest (link-cut trees, O((N + E) log N) per call) costs
 * milliseconds on 32768 nodes, and patching per-piece adjacency as the
 * window slides is exact but O(pieces) per window, which degenerates to
 * O(k) on curves with many breaks; neither fits the per-decision budget,
 * so the cap stays.
 *
 * The intervals come from the rank bitmap (loc__rank_intervals()).
 */
#include <math.h>
#include <string.h>

#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_policy_internal.h"
#include "st_contiguous.h"

/* Offers per call: enough alternatives for SL, bounded work. */
#define CONTIG_MAX_OFFERS 32
/* BFS budget per call, in node visits: sweeps of the machine plus a
 * floor that keeps small machines exact. */
#define CONTIG_BFS_SWEEPS 1
#define CONTIG_BFS_FLOOR 16384
/* Intervals taken by a linear scan before building a heap. */
#define CONTIG_LINEAR_POPS 4

typedef struct contig {
	loc__ctx_t *ctx;
	const loc_grid_t *grid;
	const int *order;   /* rank -> node */
	const int *ranks;   /* node -> rank */
	int n, k, ring;
	int64_t *heap;      /* (leftover << 32 | start) of fitting intervals */
	int nheap;
	int npops;          /* intervals taken so far (see _pop()) */
	int *stamp;         /* [n] BFS marks, by a point's first node */
	int *queue;         /* [n] BFS queue of points, then the pick */
	bool stamp_clear;   /* stamp zeroed (on the first search) */
	int mark;
	int64_t budget;
} contig_t;

static void _heap_down(int64_t *h, int n, int i)
{
	for (;;) {
		int c = 2 * i + 1;
		int64_t t;

		if (c >= n)
			return;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (h[i] <= h[c])
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

/*
 * The next interval by (leftover, start), INT64_MAX when none is left.
 * Most calls stop after a pop or two, so the first pops scan the list
 * (in start order: the first exact fit ends the scan, nothing beats it)
 * and mark what they take; only a long search pays for a heap.
 */
static int64_t _pop(contig_t *c)
{
	int64_t top;

	if (c->npops < CONTIG_LINEAR_POPS) {
		int64_t best = INT64_MAX;
		int bi = -1;

		c->npops++;
		for (int i = 0; i < c->nheap; i++) {
			if (c->heap[i] < best) {
				best = c->heap[i];
				bi = i;
				if (!(best >> 32))
					break;
			}
		}
		if (bi >= 0)
			c->heap[bi] = INT64_MAX;
		return best;
	}
	if (c->npops++ == CONTIG_LINEAR_POPS)
		for (int i = c->nheap / 2 - 1; i >= 0; i--)
			_heap_down(c->heap, c->nheap, i);
	if (!c->nheap)
		return INT64_MAX;
	top = c->heap[0];
	c->heap[0] = c->heap[--c->nheap];
	_heap_down(c->heap, c->nheap, 0);
	return top;
}

/*
 * Lists the free intervals of at least k nodes (on a ring the runs at
 * both ends join into one) as (leftover << 32 | start) keys, in start
 * order; iv (n + 1 ints) is scratch for loc__rank_intervals().
 */
static void _collect_intervals(contig_t *c, int *iv)
{
	int nint = loc__rank_intervals(c->ctx, c->ring, c->k, iv, c->n);

	for (int i = 0; i < nint; i++) {
		int len = iv[2 * i + 1] - iv[2 * i];

		c->heap[i] = ((int64_t)(len - c->k) << 32) | iv[2 * i];
	}
	c->nheap = nint;
}

/* The node at rank (0 <= rank < 2n: windows may wrap once). */
static int _node_at(const contig_t *c, int rank)
{
	return c->order[rank < c->n ? rank : rank - c->n];
}

/* 1 when ranks r and r+1 (mod n) are more than one hop apart. */
static int _is_break(const contig_t *c, int r)
{
	return loc_grid_node_hops(c->grid, _node_at(c, r),
				  _node_at(c, r + 1)) > 1;
}

static bool _in_window(const contig_t *c, int node, int s)
{
	int d = c->ranks[node] - s;

	return (d < 0 ? d + c->n : d) < c->k;
}

/*
 * Breadth-first search over the points of window [s, s+k): true when one
 * component holds all k nodes. Marks a point through its first node.
 * Returns -1 once the budget is spent.
 */
static int _window_connected(contig_t *c, int s)
{
	int head = 0, tail = 0, seen = 0, mark = ++c->mark;
	int p0 = loc_grid_node_point(c->grid, _node_at(c, s));
	const int *nodes;

	if (c->budget <= 0)
		return -1;
	if (!c->stamp_clear) {
		/* The marks are needed once some window has a break. */
		memset(c->stamp, 0, sizeof(int) * c->n);
		c->stamp_clear = true;
	}
	loc_grid_point_nodes(c->grid, p0, &nodes);
	c->stamp[nodes[0]] = mark;
	c->queue[tail++] = p0;
	while (head < tail) {
		int p = c->queue[head++], nb[2 * LOC_MAX_DIMS];
		int cnt = loc_grid_point_nodes(c->grid, p, &nodes);
		int nnb = loc_grid_point_neighbors(c->grid, p, nb);

		for (int i = 0; i < cnt; i++)
			seen += _in_window(c, nodes[i], s);
		c->budget -= cnt;
		for (int j = 0; j < nnb; j++) {
			int qc = loc_grid_point_nodes(c->grid, nb[j], &nodes);

			if (!qc || c->stamp[nodes[0]] == mark)
				continue;
			c->budget -= qc;
			for (int i = 0; i < qc; i++) {
				if (_in_window(c, nodes[i], s)) {
					c->stamp[nodes[0]] = mark;
					c->queue[tail++] = nb[j];
					break;
				}
			}
		}
	}
	return seen == c->k;
}

/*
 * Slides a window over the interval at start of length len and offers the
 * connected ones holding every required node, at cost leftover.
 * Returns 0 or an offer error; *offers counts the offers made.
 */
static int _scan_interval(contig_t *c, int start, int len, int *offers)
{
	loc__ctx_t *ctx = c->ctx;
	const uint8_t *must = ctx->must;
	int k = c->k, breaks = 0, held = 0, nwin = len - k + 1;
	double cost = len - k;

	/* The whole ring free: every rotation is a window. */
	if (c->ring && len == c->n && k < c->n)
		nwin = c->n;
	for (int r = start; r < start + k - 1; r++)
		breaks += _is_break(c, r);
	if (must)
		for (int r = start; r < start + k; r++)
			held += must[_node_at(c, r)];
	for (int w = 0; w < nwin; w++) {
		int s = start + w, ok;

		if (w) {
			breaks += _is_break(c, s + k - 2) - _is_break(c, s - 1);
			if (must)
				held += must[_node_at(c, s + k - 1)] -
					must[_node_at(c, s - 1)];
		}
		if (must && held != ctx->nmust)
			continue;
		if (*offers >= CONTIG_MAX_OFFERS ||
		    !(cost < loc__offer_bound(ctx)))
			return 0;
		ok = breaks == 0 || _window_connected(c, s % c->n) == 1;
		if (!ok)
			continue;
		for (int j = 0; j < k; j++)
			c->queue[j] = _node_at(c, s + j);
		ok = loc__offer(ctx, c->queue, cost);
		if (ok)
			return ok;
		(*offers)++;
	}
	return 0;
}

int loc__contiguous_select(loc__ctx_t *ctx)
{
	int n = ctx->nnodes, offers = 0, rc = 0;
	double limit = INFINITY;
	contig_t c = {
		.ctx = ctx,
		.grid = ctx->grid,
		.order = loc_curve_order(ctx->curve),
		.ranks = loc_curve_ranks(ctx->curve),
		.n = n,
		.k = ctx->k,
		.ring = loc_grid_all_torus(ctx->grid),
		.budget = (int64_t)CONTIG_BFS_SWEEPS * n + CONTIG_BFS_FLOOR,
	};

	if (n == 1)
		return loc__offer(ctx, c.order, 0.0);
	/* Scratch: heap of at most (n+1)/2 int64 (n+1 ints), marks, queue:
	 * at most 3n + 1 ints. Before the search, the marks and queue hold
	 * the intervals (n + 1 ints). */
	c.heap = (int64_t *)ctx->scratch;
	c.stamp = ctx->scratch + n + 1;
	c.queue = c.stamp + n;
	_collect_intervals(&c, c.stamp);
	while (!rc && offers < CONTIG_MAX_OFFERS) {
		int64_t key = _pop(&c);
		int leftover = (int)(key >> 32);
		int start = (int)(key & 0xffffffff);

		if (key == INT64_MAX || !(leftover < loc__offer_bound(ctx)) ||
		    leftover > limit)
			break;
		rc = _scan_interval(&c, start, leftover + c.k, &offers);
		if (offers && limit == INFINITY)
			limit = leftover +
				loc__policy_sl_tolerance(ctx->policy) * leftover;
	}
	if (rc)
		return rc;
	if (!offers)
		return loc__box_offer_all(ctx);
	return 0;
}
