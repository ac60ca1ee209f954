/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_select.h - helpers shared by the unit tests of the MBS and box
 * strategies and of the walltime modes (test_loc_strategy_mbs.c,
 * test_loc_strategy_box.c, test_loc_walltime.c): an allocator for one
 * strategy and walltime mode, the node at a 2-D point, and a plain
 * k-node select. Header-only (static functions), like loc_test_util.h;
 * include after <cmocka.h>.
 */
#ifndef LOC_TEST_SELECT_H
#define LOC_TEST_SELECT_H

#include <stdint.h>

#include "loc_grid.h"
#include "loc_strategy.h"

/* An allocator with the given strategy and walltime mode, other policy
 * keys at their defaults; fails the test when it cannot be made. */
static inline loc_alloc_t *make_alloc(const loc_grid_t *g, int strategy,
				      int wt)
{
	loc_policy_t pol;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&pol);
	pol.strategy = strategy;
	pol.walltime = wt;
	a = loc_alloc_create(g, &pol, &err);
	if (!a)
		fail_msg("cannot create allocator: %s", err.text);
	return a;
}

/* Node at 2-D point (x, y) of a row-major grid with one node per point
 * (x is dimension 0, the paper's first coordinate). */
static inline int n2(const loc_grid_t *g, int x, int y)
{
	return x * loc_grid_shape(g)->dims[1] + y;
}

/* Selects k nodes among cand into out; returns loc_alloc_select's code. */
static inline int select_k(loc_alloc_t *a, const uint8_t *cand, int k,
			   int *out)
{
	loc_request_t req = { .nodes = k };
	loc_view_t view = { .candidate = cand };
	loc_error_t err;

	return loc_alloc_select(a, &req, &view, out, &err);
}

#endif /* LOC_TEST_SELECT_H */
