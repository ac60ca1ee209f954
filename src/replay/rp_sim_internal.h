/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sim_internal.h - what the files of the queue simulator share: the
 * simulation's state and the calls each makes into the other. The event
 * loop and job state are in rp_sim.c, placement and the scheduling passes
 * in rp_sim_sched.c, conservative backfilling in rp_sim_conservative.c,
 * PF's pairs and holds in rp_sim_pf.c. Only for src/replay/rp_sim*.c.
 */
#ifndef RP_SIM_INTERNAL_H
#define RP_SIM_INTERNAL_H

#include "loc_claim.h"
#include "loc_patience.h"
#include "loc_plan.h"
#include "loc_tiers.h"
#include "loc_walltime.h"
#include "rp_sim.h"

enum { J_PENDING = 0, J_WAITING, J_RUNNING, J_DONE, J_REJECTED };

typedef struct ent {
	int64_t t;
	int j;
} ent_t;

typedef struct prio {
	double p;
	int j;
} prio_t;

typedef struct sim {
	const rp_job_t *jobs;
	int njobs;
	loc_alloc_t *alloc;
	const loc_grid_t *grid;
	rp_sim_opts_t o;
	rp_run_t *run;
	loc_error_t *err;
	int n;

	uint8_t *free; /* 1 = idle */
	int nfree;
	int *owner;	  /* job on each node, -1 */
	int64_t *busy;	  /* expected end (placement estimate), 0 = idle */
	uint8_t *all;	  /* all ones: the empty machine */
	uint8_t *resv;	  /* the pivot's reserved nodes */
	uint8_t *cand_nr; /* free and not reserved */
	int nresv_free;	  /* reserved nodes that are free now */
	bool resv_phase;  /* backfilling behind a pivot */
	uint8_t *proj;	  /* projected free nodes */
	uint8_t *released; /* ... that are busy now (place_released) */
	int *out, *out2, *out3;
	loc_planner_t *planner; /* EASY's reservation */
	loc_tiers_t tiers;	/* node weights (loc_tiers.h) */
	bool weighted;		/* ... set: NodeWeight=tiers and weights */
	loc_claims_t claims;	/* o.claims: by node, job index + 1 */
	uint64_t *claim_weight; /* a try's weights, with the claims */
	int64_t *ends;		/* expected end of each running job (heap order) */

	ent_t *heap; /* running jobs by actual end */
	int nheap;
	int *queue; /* waiting jobs, arrival order */
	int nq;
	uint8_t *state;
	prio_t *pbuf;
	int *order; /* this pass's priority order */
	int norder;
	loc_pf_job_t *pfq;
	loc_holds_t *holds; /* PF's held regions (NULL: pf_with_job or no PF) */
	uint8_t *unheld;    /* a candidate map less the holds that apply */
	uint8_t *in_region; /* a partner's region among its candidates */

	uint32_t ver;	   /* bumped whenever the free set changes */
	uint32_t nr_stamp; /* bumped whenever cand_nr changes */
	uint32_t *fail_free, *fail_nr;
	int8_t *empty_fit;
	loc_adjest_t *adj;
	const loc_policy_t *pol;
	int64_t *ref_hops; /* per size: hops on the idle machine, -1 = not yet */
	int64_t wake;	   /* next time a deferred job stops waiting */
	loc_patience_t *patience; /* per job: its CompactWait */
	int done;
	int snap_next;
	struct rp_cons *cons; /* RP_SCHED_CONSERVATIVE's plan, or NULL */
} sim_t;

/* rp_sim.c: job state. */

/* The walltime estimate placement uses for job j. */
int64_t rp__sim_place_est(const sim_t *s, int j);

/* Starts job j at now on nodes (job->nodes of them). */
void rp__sim_start(sim_t *s, int j, int64_t now, const int *nodes);

/* rp_sim_pf.c: PF's pairs and held regions. */

/* Whether a walltime mode pairs jobs (PF: pf, combo, adjest, actrun). */
bool rp__sim_pf_mode(rp_wmode_t m);

/* Job j's turn in a pass went by without it starting: its PF hold, if
 * any, ends (as select/locality's does when the partner misses its
 * region), and the region is free for the jobs after it. */
void rp__sim_turn_passed(sim_t *s, int j);

/* cand less the regions held for jobs that outrank job j (j < 0: every
 * hold), in s->unheld; cand itself when there are none. */
uint8_t *rp__sim_unheld(sim_t *s, int j, int64_t now, uint8_t *cand);

/* At its turn a partner takes its held region when all of it is still
 * among its candidates (loc_holds_turn(), the plugin's rule too); else its
 * hold ends. Returns 1 with the region in s->out, or 0. */
int rp__sim_own_region(sim_t *s, int j, int64_t now, const uint8_t *cand);

/* PF (seed 004 Alg. 2) after job j started: hold the idle neighbour
 * region of its placement for the waiting job of the same size and the
 * closest walltime (or start that job there, pf_with_job). 0 or LOC_E*. */
int rp__sim_pair(sim_t *s, int j, int64_t now);

/* rp_sim_sched.c: placement and scheduling. */

/* CompactWait's judgement of job j on nodes at time t, the patience it
 * has now: 1 to decline, 0 to take them, or a negative LOC_E* code.
 * `offered`: the offer begins the job's wait (loc_patience_began());
 * *began, when given, is when the wait began. */
int rp__sim_declines(sim_t *s, int j, int64_t now, int64_t t,
		     const int *nodes, bool offered, int64_t *began);

/* One placement by the run's allocator, in the lightest weight tiers. */
int rp__sim_select(sim_t *s, const loc_request_t *req, uint8_t *cand,
		   const loc_view_t *view, int *out, loc_error_t *err);

/* CompactWait: 1 when job j, offered nodes at time t (projected: a
 * planned start, not now), waits for a more compact set, 0 when it takes
 * them, or a negative LOC_E* code. */
int rp__sim_patient(sim_t *s, int j, int64_t now, int64_t t,
		    const int *nodes, bool projected);

/* Tries to start job j now on cand: 1 started, 0 does not fit, 2 waits
 * for a compact set, or a negative LOC_E* code. */
int rp__sim_try(sim_t *s, int j, int64_t now, uint8_t *cand);

/* Whether a job of k nodes fits the empty machine at all (cached): 1, 0
 * or a negative LOC_E* code; also records the CompactWait reference. */
int rp__sim_fits_empty(sim_t *s, int k);

/* One scheduling pass at now (FCFS, EASY or conservative). Returns 0 or
 * LOC_E*. */
int rp__sim_schedule(sim_t *s, int64_t now);

/* rp_sim_conservative.c: conservative backfilling. */

/* Makes s->cons (sized for s->n nodes and s->njobs jobs). 0 or LOC_ENOMEM. */
int rp__sim_cons_create(sim_t *s);
void rp__sim_cons_destroy(sim_t *s);

/* The pass over s->order (already in priority order). 0 or LOC_E*. */
int rp__sim_conservative(sim_t *s, int64_t now);

#endif /* RP_SIM_INTERNAL_H */
