/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mbs.h - internals of the Multiple Buddy Strategy (seed 001, Lo et
 * al.) exposed for tests. Not installed, not used by drivers.
 */
#ifndef LOC_ST_MBS_H
#define LOC_ST_MBS_H

#include "loc_grid.h"

/*
 * Computes the MBS initial-block decomposition of grid (seed 001 sec.
 * 3.3.1): non-overlapping cubes of side 2^i over the dimensions longer
 * than 1, largest first, in the order MBS lists them (the corner tiles,
 * then the remainder slabs one dimension at a time, dimension 0 varying
 * fastest). Writes up to max blocks: origin[i] (lowest coordinates;
 * dimensions of size 1 are 0) and side[i].
 * Returns the total number of initial blocks (may exceed max), or
 * LOC_ENOMEM.
 */
int loc__mbs_initial_blocks(const loc_grid_t *grid, loc_coord_t *origin,
			    int *side, int max);

#endif /* LOC_ST_MBS_H */
