/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology_locality.h - what the files of topology/locality share.
 *
 * topology/locality puts the core's placement inside select/cons_tres:
 * cons_tres filters the candidate nodes (partition, state, features,
 * memory, cores, GRES, reservations) and calls the topology plugin's
 * eval_nodes; this plugin chooses a compact set among them with the
 * core and leaves the per-node CPU, core and GRES accounting to Slurm's
 * own helpers (src/plugins/topology/common of the exact Slurm source
 * tree configure was given, compiled by slurm_*.c here).
 *
 *   topology_locality.c  plugin state: locality.conf loaded in
 *                        slurmctld, the eval_nodes entry, node ranks
 *   tl_eval.c            the eval_nodes hook: candidates -> core ->
 *                        Slurm's accounting
 *   tl_compact.c         CompactWait: decline a scattered set, wait
 *   tl_claim.c           the regions waiting jobs let drain
 *   glue/<version>/      sl_glue.h (headers, names) and tl_glue.c (the
 *                        topology_p_* entry points of that version)
 *   ../../common/        sl_machine.c and sl_compact_wait.c, shared
 *                        with select/locality
 */
#ifndef LOC_TOPOLOGY_LOCALITY_H
#define LOC_TOPOLOGY_LOCALITY_H

#include "loc_claim.h"
#include "loc_share.h"
#include "sl_compact_wait.h"
#include "sl_machine.h"
#include "sl_record.h"

#include "src/plugins/topology/common/common_topo.h"
#include "src/plugins/topology/common/eval_nodes.h"
#include "src/plugins/topology/common/gres_sched.h"

/* slurmctld's nodes idle now (CompactWait, PlanHold); weak: the plugin
 * also loads in slurmd and the commands. */
#pragma weak idle_node_bitmap
/* slurmctld's jobs and when one last changed (WalltimeAware, tl_walltime.c). */
#pragma weak job_list
#pragma weak last_job_update

/* Our own id: Slurm's plugins take 100-105. */
#define TL_PLUGIN_ID 150

/* Loads locality.conf (next to slurm.conf) in slurmctld; elsewhere does
 * nothing. A broken file is logged with its file and line and leaves
 * Slurm's own choice (common_topo_choose_nodes) for every job. Returns
 * SLURM_SUCCESS or SLURM_ERROR. */
int tl_build_config(void);

/* Frees the machine. */
void tl_destroy_config(void);

/* topology_p_eval_nodes' work. */
int tl_eval_nodes(topology_eval_t *te);

/* MPI rank order of node_bitmap's nodes along the curve: (*node_rank)[i]
 * for the i-th set node (xmalloc), *size set; none outside slurmctld. */
int tl_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size);

/*
 * The claims (loc_claim.h): while a job waits for a compact set, the
 * other jobs' evaluations put the nodes of its region in a tier of their
 * own, just heavier than their Weight, so those jobs go there only when
 * their other candidates cannot hold them. A claim ends when its job no
 * longer pends or its CompactWait runs out. Kept between evaluations.
 */
typedef struct tl_claims {
	loc_claims_t set; /* by grid node, Slurm job ids */
	uint8_t *avail;   /* the claiming job's candidates, while it claims */
} tl_claims_t;

/*
 * An evaluation's arrays, sized once per machine (tl_build_config(), when
 * the node table is read) and reused by every eval_nodes under the
 * plugin's lock, so the scheduling loop does not allocate them per call.
 * Indexed by grid node unless said otherwise; each has one user.
 */
/* WalltimeAware's SL inputs (tl_walltime.c): each grid node's latest
 * running-job end, kept for the second and job_list state it was made in. */
typedef struct tl_walltime {
	int64_t *until; /* by grid node; 0 when nothing runs there */
	time_t now;     /* the second it was made in */
	time_t update;  /* last_job_update then */
} tl_walltime_t;

typedef struct tl_scratch {
	uint8_t *cand;       /* usable and not required */
	uint64_t *weight;    /* tl_node_weight() of the candidates */
	loc_tiers_t tiers;   /* ... their tiers (NodeWeight=tiers) */
	uint16_t *cpus;      /* usable CPUs, by Slurm node index */
	int *req;            /* required nodes */
	int *out;            /* the core's answer: required + k nodes */
	uint32_t *cand_cpus; /* the candidates' CPU counts, to size the set */
	int *unrequired;     /* out[]'s other nodes, while required go first */
	int *taken;          /* the nodes taken, while the nearest are added */
	int *chosen;         /* node_map's nodes: the log and CompactWait */
	uint8_t *cand_now;   /* candidates idle now (PlanHold=released) */
	int *full;           /* the set among all candidates, meanwhile */
	uint8_t *aside;      /* candidates set aside meanwhile, for a
			      * best fit or an even share (tl_fit.c) */
	uint8_t *in_use;     /* candidates running other jobs now, and */
	uint32_t *set_cpus;  /* ... the candidates' usable CPUs, for an
			      * even share (tl_fit.c) and */
	loc_share_t share;   /* ... SharedNodes=first (_share_first) */
	tl_claims_t claims;  /* the one state kept between evaluations */
	tl_walltime_t walltime; /* SL's busy-until times, cached */
} tl_scratch_t;

