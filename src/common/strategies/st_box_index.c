/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_box_index.c - what the box strategy keeps from one decision to the
 * next to answer one-node requests without a pass over the machine.
 *
 * st_box_one.c offers the points holding a candidate in increasing
 * blocking count, then point order. A point's count is 1 + the dominoes
 * holding two candidates that contain it, so a node whose candidacy
 * changed can only change the at most 6 dominoes holding its point, and
 * the counts of at most 1 + 2 x 3 points. The index keeps, as of the
 * last decision, the candidates per point, the full dominoes of each
 * point, the count each point is filed under, and one bitmap over points
 * per count ("level": 1 .. 1 + 2 x 3, at most 7), each with a summary
 * bitmap of its non-empty words, so walking a level in point order skips
 * empty stretches 4,096 points at a time.
 *
 * It is brought up to date from the difference between the allocator's
 * rank bitmap (ctx->free in curve order, kept by the allocator as nodes
 * flip) and the one it saw last: O(nnodes / 64) to compare, O(dominoes)
 * per node whose candidacy changed. Comparing that bitmap, not the byte
 * map, reads 4 KB instead of 32 KB at 32,768 nodes. Past about one node
 * in 8 changed, or on first use, st_box_one.c's full pass rebuilds it.
 * Answering is then O(levels + npoints / 4096 + offers).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "st_one.h"

/* A point's own box plus two dominoes per domino dimension. */
#define BOX_ONE_LEVELS (1 + 2 * LOC__BOX_ONE_DOMINOES)

bool loc__box_one_indexed = true;

struct loc__box_index {
	const loc_grid_t *grid;   /* what it was built for */
	const loc_curve_t *curve; /* ... the rank bitmap's order */
	int nnodes, npoints;
	int nw;                   /* rank-bitmap words */
	int npw, nsw;             /* point-bitmap words, summary words */
	bool valid;               /* everything below matches prev */
	loc__box_one_geo_t geo;
	uint64_t *prev;           /* [nw] the rank bitmap last seen */
	int *cnt;                 /* [npoints] candidates per point */
	uint8_t *full;            /* [npoints] dominoes holding two
				   * candidates that contain the point */
	int *acc;                 /* [npoints] level it is filed under:
				   * 1 + full, 0 = no candidate */
	int count[BOX_ONE_LEVELS + 1];  /* points per level */
	uint64_t *bits;           /* [BOX_ONE_LEVELS * npw] level l's points
				   * from (l - 1) * npw */
	uint64_t *sum;            /* [BOX_ONE_LEVELS * nsw] its non-empty
				   * words */
};

void loc__box_index_destroy(loc__box_index_t *ix)
{
	if (!ix)
		return;
	free(ix->prev);
	free(ix->cnt);
	free(ix->full);
	free(ix->acc);
	free(ix->bits);
	free(ix->sum);
	free(ix);
}

static loc__box_index_t *_index_create(const loc__ctx_t *ctx)
{
	loc__box_index_t *ix = calloc(1, sizeof(*ix));

	if (!ix)
		return NULL;
	ix->grid = ctx->grid;
	ix->curve = ctx->curve;
	ix->nnodes = ctx->nnodes;
	ix->npoints = loc_grid_npoints(ctx->grid);
	ix->nw = LOC__BITS_WORDS(ix->nnodes);
	ix->npw = (ix->npoints + 63) / 64;
	ix->nsw = (ix->npw + 63) / 64;
	loc__box_one_geo(ctx->grid, &ix->geo);
	ix->prev = malloc(sizeof(uint64_t) * ix->nw);
	ix->cnt = malloc(sizeof(int) * ix->npoints);
	ix->full = malloc(ix->npoints);
	ix->acc = malloc(sizeof(int) * ix->npoints);
	ix->bits = malloc(sizeof(uint64_t) * BOX_ONE_LEVELS * ix->npw);
	ix->sum = malloc(sizeof(uint64_t) * BOX_ONE_LEVELS * ix->nsw);
	if (!ix->prev || !ix->cnt || !ix->full || !ix->acc || !ix->bits ||
	    !ix->sum) {
		loc__box_index_destroy(ix);
		return NULL;
	}
	return ix;
}

static void _set(loc__box_index_t *ix, int level, int p)
{
	int w = p >> 6;

	ix->count[level]++;
	ix->bits[(size_t)(level - 1) * ix->npw + w] |= 1ULL << (p & 63);
	ix->sum[(size_t)(level - 1) * ix->nsw + (w >> 6)] |= 1ULL << (w & 63);
}

static void _clear(loc__box_index_t *ix, int level, int p)
{
	int w = p >> 6;
	uint64_t *word = &ix->bits[(size_t)(level - 1) * ix->npw + w];

	ix->count[level]--;
	*word &= ~(1ULL << (p & 63));
	if (!*word)
		ix->sum[(size_t)(level - 1) * ix->nsw + (w >> 6)] &=
			~(1ULL << (w & 63));
}

/* Re-files point p under its level from its counts. */
static void _refile(loc__box_index_t *ix, int p)
{
	int a = ix->cnt[p] ? 1 + ix->full[p] : 0;

	if (a == ix->acc[p])
		return;
	if (ix->acc[p])
		_clear(ix, ix->acc[p], p);
	if (a)
		_set(ix, a, p);
	ix->acc[p] = a;
}

