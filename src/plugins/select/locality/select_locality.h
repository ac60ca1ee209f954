/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_locality.h - what the files of the select/locality glue share.
 *
 * The plugin is split by concern:
 *   select_locality.c  the symbol block, the plugin state, init/fini and
 *                      every select_p_* but those of sl_info.c
 *   sl_info.c          the nodeinfo/jobinfo data: all that clients run
 *   ../../common/      what this plugin shares with topology/locality:
 *                      sl_machine.c, locality.conf -> machine (grid, node
 *                      map, allocators)
 *   sl_state.c         the ledger of running jobs and the per-node view
 *   sl_modes.c         job_test in its modes, resv_test, CompactWait
 *   sl_place.c         the placement engine they share (sl_ctx.h)
 *   sl_resources.c     job_resources for a started job
 *   sl_devices.c       the GRES (devices) a started job holds
 *   sl_walltime.c      PF holds and AdjEst (seed 004) around Slurm's queue
 *   sl_running.c       the locality.conf in use, across a self-restart
 *   glue/<version>/    what differs between Slurm versions: the headers'
 *                      places (sl_glue.h) and the select_p_* entry points
 *                      whose signature or meaning differs (sl_glue.c)
 * Everything here is plugin-internal (prefix sl_); the module exports only
 * the plugin API (see local.am). Callers hold the plugin mutex.
 */
#ifndef LOC_SELECT_LOCALITY_H
#define LOC_SELECT_LOCALITY_H

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Slurm's headers, from where the configured version keeps them
 * (glue/<version>/sl_glue.h, chosen by configure). */
#include "sl_glue.h"

#include "sl_machine.h"
#include "sl_record.h"

#include "loc_conf.h"
#include "loc_error.h"
#include "loc_grid.h"
#include "loc_hostlist.h"
#include "loc_metrics.h"
#include "loc_plan.h"
#include "loc_strategy.h"
#include "loc_tiers.h"
#include "loc_walltime.h"

extern const char plugin_type[];

/*
 * Symbols that exist only inside slurmctld. Clients (sinfo, sbatch,
 * scontrol) load every select plugin, so these references must not stop
 * the module from loading there: weak, NULL outside slurmctld, and used
 * only on paths that run in slurmctld.
 */
#pragma weak job_list
#pragma weak last_node_update
#pragma weak find_job_record
#pragma weak slurmctld_config

/*
 * The node table lives in libslurmfull, which slurmctld, slurmd and
 * Slurm's commands load, but not in libslurm.so, the library of Slurm's
 * API: a program linked with it (it loads the select plugin to read job
 * records, as Slurm's test7.12 does) could not load the module if these
 * data references had to be bound at load. Used only in slurmctld.
 */
#pragma weak node_record_count
#pragma weak node_record_table_ptr

/* sl_machine.h (src/plugins/common): the machine built from locality.conf */

/* ------------------------------------------------------------------ */
/* sl_state.c: the ledger of jobs holding nodes                        */
/* ------------------------------------------------------------------ */

typedef struct sl_ledger_job {
	uint32_t job_id;
	bitstr_t *nodes;      /* Slurm node indexes held */
	time_t end_time;      /* as last seen; refreshed from job_list */
	uint64_t mem_per_node;/* MB held on each node, for nodeinfo */
} sl_ledger_job_t;

typedef struct sl_ledger {
	int nslurm;
	uint16_t *njobs;      /* jobs holding each Slurm node */
	uint64_t *mem;        /* MB held on each node */
	List jobs;            /* sl_ledger_job_t */
} sl_ledger_t;

/* Returns an empty ledger for the current node table. */
sl_ledger_t *sl_ledger_create(void);
void sl_ledger_destroy(sl_ledger_t *l);

/*
 * Rebuilds the ledger from slurmctld's job_list: every running job holds
 * the nodes of its allocation still in its node bitmap (suspended jobs
 * released theirs). Returns the ledger (a fresh one).
 */
sl_ledger_t *sl_ledger_rebuild(void);

