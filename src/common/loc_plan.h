/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_plan.h - earliest start: when, and on which nodes, could a job
 * start if the running jobs end when they are expected to?
 *
 * This is the question sched/backfill asks the plugin (job_test in
 * WILL_RUN mode) and the one EASY asks for its reservation in the replay:
 * one planner answers it for both drivers, so they cannot disagree.
 *
 * The driver owns the projected state (which nodes are candidates, what
 * each running job holds) and the placement itself (weight tiers, node
 * counts, the strategy); the planner owns the order of events and the
 * CompactWait rule of the answer:
 *   1. place the job now;
 *   2. if nothing fits, or the job declines what fits, let the driver widen
 *      "now" once (the plugin drops PF holds and frees preemptable jobs);
 *   3. release the running jobs in order of their expected ends, every job
 *      ending at one time together (or, with a window, every job ending in
 *      one window of end times, offered at the window's last end, as
 *      select/cons_tres answers sched/backfill), and place again after
 *      each release that leaves enough candidates;
 *   4. the first placement the job takes is the answer (with
 *      PlanHold=released, a later start holds released nodes: below).
 * A job waiting for a compact set (CompactWait, loc_patience.h) that
 * declines the placement it could take now gets no answer (LOC_ENOFIT,
 * ans->waiting): it starts when a compact set is free now, or at its
 * deadline on what is free then, and reserves nothing meanwhile.
 * sched/backfill reserves nodes for every job it plans, so a reservation
 * for each waiting job would hold free nodes idle until its compact set
 * came: on the live benchmark that cost 5-16% of mean wait. A job that
 * cannot start now judges every later placement with the patience it has
 * now, so its answer is the first compact set, even past its deadline (a
 * reservation on a scattered set would keep free nodes idle for it); the
 * declined set is the answer only when nothing compact ever comes: the
 * latest one offered no later than the deadline, at the deadline.
 *
 * Which nodes a later start holds (PlanHold, loc_strategy.h):
 * sched/backfill keeps a planned job's nodes from every job that would
 * still run at its start, and with time limits far above run times that
 * is every job it could start instead, so a free node in the answer
 * stands idle until then (as does a node of EASY's reservation in the
 * replay). The nodes released by running jobs cost nothing to hold: they
 * are busy until the start anyway. With PlanHold=released the driver
 * offers place_released, and when the answer starts later than now the
 * job is placed once more as of that time on the released nodes alone;
 * that set, where it fits, is the answer's. The start and the CompactWait
 * judgment stay those of the first placement; the job itself is placed
 * afresh when it starts. The default, PlanHold=placement, holds the
 * placement: backfilled jobs then cannot crowd the job's compact set,
 * which on traces with ordinary time limits kept sets closer
 * (doc/performance.md).
 */
#ifndef LOC_PLAN_H
#define LOC_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_error.h"

typedef struct loc_planner loc_planner_t;

/* What the planner asks of the driver. arg is the driver's. */
typedef struct loc_plan_ops {
	/*
	 * Places the job on the projected candidates as of time t, writing
	 * the nodes to out[] and their count to *k. Returns 0, LOC_ENOFIT,
	 * or another LOC_E* code, which ends the plan with that code.
	 */
	int (*place)(void *arg, int64_t t, int *out, int *k);
	/*
	 * Frees running job i (an index into the request's ends[]) in the
	 * projection. Returns how many nodes became candidates.
	 */
	int (*release)(void *arg, int i);
	/*
	 * Optional (NULL: never). Whether the job declines out[0..k), offered
	 * at time t, to wait for a more compact set: 1 declines, 0 takes it,
	 * a negative LOC_E* code ends the plan.
	 */
	int (*declines)(void *arg, const int *out, int k, int64_t t);
	/*
	 * Optional (NULL: nothing to widen). Called once, when nothing was
	 * taken now, to widen the state as of now. Returns how many nodes
	 * became candidates (if any, the planner places again now).
	 */
	int (*widen_now)(void *arg);
	/*
	 * Optional (NULL: the answer keeps its placement). Places the job
	 * as of time t (later than now) on the nodes released since now,
	 * leaving out those that are candidates now, writing out[] and *k
	 * as place() does. Returns 0, LOC_ENOFIT (the answer keeps its
	 * placement) or another LOC_E* code, which ends the plan.
	 */
	int (*place_released)(void *arg, int64_t t, int *out, int *k);
} loc_plan_ops_t;

typedef struct loc_plan_request {
	int64_t now;
	const int64_t *ends;  /* expected end of each running job (borrowed) */
	int nrunning;
	int ncand;            /* projected candidates now */
	int need;             /* fewest candidates any placement needs */
	int64_t deadline;     /* CompactWait: a declined set is taken then */
	bool now_only;        /* only now (Slurm's TEST_NOW_ONLY) */
	int64_t window;       /* PlanWindow: seconds of end times released
			       * together (0: each end time on its own) */
} loc_plan_request_t;

typedef struct loc_plan_answer {
	int64_t start;        /* >= now */
	int k;                /* nodes in out[] */
	bool declined;        /* a set the job declined, taken at its deadline */
	bool waiting;         /* with LOC_ENOFIT: it declined what is free now */
	bool released;        /* out[] is on released nodes (place_released) */
	int attempts;         /* place() calls: the plan's cost */
} loc_plan_answer_t;

/*
 * Creates a planner for machines of up to nnodes nodes. Its scratch is
 * sized here, so planning allocates nothing while the number of running
 * jobs stays within nnodes (it grows once past that). Returns NULL with
 * err filled.
 */
loc_planner_t *loc_planner_create(int nnodes, loc_error_t *err);

/* Frees p; accepts NULL. */
void loc_planner_destroy(loc_planner_t *p);

/*
 * The earliest start of the job, as above. out[] must hold nnodes ints.
 * Returns 0 with *ans and out[0..ans->k) set, LOC_ENOFIT when the job
 * cannot start even with every running job gone (or not now, with
 * now_only) or waits for a compact set (ans->waiting), or another LOC_E*
 * code (from the driver, or LOC_ENOMEM).
 */
int loc_plan_earliest(loc_planner_t *p, const loc_plan_request_t *req,
		      const loc_plan_ops_t *ops, void *arg, int *out,
		      loc_plan_answer_t *ans, loc_error_t *err);

/*
 * For a driver's place_released over a candidate byte map: keeps in
 * cand[0..n) only the candidates that cand_now[] (the map as of now) does
 * not hold, and returns how many; loc_plan_unnarrow() puts those of now
 * back after the placement. They are candidates still at the later time:
 * as time passes running jobs only release nodes.
 */
int loc_plan_narrow_to_released(uint8_t *cand, const uint8_t *cand_now,
				int n);
void loc_plan_unnarrow(uint8_t *cand, const uint8_t *cand_now, int n);

#endif /* LOC_PLAN_H */
