/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_shells.h - the Chebyshev shell table of MC1x1 (seed 003, Bender et
 * al.), for st_mc1x1.c, which gathers a centre's nodes shell by shell;
 * the calls mm and pack share are declared in loc_strategy_internal.h.
 * Not installed, not used by drivers.
 */
#ifndef LOC_ST_SHELLS_H
#define LOC_ST_SHELLS_H

#include "loc_strategy_internal.h"

struct loc__shells {
	int nd;
	int len[LOC_MAX_DIMS];
	bool torus[LOC_MAX_DIMS];
	int ext[LOC_MAX_DIMS];     /* table extent (without the zero pad) */
	long tstride[LOC_MAX_DIMS];
	int pstride[LOC_MAX_DIMS]; /* grid point strides */
	int *coord;                /* [npoints * nd] */
	int32_t *sum;              /* [prod(ext + 1)] prefix sums */
	long nsum;
	int *active;               /* [npoints] rank(): centres still open */
	int64_t *partial;          /* [npoints] rank(): sum of B(j), j < s */
	int64_t *moment;           /* 1-D only [ext + 1]: prefix of x * count */
};

/* Returns the least shell radius s at which the free nodes within
 * Chebyshev distance s of point reach k (k at most the loaded total). */
int loc__shells_radius(const loc__shells_t *sh, int point, int k);

#endif /* LOC_ST_SHELLS_H */
