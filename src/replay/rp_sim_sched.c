/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sim_sched.c - the queue simulator's placement and scheduling passes.
 *
 * One pass at each event time (rp_sim.c runs the event loop):
 *   - jobs are taken in priority order (FCFS: submit order; WFP, seed 004:
 *     (wait / requested)^3 x nodes) and started while the allocator can
 *     place them;
 *   - FCFS stops at the first job that does not fit; EASY makes that job
 *     the pivot, reserves for it the placement it would get when enough
 *     running jobs have ended (by their requested walltimes), and then
 *     starts later jobs that either end before that time or keep off the
 *     reserved nodes, so the pivot is never delayed.
 * Conservative backfilling, a plan for every job, is rp_sim_conservative.c.
 * With node weights (NodeWeight=tiers) every placement is made in the
 * lightest weight tiers that hold the job, as the plugin does (loc_tiers.h).
 * CompactWait (loc_patience.h): a job offered nodes much less compact than
 * it gets on an idle machine may wait for a better set, up to a deadline;
 * under topology/locality (o.claims) it claims a region meanwhile, which
 * the other jobs' placements weigh a tier heavier (loc_claim.h).
 * Walltime awareness (seed 004, Tang et al. IPDPS 2011):
 *   - SL happens inside loc_alloc_select(): the view carries each busy
 *     node's expected end and the request its own;
 *   - PF (paired filling) is rp_sim_pf.c;
 *   - AdjEst: placement uses walltimes adjusted from each user's history;
 *     priorities and backfilling keep the requested walltimes.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_metrics.h"
#include "loc_patience.h"
#include "rp_sim_internal.h"

/* ===================================================================== */
/* Placement                                                             */
/* ===================================================================== */

/* One placement by the run's allocator, inside the lightest weight tiers
 * (loc_tiers.h): view->candidate is cand, narrowed and restored. */
int rp__sim_select(sim_t *s, const loc_request_t *req, uint8_t *cand,
		   const loc_view_t *view, int *out, loc_error_t *err)
{
	return loc_tiers_select(&s->tiers, s->alloc, req, cand, view, out,
				&s->run->alloc_calls, err);
}

/* Asks each decision allocator where it would put the job (seed 003's
 * situation/decision experiment). */
static int _decisions(sim_t *s, const loc_request_t *req,
		      const loc_view_t *view)
{
	for (int d = 0; d < s->o.ndecision; d++) {
		loc_error_t e;
		int rc = loc_alloc_select(s->o.decision[d], req, view, s->out3,
					  &e);
		int64_t hops;

		if (rc == LOC_ENOFIT)
			continue;
		if (rc) {
			*s->err = e;
			return rc;
		}
		hops = loc_metrics_total_pair_hops(s->grid, s->out3,
						   req->nodes);
		if (hops < 0)
			return loc_error_set(s->err, (int)hops, NULL, 0,
					     "metrics failed");
		s->run->decision_hops[d] += (double)hops;
	}
	s->run->decision_count++;
	return 0;
}

/* Whether a job of k nodes fits the empty machine at all (cached); also
 * records the hops it gets there, the CompactWait reference. */
int rp__sim_fits_empty(sim_t *s, int k)
{
	if (s->empty_fit[k] < 0) {
		loc_request_t req = { .nodes = k };
		loc_view_t view = { .candidate = s->all };
		loc_error_t e;
		int rc = rp__sim_select(s, &req, s->all, &view, s->out3, &e);

		if (rc && rc != LOC_ENOFIT) {
			*s->err = e;
			return rc;
		}
		s->empty_fit[k] = rc == 0;
		s->ref_hops[k] =
			rc ? 0 : loc_metrics_total_pair_hops(s->grid, s->out3, k);
		if (s->ref_hops[k] < 0)
			return (int)s->ref_hops[k];
	}
	return s->empty_fit[k];
}

