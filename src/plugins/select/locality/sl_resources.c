/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_resources.c - the job_resources record slurmctld needs for a job
 * started on whole nodes: CPUs and memory of each node, so that step
 * layout, accounting and `scontrol show job` see the allocation.
 */
#include "select_locality.h"

int sl_build_job_resources(job_record_t *job, bitstr_t *bitmap)
{
	job_resources_t *r;
	int n = bit_set_count(bitmap), first = bit_ffs(bitmap);
	int last = bit_fls(bitmap), j = 0;
	uint32_t total = 0;
	uint64_t mem_req = job->details->pn_min_memory;
	bool cr_mem = slurm_conf.select_type_param & CR_MEMORY;

	if (job->job_resrcs) /* left by a requeue */
		free_job_resources(&job->job_resrcs);
	r = create_job_resources();
	r->nhosts = n;
	r->node_bitmap = bit_copy(bitmap);
	r->nodes = bitmap2node_name(bitmap);
	r->cr_type = slurm_conf.select_type_param;
	r->threads_per_core = job->details->mc_ptr ?
				      job->details->mc_ptr->threads_per_core :
				      NO_VAL16;
	r->cpus = xcalloc(MAX(n, 1), sizeof(uint16_t));
	r->cpus_used = xcalloc(MAX(n, 1), sizeof(uint16_t));
	r->memory_allocated = xcalloc(MAX(n, 1), sizeof(uint64_t));
	r->memory_used = xcalloc(MAX(n, 1), sizeof(uint64_t));
	job->job_resrcs = r;
	if (build_job_resources(r) != SLURM_SUCCESS) {
		error("%s: %pJ: build_job_resources failed", plugin_type, job);
		return SLURM_ERROR;
	}
	for (int i = first; first >= 0 && i <= last; i++) {
		node_record_t *node;

		if (!bit_test(bitmap, i))
			continue;
		node = node_record_table_ptr[i];
		r->cpus[j] = sl_node_cpus(i);
		total += r->cpus[j];
		if (mem_req && mem_req != NO_VAL64)
			r->memory_allocated[j] = sl_job_mem_per_node(job, node);
		else if (cr_mem)
			r->memory_allocated[j] = node->real_memory;
		if (set_job_resources_node(r, j) != SLURM_SUCCESS)
			error("%s: %pJ: set_job_resources_node(%d) failed",
			      plugin_type, job, j);
		j++;
	}
	r->ncpus = total;
	job->total_cpus = total;
	if (build_job_resources_cpu_array(r) < 0)
		return SLURM_ERROR;
	return SLURM_SUCCESS;
}

int sl_job_resources_remove_node(job_record_t *job, node_record_t *node)
{
	job_resources_t *r = job->job_resrcs;
	int offset;

	if (!r || !r->node_bitmap || node->index >= bit_size(r->node_bitmap) ||
	    !bit_test(r->node_bitmap, node->index))
		return -1;
	offset = bit_set_count_range(r->node_bitmap, 0, node->index);
	if (extract_job_resources_node(r, offset) != SLURM_SUCCESS)
		error("%s: %pJ: cannot take %s out of its resources",
		      plugin_type, job, node->name);
	xfree(r->nodes);
	r->nodes = bitmap2node_name(r->node_bitmap);
	return offset;
}
