/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_tiers.h - node weights as Slurm means them: nodes of lower Weight
 * are used first (NodeWeight=tiers, loc_strategy.h).
 *
 * Nodes of equal weight form a tier. A job is placed inside the fewest
 * lightest tiers whose candidates can hold it; heavier tiers join only
 * when no placement fits there (a contiguous job, a CPU shortfall, a
 * strategy that needs a shape), each retry at least doubling the
 * candidates, so a site with one weight per node costs O(log N)
 * placements, not N. Locality is chosen inside the tiers, never across
 * a lighter free node. Both drivers use this one rule: the plugin with
 * slurmctld's scheduling weights, the replay with --node-weight.
 */
#ifndef LOC_TIERS_H
#define LOC_TIERS_H

#include <stdint.h>

#include "loc_error.h"
#include "loc_hostlist.h"
#include "loc_strategy.h"

typedef struct loc_tiers {
	int nnodes;
	const uint64_t *weight; /* per node (borrowed, loc_tiers_set) */
	uint64_t *levels;       /* distinct weights in use, ascending */
	int nlevels;            /* <= 1: weights play no part */
	int *count;             /* candidates per level (scratch) */
	uint8_t *save;          /* candidate[] while it is narrowed */
} loc_tiers_t;

/* Sizes t's scratch for nnodes nodes: placing allocates nothing after.
 * Returns 0, or LOC_ENOMEM with err filled. */
int loc_tiers_init(loc_tiers_t *t, int nnodes, loc_error_t *err);

/* Frees t's scratch; accepts a zeroed t. */
void loc_tiers_fini(loc_tiers_t *t);

/*
 * Sets the weights (borrowed until the next call) and finds the levels
 * among the nodes with use[g] set (NULL: every node). A handful of
 * distinct weights is found by linear search, O(N x levels); past 32
 * they are sorted. Returns the number of levels.
 */
int loc_tiers_set(loc_tiers_t *t, const uint64_t *weight, const uint8_t *use);

/* Forgets the weights: loc_tiers_place() then places once. */
void loc_tiers_clear(loc_tiers_t *t);

/* Places the job on the candidate[] it is handed at the time: 0, LOC_ENOFIT
 * or another LOC_E* code. */
typedef int (*loc_tiers_place_f)(void *arg);

/*
 * Calls place(arg) with candidate[] narrowed to the lightest tiers whose
 * candidates number at least need, plus the required nodes whatever their
 * tier; while it returns LOC_ENOFIT, widens to heavier tiers (at least
 * doubling the candidates each time) and calls it again, up to every
 * candidate. candidate[] is restored before returning. Returns place's
 * last code. With fewer than two levels, one call on candidate[] as it is.
 */
int loc_tiers_place(loc_tiers_t *t, uint8_t *candidate, const int *required,
		    int nrequired, int need, loc_tiers_place_f place,
		    void *arg);

/*
 * loc_alloc_select() by loc_tiers_place(), for drivers that make one
 * request per placement: the request's required nodes and node count
 * set the tiers; view->candidate must be cand, which is narrowed in place
 * and restored. *calls (if not NULL) counts the allocator's calls.
 */
int loc_tiers_select(loc_tiers_t *t, loc_alloc_t *alloc,
		     const loc_request_t *req, uint8_t *cand,
		     const loc_view_t *view, int *out, int64_t *calls,
		     loc_error_t *err);

/*
 * Parses a weight given as on slurm.conf's node lines, "NODES=W" (the
 * drivers' --node-weight): NODES a hostlist expression, W an integer from
 * 0 to 4294967295 (Slurm's Weight range). Fills *nodes (free with
 * loc_hostlist_free()) and *weight. Returns 0, or LOC_EPARSE with err
 * filled and *nodes empty.
 */
int loc_tiers_parse_weight(const char *spec, loc_hostlist_t *nodes,
			   uint64_t *weight, loc_error_t *err);

#endif /* LOC_TIERS_H */