/* Adds job (its current node_bitmap); resume says it comes back from
 * suspension, when sharing a node is expected, not an error. Returns
 * SLURM_SUCCESS, or SLURM_ERROR when the job is already there or holds no
 * nodes. */
int sl_ledger_add(sl_ledger_t *l, job_record_t *job, bool resume);

/* Removes job. Returns SLURM_SUCCESS or SLURM_ERROR (unknown job). */
int sl_ledger_remove(sl_ledger_t *l, uint32_t job_id);

/* Releases one node of job (resize). Returns SLURM_SUCCESS or
 * SLURM_ERROR. */
int sl_ledger_remove_node(sl_ledger_t *l, uint32_t job_id, int node);

/* Returns the ledger record of job_id, or NULL. */
sl_ledger_job_t *sl_ledger_find(sl_ledger_t *l, uint32_t job_id);

/* Refreshes each record's end_time from job_list (slurmctld only). */
void sl_ledger_refresh(sl_ledger_t *l);

/*
 * Marks in held[] (grid nodes, ncore long, zeroed by the caller) the nodes
 * jobs hold and raises busy[] to each one's expected end (at least
 * now + 1). End times are refreshed from the job records first.
 */
void sl_ledger_busy(sl_ledger_t *l, const sl_machine_t *m, time_t now,
		    uint8_t *held, int64_t *busy);

/* Returns the CPUs a job gets on whole node idx (Slurm node index). */
uint16_t sl_node_cpus(int idx);

/* ------------------------------------------------------------------ */
/* sl_modes.c: job_test and resv_test                                 */
/* ------------------------------------------------------------------ */

int sl_job_test(sl_machine_t *m, sl_ledger_t *l, job_record_t *job,
		bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
		uint32_t req_nodes, uint16_t mode, List preemptee_candidates,
		List *preemptee_job_list);

bitstr_t *sl_resv_test(sl_machine_t *m, resv_desc_msg_t *resv,
		       uint32_t node_cnt, bitstr_t *avail);

/* Builds job->job_resrcs for whole-node use of bitmap; sets total_cpus.
 * Returns SLURM_SUCCESS or SLURM_ERROR. */
int sl_build_job_resources(job_record_t *job, bitstr_t *bitmap);

/* job_resized: takes node out of job->job_resrcs (its CPUs, memory and
 * place in node_bitmap), as Slurm's GRES arrays and state file count the
 * job's nodes from there. Returns the node's offset in job_resrcs before
 * the removal, or -1 when the job did not hold it. */
int sl_job_resources_remove_node(job_record_t *job, node_record_t *node);

/* ------------------------------------------------------------------ */
/* sl_devices.c: the GRES a started job holds on its nodes             */
/* ------------------------------------------------------------------ */

/* job_begin: records the job's GRES on each of its nodes (job_resrcs must
 * be built). Does nothing for a job without GRES or already recorded. */
void sl_devices_alloc(job_record_t *job);

/* job_fini: returns them; does nothing for a job not recorded here. */
void sl_devices_free(job_record_t *job);

/* job_resized: returns the job's GRES on one node leaving it, which was
 * at offset in job_resrcs (sl_job_resources_remove_node). */
void sl_devices_free_node(job_record_t *job, node_record_t *node,
			  int offset);

/* job_expand, before to's job_resrcs is rebuilt: returns both jobs' GRES
 * and merges from's GRES records into to's; sl_devices_alloc(to) after
 * the rebuild records them again on the joined nodes. */
void sl_devices_expand(job_record_t *from, job_record_t *to);

/* scontrol suspend and resume: whether a job's devices sit on nodes the
 * ledger calls free. Only then is a node's GRES list worth walking to
 * start or plan a job (sl_ctx_fill_ok, sl_modes.c). */
void sl_devices_suspend(job_record_t *job);
void sl_devices_resume(job_record_t *job);
bool sl_devices_any_suspended(void);
/* The latest end_time of those jobs (0: none), when WILL_RUN counts
 * their nodes free. */
time_t sl_devices_suspended_end(void);

/* After a restart or reconfigure: clears every node's GRES counts and
 * records again those of each running or suspended job. */
void sl_devices_rebuild(void);

void sl_devices_fini(void);

