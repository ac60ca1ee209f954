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

/* One GRES a job asks of each of its nodes (an entry of its
 * gres_list_req): its kind, its type (0: any type) and how many a node
 * must hold at least: per node, per socket or per task when the job says
 * so, else one (--gpus=N spreads N over the nodes, each of which holds
 * some). have counts a node's, busy or not (_node_serves_gres()). */
typedef struct {
	uint32_t plugin_id;
	uint32_t type_id;
	uint64_t need;
	uint64_t have;
} tl_gres_want_t;

typedef struct {
	tl_gres_want_t *want;
	int n;
} tl_gres_wants_t;

static int _add_want(void *x, void *arg)
{
	gres_state_t *gs = x;
	gres_job_state_t *js = gs->gres_data;
	tl_gres_wants_t *w = arg;
	tl_gres_want_t *want;

	if (!js)
		return 0;
	want = &w->want[w->n++];
	want->plugin_id = gs->plugin_id;
	want->type_id = js->type_id;
	want->need = MAX(1, js->gres_per_node);
	want->need = MAX(want->need, js->gres_per_socket);
	want->need = MAX(want->need, js->gres_per_task);
	return 0;
}

/* Adds to want->have what one GRES of a node's gres_list configures of
 * want's kind (and type, when it names one). */
static int _add_configured(void *x, void *arg)
{
	gres_state_t *gs = x;
	gres_node_state_t *ns = gs->gres_data;
	tl_gres_want_t *want = arg;

	if (gs->plugin_id != want->plugin_id || !ns)
		return 0;
	if (!want->type_id) {
		want->have += ns->gres_cnt_avail;
		return 0;
	}
	for (int t = 0; t < ns->type_cnt; t++)
		if (ns->type_id[t] == want->type_id)
			want->have += ns->type_cnt_avail[t];
	return 0;
}

/* Whether node was configured with every GRES the job asks of each of
 * its nodes: the reference of a GPU job is made on GPU nodes. Counts in
 * use do not matter (the reference is the idle machine's), nor do
 * sockets: cons_tres's finer tests (GRES bound to cores) may still
 * refuse a node, which only makes the reference a little better than the
 * job can have, and CompactWait bounds the wait. The job's wants are
 * read once per reference (_reference()), and a node's list is walked
 * without an iterator: this runs for every node of the partition. */
static bool _node_serves_gres(node_record_t *node, tl_gres_wants_t *w)
{
	for (int i = 0; i < w->n; i++) {
		tl_gres_want_t *want = &w->want[i];

		want->have = 0;
		if (node->gres_list)
			(void)list_for_each_ro(node->gres_list,
					       _add_configured, want);
		if (want->have < want->need)
			return false;
	}
	return true;
}

/* Total pairwise hops of k nodes placed on the job's reference set
 * (sl_compact_wait_reference_set(), narrowed to the nodes that hold its
 * GRES) all idle, weighted as the evaluation weighs its candidates
 * (tl_node_weight()); 0 when the strategy finds none, -1 when the job's
 * constraint is one only slurmctld evaluates. */
static int64_t _reference(sl_machine_t *m, job_record_t *job,
			  loc_alloc_t *alloc, const loc_policy_t *policy, int k)
{
	sl_ref_scratch_t *ref = &m->ref;
	tl_gres_wants_t wants = { 0 };

	if (!sl_compact_wait_reference_set(m, job, ref->set))
		return -1;
	if (job->gres_list_req) {
		wants.want = xcalloc(MAX(list_count(job->gres_list_req), 1),
				     sizeof(*wants.want));
		(void)list_for_each_ro(job->gres_list_req, _add_want, &wants);
	}
	for (int g = 0; g < m->ncore; g++) {
		node_record_t *node = node_record_table_ptr[m->to_slurm[g]];

		if (ref->set[g] && wants.n && !_node_serves_gres(node, &wants))
			ref->set[g] = 0;
		if (ref->set[g])
			ref->weight[g] = tl_node_weight(node);
	}
	xfree(wants.want);
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
	int k;

	/* Required nodes are the user's choice. A constraint and GRES
	 * narrow the nodes the reference is made on (_reference()); a
	 * constraint only slurmctld evaluates makes the job take its set. */
	if (policy->compact_wait <= 0 || nreq || !job->part_ptr)
		return false;
	k = tl_chosen_nodes(m, te->node_map, s->chosen);
	began = sl_compact_wait_began(policy, job, now,
				      _offered_now(job, te->node_map));
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
	return true;
}
