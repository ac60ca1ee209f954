/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_job.h - one evaluation of a job inside topology/locality, shared by
 * the eval_nodes hook (tl_eval.c) and the sizing of its set to the job's
 * CPUs (tl_fit.c). Private to the plugin.
 */
#ifndef TL_JOB_H
#define TL_JOB_H

#include "topology_locality.h"

/* One evaluation: its job, and its arrays, from the machine's scratch
 * (tl_scratch_t), indexed by grid node unless said otherwise. */
typedef struct {
	sl_machine_t *m;
	tl_scratch_t *s;
	topology_eval_t *te;
	job_record_t *job;
	loc_alloc_t *alloc;
	const loc_policy_t *policy;
	uint8_t *cand;      /* usable and not required */
	uint64_t *weight;   /* tl_node_weight() of usable nodes */
	uint16_t *cpus;     /* usable CPUs per Slurm node index */
	int *req, nreq;     /* required nodes (grid) */
	int *out;           /* the core's answer: nreq + k nodes */
	int ncand;
	loc_tiers_t *tiers;
	bool use_tiers;     /* weight[] forms tiers: NodeWeight=tiers, or
			     * other jobs' claims (tl_claim.c) */
	int64_t judged_hops; /* CompactWait's set, when not node_map's; or -1 */
	bool held_released; /* out[] moved onto released nodes */
	/* Slurm's running figures (as in common/eval_nodes.c). */
	int rem_cpus, rem_nodes, min_rem_nodes;
	int64_t rem_max_cpus;
	uint64_t maxtasks;
} tl_job_t;

/* One core call for k more nodes (with the required ones), into out[]:
 * 0 or LOC_E* (tl_eval.c). */
int tl_job_select(tl_job_t *t, int k);

/* tl_fit.c: the set sized to the job's CPUs. */

/* The fewest candidates whose CPUs can cover rem_cpus (at least 0);
 * ncand + 1 when all of them fall short. */
int tl_fit_nodes_for_cpus(tl_job_t *t);

/* Whether the set out[nreq..nreq+k) covers what the job still lacks:
 * CPUs, and GRES asked of the job as a whole. */
bool tl_fit_covers(tl_job_t *t, int k);

/* A job that one node holds, placed on a best fit into out[]: true when
 * the core found one and it covers the job. */
bool tl_fit_select_best(tl_job_t *t);

/* k nodes that each hold an even share of the job's CPUs, into out[]:
 * true when the core found such a set and it covers the job. */
bool tl_fit_select_even_share(tl_job_t *t, int k);

/* The covering set out[nreq..nreq+k) less one node, when k - 1 of it
 * still cover the job and are compact: true with the k - 1 first in
 * out[] (the caller takes k - 1 nodes); false, out[] as it was. */
bool tl_fit_drop_one(tl_job_t *t, int k);

#endif /* TL_JOB_H */
