/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_ctx.h - the request a strategy answers: the machine, the policy, the
 * free nodes and k, and scratch (loc__ctx_t). The allocator (loc_alloc.c)
 * fills one per request; strategies read it and answer through
 * loc_offer.h. Not installed, not used by drivers.
 *
 * A strategy looks at ctx->free (candidate nodes, with required nodes
 * already taken out) and offers one or more complete placements of ctx->k
 * nodes through loc__offer(), each with a cost (lower is better). The
 * allocator keeps the best offer; with walltime awareness (SL) it keeps
 * every offer within policy->sl_tolerance of the best and lets walltime
 * decide among them. Offer alternatives a strategy considers equally good
 * (e.g. several equally tight intervals or boxes), so SL has something to
 * choose from; offer in a deterministic order.
 */
#ifndef LOC_CTX_H
#define LOC_CTX_H

#include <stdint.h>

#include "loc_strategy.h"

typedef struct loc__ctx {
	loc_alloc_t *alloc;
	const loc_grid_t *grid;
	const loc_curve_t *curve;
	const loc_policy_t *policy;
	const loc_view_t *view;
	const uint8_t *free; /* [nnodes] 1 = may be chosen */
	int nfree;           /* number of 1s in free */
	int k;               /* nodes to choose, 1 <= k <= nfree */
	int nnodes;
	int *scratch;        /* [4 * nnodes] ints, free for the strategy */
	void *state;         /* the strategy's own state from its init hook */
	/* Required nodes ([nnodes], 1 = every offer must hold it), or NULL
	 * when there are none. Set in contiguous mode, so it can search only
	 * the intervals that hold them. */
	const uint8_t *must;
	int nmust;
} loc__ctx_t;

#endif /* LOC_CTX_H */
