/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_patience.h - a bounded wait for a compact placement.
 *
 * A job that could start now, but only on nodes much less compact than it
 * would get with all its usable nodes free, may wait a little for a better
 * set, in the spirit of Slurm's --switches=N@time: never longer than
 * CompactWait seconds after its wait began. Both drivers ask the same
 * question here (the plugin in job_test, the replay in its scheduling
 * pass); each computes the reference, the total pairwise hops of the
 * placement the job's strategy makes on its usable nodes all idle.
 *
 * The wait begins the first time the job could start (a placement was
 * found for it now), as Slurm's --switches wait begins when the select
 * plugin first evaluates the job: a job that queued behind others for
 * nodes to free up still has its whole patience when they do, rather
 * than none left to take the first scattered set. Each driver keeps the
 * time (the plugin in the job's wait4switch_start); loc_patience_began()
 * is the rule.
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

/* A wait that has not begun. */
#define LOC_PATIENCE_UNSET INT64_MIN

/*
 * When the wait of a job judged at `now` began: *began, or now when it
 * has not begun (LOC_PATIENCE_UNSET). `offered_now` says the placement
 * judged is one the job could take now (not a projected one): then the
 * wait begins if it had not, and *began is set.
 */
int64_t loc_patience_began(int64_t *began, int64_t now, bool offered_now);

/* The time after which a job whose wait began at `began` never waits
 * (equal to began when the policy is off). */
int64_t loc_patience_deadline(const loc_policy_t *policy, int64_t began);

#endif /* LOC_PATIENCE_H */
