/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_holds.h - soft holds of the node regions PF chose for its
 * partners, for a driver that cannot start the partner itself.
 */
#ifndef LOC_WALLTIME_HOLDS_H
#define LOC_WALLTIME_HOLDS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Soft holds of node regions for chosen PF partners (the plugin cannot
 * start the partner itself). A hold expires at its deadline and is
 * ignored for any job with higher priority than the partner, so it never
 * starves anyone.
 */
typedef struct loc_holds loc_holds_t;

/* Returns an empty hold set for nnodes nodes, or NULL on ENOMEM. */
loc_holds_t *loc_holds_create(int nnodes);
/* Frees holds; accepts NULL. */
void loc_holds_destroy(loc_holds_t *holds);

/*
 * Holds nodes[0..k-1] for job partner_id (whose priority is
 * partner_priority) until `expires`. Replaces any hold for that job.
 * Returns 0 or LOC_ENOMEM.
 */
int loc_holds_add(loc_holds_t *holds, uint32_t partner_id,
		  uint32_t partner_priority, const int *nodes, int k,
		  int64_t expires);

/* Drops the hold of job partner_id (it started or left). Returns 0 or
 * LOC_ENOENT. */
int loc_holds_release(loc_holds_t *holds, uint32_t partner_id);

/* Drops every hold whose deadline is <= now. Returns how many. */
int loc_holds_expire(loc_holds_t *holds, int64_t now);

/*
 * Applies the holds to a candidate map for job job_id with priority
 * job_priority at time now: copies in[] to out[] (nnodes each) with held
 * nodes cleared, except nodes held for job_id itself and holds whose
 * partner the job outranks: a lower priority, or the same and a higher
 * id (slurmctld queues equal priorities by submit time, then id; both
 * drivers number jobs in submit order). job_id 0 is no job: every live
 * hold applies. Returns the number of nodes cleared.
 */
int loc_holds_filter(const loc_holds_t *holds, uint32_t job_id,
		     uint32_t job_priority, int64_t now, const uint8_t *in,
		     uint8_t *out);

/* Whether job partner_id holds every one of nodes[0..k-1] (k >= 1) at
 * now: a partner that starts there took its region. */
bool loc_holds_covers(const loc_holds_t *holds, uint32_t partner_id,
		      int64_t now, const int *nodes, int k);

/*
 * A partner's turn, as select/locality and the replay both play it: the
 * partner places on its held region first, with no CompactWait question
 * (it was asked when the region was held). Writes the nodes of job
 * partner_id's live region that are still in cand[] to in_region[] (a map
 * of nnodes) and returns their count when it is at least need; returns 0
 * when the partner has no live hold, and LOC_ENOFIT when fewer than need
 * of its region are left (a job of higher priority took part of it, a
 * node went down): that turn ends its hold.
 */
int loc_holds_turn(const loc_holds_t *holds, uint32_t partner_id,
		   int64_t now, const uint8_t *cand, int need,
		   uint8_t *in_region);

/* Whether job partner_id has a live hold at now: PF chooses no partner
 * that has one (select/locality and the replay alike). */
bool loc_holds_has(const loc_holds_t *holds, uint32_t partner_id,
		   int64_t now);

/* The partner of the i-th hold (0 <= i < loc_holds_count()), or 0. */
uint32_t loc_holds_partner(const loc_holds_t *holds, int i);

/* Returns the number of active holds; fills nodes_held if not NULL. */
int loc_holds_count(const loc_holds_t *holds, int *nodes_held);

#endif /* LOC_WALLTIME_HOLDS_H */
