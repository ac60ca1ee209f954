/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_box.h - what the two files of the box strategy's general search
 * share: its constants, the shapes, the workspace and its prefix-sum
 * tables. Not installed, not used by drivers.
 *
 *   st_box.c     shapes, placements and offers; the strategy's entry
 *                points
 *   st_box_ws.c  the workspace and its prefix sums over candidate counts
 *
 * The one-node paths (st_box_one.c, st_box_index.c) do without these
 * tables; see st_one.h.
 */
#ifndef LOC_ST_BOX_H
#define LOC_ST_BOX_H

#include "st_one.h"


#define BOX_MAX_SHAPES 64 /* most compact shapes tried per request */
#define BOX_GROUP_REF 6   /* equally compact shapes used as blockers */
#define BOX_DOUBLE_REF 3  /* shapes of twice the size used as blockers */
#define BOX_CHUNK 6       /* shapes scanned together */
#define BOX_MAX_REF (BOX_GROUP_REF + BOX_DOUBLE_REF)

typedef struct box_shape {
	int e[LOC_MAX_DIMS];
	double pair_hops; /* of a full box of points of this shape */
} box_shape_t;

typedef struct box_ws {
	const loc_grid_t *grid;
	int nd, npoints, nnodes, npp;
	int dims[LOC_MAX_DIMS];
	bool torus[LOC_MAX_DIMS];
	int stride[LOC_MAX_DIMS];  /* grid point strides */
	int ext[LOC_MAX_DIMS];     /* extended length: 2L torus, L mesh */
	int pstride[LOC_MAX_DIMS]; /* prefix array strides (ext + 1) */
	size_t psize;
	int *coord;     /* [npoints * nd] point coordinates */
	int *cnt;       /* [npoints] candidate nodes per point */
	int *pre;       /* candidate count prefix sums */
	int *rpre;      /* free-origin prefix sums of one blocker shape */
	uint8_t *rfree; /* [npoints] free origins of one blocker shape */
	int *acc;       /* [BOX_CHUNK * npoints] destroyed boxes */
	int *list;      /* [BOX_CHUNK * npoints] feasible placements */
	int *sorted;    /* [BOX_CHUNK * npoints] the same, by cost */
	int *bucket;    /* counting sort buckets */
	int nbucket;
	int *nodes;     /* [nnodes] placement being offered */
	box_shape_t shape[BOX_MAX_SHAPES];
	int nshapes;
	box_shape_t dbl[BOX_DOUBLE_REF];
	int ndbl;
	loc__box_index_t *one; /* one-node index kept between decisions
				* (st_box_index.c), built on first use */
} box_ws_t;

/* The workspace of a grid, or NULL when out of memory. In st_box_ws.c. */
box_ws_t *loc__box_ws_create(const loc_grid_t *grid);
void loc__box_ws_destroy(void *state);

/* Builds inclusive-exclusive prefix sums of the per-point values (ival,
 * else bval; periodic on torus dimensions) into pre. In st_box_ws.c. */
void loc__box_prefix(const box_ws_t *w, const int *ival,
		     const uint8_t *bval, int *pre);

/* Sum over the extended box [lo, lo + len) (each within ext). In
 * st_box_ws.c. */
int loc__box_query(const box_ws_t *w, const int *pre, const int *lo,
		   const int *len);

#endif /* LOC_ST_BOX_H */
