/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan_bench.c - the cost of decisions on a busy machine: for 4,096
 * (16x16x16 torus) and 32,768 nodes (32x32x32) with 100, 2,000 and 5,000
 * running jobs, the time of one placement decision of every strategy on
 * the free nodes left, and of a WILL_RUN answer (loc_plan_earliest(): when
 * and where could a job that does not fit now start). Prints the median
 * and the 99th percentile; never fails on time.
 *
 * The state: R running jobs of log-uniform sizes (1 to 16x the mean)
 * scaled to fill 95% of the machine, placed one after another by
 * Strategy=random, so the free space is fragmented, each with an end time
 * uniform in the next hour. A WILL_RUN query asks for 5% or 25% of the
 * machine more than is free, so it must look ahead, with a fresh
 * projection each time (as job_test builds it from Slurm's state).
 *
 *   plan_bench [--quick] [--strategies a,b,...]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loc_plan.h"
#include "bench_util.h"
#include "loc_strategy.h"

#define MAX_SAMPLES 2001
#define NRUNS 3

static const int _runs[NRUNS] = { 100, 2000, 5000 };
static const int _dims[2][3] = { { 16, 16, 16 }, { 32, 32, 32 } };
static const int _ks[] = { 1, 8, 64, 512 };
#define NKS ((int)(sizeof(_ks) / sizeof(_ks[0])))

typedef struct state {
	const loc_grid_t *grid;
	int n;
	uint8_t *free_now;  /* 1 = idle */
	int nfree;
	int njobs;
	int64_t *ends;
	int *job_off, *pool; /* job i's nodes: pool[job_off[i] .. job_off[i+1]) */
} state_t;

/* A WILL_RUN in progress: the projection and the allocator. */
typedef struct query {
	state_t *st;
	loc_alloc_t *alloc;
	uint8_t *cand;
	int k;
} query_t;

static loc_alloc_t *_alloc(const loc_grid_t *g, loc_strategy_kind_t kind)
{
	loc_policy_t pol;

	loc_policy_init(&pol);
	pol.strategy = kind;
	pol.curve = LOC_CURVE_HILBERT;
	pol.seed = 7;
	return loc_alloc_create(g, &pol, NULL);
}

/* R running jobs filling 95% of the machine: sizes log-uniform between 1
 * and 16x the mean, scaled to the total. Returns 0 or -1. */
static int _build(state_t *st, const loc_grid_t *g, int r, uint64_t seed)
{
	int n = loc_grid_nnodes(g), target = n * 95 / 100, used = 0;
	loc_alloc_t *a = _alloc(g, LOC_STRATEGY_RANDOM);
	double *raw = malloc(sizeof(double) * r), sum = 0;
	loc_view_t view;
	uint64_t s = seed | 1;

	memset(st, 0, sizeof(*st));
	st->grid = g;
	st->n = n;
	st->free_now = malloc(n);
	st->ends = malloc(sizeof(int64_t) * r);
	st->job_off = malloc(sizeof(int) * (r + 1));
	st->pool = malloc(sizeof(int) * n);
	if (!a || !raw || !st->free_now || !st->ends || !st->job_off ||
	    !st->pool || r > target) {
		free(raw);
		loc_alloc_destroy(a);
		return -1;
	}
	for (int i = 0; i < r; i++) {
		/* 2^(4u) for u uniform in [0, 1): 1 to 16, log-uniform */
		double u = (double)(bench_rand(&s) % 1000000) / 1e6;

		raw[i] = 1.0;
		for (int b = 0; b < 40; b++)
			raw[i] *= 1.0 + (u * 4.0 * 0.6931472) / 40; /* e^(4u ln 2) */
		sum += raw[i];
	}
	memset(st->free_now, 1, n);
	view = (loc_view_t){ .candidate = st->free_now };
	for (int i = 0; i < r; i++) {
		int size = (int)(raw[i] * target / sum + 0.5);
		loc_request_t req;

		if (size < 1)
			size = 1;
		/* room for one node for each job still to come */
		if (size > target - used - (r - i - 1))
			size = target - used - (r - i - 1);
		if (i == r - 1)
			size = target - used;
		req = (loc_request_t){ .nodes = size };
		st->job_off[i] = used;
		if (size < 1 ||
		    loc_alloc_select(a, &req, &view, st->pool + used, NULL))
			break;
		for (int q = 0; q < size; q++)
			st->free_now[st->pool[used + q]] = 0;
		used += size;
		st->ends[i] = 1000 + (int64_t)(bench_rand(&s) % 3600);
		st->njobs = i + 1;
	}
	st->job_off[st->njobs] = used;
	st->nfree = n - used;
	free(raw);
	loc_alloc_destroy(a);
	return st->njobs == r ? 0 : -1;
}

static void _free_state(state_t *st)
{
	free(st->free_now);
	free(st->ends);
	free(st->job_off);
	free(st->pool);
}

static int _q_place(void *arg, int64_t t, int *out, int *k)
{
	query_t *q = arg;
	loc_request_t req = { .nodes = q->k };
	loc_view_t view = { .candidate = q->cand, .now = t };

	*k = q->k;
	return loc_alloc_select(q->alloc, &req, &view, out, NULL);
}

static int _q_release(void *arg, int i)
{
	query_t *q = arg;
	int gained = 0;

	for (int p = q->st->job_off[i]; p < q->st->job_off[i + 1]; p++) {
		gained += !q->cand[q->st->pool[p]];
		q->cand[q->st->pool[p]] = 1;
	}
	return gained;
}

/* Median and p99 (nearest rank: the maximum below 100 samples) of
 * samples[0..m). */
static void _stats(double *samples, int m, double *med, double *p99)
{
	int r = (99 * m + 99) / 100;

	qsort(samples, m, sizeof(double), bench_cmp_double);
	*med = samples[(m - 1) / 2];
	*p99 = samples[r > 0 ? r - 1 : 0];
}

/* Decisions of strategy kind for k nodes on the free nodes: -1 when it
 * cannot place them. */
static int _time_decision(state_t *st, loc_strategy_kind_t kind, int k,
			  double budget, double *samples, double *med,
			  double *p99, int *out)
{
	loc_alloc_t *a = _alloc(st->grid, kind);
	loc_view_t view = { .candidate = st->free_now };
	loc_request_t req = { .nodes = k };
	double spent = 0;
	int m = 0;

	if (!a)
		return -1;
	if (k > st->nfree || loc_alloc_select(a, &req, &view, out, NULL)) {
		loc_alloc_destroy(a);
		return -1;
	}
	while (m < MAX_SAMPLES && (spent < budget || m < 5)) {
		double t0, t;

		/* The same question every time: time the search, not pack's
		 * memo of its last answers. */
		loc_alloc_forget(a);
		t0 = bench_now();
		loc_alloc_select(a, &req, &view, out, NULL);
		t = bench_now() - t0;
		samples[m++] = t;
		spent += t;
		if (t > budget)
			break;
	}
	loc_alloc_destroy(a);
	_stats(samples, m, med, p99);
	return 0;
}

/* WILL_RUN answers for jobs of k nodes (more than are free). */
static int _time_will_run(state_t *st, loc_strategy_kind_t kind, int k,
			  double budget, double *samples, double *med,
			  double *p99, int *out, int *attempts)
{
	query_t q = { .st = st, .alloc = _alloc(st->grid, kind), .k = k };
	loc_planner_t *p = loc_planner_create(st->n, NULL);
	loc_plan_ops_t ops = { .place = _q_place, .release = _q_release };
	loc_plan_request_t req = { .now = 0,
				   .ends = st->ends,
				   .nrunning = st->njobs,
				   .ncand = st->nfree,
				   .need = k };
	loc_plan_answer_t ans;
	double spent = 0;
	int m = 0, rc = 0;

	q.cand = malloc(st->n);
	if (!q.alloc || !p || !q.cand) {
		rc = -1;
		goto out;
	}
	while (m < MAX_SAMPLES && (spent < budget || m < 5)) {
		double t0, t;

		/* As for _time_decision(): the search, not the memo. */
		loc_alloc_forget(q.alloc);
		t0 = bench_now();
		/* job_test builds its projection from Slurm's state each call */
		memcpy(q.cand, st->free_now, st->n);
		rc = loc_plan_earliest(p, &req, &ops, &q, out, &ans, NULL);
		t = bench_now() - t0;
		if (rc)
			break;
		samples[m++] = t;
		spent += t;
		if (t > budget)
			break;
	}
	if (!rc) {
		_stats(samples, m, med, p99);
		*attempts = ans.attempts;
	}
out:
	free(q.cand);
	loc_planner_destroy(p);
	loc_alloc_destroy(q.alloc);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	bool want[LOC_STRATEGY_COUNT];
	double budget = 0.2, *samples = malloc(sizeof(double) * MAX_SAMPLES);
	int *out = malloc(sizeof(int) * 32768);

	if (!samples || !out)
		return 1;
	for (int i = 0; i < LOC_STRATEGY_COUNT; i++)
		want[i] = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			budget = 0.02;
		} else if (!strcmp(argv[i], "--strategies") && i + 1 < argc) {
			if (bench_parse_strategies("plan_bench", argv[++i], want))
				return 2;
		} else {
			fprintf(!strcmp(argv[i], "--help") ? stdout : stderr,
				"usage: plan_bench [--quick] [--strategies a,b,...]\n"
				"Median and p99 time of a placement decision and of a\n"
				"WILL_RUN answer on a 95%%-busy torus with many running jobs.\n");
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	printf("Median / p99 per call (clock_gettime monotonic), curve hilbert,\n"
	       "95%%-busy torus (running jobs placed by random), %s.\n",
	       budget < 0.1 ? "--quick" : "full run");
	for (int di = 0; di < 2; di++) {
		loc_shape_t shape = { .ndims = 3, .nodes_per_point = 1 };
		loc_grid_t *g;
		int n = 1;

		for (int d = 0; d < 3; d++) {
			shape.dims[d] = _dims[di][d];
			shape.torus[d] = true;
			n *= _dims[di][d];
		}
		g = loc_grid_create(&shape, n, NULL);
		if (!g)
			return 1;
		for (int ri = 0; ri < NRUNS; ri++) {
			state_t st;
			int wk[2];

			if (_runs[ri] > n * 95 / 100) {
				printf("\n== %d nodes, %d running jobs: n/a (more jobs than busy nodes) ==\n",
				       n, _runs[ri]);
				continue;
			}
			if (_build(&st, g, _runs[ri], 99 + ri)) {
				printf("\n== %d nodes, %d running jobs: could not build the state ==\n",
				       n, _runs[ri]);
				_free_state(&st);
				continue;
			}
			/* jobs that do not fit now */
			wk[0] = st.nfree + n / 20;
			wk[1] = st.nfree + n / 4;
			printf("\n== %d nodes (%dx%dx%d torus), %d running jobs, %d free ==\n",
			       n, _dims[di][0], _dims[di][1], _dims[di][2],
			       st.njobs, st.nfree);
			printf("%-11s", "strategy");
			for (int ki = 0; ki < NKS; ki++)
				printf(" | decision k=%-6d", _ks[ki]);
			for (int w = 0; w < 2; w++)
				printf(" | WILL_RUN k=%-13d", wk[w]);
			printf("\n");
			for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
				if (!want[s])
					continue;
				printf("%-11s", loc_strategy_kind_name(s));
				for (int ki = 0; ki < NKS; ki++) {
					double med, p99;
					char a[32], b[32];

					if (_time_decision(&st, s, _ks[ki], budget,
							   samples, &med, &p99,
							   out)) {
						printf(" | %-17s", "n/a (no fit)");
						continue;
					}
					bench_fmt_time(a, sizeof(a), med);
					bench_fmt_time(b, sizeof(b), p99);
					printf(" | %7s %-9s", a, b);
				}
				for (int w = 0; w < 2; w++) {
					double med, p99;
					char a[32], b[32];
					int tries = 0;

					if (_time_will_run(&st, s, wk[w], budget,
							   samples, &med, &p99,
							   out, &tries)) {
						printf(" | %-24s", "n/a (no start)");
						continue;
					}
					bench_fmt_time(a, sizeof(a), med);
					bench_fmt_time(b, sizeof(b), p99);
					printf(" | %7s %-9s %3d pl.", a, b,
					       tries);
				}
				printf("\n");
				fflush(stdout);
			}
			_free_state(&st);
		}
		loc_grid_destroy(g);
	}
	free(samples);
	free(out);
	return 0;
}
