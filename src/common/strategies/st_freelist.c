/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_freelist.c - the sorted free list of Cplant 1.9 (seed 000, Leung et
 * al., "Processor allocation on Cplant"): the first k free nodes in curve
 * order, whatever the gaps between them. The baseline every other
 * strategy is measured against.
 */
#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_strategy_ops.h"

/*
 * From the rank bitmap when the allocator has it at hand (64 ranks per
 * step), otherwise one pass along the curve that stops at the k-th free
 * node: O(k / density), cheaper than building the bitmap for small k.
 * Without a branch per rank: pick[n] is overwritten until a free node
 * stays.
 */
static int _freelist_select(loc__ctx_t *ctx)
{
	const int *order = loc_curve_order(ctx->curve);
	const uint64_t *bits = loc__rank_bits_cached(ctx);
	int *pick = ctx->scratch, n = 0, k = ctx->k;

	/* The walk covers about k nnodes / nfree ranks. Over an eighth of
	 * the machine or more it costs about what building the bitmap
	 * does, and the bitmap is then kept for the next calls (at 32,768
	 * nodes 5% free, k=512 walked 10,000 ranks in 11 us). */
	if (!bits && (int64_t)k * 8 >= ctx->nfree)
		bits = loc__rank_bits(ctx);

	if (bits) {
		if (loc__bits_ones(bits, 0, ctx->nnodes, pick, k) < k)
			return LOC_ENOFIT;
		return loc__offer_window(ctx, pick, k, 0, pick, 0.0);
	}
	for (int r = 0; r < ctx->nnodes && n < k; r++) {
		pick[n] = order[r];
		n += ctx->free[order[r]];
	}
	if (n < k)
		return LOC_ENOFIT;
	return loc__offer(ctx, pick, 0.0);
}

const loc__strategy_ops_t loc__st_freelist = {
	.name = "freelist",
	.select = _freelist_select,
};
