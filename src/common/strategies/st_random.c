/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_random.c - Random allocation (seed 001, Lo et al., "Non-contiguous
 * processor allocation algorithms for mesh-connected multicomputers",
 * sec. 3.1): k free nodes chosen uniformly at random, the baseline with no
 * contiguity at all.
 *
 * The generator is seeded from policy->seed mixed with k and a hash of
 * the candidate map that the allocator keeps as the map changes
 * (loc__map_hash(), O(1)): the same call on the same map gives the same
 * answer (replays are reproducible), while different states or sizes draw
 * independently.
 *
 * Jobs of at most a quarter of the free nodes, on a machine with at least
 * an eighth of its nodes free, draw node numbers and keep the free ones
 * not drawn yet (O(k n / nfree), no pass over the map); otherwise a
 * partial Fisher-Yates over the free nodes in node order.
 * Either way every set of k free nodes is equally likely.
 */
#include <string.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_rng.h"
#include "loc_strategy_ops.h"

/* Jobs up to this size take the sparse shuffle (a linear search over the
 * k swaps each step) rather than the list of every free node. */
#define RANDOM_SMALL_K 64

/*
 * The 0/1 byte map packed into a node bitmap (eight bytes to eight bits
 * with one multiply). bits needs (nnodes + 63) / 64 + 1 words (the last
 * one zero).
 */
