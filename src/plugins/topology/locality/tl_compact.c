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

/* The reference placed as tl_eval.c places a job: k nodes of set[] in
 * the lightest tiers that hold them, with allocator arg. */
static int _place_reference(void *arg, uint8_t *set, loc_tiers_t *tiers,
			    int k, int *out)
{
	loc_view_t view = { .candidate = set, .now = time(NULL) };
	loc_request_t req = { .nodes = k };
	loc_error_t err;

	return loc_tiers_select(tiers, arg, &req, set, &view, out, NULL, &err);
}

/* Total pairwise hops of k nodes placed on the job's reference set
 * (sl_compact_wait_reference_set(): the nodes that hold its GRES among
 * them) all idle, weighted as the evaluation weighs its candidates
 * (tl_node_weight()); 0 when the strategy finds none, -1 when the job's
 * constraint is one only slurmctld evaluates. */
static int64_t _reference(sl_machine_t *m, job_record_t *job,
			  loc_alloc_t *alloc, const loc_policy_t *policy, int k)
{
	sl_ref_scratch_t *ref = &m->ref;

	if (!sl_compact_wait_reference_set(m, job, ref->set))
		return -1;
	for (int g = 0; g < m->ncore; g++)
		if (ref->set[g])
			ref->weight[g] = tl_node_weight(
				node_record_table_ptr[m->to_slurm[g]]);
	return sl_compact_wait_reference(m, alloc, policy, k, _place_reference,
					 alloc);
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

bool tl_compact_defer(topology_eval_t *te, sl_machine_t *m, tl_scratch_t *s,
		      loc_alloc_t *alloc, const loc_policy_t *policy, int nreq,
		      int64_t judged_hops)
{
	job_record_t *job = te->job_ptr;
	int64_t now = time(NULL), began, waited, hops, ref;
	bool offered_now;
	int k;

	/* Required nodes are the user's choice. A constraint and GRES
	 * narrow the nodes the reference is made on (_reference()); a
	 * constraint only slurmctld evaluates makes the job take its set. */
	if (policy->compact_wait <= 0 || nreq || !job->part_ptr)
		return false;
	k = tl_chosen_nodes(m, te->node_map, s->chosen);
	offered_now = _offered_now(job, te->node_map);
	began = sl_compact_wait_began(policy, job, now, offered_now);
	waited = now - began;
	if (k < 2 || waited >= policy->compact_wait)
		return false;
	hops = judged_hops >= 0 ?
		       judged_hops :
		       loc_metrics_total_pair_hops(m->grid, s->chosen, k);
	ref = _reference(m, job, alloc, policy, k);
	if (ref < 0 || !loc_patience_defer(policy, k, hops, ref, waited))
		return false;
	debug("%s: %pJ waits for a compact placement (k=%d, hops=%" PRId64 ", reference %" PRId64 ", CompactWait until %" PRId64 ")",
	      plugin_type, job, k, hops, ref,
	      loc_patience_deadline(policy, began));
	/* m->ref.set is still this job's reference set (_reference()). */
	if (offered_now)
		tl_claims_make(&s->claims, m, job, policy, s->cand, s->chosen,
			       k, loc_patience_deadline(policy, began),
			       _place_reference, alloc);
	return true;
}
