/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sim.c - the event-driven queue simulator of locality-replay.
 *
 * Events are job arrivals and job ends. At each event time the ends are
 * processed first (their nodes become free), then the arrivals, then one
 * scheduling pass:
 *   - jobs are taken in priority order (FCFS: submit order; WFP, seed 004:
 *     (wait / requested)^3 x nodes) and started while the allocator can
 *     place them;
 *   - FCFS stops at the first job that does not fit; EASY makes that job
 *     the pivot, reserves for it the placement it would get when enough
 *     running jobs have ended (by their requested walltimes), and then
 *     starts later jobs that either end before that time or keep off the
 *     reserved nodes, so the pivot is never delayed.
 * With node weights (NodeWeight=tiers) every placement is made in the
 * lightest weight tiers that hold the job, as the plugin does (loc_tiers.h).
 * Walltime awareness (seed 004, Tang et al. IPDPS 2011):
 *   - SL happens inside loc_alloc_select(): the view carries each busy
 *     node's expected end and the request its own;
 *   - PF: after a job is placed next to an idle region of its size (for
 *     Combo only when SL found no busy neighbour), the waiting job of the
 *     same size with the closest walltime starts there at the same time;
 *   - AdjEst: placement uses walltimes adjusted from each user's history;
 *     priorities and backfilling keep the requested walltimes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loc_metrics.h"
#include "loc_patience.h"
#include "loc_plan.h"
#include "loc_tiers.h"
#include "loc_walltime.h"
#include "rp_sim.h"

enum { J_PENDING = 0, J_WAITING, J_RUNNING, J_DONE, J_REJECTED };

typedef struct ent {
	int64_t t;
	int j;
} ent_t;

typedef struct prio {
	double p;
	int j;
} prio_t;

typedef struct sim {
	const rp_job_t *jobs;
	int njobs;
	loc_alloc_t *alloc;
	const loc_grid_t *grid;
	rp_sim_opts_t o;
	rp_run_t *run;
	loc_error_t *err;
	int n;

	uint8_t *free; /* 1 = idle */
	int nfree;
	int *owner;	  /* job on each node, -1 */
	int64_t *busy;	  /* expected end (placement estimate), 0 = idle */
	uint8_t *all;	  /* all ones: the empty machine */
	uint8_t *resv;	  /* the pivot's reserved nodes */
	uint8_t *cand_nr; /* free and not reserved */
	int nresv_free;	  /* reserved nodes that are free now */
	bool resv_phase;  /* backfilling behind a pivot */
	uint8_t *proj;	  /* projected free nodes */
	int *out, *out2, *out3;
	loc_planner_t *planner; /* EASY's reservation */
	loc_tiers_t tiers;	/* node weights (loc_tiers.h) */
	int64_t *ends;		/* expected end of each running job (heap order) */

	ent_t *heap; /* running jobs by actual end */
	int nheap;
	int *queue; /* waiting jobs, arrival order */
	int nq;
	uint8_t *state;
	prio_t *pbuf;
	int *order; /* this pass's priority order */
	int norder;
	loc_pf_job_t *pfq;

	uint32_t ver;	   /* bumped whenever the free set changes */
	uint32_t nr_stamp; /* bumped whenever cand_nr changes */
	uint32_t *fail_free, *fail_nr;
	int8_t *empty_fit;
	loc_adjest_t *adj;
	const loc_policy_t *pol;
	int64_t *ref_hops; /* per size: hops on the idle machine, -1 = not yet */
	int64_t wake;	   /* next time a deferred job stops waiting */
	int64_t *began;	   /* per job: when its CompactWait began */
	int done;
	int snap_next;
} sim_t;

void rp_sim_opts_init(rp_sim_opts_t *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sched = RP_SCHED_EASY;
	opts->prio = RP_PRIO_FCFS;
	opts->wmode = RP_W_NONE;
	opts->adjest_window = 10;
}

/* ===================================================================== */
/* Heap of running jobs                                                  */
/* ===================================================================== */

static bool _ent_less(const ent_t *a, const ent_t *b)
{
	return a->t < b->t || (a->t == b->t && a->j < b->j);
}

