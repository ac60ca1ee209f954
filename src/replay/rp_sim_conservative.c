/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sim_conservative.c - conservative backfilling (--sched conservative):
 * every job tested gets a reservation, as Slurm's sched/backfill plans.
 *
 * EASY reserves for the first job that cannot start and lets every later
 * job start wherever it keeps off that one set. sched/backfill plans each
 * job it tests (up to bf_max_job_test, within bf_window) in priority
 * order: a job starts now only on nodes no earlier job's plan holds while
 * it would run, and otherwise is planned at its earliest start on nodes
 * then kept from every later job. On the live benchmark most multi-node
 * jobs were started by backfill, so which nodes were left to them is
 * decided by these plans (doc/experiments.md).
 *
 * Each pass plans afresh, as sched/backfill does every bf_interval:
 *   - a node is free in the plan from the requested end of the job on it
 *     (plus the turnaround);
 *   - a job of walltime d can start at t on the nodes free at t that no
 *     reservation holds in [t, t + d + turnaround); the earliest such t is
 *     now, the end of a running job or the end of a reservation (a start
 *     that fits at any other time fits at the last of these before it);
 *   - at each such t the run's allocator places the job on those nodes;
 *     now, it starts there; later, the set is its reservation, unless it
 *     declines it for a more compact one (CompactWait, judged with the
 *     patience it has now). A job that declines the set it could take now
 *     holds nothing under select/locality (its planner answers "waiting",
 *     loc_plan.h); under topology/locality cons_tres goes on to later
 *     states, so the job is planned at the first compact set
 *     (plan_declined, tl_compact.c). With PlanHold=released a later start holds the nodes busy
 *     now wherever they hold the job, as the plugin's backfill tests do.
 * A job that finds no start within bf_window reserves nothing.
 *
 * Cost per pass: for each job tested, up to one allocator call per
 * candidate time (the distinct ends of running jobs and reservations), each
 * after an O(n + reserved nodes) scan; far more than EASY's one planner
 * call, so it is a mode to model a Slurm site, not the default.
 */
#include <stdlib.h>
#include <string.h>

#include "rp_sim_internal.h"

typedef struct rp_cons {
	int64_t *rel;	 /* per node: when the plan has it free */
	uint8_t *avail;	 /* free throughout the span tried */
	int64_t *times;	 /* candidate starts, ascending, unique */
	int ntimes, cap_times;
	int64_t *rstart; /* this pass's reservations: [rstart, rend) ... */
	int64_t *rend;
	int *roff; /* ... on rpool[roff[r] .. roff[r + 1]) */
	int *rpool;
	size_t cap_pool;
	int nresv, cap_resv;
	int *placed;
} rp_cons_t;

int rp__sim_cons_create(sim_t *s)
{
	rp_cons_t *c = calloc(1, sizeof(*c));
	int depth = s->o.bf_depth > 0 ? s->o.bf_depth : RP_BF_DEPTH_DEFAULT;

	if (!c)
		return LOC_ENOMEM;
	s->cons = c;
	c->cap_times = 2 * s->n + depth + 2;
	c->cap_resv = depth;
	c->cap_pool = (size_t)s->n * 4;
	c->rel = malloc(sizeof(int64_t) * s->n);
	c->avail = malloc(s->n);
	c->times = malloc(sizeof(int64_t) * c->cap_times);
	c->rstart = malloc(sizeof(int64_t) * c->cap_resv);
	c->rend = malloc(sizeof(int64_t) * c->cap_resv);
	c->roff = malloc(sizeof(int) * (c->cap_resv + 1));
	c->rpool = malloc(sizeof(int) * c->cap_pool);
	c->placed = malloc(sizeof(int) * s->n);
	if (!c->rel || !c->avail || !c->times || !c->rstart || !c->rend ||
	    !c->roff || !c->rpool || !c->placed)
		return LOC_ENOMEM;
	return 0;
}

void rp__sim_cons_destroy(sim_t *s)
{
	rp_cons_t *c = s->cons;

	if (!c)
		return;
	free(c->rel);
	free(c->avail);
	free(c->times);
	free(c->rstart);
	free(c->rend);
	free(c->roff);
	free(c->rpool);
	free(c->placed);
	free(c);
	s->cons = NULL;
}

/* Adds t to the candidate starts (kept ascending and unique). */
static void _add_time(rp_cons_t *c, int64_t t)
{
	int i = c->ntimes;

	while (i > 0 && c->times[i - 1] > t)
		i--;
	if (i > 0 && c->times[i - 1] == t)
		return;
	if (c->ntimes == c->cap_times)
		return; /* cannot happen: sized for every node twice */
	memmove(c->times + i + 1, c->times + i,
		sizeof(int64_t) * (c->ntimes - i));
	c->times[i] = t;
	c->ntimes++;
}

/* The span a job of j holds its nodes when it starts at t. */
static int64_t _span_end(const sim_t *s, int j, int64_t t)
{
	return t + s->jobs[j].request + s->o.turnaround;
}

/* Marks in avail the nodes free at t that no reservation holds in
 * [t, end); returns how many. */
static int _avail(sim_t *s, int64_t t, int64_t end)
{
	rp_cons_t *c = s->cons;
	int m = 0;

	for (int v = 0; v < s->n; v++)
		c->avail[v] = c->rel[v] <= t;
	for (int r = 0; r < c->nresv; r++) {
		if (c->rstart[r] >= end || c->rend[r] <= t)
			continue;
		for (int q = c->roff[r]; q < c->roff[r + 1]; q++)
			c->avail[c->rpool[q]] = 0;
	}
	for (int v = 0; v < s->n; v++)
		m += c->avail[v];
	return m;
}

