/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_random.c - Random allocation (seed 001, Lo et al., "Non-contiguous
 * processor allocation algorithms for mesh-connected multicomputers",
 * sec. 3.1): k free nodes chosen uniformly at random, the baseline with no
 * contiguity at all.
 *
 * The core keeps no state between calls, so the generator is seeded from
 * policy->seed mixed with a hash of the candidate map and k: the same
 * call gives the same answer (replays are reproducible), while different
 * states or sizes draw independently.
 */
#include <string.h>

#include "loc_strategy_internal.h"

/* One step of the candidate map hash (eight bytes, byte 0 first). */
static inline uint64_t _mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/*
 * One pass over the 0/1 byte map: the generator seed, a 64-bit mix of the
 * map (eight bytes at a time) and k folded into the policy seed; and the
 * map packed into a node bitmap (eight bytes to eight bits with one
 * multiply), work that runs in the shadow of the hash's multiply chain.
 * bits needs (nnodes + 63) / 64 + 1 words (the last one zero).
 * Returns the seed.
 */
static uint64_t _scan_map(const loc__ctx_t *ctx, uint64_t *bits)
{
	const uint8_t *fr = ctx->free;
	uint64_t h = ctx->policy->seed * 0x9e3779b97f4a7c15ULL + ctx->k;
	int n = ctx->nnodes, v = 0;

	for (int w = 0; w <= (n + 63) / 64; w++)
		bits[w] = 0;
	for (; v + 64 <= n; v += 64) {
		uint64_t x = 0;

		for (int j = 0; j < 8; j++) {
			uint64_t b;

			memcpy(&b, fr + v + 8 * j, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			b = __builtin_bswap64(b); /* same seed everywhere */
#endif
			h = _mix(h, b);
			/* Byte i (0/1) to bit 56 + i. */
			x |= ((b * 0x0102040810204080ULL) >> 56) << (8 * j);
		}
		bits[v >> 6] = x;
	}
	for (; v + 8 <= n; v += 8) {
		uint64_t b;

		memcpy(&b, fr + v, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		b = __builtin_bswap64(b);
#endif
		h = _mix(h, b);
		bits[v >> 6] |= ((b * 0x0102040810204080ULL) >> 56) << (v & 63);
	}
	for (; v < n; v++) {
		h = (h ^ fr[v]) * 0x100000001b3ULL;
		bits[v >> 6] |= (uint64_t)fr[v] << (v & 63);
	}
	return h;
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

/* Partial Fisher-Yates over the free nodes in node order: O(nnodes / 8
 * + k), the list itself only when k is not small. */
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
	if (k > 64 || n < 1024) {
		/* Scratch: list[n], then the bitmap at an 8-byte boundary:
		 * under 4n ints for n >= 2 (nfree > k >= 1 here). */
		bits = (uint64_t *)(ctx->scratch + n + (n & 1));
		loc__rng_seed(&rng, _scan_map(ctx, bits));
		return _shuffle_dense(ctx, &rng, bits, ctx->scratch);
	}
	/* Scratch: the bitmap, word counts, then out, moved positions and
	 * values (k each): under n / 16 + 200 ints. */
	bits = (uint64_t *)ctx->scratch;
	cum = (int *)(bits + nw + 1);
	loc__rng_seed(&rng, _scan_map(ctx, bits));
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
