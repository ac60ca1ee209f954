/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_gres.h - whether a node was configured with the GRES a job asks of
 * each of its nodes, for both plugins: select/locality's candidates
 * (slurmctld leaves GRES to the select plugin) and the nodes either
 * plugin makes a CompactWait reference on (sl_compact_wait.c). Counts in
 * use do not matter: select/locality takes whole nodes, and a reference
 * is the idle machine's. Nor do sockets: cons_tres's finer tests (GRES
 * bound to cores) may still refuse a node, which only makes a reference
 * a little better than the job can have, and CompactWait bounds the wait.
 */
#ifndef LOC_SL_GRES_H
#define LOC_SL_GRES_H

#include "sl_machine.h"

/* One GRES a job asks of each of its nodes (an entry of its
 * gres_list_req): its kind, its type (0: any type) and how many a node
 * must hold at least: per node, per socket or per task when the job says
 * so, else one (--gpus=N spreads N over the nodes, each of which holds
 * some). have is scratch for sl_gres_node_serves(). */
typedef struct {
	uint32_t plugin_id;
	uint32_t type_id;
	uint64_t need;
	uint64_t have;
} sl_gres_want_t;

/* A job's wants, read once per decision: the per-node test runs for
 * every node of the partition. n = 0: the job asks for no GRES. */
typedef struct {
	sl_gres_want_t *want;
	int n;
} sl_gres_wants_t;

/* Reads job's wants into w (sl_gres_wants_free() releases them). */
void sl_gres_wants_read(job_record_t *job, sl_gres_wants_t *w);
void sl_gres_wants_free(sl_gres_wants_t *w);

/* Whether node was configured with every GRES in w (true when w asks for
 * none). Walks the node's gres_list once per want, allocating nothing. */
bool sl_gres_node_serves(node_record_t *node, sl_gres_wants_t *w);

/* Whether some GRES of node is allocated to a job. On a node no running
 * job holds (select/locality's whole nodes), that is a suspended job's:
 * it keeps its devices while its nodes are lent out. */
bool sl_gres_node_in_use(node_record_t *node);

#endif