/*
 * A node's weight for NodeWeight=tiers: slurmctld's sched_weight without
 * its low byte, which cons_tres rewrites per job, node by node, to favour
 * nodes with more GPUs near the free cores (0xff less their count). As
 * tiers it would split nodes of one Weight, put a GPU job on the nodes
 * with the most free GPUs wherever they are, and make a CompactWait
 * reference of the few nodes the last evaluation left light. The
 * admin's Weight and Slurm's flags above it (reboot, power-up, flex
 * reservation, completing) stay.
 */
static inline uint64_t tl_node_weight(const node_record_t *node)
{
	return node->sched_weight & ~(uint64_t)0xff;
}

/* tl_scratch.c: s sized for m; exits on out of memory, as xcalloc does. */
void tl_scratch_init(tl_scratch_t *s, const sl_machine_t *m);
/* Frees s's arrays; accepts a zeroed s. */
void tl_scratch_fini(tl_scratch_t *s);

/* tl_eval.c: the eval_nodes hook cons_tres's eval_nodes() calls, with the
 * machine m and its scratch s (the plugin's lock held). */
int tl_eval_compact(topology_eval_t *te, sl_machine_t *m, tl_scratch_t *s);

/* nodes[] = the grid nodes of node_map (Slurm indexes), in order; returns
 * how many. Nodes outside the grid are left out: eval_nodes only ever
 * takes grid nodes. */
int tl_chosen_nodes(const sl_machine_t *m, bitstr_t *node_map, int *nodes);

/* tl_compact.c: CompactWait. Whether the job should decline the set in
 * te->node_map (nreq of them required) and wait for a more compact one,
 * judged on judged_hops (total pairwise hops) when >= 0, else on
 * node_map's own;
 * begins the job's wait (wait4switch_start) when the set is one it could
 * take now. The caller makes cons_tres decline (best_switch). */
bool tl_compact_defer(topology_eval_t *te, sl_machine_t *m, tl_scratch_t *s,
		      loc_alloc_t *alloc, const loc_policy_t *policy, int nreq,
		      int64_t judged_hops);

/* tl_claim.c: the claims' arrays sized for m / freed (accepts zeroed). */
void tl_claims_init(tl_claims_t *c, const sl_machine_t *m);
void tl_claims_fini(tl_claims_t *c);

/* Ends the claims whose job no longer pends or whose wait is over. */
void tl_claims_expire(tl_claims_t *c, time_t now);

/* Claims, unless it has one or CompactClaims are in force, a region for
 * job, which declines the k nodes chosen[] and waits until `until`; its
 * other candidates are cand[]. The CompactWait reference set of the job
 * (m->ref.set, its weights) is the one just made for it under policy,
 * and place(arg, ...) places k nodes there as the reference does. */
void tl_claims_make(tl_claims_t *c, sl_machine_t *m, job_record_t *job,
		    const loc_policy_t *policy, const uint8_t *cand,
		    const int *chosen, int k, time_t until,
		    sl_reference_place_f place, void *arg);

/* tl_walltime.c: the SL tie-break's inputs (loc_policy_sl(); PF and
 * AdjEst themselves are select/locality's). w's array sized for m /
 * freed (accepts zeroed). */
void tl_walltime_init(tl_walltime_t *w, const sl_machine_t *m);
void tl_walltime_fini(tl_walltime_t *w);

/* When job would end if it started at now: now plus its time limit; 0
 * for no limit (SL then breaks no tie). */
int64_t tl_walltime_expected_end(const job_record_t *job, time_t now);

/* Each grid node's latest end among the jobs running there (0: none), as
 * of now; NULL outside slurmctld. Valid until the next call. */
const int64_t *tl_walltime_busy(tl_walltime_t *w, const sl_machine_t *m,
				time_t now);

/* Logs, when locality.conf asks for PF or AdjEst, how this plugin places
 * those modes. */
void tl_walltime_log(const sl_machine_t *m);

#endif /* LOC_TOPOLOGY_LOCALITY_H */
