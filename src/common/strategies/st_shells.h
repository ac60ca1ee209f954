/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_shells.h - the Chebyshev shell table of MC1x1 (seed 003, Bender et
 * al.): the ranking of centres by shell cost that st_mc1x1.c, st_pack.c
 * and st_mm_rank.c share, and the table itself, for st_mc1x1.c, which
 * gathers a centre's nodes shell by shell. Not installed, not used by
 * drivers.
 */
#ifndef LOC_ST_SHELLS_H
#define LOC_ST_SHELLS_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_grid.h"

/*
 * Chebyshev shells (seed 003 MC1x1) over per-point free counts, shared by
 * st_mc1x1.c, st_pack.c and st_mm_rank.c (which ranks candidate medians
 * by shell cost before evaluating the best ones exactly). In st_shells.c
 * (the table itself in st_shells.h).
 * loc__shells_create() returns NULL when out of memory; load() takes
 * point_free[npoints] (borrowed for the call). rank() finds the m points
 * of points[0..n) (distinct) with the least MC1x1 cost of k nodes around
 * them (ties: earlier in points first), writes them best first to
 * best[0..m) and returns how many (min(m, n)); k must not exceed the
 * loaded total. rank_push() keeps the m least (cost, idx) of a stream in
 * the heap h[0..*n) (room for m) and rank_sort() orders them best first,
 * for rankings by other costs.
 */
typedef struct loc__shells loc__shells_t;
typedef struct loc__shell_rank {
	int64_t cost;
	int idx; /* index into points */
} loc__shell_rank_t;
loc__shells_t *loc__shells_create(const loc_grid_t *grid);
void loc__shells_destroy(loc__shells_t *sh);
void loc__shells_load(loc__shells_t *sh, const int *point_free);
int loc__shells_rank(loc__shells_t *sh, const int *points, int n, int k,
		     int m, loc__shell_rank_t *best);
void loc__shells_rank_push(loc__shell_rank_t *h, int *n, int m, int64_t cost,
			   int idx);
void loc__shells_rank_sort(loc__shell_rank_t *h, int n);

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
