/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_free_map.h - views of ctx->free the allocator keeps from one
 * decision to the next: the map as rank bits, its hash, its interval
 * histogram, and the free intervals found from the bits. Strategies ask
 * for them instead of scanning ctx->free.
 */
#ifndef LOC_FREE_MAP_H
#define LOC_FREE_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_ctx.h"
#include "loc_runhist.h"

/*
 * The free map in curve order, one bit per rank: bit r % 64 of word r / 64
 * is set when the node at rank r is in ctx->free. Bits from nnodes on are
 * 0, and a zero word follows the last. The allocator keeps it up to date
 * from one decision to the next (flipping the bits of nodes whose
 * candidacy changed), so it usually costs nothing; otherwise it is built
 * in O(nnodes) on the first request of a decision. Borrowed until the
 * strategy returns. In loc_alloc.c.
 */
const uint64_t *loc__rank_bits(loc__ctx_t *ctx);
/* The same when it is up to date already, else NULL (never builds it). */
const uint64_t *loc__rank_bits_cached(const loc__ctx_t *ctx);

/* A 64-bit hash of ctx->free, a function of the map alone, kept by the
 * allocator as the map changes: O(1). In loc_alloc.c. */
uint64_t loc__map_hash(const loc__ctx_t *ctx);

/* The free interval histogram of ctx->free in rank order, up to date,
 * for a strategy whose ops set interval_counts (else NULL); with ring
 * when every grid dimension is a torus. In loc_alloc.c. */
const loc__runhist_t *loc__rank_runs(loc__ctx_t *ctx);

/*
 * The free intervals of at least len ranks (maximal runs of free ranks),
 * in rank order, from loc__rank_bits(). With ring (every dimension a
 * torus) the runs at both ends of the order are one interval, listed last,
 * whose end exceeds nnodes (ranks wrap). Every rank free is the single
 * interval [0, nnodes). Writes at most max intervals to iv as for
 * loc__bits_runs() (room for nnodes + 1 ints covers every case) and
 * returns how many. In loc_bits.c.
 */
int loc__rank_intervals(loc__ctx_t *ctx, bool ring, int len, int *iv,
			int max);

/*
 * The free intervals of exactly one rank (a free rank whose neighbours
 * are busy; with ring, ranks 0 and nnodes - 1 are neighbours), in rank
 * order: writes the first max ranks to pos and returns how many. The
 * same as the intervals of length 1 of loc__rank_intervals(), found a
 * word at a time without listing the others: O(nnodes / 64). In
 * loc_bits.c.
 */
int loc__rank_isolated(loc__ctx_t *ctx, bool ring, int *pos, int max);

#endif /* LOC_FREE_MAP_H */