static void _pack_map(const loc__ctx_t *ctx, uint64_t *bits)
{
	const uint8_t *fr = ctx->free;
	int n = ctx->nnodes, v = 0;

	for (int w = 0; w <= (n + 63) / 64; w++)
		bits[w] = 0;
	for (; v + 8 <= n; v += 8) {
		uint64_t b;

		memcpy(&b, fr + v, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		b = __builtin_bswap64(b);
#endif
		/* Byte i (0/1) to bit 56 + i. */
		bits[v >> 6] |= ((b * 0x0102040810204080ULL) >> 56) << (v & 63);
	}
	for (; v < n; v++)
		bits[v >> 6] |= (uint64_t)fr[v] << (v & 63);
}

/*
 * loc__rng_below() with one division instead of two: its rejection limit,
 * UINT64_MAX - UINT64_MAX % bound, exceeds UINT64_MAX - bound, so it is
 * only computed for the rare draws above that. Same values, same stream.
 */
static inline uint64_t _below(loc__rng_t *rng, uint64_t bound)
{
	for (;;) {
		uint64_t x = loc__rng_next(rng);

		if (x <= UINT64_MAX - bound ||
		    x < UINT64_MAX - UINT64_MAX % bound)
			return x % bound;
	}
}

/* Set bits of x, without relying on a popcount instruction. */
static inline int _popcount(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* The dense shuffle: the whole free list, swapped in place. */
static int _shuffle_dense(loc__ctx_t *ctx, loc__rng_t *rng,
			  const uint64_t *bits, int *list)
{
	int m = loc__bits_ones(bits, 0, ctx->nnodes, list, ctx->nnodes);

	for (int i = 0; i < ctx->k; i++) {
		int j = i + (int)_below(rng, (uint64_t)(m - i));
		int t = list[i];

		list[i] = list[j];
		list[j] = t;
	}
	return loc__offer(ctx, list, 0.0);
}

/* The p-th free node (from 0): a binary search over the word counts
 * cum[0..nw] (cum[w] = set bits before word w), then within the word. */
static int _select(const uint64_t *bits, const int *cum, int nw, int p)
{
	int lo = 0, hi = nw - 1;
	uint64_t x;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (cum[mid] <= p)
			lo = mid;
		else
			hi = mid - 1;
	}
	x = bits[lo];
	for (int r = p - cum[lo]; r > 0; r--)
		x &= x - 1;
	return 64 * lo + __builtin_ctzll(x);
}

/*
 * The same shuffle without the list, for small k: position p of the
 * virtual list holds the p-th free node unless a swap moved something
 * there (moved[], at most k entries, searched linearly). Draws and swaps
 * are those of _shuffle_dense(), so the answer is the same.
 */
static int _shuffle_sparse(loc__ctx_t *ctx, loc__rng_t *rng,
			   const uint64_t *bits, int m, int *cum, int *out,
			   int *moved_pos, int *moved_val)
{
	int nw = (ctx->nnodes + 63) / 64, nmoved = 0;

	for (int i = 0; i < ctx->k; i++) {
		int j = i + (int)_below(rng, (uint64_t)(m - i));
		int vi = -1, vj = -1, slot = -1;

		for (int t = 0; t < nmoved; t++) {
			if (moved_pos[t] == i)
				vi = moved_val[t];
			if (moved_pos[t] == j) {
				vj = moved_val[t];
				slot = t;
			}
		}
		if (vi < 0)
			vi = _select(bits, cum, nw, i);
		if (vj < 0)
			vj = j == i ? vi : _select(bits, cum, nw, j);
		out[i] = vj;
		if (slot < 0)
			slot = nmoved++;
		moved_pos[slot] = j;
		moved_val[slot] = vi;
	}
	return loc__offer(ctx, out, 0.0);
}

/*
 * k distinct free nodes by rejection: node numbers drawn uniformly, kept
 * when free and not drawn yet (an open-addressing set of 2k to 4k slots
 * at seen[]), so each set is equally likely. Only tried when at least an
 * eighth of the nodes are free and k is at most a quarter of them (under
 * about 10k draws expected); returns false if the budget runs out, and
 * the caller draws again with the exact method (independent draws:
 * still uniform).
 */
static bool _draw_rejecting(loc__ctx_t *ctx, loc__rng_t *rng, int *out,
			    int *seen)
{
	int got = 0, budget = 16 * ctx->k + 64, mask = 1;

	while (mask + 1 < 2 * ctx->k)
		mask = 2 * mask + 1;
	for (int i = 0; i <= mask; i++)
		seen[i] = -1;
	while (got < ctx->k) {
		uint32_t slot;
		int v;

		if (budget-- == 0)
			return false;
		v = (int)_below(rng, (uint64_t)ctx->nnodes);
		if (!ctx->free[v])
			continue;
		slot = ((uint32_t)v * 0x9e3779b1u) & (uint32_t)mask;
		while (seen[slot] >= 0 && seen[slot] != v)
			slot = (slot + 1) & (uint32_t)mask;
		if (seen[slot] == v)
			continue;
		seen[slot] = v;
		out[got++] = v;
	}
	return true;
}

static int _random_select(loc__ctx_t *ctx)
{
	int n = ctx->nnodes, nw = (n + 63) / 64, k = ctx->k, m = 0;
	uint64_t *bits;
	int *cum;
	loc__rng_t rng;

	if (ctx->nfree < k)
		return LOC_ENOFIT;
	if (ctx->nfree == k) {
		/* Every free node, whatever the draws (order is not part of
		 * an answer). */
		for (int v = 0; v < n; v++) {
			ctx->scratch[m] = v;
			m += ctx->free[v];
		}
		return loc__offer(ctx, ctx->scratch, 0.0);
	}
	loc__rng_seed(&rng, (ctx->policy->seed * 0x9e3779b97f4a7c15ULL +
			     (uint64_t)k) ^ loc__map_hash(ctx));
	if (8 * (int64_t)ctx->nfree >= n && 4 * k <= ctx->nfree &&
	    _draw_rejecting(ctx, &rng, ctx->scratch, ctx->scratch + k))
		return loc__offer(ctx, ctx->scratch, 0.0);
	if (k > RANDOM_SMALL_K || n < 1024) {
		/* Scratch: list[n], then the bitmap at an 8-byte boundary:
		 * under 4n ints for n >= 2 (nfree > k >= 1 here). */
		bits = (uint64_t *)(ctx->scratch + n + (n & 1));
		_pack_map(ctx, bits);
		return _shuffle_dense(ctx, &rng, bits, ctx->scratch);
	}
	/* Scratch: the bitmap, word counts, then out, moved positions and
	 * values (k each): under n / 16 + 200 ints. */
	bits = (uint64_t *)ctx->scratch;
	cum = (int *)(bits + nw + 1);
	_pack_map(ctx, bits);
	for (int w = 0; w < nw; w++) {
		cum[w] = m;
		m += _popcount(bits[w]);
	}
	return _shuffle_sparse(ctx, &rng, bits, m, cum, cum + nw + 1,
			       cum + nw + 1 + k, cum + nw + 1 + 2 * k);
}

const loc__strategy_ops_t loc__st_random = {
	.name = "random",
	.select = _random_select,
};
