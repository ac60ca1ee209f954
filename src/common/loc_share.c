/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_share.c - in-use nodes before idle ones, at no cost in hops
 * (loc_share.h).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_share.h"

int loc_share_init(loc_share_t *s, int nnodes, loc_error_t *err)
{
	size_t n = nnodes > 0 ? (size_t)nnodes : 1;

	memset(s, 0, sizeof(*s));
	s->nnodes = nnodes;
	s->sum = calloc(n, sizeof(*s->sum));
	s->in = calloc(n, sizeof(*s->in));
	s->pool = calloc(n, sizeof(*s->pool));
	if (!s->sum || !s->in || !s->pool) {
		loc_share_fini(s);
		return loc_error_set(err, LOC_ENOMEM, NULL, 0,
				     "out of memory for %d nodes' sharing",
				     nnodes);
	}
	return 0;
}

void loc_share_fini(loc_share_t *s)
{
	free(s->sum);
	free(s->in);
	free(s->pool);
	memset(s, 0, sizeof(*s));
}

/*
 * The pool: the in-use candidates p outside the set with
 * hops(anchor, p) <= bound. A swap of member v for p adds no hops only if
 * some other member u has hops(p, u) <= hops(v, u) (else every term of
 * p's total to the rest exceeds v's), so hops(p, u) <= the set's
 * diameter, and hops(anchor, p) <= diameter + the members' farthest hops
 * from the anchor: the pool holds every node a swap could take.
 */
static int _pool(loc_share_t *s, const loc_grid_t *grid,
		 const loc_share_job_t *job, int anchor, int bound)
{
	int np = 0;

	for (int g = 0; g < s->nnodes; g++)
		if (job->candidate[g] && job->in_use[g] && !s->in[g] &&
		    loc_grid_node_hops(grid, anchor, g) <= bound)
			s->pool[np++] = g;
	return np;
}

static int64_t _sum_to_set(const loc_grid_t *grid, int g, const int *set,
			   int k)
{
	int64_t sum = 0;

	for (int j = 0; j < k; j++)
		sum += loc_grid_node_hops(grid, g, set[j]);
	return sum;
}

/* After member v left for p: every node's total hops to the set. */
static void _update_sums(loc_share_t *s, const loc_grid_t *grid, int v,
			 int p, const int *set, int k, int np)
{
	for (int j = 0; j < k; j++)
		s->sum[set[j]] += loc_grid_node_hops(grid, set[j], p) -
				  loc_grid_node_hops(grid, set[j], v);
	for (int q = 0; q < np; q++) {
		int x = s->pool[q];

		if (!s->in[x])
			s->sum[x] += loc_grid_node_hops(grid, x, p) -
				     loc_grid_node_hops(grid, x, v);
	}
}

/* The pool's bound for the set: its diameter plus its members' farthest
 * hops from the anchor (upper bounds will do). */
static int _bound(const loc_grid_t *grid, int anchor, const int *set, int k,
		  int *diam, int *radius)
{
	*diam = *radius = 0;
	for (int j = 0; j < k; j++) {
		int h = loc_grid_node_hops(grid, anchor, set[j]);

		if (h > *radius)
			*radius = h;
		for (int i = j + 1; i < k; i++) {
			h = loc_grid_node_hops(grid, set[i], set[j]);
			if (h > *diam)
				*diam = h;
		}
	}
	return *diam + *radius;
}

/* (Re)builds the pool for bound and every member's and pool node's
 * total hops to the set. Returns the pool's size. */
static int _weigh(loc_share_t *s, const loc_grid_t *grid,
		  const loc_share_job_t *job, int anchor, int bound,
		  const int *set, int k)
{
	int np = _pool(s, grid, job, anchor, bound);

	for (int j = 0; j < k && np; j++)
		s->sum[set[j]] = _sum_to_set(grid, set[j], set, k);
	for (int q = 0; q < np; q++)
		s->sum[s->pool[q]] = _sum_to_set(grid, s->pool[q], set, k);
	return np;
}

int loc_share_first(loc_share_t *s, const loc_grid_t *grid,
		    const loc_share_job_t *job, int *set, int k)
{
	const uint32_t *cap = job->capacity;
	const uint64_t *w = job->weight;
	int64_t total_cap = 0;
	long work = 0;
	int np, swaps = 0, anchor, diam, radius, bound;

	if (k < 2)
		return 0;
	anchor = set[0];
	for (int j = 0; j < k; j++) {
		s->in[set[j]] = 1;
		total_cap += cap ? cap[set[j]] : 0;
	}
	bound = _bound(grid, anchor, set, k, &diam, &radius);
	np = _weigh(s, grid, job, anchor, bound, set, k);

	while (np && work < LOC_SHARE_WORK) {
		int64_t best = 0; /* a swap must not add hops */
		int bj = -1, bp = -1;

		for (int j = 0; j < k; j++) {
			int v = set[j];

			if (job->in_use[v])
				continue;
			for (int q = 0; q < np; q++) {
				int p = s->pool[q];
				int64_t d;

				if (s->in[p] || (w && w[p] > w[v]) ||
				    (cap && total_cap - cap[v] + cap[p] <
						    (int64_t)job->need))
					continue;
				d = s->sum[p] - loc_grid_node_hops(grid, p, v) -
				    s->sum[v];
				if (d < best ||
				    (d == best &&
				     (bp < 0 || p < bp ||
				      (p == bp && v < set[bj])))) {
					best = d;
					bj = j;
					bp = p;
				}
			}
			work += np;
		}
		if (bj < 0)
			break;
		{
			int v = set[bj];

			set[bj] = bp;
			s->in[v] = 0;
			s->in[bp] = 1;
			if (cap)
				total_cap += (int64_t)cap[bp] - cap[v];
			_update_sums(s, grid, v, bp, set, k, np);
			swaps++;
		}
		/* The new member may widen the set: then widen the pool. */
		for (int j = 0; j < k; j++) {
			int h = loc_grid_node_hops(grid, bp, set[j]);

			if (h > diam)
				diam = h;
		}
		if (loc_grid_node_hops(grid, anchor, bp) > radius)
			radius = loc_grid_node_hops(grid, anchor, bp);
		if (diam + radius > bound) {
			bound = diam + radius;
			np = _weigh(s, grid, job, anchor, bound, set, k);
		}
	}
	for (int j = 0; j < k; j++)
		s->in[set[j]] = 0;
	return swaps;
}
