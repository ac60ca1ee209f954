/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_machine.h - the Slurm-side code both plugins share, select/locality
 * and topology/locality: locality.conf read into the machine the core
 * allocates on, laid over slurmctld's node table (sl_machine.c).
 *
 * Each plugin puts its own glue directory on the include path; its
 * sl_glue.h brings Slurm's headers from where the configured version
 * keeps them and defines the names this code spells one way (List).
 */
#ifndef LOC_SL_MACHINE_H
#define LOC_SL_MACHINE_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sl_glue.h"

#include "loc_conf.h"
#include "loc_error.h"
#include "loc_grid.h"
#include "loc_plan.h"
#include "loc_strategy.h"
#include "loc_tiers.h"
#include "loc_walltime.h"

/* The loading plugin's "select/locality" or "topology/locality": the
 * prefix of every line this code logs. */
extern const char plugin_type[];

/* Data references that exist only in Slurm's daemons and commands
 * (libslurmfull), never in libslurm.so: weak, read only in slurmctld. */
#pragma weak node_record_count
#pragma weak node_record_table_ptr
#pragma weak avail_node_bitmap

/* ------------------------------------------------------------------ */
/* sl_machine.c: the machine model built from locality.conf            */
/* ------------------------------------------------------------------ */

/* One allocator per distinct policy: made at load for every policy the
 * file names, so that one the core refuses stops slurmctld at start. */
typedef struct sl_alloc_slot {
	loc_policy_t policy;
	loc_alloc_t *alloc;
} sl_alloc_slot_t;

/* Per-decision arrays, indexed by grid node: sized once per machine and
 * reused by every job_test (always under the plugin's lock), so the
 * scheduling loop does not allocate them per call (sl_ctx_init). */
typedef struct sl_scratch {
	uint8_t *ok, *cand, *held;
	int64_t *busy;
	int *req, *out;
	uint64_t *weight;  /* scheduling weight of each usable node */
	loc_tiers_t tiers; /* ... and its tiers (NodeWeight=tiers) */
	uint8_t *unheld;   /* PF: candidates minus others' holds, written
			    * by sl_ctx_apply_holds() alone */
	uint8_t *in_hold;  /* PF: the candidates inside the job's own hold,
			    * written by its placement there alone */
	uint8_t *late;     /* WILL_RUN: free nodes that join later (sl_modes.c) */
	uint8_t *cand_now; /* WILL_RUN: the candidates as of now */
	uint32_t *cpus;    /* usable nodes' CPU counts (node counts) */
	uint32_t *node_cpus; /* CPU counts by grid node, and the */
	uint8_t *aside;      /* ... candidates set aside meanwhile for an
			      * even share of the job's CPUs (sl_place.c) */
	loc_planner_t *planner;        /* WILL_RUN's earliest start */
	struct sl_ledger_job **running; /* WILL_RUN: the ledger's jobs ... */
	int64_t *ends;                 /* ... and their expected ends */
	int nrunning_cap;              /* entries in both (grown, never shrunk) */
} sl_scratch_t;

/* CompactWait references, direct-mapped by a hash of (allocator, size,
 * usable nodes and their weights): sl_compact_wait.c. */
#define SL_REF_SLOTS 256
typedef struct sl_ref {
	uint64_t key;
	int k;
	int64_t hops;
} sl_ref_t;

/* The CompactWait reference's own placement (sl_compact_wait.h), in both
 * plugins: sized when the machine is built, so no decision allocates it
 * and none shares its buffers. Indexed by grid node. */
typedef struct sl_ref_scratch {
	uint8_t *set;      /* the nodes it is made on */
	uint64_t *weight;  /* ... their scheduling weights */
	loc_tiers_t tiers; /* ... their tiers (NodeWeight=tiers) */
	int *out;          /* the placement */
} sl_ref_scratch_t;

