/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_walltime.c - the walltime-aware layers of seed 004 (Tang et al.,
 * "Walltime-aware job scheduling on torus-connected systems", IPDPS 2011)
 * that need Slurm's queue, around the core's loc_walltime.h:
 *
 *   SL      runs inside loc_alloc_select(); the plugin only passes each
 *           node's busy_until and the job's expected end;
 *   PF      the plugin cannot start the partner itself, so it holds an
 *           idle neighbour region for it (soft: expires, and never holds
 *           back a job of higher priority than the partner);
 *   AdjEst  per-user accuracy of time limits, learnt at job end, used for
 *           placement only.
 */
#include "select_locality.h"
#include "sl_ctx.h"

int64_t sl_walltime_estimate(sl_machine_t *m, const loc_policy_t *p,
			     job_record_t *job)
{
	int64_t req;

	if (job->time_limit == NO_VAL || job->time_limit == INFINITE ||
	    job->time_limit == 0)
		return 0;
	req = (int64_t)job->time_limit * 60;
	if (m->adjest && p->walltime == LOC_WALLTIME_ADJEST)
		return loc_adjest_estimate(m->adjest, job->user_id, req);
	return req;
}

/* Queue order for the partner choice: priority, then age (job id). */
static int _cmp_prio(const void *a, const void *b)
{
	const job_record_t *x = *(job_record_t *const *)a;
	const job_record_t *y = *(job_record_t *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

bool sl_pf_release(sl_machine_t *m, uint32_t job_id)
{
	return m->holds && loc_holds_release(m->holds, job_id) == 0;
}

void sl_pf_drop_departed(sl_machine_t *m)
{
	if (!m->holds || !&find_job_record)
		return;
	/* From the last: a release moves only the holds after it. */
	for (int i = loc_holds_count(m->holds, NULL) - 1; i >= 0; i--) {
		uint32_t id = loc_holds_partner(m->holds, i);
		job_record_t *p = find_job_record(id);

		if (!p || !IS_JOB_PENDING(p) || p->priority == 0)
			(void)loc_holds_release(m->holds, id);
	}
}

/*
 * The waiting jobs of job's partition asking for exactly k nodes, in
 * queue order, without a hold yet. Returns their count; *out is xmalloc'd.
 */
static int _waiting(sl_machine_t *m, job_record_t *job, int k, time_t now,
		    job_record_t ***out)
{
	ListIterator it = list_iterator_create(job_list);
	job_record_t *pj, **pend = NULL;
	int n = 0, cap = 0;

	while ((pj = list_next(it))) {
		if (pj == job || !IS_JOB_PENDING(pj) || !pj->details ||
		    pj->part_ptr != job->part_ptr || pj->priority == 0 ||
		    pj->details->min_nodes != (uint32_t)k ||
		    loc_holds_has(m->holds, pj->job_id, now))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			xrecalloc(pend, cap, sizeof(*pend));
		}
		pend[n++] = pj;
	}
	list_iterator_destroy(it);
	if (n)
		qsort(pend, n, sizeof(*pend), _cmp_prio);
	*out = pend;
	return n;
}

/* Records a hold of nodes[0..k-1] (grid nodes) for partner. */
static void _hold(sl_machine_t *m, job_record_t *job, job_record_t *partner,
		  const int *nodes, int k, time_t now)
{
	bitstr_t *held;
	char *names;

	if (loc_holds_add(m->holds, partner->job_id, partner->priority, nodes,
			  k, now + m->conf->pf_hold_sec))
		return;
	if (get_log_level() < LOG_LEVEL_DEBUG)
		return;
	held = bit_alloc(node_record_count);
	for (int i = 0; i < k; i++)
		bit_set(held, m->to_slurm[nodes[i]]);
	names = bitmap2node_name(held);
	debug("%s: PF %pJ holds nodes=%s for partner %pJ for %ds", plugin_type,
	      job, names, partner, m->conf->pf_hold_sec);
	xfree(names);
	FREE_NULL_BITMAP(held);
}

/*
 * Whether partner would take region[0..k) now under its CompactWait,
 * judged with the patience it has (the hold offers it nothing yet, so its
 * wait does not begin). Live, partners declined regions they were held,
 * which stood idle until the partner started elsewhere (doc/experiments.md);
 * the replay pairs by the same rule.
 */
static bool _partner_takes(sl_machine_t *m, sl_ledger_t *l,
			   job_record_t *partner, const int *region, int k)
{
	sl_ctx_t c;

	if (!partner->details || !partner->part_ptr ||
	    !partner->part_ptr->node_bitmap)
		return false;
	sl_ctx_init(&c, m, l, partner, SELECT_MODE_WILL_RUN);
	c.alloc = sl_machine_job_alloc(m, partner, &c.policy, &c.err);
	if (!c.alloc)
		return false;
	c.walltime = sl_walltime_estimate(m, c.policy, partner);
	sl_ctx_fill_ok(&c, partner->part_ptr->node_bitmap);
	return !sl_compact_defer(&c, region, k, false);
}

/*
 * PF inside Slurm (seed 004 Alg. 2): once job starts, pick the waiting
 * job of its partition with the same size and the closest walltime, and
 * hold an idle region next to job for it.
 */
void sl_pf_after_begin(sl_machine_t *m, sl_ledger_t *l, job_record_t *job)
{
	const loc_policy_t *p = sl_machine_job_policy(m, job);
	job_record_t **pend = NULL;
	loc_pf_job_t *queue = NULL;
	loc_alloc_t *alloc;
	loc_error_t err;
	uint8_t *held = NULL, *cand = NULL, *free_now = NULL;
	int64_t *busy = NULL;
	int *placed = NULL, *region = NULL, k = 0, n, idx;
	time_t now = time(NULL);

	if (!m->holds)
		return;
	/* The job may itself be a partner: its hold is used up. */
	sl_pf_release(m, job->job_id);
	sl_pf_drop_departed(m);
	loc_holds_expire(m->holds, now);
	if (!loc_policy_pf(p) || !&job_list || !job_list || !job->node_bitmap ||
	    !job->part_ptr || !job->part_ptr->node_bitmap)
		return;
	if (!(alloc = sl_machine_job_alloc(m, job, NULL, &err)))
		return;

	placed = xcalloc(m->ncore, sizeof(int));
	for (int g = 0; g < m->ncore; g++)
		if (bit_test(job->node_bitmap, m->to_slurm[g]))
			placed[k++] = g;
	if (k == 0 || !(n = _waiting(m, job, k, now, &pend)))
		goto out;
	queue = xcalloc(n, sizeof(*queue));
	for (int i = 0; i < n; i++) {
		queue[i].job_id = pend[i]->job_id;
		queue[i].nodes = k;
		queue[i].walltime = sl_walltime_estimate(m, p, pend[i]);
	}
	idx = loc_pf_pick_partner(queue, n, -1, k,
				  sl_walltime_estimate(m, p, job));
	if (idx < 0)
		goto out;

	/* Idle, usable nodes of the partition that nobody holds yet. */
	held = xcalloc(m->ncore, sizeof(uint8_t));
	free_now = xcalloc(m->ncore, sizeof(uint8_t));
	cand = xcalloc(m->ncore, sizeof(uint8_t));
	busy = xcalloc(m->ncore, sizeof(int64_t));
	region = xcalloc(m->ncore, sizeof(int));
	sl_ledger_busy(l, m, now, held, busy);
	for (int g = 0; g < m->ncore; g++) {
		int i = m->to_slurm[g];

		free_now[g] = !held[g] && bit_test(job->part_ptr->node_bitmap, i) &&
			      sl_node_usable(node_record_table_ptr[i], i, true);
	}
	/* Job id 0 with priority 0: every existing hold applies. */
	loc_holds_filter(m->holds, 0, 0, now, free_now, cand);
	{
		loc_view_t view = {
			.candidate = cand, .busy_until = busy, .now = now
		};

		if (loc_pf_neighbor_region(alloc, &view, placed, k, region,
					   &err) != 0)
			debug2("%s: PF %pJ: no region for partner %pJ: %s",
			       plugin_type, job, pend[idx], err.text);
		else if (_partner_takes(m, l, pend[idx], region, k))
			_hold(m, job, pend[idx], region, k, now);
		else
			debug("%s: PF %pJ: partner %pJ would decline the region (CompactWait), none held",
			      plugin_type, job, pend[idx]);
	}
out:
	xfree(placed);
	xfree(pend);
	xfree(queue);
	xfree(held);
	xfree(free_now);
	xfree(cand);
	xfree(busy);
	xfree(region);
}

void sl_walltime_after_fini(sl_machine_t *m, job_record_t *job)
{
	const loc_policy_t *p;
	int64_t actual;

	sl_pf_release(m, job->job_id);
	if (!m->adjest)
		return;
	p = sl_machine_job_policy(m, job);
	if (p->walltime != LOC_WALLTIME_ADJEST || job->time_limit == NO_VAL ||
	    job->time_limit == INFINITE || job->time_limit == 0 ||
	    !job->start_time)
		return;
	actual = (int64_t)time(NULL) - job->start_time - job->tot_sus_time;
	if (actual < 0)
		actual = 0;
	(void)loc_adjest_record(m->adjest, job->user_id,
				(int64_t)job->time_limit * 60, actual);
}
