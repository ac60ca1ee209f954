/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_grid.h - the machine model: a 1-4 dimensional mesh/torus of points,
 * each holding up to nodes_per_point nodes, and the node <-> point map.
 *
 * Nodes are numbered 0..nnodes-1 in the driver's order (Slurm's node
 * table order, or a trace's node numbering). Points are numbered in
 * row-major order with dimension 0 varying slowest:
 *   point = ((c0 * dims[1]) + c1) * dims[2] + c2 ...
 * Nodes at the same point are 0 hops apart.
 */
#ifndef LOC_GRID_H
#define LOC_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_error.h"

#define LOC_MAX_DIMS 4
#define LOC_NONE (-1) /* "no node / no point / no rank" sentinel */

typedef struct loc_coord {
	int c[LOC_MAX_DIMS];
} loc_coord_t;

/* The shape of a machine: copied by loc_grid_create(). */
typedef struct loc_shape {
	int ndims;                 /* 1..LOC_MAX_DIMS */
	int dims[LOC_MAX_DIMS];    /* size of each dimension, >= 1 */
	bool torus[LOC_MAX_DIMS];  /* wraparound per dimension */
	int nodes_per_point;       /* >= 1 */
} loc_shape_t;

typedef struct loc_grid loc_grid_t;

/*
 * Creates a grid of shape for nnodes nodes, mapped row-major by default
 * (node i at point i / nodes_per_point). nnodes may be smaller than the
 * capacity (npoints * nodes_per_point), never larger.
 * Returns the grid, or NULL with err filled (bad shape, overflow, too many
 * nodes). Free with loc_grid_destroy().
 */
loc_grid_t *loc_grid_create(const loc_shape_t *shape, int nnodes,
			    loc_error_t *err);

/* Frees grid; accepts NULL. */
void loc_grid_destroy(loc_grid_t *grid);

/*
 * Overrides node's point (explicit coordinates). Call for any subset of
 * nodes, then loc_grid_finalize() before use.
 * Returns 0, or LOC_ERANGE (coordinate outside the shape, bad node).
 */
int loc_grid_set_node_coord(loc_grid_t *grid, int node,
			    const loc_coord_t *coord, loc_error_t *err);

/*
 * Checks the mapping (no point holds more than nodes_per_point nodes) and
 * builds the point -> nodes index. Must be called after the last
 * loc_grid_set_node_coord() and before any query below; loc_grid_create()
 * leaves a finalized row-major grid, so it is needed only after overrides.
 * Returns 0, or LOC_EEXIST naming the first over-full point and its nodes.
 */
int loc_grid_finalize(loc_grid_t *grid, loc_error_t *err);

/* Shape queries. Each returns the value; no errors. */
const loc_shape_t *loc_grid_shape(const loc_grid_t *grid);
int loc_grid_nnodes(const loc_grid_t *grid);
int loc_grid_npoints(const loc_grid_t *grid);
int loc_grid_ndims(const loc_grid_t *grid);

/* Returns node's point index. */
int loc_grid_node_point(const loc_grid_t *grid, int node);

/* Returns the number of nodes at point and sets *nodes to them (borrowed,
 * ascending node order, valid while grid lives). */
int loc_grid_point_nodes(const loc_grid_t *grid, int point, const int **nodes);

/* Fills coord with point's coordinates (unused dimensions are 0). */
void loc_grid_point_coord(const loc_grid_t *grid, int point, loc_coord_t *coord);

/* Fills coord with node's coordinates. */
void loc_grid_node_coord(const loc_grid_t *grid, int node, loc_coord_t *coord);

/* Returns the point at coord (coordinates are wrapped on torus dimensions),
 * or LOC_NONE when coord lies outside a mesh dimension. */
int loc_grid_point_at(const loc_grid_t *grid, const loc_coord_t *coord);

/* Returns the hop distance along dimension d between coordinates a and b
 * (|a-b| on a mesh, min(|a-b|, L-|a-b|) on a torus). */
int loc_grid_axis_hops(const loc_grid_t *grid, int d, int a, int b);

/* Returns the L1 (torus-aware) hop distance between two points. */
int loc_grid_point_hops(const loc_grid_t *grid, int pa, int pb);

/* Returns the hop distance between two nodes (0 when they share a point). */
int loc_grid_node_hops(const loc_grid_t *grid, int a, int b);

/* Returns true when every dimension wraps (the curve then closes into a
 * ring, so 1-D strategies use ring span). */
bool loc_grid_all_torus(const loc_grid_t *grid);

/* Returns the largest possible hop distance between two points. */
int loc_grid_diameter(const loc_grid_t *grid);

/*
 * Fills neighbors (room for 2 * LOC_MAX_DIMS) with the distinct points one
 * hop from point. Returns their count.
 */
int loc_grid_point_neighbors(const loc_grid_t *grid, int point, int *neighbors);

/* Formats the shape as e.g. "8x8x4 torus,torus,mesh npp=1" into buf.
 * Returns buf. */
const char *loc_grid_describe(const loc_grid_t *grid, char *buf, int len);

/* Test/debug self-check of internal consistency. Returns 0 or LOC_EINVAL. */
int loc_grid_selfcheck(const loc_grid_t *grid);

#endif /* LOC_GRID_H */
