/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_eval.c - the eval_nodes hook: which of the nodes cons_tres offers a
 * job gets, chosen by the core, with Slurm's own per-node accounting.
 *
 * cons_tres hands over node_map (the nodes that can run the job now, or
 * in the state a WILL_RUN test simulates) and, per node, the cores and
 * GRES the job could use. The hook keeps the contract of Slurm's own
 * evaluation (common/eval_nodes.c):
 *   1. required nodes (--nodelist) first, each through Slurm's
 *      eval_nodes_select_cores() and eval_nodes_cpus_to_use();
 *   2. every other node's usable CPUs (eval_nodes_select_cores()); those
 *      with none leave node_map, which then holds only chosen nodes;
 *   3. the fewest nodes that can hold the job's CPUs (and, per job,
 *      GRES), at least the count asked for, and the core's most compact
 *      set of that size among the candidates, in the lightest weight
 *      tiers that hold it (NodeWeight=tiers; the regions other jobs
 *      claim a tier just heavier, tl_claim.c), with the required nodes;
 *      a set that lacks CPUs is tried on the nodes that hold an even
 *      share of them (taken within CompactTolerance of the ideal), then,
 *      as one that lacks GRES, one node larger; a job that one node
 *      holds is kept to a best fit (sizing: tl_fit.c);
 *      with SharedNodes=first, a job that shares nodes then swaps idle
 *      nodes of its set for nodes in use at no cost in hops (_share_first);
 *   4. the chosen nodes accounted as Slurm does (eval_nodes_cpus_to_use,
 *      GRES); what they still lack is taken from the candidates nearest
 *      to them.
 * In backfill's tests with PlanHold=released, the set of step 3 is then
 * moved onto nodes busy now where the same number of them hold the job
 * (_hold_released), so the plan backfill reserves leaves idle nodes free;
 * CompactWait still judges the set chosen among all candidates.
 * Anything the core cannot serve (arbitrary task layouts) goes back to
 * Slurm's own best fit (ESLURM_NOT_SUPPORTED).
 */
#include <stdlib.h>

#include "tl_job.h"

#include "loc_metrics.h"
#include "loc_plan.h"

static bool _satisfied(tl_job_t *t)
{
	return t->rem_nodes <= 0 && t->rem_cpus <= 0 &&
	       (!t->te->gres_per_job ||
		gres_sched_test(t->job->gres_list_req, t->job->job_id));
}

/* Accounts node i (Slurm index) to the job as Slurm's best fit does;
 * false when Slurm's helpers find nothing usable there. */
static bool _take(tl_job_t *t, int i)
{
	topology_eval_t *te = t->te;

	te->avail_cpus = t->cpus[i];
	if (!te->avail_cpus ||
	    !eval_nodes_cpus_to_use(te, i, t->rem_max_cpus, t->min_rem_nodes,
				    &t->maxtasks, true))
		return false;
	bit_set(te->node_map, i);
	t->rem_cpus -= te->avail_cpus;
	t->rem_max_cpus -= te->avail_cpus;
	t->rem_nodes--;
	t->min_rem_nodes--;
	te->max_nodes--;
	return true;
}

/* One core call for k more nodes (with the required ones): 0 or LOC_E*. */
int tl_job_select(tl_job_t *t, int k)
{
	loc_error_t err;
	loc_view_t view = { .candidate = t->cand, .now = time(NULL) };
	loc_request_t req = {
		.nodes = t->nreq + k,
		.required = t->nreq ? t->req : NULL,
		.nrequired = t->nreq,
		.contiguous = t->job->details->contiguous != 0,
	};
	int rc;

	/* WalltimeAware=sl: the tie-break among near-best sets (in
	 * backfill's tests too, on the real clock: the plan is remade when
	 * the job starts). */
	if (loc_policy_sl(t->policy)) {
		view.busy_until = tl_walltime_busy(&t->s->walltime, t->m,
						   view.now);
		req.expected_end = tl_walltime_expected_end(t->job, view.now);
	}

	/* The core wants required nodes among the candidates. */
	for (int j = 0; j < t->nreq; j++)
		t->cand[t->req[j]] = 1;
	rc = loc_tiers_select(t->tiers, t->alloc, &req, t->cand, &view,
			      t->out, NULL, &err);
	for (int j = 0; j < t->nreq; j++)
		t->cand[t->req[j]] = 0;
	if (rc && rc != LOC_ENOFIT)
		debug("%s: %pJ: %s", plugin_type, t->job, err.text);
	return rc;
}

