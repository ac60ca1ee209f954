/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_patience.h - a bounded wait for a compact placement.
 *
 * A job that could start now, but only on nodes much less compact than it
 * would get with all its usable nodes free, may wait a little for a better
 * set, in the spirit of Slurm's --switches=N@time: never longer than
 * CompactWait seconds after it became eligible. Both drivers ask the same
 * question here (the plugin in job_test, the replay in its scheduling
 * pass); each computes the reference, the total pairwise hops of the
 * placement the job's strategy makes on its usable nodes all idle.
 */
#ifndef LOC_PATIENCE_H
#define LOC_PATIENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_strategy.h"

/*
 * Whether a job of k nodes that has waited `waited` seconds should decline
 * a placement of total pairwise hops `hops` and wait: true when the policy
 * is on (compact_wait > 0), k >= 2, waited < compact_wait and hops exceed
 * (1 + compact_tolerance) x reference. A reference <= 0 (the strategy
 * cannot place k even on idle nodes) never defers.
 */
bool loc_patience_defer(const loc_policy_t *policy, int k, int64_t hops,
			int64_t reference, int64_t waited);

/* The time after which a job eligible at `eligible` never waits (equal to
 * eligible when the policy is off). */
int64_t loc_patience_deadline(const loc_policy_t *policy, int64_t eligible);

#endif /* LOC_PATIENCE_H */
