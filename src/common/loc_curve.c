/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_curve.c - curve objects: rank <-> node maps built from a point order.
 *
 * Seeds 000 and 002 (Leung et al.) reduce allocation to one dimension by
 * ranking the processors along a curve; loc_curve_quality() is their
 * objective for comparing curves. The generalised Hilbert walk itself is
 * in loc_hilbert.c.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_curve.h"
#include "loc_hilbert.h"
#include "loc_names.h"

struct loc_curve {
	const loc_grid_t *grid;
	loc_curve_kind_t kind;
	int *order; /* rank -> node */
	int *ranks; /* node -> rank */
	uint16_t *ranks16; /* the same in 16 bits, up to 65,536 nodes */
};

static const char *const _curve_names[LOC_CURVE_COUNT] = {
	"hilbert", "snake", "rowmajor",
};

int loc_curve_kind_parse(const char *name)
{
	return loc_names_index(name, _curve_names, LOC_CURVE_COUNT);
}

const char *loc_curve_kind_name(loc_curve_kind_t kind)
{
	return (int)kind >= 0 && kind < LOC_CURVE_COUNT ? _curve_names[kind] :
							  "unknown";
}

/*
 * Boustrophedon in every dimension: the reflected mixed-radix Gray code.
 * Rank r is read as row-major digits; dimension d runs backwards when an
 * odd number of full sweeps of it precede r, i.e. when r / span(d-1) is
 * odd (span(d) = points in dimensions d..n-1). Consecutive ranks then
 * differ by one step in exactly one dimension, planes included.
 */
static void _snake_order(const loc_shape_t *s, int np, int *order)
{
	int stride[LOC_MAX_DIMS], nd = s->ndims;

	stride[nd - 1] = 1;
	for (int d = nd - 2; d >= 0; d--)
		stride[d] = stride[d + 1] * s->dims[d + 1];
	for (int r = 0; r < np; r++) {
		int p = 0;

		for (int d = 0; d < nd; d++) {
			int digit = (r / stride[d]) % s->dims[d];
			bool back = d > 0 && (r / stride[d - 1]) % 2;

			if (back)
				digit = s->dims[d] - 1 - digit;
			p += digit * stride[d];
		}
		order[r] = p;
	}
}

int loc_curve_point_order(const loc_grid_t *grid, loc_curve_kind_t kind,
			  int *order, loc_error_t *err)
{
	const loc_shape_t *s;
	int np;

	if (!grid || !order)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "curve needs a grid and an order array");
	if ((int)kind < 0 || kind >= LOC_CURVE_COUNT)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "unknown curve kind %d", (int)kind);
	s = loc_grid_shape(grid);
	np = loc_grid_npoints(grid);
	switch (kind) {
	case LOC_CURVE_HILBERT:
		return loc__hilbert_order(s, order, err);
	case LOC_CURVE_SNAKE:
		_snake_order(s, np, order);
		return 0;
	default:
		for (int p = 0; p < np; p++)
			order[p] = p;
		return 0;
	}
}

loc_curve_t *loc_curve_create(const loc_grid_t *grid, loc_curve_kind_t kind,
			      loc_error_t *err)
{
	loc_curve_t *c = NULL;
	int *porder = NULL;
	int np, n, r = 0;

	if (!grid) {
		loc_error_set(err, LOC_EINVAL, NULL, 0, "curve needs a grid");
		return NULL;
	}
	if ((int)kind < 0 || kind >= LOC_CURVE_COUNT) {
		loc_error_set(err, LOC_EINVAL, NULL, 0,
			      "unknown curve kind %d", (int)kind);
		return NULL;
	}
	np = loc_grid_npoints(grid);
	n = loc_grid_nnodes(grid);
	c = calloc(1, sizeof(*c));
	porder = malloc(sizeof(int) * np);
	if (!c || !porder)
		goto nomem;
	c->grid = grid;
	c->kind = kind;
	c->order = malloc(sizeof(int) * n);
	c->ranks = malloc(sizeof(int) * n);
	if (!c->order || !c->ranks)
		goto nomem;
	if (loc_curve_point_order(grid, kind, porder, err))
		goto fail;
	for (int i = 0; i < np; i++) {
		const int *nodes;
		int cnt = loc_grid_point_nodes(grid, porder[i], &nodes);

		for (int j = 0; j < cnt; j++) {
			c->ranks[nodes[j]] = r;
			c->order[r++] = nodes[j];
		}
	}
	free(porder);
	porder = NULL;
	if (r != n) {
		/* The grid was not finalized after coordinate overrides. */
		loc_error_set(err, LOC_EINVAL, NULL, 0,
			      "curve ranked %d of %d nodes (grid not finalized?)",
			      r, n);
		loc_curve_destroy(c);
		return NULL;
	}
	if (n <= 65536) {
		c->ranks16 = malloc(sizeof(uint16_t) * n);
		if (!c->ranks16)
			goto nomem;
		for (int v = 0; v < n; v++)
			c->ranks16[v] = (uint16_t)c->ranks[v];
	}
	return c;
nomem:
	loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory building curve");
fail:
	free(porder);
	loc_curve_destroy(c);
	return NULL;
}

void loc_curve_destroy(loc_curve_t *curve)
{
	if (!curve)
		return;
	free(curve->order);
	free(curve->ranks);
	free(curve->ranks16);
	free(curve);
}

loc_curve_kind_t loc_curve_kind(const loc_curve_t *curve)
{
	return curve->kind;
}

const loc_grid_t *loc_curve_grid(const loc_curve_t *curve)
{
	return curve->grid;
}

int loc_curve_rank(const loc_curve_t *curve, int node)
{
	return curve->ranks[node];
}

int loc_curve_node(const loc_curve_t *curve, int rank)
{
	return curve->order[rank];
}

const int *loc_curve_order(const loc_curve_t *curve)
{
	return curve->order;
}

const int *loc_curve_ranks(const loc_curve_t *curve)
{
	return curve->ranks;
}

const uint16_t *loc_curve_ranks16(const loc_curve_t *curve)
{
	return curve->ranks16;
}

double loc_curve_quality(const loc_grid_t *grid, const int *point_order,
			 int max_gap)
{
	int np = loc_grid_npoints(grid);
	double total = 0.0, w = 1.0;

	if (max_gap > np - 1)
		max_gap = np - 1;
	for (int g = 1; g <= max_gap; g++, w /= 2.0) {
		int64_t sum = 0;

		for (int r = 0; r + g < np; r++)
			sum += loc_grid_point_hops(grid, point_order[r],
						   point_order[r + g]);
		total += w * (double)sum;
	}
	return total;
}

int loc_curve_breaks(const loc_grid_t *grid, const int *point_order)
{
	int np = loc_grid_npoints(grid), breaks = 0;

	for (int r = 0; r + 1 < np; r++)
		breaks += loc_grid_point_hops(grid, point_order[r],
					      point_order[r + 1]) > 1;
	return breaks;
}
