/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sim.c - the event-driven queue simulator of locality-replay: the
 * event loop and the jobs' state.
 *
 * Events are job arrivals and job ends. At each event time the ends are
 * processed first (their nodes become free), then the arrivals, then one
 * scheduling pass (rp_sim_sched.c). This file keeps the running jobs (a
 * heap by actual end), starts and ends jobs on the node maps, and owns
 * the run's results and occupancy snapshots.
 * Walltime awareness (seed 004, Tang et al. IPDPS 2011): AdjEst's history
 * is recorded here as jobs end; placement uses the walltimes adjusted from
 * it (rp__sim_place_est()).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_patience.h"
#include "rp_sim_internal.h"

void rp_sim_opts_init(rp_sim_opts_t *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sched = RP_SCHED_EASY;
	opts->prio = RP_PRIO_FCFS;
	opts->wmode = RP_W_NONE;
	opts->adjest_window = 10;
	opts->bf_depth = RP_BF_DEPTH_DEFAULT;
	opts->bf_window = RP_BF_WINDOW_DEFAULT;
}

const char *rp_sched_name(rp_sched_t sched)
{
	switch (sched) {
	case RP_SCHED_FCFS:
		return "fcfs";
	case RP_SCHED_EASY:
		return "easy";
	case RP_SCHED_CONSERVATIVE:
		return "conservative";
	}
	return "?";
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
int64_t rp__sim_place_est(const sim_t *s, int j)
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

void rp__sim_start(sim_t *s, int j, int64_t now, const int *nodes)
{
	const rp_job_t *job = &s->jobs[j];
	rp_run_t *run = s->run;
	int64_t until = now + rp__sim_place_est(s, j) + s->o.turnaround;
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
	/* A partner starts at its turn (PF's hold, rp_sim_pf.c), on its
	 * region or elsewhere: the hold has done its work. */
	if (s->holds) {
		if (loc_holds_covers(s->holds, (uint32_t)j + 1, now, nodes,
				     job->nodes))
			run->pf_partner[j] = true;
		(void)loc_holds_release(s->holds, (uint32_t)j + 1);
	}
	run->start[j] = now;
	run->end[j] = now + job->runtime;
	run->started++;
	s->state[j] = J_RUNNING;
	_heap_push(s, run->end[j] + s->o.turnaround, j);
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

rp_run_t *rp_run_alloc(int njobs, int nnodes, int nsnaps, int ndecision,
			int64_t pool)
{
	rp_run_t *run = calloc(1, sizeof(*run));
	int nj = njobs ? njobs : 1;
	bool ok;

	if (!run)
		return NULL;
	run->njobs = njobs;
	run->nnodes = nnodes;
	run->nsnaps = nsnaps;
	run->start = malloc(sizeof(int64_t) * nj);
	run->end = malloc(sizeof(int64_t) * nj);
	run->node_off = malloc(sizeof(int) * (nj + 1));
	run->reject = calloc(nj, sizeof(rp_reject_t));
	run->first_shadow = malloc(sizeof(int64_t) * nj);
	run->pf_partner = calloc(nj, sizeof(bool));
	run->backfilled = calloc(nj, sizeof(bool));
	run->decision_hops = calloc(ndecision + 1, sizeof(double));
	run->snap_time = calloc(nsnaps + 1, sizeof(int64_t));
	run->snap_owner = calloc(nsnaps + 1, sizeof(int *));
	run->pool = malloc(sizeof(int) * (pool ? pool : 1));
	ok = run->start && run->end && run->node_off && run->reject &&
	     run->first_shadow && run->pf_partner && run->backfilled &&
	     run->decision_hops && run->snap_time && run->snap_owner &&
	     run->pool;
	for (int i = 0; ok && i < nsnaps; i++)
		ok = (run->snap_owner[i] = malloc(sizeof(int) * nnodes));
	if (!ok) {
		rp_run_destroy(run);
		return NULL;
	}
	return run;
}

static rp_run_t *_run_create(const rp_workload_t *w, int n,
			     const rp_sim_opts_t *o)
{
	rp_run_t *run;
	int64_t total = 0;

	/* The pool holds every job's nodes back to back, in job order. */
	for (int j = 0; j < w->njobs; j++) {
		if (w->jobs[j].reject == RP_OK)
			total += w->jobs[j].nodes;
		if (total > INT32_MAX)
			return NULL;
	}
	run = rp_run_alloc(w->njobs, n, o->nsnaps, o->ndecision, total);
	if (!run)
		return NULL;
	for (int i = 0; i < o->nsnaps; i++) {
		run->snap_time[i] = o->snap_times[i];
		for (int v = 0; v < n; v++)
			run->snap_owner[i][v] = -1;
	}
	total = 0;
	for (int j = 0; j < w->njobs; j++) {
		run->start[j] = run->end[j] = -1;
		run->first_shadow[j] = RP_NEVER;
		run->node_off[j] = (int)total;
		if (w->jobs[j].reject == RP_OK)
			total += w->jobs[j].nodes;
	}
	run->node_off[w->njobs] = (int)total;
	return run;
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
	free(s->released);
	free(s->out);
	free(s->out2);
	free(s->out3);
	free(s->heap);
	free(s->queue);
	free(s->state);
	free(s->pbuf);
	free(s->order);
	free(s->pfq);
	loc_holds_destroy(s->holds);
	free(s->unheld);
	free(s->in_region);
	free(s->fail_free);
	free(s->fail_nr);
	free(s->empty_fit);
	loc_adjest_destroy(s->adj);
	free(s->ref_hops);
	loc_planner_destroy(s->planner);
	free(s->ends);
	free(s->patience);
	rp__sim_cons_destroy(s);
	loc_tiers_fini(&s->tiers);
	loc_claims_fini(&s->claims);
	free(s->claim_weight);
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
	s.released = malloc(n);
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
	s.patience = malloc(sizeof(loc_patience_t) * nj1);
	s.planner = loc_planner_create(n, err);
	s.pol = loc_alloc_policy(alloc);
	if (opts->wmode == RP_W_ADJEST)
		s.adj = loc_adjest_create(
			opts->adjest_window > 0 ? opts->adjest_window : 10);
	s.wake = RP_NEVER;
	if (!s.run || !s.free || !s.owner || !s.busy || !s.all || !s.resv ||
	    !s.cand_nr || !s.proj || !s.released || !s.out || !s.out2 ||
	    !s.out3 || !s.heap || !s.queue || !s.state || !s.pbuf ||
	    !s.order || !s.pfq ||
	    !s.fail_free || !s.fail_nr || !s.empty_fit || !s.ref_hops ||
	    !s.ends || !s.patience || !s.planner ||
	    (opts->wmode == RP_W_ADJEST && !s.adj)) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
				   "out of memory for the simulation");
		goto out;
	}
	if (rp__sim_pf_mode(opts->wmode) && !opts->pf_with_job) {
		s.holds = loc_holds_create(n);
		s.unheld = malloc(n ? n : 1);
		s.in_region = malloc(n ? n : 1);
		if (!s.holds || !s.unheld || !s.in_region) {
			rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
					   "out of memory for the simulation");
			goto out;
		}
	}
	if (opts->sched == RP_SCHED_CONSERVATIVE) {
		rc = rp__sim_cons_create(&s);
		if (rc) {
			rc = loc_error_set(err, rc, NULL, 0,
					   "out of memory for the simulation");
			goto out;
		}
	}
	s.weighted = opts->node_weight &&
		     s.pol->node_weight == LOC_NODE_WEIGHT_TIERS;
	if (s.weighted || opts->claims) {
		rc = loc_tiers_init(&s.tiers, n, err);
		if (rc)
			goto out;
		if (s.weighted)
			loc_tiers_set(&s.tiers, opts->node_weight, NULL);
	}
	if (opts->claims && s.pol->compact_wait > 0) {
		rc = loc_claims_init(&s.claims, n, err);
		if (rc)
			goto out;
		s.claim_weight = malloc(sizeof(uint64_t) * n);
		if (!s.claim_weight) {
			rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
					   "out of memory for the simulation");
			goto out;
		}
	}
	memset(s.free, 1, n);
	memset(s.all, 1, n);
	memset(s.empty_fit, -1, n + 2);
	for (int v = 0; v < n; v++)
		s.owner[v] = -1;
	for (int j = 0; j < nj; j++)
		s.patience[j] = (loc_patience_t)LOC_PATIENCE_INIT;
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
			fit = rp__sim_fits_empty(&s, w->jobs[j].nodes);
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
		rc = rp__sim_schedule(&s, t);
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
