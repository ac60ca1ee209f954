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
 * partner has lower priority than job_priority. Returns the number of
 * nodes cleared.
 */
int loc_holds_filter(const loc_holds_t *holds, uint32_t job_id,
		     uint32_t job_priority, int64_t now, const uint8_t *in,
		     uint8_t *out);

/* Whether job partner_id holds every one of nodes[0..k-1] (k >= 1) at
 * now: a partner that starts there took its region. */
bool loc_holds_covers(const loc_holds_t *holds, uint32_t partner_id,
		      int64_t now, const int *nodes, int k);

/* Copies the live region held for job partner_id at now into nodes
 * (room for max) and returns its size, or 0 when it has none. */
int loc_holds_region(const loc_holds_t *holds, uint32_t partner_id,
		     int64_t now, int *nodes, int max);

/* Returns the number of active holds; fills nodes_held if not NULL. */
int loc_holds_count(const loc_holds_t *holds, int *nodes_held);

#endif /* LOC_WALLTIME_HOLDS_H */
