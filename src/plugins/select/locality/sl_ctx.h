/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_ctx.h - one job_test decision in progress, shared by the placement
 * engine (sl_place.c: Slurm's state -> candidates, counts, weight tiers,
 * the core call) and the job_test modes (sl_modes.c). Private to the
 * plugin.
 */
#ifndef SL_CTX_H
#define SL_CTX_H

#include "select_locality.h"
#include "sl_compact_wait.h"

/* A decision in progress. Arrays are indexed by grid node. */
typedef struct sl_ctx {
	sl_machine_t *m;
	sl_ledger_t *l;
	job_record_t *job;        /* NULL for a reservation */
	loc_alloc_t *alloc;
	const loc_policy_t *policy;
	uint16_t mode;
	time_t now;
	uint8_t *ok;              /* usable for this job at all */
	uint8_t *cand;            /* ok and free in the (simulated) state */
	uint8_t *held;            /* held for someone by the ledger */
	int64_t *busy;            /* busy_until, simulated */
	int *req;                 /* required grid nodes */
	int nreq;
	int *out;                 /* the decision's answer: the nodes chosen */
	uint64_t *weight;         /* scheduling weight of ok nodes */
	loc_tiers_t *tiers;       /* their tiers (none: weights play no part) */
	bool contiguous;
	int64_t walltime;         /* seconds, 0 = unknown */
	uint32_t min_cpus;
	int lo, want, hi;         /* node counts */
	int k;                    /* chosen count */
	loc_error_t err;
} sl_ctx_t;

/*
 * One placement of the decision's job: the nodes it may use and where its
 * answer goes. The job's own terms (allocator, required nodes, walltime,
 * CPUs, busy_until) stay in the ctx; what differs between placements of
 * one decision (the CompactWait reference, the planner's projections, a
 * PF hold) is here, so no placement borrows or swaps another's buffers.
 * cand[] is narrowed by the tiers while placing and restored after.
 */
typedef struct sl_place_req {
	uint8_t *cand;        /* candidates, indexed by grid node */
	loc_tiers_t *tiers;   /* their weight tiers (none: one try) */
	int lo, want, hi;     /* node counts to try */
	int64_t start;        /* when the job would start */
	int *out;             /* OUT: the nodes chosen (ncore ints) */
	int k;                /* OUT: how many */
	loc_error_t *err;     /* OUT: why none fits */
} sl_place_req_t;

/* Starts a decision: scratch from m (cleared where it is read first). */
void sl_ctx_init(sl_ctx_t *c, sl_machine_t *m, sl_ledger_t *l,
		 job_record_t *job, uint16_t mode);
/* ok[] and weights from the nodes slurmctld offers in bitmap. */
void sl_ctx_fill_ok(sl_ctx_t *c, bitstr_t *bitmap);
/* m->ref.set[] and .weight[] = the nodes the CompactWait reference is
 * made on, with their weights. */
void sl_ctx_fill_reference_set(sl_ctx_t *c);
/* held[] and busy[] from the ledger; cand[] = ok minus held. */
void sl_ctx_fill_busy(sl_ctx_t *c);
/* Clears candidates PF holds for other jobs. */
void sl_ctx_apply_holds(sl_ctx_t *c);
/* Node counts to try and the required nodes; false: can never fit. */
bool sl_ctx_counts(sl_ctx_t *c, uint32_t min_nodes, uint32_t max_nodes,
		   uint32_t req_nodes);
/* A request on the decision's own candidates, tiers and counts, at time
 * start, answering into out[] (the caller's) and c->err. */
sl_place_req_t sl_ctx_request(sl_ctx_t *c, int64_t start, int *out);
/* Places the job as p asks (weight tiers, then counts): 0 with p->out and
 * p->k set, LOC_ENOFIT, or another LOC_E* code in *p->err. */
int sl_ctx_place(sl_ctx_t *c, sl_place_req_t *p);
/* sl_ctx_place() for the decision itself: answers in c->out and c->k. */
int sl_ctx_place_decision(sl_ctx_t *c, int64_t start);
uint64_t sl_ctx_sum_cpus(sl_ctx_t *c, const int *nodes, int k);
void sl_ctx_to_bitmap(sl_ctx_t *c, bitstr_t *bitmap);
/* Frees ledger job j's nodes in the simulated state; returns how many
 * became candidates. */
int sl_ctx_release(sl_ctx_t *c, sl_ledger_job_t *j);
int sl_ctx_release_preemptable(sl_ctx_t *c, List preemptee_candidates);
void sl_ctx_preemptees(sl_ctx_t *c, bitstr_t *chosen,
		       List preemptee_candidates, List *out_list);
void sl_ctx_log_placement(sl_ctx_t *c, bitstr_t *bitmap);
int sl_count(const uint8_t *v, int n);

/* sl_compact.c: CompactWait. Whether the placement out[0..k) (borrowed)
 * should be declined so the job waits for a compact one, judged with the
 * patience the job has now; offered_now: the job could take it now (its
 * wait begins if it had not), not a projected placement. */
bool sl_compact_defer(sl_ctx_t *c, const int *out, int k, bool offered_now);
/* The time after which the job takes any placement. */
int64_t sl_compact_deadline(sl_ctx_t *c);

#endif /* SL_CTX_H */
