/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_share.h - a job that shares nodes takes nodes already in use
 * before idle ones, where that costs no hops (SharedNodes=first).
 *
 * An idle node is the only kind a whole-node job can use; a job that
 * shares cores leaves an idle node partly used, and the compact set a
 * large whole-node job waits for then comes later. So, once the core has
 * chosen a set, each idle node in it is swapped for an in-use candidate
 * outside it wherever the set's total pairwise hops do not grow. Each
 * swap takes the largest saving of hops (then the lower nodes), keeps the
 * set's capacity (the CPUs the job can use) at or above what it needs
 * and never brings in a node heavier than the one it replaces (weight
 * tiers and claims keep their meaning). Every swap turns an idle member
 * in-use, so there are at most k of them.
 *
 * Cost: the pool is the in-use candidates no farther from the set's
 * first node than the set's diameter plus its radius from that node (no
 * farther node can be swapped in at no cost: loc_share.c), found with
 * one hop count per node, O(N), plus O(k^2) for the bound; each pool
 * node is weighed against the set, O(pool x k); each swap compares every
 * idle member with every pool node, O(pool x k), and widens the pool
 * (again O(N + pool x k)) only when the new member widens the set. It
 * stops once about LOC_SHARE_WORK pairs have been compared, keeping the
 * set as far as it got: never worse in hops.
 */
#ifndef LOC_SHARE_H
#define LOC_SHARE_H

#include <stdint.h>

#include "loc_error.h"
#include "loc_grid.h"

#define LOC_SHARE_WORK (1L << 20)

/* Scratch for one machine: placing allocates nothing after init. */
typedef struct loc_share {
	int nnodes;
	int64_t *sum; /* per node: total hops to the set's members */
	uint8_t *in;  /* per node: a member of the set */
	int *pool;    /* the in-use candidates near the set */
} loc_share_t;

/* What one job may take: arrays by node, borrowed for the call. */
typedef struct loc_share_job {
	const uint8_t *candidate; /* may be given to the job */
	const uint8_t *in_use;    /* runs other jobs already */
	const uint32_t *capacity; /* what each node gives the job, or NULL
				   * (capacity plays no part) */
	uint64_t need;            /* the set's capacity must stay >= this */
	const uint64_t *weight;   /* or NULL: weights play no part */
} loc_share_job_t;

/* Sizes s for nnodes nodes. Returns 0, or LOC_ENOMEM with err filled. */
int loc_share_init(loc_share_t *s, int nnodes, loc_error_t *err);

/* Frees s; accepts a zeroed s. */
void loc_share_fini(loc_share_t *s);

/*
 * Swaps idle members of set[0..k) for in-use candidates as the rule
 * above says, in place (the order of set[] is not kept). Every member
 * must be a candidate. Returns the number of swaps.
 */
int loc_share_first(loc_share_t *s, const loc_grid_t *grid,
		    const loc_share_job_t *job, int *set, int k);

#endif /* LOC_SHARE_H */
