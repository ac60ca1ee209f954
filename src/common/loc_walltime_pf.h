/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_pf.h - PF (seed 004, Algorithm 2): the partner a placed job
 * waits beside, and the idle region next to the placement it would take.
 * The region is found by running the allocator's own strategy, so this
 * module calls loc_alloc_select(); the allocator never calls PF.
 */
#ifndef LOC_WALLTIME_PF_H
#define LOC_WALLTIME_PF_H

#include <stdint.h>

#include "loc_error.h"
#include "loc_strategy.h"

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

#endif /* LOC_WALLTIME_PF_H */
