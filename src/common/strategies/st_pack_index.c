/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack_index.c - what pack keeps from one decision to the next: the
 * number of busy neighbours of every node (a pool node's closed sides
 * are its walls plus those, so growth needs no neighbour scan), and the
 * index that answers one-node requests.
 *
 * A single node has no pairwise hops, so every free node is as compact
 * as any other and pack's rule reduces to its perimeter tie-break: the
 * free node v with the least
 *
 *   free neighbours - busy neighbours - walls  (= base(v) - 2 busy(v))
 *
 * then the lowest curve rank. Computing it afresh visits every free node
 * and its neighbours (about 0.1 ms at 32,768 nodes); the index keeps the
 * free nodes in one curve-rank bitmap per value of that figure ("level"),
 * each with a summary bitmap of its non-empty words.
 *
 * Both are brought up to date from the difference between the rank
 * bitmap of this decision and the one they last saw: O(nnodes / 64) to
 * compare, O(degree) per node whose candidacy changed; a one-node answer
 * is then O(levels + nnodes / 4096).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "st_pack.h"

/* Levels beyond this make the index too large: one-node requests scan
 * instead (busy counts are still kept). */
#define PACK_ONE_MAX_LEVELS 1024

struct loc__pack_index {
	int n, nw, nsw;   /* nodes, rank-bitmap words, summary words */
	int lo, nlev;     /* figure of level 0, number of levels */
	bool valid;       /* everything below matches prev */
	bool levels;      /* the level bitmaps are kept */
	uint64_t *prev;   /* [nw] the rank bitmap last seen */
	int *busy;        /* [n] busy (non-candidate) neighbours */
	int *base;        /* [n] neighbours - walls */
	int *lev;         /* [n] level of an indexed (free) node, or -1 */
	int *count;       /* [nlev] nodes per level */
	uint64_t *bits;   /* [nlev * nw] per level, by curve rank */
	uint64_t *sum;    /* [nlev * nsw] per level, non-empty words */
};

void loc__pack_index_destroy(loc__pack_index_t *ix)
{
	if (!ix)
		return;
	free(ix->prev);
	free(ix->busy);
	free(ix->base);
	free(ix->lev);
	free(ix->count);
	free(ix->bits);
	free(ix->sum);
	free(ix);
}

static loc__pack_index_t *_index_create(const loc__pack_t *s)
{
	loc__pack_index_t *ix = calloc(1, sizeof(*ix));
	int lo = 0, hi = 0;

	if (!ix)
		return NULL;
	ix->n = s->n;
	ix->nw = LOC__BITS_WORDS(s->n);
	ix->nsw = (ix->nw + 63) / 64;
	ix->base = malloc(sizeof(int) * s->n);
	if (!ix->base)
		goto fail;
	for (int v = 0; v < s->n; v++) {
		int deg = s->nb_off[v + 1] - s->nb_off[v];

		ix->base[v] = deg - s->walls[v];
		/* Every neighbour busy: base - 2 deg. */
		if (v == 0 || ix->base[v] - 2 * deg < lo)
			lo = ix->base[v] - 2 * deg;
		if (v == 0 || ix->base[v] > hi)
			hi = ix->base[v];
	}
	ix->lo = lo;
	ix->nlev = hi - lo + 1;
	ix->prev = malloc(sizeof(uint64_t) * ix->nw);
	ix->busy = malloc(sizeof(int) * s->n);
	ix->lev = malloc(sizeof(int) * s->n);
	if (!ix->prev || !ix->busy || !ix->lev)
		goto fail;
	if (ix->nlev <= PACK_ONE_MAX_LEVELS) {
		ix->count = malloc(sizeof(int) * ix->nlev);
		ix->bits = malloc(sizeof(uint64_t) * ix->nw * ix->nlev);
		ix->sum = malloc(sizeof(uint64_t) * ix->nsw * ix->nlev);
		ix->levels = ix->count && ix->bits && ix->sum;
	}
	return ix;
fail:
	loc__pack_index_destroy(ix);
	return NULL;
}

static inline int _level(const loc__pack_index_t *ix, int v)
{
	return ix->base[v] - 2 * ix->busy[v] - ix->lo;
}

static void _insert(loc__pack_index_t *ix, const int *ranks, int v)
{
	int l = _level(ix, v), r = ranks[v], w = r >> 6;

	ix->lev[v] = l;
	if (!ix->levels)
		return;
	ix->count[l]++;
	ix->bits[(size_t)l * ix->nw + w] |= 1ULL << (r & 63);
	ix->sum[(size_t)l * ix->nsw + (w >> 6)] |= 1ULL << (w & 63);
}

static void _remove(loc__pack_index_t *ix, const int *ranks, int v)
{
	int l = ix->lev[v], r = ranks[v], w = r >> 6;
	uint64_t *word = &ix->bits[(size_t)l * ix->nw + w];

	ix->lev[v] = -1;
	if (!ix->levels)
		return;
	ix->count[l]--;
	*word &= ~(1ULL << (r & 63));
	if (!*word)
		ix->sum[(size_t)l * ix->nsw + (w >> 6)] &= ~(1ULL << (w & 63));
}

/* A neighbour's busy count changed by delta: re-file it if indexed. */
static void _nudge(loc__pack_index_t *ix, const int *ranks, int w, int delta)
{
	ix->busy[w] += delta;
	if (ix->lev[w] >= 0) {
		_remove(ix, ranks, w);
		_insert(ix, ranks, w);
	}
}