int rp__sim_declines(sim_t *s, int j, int64_t now, int64_t t,
		     const int *nodes, bool offered, int64_t *began)
{
	const rp_job_t *job = &s->jobs[j];
	int64_t hops, b;
	int rc;

	if (s->pol->compact_wait <= 0 || job->nodes < 2)
		return 0;
	/* EASY's promise: a job whose reserved start has come takes the
	 * nodes it fits on (its reservation was judged compact enough). */
	if (t >= s->run->first_shadow[j])
		return 0;
	rc = rp__sim_fits_empty(s, job->nodes);
	if (rc < 0)
		return rc;
	hops = loc_metrics_total_pair_hops(s->grid, nodes, job->nodes);
	if (hops < 0)
		return (int)hops;
	b = loc_patience_began(s->pol, &s->patience[j], now, offered);
	if (began)
		*began = b;
	return loc_patience_defer(s->pol, job->nodes, hops,
				  s->ref_hops[job->nodes], now - b);
}

/*
 * CompactWait: returns 1 when job j, offered nodes at time t, should wait
 * for a more compact set (when t is now, a pass runs at its deadline), 0
 * when it takes them, or a negative LOC_E* code. A projected t (EASY's
 * reservation) is judged on compactness with the patience the job has
 * now, as the plugin's WILL_RUN does. The job's wait begins the first time
 * it is offered nodes now (loc_patience_began()).
 */
int rp__sim_patient(sim_t *s, int j, int64_t now, int64_t t,
		    const int *nodes, bool projected)
{
	int64_t until, began = 0;
	int rc = rp__sim_declines(s, j, now, t, nodes, t <= now, &began);

	if (rc != 1)
		return rc;
	/* It stops waiting at its deadline or its reserved start. */
	until = loc_patience_deadline(s->pol, began);
	if (s->run->first_shadow[j] < until)
		until = s->run->first_shadow[j];
	if (!projected) {
		s->run->deferrals++;
		if (until < s->wake)
			s->wake = until;
	}
	return 1;
}

/* The claims of jobs no longer waiting, or past their deadline, end. */
static void _expire_claims(sim_t *s, int64_t now)
{
	loc_claims_t *c = &s->claims;

	for (int i = 0; i < c->n;) {
		int j = (int)c->c[i].job_id - 1;

		if (now >= c->c[i].until || s->state[j] != J_WAITING)
			loc_claims_drop(c, i);
		else
			i++;
	}
}

/* Job j's placement weighs the other jobs' claims (a tier just heavier
 * than each node's own weight); returns whether s->tiers now holds them,
 * to be undone by _unweigh_claims(). */
static bool _weigh_claims(sim_t *s, int j, int64_t now, const uint8_t *cand)
{
	if (!s->claims.owner)
		return false;
	_expire_claims(s, now);
	if (!s->claims.n)
		return false;
	for (int g = 0; s->weighted && g < s->n; g++)
		s->claim_weight[g] = s->o.node_weight[g] << 1;
	if (!loc_claims_weigh(&s->claims, (uint32_t)j + 1, cand,
			      s->claim_weight, s->weighted))
		return false;
	loc_tiers_set(&s->tiers, s->claim_weight, NULL);
	return true;
}

static void _unweigh_claims(sim_t *s)
{
	if (s->weighted)
		loc_tiers_set(&s->tiers, s->o.node_weight, NULL);
	else
		loc_tiers_clear(&s->tiers);
}

/*
 * Job j, which declines the set it could take now on cand, claims a
 * region (loc_claim.h): the translate of its placement on the idle
 * machine with the most cand nodes, in the weight tiers that placement
 * took, off the other claims, until its CompactWait ends. As in
 * topology/locality, at most one claim per job and CompactClaims in all.
 * Returns 0 (a claim made or none to make) or a LOC_E* code.
 */
static int _claim(sim_t *s, int j, const uint8_t *cand)
{
	int k = s->jobs[j].nodes, rc;
	loc_request_t req = { .nodes = k };
	loc_view_t view = { .candidate = s->all };
	loc_error_t e;

	if (!s->claims.owner || s->claims.n >= s->pol->compact_claims ||
	    loc_claims_held(&s->claims, (uint32_t)j + 1))
		return 0;
	rc = rp__sim_select(s, &req, s->all, &view, s->out3, &e);
	if (rc == LOC_ENOFIT)
		return 0;
	if (rc) {
		*s->err = e;
		return rc;
	}
	rc = loc_claims_make(
		&s->claims, s->grid, s->pol->compact_claims, (uint32_t)j + 1,
		loc_patience_deadline(s->pol, s->patience[j].began), s->out3, k,
		s->all, s->weighted ? s->o.node_weight : NULL, cand, &e);
	if (rc >= 0 || rc == LOC_ENOFIT)
		return 0;
	*s->err = e;
	return rc;
}

