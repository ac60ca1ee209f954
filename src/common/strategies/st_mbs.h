/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mbs.h - internals of the Multiple Buddy Strategy (seed 001, Lo et
 * al.): its state, shared with st_mbs_one.c, and the initial blocks,
 * exposed for tests. Not installed, not used by drivers.
 */
#ifndef LOC_ST_MBS_H
#define LOC_ST_MBS_H

#include "loc_ctx.h"
#include "loc_grid.h"

/* Levels are block sides 2^0 .. 2^(MBS_MAX_LEVEL); index 0 of the lists
 * holds single nodes ("level -1"). */
#define MBS_MAX_LEVEL 30
#define MBS_NLISTS (MBS_MAX_LEVEL + 2)

typedef struct mbs_state {
	int ne;                  /* dimensions longer than 1 */
	int edim[LOC_MAX_DIMS];  /* their grid dimension numbers */
	int branch;              /* 2^ne buddies per block */
	int npoints, nnodes, npp;
	int maxlevel;            /* level of the largest initial block */
	int ninit;
	int *init_rank;          /* first canonical rank per initial block */
	int *init_level;
	int *canon_point;        /* canonical rank -> point */
	int *canon_rank;         /* point -> canonical rank */
	uint8_t *full;           /* per call: rank -> point wholly free */
	int *list[MBS_NLISTS];   /* sorted FBR lists (ranks; nodes at 0) */
	int cap[MBS_NLISTS];
	int head[MBS_NLISTS];
	int len[MBS_NLISTS];
	long long req[MBS_NLISTS];
	int pow[MBS_MAX_LEVEL + 1]; /* branch^level: points in a block */
} mbs_state_t;

/*
 * k = 1 without building the free block records: the first single node
 * (several nodes per point) or level-0 block (one) in canonical order
 * that the records would list, when there is one. Sets *node and
 * returns true, or returns false when the request must come from a
 * larger block (the general path then serves it). In st_mbs_one.c.
 */
bool loc__mbs_one(loc__ctx_t *ctx, const mbs_state_t *s, int *node);

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