/* ------------------------------------------------------------------ */
/* sl_walltime.c: walltime awareness that needs Slurm's queue          */
/* ------------------------------------------------------------------ */

/* Returns the job's walltime estimate in seconds for placement: its time
 * limit, adjusted by AdjEst under that policy; 0 when unlimited. */
int64_t sl_walltime_estimate(sl_machine_t *m, const loc_policy_t *p,
			     job_record_t *job);

/* Called at job_begin: PF chooses a partner and holds a region for it. */
void sl_pf_after_begin(sl_machine_t *m, sl_ledger_t *l, job_record_t *job);

/* Releases the PF holds of partners no longer pending (cancelled, held
 * with priority 0, gone): their regions would otherwise keep jobs of
 * lower priority off until PFHoldTime ran out. */
void sl_pf_drop_departed(sl_machine_t *m);
/* Drops job_id's PF hold: it started, left, or its turn came and it did
 * not start. Returns whether it had one. */
bool sl_pf_release(sl_machine_t *m, uint32_t job_id);

/* Called at job_fini: AdjEst history, PF hold release. */
void sl_walltime_after_fini(sl_machine_t *m, job_record_t *job);

/* ------------------------------------------------------------------ */
/* select_locality.c: what glue/<version>/sl_glue.c calls              */
/* ------------------------------------------------------------------ */

/*
 * The version-independent bodies of the entry points whose Slurm
 * signature differs between versions. Unlike the sl_ functions above,
 * these take the plugin mutex themselves.
 */

/* select_p_job_test's work: job_test in mode for job on bitmap. Returns
 * SLURM_SUCCESS with bitmap narrowed to the chosen nodes, or EINVAL. */
int sl_plugin_job_test(job_record_t *job, bitstr_t *bitmap,
		       uint32_t min_nodes, uint32_t max_nodes,
		       uint32_t req_nodes, uint16_t mode,
		       List preemptee_candidates, List *preemptee_job_list);

/* A reservation's node_cnt nodes of avail (those of partition, or the
 * global policy's when NULL), as compact as a job's. Returns a new
 * bitmap, or NULL when there are not enough. */
bitstr_t *sl_plugin_resv_pick(const char *partition, const char *name,
			      uint32_t node_cnt, bitstr_t *avail);

/* `scontrol show config` lines (SELECT_CONFIG_INFO): a List of
 * config_key_pair_t, or NULL when the plugin is not the one in use. */
List sl_plugin_config_pairs(void);

/* ------------------------------------------------------------------ */
/* sl_info.c: per-node and per-job data for Slurm and its clients      */
/* ------------------------------------------------------------------ */

#define SL_NODEINFO_MAGIC 0x10ca

/* Per-node data sinfo and scontrol show; packed for clients. */
struct select_nodeinfo {
	uint16_t magic;
	uint16_t alloc_cpus;
	uint64_t alloc_memory;
	char *tres_alloc_fmt_str;
	double tres_alloc_weighted;
};

/* ------------------------------------------------------------------ */
/* sl_running.c: the locality.conf in use, across a self-restart        */
/* ------------------------------------------------------------------ */

/* Keeps a copy of path's text as the configuration in use (after it was
 * loaded); a file that cannot be read leaves the previous copy. */
void sl_running_remember(const char *path);

/* Frees the copy. */
void sl_running_forget(void);

/* Writes the copy to dir/locality.conf.running (select_p_state_save).
 * Returns SLURM_SUCCESS (also with no copy) or SLURM_ERROR (logged). */
int sl_running_save(const char *dir);

/* In a slurmctld restarted by `scontrol reconfigure`, the saved copy to
 * load when locality.conf is broken: its path (xmalloc), else NULL. */
char *sl_running_fallback(void);

/* ------------------------------------------------------------------ */
/* glue/<version>/sl_glue.c: version facts the shared code asks about   */
/* ------------------------------------------------------------------ */

/* True in a slurmctld that `scontrol reconfigure` started anew (24.11);
 * always false where reconfigure works in place (22.05). */
bool sl_glue_reconfigure_restart(void);

#endif /* LOC_SELECT_LOCALITY_H */