static void _rebuild(loc__pack_index_t *ix, const loc__pack_t *s,
		     const loc__ctx_t *ctx, const uint64_t *rb)
{
	if (ix->levels) {
		memset(ix->count, 0, sizeof(int) * ix->nlev);
		memset(ix->bits, 0, sizeof(uint64_t) * ix->nw * ix->nlev);
		memset(ix->sum, 0, sizeof(uint64_t) * ix->nsw * ix->nlev);
	}
	for (int v = 0; v < s->n; v++) {
		int b = 0;

		for (int i = s->nb_off[v]; i < s->nb_off[v + 1]; i++)
			b += !ctx->free[s->nb[i]];
		ix->busy[v] = b;
		ix->lev[v] = -1;
	}
	for (int v = 0; v < s->n; v++)
		if (ctx->free[v])
			_insert(ix, s->ranks, v);
	memcpy(ix->prev, rb, sizeof(uint64_t) * ix->nw);
	ix->valid = true;
}

/* Set bits of x (no popcount instruction assumed). */
static inline int _ones(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* Applies the nodes whose candidacy changed since the last decision. */
static void _sync(loc__pack_index_t *ix, const loc__pack_t *s,
		  const loc__ctx_t *ctx, const uint64_t *rb)
{
	long flips = 0;

	if (ix->valid) {
		/* Nothing changed: the common case between decisions. */
		if (!memcmp(rb, ix->prev, sizeof(uint64_t) * ix->nw))
			return;
		for (int w = 0; w < ix->nw; w++)
			if (rb[w] != ix->prev[w])
				flips += _ones(rb[w] ^ ix->prev[w]);
	}
	/* Past about one node in 16, starting over is as cheap. */
	if (!ix->valid || flips > ix->n / 16 + 64) {
		_rebuild(ix, s, ctx, rb);
		return;
	}
	for (int w = 0; flips && w < ix->nw; w++) {
		uint64_t x = rb[w] ^ ix->prev[w];

		for (; x; x &= x - 1) {
			int r = (w << 6) + __builtin_ctzll(x);
			int v = s->order[r], d = ctx->free[v] ? -1 : 1;

			if (!ctx->free[v] && ix->lev[v] >= 0)
				_remove(ix, s->ranks, v);
			for (int i = s->nb_off[v]; i < s->nb_off[v + 1]; i++)
				_nudge(ix, s->ranks, s->nb[i], d);
			if (ctx->free[v])
				_insert(ix, s->ranks, v);
			flips--;
		}
		ix->prev[w] = rb[w];
	}
}

/* The first indexed node of the lowest non-empty level. */
static int _first(const loc__pack_index_t *ix, const int *order)
{
	for (int l = 0; l < ix->nlev; l++) {
		const uint64_t *sum = ix->sum + (size_t)l * ix->nsw;

		if (!ix->count[l])
			continue;
		for (int j = 0; j < ix->nsw; j++) {
			int w;

			if (!sum[j])
				continue;
			w = (j << 6) + __builtin_ctzll(sum[j]);
			return order[(w << 6) + __builtin_ctzll(
				ix->bits[(size_t)l * ix->nw + w])];
		}
	}
	return -1;
}

/* Without the index: every free node, in curve order. */
static int _scan(const loc__pack_t *s, const loc__ctx_t *ctx)
{
	int best = -1, best_fig = 0;

	for (int r = 0; r < s->n; r++) {
		int v = s->order[r], fig = -s->walls[v];

		if (!ctx->free[v])
			continue;
		for (int i = s->nb_off[v]; i < s->nb_off[v + 1]; i++)
			fig += ctx->free[s->nb[i]] ? 1 : -1;
		if (best < 0 || fig < best_fig) {
			best = v;
			best_fig = fig;
		}
	}
	return best;
}

int loc__pack_enclosed(const loc__pack_t *s, int want, int *ranks)
{
	const loc__pack_index_t *ix = s->index;
	int n = 0;

	if (!ix || !ix->levels)
		return 0;
	for (int l = 0; l < ix->nlev && n < want; l++) {
		const uint64_t *bits = ix->bits + (size_t)l * ix->nw;
		const uint64_t *sum = ix->sum + (size_t)l * ix->nsw;

		for (int j = 0; j < ix->nsw && n < want; j++)
			for (uint64_t x = sum[j]; x && n < want; x &= x - 1) {
				int w = (j << 6) + __builtin_ctzll(x);

				for (uint64_t y = bits[w]; y && n < want;
				     y &= y - 1) {
					int r = (w << 6) + __builtin_ctzll(y);
					int v = s->order[r];

					/* A node with no free neighbour
					 * starts no compact set. */
					if (ix->busy[v] < s->nb_off[v + 1] -
								   s->nb_off[v])
						ranks[n++] = r;
				}
			}
	}
	return n;
}

int loc__pack_index_sync(loc__pack_t *s, loc__ctx_t *ctx)
{
	if (!s->index && !s->index_failed) {
		s->index = _index_create(s);
		s->index_failed = !s->index;
	}
	if (!s->index) {
		s->busy = NULL;
		return 0;
	}
	_sync(s->index, s, ctx, loc__rank_bits(ctx));
	s->busy = s->index->busy;
	return 0;
}

int loc__pack_one(loc__pack_t *s, loc__ctx_t *ctx, int *node)
{
	loc__pack_index_sync(s, ctx);
	*node = s->index && s->index->levels ? _first(s->index, s->order) :
					       _scan(s, ctx);
	return *node < 0 ? LOC_ENOFIT : 0;
}
