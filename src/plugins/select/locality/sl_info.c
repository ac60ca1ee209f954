/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_info.c - the per-node and per-job data a select plugin carries for
 * Slurm (select_nodeinfo, select_jobinfo): allocation, packing for
 * clients and the SELECT_NODEDATA_* answers. These are the only entry
 * points Slurm's clients run. They hold no plugin state; the refresh
 * from the ledger (select_p_select_nodeinfo_set_all) is in
 * select_locality.c, beside the state it reads.
 */
#include "select_locality.h"

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	select_nodeinfo_t *ni = xmalloc(sizeof(*ni));

	ni->magic = SL_NODEINFO_MAGIC;
	return ni;
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	if (!nodeinfo)
		return SLURM_SUCCESS;
	if (nodeinfo->magic != SL_NODEINFO_MAGIC) {
		error("%s: nodeinfo_free: bad magic", plugin_type);
		return EINVAL;
	}
	nodeinfo->magic = 0;
	xfree(nodeinfo->tres_alloc_fmt_str);
	xfree(nodeinfo);
	return SLURM_SUCCESS;
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	select_nodeinfo_t empty = { .magic = SL_NODEINFO_MAGIC };

	if (!nodeinfo)
		nodeinfo = &empty;
	if (protocol_version < SLURM_MIN_PROTOCOL_VERSION)
		return SLURM_SUCCESS;
	pack16(nodeinfo->alloc_cpus, buffer);
	pack64(nodeinfo->alloc_memory, buffer);
	packstr(nodeinfo->tres_alloc_fmt_str, buffer);
	packdouble(nodeinfo->tres_alloc_weighted, buffer);
	return SLURM_SUCCESS;
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	select_nodeinfo_t *ni = select_p_select_nodeinfo_alloc();
	uint32_t len;

	*nodeinfo = ni;
	if (protocol_version < SLURM_MIN_PROTOCOL_VERSION)
		return SLURM_SUCCESS;
	safe_unpack16(&ni->alloc_cpus, buffer);
	safe_unpack64(&ni->alloc_memory, buffer);
	safe_unpackstr_xmalloc(&ni->tres_alloc_fmt_str, &len, buffer);
	safe_unpackdouble(&ni->tres_alloc_weighted, buffer);
	return SLURM_SUCCESS;
unpack_error:
	error("%s: nodeinfo_unpack: truncated message", plugin_type);
	select_p_select_nodeinfo_free(ni);
	*nodeinfo = NULL;
	return SLURM_ERROR;
}

/* Called per job while slurmctld is still rebuilding job bitmaps after a
 * restart: nothing to do, the ledger is rebuilt on first use. */
extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return SLURM_SUCCESS;
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	if (!nodeinfo || nodeinfo->magic != SL_NODEINFO_MAGIC) {
		error("%s: nodeinfo_get: %s nodeinfo", plugin_type,
		      nodeinfo ? "bad" : "no");
		return SLURM_ERROR;
	}
	switch (dinfo) {
	case SELECT_NODEDATA_SUBCNT:
		*(uint16_t *)data = state == NODE_STATE_ALLOCATED ?
					    nodeinfo->alloc_cpus :
					    0;
		break;
	case SELECT_NODEDATA_PTR:
		*(select_nodeinfo_t **)data = nodeinfo;
		break;
	case SELECT_NODEDATA_MEM_ALLOC:
		*(uint64_t *)data = nodeinfo->alloc_memory;
		break;
	case SELECT_NODEDATA_TRES_ALLOC_FMT_STR:
		*(char **)data = xstrdup(nodeinfo->tres_alloc_fmt_str);
		break;
	case SELECT_NODEDATA_TRES_ALLOC_WEIGHTED:
		*(double *)data = nodeinfo->tres_alloc_weighted;
		break;
	default:
		error("%s: nodeinfo_get: unsupported type %d", plugin_type,
		      dinfo);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/*
 * No per-job plugin data: the placement is the node list slurmctld keeps.
 * A NULL jobinfo is what every other function here accepts.
 */
extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return NULL;
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return SLURM_SUCCESS;
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return SLURM_SUCCESS;
}

/* Nothing to get; callers treat an error as "no such data". */
extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return SLURM_ERROR;
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	return NULL;
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	return SLURM_SUCCESS;
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	*jobinfo = NULL;
	return SLURM_SUCCESS;
}
