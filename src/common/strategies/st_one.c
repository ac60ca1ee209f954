/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_one.c - one-node (k = 1) requests without a strategy's general
 * search. A single node has no pairwise hops, so what a strategy returns
 * is decided by its ranking and tie rules alone; each path here finds the
 * same answer (and the same SL alternatives, in the same order, with the
 * same costs) by a scan that stops at it, instead of the O(nnodes) set-up
 * of the search. test_loc_strategy_one checks each against its search.
 *
 * mc1x1: every free point holds k = 1 node in shell 0 (cost 0), so the
 * centres kept are the first free points met in curve order, and each
 * offers its free node of least curve rank: the free node that met it.
 * Those are the first free ranks of the rank bitmap, skipping nodes on a
 * point already met.
 */
#include <string.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_policy_internal.h"
#include "st_one.h"

#define ONE_SL_ALTS 8              /* as MC_SL_ALTS in st_mc1x1.c */

bool loc__fast_one = true;

int loc__one_next_free(const uint8_t *f, int from, int n)
{
	int v = from;

	for (; v < n && (v & 7); v++)
		if (f[v])
			return v;
	for (; v + 8 <= n; v += 8) {
		uint64_t w;

		memcpy(&w, f + v, sizeof(w));
		if (w)
			break;
	}
	for (; v < n; v++)
		if (f[v])
			return v;
	return n;
}

int loc__one_mc1x1(loc__ctx_t *ctx)
{
	const uint64_t *bits = loc__rank_bits(ctx);
	const int *order = loc_curve_order(ctx->curve);
	int want = loc_policy_sl(ctx->policy) ? ONE_SL_ALTS : 1;
	int node[ONE_SL_ALTS], point[ONE_SL_ALTS], n = 0;

	for (int r = loc__bits_find(bits, 0, ctx->nnodes, true);
	     r < ctx->nnodes && n < want;
	     r = loc__bits_find(bits, r + 1, ctx->nnodes, true)) {
		int v = order[r], p = loc_grid_node_point(ctx->grid, v), i;

		for (i = 0; i < n && point[i] != p; i++)
			;
		if (i < n)
			continue;
		point[n] = p;
		node[n++] = v;
	}
	for (int i = 0; i < n; i++) {
		int rc;

		if (i && !(0.0 < loc__offer_bound(ctx)))
			break;
		rc = loc__offer(ctx, &node[i], 0.0);
		if (rc)
			return rc;
	}
	return n ? 0 : LOC_ENOFIT;
}
