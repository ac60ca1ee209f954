/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_freelist.c - the sorted free list of Cplant 1.9 (seed 000, Leung et
 * al., "Processor allocation on Cplant"): the first k free nodes in curve
 * order, whatever the gaps between them. The baseline every other
 * strategy is measured against.
 */
#include "loc_strategy_internal.h"

/* One pass over the ranks: O(nnodes), one offer. */
static int _freelist_select(loc__ctx_t *ctx)
{
	const int *order = loc_curve_order(ctx->curve);
	int *pick = ctx->scratch;
	int n = 0;

	for (int r = 0; r < ctx->nnodes && n < ctx->k; r++)
		if (ctx->free[order[r]])
			pick[n++] = order[r];
	if (n < ctx->k)
		return LOC_ENOFIT;
	return loc__offer(ctx, pick, 0.0);
}

const loc__strategy_ops_t loc__st_freelist = {
	.name = "freelist",
	.select = _freelist_select,
};