/*
 * Point p gains (delta 1) or loses (-1) a candidate. Only the dominoes
 * holding p can change: one per domino dimension of length 2 (with the
 * other point), else the two with the neighbours p - 1 and p + 1 (on a
 * mesh only those inside). One that crosses the two-candidate mark moves
 * the counts of both its points.
 */
static void _point_changed(loc__box_index_t *ix, int p, int delta)
{
	const loc__box_one_geo_t *g = &ix->geo;
	int before = ix->cnt[p], after = before + delta;

	ix->cnt[p] = after;
	for (int j = 0; j < g->ndom; j++) {
		int L = g->len[j], st = g->dstride[j], x = p / st % L;
		int q[2], nq = 0;

		if (L == 2) {
			q[nq++] = x ? p - st : p + st;
		} else {
			if (x > 0)
				q[nq++] = p - st;
			else if (g->torus[j])
				q[nq++] = p + (L - 1) * st;
			if (x < L - 1)
				q[nq++] = p + st;
			else if (g->torus[j])
				q[nq++] = p - (L - 1) * st;
		}
		for (int i = 0; i < nq; i++) {
			int other = ix->cnt[q[i]];
			bool was = before + other >= 2, is = after + other >= 2;

			if (was == is)
				continue;
			ix->full[p] += is ? 1 : -1;
			ix->full[q[i]] += is ? 1 : -1;
			_refile(ix, q[i]);
		}
	}
	_refile(ix, p);
}

static void _rebuild(loc__box_index_t *ix, const loc__ctx_t *ctx,
		     const uint64_t *rb)
{
	loc__box_one_count(ctx, &ix->geo, ix->cnt, ix->acc, ix->full);
	memset(ix->count, 0, sizeof(ix->count));
	memset(ix->bits, 0, sizeof(uint64_t) * BOX_ONE_LEVELS * ix->npw);
	memset(ix->sum, 0, sizeof(uint64_t) * BOX_ONE_LEVELS * ix->nsw);
	for (int p = 0; p < ix->npoints; p++)
		if (ix->acc[p])
			_set(ix, ix->acc[p], p);
	memcpy(ix->prev, rb, sizeof(uint64_t) * ix->nw);
	ix->valid = true;
}

/* Applies the nodes whose candidacy changed since the last decision. */
static void _sync(loc__box_index_t *ix, loc__ctx_t *ctx)
{
	const uint64_t *rb = loc__rank_bits(ctx);
	const int *order;
	/* Past about one node in 8, the full pass is as cheap. */
	long flips = 0, max_flips = ix->nnodes / 8 + 64;

	if (!ix->valid) {
		_rebuild(ix, ctx, rb);
		return;
	}
	/* Nothing changed: the common case between decisions. */
	if (!memcmp(rb, ix->prev, sizeof(uint64_t) * ix->nw))
		return;
	order = loc_curve_order(ix->curve);
	for (int w = 0; w < ix->nw; w++) {
		uint64_t x;

		/* Unchanged stretches of 2,048 nodes at memcmp() speed. */
		while ((w & 31) == 0 && w + 32 <= ix->nw &&
		       !memcmp(rb + w, ix->prev + w, 256))
			w += 32;
		if (w >= ix->nw)
			break;
		x = rb[w] ^ ix->prev[w];
		ix->prev[w] = rb[w];
		for (; x; x &= x - 1) {
			int bit = __builtin_ctzll(x), r = (w << 6) + bit;
			int p = loc_grid_node_point(ix->grid, order[r]);

			/* The rebuild needs nothing applied so far. */
			if (++flips > max_flips) {
				_rebuild(ix, ctx, rb);
				return;
			}
			_point_changed(ix, p, rb[w] >> bit & 1 ? 1 : -1);
		}
	}
}

/* Offers level by level, points ascending, until an offer can no longer
 * be kept: the order of loc__one_box(). */
static int _offer(const loc__box_index_t *ix, loc__ctx_t *ctx)
{
	bool any = false;

	for (int l = 1; l <= BOX_ONE_LEVELS; l++) {
		const uint64_t *bits = ix->bits + (size_t)(l - 1) * ix->npw;
		const uint64_t *sum = ix->sum + (size_t)(l - 1) * ix->nsw;
		double cost = 0.0 + l / ix->geo.scale;

		if (!ix->count[l])
			continue;
		any = true;
		for (int j = 0; j < ix->nsw; j++)
			for (uint64_t x = sum[j]; x; x &= x - 1) {
				int w = (j << 6) + __builtin_ctzll(x);

				for (uint64_t y = bits[w]; y; y &= y - 1) {
					int p = (w << 6) + __builtin_ctzll(y);
					int rc;

					if (!(cost < loc__offer_bound(ctx)))
						return 0;
					rc = loc__box_one_offer(ctx, p, cost);
					if (rc)
						return rc;
				}
			}
	}
	return any ? 0 : LOC_ENOFIT;
}

int loc__box_index_one(loc__box_index_t **index, loc__ctx_t *ctx, int *cnt,
		       int *acc)
{
	loc__box_index_t *ix = *index;

	if (!loc__box_one_indexed)
		return loc__one_box(ctx, cnt, acc);
	/* Built for another machine or order: start over. */
	if (ix && (ix->grid != ctx->grid || ix->curve != ctx->curve ||
		   ix->nnodes != ctx->nnodes)) {
		loc__box_index_destroy(ix);
		ix = *index = NULL;
	}
	if (!ix)
		ix = *index = _index_create(ctx);
	if (!ix)
		return loc__one_box(ctx, cnt, acc);
	_sync(ix, ctx);
	return _offer(ix, ctx);
}
