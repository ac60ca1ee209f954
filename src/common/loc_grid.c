/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_grid.c - the machine model: points, nodes and hop distances.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_grid.h"

struct loc_grid {
	loc_shape_t shape;
	int npoints;
	int nnodes;
	int stride[LOC_MAX_DIMS]; /* row-major strides, dim 0 slowest */
	int *node_point;          /* [nnodes] */
	int *point_start;         /* [npoints + 1] offsets into point_node */
	int *point_node;          /* [nnodes] nodes grouped by point */
	int *coord;               /* [npoints * ndims] cached coordinates */
	bool finalized;
};

static int _grid_check_shape(const loc_shape_t *shape, int nnodes,
			     long long *npoints, loc_error_t *err)
{
	long long n = 1;

	if (!shape || shape->ndims < 1 || shape->ndims > LOC_MAX_DIMS)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "grid needs 1 to %d dimensions",
				     LOC_MAX_DIMS);
	for (int d = 0; d < shape->ndims; d++) {
		if (shape->dims[d] < 1)
			return loc_error_set(err, LOC_EINVAL, NULL, 0,
					     "dimension %d has size %d (must be >= 1)",
					     d, shape->dims[d]);
		n *= shape->dims[d];
		if (n > (1LL << 26))
			return loc_error_set(err, LOC_ERANGE, NULL, 0,
					     "grid has more than %lld points",
					     1LL << 26);
	}
	if (shape->nodes_per_point < 1 || shape->nodes_per_point > 65536)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "NodesPerPoint=%d is out of range 1-65536",
				     shape->nodes_per_point);
	if (nnodes < 1)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "a grid needs at least one node");
	if ((long long)nnodes > n * shape->nodes_per_point)
		return loc_error_set(err, LOC_ERANGE, NULL, 0,
				     "%d nodes do not fit a grid of %lld points with %d nodes per point",
				     nnodes, n, shape->nodes_per_point);
	*npoints = n;
	return 0;
}

loc_grid_t *loc_grid_create(const loc_shape_t *shape, int nnodes,
			    loc_error_t *err)
{
	long long npoints = 0;
	loc_grid_t *g;

	if (_grid_check_shape(shape, nnodes, &npoints, err))
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		goto nomem;
	g->shape = *shape;
	for (int d = shape->ndims; d < LOC_MAX_DIMS; d++) {
		g->shape.dims[d] = 1;
		g->shape.torus[d] = false;
	}
	g->npoints = (int)npoints;
	g->nnodes = nnodes;
	g->stride[LOC_MAX_DIMS - 1] = 1;
	for (int d = LOC_MAX_DIMS - 2; d >= 0; d--)
		g->stride[d] = g->stride[d + 1] * g->shape.dims[d + 1];
	g->node_point = malloc(sizeof(int) * nnodes);
	g->point_start = malloc(sizeof(int) * (npoints + 1));
	g->point_node = malloc(sizeof(int) * nnodes);
	g->coord = malloc(sizeof(int) * npoints * shape->ndims);
	if (!g->node_point || !g->point_start || !g->point_node || !g->coord)
		goto nomem;
	for (int p = 0; p < g->npoints; p++)
		for (int d = 0; d < shape->ndims; d++)
			g->coord[p * shape->ndims + d] =
				(p / g->stride[d]) % g->shape.dims[d];
	for (int i = 0; i < nnodes; i++)
		g->node_point[i] = i / shape->nodes_per_point;
	if (loc_grid_finalize(g, err)) {
		loc_grid_destroy(g);
		return NULL;
	}
	return g;
nomem:
	loc_grid_destroy(g);
	loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory creating grid");
	return NULL;
}

void loc_grid_destroy(loc_grid_t *grid)
{
	if (!grid)
		return;
	free(grid->node_point);
	free(grid->point_start);
	free(grid->point_node);
	free(grid->coord);
	free(grid);
}

int loc_grid_set_node_coord(loc_grid_t *grid, int node,
			    const loc_coord_t *coord, loc_error_t *err)
{
	int p = 0;

	if (node < 0 || node >= grid->nnodes)
		return loc_error_set(err, LOC_ERANGE, NULL, 0,
				     "node index %d is outside 0-%d", node,
				     grid->nnodes - 1);
	for (int d = 0; d < grid->shape.ndims; d++) {
		if (coord->c[d] < 0 || coord->c[d] >= grid->shape.dims[d])
			return loc_error_set(err, LOC_ERANGE, NULL, 0,
					     "coordinate %d of dimension %d is outside 0-%d",
					     coord->c[d], d,
					     grid->shape.dims[d] - 1);
		p += coord->c[d] * grid->stride[d];
	}
	grid->node_point[node] = p;
	grid->finalized = false;
	return 0;
}

int loc_grid_finalize(loc_grid_t *grid, loc_error_t *err)
{
	int *count = grid->point_start;

	memset(count, 0, sizeof(int) * (grid->npoints + 1));
	for (int i = 0; i < grid->nnodes; i++)
		count[grid->node_point[i] + 1]++;
	for (int p = 0; p < grid->npoints; p++) {
		if (count[p + 1] > grid->shape.nodes_per_point) {
			int first = LOC_NONE, second = LOC_NONE;

			for (int i = 0; i < grid->nnodes; i++) {
				if (grid->node_point[i] != p)
					continue;
				if (first == LOC_NONE)
					first = i;
				else if (second == LOC_NONE)
					second = i;
			}
			return loc_error_set(err, LOC_EEXIST, NULL, 0,
					     "point %d holds %d nodes (nodes %d and %d among them) but NodesPerPoint=%d",
					     p, count[p + 1], first, second,
					     grid->shape.nodes_per_point);
		}
	}
	for (int p = 0; p < grid->npoints; p++)
		count[p + 1] += count[p];
	/* Counting sort keeps nodes at a point in ascending order. */
	{
		int *fill = malloc(sizeof(int) * grid->npoints);

		if (!fill)
			return loc_error_set(err, LOC_ENOMEM, NULL, 0,
					     "out of memory");
		memcpy(fill, count, sizeof(int) * grid->npoints);
		for (int i = 0; i < grid->nnodes; i++)
			grid->point_node[fill[grid->node_point[i]]++] = i;
		free(fill);
	}
	grid->finalized = true;
	return 0;
}

