/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_mm.h - what the Manhattan Median family's internal tests
 * share: grid shapes from 1-D to 4-D, mesh and torus, one too large for
 * the padded copy; an mm state on a grid; random free counts loaded the
 * way a decision loads them.
 */
#ifndef LOC_TEST_MM_H
#define LOC_TEST_MM_H

#include "strategies/st_mm.h"
#include "loc_test_util.h"
#include "loc_strategy_ops.h"

typedef struct tm_shape {
	int ndims;
	int dims[LOC_MAX_DIMS];
	bool torus;
	bool padded; /* the copy fits MM_PAD_MAX */
} tm_shape_t;

static const tm_shape_t tm_shapes[] = {
	{ 1, { 11 }, true, true },       { 1, { 9 }, false, true },
	{ 2, { 6, 6 }, true, true },     { 2, { 9, 4 }, false, true },
	{ 2, { 1, 9 }, true, true },     { 2, { 7, 1 }, false, true },
	{ 3, { 4, 4, 3 }, true, true },  { 3, { 3, 4, 5 }, false, true },
	{ 3, { 8, 2, 5 }, true, true },  { 4, { 2, 3, 2, 3 }, true, true },
	{ 4, { 3, 2, 3, 2 }, false, true },
	/* 13^4 / 5^4 = 46 bytes a point: walked through the tables. */
	{ 4, { 5, 5, 5, 5 }, false, false },
};

#define TM_NSHAPES (int)(sizeof(tm_shapes) / sizeof(tm_shapes[0]))

static inline loc__mm_t *tm_state(const loc_grid_t *g)
{
	loc_policy_t policy;
	loc_error_t err;
	void *st = NULL;

	loc_policy_init(&policy);
	assert_int_equal(loc__st_mm.init(g, NULL, &policy, &st, &err), 0);
	return st;
}

/* Random free counts (about a third of the points empty), and the byte
 * and padded copies the walk reads. Returns the free nodes. */
static inline int tm_load(loc__mm_t *st, uint64_t *rs)
{
	int nfree = 0;

	for (int p = 0; p < st->npoints; p++) {
		st->point_free[p] = tu_below(rs, 3) ?
					    tu_below(rs, st->npp + 1) : 0;
		nfree += st->point_free[p];
	}
	if (!st->pad)
		return nfree;
	for (int p = 0; p < st->npoints; p++)
		st->pf8[p] = (uint8_t)st->point_free[p];
	loc__mm_fill_pad(st);
	return nfree;
}

#endif
