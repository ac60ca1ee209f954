/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_plan.h - the fake driver of the planner's tests
 * (test_loc_plan.c, test_loc_plan_hold.c): a line of nodes, running jobs
 * on runs of them, and a placement that takes the first k candidates.
 * Header-only (static functions), like loc_test_util.h; include after
 * <cmocka.h>.
 */
#ifndef LOC_TEST_PLAN_H
#define LOC_TEST_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "loc_plan.h"

#define N_MAX 24
#define J_MAX 40

/*
 * A fake driver on a line of n nodes: the placement is the first k
 * candidates in index order, and a job waiting for a compact set declines
 * any placement that spans more than k + slack positions.
 */
typedef struct fake {
	int n, k;
	uint8_t cand[N_MAX];
	int njobs;
	int64_t ends[J_MAX];
	int jnodes[J_MAX][N_MAX];
	int jn[J_MAX];
	int slack;        /* < 0: never declines */
	int widen[N_MAX]; /* nodes widen_now makes candidates */
	int nwiden;
	int fail_at;      /* place() call that returns LOC_EIO (0: none) */
	int places;       /* place() calls */
	int64_t placed_at[64];
	bool hold_released;       /* offer place_released */
	uint8_t cand_now[N_MAX];  /* ... which leaves these out */
	int released_calls;
	int released_fail;        /* place_released returns this (0: places) */
} fake_t;

static inline int _place(void *arg, int64_t t, int *out, int *k)
{
	fake_t *f = arg;
	int m = 0;

	if (f->places < 64)
		f->placed_at[f->places] = t;
	if (++f->places == f->fail_at)
		return LOC_EIO;
	for (int v = 0; v < f->n && m < f->k; v++)
		if (f->cand[v])
			out[m++] = v;
	if (m < f->k)
		return LOC_ENOFIT;
	*k = m;
	return 0;
}

static inline int _release(void *arg, int i)
{
	fake_t *f = arg;
	int gained = 0;

	for (int q = 0; q < f->jn[i]; q++) {
		gained += !f->cand[f->jnodes[i][q]];
		f->cand[f->jnodes[i][q]] = 1;
	}
	return gained;
}

static inline int _declines(void *arg, const int *out, int k, int64_t t)
{
	fake_t *f = arg;

	(void)t;
	return f->slack >= 0 && out[k - 1] - out[0] + 1 > k + f->slack;
}

static inline int _widen(void *arg)
{
	fake_t *f = arg;
	int gained = 0;

	for (int i = 0; i < f->nwiden; i++) {
		gained += !f->cand[f->widen[i]];
		f->cand[f->widen[i]] = 1;
	}
	return gained;
}

/* The first k candidates among those released since now. */
static inline int _place_released(void *arg, int64_t t, int *out, int *k)
{
	fake_t *f = arg;
	int m = 0;

	(void)t;
	f->released_calls++;
	if (f->released_fail)
		return f->released_fail;
	for (int v = 0; v < f->n && m < f->k; v++)
		if (f->cand[v] && !f->cand_now[v])
			out[m++] = v;
	if (m < f->k)
		return LOC_ENOFIT;
	*k = m;
	return 0;
}

static inline int _count(const fake_t *f)
{
	int c = 0;

	for (int v = 0; v < f->n; v++)
		c += f->cand[v];
	return c;
}

/* Plans f (which it changes: the projection) as of now, releasing
 * running jobs in windows of `window` seconds. */
static inline int _plan_at(fake_t *f, int64_t now, int64_t window,
			   int64_t deadline, bool now_only, int *out,
			   loc_plan_answer_t *ans)
{
	loc_error_t err;
	loc_planner_t *p = loc_planner_create(f->n, &err);
	loc_plan_ops_t ops = { .place = _place,
			       .release = _release,
			       .declines = _declines,
			       .widen_now = f->nwiden ? _widen : NULL,
			       .place_released = f->hold_released ?
							 _place_released :
							 NULL };
	loc_plan_request_t req = { .now = now,
				   .ends = f->ends,
				   .nrunning = f->njobs,
				   .ncand = _count(f),
				   .need = f->k,
				   .deadline = deadline,
				   .now_only = now_only,
				   .window = window };
	int rc;

	assert_non_null(p);
	memcpy(f->cand_now, f->cand, sizeof(f->cand));
	rc = loc_plan_earliest(p, &req, &ops, f, out, ans, &err);
	loc_planner_destroy(p);
	return rc;
}

/* Plans f with now = 100, each end time on its own. */
static inline int _plan(fake_t *f, int64_t deadline, bool now_only,
			int *out, loc_plan_answer_t *ans)
{
	return _plan_at(f, 100, 0, deadline, now_only, out, ans);
}

/* A line of n nodes; job i holds nodes [a_i, b_i] and ends at e_i. */
static inline void _line(fake_t *f, int n, int k, int slack)
{
	memset(f, 0, sizeof(*f));
	f->n = n;
	f->k = k;
	f->slack = slack;
	memset(f->cand, 1, n);
}

static inline void _job(fake_t *f, int a, int b, int64_t end)
{
	int i = f->njobs++;

	f->ends[i] = end;
	for (int v = a; v <= b; v++) {
		f->jnodes[i][f->jn[i]++] = v;
		f->cand[v] = 0;
	}
}

/* A xorshift stream: the random cases are the same every run. */
static uint64_t _rng = 88172645463325252ULL;

static inline int _rand(int n)
{
	_rng ^= _rng << 13;
	_rng ^= _rng >> 7;
	_rng ^= _rng << 17;
	return (int)(_rng % (uint64_t)n);
}

#endif /* LOC_TEST_PLAN_H */
