/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_ideal.c - the ideal placement of k nodes on the idle machine (see
 * loc_ideal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_ideal.h"
#include "loc_metrics.h"

/* The strategies whose best set on the idle machine is the ideal: the
 * ones that search for the least pairwise hops (the same four as
 * bench/live-bench.sh). */
static const loc_strategy_kind_t _ideal_strategies[] = {
	LOC_STRATEGY_MM_INC,
	LOC_STRATEGY_MC1X1,
	LOC_STRATEGY_BOX,
	LOC_STRATEGY_SPAN,
};
#define IDEAL_NSTRATEGIES \
	((int)(sizeof(_ideal_strategies) / sizeof(_ideal_strategies[0])))

#define IDEAL_UNKNOWN (-1) /* a size not computed yet */

struct loc_ideal {
	const loc_grid_t *grid;
	int nnodes;
	loc_alloc_t *alloc[IDEAL_NSTRATEGIES];
	uint8_t *all;		/* every node a candidate: the idle machine */
	int *out;		/* one placement */
	int64_t *total_hops;	/* per size 0..nnodes, or IDEAL_UNKNOWN */
};

loc_ideal_t *loc_ideal_create(const loc_grid_t *grid,
			      const loc_policy_t *policy, loc_error_t *err)
{
	loc_ideal_t *ideal = calloc(1, sizeof(*ideal));
	loc_policy_t pol;
	int n = loc_grid_nnodes(grid);

	if (!ideal) {
		loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	ideal->grid = grid;
	ideal->nnodes = n;
	ideal->all = malloc((size_t)n + 1);
	ideal->out = malloc(sizeof(int) * ((size_t)n + 1));
	ideal->total_hops = malloc(sizeof(int64_t) * ((size_t)n + 1));
	if (!ideal->all || !ideal->out || !ideal->total_hops) {
		loc_ideal_destroy(ideal);
		loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	memset(ideal->all, 1, (size_t)n + 1);
	for (int k = 0; k <= n; k++)
		ideal->total_hops[k] = IDEAL_UNKNOWN;
	if (policy)
		pol = *policy;
	else
		loc_policy_init(&pol);
	/* placement alone: no walltime tie-breaks, no waiting */
	pol.walltime = LOC_WALLTIME_NONE;
	pol.compact_wait = 0;
	for (int s = 0; s < IDEAL_NSTRATEGIES; s++) {
		pol.strategy = _ideal_strategies[s];
		ideal->alloc[s] = loc_alloc_create(grid, &pol, err);
		if (!ideal->alloc[s]) {
			loc_ideal_destroy(ideal);
			return NULL;
		}
	}
	return ideal;
}

void loc_ideal_destroy(loc_ideal_t *ideal)
{
	if (!ideal)
		return;
	for (int s = 0; s < IDEAL_NSTRATEGIES; s++)
		loc_alloc_destroy(ideal->alloc[s]);
	free(ideal->all);
	free(ideal->out);
	free(ideal->total_hops);
	free(ideal);
}

int64_t loc_ideal_total_pair_hops(loc_ideal_t *ideal, int k,
				  loc_error_t *err)
{
	loc_request_t req = { .nodes = k };
	loc_view_t view = { .candidate = ideal->all };
	int64_t best = -1;

	if (k < 1 || k > ideal->nnodes)
		return loc_error_set(err, LOC_ERANGE, NULL, 0,
				     "no ideal for %d nodes on a machine of "
				     "%d", k, ideal->nnodes);
	if (ideal->total_hops[k] != IDEAL_UNKNOWN)
		return ideal->total_hops[k];
	for (int s = 0; s < IDEAL_NSTRATEGIES; s++) {
		loc_error_t e = { 0 };
		int rc = loc_alloc_select(ideal->alloc[s], &req, &view,
					  ideal->out, &e);
		int64_t hops;

		/* box has no box for some sizes: the others still place */
		if (rc == LOC_ENOFIT)
			continue;
		if (rc) {
			if (err)
				*err = e;
			return rc;
		}
		hops = loc_metrics_total_pair_hops(ideal->grid, ideal->out, k);
		if (hops < 0)
			return loc_error_set(err, (int)hops, NULL, 0,
					     "pairwise hops of %d nodes "
					     "failed", k);
		if (best < 0 || hops < best)
			best = hops;
	}
	/* span places any k on the idle machine, so some strategy did */
	if (best < 0)
		return loc_error_set(err, LOC_ENOFIT, NULL, 0,
				     "no strategy placed %d nodes on the idle "
				     "machine", k);
	ideal->total_hops[k] = best;
	return best;
}

double loc_ideal_avg_pair_hops(loc_ideal_t *ideal, int k, loc_error_t *err)
{
	int64_t total = loc_ideal_total_pair_hops(ideal, k, err);

	if (total < 0)
		return (double)total;
	return loc_metrics_pair_mean(total, k);
}