/* Moves the required nodes to the front of out[] (the core answers in
 * ascending node order). */
static void _required_first(tl_job_t *t, int k)
{
	int w = 0, n = t->nreq + k;
	int *rest = t->s->unrequired;
	int nrest = 0;

	for (int j = 0; j < n; j++) {
		bool is_req = false;

		for (int r = 0; r < t->nreq && !is_req; r++)
			is_req = t->req[r] == t->out[j];
		if (is_req)
			t->out[w++] = t->out[j];
		else
			rest[nrest++] = t->out[j];
	}
	memcpy(t->out + w, rest, nrest * sizeof(int));
}

/* Adds the candidates nearest to the nodes taken (fewest total hops)
 * until the job is covered or none is left. */
static void _fill_nearest(tl_job_t *t)
{
	const loc_grid_t *grid = t->m->grid;
	int *taken = t->s->taken;
	int ntaken = tl_chosen_nodes(t->m, t->te->node_map, taken);

	while (!_satisfied(t) && t->te->max_nodes > 0) {
		int64_t best_cost = INT64_MAX;
		int best = -1;

		for (int g = 0; g < t->m->ncore; g++) {
			int64_t cost = 0;

			if (!t->cand[g])
				continue;
			for (int j = 0; j < ntaken; j++)
				cost += loc_grid_node_hops(grid, g, taken[j]);
			if (cost < best_cost) {
				best_cost = cost;
				best = g;
			}
		}
		if (best < 0)
			break;
		t->cand[best] = 0;
		if (_take(t, t->m->to_slurm[best]))
			taken[ntaken++] = best;
	}
}

static void _log_placement(tl_job_t *t)
{
	loc_metrics_t met;
	int k, *nodes = t->s->chosen;
	char *names;

	if (get_log_level() < LOG_LEVEL_DEBUG)
		return;
	k = tl_chosen_nodes(t->m, t->te->node_map, nodes);
	memset(&met, 0, sizeof(met));
	loc_metrics_compute(t->m->grid, loc_alloc_curve(t->alloc), nodes, k,
			    &met);
	names = bitmap2node_name(t->te->node_map);
	debug("%s: %pJ nodes=%s k=%d avg_hops=%.2f span=%d strategy=%s%s",
	      plugin_type, t->job, names, k, met.avg_pair_hops,
	      met.linear_span, loc_strategy_kind_name(t->policy->strategy),
	      t->held_released ? " (plan on released nodes)" : "");
	xfree(names);
}

/* The set chosen outside backfill's tests, in the job's AdminComment:
 * the last such evaluation of a job that starts is the one it runs on. */
static void _record(tl_job_t *t)
{
	int k = tl_chosen_nodes(t->m, t->te->node_map, t->s->chosen);

	sl_record_placement(t->m, t->job, t->s->chosen, k);
}

int tl_chosen_nodes(const sl_machine_t *m, bitstr_t *node_map, int *nodes)
{
	int k = 0;

	for (int i = 0; next_node_bitmap(node_map, &i); i++)
		if (m->to_core[i] >= 0)
			nodes[k++] = m->to_core[i];
	return k;
}

/* Step 1: the required nodes, accounted first. Returns SLURM_SUCCESS to
 * go on, else an error (eval_action set). */
