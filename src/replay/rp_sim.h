/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sim.h - locality-replay's workload and event-driven queue simulator.
 *
 * A workload is a trace turned into jobs the simulator can run: sorted by
 * submit time, runtime truncated at the request, node counts scaled and
 * rounded, jobs larger than the machine set aside (reported, never lost).
 *
 * The simulator replays a workload on one allocator (loc_alloc_*), the
 * same code the Slurm plugin runs: FCFS or EASY backfilling, FCFS or WFP
 * priority (seed 004: (wait/requested)^3 x nodes), and the walltime-aware
 * modes of seed 004 (SL inside the allocator, PF and AdjEst here).
 */
#ifndef RP_SIM_H
#define RP_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_error.h"
#include "loc_grid.h"
#include "loc_strategy.h"
#include "loc_trace.h"

#define RP_NEVER INT64_MAX /* "no time" for reservations */

typedef enum rp_sched {
	RP_SCHED_FCFS = 0, /* the head blocks the queue */
	RP_SCHED_EASY,     /* EASY backfilling: one reservation, the head's */
	RP_SCHED_CONSERVATIVE, /* a reservation for every job tested, in
				* priority order, as sched/backfill plans */
} rp_sched_t;

/* "fcfs", "easy" or "conservative". */
const char *rp_sched_name(rp_sched_t sched);

/* RP_SCHED_CONSERVATIVE's limits, as sched/backfill's defaults:
 * bf_max_job_test (jobs tested per pass) and bf_window (seconds ahead a
 * reservation may start). */
#define RP_BF_DEPTH_DEFAULT 500
#define RP_BF_WINDOW_DEFAULT (1440 * 60)

typedef enum rp_prio {
	RP_PRIO_FCFS = 0, /* submit order */
	RP_PRIO_WFP,      /* (wait / requested)^3 x nodes, highest first */
} rp_prio_t;

/* Why a job did not run. */
typedef enum rp_reject {
	RP_OK = 0,
	RP_REJECT_TOO_LARGE,  /* more nodes than the machine has */
	RP_REJECT_NO_FIT,     /* the strategy cannot place it on an empty
			       * machine (e.g. box: no box of that size) */
	RP_REJECT_COUNT
} rp_reject_t;

const char *rp_reject_name(int reason);

/* A job as the simulator sees it. */
typedef struct rp_job {
	int trace_index;   /* into the trace's jobs */
	int64_t submit;
	int64_t runtime;   /* actual, truncated at request */
	int64_t request;   /* walltime request (>= 1): the estimate used for
			    * backfilling, WFP and placement */
	int nodes;         /* requested node count (>= 1) */
	uint32_t user;
	rp_reject_t reject; /* RP_REJECT_TOO_LARGE set by the workload */
} rp_job_t;

typedef enum rp_round {
	RP_ROUND_NONE = 0,
	RP_ROUND_POW2, /* next power of two, capped at the machine size */
	RP_ROUND_BOX,  /* next size that fills a box of the grid (the sizes a
			* partitioned machine offers) */
} rp_round_t;

typedef struct rp_workload_opts {
	rp_round_t round;
	int limit;         /* keep only the first N jobs by submit (0 = all) */
	/* > 0 and not 1: each job's time since the first submit divided by
	 * it (2: arrivals twice as dense, the same jobs in half the span) */
	double arrival_scale;
	/* > 0: each job's submit moved by a whole number of seconds in
	 * [-arrival_jitter, arrival_jitter], drawn from jitter_seed and the
	 * job's place in the trace (the same shift whatever --limit) */
	int arrival_jitter;
	uint64_t jitter_seed;
	int machine_nodes; /* jobs above this are rejected */
	const loc_shape_t *shape; /* the grid, for RP_ROUND_BOX */
} rp_workload_opts_t;

typedef struct rp_workload {
	rp_job_t *jobs;    /* sorted by submit, ties in trace order */
	int njobs;
	int too_large;     /* jobs rejected as larger than the machine */
	int no_request;    /* jobs whose estimate is their runtime */
	int truncated;     /* jobs whose runtime was cut at the request */
	int rounded;       /* jobs whose node count was rounded up */
	/* node-seconds asked for over the machine's capacity between the
	 * first and the last submit: above 1 the queue can only grow */
	double offered_load;
} rp_workload_t;

/*
 * Builds the workload of trace (borrowed) with opts. Returns it (free with
 * rp_workload_destroy) or NULL on ENOMEM.
 */
rp_workload_t *rp_workload_create(const loc_trace_t *trace,
				  const rp_workload_opts_t *opts,
				  loc_error_t *err);
void rp_workload_destroy(rp_workload_t *w);

/* Walltime handling on top of the allocator's policy. */
typedef enum rp_wmode {
	RP_W_NONE = 0,
	RP_W_SL,
	RP_W_PF,
	RP_W_COMBO,
	RP_W_ADJEST,
	RP_W_ACTRUN, /* seed 004's ideal case: Combo with actual runtimes */
	RP_W_COUNT
} rp_wmode_t;

