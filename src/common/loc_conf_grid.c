/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_grid.c - the grid of a parsed locality.conf for the driver's
 * node list: NodeName lines place their nodes from Coords, the other nodes
 * fill the free points in row-major order. Also the point and shape
 * helpers the other loc_conf*.c files use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_conf_internal.h"

/* ===================================================================== */
/* Points, shared with loc_conf.c and loc_conf_describe.c                */
/* ===================================================================== */

long long loc__conf_point(const loc_shape_t *shape, const loc_coord_t *c)
{
	long long pt = 0;

	for (int d = 0; d < shape->ndims; d++)
		pt = pt * shape->dims[d] + c->c[d];
	return pt;
}

long long loc__conf_npoints(const loc_shape_t *shape)
{
	long long n = 1;

	for (int d = 0; d < shape->ndims; d++)
		n *= shape->dims[d];
	return n;
}

const char *loc__conf_shape_str(const loc_shape_t *shape, char *buf,
				size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 0; d < shape->ndims && o < len; d++)
		o += snprintf(buf + o, len - o, "%s%d", d ? "x" : "",
			      shape->dims[d]);
	return buf;
}

const char *loc__conf_coord_str(int ndims, const loc_coord_t *c, char *buf,
				size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 0; d < ndims && o < len; d++)
		o += snprintf(buf + o, len - o, "%s%d", d ? "," : "", c->c[d]);
	return buf;
}

/* ===================================================================== */
/* Internal functions: placement                                         */
/* ===================================================================== */

/* Open-addressing index of the driver's names: name -> node. */
typedef struct name_index {
	int *slot; /* node or LOC_NONE */
	size_t mask;
	const char *const *names;
} name_index_t;

static size_t _hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

/* Finds name; returns its node or LOC_NONE, and the slot to insert at. */
static int _index_find(const name_index_t *ix, const char *name, size_t *at)
{
	size_t i = _hash(name) & ix->mask;

	while (ix->slot[i] != LOC_NONE) {
		if (!strcmp(ix->names[ix->slot[i]], name))
			break;
		i = (i + 1) & ix->mask;
	}
	if (at)
		*at = i;
	return ix->slot[i];
}

/* Builds the index; returns 0, LOC_ENOMEM, or LOC_EEXIST with *dup set
 * to the second node of a name the list holds twice. */
static int _index_build(name_index_t *ix, const char *const *names, int n,
			int *dup)
{
	size_t cap = 16;

	while (cap < 2 * (size_t)n)
		cap *= 2;
	ix->slot = malloc(sizeof(int) * cap);
	if (!ix->slot)
		return LOC_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		ix->slot[i] = LOC_NONE;
	ix->mask = cap - 1;
	ix->names = names;
	for (int i = 0; i < n; i++) {
		size_t at;

		if (_index_find(ix, names[i], &at) != LOC_NONE) {
			*dup = i;
			return LOC_EEXIST;
		}
		ix->slot[at] = i;
	}
	return 0;
}

/* Fills err with the conf file name and line; returns code. A macro, as
 * loc_error_set() has no va_list form to forward the arguments to. */
#define _gerr(err, conf, code, line, ...) \
	loc_error_set(err, code, (conf)->path, line, __VA_ARGS__)

/* Places the nodes of NodeName lines; marks used points in count[]. */
static int _place_lines(const loc_conf_t *conf, loc_grid_t *grid,
			const name_index_t *ix, int *count, int *placed,
			loc_error_t *err)
{
	const loc_shape_t *sh = &conf->shape;
	int npp = sh->nodes_per_point;
	long long npoints = loc__conf_npoints(sh);
	char b1[64], b2[64];

	for (int l = 0; l < conf->nnodes_lines; l++) {
		const loc_conf_nodes_t *nl = &conf->nodes[l];
		long long p0 = loc__conf_point(sh, &nl->start);

		for (int i = 0; i < nl->count; i++) {
			long long pt = p0 + i / npp;
			const char *name = nl->names[i];
			loc_coord_t c;
			int node;

			if (pt >= npoints)
				return _gerr(err, conf, LOC_ERANGE, nl->line,
					     "NodeName: node '%.64s' runs off the end of the %s grid",
					     name,
					     loc__conf_shape_str(sh, b1,
								 sizeof(b1)));
			node = _index_find(ix, name, NULL);
			if (node == LOC_NONE)
				return _gerr(err, conf, LOC_ENOENT, nl->line,
					     "NodeName: unknown node '%.64s' (not in the node list)",
					     name);
			if (placed[node])
				return _gerr(err, conf, LOC_EEXIST, nl->line,
					     "NodeName: node '%.64s' is placed twice (also on line %d)",
					     name, placed[node]);
			loc_grid_point_coord(grid, (int)pt, &c);
			if (count[pt] >= npp)
				return _gerr(err, conf, LOC_EEXIST, nl->line,
					     "NodeName: point %s is full (NodesPerPoint=%d) when placing node '%.64s'",
					     loc__conf_coord_str(sh->ndims, &c,
								 b2,
								 sizeof(b2)),
					     npp, name);
			if (loc_grid_set_node_coord(grid, node, &c, err))
				return err ? err->code : LOC_ERANGE;
			count[pt]++;
			placed[node] = nl->line;
		}
	}
	return 0;
}

