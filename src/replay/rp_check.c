/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_check.c - the invariants every replay must keep, checked after the
 * fact from the run alone (not from the simulator's own bookkeeping).
 */
#include <stdlib.h>
#include <string.h>

#include "rp_sim.h"

typedef struct span {
	int64_t start, end;
	int j;
} span_t;

static int _cmp_span(const void *a, const void *b)
{
	const span_t *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

int rp_run_check(const rp_workload_t *w, const rp_run_t *run, bool check_shadow,
		 loc_error_t *err)
{
	int n = run->nnodes, m = 0, rc = 0;
	span_t *sp = malloc(sizeof(span_t) * (w->njobs + 1));
	int64_t *free_at = calloc(n ? n : 1, sizeof(int64_t));
	int *seen = calloc(n ? n : 1, sizeof(int));

	if (!sp || !free_at || !seen) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (int v = 0; v < n; v++)
		free_at[v] = INT64_MIN;
	for (int j = 0; j < w->njobs; j++) {
		const rp_job_t *job = &w->jobs[j];
		const int *nodes = run->pool + run->node_off[j];

		if (run->reject[j] != RP_OK) {
			if (run->start[j] != -1) {
				rc = loc_error_set(err, LOC_EINVAL, NULL, 0,
						   "rejected job %d started",
						   j);
				goto out;
			}
			continue;
		}
		if (run->start[j] < job->submit) {
			rc = loc_error_set(
				err, LOC_EINVAL, NULL, 0,
				"job %d started at %lld before its submit %lld",
				j, (long long)run->start[j],
				(long long)job->submit);
			goto out;
		}
		if (run->end[j] - run->start[j] != job->runtime) {
			rc = loc_error_set(
				err, LOC_EINVAL, NULL, 0,
				"job %d ran %lld s, not its runtime %lld s", j,
				(long long)(run->end[j] - run->start[j]),
				(long long)job->runtime);
			goto out;
		}
		if (run->node_off[j + 1] - run->node_off[j] != job->nodes) {
			rc = loc_error_set(err, LOC_EINVAL, NULL, 0,
					   "job %d has the wrong node slot", j);
			goto out;
		}
		for (int i = 0; i < job->nodes; i++) {
			if (nodes[i] < 0 || nodes[i] >= n ||
			    seen[nodes[i]] == j + 1) {
				rc = loc_error_set(
					err, LOC_EINVAL, NULL, 0,
					"job %d: node %d invalid or repeated",
					j, nodes[i]);
				goto out;
			}
			seen[nodes[i]] = j + 1;
		}
		if (check_shadow && run->first_shadow[j] != RP_NEVER &&
		    run->start[j] > run->first_shadow[j]) {
			rc = loc_error_set(err, LOC_EINVAL, NULL, 0,
					   "job %d started at %lld after its "
					   "reservation at %lld",
					   j, (long long)run->start[j],
					   (long long)run->first_shadow[j]);
			goto out;
		}
		sp[m].start = run->start[j];
		sp[m].end = run->end[j];
		sp[m++].j = j;
	}
	qsort(sp, m, sizeof(span_t), _cmp_span);
	for (int i = 0; i < m; i++) {
		int j = sp[i].j;
		const int *nodes = run->pool + run->node_off[j];

		for (int q = 0; q < w->jobs[j].nodes; q++) {
			int v = nodes[q];

			if (free_at[v] > sp[i].start) {
				rc = loc_error_set(err, LOC_EINVAL, NULL, 0,
						   "node %d held by two jobs "
						   "at time %lld (job %d)",
						   v, (long long)sp[i].start,
						   j);
				goto out;
			}
			free_at[v] = sp[i].end;
		}
	}
out:
	free(sp);
	free(free_at);
	free(seen);
	return rc;
}
