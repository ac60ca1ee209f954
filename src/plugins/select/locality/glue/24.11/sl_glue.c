/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_glue.c (Slurm 24.11) - the select_p_* entry points whose signature
 * or meaning is 24.11's own (src/interfaces/select.c, node_select_syms[]).
 * The work is done by the shared sl_plugin_* functions of
 * select_locality.c. What changed since 22.05, and how it is met here:
 *
 *  - job_test takes resv_exc_ptr and will_run_ptr. Both are left unused:
 *    allocation is by whole node (resv_exc lists cores and GRES), and
 *    WILL_RUN answers the earliest start it finds, as in 22.05, rather
 *    than only one inside backfill's window.
 *  - resv_test is gone: a reservation asks job_test (WILL_RUN) about a
 *    stand-in job that is in no job list (job_id 0), and afterwards reads
 *    its job_resrcs when it reserves cores. That call picks the
 *    reservation's nodes here, as resv_test did.
 *  - SELECT_SINGLE_JOB_TEST is gone: slurmctld offers every eligible node
 *    in one job_test call (with each node's place in its weight order in
 *    sched_weight) only to a plugin whose SELECT_CR_PLUGIN is
 *    SELECT_TYPE_CONS_TRES, and one node set at a time to any other. The
 *    placement needs the whole machine at once, so the plugin answers
 *    SELECT_TYPE_CONS_TRES; slurmctld then treats jobs as able to share
 *    nodes, so job_test marks each job as holding its nodes whole, as
 *    slurmctld itself does for select/linear.
 *  - job_signal, select_jobinfo_sprint and _xstrdup, update_node_config
 *    are no longer asked for.
 *  - `scontrol reconfigure` restarts slurmctld instead of calling
 *    select_p_reconfigure in place: sl_running.c keeps the locality.conf in
 *    use across it.
 */
#include <stdlib.h>

#include "select_locality.h"

/* A reservation's stand-in job (job_mgr_copy_resv_desc_to_job_record):
 * never in the job list, so it has no job id. */
static bool _is_reservation(const job_record_t *job_ptr, uint16_t mode)
{
	return job_ptr->job_id == 0 &&
	       (mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN;
}

/*
 * The reservation's nodes into bitmap: the ones it names, if any, else
 * min_nodes of bitmap as compact as for a job. job_resrcs describes them
 * whole, for a reservation of cores. Returns SLURM_SUCCESS or EINVAL.
 */
static int _reservation(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes)
{
	bitstr_t *req = job_ptr->details->req_node_bitmap, *picked;

	if (req) {
		picked = bit_copy(bitmap);
		bit_and(picked, req);
		if (bit_set_count(picked) < bit_set_count(req))
			FREE_NULL_BITMAP(picked);
	} else {
		picked = sl_plugin_resv_pick(job_ptr->partition, "(new)",
					     min_nodes, bitmap);
	}
	if (!picked)
		return EINVAL;
	bit_clear_all(bitmap);
	bit_or(bitmap, picked);
	FREE_NULL_BITMAP(picked);
	return sl_build_job_resources(job_ptr, bitmap) == SLURM_SUCCESS ?
		       SLURM_SUCCESS :
		       EINVAL;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates,
			     List *preemptee_job_list,
			     resv_exc_t *resv_exc_ptr,
			     will_run_data_t *will_run_ptr)
{
	if (!job_ptr || !job_ptr->details || !bitmap)
		return EINVAL;
	if (_is_reservation(job_ptr, mode))
		return _reservation(job_ptr, bitmap, min_nodes);
	/*
	 * The job holds its nodes whole, as slurmctld marks every job of
	 * select/linear: once it starts, slurmctld takes them out of
	 * share_node_bitmap (make_node_alloc) and offers them to no other
	 * job until it ends.
	 */
	job_ptr->details->share_res = 0;
	job_ptr->details->whole_node |= WHOLE_NODE_REQUIRED;
	return sl_plugin_job_test(job_ptr, bitmap, min_nodes, max_nodes,
				  req_nodes, mode, preemptee_candidates,
				  preemptee_job_list);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	switch (dinfo) {
	case SELECT_CR_PLUGIN:
		/*
		 * Not consumable resources (allocation is by whole node), but
		 * this is 24.11's only way to be offered every eligible node
		 * in one job_test call (_pick_best_nodes), with sched_weight
		 * set from the node sets' order (_sync_node_weight): the
		 * header comment says why the placement needs that.
		 */
		*(uint32_t *)data = SELECT_TYPE_CONS_TRES;
		break;
	case SELECT_CONFIG_INFO:
		/* Shown by `scontrol show config`. */
		*(List *)data = sl_plugin_config_pairs();
		break;
	default:
		break;
	}
	return SLURM_SUCCESS;
}

/*
 * `scontrol reconfigure` starts slurmctld anew, with SLURMCTLD_RECONF set
 * in its environment (controller.c, _try_to_reconfig); the running
 * locality.conf then comes from the saved copy if the file is broken.
 */
bool sl_glue_reconfigure_restart(void)
{
	return getenv("SLURMCTLD_RECONF") != NULL;
}