const loc_shape_t *loc_grid_shape(const loc_grid_t *grid)
{
	return &grid->shape;
}

int loc_grid_nnodes(const loc_grid_t *grid)
{
	return grid->nnodes;
}

int loc_grid_npoints(const loc_grid_t *grid)
{
	return grid->npoints;
}

int loc_grid_ndims(const loc_grid_t *grid)
{
	return grid->shape.ndims;
}

int loc_grid_node_point(const loc_grid_t *grid, int node)
{
	return grid->node_point[node];
}

int loc_grid_point_nodes(const loc_grid_t *grid, int point, const int **nodes)
{
	*nodes = grid->point_node + grid->point_start[point];
	return grid->point_start[point + 1] - grid->point_start[point];
}

void loc_grid_point_coord(const loc_grid_t *grid, int point, loc_coord_t *coord)
{
	const int *c = grid->coord + point * grid->shape.ndims;

	memset(coord, 0, sizeof(*coord));
	for (int d = 0; d < grid->shape.ndims; d++)
		coord->c[d] = c[d];
}

void loc_grid_node_coord(const loc_grid_t *grid, int node, loc_coord_t *coord)
{
	loc_grid_point_coord(grid, grid->node_point[node], coord);
}

int loc_grid_point_at(const loc_grid_t *grid, const loc_coord_t *coord)
{
	int p = 0;

	for (int d = 0; d < grid->shape.ndims; d++) {
		int L = grid->shape.dims[d], c = coord->c[d];

		if (c < 0 || c >= L) {
			if (!grid->shape.torus[d])
				return LOC_NONE;
			c = ((c % L) + L) % L;
		}
		p += c * grid->stride[d];
	}
	return p;
}

int loc_grid_axis_hops(const loc_grid_t *grid, int d, int a, int b)
{
	int delta = a > b ? a - b : b - a;

	if (grid->shape.torus[d] && grid->shape.dims[d] - delta < delta)
		delta = grid->shape.dims[d] - delta;
	return delta;
}

int loc_grid_point_hops(const loc_grid_t *grid, int pa, int pb)
{
	const int nd = grid->shape.ndims;
	const int *a = grid->coord + pa * nd, *b = grid->coord + pb * nd;
	int hops = 0;

	for (int d = 0; d < nd; d++)
		hops += loc_grid_axis_hops(grid, d, a[d], b[d]);
	return hops;
}

int loc_grid_node_hops(const loc_grid_t *grid, int a, int b)
{
	return loc_grid_point_hops(grid, grid->node_point[a],
				   grid->node_point[b]);
}

bool loc_grid_all_torus(const loc_grid_t *grid)
{
	for (int d = 0; d < grid->shape.ndims; d++)
		if (!grid->shape.torus[d])
			return false;
	return true;
}

int loc_grid_diameter(const loc_grid_t *grid)
{
	int diam = 0;

	for (int d = 0; d < grid->shape.ndims; d++)
		diam += grid->shape.torus[d] ? grid->shape.dims[d] / 2 :
					       grid->shape.dims[d] - 1;
	return diam;
}

int loc_grid_point_neighbors(const loc_grid_t *grid, int point, int *neighbors)
{
	loc_coord_t c;
	int n = 0;

	loc_grid_point_coord(grid, point, &c);
	for (int d = 0; d < grid->shape.ndims; d++) {
		for (int step = -1; step <= 1; step += 2) {
			loc_coord_t nc = c;
			int q;
			bool seen = false;

			nc.c[d] += step;
			q = loc_grid_point_at(grid, &nc);
			if (q == LOC_NONE || q == point)
				continue;
			/* A torus dimension of size 2 reaches the same point
			 * both ways: list it once. */
			for (int i = 0; i < n; i++)
				seen |= neighbors[i] == q;
			if (!seen)
				neighbors[n++] = q;
		}
	}
	return n;
}

const char *loc_grid_describe(const loc_grid_t *grid, char *buf, int len)
{
	int off = 0;

	for (int d = 0; d < grid->shape.ndims && off < len; d++)
		off += snprintf(buf + off, len - off, "%s%d", d ? "x" : "",
				grid->shape.dims[d]);
	for (int d = 0; d < grid->shape.ndims && off < len; d++)
		off += snprintf(buf + off, len - off, "%s%s", d ? "," : " ",
				grid->shape.torus[d] ? "torus" : "mesh");
	if (off < len)
		snprintf(buf + off, len - off, " nodes_per_point=%d nodes=%d",
			 grid->shape.nodes_per_point, grid->nnodes);
	return buf;
}

int loc_grid_selfcheck(const loc_grid_t *grid)
{
	int total = 0;

	if (!grid->finalized)
		return LOC_EINVAL;
	for (int p = 0; p < grid->npoints; p++) {
		const int *nodes;
		int n = loc_grid_point_nodes(grid, p, &nodes);

		if (n < 0 || n > grid->shape.nodes_per_point)
			return LOC_EINVAL;
		for (int i = 0; i < n; i++)
			if (grid->node_point[nodes[i]] != p ||
			    (i && nodes[i - 1] >= nodes[i]))
				return LOC_EINVAL;
		total += n;
	}
	return total == grid->nnodes ? 0 : LOC_EINVAL;
}
