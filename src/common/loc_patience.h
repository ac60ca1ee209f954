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
 * than none left to take the first scattered set. A job offered a set
 * at once, on leftover nodes, and then offered nothing for longer than
 * CompactWait was queued, not waiting for compactness: its wait begins
 * again at its next offer, once (so it declines sets for at most twice
 * CompactWait in all). Live, most jobs that then took scattered sets
 * had declined one such set within seconds of submission and queued
 * 30-45 s after it (doc/experiments.md). Each driver keeps the state
 * (the plugin the start in the job's wait4switch_start);
 * loc_patience_began() is the rule.
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

/* A wait that has not begun, a job never offered a set. */
#define LOC_PATIENCE_UNSET INT64_MIN

/* How many times a job's wait may begin again after a queued spell. */
#define LOC_PATIENCE_RESTARTS 1

/* One job's wait for a compact set. */
typedef struct loc_patience {
	int64_t began;	 /* when it began, or LOC_PATIENCE_UNSET */
	int64_t offered; /* the last offer now, or LOC_PATIENCE_UNSET */
	int restarts;	 /* times it began again */
} loc_patience_t;

#define LOC_PATIENCE_INIT \
	{ LOC_PATIENCE_UNSET, LOC_PATIENCE_UNSET, 0 }

/*
 * When the wait of a job judged at `now` began: p->began, or now when it
 * has not begun. `offered_now` says the placement judged is one the job
 * could take now (not a projected one): then the wait begins if it had
 * not, or begins again when the last offer is more than CompactWait old
 * (at most LOC_PATIENCE_RESTARTS times), and p records the offer.
 */
int64_t loc_patience_began(const loc_policy_t *policy, loc_patience_t *p,
			   int64_t now, bool offered_now);

/* The time after which a job whose wait began at `began` never waits
 * (equal to began when the policy is off). */
int64_t loc_patience_deadline(const loc_policy_t *policy, int64_t began);

#endif /* LOC_PATIENCE_H */
