/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_curve.c - curve objects: rank <-> node maps built from a point order.
 * PLACEHOLDER for hilbert: being written.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loc_curve.h"

struct loc_curve {
	const loc_grid_t *grid;
	loc_curve_kind_t kind;
	int *order; /* rank -> node */
	int *ranks; /* node -> rank */
};

static const char *const _curve_names[LOC_CURVE_COUNT] = {
	"hilbert", "snake", "rowmajor",
};

int loc_curve_kind_parse(const char *name)
{
	for (int i = 0; name && i < LOC_CURVE_COUNT; i++)
		if (!strcasecmp(name, _curve_names[i]))
			return i;
	return -1;
}

const char *loc_curve_kind_name(loc_curve_kind_t kind)
{
	return (int)kind >= 0 && kind < LOC_CURVE_COUNT ? _curve_names[kind] :
							  "unknown";
}

int loc_curve_point_order(const loc_grid_t *grid, loc_curve_kind_t kind,
			  int *order, loc_error_t *err)
{
	int np = loc_grid_npoints(grid);
	const loc_shape_t *s = loc_grid_shape(grid);
	int last = s->dims[s->ndims - 1];

	if (kind == LOC_CURVE_HILBERT)
		kind = LOC_CURVE_SNAKE; /* PLACEHOLDER */
	for (int p = 0; p < np; p++)
		order[p] = p;
	if (kind == LOC_CURVE_SNAKE)
		for (int row = 0; row < np / last; row++)
			if (row % 2)
				for (int i = 0; i < last; i++)
					order[row * last + i] = row * last + last - 1 - i;
	(void)err;
	return 0;
}

loc_curve_t *loc_curve_create(const loc_grid_t *grid, loc_curve_kind_t kind,
			      loc_error_t *err)
{
	loc_curve_t *c = calloc(1, sizeof(*c));
	int np = loc_grid_npoints(grid), n = loc_grid_nnodes(grid), r = 0;
	int *porder = malloc(sizeof(int) * np);

	c->grid = grid;
	c->kind = kind;
	c->order = malloc(sizeof(int) * n);
	c->ranks = malloc(sizeof(int) * n);
	loc_curve_point_order(grid, kind, porder, err);
	for (int i = 0; i < np; i++) {
		const int *nodes;
		int cnt = loc_grid_point_nodes(grid, porder[i], &nodes);
		for (int j = 0; j < cnt; j++) {
			c->ranks[nodes[j]] = r;
			c->order[r++] = nodes[j];
		}
	}
	free(porder);
	return c;
}

void loc_curve_destroy(loc_curve_t *curve)
{
	if (!curve)
		return;
	free(curve->order);
	free(curve->ranks);
	free(curve);
}

loc_curve_kind_t loc_curve_kind(const loc_curve_t *curve) { return curve->kind; }
const loc_grid_t *loc_curve_grid(const loc_curve_t *curve) { return curve->grid; }
int loc_curve_rank(const loc_curve_t *curve, int node) { return curve->ranks[node]; }
int loc_curve_node(const loc_curve_t *curve, int rank) { return curve->order[rank]; }
const int *loc_curve_order(const loc_curve_t *curve) { return curve->order; }
const int *loc_curve_ranks(const loc_curve_t *curve) { return curve->ranks; }
