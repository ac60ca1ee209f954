/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_glue.c (Slurm 24.11) - topology/locality's entry points as 24.11's
 * topology interface names them (src/interfaces/topology.c): one
 * topology for the cluster, no per-job topology data. Node choice goes
 * to topology_locality.c; the rest is Slurm's default behaviour, through
 * the same common helpers topology/default uses.
 */
#include "topology_locality.h"

const char plugin_name[] = "topology locality plugin";
const char plugin_type[] = "topology/locality";
const uint32_t plugin_id = TL_PLUGIN_ID;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	verbose("%s loaded", plugin_name);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	tl_destroy_config();
	return SLURM_SUCCESS;
}

extern int topology_p_build_config(void)
{
	return tl_build_config();
}

extern int topology_p_eval_nodes(topology_eval_t *topo_eval)
{
	return tl_eval_nodes(topo_eval);
}

extern int topology_p_whole_topo(bitstr_t *node_mask)
{
	return SLURM_SUCCESS;
}

extern bitstr_t *topology_p_get_bitmap(char *name)
{
	return NULL;
}

/* Nodes keep slurm.conf's order: the curve orders nothing but choices. */
extern bool topology_p_generate_node_ranking(void)
{
	return false;
}

extern int topology_p_get_node_addr(char *node_name, char **paddr,
				    char **ppattern)
{
	return common_topo_get_node_addr(node_name, paddr, ppattern);
}

extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl,
				     int *count, uint16_t tree_width)
{
	return common_topo_split_hostlist_treewidth(hl, sp_hl, count,
						    tree_width);
}

extern int topology_p_topology_free(void *topoinfo_ptr)
{
	return SLURM_SUCCESS;
}

extern int topology_p_get(topology_data_t type, void *data)
{
	return SLURM_SUCCESS;
}

extern int topology_p_topology_pack(void *topoinfo_ptr, buf_t *buffer,
				    uint16_t protocol_version)
{
	return SLURM_SUCCESS;
}

extern int topology_p_topology_print(void *topoinfo_ptr, char *nodes_list,
				     char **out)
{
	*out = NULL;
	return SLURM_SUCCESS;
}

extern int topology_p_topology_unpack(void **topoinfo_pptr, buf_t *buffer,
				      uint16_t protocol_version)
{
	return SLURM_SUCCESS;
}

extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask)
{
	return 0;
}
