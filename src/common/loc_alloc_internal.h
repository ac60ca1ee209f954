/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_alloc_internal.h - the allocator's state, shared by the allocator
 * (loc_alloc.c) and the offers strategies make to it (loc_offer.c).
 */
#ifndef LOC_ALLOC_INTERNAL_H
#define LOC_ALLOC_INTERNAL_H

#include "loc_rankmap.h"
#include "loc_strategy_ops.h"

/* SL chooses among at most this many of the cheapest offers. */
#define LOC_MAX_OFFERS 32

typedef struct loc_offer {
	double cost;
	int seq; /* offer order: earlier wins ties */
	int *nodes;
} loc_offer_t;

struct loc_alloc {
	const loc_grid_t *grid;
	loc_curve_t *curve;
	loc_policy_t policy;
	const loc__strategy_ops_t *ops;
	void *state;
	int nnodes;

	/* Per-call scratch, sized once. */
	loc__freemap_t *fm; /* the candidate map, kept between calls */
	const uint8_t *free; /* its 0/1 bytes */
	uint8_t *must;      /* required nodes of the current request */
	int nmust;
	int *scratch;       /* 4 * nnodes for strategies */
	uint8_t *seen;      /* stamp per node for distinctness checks */
	uint8_t stamp;
	uint64_t *sortbits; /* node-order marks for sorting the answer */
	int bits_seq;       /* the offer sortbits holds (large ones), or -1 */
	uint64_t *keptbits; /* without SL, the kept offer's marks (swapped
			     * in from sortbits, its nodes not copied) */
	int kept_seq;       /* the offer keptbits holds, or -1 */
	int *point_dist;    /* BFS distances for required-node completion */
	int *queue;
	int *bucket;        /* 2 * (diameter + 2) counting-sort buckets */

	/* Offers of the current call. */
	loc_offer_t offer[LOC_MAX_OFFERS];
	int noffers;
	int nseq;
	int keep;           /* 1 without SL, LOC_MAX_OFFERS with SL */
};

#endif
