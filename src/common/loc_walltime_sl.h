/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_sl.h - the SL score (seed 004, Algorithm 1): how well a
 * placement's end time matches its busy neighbours'. SL itself runs inside
 * loc_alloc_select() (policy.walltime SL/COMBO/ADJEST), which calls this;
 * drivers call it for tests and logs.
 */
#ifndef LOC_WALLTIME_SL_H
#define LOC_WALLTIME_SL_H

#include <stdint.h>

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

#endif /* LOC_WALLTIME_SL_H */
