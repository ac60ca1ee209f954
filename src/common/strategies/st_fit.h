/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_fit.h - the fits' least-span window search over vectors
 * (st_fit_simd.c), for st_fit.c.
 */
#ifndef LOC_ST_FIT_H
#define LOC_ST_FIT_H

#include "loc_simd.h"

/*
 * The least last[i] + add - first[i] over i in [from, to), with the
 * vectors of level (at most loc__simd_level()); INT_MAX when from >= to.
 * The differences must fit in an int.
 */
int loc__fit_least_arc(const int *first, const int *last, int add, int from,
		       int to, loc_simd_t level);

#endif
