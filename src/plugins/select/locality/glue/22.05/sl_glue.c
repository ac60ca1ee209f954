/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_glue.c (Slurm 22.05) - the select_p_* entry points whose signature
 * or meaning is 22.05's own (src/common/select.c, node_select_syms[]):
 * job_test without a will_run argument, resv_test, SELECT_SINGLE_JOB_TEST,
 * and four symbols 24.11 no longer asks for (job_signal,
 * select_jobinfo_sprint and _xstrdup, update_node_config). The work is
 * done by the shared sl_plugin_* functions of select_locality.c.
 */
#include "select_locality.h"

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates,
			     List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	/* exc_core_bitmap (cores of core reservations) is not honoured:
	 * allocation is by whole node, and slurmctld leaves the nodes of
	 * node reservations out of bitmap itself. */
	return sl_plugin_job_test(job_ptr, bitmap, min_nodes, max_nodes,
				  req_nodes, mode, preemptee_candidates,
				  preemptee_job_list);
}

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return SLURM_SUCCESS;
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	if (!buf || !size)
		return NULL;
	buf[0] = '\0';
	return buf;
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return NULL;
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	switch (dinfo) {
	case SELECT_CR_PLUGIN:
		*(uint32_t *)data = 0; /* whole nodes, not consumable */
		break;
	case SELECT_SINGLE_JOB_TEST:
		/*
		 * 1: slurmctld hands every eligible node to one job_test
		 * (_pick_best_nodes) instead of one node set (slurm.conf
		 * line, weight, feature group) at a time, which would show us
		 * only the first lines that hold enough nodes. Weights then
		 * are ours to honour: sched_weight and NodeWeight=tiers.
		 */
		*(uint32_t *)data = 1;
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

extern int select_p_update_node_config(int index)
{
	if (index < 0 || index >= node_record_count)
		return SLURM_ERROR;
	return SLURM_SUCCESS;
}

/* Chooses node_cnt nodes of avail_bitmap for a reservation with the
 * core, as compact as for a job. */
extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	if (!resv_desc_ptr)
		return NULL;
	return sl_plugin_resv_pick(resv_desc_ptr->partition,
				   resv_desc_ptr->name, node_cnt,
				   avail_bitmap);
}

/* 22.05 reconfigures in place (select_p_reconfigure). */
bool sl_glue_reconfigure_restart(void)
{
	return false;
}
