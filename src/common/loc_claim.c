/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_claim.c - the region a waiting job lets drain (loc_claim.h).
 */
#include <stdlib.h>
#include <string.h>

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

int loc_claims_init(loc_claims_t *c, int nnodes, loc_error_t *err)
{
	int n = nnodes > 0 ? nnodes : 1;

	memset(c, 0, sizeof(*c));
	c->nnodes = nnodes;
	c->owner = calloc(n, sizeof(*c->owner));
	c->region = calloc(n, sizeof(*c->region));
	c->usable = calloc(n, sizeof(*c->usable));
	if (!c->owner || !c->region || !c->usable) {
		loc_claims_fini(c);
		return loc_error_set(err, LOC_ENOMEM, NULL, 0,
				     "no memory for the claims of %d nodes",
				     nnodes);
	}
	return 0;
}

void loc_claims_fini(loc_claims_t *c)
{
	free(c->owner);
	free(c->region);
	free(c->usable);
	memset(c, 0, sizeof(*c));
}

void loc_claims_drop(loc_claims_t *c, int i)
{
	uint32_t id = c->c[i].job_id;

	for (int g = 0; g < c->nnodes; g++)
		if (c->owner[g] == id)
			c->owner[g] = 0;
	c->c[i] = c->c[--c->n];
}

bool loc_claims_held(const loc_claims_t *c, uint32_t job_id)
{
	for (int i = 0; i < c->n; i++)
		if (c->c[i].job_id == job_id)
			return true;
	return false;
}

int loc_claims_make(loc_claims_t *c, const loc_grid_t *grid, int max,
		    uint32_t job_id, int64_t until, const int *place, int k,
		    const uint8_t *usable, const uint64_t *weight,
		    const uint8_t *idle, loc_error_t *err)
{
	uint64_t heaviest = 0;
	int nidle;

	if (!job_id)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "job id 0 cannot claim");
	if (loc_claims_held(c, job_id))
		return loc_error_set(err, LOC_EEXIST, NULL, 0,
					     "job %u already claims a region",
					     job_id);
	if (max > LOC_CLAIMS_MAX)
		max = LOC_CLAIMS_MAX;
	if (c->n >= max)
		return loc_error_set(err, LOC_ERANGE, NULL, 0,
				     "%d claims are in force already "
				     "(CompactClaims=%d)",
				     c->n, max);
	for (int j = 0; weight && j < k; j++)
		if (weight[place[j]] > heaviest)
			heaviest = weight[place[j]];
	for (int g = 0; g < c->nnodes; g++)
		c->usable[g] = usable[g] && !c->owner[g] &&
			       (!weight || weight[g] <= heaviest);
	nidle = loc_claim_region(grid, place, k, c->usable, idle, c->region,
				 err);
	if (nidle < 0)
		return nidle;
	for (int j = 0; j < k; j++)
		c->owner[c->region[j]] = job_id;
	c->c[c->n].job_id = job_id;
	c->c[c->n].until = until;
	c->n++;
	return nidle;
}

bool loc_claims_weigh(const loc_claims_t *c, uint32_t self,
		      const uint8_t *cand, uint64_t *weight, bool tiers)
{
	bool any = false;

	for (int g = 0; g < c->nnodes && c->n && !any; g++)
		any = cand[g] && c->owner[g] && c->owner[g] != self;
	if (!any)
		return false;
	for (int g = 0; g < c->nnodes; g++) {
		if (!tiers)
			weight[g] = 0;
		if (cand[g] && c->owner[g] && c->owner[g] != self)
			weight[g] += 1;
	}
	return true;
}
