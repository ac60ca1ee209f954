/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_adjest.h - AdjEst (seed 004, sec. III-C): per-user walltime
 * estimates adjusted from the accuracy of the user's finished jobs.
 */
#ifndef LOC_WALLTIME_ADJEST_H
#define LOC_WALLTIME_ADJEST_H

#include <stdint.h>

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

#endif /* LOC_WALLTIME_ADJEST_H */
