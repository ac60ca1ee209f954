/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_plan.c - earliest start for both drivers (see loc_plan.h).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_plan.h"

typedef struct plan_event {
	int64_t end;
	int job; /* index into the request's ends[] */
} plan_event_t;

struct loc_planner {
	int nnodes;
	plan_event_t *events; /* running jobs by expected end */
	int cap;              /* events allocated */
	int *fallback;        /* a declined set (nnodes) */
};

loc_planner_t *loc_planner_create(int nnodes, loc_error_t *err)
{
	loc_planner_t *p;

	if (nnodes < 1) {
		loc_error_set(err, LOC_EINVAL, NULL, 0,
			      "planner for %d nodes", nnodes);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p) {
		p->nnodes = nnodes;
		p->cap = nnodes;
		p->events = malloc(sizeof(*p->events) * (size_t)p->cap);
		p->fallback = malloc(sizeof(int) * (size_t)nnodes);
	}
	if (!p || !p->events || !p->fallback) {
		loc_planner_destroy(p);
		loc_error_set(err, LOC_ENOMEM, NULL, 0,
			      "planner for %d nodes", nnodes);
		return NULL;
	}
	return p;
}

void loc_planner_destroy(loc_planner_t *p)
{
	if (!p)
		return;
	free(p->events);
	free(p->fallback);
	free(p);
}

static int _cmp_event(const void *a, const void *b)
{
	const plan_event_t *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/* The running jobs in order of expected end (ties by index). */
static int _order(loc_planner_t *p, const loc_plan_request_t *req,
		  loc_error_t *err)
{
	if (req->nrunning > p->cap) {
		/* More jobs than nodes (suspended or shared ones): grow once. */
		plan_event_t *e = realloc(p->events, sizeof(*e) *
							     (size_t)req->nrunning);

		if (!e)
			return loc_error_set(err, LOC_ENOMEM, NULL, 0,
					     "planner: %d running jobs",
					     req->nrunning);
		p->events = e;
		p->cap = req->nrunning;
	}
	for (int i = 0; i < req->nrunning; i++) {
		p->events[i].end = req->ends[i];
		p->events[i].job = i;
	}
	qsort(p->events, (size_t)req->nrunning, sizeof(*p->events),
	      _cmp_event);
	return 0;
}

/* When a running job's nodes count as free: its expected end, or the
 * next second for a job running past it. */
static int64_t _when(const loc_plan_request_t *req, const plan_event_t *e)
{
	return e->end > req->now ? e->end : req->now + 1;
}

/*
 * Which releases are offered together. Width 0: the jobs ending at one
 * time. Width W > 0 (PlanWindow): windows of end times, as
 * select/cons_tres releases running jobs for sched/backfill. The first
 * window closes W seconds past the first end rounded up to a multiple of
 * W (windows fall on a grid, as cons_tres's do); each later window is at
 * least twice as long, so a far start costs few offers.
 */
typedef struct plan_window {
	int64_t width;
	int64_t base;  /* the first end, rounded up; 0: not yet */
	int64_t close; /* the current window's last second */
} plan_window_t;

/* Whether a release at next joins the one at t (the window's last so far). */
static bool _same_window(plan_window_t *win, int64_t t, int64_t next)
{
	if (win->width <= 0)
		return next == t;
	if (!win->base) {
		win->base = t + (win->width - t % win->width);
		win->close = win->base + win->width;
	}
	if (next <= win->close)
		return true;
	/* t closes this window; the next one reaches at least to next (or
	 * to the end of time, for ends too far to double up to). */
	while (next > win->close) {
		if (win->width > (INT64_MAX - win->base) / 2) {
			win->close = INT64_MAX;
			break;
		}
		win->width *= 2;
		win->close = win->base + win->width;
	}
	return false;
}

/* The plan's state between offers. */
typedef struct plan_walk {
	loc_planner_t *p;
	const loc_plan_request_t *req;
	const loc_plan_ops_t *ops;
	void *arg;
	int *out;
	loc_plan_answer_t *ans;
	int64_t fb_t; /* 0: no declined set kept */
	int fb_k;
	bool declined_now;
} plan_walk_t;

/*
 * The answer starts at t, later than now, on out[0..k): hold released
 * nodes instead where they can hold the job (loc_plan.h). Returns 1 (the
 * answer stands) or a LOC_E* code.
 */
static int _hold_released(plan_walk_t *w, int64_t t, int k, loc_error_t *err)
{
	int k2 = 0, rc;

	if (!w->ops->place_released)
		return 1;
	/* The declined set kept there is no longer needed: an answer came. */
	memcpy(w->p->fallback, w->out, sizeof(int) * (size_t)k);
	w->ans->attempts++;
	rc = w->ops->place_released(w->arg, t, w->out, &k2);
	if (rc == 0 && (k2 < 1 || k2 > w->p->nnodes))
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "planner: placement of %d nodes", k2);
	if (rc == 0) {
		w->ans->k = k2;
		w->ans->released = true;
		return 1;
	}
	if (rc != LOC_ENOFIT)
		return rc;
	memcpy(w->out, w->p->fallback, sizeof(int) * (size_t)k);
	return 1;
}

