/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_claim.c - the region a waiting job lets drain (loc_claim.h).
 */
#include <stdlib.h>

#include "loc_claim.h"

/* One node of the placement: its point's coordinates and its slot among
 * the nodes at that point. */
typedef struct {
	loc_coord_t at;
	int slot;
} claim_node_t;

/* The node at place-node n moved by offset o, or LOC_NONE. */
static int _moved(const loc_grid_t *grid, const claim_node_t *n,
		  const loc_coord_t *o, int ndims)
{
	loc_coord_t c;
	const int *nodes;
	int p;

	for (int d = 0; d < ndims; d++)
		c.c[d] = n->at.c[d] + o->c[d];
	p = loc_grid_point_at(grid, &c);
	if (p == LOC_NONE || loc_grid_point_nodes(grid, p, &nodes) <= n->slot)
		return LOC_NONE;
	return nodes[n->slot];
}

/* Idle nodes of the placement moved by o, writing them in out[] when
 * out is not NULL; -1 when one lies off the usable nodes. */
static int _score(const loc_grid_t *grid, const claim_node_t *pn, int k,
		  const loc_coord_t *o, const uint8_t *usable,
		  const uint8_t *idle, int *out)
{
	int ndims = loc_grid_ndims(grid), nidle = 0;

	for (int j = 0; j < k; j++) {
		int g = _moved(grid, &pn[j], o, ndims);

		if (g == LOC_NONE || !usable[g])
			return -1;
		nidle += idle[g] != 0;
		if (out)
			out[j] = g;
	}
	return nidle;
}

int loc_claim_region(const loc_grid_t *grid, const int *place, int k,
		     const uint8_t *usable, const uint8_t *idle, int *out,
		     loc_error_t *err)
{
	int npoints = loc_grid_npoints(grid), best = -1;
	long step;
	loc_coord_t best_o = { { 0 } }, origin;
	claim_node_t *pn;

	if (k < 1)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "a claim needs at least one node");
	pn = malloc((size_t)k * sizeof(*pn));
	if (!pn)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0,
				     "out of memory for a claim of %d nodes",
				     k);
	for (int j = 0; j < k; j++) {
		int p = loc_grid_node_point(grid, place[j]);
		const int *nodes;
		int n = loc_grid_point_nodes(grid, p, &nodes);

		loc_grid_point_coord(grid, p, &pn[j].at);
		pn[j].slot = 0;
		while (pn[j].slot < n && nodes[pn[j].slot] != place[j])
			pn[j].slot++;
	}
	/* Offsets are the coordinates of each point less the first node's:
	 * offset 0 (the placement itself) comes first among equals. */
	origin = pn[0].at;
	step = ((long)npoints * k + LOC_CLAIM_BUDGET - 1) / LOC_CLAIM_BUDGET;
	if (step < 1)
		step = 1;
	for (long i = 0; i < npoints; i += step) {
		int p = (int)((loc_grid_node_point(grid, place[0]) + i) % npoints);
		loc_coord_t o;
		int s;

		loc_grid_point_coord(grid, p, &o);
		for (int d = 0; d < loc_grid_ndims(grid); d++)
			o.c[d] -= origin.c[d];
		s = _score(grid, pn, k, &o, usable, idle, NULL);
		if (s > best) {
			best = s;
			best_o = o;
		}
		if (best == k)
			break;
	}
	if (best >= 0)
		(void)_score(grid, pn, k, &best_o, usable, idle, out);
	free(pn);
	if (best < 0)
		return loc_error_set(err, LOC_ENOFIT, NULL, 0,
				     "no translate of the placement lies on usable nodes");
	return best;
}