const char *rp_wmode_name(int mode);
int rp_wmode_parse(const char *name);
/* The core policy mode that goes with a harness mode. */
loc_walltime_mode_t rp_wmode_policy(rp_wmode_t mode);

typedef void (*rp_progress_f)(void *ctx, int done, int total);

typedef struct rp_sim_opts {
	rp_sched_t sched;
	rp_prio_t prio;
	rp_wmode_t wmode;
	int pf_max_nodes;   /* PF only for jobs of at most this many nodes
			     * (0 = any size) */
	/* PF: seconds the partner's region is held for it (PFHoldTime): the
	 * partner starts at its turn in the queue, as under select/locality,
	 * which cannot start it; pf_with_job: it starts with its job, as in
	 * seed 004 (pf_hold unused). */
	int64_t pf_hold;
	bool pf_with_job;
	int adjest_window;  /* AdjEst: finished jobs remembered per user */
	/* Seconds a job's nodes stay busy after it ends (epilog, the node
	 * completing, the scheduler's next pass): the job's own end, wait
	 * and slowdown are unchanged. */
	int64_t turnaround;
	/* RP_SCHED_CONSERVATIVE: jobs tested per pass, and how far ahead
	 * (seconds) a reservation may start. */
	int bf_depth;
	int64_t bf_window;
	/* RP_SCHED_CONSERVATIVE: a job that declines the set it could take
	 * now (CompactWait) is planned at a later compact set, as cons_tres
	 * plans it with topology/locality; false: it holds nothing, as
	 * select/locality's planner answers. */
	bool plan_declined;
	/* A job that declines the set it could take now (CompactWait)
	 * claims a region for the other jobs to keep off while it waits, as
	 * topology/locality does (loc_claim.h); false: no claims, as under
	 * select/locality. */
	bool claims;
	/* Snapshots of the occupancy at these times (ascending). */
	const int64_t *snap_times;
	int nsnaps;
	/* Shadow "decision" allocators (seed 003 Table 1): at each placement
	 * each one is asked where it would place the job on the same free
	 * nodes; its total pairwise hops are summed. Borrowed. */
	loc_alloc_t *const *decision;
	int ndecision;
	/* Each node's Slurm Weight (NULL: none); with NodeWeight=tiers jobs
	 * are placed in the lightest tiers first (loc_tiers.h). Borrowed. */
	const uint64_t *node_weight;
	rp_progress_f progress;
	void *progress_ctx;
} rp_sim_opts_t;

void rp_sim_opts_init(rp_sim_opts_t *opts);

/* A finished replay: one entry per workload job. */
typedef struct rp_run {
	int njobs;
	int nnodes;
	int64_t *start;        /* -1 when rejected */
	int64_t *end;
	int *node_off;         /* job j's nodes: pool[node_off[j] ..
				* + jobs[j].nodes), ascending */
	int *pool;
	rp_reject_t *reject;
	int64_t *first_shadow; /* EASY: reservation time the job got when it
				* first became the blocked head (RP_NEVER) */
	bool *pf_partner;      /* started on the region PF chose for it */
	bool *backfilled;      /* started out of priority order (EASY) */
	/* Occupancy snapshots: owner[s][node] = job index or -1. */
	int nsnaps;
	int64_t *snap_time;
	int **snap_owner;
	/* Decision allocators: sum of total pair hops and placements asked. */
	double *decision_hops;
	int64_t decision_count;
	/* Counters. */
	int started, rejected_no_fit, nbackfilled;
	int pf_pairs;          /* regions PF chose (held, or started on) */
	int deferrals;         /* placements declined for a compact one */
	int64_t alloc_calls, events;
} rp_run_t;

/*
 * Replays w on alloc (borrowed; its grid is the machine) with opts.
 * Returns the run (free with rp_run_destroy) or NULL with err filled
 * (ENOMEM, or an allocator error other than "does not fit").
 */
rp_run_t *rp_sim_run(const rp_workload_t *w, loc_alloc_t *alloc,
		     const rp_sim_opts_t *opts, loc_error_t *err);
void rp_run_destroy(rp_run_t *run);

/* A run's arrays for njobs jobs on nnodes nodes, nsnaps snapshots,
 * ndecision decision samples and a node pool of pool entries, their
 * contents not set (zero where calloc'd): for the simulator, and for a
 * run read back from a row file (rp_rowfile.h). NULL when out of memory. */
rp_run_t *rp_run_alloc(int njobs, int nnodes, int nsnaps, int ndecision,
			int64_t pool);

/*
 * Checks a run's invariants against its workload: every job started at or
 * after its submit time, ran exactly its runtime on exactly its node
 * count of distinct valid nodes, and no node held two jobs at once. With
 * check_shadow (EASY with FCFS priority), no job started after the
 * reservation it first got. Returns 0, or LOC_EINVAL with err naming the
 * first violation.
 */
int rp_run_check(const rp_workload_t *w, const rp_run_t *run,
		 bool check_shadow, loc_error_t *err);

#endif /* RP_SIM_H */
