/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_geo.h - helpers of the geometric strategies' tests
 * (test_loc_strategy_geo.c, test_loc_strategy_mc1x1.c): grid shapes, an
 * allocator for a strategy, and a checked placement with its cost.
 * Include after <cmocka.h> and loc_test_util.h.
 */
#ifndef LOC_TEST_GEO_H
#define LOC_TEST_GEO_H

#include <stdbool.h>

#include "loc_strategy.h"

typedef struct shape_case {
	int ndims;
	int dims[4];
	bool torus;
} shape_case_t;

static inline loc_alloc_t *make_alloc(const loc_grid_t *g,
				      loc_strategy_kind_t kind,
				      int max_centers, bool sl)
{
	loc_policy_t pol;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&pol);
	pol.strategy = kind;
	pol.mm_max_centers = max_centers;
	if (sl) {
		pol.walltime = LOC_WALLTIME_SL;
		pol.sl_tolerance = 0.25;
	}
	a = loc_alloc_create(g, &pol, &err);
	if (!a)
		fail_msg("cannot create %s allocator: %s",
			 loc_strategy_kind_name(kind), err.text);
	return a;
}

/* Selects k nodes; asserts success and a valid placement. */
static inline int64_t place(loc_alloc_t *a, const loc_grid_t *g,
			    const uint8_t *cand, const int64_t *until, int k,
			    int *out)
{
	loc_view_t view = { .candidate = cand, .busy_until = until,
			    .now = 1000 };
	loc_request_t req = { .nodes = k, .expected_end = until ? 1500 : 0 };
	loc_error_t err;
	int n = loc_grid_nnodes(g), rc;

	rc = loc_alloc_select(a, &req, &view, out, &err);
	if (rc)
		fail_msg("%s: k=%d failed: %s",
			 loc_strategy_kind_name(loc_alloc_policy(a)->strategy),
			 k, err.text);
	tu_assert_placement(cand, n, out, k);
	return loc_metrics_total_pair_hops(g, out, k);
}

#endif