static int _reserve(sim_t *s, int64_t t, int64_t end, const int *nodes,
		    int k)
{
	rp_cons_t *c = s->cons;
	size_t off = (size_t)c->roff[c->nresv];

	if (off + (size_t)k > c->cap_pool) {
		size_t cap = (off + k) * 2;
		int *p = realloc(c->rpool, sizeof(int) * cap);

		if (!p)
			return loc_error_set(s->err, LOC_ENOMEM, NULL, 0,
					     "out of memory for the plan");
		c->rpool = p;
		c->cap_pool = cap;
	}
	memcpy(c->rpool + off, nodes, sizeof(int) * k);
	c->rstart[c->nresv] = t;
	c->rend[c->nresv] = end;
	c->nresv++;
	c->roff[c->nresv] = (int)(off + k);
	_add_time(c, end);
	return 0;
}

/* Places job j as of a later start on c->avail (with PlanHold=released,
 * on the nodes of it busy now first): 0, LOC_ENOFIT or LOC_E*. */
static int _place_later(sim_t *s, int j, int64_t now)
{
	rp_cons_t *c = s->cons;
	loc_request_t req = { .nodes = s->jobs[j].nodes };
	loc_view_t view = { .candidate = c->avail, .now = now };
	int rc;

	if (s->pol->plan_hold == LOC_PLAN_HOLD_RELEASED) {
		memcpy(s->released, c->avail, s->n);
		if (loc_plan_narrow_to_released(s->released, s->free, s->n) >=
		    req.nodes) {
			view.candidate = s->released;
			rc = rp__sim_select(s, &req, s->released, &view,
					    c->placed, s->err);
			if (rc != LOC_ENOFIT)
				return rc;
			view.candidate = c->avail;
		}
	}
	return rp__sim_select(s, &req, c->avail, &view, c->placed, s->err);
}

/* The nodes started on this instant (the job and any PF partner) are
 * free in the plan from their requested ends. */
static void _taken_now(sim_t *s, int64_t now)
{
	rp_cons_t *c = s->cons;

	for (int v = 0; v < s->n; v++) {
		if (s->free[v] || c->rel[v] > now)
			continue;
		c->rel[v] = _span_end(s, s->owner[v], now);
		_add_time(c, c->rel[v]);
	}
}

/* Plans job j: 1 started now, 2 waits for a compact set (holds nothing),
 * 3 reserved a later start, 0 no start within the window, or LOC_E*. */
static int _plan(sim_t *s, int j, int64_t now)
{
	rp_cons_t *c = s->cons;
	int k = s->jobs[j].nodes, rc;
	bool declined = false;

	for (int i = 0; i < c->ntimes; i++) {
		int64_t t = c->times[i], end = _span_end(s, j, t);

		if (t < now)
			continue;
		if (t > now + s->o.bf_window)
			break;
		if (_avail(s, t, end) < k)
			continue;
		if (t == now) {
			/* rp__sim_start() clears cand_nr for the nodes it
			 * takes; PF pairs in it too (resv_phase). */
			memcpy(s->cand_nr, c->avail, s->n);
			s->resv_phase = true;
			rc = rp__sim_try(s, j, now, s->cand_nr);
			s->resv_phase = false;
			if (rc == 1)
				_taken_now(s, now);
			if (rc == 2 && s->o.plan_declined) {
				declined = true;
				continue;
			}
			if (rc)
				return rc;
			continue;
		}
		rc = _place_later(s, j, now);
		if (rc == LOC_ENOFIT)
			continue;
		if (rc)
			return rc;
		rc = rp__sim_patient(s, j, now, t, c->placed, true);
		if (rc < 0)
			return rc;
		if (rc == 1)
			continue;
		rc = _reserve(s, t, end, c->placed, k);
		return rc ? rc : 3;
	}
	return declined ? 2 : 0;
}

int rp__sim_conservative(sim_t *s, int64_t now)
{
	rp_cons_t *c = s->cons;
	int tested = 0;
	bool blocked = false; /* a job ahead did not start */

	c->nresv = 0;
	c->roff[0] = 0;
	c->ntimes = 0;
	_add_time(c, now);
	for (int v = 0; v < s->n; v++) {
		int j = s->owner[v];
		int64_t rel = now;

		if (j >= 0) {
			rel = _span_end(s, j, s->run->start[j]);
			/* the requested end has passed only when the job ends
			 * this instant: its end event comes first */
			if (rel <= now)
				rel = now + 1;
		}
		c->rel[v] = rel;
		_add_time(c, rel);
	}
	for (int pos = 0; pos < s->norder; pos++) {
		int j = s->order[pos], r;

		if (s->state[j] != J_WAITING)
			continue;
		if (tested++ >= s->o.bf_depth || c->nresv == c->cap_resv)
			break;
		r = _plan(s, j, now);
		if (r < 0)
			return r;
		if (r != 1)
			rp__sim_turn_passed(s, j);
		if (r == 1 && blocked) {
			s->run->backfilled[j] = true;
			s->run->nbackfilled++;
		}
		if (r == 0 || r == 3)
			blocked = true;
	}
	return 0;
}
