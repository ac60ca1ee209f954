/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_ideal.h - the ideal placement of k nodes: the most compact set
 * (least total pairwise hops) that any of the core's exact or near-exact
 * strategies (mm_inc, mc1x1, box, span) finds on the idle machine. No
 * placement under load does better than the best of these on an empty
 * grid, so a job's hops over its size's ideal say what is left to gain.
 * The replay's x_ideal and, through locality-eval --ideal, the live
 * benchmarks' and the demo's all divide by it.
 *
 * Results are cached per size: ask for the sizes of a whole workload and
 * each is computed once.
 */
#ifndef LOC_IDEAL_H
#define LOC_IDEAL_H

#include <stdint.h>

#include "loc_error.h"
#include "loc_grid.h"
#include "loc_strategy.h"

typedef struct loc_ideal loc_ideal_t;

/*
 * Creates the ideal table for grid (borrowed; must outlive the table).
 * policy (copied; may be NULL for the defaults) supplies the curve and
 * the strategies' tuning; its strategy, walltime mode and waits are
 * ignored. Returns the table (free with loc_ideal_destroy), or NULL with
 * err filled.
 */
loc_ideal_t *loc_ideal_create(const loc_grid_t *grid,
			      const loc_policy_t *policy, loc_error_t *err);

/* Frees ideal; accepts NULL. */
void loc_ideal_destroy(loc_ideal_t *ideal);

/*
 * Returns the least total pairwise hops of k nodes on the idle machine
 * (0 when k is 1), or LOC_ERANGE when k is below 1 or above the node
 * count, or another negative LOC_E* code with err filled.
 */
int64_t loc_ideal_total_pair_hops(loc_ideal_t *ideal, int k,
				  loc_error_t *err);

/*
 * The same as a mean over the k (k - 1) / 2 pairs, the figure per-job
 * metrics report (loc_metrics_t.avg_pair_hops). Returns it (0 when k is
 * 1), or a negative LOC_E* code as above.
 */
double loc_ideal_avg_pair_hops(loc_ideal_t *ideal, int k, loc_error_t *err);

#endif /* LOC_IDEAL_H */