/* Tries to start job j on cand. Returns 1 (started), 0 (does not fit), 2
 * (fits, but waits for a more compact set: loc_patience.h) or a negative
 * LOC_E* code. */
int rp__sim_try(sim_t *s, int j, int64_t now, uint8_t *cand)
{
	const rp_job_t *job = &s->jobs[j];
	loc_request_t req = {
		.nodes = job->nodes,
		.expected_end = now + rp__sim_place_est(s, j),
	};
	loc_view_t view = { .candidate = cand,
			    .busy_until = s->busy,
			    .now = now };
	loc_error_t e;
	bool weighed;
	int rc;

	cand = rp__sim_unheld(s, j, now, cand);
	view.candidate = cand;
	if (!rp__sim_own_region(s, j, now, cand)) {
		weighed = _weigh_claims(s, j, now, cand);
		rc = rp__sim_select(s, &req, cand, &view, s->out, &e);
		if (weighed)
			_unweigh_claims(s);
		if (rc == LOC_ENOFIT)
			return 0;
		if (rc) {
			*s->err = e;
			return rc;
		}
		rc = rp__sim_patient(s, j, now, now, s->out, false);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			rc = _claim(s, j, cand);
			return rc < 0 ? rc : 2;
		}
	}
	if (s->o.ndecision) {
		rc = _decisions(s, &req, &view);
		if (rc)
			return rc;
	}
	rp__sim_start(s, j, now, s->out);
	if (rp__sim_pf_mode(s->o.wmode)) {
		rc = rp__sim_pair(s, j, now);
		if (rc)
			return rc;
	}
	return 1;
}

/* ===================================================================== */
/* Scheduling                                                            */
/* ===================================================================== */

