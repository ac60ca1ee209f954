/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_compact.c - CompactWait inside select/cons_tres: whether the set
 * eval_nodes chose should be declined so the job waits for a more compact
 * one. The rule is the core's (loc_patience.h), shared with select/locality
 * and the replay; this file supplies what only cons_tres's caller knows.
 *
 * How a topology plugin declines: cons_tres's job_test treats a set whose
 * eval_nodes left job_ptr->best_switch false as no set ("waiting for
 * switches"), in RUN_NOW and in backfill's WILL_RUN alike; it is how
 * topology/tree makes a --switches job wait. slurmctld sets the flag true
 * when it creates or loads a job and only topology plugins change it, so
 * tl_eval_nodes() sets it true on every evaluation and this file false.
 *
 * Backfill's WILL_RUN evaluates simulated future states too: a declined
 * set there makes cons_tres try a later state, so backfill plans the job
 * where a compact set frees up, and does not start it on the scattered
 * set meanwhile.
 */
#include "topology_locality.h"

#include "loc_metrics.h"
#include "loc_patience.h"

/* slurmctld's; the plugin also loads in slurmd and the commands. */
#pragma weak idle_node_bitmap

/*
 * The nodes of the job's partition (and reservation) that their state,
 * the job's per-node memory and its --exclude allow, whatever this evaluation offers (an exclusive job is offered
 * only idle nodes), with their scheduling weights: the set the reference
 * is made on, all of it idle.
 */
static void _reference_set(sl_machine_t *m, job_record_t *job,
			   uint8_t *set, uint64_t *weight)
{
	bitstr_t *part = job->part_ptr->node_bitmap;
	bitstr_t *excluded = job->details->exc_node_bitmap;
	bitstr_t *resv = job->resv_ptr ? job->resv_ptr->node_bitmap : NULL;
	uint64_t mem = job->details->pn_min_memory;
	bool per_node_mem = mem && mem != NO_VAL64 && !(mem & MEM_PER_CPU);

	for (int i = 0; next_node_bitmap(part, &i); i++) {
		node_record_t *node = node_record_table_ptr[i];
		int g = i < m->nslurm ? m->to_core[i] : -1;

		if (g < 0 || !node || !sl_node_usable(node, i, false) ||
		    (excluded && bit_test(excluded, i)) ||
		    (resv && !bit_test(resv, i)))
			continue;
		if (per_node_mem &&
		    node->real_memory < mem + node->mem_spec_limit)
			continue;
		set[g] = 1;
		weight[g] = node->sched_weight;
	}
}

/* Total pairwise hops of k nodes placed on the reference set all idle, or
 * 0 when the strategy finds none. Cached per machine. */
static int64_t _reference(sl_machine_t *m, job_record_t *job,
			  loc_alloc_t *alloc, const loc_policy_t *policy, int k)
{
	uint8_t *set = xcalloc(m->ncore, sizeof(*set));
	uint64_t *weight = xcalloc(m->ncore, sizeof(*weight));
	int *out = xcalloc(m->ncore, sizeof(*out));
	loc_view_t view = { .candidate = set, .now = time(NULL) };
	loc_request_t req = { .nodes = k };
	loc_tiers_t tiers;
	loc_error_t err;
	int64_t hops = 0;
	uint64_t key;

	_reference_set(m, job, set, weight);
	key = sl_ref_key(m, alloc, k, set, weight);
	if (!sl_ref_get(m, key, k, &hops)) {
		if (loc_tiers_init(&tiers, m->ncore, &err) == 0) {
			if (policy->node_weight == LOC_NODE_WEIGHT_TIERS)
				loc_tiers_set(&tiers, weight, set);
			else
				loc_tiers_clear(&tiers);
			if (loc_tiers_select(&tiers, alloc, &req, set, &view,
					     out, NULL, &err) == 0)
				hops = loc_metrics_total_pair_hops(m->grid, out,
								   k);
			loc_tiers_fini(&tiers);
		}
		sl_ref_put(m, key, k, hops);
	}
	xfree(set);
	xfree(weight);
	xfree(out);
	return hops > 0 ? hops : 0;
}

/*
 * Whether the set is one the job could take now, which begins its wait
 * (loc_patience_began): any set outside backfill's tests, and in them a
 * set of nodes idle now (a test of a simulated future state offers nodes
 * that are busy now). A job that queued behind others keeps its whole
 * patience for when nodes free up.
 */
static bool _offered_now(job_record_t *job, bitstr_t *chosen)
{
	if (!(job->bit_flags & BACKFILL_TEST))
		return true;
	if (!&idle_node_bitmap || !idle_node_bitmap)
		return false;
	for (int i = 0; next_node_bitmap(chosen, &i); i++)
		if (!bit_test(idle_node_bitmap, i))
			return false;
	return true;
}

bool tl_compact_defer(topology_eval_t *te, sl_machine_t *m,
		      loc_alloc_t *alloc, const loc_policy_t *policy, int nreq)
{
	job_record_t *job = te->job_ptr;
	int64_t now = time(NULL), began, waited, hops, ref;
	int k = 0, *nodes;
	bool defer;

	/* Required nodes are the user's choice; --constraint and GRES
	 * narrow the usable nodes in ways only cons_tres evaluates, so a
	 * reference made without them would make the job wait for a set it
	 * can never have. */
	if (policy->compact_wait <= 0 || nreq || !job->part_ptr ||
	    job->details->features || job->gres_list_req)
		return false;
	nodes = xcalloc(m->ncore, sizeof(*nodes));
	for (int i = 0; next_node_bitmap(te->node_map, &i); i++) {
		if (m->to_core[i] < 0) {
			xfree(nodes);
			return false;
		}
		nodes[k++] = m->to_core[i];
	}
	began = job->wait4switch_start ? (int64_t)job->wait4switch_start :
					 LOC_PATIENCE_UNSET;
	waited = now - loc_patience_began(&began,
					  now, _offered_now(job, te->node_map));
	if (began != LOC_PATIENCE_UNSET)
		job->wait4switch_start = (time_t)began;
	defer = false;
	if (k >= 2 && waited < policy->compact_wait) {
		hops = loc_metrics_total_pair_hops(m->grid, nodes, k);
		ref = _reference(m, job, alloc, policy, k);
		defer = loc_patience_defer(policy, k, hops, ref, waited);
		if (defer)
			debug("%s: %pJ waits for a compact placement (k=%d, hops=%" PRId64 ", reference %" PRId64 ", CompactWait until %" PRId64 ")",
			      plugin_type, job, k, hops, ref,
			      loc_patience_deadline(policy,
						    began != LOC_PATIENCE_UNSET ?
							    began :
							    now));
	}
	xfree(nodes);
	return defer;
}