static void _heap_push(sim_t *s, int64_t t, int j)
{
	int i = s->nheap++;

	s->heap[i].t = t;
	s->heap[i].j = j;
	while (i > 0) {
		int p = (i - 1) / 2;
		ent_t tmp;

		if (!_ent_less(&s->heap[i], &s->heap[p]))
			break;
		tmp = s->heap[i];
		s->heap[i] = s->heap[p];
		s->heap[p] = tmp;
		i = p;
	}
}

static ent_t _heap_pop(sim_t *s)
{
	ent_t top = s->heap[0];
	int i = 0;

	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		ent_t tmp;

		if (l < s->nheap && _ent_less(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->nheap && _ent_less(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			break;
		tmp = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = tmp;
		i = m;
	}
	return top;
}

/* ===================================================================== */
/* Starting and ending jobs                                              */
/* ===================================================================== */

/* The walltime estimate placement uses for job j. */
static int64_t _place_est(const sim_t *s, int j)
{
	const rp_job_t *job = &s->jobs[j];

	switch (s->o.wmode) {
	case RP_W_ACTRUN:
		return job->runtime > 0 ? job->runtime : 1;
	case RP_W_ADJEST:
		return loc_adjest_estimate(s->adj, job->user, job->request);
	default:
		return job->request;
	}
}

static void _start(sim_t *s, int j, int64_t now, const int *nodes)
{
	const rp_job_t *job = &s->jobs[j];
	rp_run_t *run = s->run;
	int64_t until = now + _place_est(s, j);
	int *dst = run->pool + run->node_off[j];

	if (until < 1)
		until = 1;
	for (int i = 0; i < job->nodes; i++) {
		int v = nodes[i];

		s->free[v] = 0;
		s->owner[v] = j;
		s->busy[v] = until;
		if (s->resv[v])
			s->nresv_free--;
		s->cand_nr[v] = 0;
		dst[i] = v;
	}
	s->nfree -= job->nodes;
	run->start[j] = now;
	run->end[j] = now + job->runtime;
	run->started++;
	s->state[j] = J_RUNNING;
	_heap_push(s, run->end[j], j);
	s->ver++;
	s->nr_stamp++;
}

static int _end(sim_t *s, int j)
{
	const rp_job_t *job = &s->jobs[j];
	const int *nodes = s->run->pool + s->run->node_off[j];

	for (int i = 0; i < job->nodes; i++) {
		int v = nodes[i];

		s->free[v] = 1;
		s->owner[v] = -1;
		s->busy[v] = 0;
	}
	s->nfree += job->nodes;
	s->state[j] = J_DONE;
	s->done++;
	s->ver++;
	if (s->adj &&
	    loc_adjest_record(s->adj, job->user, job->request, job->runtime))
		return loc_error_set(s->err, LOC_ENOMEM, NULL, 0,
				     "out of memory recording AdjEst history");
	return 0;
}

/* ===================================================================== */
/* Placement                                                             */
/* ===================================================================== */

/* One placement by the run's allocator, inside the lightest weight tiers
 * (loc_tiers.h): view->candidate is cand, narrowed and restored. */
static int _select(sim_t *s, const loc_request_t *req, uint8_t *cand,
		   const loc_view_t *view, int *out, loc_error_t *err)
{
	return loc_tiers_select(&s->tiers, s->alloc, req, cand, view, out,
				&s->run->alloc_calls, err);
}

static bool _pf_mode(rp_wmode_t m)
{
	return m == RP_W_PF || m == RP_W_COMBO || m == RP_W_ADJEST ||
	       m == RP_W_ACTRUN;
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

/* PF (seed 004 Alg. 2): fill the idle neighbour of job j's placement with
 * the waiting job of the same size and closest walltime. */
static int _pair(sim_t *s, int j, int64_t now)
{
	const rp_job_t *job = &s->jobs[j];
	const int *placed = s->run->pool + s->run->node_off[j];
	int k = job->nodes, m = 0, idx, rc;
	int64_t est = _place_est(s, j);
	loc_view_t view = {
		.candidate = s->resv_phase ? s->cand_nr : s->free,
		.busy_until = s->busy,
		.now = now,
	};
	loc_error_t e;

	if (s->o.pf_max_nodes > 0 && k > s->o.pf_max_nodes)
		return 0;
	/* Combo: PF only when SL found no busy neighbour. */
	if (s->o.wmode != RP_W_PF &&
	    loc_sl_score(s->grid, &view, now + est, placed, k) >= 0)
		return 0;
	for (int i = 0; i < s->norder; i++) {
		int w = s->order[i];

		if (s->state[w] != J_WAITING || s->jobs[w].nodes != k)
			continue;
		s->pfq[m].job_id = (uint32_t)w;
		s->pfq[m].nodes = k;
		s->pfq[m].walltime = _place_est(s, w);
		m++;
	}
	if (!m)
		return 0;
	rc = loc_pf_neighbor_region(s->alloc, &view, placed, k, s->out2, &e);
	s->run->alloc_calls++;
	if (rc == LOC_ENOFIT)
		return 0;
	if (rc) {
		*s->err = e;
		return rc;
	}
	idx = loc_pf_pick_partner(s->pfq, m, -1, k, est);
	if (idx < 0)
		return 0;
	for (int i = 0; i < k; i++)
		if (s->out2[i] < 0 || s->out2[i] >= s->n ||
		    !view.candidate[s->out2[i]])
			return loc_error_set(
				s->err, LOC_EINVAL, NULL, 0,
				"PF region holds node %d, which is not free",
				s->out2[i]);
	j = (int)s->pfq[idx].job_id;
	_start(s, j, now, s->out2);
	s->run->pf_partner[j] = true;
	s->run->pf_pairs++;
	return 0;
}

/* Whether a job of k nodes fits the empty machine at all (cached); also
 * records the hops it gets there, the CompactWait reference. */
static int _fits_empty(sim_t *s, int k)
{
	if (s->empty_fit[k] < 0) {
		loc_request_t req = { .nodes = k };
		loc_view_t view = { .candidate = s->all };
		loc_error_t e;
		int rc = _select(s, &req, s->all, &view, s->out3, &e);

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

/*
 * CompactWait: returns 1 when job j, offered nodes at time t, should wait
 * for a more compact set (when t is now, a pass runs at its deadline), 0
 * when it takes them, or a negative LOC_E* code. A projected t (EASY's
 * reservation) is judged on compactness with the patience the job has
 * now, as the plugin's WILL_RUN does. The job's wait begins the first time
 * it is offered nodes now (loc_patience_began()).
 */
static int _patient(sim_t *s, int j, int64_t now, int64_t t,
		    const int *nodes, bool projected)
{
	const rp_job_t *job = &s->jobs[j];
	int64_t hops, until, began;
	int rc;

	if (s->pol->compact_wait <= 0 || job->nodes < 2)
		return 0;
	/* EASY's promise: a job whose reserved start has come takes the
	 * nodes it fits on (its reservation was judged compact enough). */
	if (t >= s->run->first_shadow[j])
		return 0;
	rc = _fits_empty(s, job->nodes);
	if (rc < 0)
		return rc;
	hops = loc_metrics_total_pair_hops(s->grid, nodes, job->nodes);
	if (hops < 0)
		return (int)hops;
	began = loc_patience_began(&s->began[j], now, t <= now);
	if (!loc_patience_defer(s->pol, job->nodes, hops,
				s->ref_hops[job->nodes], now - began))
		return 0;
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

/* Tries to start job j on cand. Returns 1 (started), 0 (does not fit), 2
 * (fits, but waits for a more compact set: loc_patience.h) or a negative
 * LOC_E* code. */
static int _try(sim_t *s, int j, int64_t now, uint8_t *cand)
{
	const rp_job_t *job = &s->jobs[j];
	loc_request_t req = {
		.nodes = job->nodes,
		.expected_end = now + _place_est(s, j),
	};
	loc_view_t view = { .candidate = cand,
			    .busy_until = s->busy,
			    .now = now };
	loc_error_t e;
	int rc;

	rc = _select(s, &req, cand, &view, s->out, &e);
	if (rc == LOC_ENOFIT)
		return 0;
	if (rc) {
		*s->err = e;
		return rc;
	}
	rc = _patient(s, j, now, now, s->out, false);
	if (rc)
		return rc < 0 ? rc : 2;
	if (s->o.ndecision) {
		rc = _decisions(s, &req, &view);
		if (rc)
			return rc;
	}
	_start(s, j, now, s->out);
	if (_pf_mode(s->o.wmode)) {
		rc = _pair(s, j, now);
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
} easy_plan_t;

static int _plan_place(void *arg, int64_t t, int *out, int *k)
{
	easy_plan_t *e = arg;
	sim_t *s = e->s;
	loc_request_t req = { .nodes = s->jobs[e->pivot].nodes };
	loc_view_t view = { .candidate = s->proj, .now = e->now };
	int rc;

	(void)t;
	rc = _select(s, &req, s->proj, &view, out, s->err);
	*k = req.nodes;
	return rc;
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

	(void)k;
	return _patient(e->s, e->pivot, e->now, t, out, true);
}

/*
 * EASY: the time at which the pivot can start if every running job runs
 * to its requested walltime, and the nodes it would get then (s->resv):
 * loc_plan_earliest() (loc_plan.h), the rule the plugin's WILL_RUN
 * follows too. A pivot waiting for a compact set reserves the first
 * compact set, even past its deadline.
 */
static int _reserve(sim_t *s, int pivot, int64_t now, int64_t *shadow)
{
	easy_plan_t e = { .s = s, .pivot = pivot, .now = now };
	loc_plan_ops_t ops = {
		.place = _plan_place,
		.release = _plan_release,
		.declines = s->pol->compact_wait > 0 ? _plan_declines : NULL,
	};
	loc_plan_request_t req = {
		.now = now,
		.ends = s->ends,
		.nrunning = s->nheap,
		.ncand = s->nfree,
		.need = s->jobs[pivot].nodes,
		.deadline = loc_patience_deadline(
			s->pol, loc_patience_began(&s->began[pivot], now, false)),
	};
	loc_plan_answer_t ans;
	int rc;

	memcpy(s->proj, s->free, s->n);
	for (int i = 0; i < s->nheap; i++) {
		int j = s->heap[i].j;

		s->ends[i] = s->run->start[j] + s->jobs[j].request;
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

static int _schedule(sim_t *s, int64_t now)
{
	int pivot = -1, pos = 0, rc;
	int64_t shadow;
	bool waiting_ahead = false;

	/* drop started jobs from the queue */
	{
		int m = 0;

		for (int i = 0; i < s->nq; i++)
			if (s->state[s->queue[i]] == J_WAITING)
				s->queue[m++] = s->queue[i];
		s->nq = m;
	}
	if (!s->nq)
		return 0;
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
	s->norder = s->nq;
	s->resv_phase = false;

	for (pos = 0; pos < s->norder; pos++) {
		int j = s->order[pos], k = s->jobs[j].nodes, r = 0;

		if (s->state[j] != J_WAITING)
			continue;
		if (k <= s->nfree && s->fail_free[k] != s->ver) {
			r = _try(s, j, now, s->free);
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

		if (s->state[j] != J_WAITING || k > s->nfree)
			continue;
		if (shadow == RP_NEVER || now + s->jobs[j].request <= shadow) {
			if (s->fail_free[k] == s->ver)
				continue;
			r = _try(s, j, now, s->free);
			if (!r)
				s->fail_free[k] = s->ver;
		} else {
			if (k > s->nfree - s->nresv_free ||
			    s->fail_nr[k] == s->nr_stamp)
				continue;
			r = _try(s, j, now, s->cand_nr);
			if (!r)
				s->fail_nr[k] = s->nr_stamp;
		}
		if (r < 0)
			return r;
		if (r == 1) {
			s->run->backfilled[j] = true;
			s->run->nbackfilled++;
		}
	}
	s->resv_phase = false;
	return 0;
}

/* ===================================================================== */
/* The replay                                                            */
/* ===================================================================== */

void rp_run_destroy(rp_run_t *run)
{
	if (!run)
		return;
	free(run->start);
	free(run->end);
	free(run->node_off);
	free(run->pool);
	free(run->reject);
	free(run->first_shadow);
	free(run->pf_partner);
	free(run->backfilled);
	for (int i = 0; run->snap_owner && i < run->nsnaps; i++)
		free(run->snap_owner[i]);
	free(run->snap_owner);
	free(run->snap_time);
	free(run->decision_hops);
	free(run);
}

static rp_run_t *_run_create(const rp_workload_t *w, int n,
			     const rp_sim_opts_t *o)
{
	rp_run_t *run = calloc(1, sizeof(*run));
	int64_t total = 0;
	int nj = w->njobs ? w->njobs : 1;

	if (!run)
		return NULL;
	run->njobs = w->njobs;
	run->nnodes = n;
	run->start = malloc(sizeof(int64_t) * nj);
	run->end = malloc(sizeof(int64_t) * nj);
	run->node_off = malloc(sizeof(int) * (nj + 1));
	run->reject = calloc(nj, sizeof(rp_reject_t));
	run->first_shadow = malloc(sizeof(int64_t) * nj);
	run->pf_partner = calloc(nj, sizeof(bool));
	run->backfilled = calloc(nj, sizeof(bool));
	run->decision_hops = calloc(o->ndecision + 1, sizeof(double));
	run->nsnaps = o->nsnaps;
	run->snap_time = calloc(o->nsnaps + 1, sizeof(int64_t));
	run->snap_owner = calloc(o->nsnaps + 1, sizeof(int *));
	if (!run->start || !run->end || !run->node_off || !run->reject ||
	    !run->first_shadow || !run->pf_partner || !run->backfilled ||
	    !run->decision_hops || !run->snap_time || !run->snap_owner)
		goto fail;
	for (int i = 0; i < o->nsnaps; i++) {
		run->snap_time[i] = o->snap_times[i];
		run->snap_owner[i] = malloc(sizeof(int) * n);
		if (!run->snap_owner[i])
			goto fail;
		for (int v = 0; v < n; v++)
			run->snap_owner[i][v] = -1;
	}
	for (int j = 0; j < w->njobs; j++) {
		run->start[j] = run->end[j] = -1;
		run->first_shadow[j] = RP_NEVER;
		run->node_off[j] = (int)total;
		if (w->jobs[j].reject == RP_OK)
			total += w->jobs[j].nodes;
		if (total > INT32_MAX)
			goto fail;
	}
	run->node_off[w->njobs] = (int)total;
	run->pool = malloc(sizeof(int) * (total ? total : 1));
	if (!run->pool)
		goto fail;
	return run;
fail:
	rp_run_destroy(run);
	return NULL;
}

static void _sim_free(sim_t *s)
{
	free(s->free);
	free(s->owner);
	free(s->busy);
	free(s->all);
	free(s->resv);
	free(s->cand_nr);
	free(s->proj);
	free(s->out);
	free(s->out2);
	free(s->out3);
	free(s->heap);
	free(s->queue);
	free(s->state);
	free(s->pbuf);
	free(s->order);
	free(s->pfq);
	free(s->fail_free);
	free(s->fail_nr);
	free(s->empty_fit);
	loc_adjest_destroy(s->adj);
	free(s->ref_hops);
	loc_planner_destroy(s->planner);
	free(s->ends);
	free(s->began);
	loc_tiers_fini(&s->tiers);
}

static void _snapshots(sim_t *s, int64_t before)
{
	while (s->snap_next < s->o.nsnaps &&
	       s->o.snap_times[s->snap_next] < before) {
		memcpy(s->run->snap_owner[s->snap_next], s->owner,
		       sizeof(int) * s->n);
		s->snap_next++;
	}
}

rp_run_t *rp_sim_run(const rp_workload_t *w, loc_alloc_t *alloc,
		     const rp_sim_opts_t *opts, loc_error_t *err)
{
	sim_t s;
	int n = loc_grid_nnodes(loc_alloc_grid(alloc)), nj = w->njobs;
	int next = 0, rc = 0;
	size_t nj1 = nj ? nj : 1;

	memset(&s, 0, sizeof(s));
	s.jobs = w->jobs;
	s.njobs = nj;
	s.alloc = alloc;
	s.grid = loc_alloc_grid(alloc);
	s.o = *opts;
	s.err = err;
	s.n = n;
	s.run = _run_create(w, n, opts);
	s.free = malloc(n);
	s.owner = malloc(sizeof(int) * n);
	s.busy = calloc(n, sizeof(int64_t));
	s.all = malloc(n);
	s.resv = calloc(n, 1);
	s.cand_nr = calloc(n, 1);
	s.proj = malloc(n);
	s.out = malloc(sizeof(int) * n);
	s.out2 = malloc(sizeof(int) * n);
	s.out3 = malloc(sizeof(int) * n);
	s.heap = malloc(sizeof(ent_t) * nj1);
	s.queue = malloc(sizeof(int) * nj1);
	s.state = calloc(nj1, 1);
	s.pbuf = malloc(sizeof(prio_t) * nj1);
	s.order = malloc(sizeof(int) * nj1);
	s.pfq = malloc(sizeof(loc_pf_job_t) * nj1);
	s.fail_free = calloc(n + 2, sizeof(uint32_t));
	s.fail_nr = calloc(n + 2, sizeof(uint32_t));
	s.empty_fit = malloc(n + 2);
	s.ref_hops = malloc(sizeof(int64_t) * (n + 2));
	s.ends = malloc(sizeof(int64_t) * nj1);
	s.began = malloc(sizeof(int64_t) * nj1);
	s.planner = loc_planner_create(n, err);
	s.pol = loc_alloc_policy(alloc);
	if (opts->wmode == RP_W_ADJEST)
		s.adj = loc_adjest_create(
			opts->adjest_window > 0 ? opts->adjest_window : 10);
	s.wake = RP_NEVER;
	if (!s.run || !s.free || !s.owner || !s.busy || !s.all || !s.resv ||
	    !s.cand_nr || !s.proj || !s.out || !s.out2 || !s.out3 || !s.heap ||
	    !s.queue || !s.state || !s.pbuf || !s.order || !s.pfq ||
	    !s.fail_free || !s.fail_nr || !s.empty_fit || !s.ref_hops ||
	    !s.ends || !s.began || !s.planner ||
	    (opts->wmode == RP_W_ADJEST && !s.adj)) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
				   "out of memory for the simulation");
		goto out;
	}
	if (opts->node_weight && s.pol->node_weight == LOC_NODE_WEIGHT_TIERS) {
		rc = loc_tiers_init(&s.tiers, n, err);
		if (rc)
			goto out;
		loc_tiers_set(&s.tiers, opts->node_weight, NULL);
	}
	memset(s.free, 1, n);
	memset(s.all, 1, n);
	memset(s.empty_fit, -1, n + 2);
	for (int v = 0; v < n; v++)
		s.owner[v] = -1;
	for (int j = 0; j < nj; j++)
		s.began[j] = LOC_PATIENCE_UNSET;
	s.nfree = n;
	s.ver = 1;
	s.nr_stamp = 1;

	while (next < nj || s.nheap || s.wake != RP_NEVER) {
		int64_t t = next < nj ? w->jobs[next].submit : RP_NEVER;

		if (s.nheap && s.heap[0].t < t)
			t = s.heap[0].t;
		if (s.wake < t)
			t = s.wake;
		if (s.wake <= t)
			s.wake = RP_NEVER;
		_snapshots(&s, t);
		s.run->events++;
		while (s.nheap && s.heap[0].t == t) {
			rc = _end(&s, _heap_pop(&s).j);
			if (rc)
				goto out;
		}
		while (next < nj && w->jobs[next].submit == t) {
			int j = next++, fit;

			s.run->reject[j] = w->jobs[j].reject;
			if (w->jobs[j].reject != RP_OK) {
				s.state[j] = J_REJECTED;
				continue;
			}
			fit = _fits_empty(&s, w->jobs[j].nodes);
			if (fit < 0) {
				rc = fit;
				goto out;
			}
			if (!fit) {
				s.run->reject[j] = RP_REJECT_NO_FIT;
				s.run->rejected_no_fit++;
				s.state[j] = J_REJECTED;
				continue;
			}
			s.state[j] = J_WAITING;
			s.queue[s.nq++] = j;
		}
		rc = _schedule(&s, t);
		if (rc)
			goto out;
		if (opts->progress && (s.run->events & 1023) == 0)
			opts->progress(opts->progress_ctx, next, nj);
	}
	_snapshots(&s, RP_NEVER);
	if (opts->progress)
		opts->progress(opts->progress_ctx, nj, nj);
out:
	_sim_free(&s);
	if (rc) {
		if (err && err->code == 0)
			loc_error_set(err, rc, NULL, 0, "simulation failed: %s",
				      loc_strerror(rc));
		rp_run_destroy(s.run);
		return NULL;
	}
	return s.run;
}
