/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_glue.c (Slurm 26.05) - topology/locality's entry points as 26.05's
 * topology interface names them (src/interfaces/topology.c): every call
 * carries the topology context, nodes join and leave at run time, jobs
 * may carry topology data. Node choice and MPI rank order go to
 * topology_locality.c; the rest behaves as topology/flat, through the
 * same common helpers.
 */
#include "topology_locality.h"

const char plugin_name[] = "topology locality plugin";
const char plugin_type[] = "topology/locality";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;
const uint32_t plugin_id = TL_PLUGIN_ID;
/* No exclusive topology units: a job never owns a switch or block. */
const bool supports_exclusive_topo = false;

extern int init(void)
{
	verbose("%s loaded", plugin_name);
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	tl_destroy_config();
}

/* A node added or removed at run time changes node_record_count: the
 * machine is then set aside until the next build_config
 * (tl_eval_nodes). */
extern int topology_p_add_rm_node(node_record_t *node_ptr, char *unit,
				  topology_ctx_t *tctx)
{
	return SLURM_SUCCESS;
}

/* No: cons_tres would then place every job of at most one node itself
 * (_get_one_res), bypassing eval_nodes, so pack could not choose where
 * single-node jobs go (its holes and corners), CompactWait's plans would
 * not see them, and they would get no placement record. 24.11 has no such
 * shortcut; torus3d declines it too. */
extern bool topology_p_allow_one_node(void *tctx)
{
	return false;
}

extern int topology_p_build_config(topology_ctx_t *tctx)
{
	tctx->plugin_ctx = NULL;
	return tl_build_config();
}

extern int topology_p_destroy_config(topology_ctx_t *tctx)
{
	tl_destroy_config();
	return SLURM_SUCCESS;
}

extern int topology_p_eval_node(topology_eval_t *topo_eval, int node_idx)
{
	return common_test_node(topo_eval, node_idx);
}

extern int topology_p_eval_nodes(topology_eval_t *topo_eval)
{
	return tl_eval_nodes(topo_eval);
}

extern int topology_p_whole_topo(bitstr_t *node_mask, void *tctx)
{
	return SLURM_SUCCESS;
}

extern int topology_p_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank,
			       uint32_t *size, void *tctx)
{
	return tl_get_rank(node_bitmap, node_rank, size);
}

extern bitstr_t *topology_p_get_bitmap(char *name)
{
	return NULL;
}

/* Nodes keep slurm.conf's order: the curve orders nothing but choices. */
extern bool topology_p_generate_node_ranking(topology_ctx_t *tctx)
{
	return false;
}

extern int topology_p_get_node_addr(char *node_name, char **paddr,
				    char **ppattern, void *tctx)
{
	return common_topo_get_node_addr(node_name, paddr, ppattern);
}

extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl,
				     int *count, uint16_t tree_width,
				     void *tctx)
{
	return common_topo_split_hostlist_treewidth(hl, sp_hl, count,
						    tree_width);
}

extern int topology_p_get(topology_data_t type, void *data, void *tctx)
{
	switch (type) {
	case TOPO_DATA_TOPOLOGY_PTR: {
		dynamic_plugin_data_t **info = data;

		*info = xmalloc(sizeof(**info));
		(*info)->data = NULL;
		(*info)->plugin_id = plugin_id;
		break;
	}
	case TOPO_DATA_REC_CNT:
	case TOPO_DATA_EXCLUSIVE_TOPO:
		*(int *)data = 0;
		break;
	default:
		error("%s: unsupported topology data %d", plugin_type, type);
	}
	return SLURM_SUCCESS;
}

extern int topology_p_topoinfo_free(void *topoinfo_ptr)
{
	return SLURM_SUCCESS;
}

extern int topology_p_topoinfo_pack(void *topoinfo_ptr, buf_t *buffer,
				    uint16_t protocol_version)
{
	return SLURM_SUCCESS;
}

extern int topology_p_topoinfo_print(void *topoinfo_ptr, char *nodes_list,
				     char *unit, char **out)
{
	*out = NULL;
	return SLURM_SUCCESS;
}

extern int topology_p_topoinfo_unpack(void **topoinfo_pptr, buf_t *buffer,
				      uint16_t protocol_version)
{
	return SLURM_SUCCESS;
}

extern void topology_p_jobinfo_free(void *topo_jobinfo)
{
}

extern void topology_p_jobinfo_pack(void *topo_jobinfo, buf_t *buffer,
				    uint16_t protocol_version)
{
}

extern int topology_p_jobinfo_unpack(void **topo_jobinfo, buf_t *buffer,
				     uint16_t protocol_version)
{
	return SLURM_SUCCESS;
}

extern int topology_p_jobinfo_get(topology_jobinfo_type_t type,
				  void *topo_jobinfo, void *data)
{
	return ESLURM_NOT_SUPPORTED;
}

extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask)
{
	return 0;
}

extern void topology_p_get_topology_str(node_record_t *node_ptr,
					char **topology_str_ptr,
					topology_ctx_t *tctx)
{
}