static int _take_required(tl_job_t *t)
{
	topology_eval_t *te = t->te;
	bitstr_t *req_map = t->job->details->req_node_bitmap;

	if (!req_map)
		return SLURM_SUCCESS;
	for (int i = 0; next_node_bitmap(req_map, &i); i++) {
		if (te->max_nodes <= 0 || t->m->to_core[i] < 0) {
			TL_EVAL_ACTION(te, EVAL_ACTION_BREAK);
			return SLURM_ERROR;
		}
		eval_nodes_select_cores(te, i, t->min_rem_nodes);
		t->cpus[i] = te->avail_cpus;
		if (!_take(t, i)) {
			debug("%pJ required node %s lacks available resources",
			      t->job, node_record_table_ptr[i]->name);
			TL_EVAL_ACTION(te, EVAL_ACTION_BREAK);
			return SLURM_ERROR;
		}
		t->req[t->nreq++] = t->m->to_core[i];
	}
	if (t->job->details->max_cpus != NO_VAL &&
	    (int64_t)t->job->details->min_cpus - t->rem_cpus >
		    t->job->details->max_cpus) {
		info("%pJ can't use required nodes due to max CPU limit",
		     t->job);
		TL_EVAL_ACTION(te, EVAL_ACTION_BREAK);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/* Step 2: every other node's usable CPUs; node_map keeps only the
 * required nodes taken. */
static void _scan_candidates(tl_job_t *t)
{
	topology_eval_t *te = t->te;
	bitstr_t *req_map = t->job->details->req_node_bitmap;

	for (int i = 0; next_node_bitmap(te->node_map, &i); i++) {
		int g = t->m->to_core[i];

		if (req_map && bit_test(req_map, i))
			continue;
		bit_clear(te->node_map, i);
		if (g < 0)
			continue;
		eval_nodes_select_cores(te, i, t->min_rem_nodes);
		if (!te->avail_cpus)
			continue;
		t->cpus[i] = te->avail_cpus;
		t->cand[g] = 1;
		t->weight[g] = tl_node_weight(node_record_table_ptr[i]);
		t->ncand++;
	}
}

/*
 * Other jobs' claims (tl_claim.c): their regions' candidates become a
 * tier just heavier than their own Weight (tl_node_weight() leaves the
 * low byte free), or, without NodeWeight=tiers, the one heavier tier.
 */
static void _weigh_claims(tl_job_t *t)
{
	tl_claims_t *c = &t->s->claims;

	t->use_tiers = t->policy->node_weight == LOC_NODE_WEIGHT_TIERS;
	tl_claims_expire(c, time(NULL));
	if (loc_claims_weigh(&c->set, t->job->job_id, t->cand, t->weight,
			     t->use_tiers))
		t->use_tiers = true;
}

/*
 * PlanHold=released inside cons_tres (loc_plan.h has the rule): in
 * backfill's tests (BACKFILL_TEST), the k nodes of out[] are moved onto
 * candidates not idle now, where k of them hold the job. A test of a
 * simulated future state offers nodes that running jobs release by then;
 * backfill keeps the answer's nodes from every job that would still run
 * at the start, so an idle node in it would stand idle until then. The
 * job itself is placed afresh, on all candidates, when it starts (backfill
 * starts it through a test outside BACKFILL_TEST). "Idle now" is
 * slurmctld's idle_node_bitmap: a node that shares cores with running
 * jobs counts as released, since holding it keeps only its free cores.
 * Records the hops of the set chosen among all candidates, which
 * CompactWait judges, as the start must not move.
 */
static void _hold_released(tl_job_t *t, int k)
{
	uint8_t *now = t->s->cand_now;
	int *full = t->s->full;
	int released = 0, rc;

	if (t->policy->plan_hold != LOC_PLAN_HOLD_RELEASED ||
	    !(t->job->bit_flags & BACKFILL_TEST) || t->nreq ||
	    t->job->details->contiguous || !&idle_node_bitmap ||
	    !idle_node_bitmap)
		return;
	for (int g = 0; g < t->m->ncore; g++) {
		now[g] = t->cand[g] &&
			 bit_test(idle_node_bitmap, t->m->to_slurm[g]);
		released += t->cand[g] && !now[g];
	}
	/* A test of now (every candidate idle) or too few released. */
	if (released < k)
		return;
	memcpy(full, t->out, k * sizeof(*full));
	t->judged_hops = loc_metrics_total_pair_hops(t->m->grid, full, k);
	(void)loc_plan_narrow_to_released(t->cand, now, t->m->ncore);
	rc = tl_job_select(t, k);
	if (rc || !tl_fit_covers(t, k))
		memcpy(t->out, full, k * sizeof(*full));
	else
		t->held_released = true;
	loc_plan_unnarrow(t->cand, now, t->m->ncore);
}

/*
 * SharedNodes=first (loc_share.h): a job that can share nodes swaps the
 * idle nodes of its set out[0..k) for candidates that run other jobs
 * now, wherever the set's hops do not grow and its CPUs still cover the
 * job. Only when the job starts now: a backfill test's candidates are a
 * simulated state, whose idle nodes slurmctld does not say (and
 * PlanHold=released moves such plans onto busy nodes anyway). Not with
 * required nodes, --contiguous, or GRES asked of the job as a whole.
 */
static void _share_first(tl_job_t *t, int k)
{
	loc_share_job_t job = {
		.candidate = t->cand,
		.in_use = t->s->in_use,
		.capacity = t->s->set_cpus,
		.need = t->rem_cpus > 0 ? (uint64_t)t->rem_cpus : 0,
		.weight = t->use_tiers ? t->weight : NULL,
	};
	int nin_use = 0, swaps;

	if (t->policy->shared_nodes != LOC_SHARED_NODES_FIRST || k < 2 ||
	    t->nreq || t->job->details->contiguous || t->te->gres_per_job ||
	    (t->job->bit_flags & BACKFILL_TEST) || !&idle_node_bitmap ||
	    !idle_node_bitmap)
		return;
	for (int g = 0; g < t->m->ncore; g++) {
		int i = t->m->to_slurm[g];

		t->s->in_use[g] = t->cand[g] && !bit_test(idle_node_bitmap, i);
		t->s->set_cpus[g] = t->cand[g] ? t->cpus[i] : 0;
		nin_use += t->s->in_use[g];
	}
	if (!nin_use)
		return;
	swaps = loc_share_first(&t->s->share, t->m->grid, &job, t->out, k);
	if (swaps)
		debug("%s: %pJ: SharedNodes=first took %d node(s) in use for idle ones",
		      plugin_type, t->job, swaps);
}

/* Step 3: the core's set, one node larger until it covers the job (an
 * even share of its CPUs first, tl_fit.c); a set larger than the fewest
 * that could cover it then spares what nodes it can. */
static void _take_compact(tl_job_t *t)
{
	topology_eval_t *te = t->te;
	int k = MAX(t->rem_nodes, tl_fit_nodes_for_cpus(t));
	int hi = MIN(t->ncand, (int)MIN(te->max_nodes, INT32_MAX));
	int rc = LOC_ENOFIT;

	if (_satisfied(t))
		return;
	k = MAX(k, 1);
	if (k > hi)
		k = hi; /* -N min-max: as many as there are, at least min */
	if (k != 1 || !tl_fit_select_best(t)) {
		int fewest = k;

		for (; k >= 1 && k <= hi; k++) {
			rc = tl_job_select(t, k);
			if (rc)
				break;
			if (tl_fit_covers(t, k)) {
				int asked = k;

				while (k > fewest && tl_fit_drop_one(t, k))
					k--;
				if (k < asked)
					debug("%s: %pJ: %d of the core's %d nodes spared, %d cover it",
					      plugin_type, t->job, asked - k,
					      asked, k);
				break;
			}
			if (tl_fit_select_even_share(t, k))
				break;
			if (k == hi) {
				/* The core's set, which Slurm's fill tops up. */
				rc = tl_job_select(t, k);
				break;
			}
		}
		/* No set from the core (no candidates, no box, no contiguous
		 * interval): out[] holds nothing; _fill_nearest() decides, or
		 * for --contiguous nothing does and Slurm retries. */
		if (rc)
			return;
		_share_first(t, k);
	}
	_hold_released(t, k);
	_required_first(t, k);
	for (int j = t->nreq; j < t->nreq + k && !_satisfied(t) &&
			      te->max_nodes > 0;
	     j++) {
		int g = t->out[j];

		t->cand[g] = 0;
		(void)_take(t, t->m->to_slurm[g]);
	}
}

int tl_eval_compact(topology_eval_t *te, sl_machine_t *m, tl_scratch_t *s)
{
	job_record_t *job = te->job_ptr;
	job_details_t *d = job->details;
	tl_job_t t = { .m = m, .s = s, .te = te, .job = job,
		       .judged_hops = -1 };
	loc_error_t err;
	int rc = SLURM_ERROR;

	if (d->arbitrary_tpn)
		return ESLURM_NOT_SUPPORTED;
	t.alloc = sl_machine_job_alloc(m, job, &t.policy, &err);
	if (!t.alloc) {
		error("%s: %pJ: %s", plugin_type, job, err.text);
		return ESLURM_NOT_SUPPORTED;
	}
	/* The arrays read before they are written start clear. */
	memset(s->cand, 0, m->ncore * sizeof(*s->cand));
	memset(s->weight, 0, m->ncore * sizeof(*s->weight));
	memset(s->cpus, 0, m->nslurm * sizeof(*s->cpus));
	t.cand = s->cand;
	t.weight = s->weight;
	t.cpus = s->cpus;
	t.req = s->req;
	t.out = s->out;
	t.tiers = &s->tiers;

	/* Slurm's running figures, set as its best fit sets them. */
	te->avail_cpus = 0;
	t.rem_cpus = d->min_cpus;
	t.min_rem_nodes = te->min_nodes;
	te->gres_per_job = gres_sched_init(job->gres_list_req);
	t.rem_nodes = te->gres_per_job ? MIN(te->min_nodes, te->req_nodes) :
					 MAX(te->min_nodes, te->req_nodes);
	t.rem_max_cpus = eval_nodes_get_rem_max_cpus(d, t.rem_nodes);
	t.maxtasks = eval_nodes_set_max_tasks(job, t.rem_max_cpus,
					      te->max_nodes);

	if (_take_required(&t) != SLURM_SUCCESS)
		goto fini;
	_scan_candidates(&t);
	_weigh_claims(&t);
	if (t.use_tiers)
		loc_tiers_set(t.tiers, t.weight, t.cand);
	else
		loc_tiers_clear(t.tiers);
	_take_compact(&t);
	if (!d->contiguous)
		_fill_nearest(&t);

	if (_satisfied(&t) ||
	    (t.rem_cpus <= 0 &&
	     gres_sched_test(job->gres_list_req, job->job_id) &&
	     eval_nodes_enough_nodes(0, t.rem_nodes, te->min_nodes,
				     te->req_nodes))) {
		rc = SLURM_SUCCESS;
		eval_nodes_clip_socket_cores(te);
		_log_placement(&t);
		if (tl_compact_defer(te, m, s, t.alloc, t.policy, t.nreq,
				     t.judged_hops))
			job->best_switch = false; /* cons_tres declines */
		else if (!(job->bit_flags & BACKFILL_TEST))
			_record(&t);
	} else {
		TL_EVAL_ACTION(te, EVAL_ACTION_RETRY_DEFAULT);
	}
fini:
	return rc;
}
