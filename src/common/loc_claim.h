/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_claim.h - where a job that waits for a compact set lets nodes drain.
 *
 * A job that declines a scattered set (CompactWait, loc_patience.h) waits
 * for a compact one to free up; meanwhile the jobs started behind it take
 * the nodes that free up wherever they are, so on a busy machine a large
 * compact set may not free up before its patience runs out. A claim
 * names one region, the translate of the job's compact placement (as made
 * on its usable nodes all idle) that holds the most nodes idle now, where
 * other jobs go only when the rest of their candidates cannot hold them,
 * so the region drains as its running jobs end. On a torus each translate
 * is exactly as compact as the placement; on a mesh only those that stay
 * inside it are tried.
 */
#ifndef LOC_CLAIM_H
#define LOC_CLAIM_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_error.h"
#include "loc_grid.h"

/* The most node visits one search makes: a larger machine tries every
 * n-th translate (the placement itself always). */
#define LOC_CLAIM_BUDGET (1 << 22)

/*
 * The translate of place[0..k) (grid nodes, as a strategy placed them on
 * usable[] nodes) lying wholly on usable[] nodes with the most idle[]
 * ones, in out[0..k); ties go to the placement itself, then to the
 * translates in point order from it.
 * Returns how many of its nodes are idle, or LOC_E* with err filled
 * (LOC_ENOFIT: no translate lies on usable nodes).
 */
int loc_claim_region(const loc_grid_t *grid, const int *place, int k,
		     const uint8_t *usable, const uint8_t *idle, int *out,
		     loc_error_t *err);

/*
 * The claims in force, kept by a driver between its placements: the
 * plugin under its lock across evaluations, the replay across passes.
 * A job holds at most one; regions are disjoint. Job ids are the
 * driver's (0 is none).
 */
#define LOC_CLAIMS_MAX 64 /* CompactClaims' most */
typedef struct loc_claims {
	int n;
	struct {
		uint32_t job_id;
		int64_t until; /* its CompactWait's end */
	} c[LOC_CLAIMS_MAX];
	int nnodes;
	uint32_t *owner; /* by node: the claiming job, or 0 */
	int *region;     /* a region, while it is made */
	uint8_t *usable; /* its usable nodes, meanwhile */
} loc_claims_t;

/* Sizes c for nnodes nodes, with no claim. 0 or LOC_ENOMEM. */
int loc_claims_init(loc_claims_t *c, int nnodes, loc_error_t *err);

/* Frees c; accepts a zeroed c. */
void loc_claims_fini(loc_claims_t *c);

/* Ends claim i: its nodes are no one's, and the last claim takes its
 * slot (so a loop over claims does not advance i after a drop). */
void loc_claims_drop(loc_claims_t *c, int i);

/* Whether job_id holds a claim. */
bool loc_claims_held(const loc_claims_t *c, uint32_t job_id);

/*
 * Job job_id, which waits until `until`, claims the region
 * loc_claim_region() finds for place[0..k) on usable[] nodes off the
 * other claims and, with weight[] (NodeWeight=tiers; NULL: none), no
 * heavier than the heaviest node of place (a region the job would not be
 * placed on does not drain for it), idle[] being the nodes it could take
 * now, unless `max`
 * claims (CompactClaims, at most LOC_CLAIMS_MAX) are in force. Returns
 * the region's idle nodes (>= 0), or with err filled and no claim made
 * LOC_EEXIST (the job holds one), LOC_ERANGE (max are in force),
 * LOC_ENOFIT (no translate lies off the claims) or LOC_EINVAL.
 */
int loc_claims_make(loc_claims_t *c, const loc_grid_t *grid, int max,
		    uint32_t job_id, int64_t until, const int *place, int k,
		    const uint8_t *usable, const uint64_t *weight,
		    const uint8_t *idle, loc_error_t *err);

/*
 * Makes other jobs' claims a tier just heavier for job `self`: each of
 * its cand[] nodes claimed by another job gets weight[] + 1, so the
 * caller leaves a gap between weights (the plugin the low byte, the
 * replay a factor of two). Without weights of their own (tiers false)
 * the candidates' weight[] is set to 0 first, and the claimed ones
 * are the one heavier tier. Returns whether any candidate is claimed
 * (weight[] is untouched when none is).
 */
bool loc_claims_weigh(const loc_claims_t *c, uint32_t self,
		      const uint8_t *cand, uint64_t *weight, bool tiers);

#endif /* LOC_CLAIM_H */
