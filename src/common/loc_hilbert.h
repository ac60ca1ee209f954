/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_hilbert.h - generalised Hilbert order for grids of any size.
 *
 * Seed 000 (Leung et al.) orders the machine along a Hilbert curve; this
 * module extends that curve to boxes whose sides are not powers of two by
 * recursive splitting in the spirit of the "generalized Hilbert" idea:
 * every sub-box is walked from one corner to the corner next to it along
 * its longest (major) side, and the split points are chosen so that every
 * sub-box can be walked with unit steps. The result has no step longer
 * than one hop on every 1-, 2- and 3-dimensional shape.
 *
 * 4-D grids: the first three dimensions follow the 3-D curve and the
 * fourth (fastest) dimension is walked as a line at each of those points,
 * alternating direction (a snake), so the curve stays continuous.
 */
#ifndef LOC_HILBERT_H
#define LOC_HILBERT_H

#include "loc_error.h"
#include "loc_grid.h"

/*
 * Fills order[npoints] (npoints = product of shape->dims) with the point
 * indices of a grid of shape (row-major numbering, see loc_grid.h) in
 * generalised Hilbert order. Only ndims and dims are read.
 * Returns 0, or LOC_EINVAL (bad shape, NULL order) with err filled.
 */
int loc__hilbert_order(const loc_shape_t *shape, int *order, loc_error_t *err);

/*
 * Returns true when the recursion can walk a box of w x h x d points from
 * the corner (0,0,0) to (w-1,0,0) with unit steps (w is the major side).
 * Exposed for tests.
 */
bool loc__hilbert_walkable(int w, int h, int d);

#endif /* LOC_HILBERT_H */