/*
 * Places the job as of time t and judges the placement. Returns 1 when
 * the job takes it (the answer is set), 0 to go on, or a LOC_E* code.
 */
static int _offer(plan_walk_t *w, int64_t t, loc_error_t *err)
{
	int k = 0, rc;

	w->ans->attempts++;
	rc = w->ops->place(w->arg, t, w->out, &k);
	if (rc == LOC_ENOFIT)
		return 0;
	if (rc)
		return rc;
	if (k < 1 || k > w->p->nnodes)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "planner: placement of %d nodes", k);
	rc = w->ops->declines ? w->ops->declines(w->arg, w->out, k, t) : 0;
	if (rc < 0)
		return rc;
	if (rc == 0) {
		w->ans->start = t;
		w->ans->k = k;
		return t > w->req->now ? _hold_released(w, t, k, err) : 1;
	}
	if (t <= w->req->now) {
		w->declined_now = true;
		return 0;
	}
	/* Declined: keep the latest set offered no later than the deadline
	 * (the free set only grows), or the first one after it. */
	if (!w->fb_t || t <= w->req->deadline) {
		memcpy(w->p->fallback, w->out, sizeof(int) * (size_t)k);
		w->fb_k = k;
		w->fb_t = t > w->req->deadline ? t : w->req->deadline;
	}
	return 0;
}

int loc_plan_earliest(loc_planner_t *p, const loc_plan_request_t *req,
		      const loc_plan_ops_t *ops, void *arg, int *out,
		      loc_plan_answer_t *ans, loc_error_t *err)
{
	plan_walk_t w = { .p = p, .req = req, .ops = ops, .arg = arg,
			  .out = out, .ans = ans };
	int ncand = req->ncand, rc;

	memset(ans, 0, sizeof(*ans));
	if (!p || !ops || !ops->place || !ops->release || !out ||
	    req->nrunning < 0 || (req->nrunning && !req->ends))
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "planner: bad arguments");
	rc = ncand >= req->need ? _offer(&w, req->now, err) : 0;
	if (rc == 0 && ops->widen_now) {
		int more = ops->widen_now(arg);

		ncand += more;
		if (more > 0 && ncand >= req->need)
			rc = _offer(&w, req->now, err);
	}
	if (rc == 0 && w.declined_now) {
		ans->waiting = true;
		return loc_error_set(err, LOC_ENOFIT, NULL, 0,
				     "waits for a more compact set (CompactWait)");
	}
	if (rc == 0 && !req->now_only) {
		int gained = 0;
		plan_window_t win = { .width = req->window };

		rc = _order(p, req, err);
		for (int i = 0; rc == 0 && i < req->nrunning; i++) {
			const plan_event_t *e = &p->events[i];
			int64_t t = _when(req, e);

			gained += ops->release(arg, e->job);
			/* Every job ending in this window goes first; a
			 * release that freed nothing usable changes no
			 * answer. */
			if (i + 1 < req->nrunning &&
			    _same_window(&win, t, _when(req, &p->events[i + 1])))
				continue;
			ncand += gained;
			if (gained > 0 && ncand >= req->need)
				rc = _offer(&w, t, err);
			gained = 0;
		}
	}
	if (rc < 0)
		return rc;
	if (rc == 0 && w.fb_t) {
		memcpy(out, p->fallback, sizeof(int) * (size_t)w.fb_k);
		ans->k = w.fb_k;
		ans->start = w.fb_t;
		ans->declined = true;
		rc = 1;
	}
	return rc == 1 ? 0 : LOC_ENOFIT;
}

int loc_plan_narrow_to_released(uint8_t *cand, const uint8_t *cand_now,
				int n)
{
	int left = 0;

	for (int v = 0; v < n; v++) {
		cand[v] = cand[v] && !cand_now[v];
		left += cand[v];
	}
	return left;
}

void loc_plan_unnarrow(uint8_t *cand, const uint8_t *cand_now, int n)
{
	for (int v = 0; v < n; v++)
		cand[v] |= cand_now[v];
}