typedef struct sl_machine {
	char *path;           /* locality.conf read (xmalloc) */
	loc_conf_t *conf;
	loc_grid_t *grid;
	int ncore;            /* nodes in the grid */
	int nslurm;           /* node_record_count when built */
	int *to_core;         /* Slurm node index -> grid node, or -1 */
	int *to_slurm;        /* grid node -> Slurm node index */
	char **names;         /* grid node -> name (xmalloc), for reconfig */
	sl_alloc_slot_t *slots;
	int nslots;
	loc_holds_t *holds;   /* PF soft holds (NULL unless PF is used) */
	loc_adjest_t *adjest; /* AdjEst history (NULL unless used) */
	sl_scratch_t scratch; /* select/locality's, made on first use */
	sl_ref_scratch_t ref; /* CompactWait's, made with the machine */
	sl_ref_t refs[SL_REF_SLOTS];
	struct loc_ideal *ideal; /* each size's ideal, for sl_record.c */
} sl_machine_t;

/*
 * Reads path and builds the machine for the current node table
 * (node_record_table_ptr, in table order). Returns the machine, or NULL
 * with err filled ("file:line: text").
 */
sl_machine_t *sl_machine_load(const char *path, loc_error_t *err);

/* Frees m; accepts NULL. */
void sl_machine_destroy(sl_machine_t *m);

/* Returns true when m was built for exactly the nodes in the current node
 * table (same names, same order). */
bool sl_machine_matches_nodes(const sl_machine_t *m);

/*
 * Returns the allocator for partition part (NULL: the global policy),
 * creating it on first use, or NULL with err filled.
 */
loc_alloc_t *sl_machine_alloc(sl_machine_t *m, const char *part,
			      loc_error_t *err);

/* Returns the policy for partition part (borrowed). */
const loc_policy_t *sl_machine_policy(const sl_machine_t *m, const char *part);

/* Returns the policy (borrowed) for job: its partition's, with the keys of
 * the first GresName line naming a GRES the job asks for
 * (loc_conf_job_policy()). */
const loc_policy_t *sl_machine_job_policy(const sl_machine_t *m,
					  job_record_t *job);

/* Returns the allocator for job's policy (sl_machine_job_policy()),
 * creating it on first use, or NULL with err filled; the policy itself
 * in *policy when policy is not NULL (one lookup for both). */
loc_alloc_t *sl_machine_job_alloc(sl_machine_t *m, job_record_t *job,
				  const loc_policy_t **policy,
				  loc_error_t *err);

/* Logs the active model with info(), one line per item. */
void sl_machine_log(const sl_machine_t *m);

/* Returns a List of config_key_pair_t for `scontrol show config`. */
List sl_machine_key_pairs(const sl_machine_t *m);

/*
 * Returns true when a job may be given node (Slurm index idx) as far as
 * its state goes: not DOWN, DRAINED/DRAINING, FAILED, powered down or
 * powering down, or FUTURE, and in slurmctld's avail_node_bitmap; with
 * run_now also not COMPLETING or not responding.
 */
bool sl_node_usable(node_record_t *node, int idx, bool run_now);

/*
 * The memory job asks of node (Slurm's MB): its per-node figure, its
 * per-CPU one times the node's configured CPUs, or the whole node when it
 * asks for none.
 */
uint64_t sl_job_mem_per_node(job_record_t *job, node_record_t *node);

/*
 * Whether node can hold job's memory: the per-node figure, or the per-CPU
 * one for every CPU of the node (sl_job_mem_per_node()), within its
 * RealMemory less MemSpecLimit. A job asking for none fits anywhere.
 */
bool sl_node_holds_job_mem(job_record_t *job, node_record_t *node);

/* The partition a job is being placed in (NULL: none). */
static inline const char *sl_part_name(job_record_t *job)
{
	return (job && job->part_ptr) ? job->part_ptr->name : NULL;
}

#endif /* LOC_SL_MACHINE_H */