static int _cmp_prio(const void *a, const void *b)
{
	const prio_t *x = a, *y = b;

	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* EASY's side of loc_plan_earliest(): the projection is s->proj. */
typedef struct easy_plan {
	sim_t *s;
	int pivot;
	int64_t now;
	int64_t promise;          /* the pivot's first reservation, RP_NEVER */
	bool declined_by_promise; /* it declined a set offered by then */
} easy_plan_t;

static int _plan_place(void *arg, int64_t t, int *out, int *k)
{
	easy_plan_t *e = arg;
	sim_t *s = e->s;
	loc_request_t req = { .nodes = s->jobs[e->pivot].nodes };
	loc_view_t view = { .candidate = s->proj, .now = e->now };
	int rc;

	/* The set it declined before its promised start is still there at
	 * that start, where it takes it (rp__sim_patient()): no later set may
	 * replace it, so the planner answers with it (the fallback, at the
	 * deadline capped by the promise: _reserve()). */
	if (e->declined_by_promise && t > e->promise)
		return LOC_ENOFIT;
	rc = rp__sim_select(s, &req, s->proj, &view, out, s->err);
	*k = req.nodes;
	return rc;
}

/* The reservation on the nodes busy now that are released by t (the
 * projection less the free nodes): they cost the backfilled jobs nothing
 * (loc_plan.h). */
static int _plan_place_released(void *arg, int64_t t, int *out, int *k)
{
	easy_plan_t *e = arg;
	sim_t *s = e->s;
	loc_request_t req = { .nodes = s->jobs[e->pivot].nodes };
	loc_view_t view = { .candidate = s->released, .now = e->now };
	int n;

	(void)t;
	memcpy(s->released, s->proj, s->n);
	n = loc_plan_narrow_to_released(s->released, s->free, s->n);
	*k = req.nodes;
	if (n < req.nodes)
		return LOC_ENOFIT;
	return rp__sim_select(s, &req, s->released, &view, out, s->err);
}

/* Running job i is s->heap[i]. */
static int _plan_release(void *arg, int i)
{
	sim_t *s = ((easy_plan_t *)arg)->s;
	int j = s->heap[i].j, n = 0;
	const int *nodes = s->run->pool + s->run->node_off[j];

	for (int q = 0; q < s->jobs[j].nodes; q++) {
		n += !s->proj[nodes[q]];
		s->proj[nodes[q]] = 1;
	}
	return n;
}

static int _plan_declines(void *arg, const int *out, int k, int64_t t)
{
	easy_plan_t *e = arg;
	int rc;

	(void)k;
	rc = rp__sim_patient(e->s, e->pivot, e->now, t, out, true);
	if (rc == 1 && e->promise != RP_NEVER && t <= e->promise)
		e->declined_by_promise = true;
	return rc;
}

/*
 * EASY: the time at which the pivot can start if every running job runs
 * to its requested walltime, and the nodes it would get then (s->resv):
 * loc_plan_earliest() (loc_plan.h), the rule the plugin's WILL_RUN
 * follows too. A pivot waiting for a compact set reserves the first
 * compact set, even past its deadline, but not past the start it was
 * promised (run->first_shadow): there it takes what it declined. Offers
 * come only as running jobs end, so a set declined just before the
 * promise would otherwise give way to the next one after it, moving the
 * reservation past the promise (PlanHold=released lets backfilled jobs
 * take the free nodes that made the promised set compact).
 */
static int _reserve(sim_t *s, int pivot, int64_t now, int64_t *shadow)
{
	easy_plan_t e = { .s = s,
			  .pivot = pivot,
			  .now = now,
			  .promise = s->run->first_shadow[pivot] };
	loc_plan_ops_t ops = {
		.place = _plan_place,
		.release = _plan_release,
		.declines = s->pol->compact_wait > 0 ? _plan_declines : NULL,
		.place_released = s->pol->plan_hold == LOC_PLAN_HOLD_RELEASED ?
					  _plan_place_released :
					  NULL,
	};
	loc_plan_request_t req = {
		.now = now,
		.ends = s->ends,
		.nrunning = s->nheap,
		.ncand = s->nfree,
		.need = s->jobs[pivot].nodes,
		.deadline = loc_patience_deadline(
			s->pol, loc_patience_began(s->pol, &s->patience[pivot], now,
					   false)),
		.window = s->pol->plan_window,
	};
	loc_plan_answer_t ans;
	int rc;

	/* A pivot with a promise takes a set it declines in the projection
	 * by its promised start at the latest (rp__sim_patient()): that is the
	 * planner's deadline for a declined set. */
	if (req.deadline > e.promise)
		req.deadline = e.promise;
	memcpy(s->proj, s->free, s->n);
	for (int i = 0; i < s->nheap; i++) {
		int j = s->heap[i].j;

		s->ends[i] = s->run->start[j] + s->jobs[j].request +
			     s->o.turnaround;
	}
	memset(s->resv, 0, s->n);
	*shadow = RP_NEVER;
	rc = loc_plan_earliest(s->planner, &req, &ops, &e, s->out, &ans,
			       s->err);
	if (rc && rc != LOC_ENOFIT)
		return rc;
	if (!rc) {
		*shadow = ans.start;
		for (int q = 0; q < ans.k; q++)
			s->resv[s->out[q]] = 1;
	}
	s->nresv_free = 0;
	for (int v = 0; v < s->n; v++) {
		s->cand_nr[v] = s->free[v] && !s->resv[v];
		s->nresv_free += s->free[v] && s->resv[v];
	}
	s->nr_stamp++;
	return 0;
}

/* This pass's priority order of the waiting jobs (s->order); returns
 * how many there are. */
static int _order(sim_t *s, int64_t now)
{
	/* drop started jobs from the queue */
	{
		int m = 0;

		for (int i = 0; i < s->nq; i++)
			if (s->state[s->queue[i]] == J_WAITING)
				s->queue[m++] = s->queue[i];
		s->nq = m;
	}
	if (!s->nq)
		return s->norder = 0;
	if (s->o.prio == RP_PRIO_WFP) {
		for (int i = 0; i < s->nq; i++) {
			const rp_job_t *job = &s->jobs[s->queue[i]];
			double r = (double)(now - job->submit) / job->request;

			s->pbuf[i].p = r * r * r * job->nodes;
			s->pbuf[i].j = s->queue[i];
		}
		qsort(s->pbuf, s->nq, sizeof(prio_t), _cmp_prio);
		for (int i = 0; i < s->nq; i++)
			s->order[i] = s->pbuf[i].j;
	} else {
		memcpy(s->order, s->queue, sizeof(int) * s->nq);
	}
	return s->norder = s->nq;
}

int rp__sim_schedule(sim_t *s, int64_t now)
{
	int pivot = -1, pos = 0, rc;
	int64_t shadow;
	bool waiting_ahead = false;

	/* Expired holds free their regions for every job. No pass is run
	 * for an expiry: a hold ends at its partner's next turn anyway. */
	if (s->holds && loc_holds_expire(s->holds, now)) {
		s->ver++;
		s->nr_stamp++;
	}
	if (!_order(s, now))
		return 0;
	s->resv_phase = false;
	if (s->o.sched == RP_SCHED_CONSERVATIVE)
		return rp__sim_conservative(s, now);

	for (pos = 0; pos < s->norder; pos++) {
		int j = s->order[pos], k = s->jobs[j].nodes, r = 0;

		if (s->state[j] != J_WAITING)
			continue;
		if (k <= s->nfree && s->fail_free[k] != s->ver) {
			r = rp__sim_try(s, j, now, s->free);
			if (r < 0)
				return r;
			if (!r)
				s->fail_free[k] = s->ver;
		}
		/* Started, or (EASY) waits for a compact set: such a job
		 * reserves nothing (loc_plan.h), so the pivot is the next
		 * one. Under FCFS a waiting job holds the queue. */
		if (r == 1)
			continue;
		rp__sim_turn_passed(s, j);
		if (r == 2 && s->o.sched != RP_SCHED_FCFS) {
			/* By waiting it gives up any reservation it had (the
			 * plugin's WILL_RUN has no start for it either). */
			s->run->first_shadow[j] = RP_NEVER;
			waiting_ahead = true;
			continue;
		}
		if (s->o.sched == RP_SCHED_FCFS)
			return 0;
		pivot = j;
		break;
	}
	if (pivot < 0)
		return 0;

	rc = _reserve(s, pivot, now, &shadow);
	if (rc)
		return rc;
	/* EASY's promise, unless a job ahead (waiting for a compact set)
	 * may take the reserved nodes first. */
	if (!waiting_ahead && s->run->first_shadow[pivot] == RP_NEVER)
		s->run->first_shadow[pivot] = shadow;
	s->resv_phase = true;
	for (int i = pos + 1; i < s->norder && s->nfree > 0; i++) {
		int j = s->order[i], k = s->jobs[j].nodes, r;

		if (s->state[j] != J_WAITING)
			continue;
		/* Its turn, tried or not: a job that does not start loses
		 * its PF hold (rp__sim_turn_passed()). */
		r = 0;
		if (k <= s->nfree &&
		    (shadow == RP_NEVER ||
		     now + s->jobs[j].request + s->o.turnaround <= shadow)) {
			if (s->fail_free[k] != s->ver) {
				r = rp__sim_try(s, j, now, s->free);
				if (!r)
					s->fail_free[k] = s->ver;
			}
		} else if (k <= s->nfree - s->nresv_free &&
			   s->fail_nr[k] != s->nr_stamp) {
			r = rp__sim_try(s, j, now, s->cand_nr);
			if (!r)
				s->fail_nr[k] = s->nr_stamp;
		}
		if (r < 0)
			return r;
		if (r == 1) {
			s->run->backfilled[j] = true;
			s->run->nbackfilled++;
		} else {
			rp__sim_turn_passed(s, j);
		}
	}
	s->resv_phase = false;
	return 0;
}
