/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_one.h - one-node (k = 1) short paths of the geometric strategies,
 * each giving exactly what the strategy's general search gives (see
 * st_one.c). Not installed, not used by drivers.
 */
#ifndef LOC_ST_ONE_H
#define LOC_ST_ONE_H

#include "loc_ctx.h"

/*
 * Whether one-node requests take the short paths (true) or the general
 * searches; unit tests turn it off to compare the two.
 */
extern bool loc__fast_one;

/* The first free node at or after from in the 0/1 byte map f[0..n), eight
 * bytes at a time, or n. */
int loc__one_next_free(const uint8_t *f, int from, int n);

/* mc1x1 with k = 1: offers what its search offers. Returns as a select. */
int loc__one_mc1x1(loc__ctx_t *ctx);

/* box with k = 1: offers what st_box.c's search offers. cnt and acc
 * are [npoints] ints of room. Returns as a select. In st_box_one.c. */
int loc__one_box(loc__ctx_t *ctx, int *cnt, int *acc);

/* ---- loc__one_box() in parts, for updating counts point by point --- */

#define LOC__BOX_ONE_DOMINOES 3 /* as BOX_DOUBLE_REF in st_box.h */

/* What a point's blocking count depends on: the domino dimensions (the
 * first three longer than 1, none on a one-point grid) and the cost
 * scale. */
typedef struct loc__box_one_geo {
	int stride[LOC_MAX_DIMS];               /* grid point strides */
	int ndom;                               /* domino dimensions */
	int dom[LOC__BOX_ONE_DOMINOES];         /* ... which ones */
	int len[LOC__BOX_ONE_DOMINOES];         /* ... their lengths */
	int dstride[LOC__BOX_ONE_DOMINOES];     /* ... their strides */
	bool torus[LOC__BOX_ONE_DOMINOES];      /* ... wrapping (length > 1) */
	double scale;                           /* cost = count / scale */
} loc__box_one_geo_t;

void loc__box_one_geo(const loc_grid_t *grid, loc__box_one_geo_t *geo);

/* Fills cnt[npoints] (candidates per point) and acc[npoints] (blocking
 * count, 0 for a point without a candidate) from ctx->free in one pass,
 * and when full is not NULL full[npoints] (the dominoes holding two
 * candidates that contain the point, for every point); returns the
 * largest count (0 when there is no candidate). */
int loc__box_one_count(const loc__ctx_t *ctx, const loc__box_one_geo_t *geo,
		       int *cnt, int *acc, uint8_t *full);

/* Offers the lowest candidate node of point p at cost. */
int loc__box_one_offer(loc__ctx_t *ctx, int p, double cost);

/*
 * box with k = 1 from an index kept between decisions (st_box_index.c):
 * creates *index on first use, brings it up to date with ctx->free, then
 * offers exactly what loc__one_box() offers. Falls back to loc__one_box()
 * (with cnt and acc as room) when the index cannot be allocated.
 */
typedef struct loc__box_index loc__box_index_t;
int loc__box_index_one(loc__box_index_t **index, loc__ctx_t *ctx, int *cnt,
		       int *acc);
void loc__box_index_destroy(loc__box_index_t *index);

/* Whether loc__box_index_one() uses the index (true) or the full pass
 * every time; unit tests turn it off to compare the two. */
extern bool loc__box_one_indexed;

#endif /* LOC_ST_ONE_H */