/* Fills the points no NodeName line used with the remaining nodes. */
static int _place_rest(const loc_conf_t *conf, loc_grid_t *grid, int nnodes,
		       const int *count, const int *placed, loc_error_t *err)
{
	int npp = conf->shape.nodes_per_point, npoints = loc_grid_npoints(grid);
	long long rest = 0, free_points = 0;
	int pt = 0, fill = 0;

	for (int i = 0; i < nnodes; i++)
		rest += !placed[i];
	for (int q = 0; q < npoints; q++)
		free_points += !count[q];
	if (rest > free_points * npp)
		return _gerr(err, conf, LOC_ERANGE, 0,
			     "%lld nodes have no NodeName line but the points the NodeName lines leave free hold only %lld (%lld points x %d nodes per point)",
			     rest, free_points * npp, free_points, npp);
	for (int i = 0; i < nnodes; i++) {
		loc_coord_t c;

		if (placed[i])
			continue;
		if (fill == npp) {
			pt++;
			fill = 0;
		}
		while (count[pt])
			pt++;
		loc_grid_point_coord(grid, pt, &c);
		if (loc_grid_set_node_coord(grid, i, &c, err))
			return err ? err->code : LOC_ERANGE;
		fill++;
	}
	return 0;
}

/* ===================================================================== */
/* External functions                                                    */
/* ===================================================================== */

loc_grid_t *loc_conf_build_grid(const loc_conf_t *conf,
				const char *const *names, int nnodes,
				loc_error_t *err)
{
	name_index_t ix = { 0 };
	loc_grid_t *grid = NULL;
	int *count = NULL, *placed = NULL;
	long long npoints, capacity;
	char b1[64];
	int rc, dup = 0;

	loc_error_clear(err);
	if (!conf || !names || nnodes < 1) {
		loc_error_set(err, LOC_EINVAL, conf ? conf->path : NULL, 0,
			      "no configuration or no nodes to place");
		return NULL;
	}
	for (int i = 0; i < nnodes; i++)
		if (!names[i]) {
			_gerr(err, conf, LOC_EINVAL, 0,
			      "node %d of the node list has no name", i);
			return NULL;
		}
	npoints = loc__conf_npoints(&conf->shape);
	capacity = npoints * conf->shape.nodes_per_point;
	if (nnodes > capacity) {
		_gerr(err, conf, LOC_ERANGE, 0,
		      "%d nodes but the %s grid holds only %lld (%lld points x %d nodes per point)",
		      nnodes, loc__conf_shape_str(&conf->shape, b1, sizeof(b1)),
		      capacity, npoints, conf->shape.nodes_per_point);
		return NULL;
	}
	rc = _index_build(&ix, names, nnodes, &dup);
	if (rc == LOC_EEXIST) {
		_gerr(err, conf, LOC_EINVAL, 0,
		      "the node list names '%.64s' twice (nodes %d and %d)",
		      names[dup], _index_find(&ix, names[dup], NULL), dup);
		goto out;
	}
	if (rc)
		goto nomem;
	grid = loc_grid_create(&conf->shape, nnodes, err);
	if (!grid) {
		if (err)
			snprintf(err->file, sizeof(err->file), "%s",
				 conf->path);
		goto out;
	}
	count = calloc(npoints, sizeof(int));
	placed = calloc(nnodes, sizeof(int));
	if (!count || !placed)
		goto nomem;
	if (_place_lines(conf, grid, &ix, count, placed, err) ||
	    _place_rest(conf, grid, nnodes, count, placed, err))
		goto fail;
	if (loc_grid_finalize(grid, err)) {
		if (err)
			snprintf(err->file, sizeof(err->file), "%s",
				 conf->path);
		goto fail;
	}
	goto out;
nomem:
	_gerr(err, conf, LOC_ENOMEM, 0, "out of memory placing nodes");
fail:
	loc_grid_destroy(grid);
	grid = NULL;
out:
	free(ix.slot);
	free(count);
	free(placed);
	return grid;
}
