/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_curve.h - orderings of a grid's nodes (space-filling curves).
 *
 * A curve ranks the points of a grid 0..npoints-1; nodes take their
 * point's place, nodes sharing a point in ascending node order, so node
 * ranks run 0..nnodes-1 with no gaps (points without nodes are skipped).
 * Seeds 000 and 002 (Leung et al.) are the source of the 1-D reduction.
 */
#ifndef LOC_CURVE_H
#define LOC_CURVE_H

#include "loc_error.h"
#include "loc_grid.h"

typedef enum loc_curve_kind {
	LOC_CURVE_HILBERT = 0, /* generalised Hilbert, any box size */
	LOC_CURVE_SNAKE,       /* boustrophedon row-major */
	LOC_CURVE_ROWMAJOR,    /* plain row-major (Slurm's node order) */
	LOC_CURVE_COUNT
} loc_curve_kind_t;

typedef struct loc_curve loc_curve_t;

/* Returns the kind named by name (case-insensitive), or -1. */
int loc_curve_kind_parse(const char *name);

/* Returns the canonical lower-case name of kind ("hilbert", ...). */
const char *loc_curve_kind_name(loc_curve_kind_t kind);

/*
 * Builds kind's ordering over grid (borrowed: must outlive the curve).
 * Returns the curve, or NULL with err filled. Free with loc_curve_destroy().
 */
loc_curve_t *loc_curve_create(const loc_grid_t *grid, loc_curve_kind_t kind,
			      loc_error_t *err);

/* Frees curve; accepts NULL. */
void loc_curve_destroy(loc_curve_t *curve);

/* Returns the curve's kind and its grid. */
loc_curve_kind_t loc_curve_kind(const loc_curve_t *curve);
const loc_grid_t *loc_curve_grid(const loc_curve_t *curve);

/* Returns the rank (0..nnodes-1) of node. */
int loc_curve_rank(const loc_curve_t *curve, int node);

/* Returns the node at rank (0..nnodes-1). */
int loc_curve_node(const loc_curve_t *curve, int rank);

/* Returns borrowed arrays: rank->node and node->rank, each nnodes long. */
const int *loc_curve_order(const loc_curve_t *curve);
const int *loc_curve_ranks(const loc_curve_t *curve);
/* node->rank in 16 bits (half the bytes for a pass over every node), or
 * NULL past 65,536 nodes. */
const uint16_t *loc_curve_ranks16(const loc_curve_t *curve);

/*
 * Computes the point order of kind over the whole grid (every point,
 * populated or not) into order[npoints]. Exposed for tests and for the
 * curve-quality figure. Returns 0 or a LOC_E* code.
 */
int loc_curve_point_order(const loc_grid_t *grid, loc_curve_kind_t kind,
			  int *order, loc_error_t *err);

/*
 * Curve quality from seeds 000/002: sum over rank gaps g = 1..max_gap of
 * w(g) * (sum over point pairs whose ranks differ by g of their hop
 * distance), with w(g) = 2^-(g-1). Lower is better. Computed over points.
 * Returns the figure (>= 0).
 */
double loc_curve_quality(const loc_grid_t *grid, const int *point_order,
			 int max_gap);

/* Returns the number of consecutive point pairs (rank r, r+1) that are more
 * than one hop apart: 0 means the curve is continuous. */
int loc_curve_breaks(const loc_grid_t *grid, const int *point_order);

#endif /* LOC_CURVE_H */
