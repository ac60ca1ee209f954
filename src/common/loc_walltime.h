/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime.h - walltime-aware allocation shared by both drivers
 * (seed 004, Tang et al. IPDPS 2011): SL scoring, PF partner choice and
 * region holds, AdjEst walltime adjustment.
 *
 * SL itself runs inside loc_alloc_select() (policy.walltime SL/COMBO/
 * ADJEST); this header gives its score function for tests and logs, and
 * the pieces a driver needs for PF and AdjEst.
 */
#ifndef LOC_WALLTIME_H
#define LOC_WALLTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_error.h"
#include "loc_grid.h"
#include "loc_strategy.h"

/*
 * SL score of a placement: the mean over the busy nodes adjacent to the
 * placement (one hop away or sharing a point, not in it, busy_until > now)
 * of |busy_until - expected_end|. Returns that mean in seconds, or -1 when
 * the placement has no busy neighbour (or expected_end is 0).
 */
double loc_sl_score(const loc_grid_t *grid, const loc_view_t *view,
		    int64_t expected_end, const int *nodes, int k);

/* A waiting job as PF sees it (the driver's queue, in priority order). */
typedef struct loc_pf_job {
	uint32_t job_id;
	int nodes;         /* requested node count */
	int64_t walltime;  /* (adjusted) walltime estimate, seconds */
} loc_pf_job_t;

/*
 * PF partner choice: among queue[0..n-1] (skip index self, or -1), the job
 * with exactly `nodes` nodes whose walltime is closest to `walltime`
 * (earliest in queue on ties). Returns its index, or -1 when none.
 */
int loc_pf_pick_partner(const loc_pf_job_t *queue, int n, int self, int nodes,
			int64_t walltime);

/*
 * PF idle neighbour region: after placing `placed` (k nodes), finds k
 * candidate nodes (view->candidate, not in placed) adjacent to the
 * placement and as compact as the allocator's strategy can make them,
 * by running alloc's strategy on the candidates within reach of the
 * placement. Writes them in ascending order to out.
 * Returns 0, or LOC_ENOFIT when no idle region of k nodes touches it.
 */
int loc_pf_neighbor_region(loc_alloc_t *alloc, const loc_view_t *view,
			   const int *placed, int k, int *out,
			   loc_error_t *err);

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

/* Returns the number of active holds; fills nodes_held if not NULL. */
int loc_holds_count(const loc_holds_t *holds, int *nodes_held);

/*
 * AdjEst (seed 004 sec. III-C; Tang et al.'s walltime adjusting): per-user
 * history of accuracy = actual runtime / requested walltime. The adjusted
 * estimate is requested * (mean accuracy of the user's last `window`
 * finished jobs), clamped to [min_runtime, requested]; users without
 * history keep their request. Used for placement only.
 */
typedef struct loc_adjest loc_adjest_t;

/* The floor of an adjusted estimate (min_runtime above), seconds; a
 * request shorter than this is kept as it is. */
#define LOC_ADJEST_MIN_RUNTIME_SEC 60

/* Returns an empty history keeping `window` (>= 1) jobs per user. */
loc_adjest_t *loc_adjest_create(int window);
void loc_adjest_destroy(loc_adjest_t *adj);

/* Records a finished job of user. Returns 0 or LOC_ENOMEM. */
int loc_adjest_record(loc_adjest_t *adj, uint32_t user, int64_t requested,
		      int64_t actual);

/* Returns the adjusted walltime for user's next request. */
int64_t loc_adjest_estimate(const loc_adjest_t *adj, uint32_t user,
			    int64_t requested);

#endif /* LOC_WALLTIME_H */
