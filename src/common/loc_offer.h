/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_offer.h - how a strategy answers: offers of placements with a cost,
 * and the bound an offer must beat. In loc_offer.c.
 */
#ifndef LOC_OFFER_H
#define LOC_OFFER_H

#include "loc_ctx.h"

/*
 * Offers a placement of ctx->k distinct free nodes (borrowed, any order)
 * with cost. Returns 0 (kept or ignored) or LOC_EINVAL if the set is not
 * k distinct free nodes (a strategy bug, caught in every build).
 */
int loc__offer(loc__ctx_t *ctx, const int *nodes, double cost);

/*
 * Offers the nodes at ranks ranks[(start + j) mod len] for j < ctx->k
 * (ranks NULL: the ranks (start + j) mod len, len the node count) with
 * cost: as writing them into buf (room for k; buf may be ranks when start
 * is 0) and calling loc__offer(), which it does for small offers. Large
 * offers that will be answered from their node bitmap are stamped
 * straight from the ranks, without the list. LOC_EINVAL also for start or
 * len out of range.
 */
int loc__offer_ranks(loc__ctx_t *ctx, const int *ranks, int len, int start,
		     int *buf, double cost);

/*
 * As loc__offer_ranks() for a window of consecutive free ranks: every
 * free rank from the window's first to its last (wrapping past the node
 * count) is one of its k, as when ranks lists all free ranks ascending
 * (or every rank is free, ranks NULL). Large offers that will be answered
 * from their node bitmap are then checked and marked in one pass over the
 * nodes' ranks (loc__bits_of_rank_range()): the free nodes in that range
 * must number k, else LOC_EINVAL.
 */
int loc__offer_window(loc__ctx_t *ctx, const int *ranks, int len, int start,
		      int *buf, double cost);

/*
 * Returns the cost an offer needs to beat to be kept (+inf before the
 * first offer): lets a strategy skip building hopeless placements.
 */
double loc__offer_bound(const loc__ctx_t *ctx);

#endif /* LOC_OFFER_H */
