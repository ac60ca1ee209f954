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

/* A 64-bit mix of the candidate map (eight bytes at a time) and k,
 * folded into the policy seed. */
static uint64_t _state_seed(const loc__ctx_t *ctx)
{
	uint64_t h = ctx->policy->seed * 0x9e3779b97f4a7c15ULL + ctx->k;
	int v = 0;

	for (; v + 8 <= ctx->nnodes; v += 8) {
		uint64_t w;

		memcpy(&w, ctx->free + v, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w); /* same seed on every machine */
#endif
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	for (; v < ctx->nnodes; v++)
		h = (h ^ ctx->free[v]) * 0x100000001b3ULL;
	return h;
}

/* Partial Fisher-Yates over the free nodes: O(nnodes + k). */
static int _random_select(loc__ctx_t *ctx)
{
	int *list = ctx->scratch;
	int m = 0;
	loc__rng_t rng;

	/* Without branches: the map is close to random on a busy machine. */
	for (int v = 0; v < ctx->nnodes; v++) {
		list[m] = v;
		m += ctx->free[v];
	}
	if (m < ctx->k)
		return LOC_ENOFIT;
	loc__rng_seed(&rng, _state_seed(ctx));
	for (int i = 0; i < ctx->k; i++) {
		int j = i + (int)loc__rng_below(&rng, (uint64_t)(m - i));
		int t = list[i];

		list[i] = list[j];
		list[j] = t;
	}
	return loc__offer(ctx, list, 0.0);
}

const loc__strategy_ops_t loc__st_random = {
	.name = "random",
	.select = _random_select,
};
