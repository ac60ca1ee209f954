/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_workload.c - a trace turned into jobs the simulator can run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_sim.h"

static const char *const _reject_names[RP_REJECT_COUNT] = {
	[RP_OK] = "ok",
	[RP_REJECT_TOO_LARGE] = "larger-than-machine",
	[RP_REJECT_NO_FIT] = "no-fit-on-empty-machine",
};

const char *rp_reject_name(int reason)
{
	if (reason < 0 || reason >= RP_REJECT_COUNT)
		return "?";
	return _reject_names[reason];
}

static const char *const _wmode_names[RP_W_COUNT] = {
	"none", "sl", "pf", "combo", "adjest", "actrun",
};

const char *rp_wmode_name(int mode)
{
	if (mode < 0 || mode >= RP_W_COUNT)
		return "?";
	return _wmode_names[mode];
}

int rp_wmode_parse(const char *name)
{
	for (int i = 0; i < RP_W_COUNT; i++)
		if (name && !strcmp(name, _wmode_names[i]))
			return i;
	return -1;
}

loc_walltime_mode_t rp_wmode_policy(rp_wmode_t mode)
{
	switch (mode) {
	case RP_W_SL:
		return LOC_WALLTIME_SL;
	case RP_W_PF:
		return LOC_WALLTIME_PF;
	case RP_W_COMBO:
	case RP_W_ACTRUN:
		return LOC_WALLTIME_COMBO;
	case RP_W_ADJEST:
		return LOC_WALLTIME_ADJEST;
	default:
		return LOC_WALLTIME_NONE;
	}
}

/* A job's jitter in [-max_s, max_s]: splitmix64 of the seed and the
 * job's place in the trace, so a draw does not depend on the other jobs. */
static int64_t _jitter(uint64_t seed, int trace_index, int max_s)
{
	uint64_t z = seed * 0x9E3779B97F4A7C15ULL + (uint64_t)trace_index +
		     0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (int64_t)(z % (uint64_t)(2 * max_s + 1)) - max_s;
}

/* Sort key: submit time, then trace order (a stable sort by hand). */
static int _cmp_job(const void *a, const void *b)
{
	const rp_job_t *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->trace_index > y->trace_index) -
	       (x->trace_index < y->trace_index);
}

/* The smallest number of points >= n that forms a box of the shape. */
static int _box_at_least(const loc_shape_t *sh, int n)
{
	int best = 0, ext[LOC_MAX_DIMS];

	for (int d = 0; d < sh->ndims; d++)
		ext[d] = 1;
	/* odometer over every extent combination (a few hundred at most) */
	for (;;) {
		long long v = 1;
		int d;

		for (d = 0; d < sh->ndims; d++)
			v *= ext[d];
		if (v >= n && (!best || v < best))
			best = (int)v;
		for (d = sh->ndims - 1; d >= 0; d--) {
			if (ext[d] < sh->dims[d]) {
				ext[d]++;
				break;
			}
			ext[d] = 1;
		}
		if (d < 0)
			break;
	}
	return best ? best : n;
}

static int _pow2_at_least(int n)
{
	int p = 1;

	while (p < n && p < (1 << 30))
		p <<= 1;
	return p;
}

rp_workload_t *rp_workload_create(const loc_trace_t *trace,
				  const rp_workload_opts_t *opts,
				  loc_error_t *err)
{
	rp_workload_t *w = calloc(1, sizeof(*w));
	int n = trace->njobs;

	if (!w || !(w->jobs = calloc(n ? n : 1, sizeof(rp_job_t)))) {
		free(w);
		loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		const loc_trace_job_t *tj = &trace->jobs[i];
		rp_job_t *j = &w->jobs[i];

		j->trace_index = i;
		j->submit = tj->submit;
		j->runtime = tj->runtime;
		j->nodes = tj->nodes;
		j->user = tj->user;
		if (tj->requested == LOC_TRACE_UNKNOWN || tj->requested <= 0) {
			/* No request: the estimate is exact. */
			j->request = j->runtime;
			w->no_request++;
		} else {
			j->request = tj->requested;
			if (j->runtime > j->request) {
				j->runtime = j->request;
				w->truncated++;
			}
		}
		if (j->request < 1)
			j->request = 1;
		if (opts->round == RP_ROUND_POW2) {
			int r = _pow2_at_least(j->nodes);

			if (r > opts->machine_nodes &&
			    j->nodes <= opts->machine_nodes)
				r = opts->machine_nodes;
			j->nodes = r;
		} else if (opts->round == RP_ROUND_BOX && opts->shape &&
			   j->nodes <= opts->machine_nodes) {
			int npp = opts->shape->nodes_per_point;
			int pts = (j->nodes + npp - 1) / npp;
			int box = _box_at_least(opts->shape, pts);

			if (box != pts)
				j->nodes = box * npp;
		}
	}
	qsort(w->jobs, n, sizeof(rp_job_t), _cmp_job);
	/* A monotone map of submit times keeps the order just sorted. */
	if (n && opts->arrival_scale > 0 && opts->arrival_scale != 1) {
		int64_t first = w->jobs[0].submit;

		for (int i = 0; i < n; i++)
			w->jobs[i].submit =
				first + llround((double)(w->jobs[i].submit -
							 first) /
						opts->arrival_scale);
	}
	/* After the scaling, so F and S compose; the jitter reorders jobs
	 * whose submits it brings within S s of each other. */
	if (n && opts->arrival_jitter > 0) {
		for (int i = 0; i < n; i++)
			w->jobs[i].submit += _jitter(opts->jitter_seed,
						     w->jobs[i].trace_index,
						     opts->arrival_jitter);
		qsort(w->jobs, n, sizeof(rp_job_t), _cmp_job);
	}
	if (opts->limit > 0 && opts->limit < n)
		n = opts->limit;
	w->njobs = n;
	/* Counters refer to the kept jobs only. */
	w->no_request = w->truncated = w->rounded = 0;
	{
		double area = 0;
		int64_t span =
			n ? w->jobs[n - 1].submit - w->jobs[0].submit : 0;

		for (int i = 0; i < n; i++)
			if (w->jobs[i].nodes <= opts->machine_nodes ||
			    opts->machine_nodes <= 0)
				area += (double)w->jobs[i].nodes *
					(double)w->jobs[i].runtime;
		w->offered_load =
			span > 0 && opts->machine_nodes > 0
				? area / ((double)opts->machine_nodes *
					  (double)span)
				: 0;
	}
	for (int i = 0; i < n; i++) {
		rp_job_t *j = &w->jobs[i];
		const loc_trace_job_t *tj = &trace->jobs[j->trace_index];

		if (tj->requested == LOC_TRACE_UNKNOWN || tj->requested <= 0)
			w->no_request++;
		else if (tj->runtime > tj->requested)
			w->truncated++;
		if (j->nodes != tj->nodes)
			w->rounded++;
		if (opts->machine_nodes > 0 && j->nodes > opts->machine_nodes) {
			j->reject = RP_REJECT_TOO_LARGE;
			w->too_large++;
		}
	}
	return w;
}

void rp_workload_destroy(rp_workload_t *w)
{
	if (!w)
		return;
	free(w->jobs);
	free(w);
}
