/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_pf.c - the partner choice and idle neighbour region of PF
 * (Algorithm 2 of seed 004).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "loc_metrics.h"
#include "loc_walltime_pf.h"

/* The gap between two walltimes, in seconds. */
static int64_t _abs64(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

int loc_pf_pick_partner(const loc_pf_job_t *queue, int n, int self, int nodes,
			int64_t walltime)
{
	int best = -1;
	int64_t best_d = 0;

	for (int i = 0; queue && i < n; i++) {
		int64_t d;

		if (i == self || queue[i].nodes != nodes)
			continue;
		d = _abs64(queue[i].walltime, walltime);
		if (best < 0 || d < best_d) {
			best = i;
			best_d = d;
		}
	}
	return best;
}

/*
 * Runs the allocator's own strategy on the candidates within hop radius
 * r of the placement, r = 1, 2, ...: at r = 1 every candidate touches the
 * placement, but such a region is a thin shell around it; a larger radius
 * lets the strategy build a compact region beside it (the "idle neighbour
 * partition" of seed 004). Radii run up to the placement's own extent
 * (its bounding-box side sum) plus one, and the touching result with the
 * least total pairwise hops wins (smallest radius on ties).
 */
int loc_pf_neighbor_region(loc_alloc_t *alloc, const loc_view_t *view,
			   const int *placed, int k, int *out,
			   loc_error_t *err)
{
	const loc_grid_t *g;
	int n, np, head = 0, tail = 0, maxd = 0, rc = LOC_ENOFIT;
	uint8_t *in_placed = NULL, *tmp = NULL;
	int *dist = NULL, *queue = NULL, *within = NULL, *region = NULL;
	int64_t best_cost = -1;

	if (!alloc || !view || !view->candidate || !placed || !out || k < 1)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "PF region needs an allocator, a view, "
				     "a placement and k >= 1");
	g = loc_alloc_grid(alloc);
	n = loc_grid_nnodes(g);
	np = loc_grid_npoints(g);
	in_placed = calloc(n, 1);
	tmp = malloc(n);
	dist = malloc(sizeof(int) * np);
	queue = malloc(sizeof(int) * np);
	within = calloc((size_t)np + 1, sizeof(int));
	region = malloc(sizeof(int) * k);
	if (!in_placed || !tmp || !dist || !queue || !within || !region) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
				   "out of memory finding a PF region");
		goto out;
	}
	for (int p = 0; p < np; p++)
		dist[p] = -1;
	for (int i = 0; i < k; i++) {
		int v = placed[i], p;

		if (v < 0 || v >= n) {
			rc = loc_error_set(err, LOC_EINVAL, NULL, 0,
					   "placed node %d does not exist", v);
			goto out;
		}
		in_placed[v] = 1;
		p = loc_grid_node_point(g, v);
		if (dist[p] < 0) {
			dist[p] = 0;
			queue[tail++] = p;
		}
	}
	while (head < tail) {
		int p = queue[head++], nb[2 * LOC_MAX_DIMS];
		int m = loc_grid_point_neighbors(g, p, nb);

		for (int i = 0; i < m; i++)
			if (dist[nb[i]] < 0) {
				dist[nb[i]] = dist[p] + 1;
				if (dist[nb[i]] > maxd)
					maxd = dist[nb[i]];
				queue[tail++] = nb[i];
			}
	}
	/* within[r] = idle candidates at distance <= r. */
	for (int v = 0; v < n; v++) {
		int d = dist[loc_grid_node_point(g, v)];

		if (view->candidate[v] && !in_placed[v] && d >= 0)
			within[d]++;
	}
	for (int d = 1; d <= maxd; d++)
		within[d] += within[d - 1];
	if (within[maxd < 1 ? 0 : 1] == 0) {
		rc = loc_error_set(err, LOC_ENOFIT, NULL, 0,
				   "no idle candidate next to the placement");
		goto out;
	}
	{
		loc_metrics_t pm;
		int rmax;

		if (loc_metrics_compute(g, NULL, placed, k, &pm)) {
			rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
					   "out of memory finding a PF region");
			goto out;
		}
		rmax = pm.bbox_side_sum + 1;
		if (rmax > maxd)
			rmax = maxd < 1 ? 1 : maxd;
		for (int r = 1; r <= rmax; r++) {
			loc_request_t req = { .nodes = k };
			loc_view_t sub = *view;
			int w = within[r < maxd ? r : maxd];
			bool touches = false;
			int64_t cost;

			if (w < k || (r > 1 && w == within[r - 1]))
				continue;
			for (int v = 0; v < n; v++) {
				int d = dist[loc_grid_node_point(g, v)];

				tmp[v] = view->candidate[v] && !in_placed[v] &&
					 d >= 0 && d <= r;
			}
			sub.candidate = tmp;
			rc = loc_alloc_select(alloc, &req, &sub, region, err);
			if (rc && rc != LOC_ENOFIT)
				goto out;
			if (rc)
				continue;
			for (int i = 0; i < k && !touches; i++)
				touches = dist[loc_grid_node_point(g, region[i])] <= 1;
			cost = loc_metrics_total_pair_hops(g, region, k);
			if (touches && cost >= 0 &&
			    (best_cost < 0 || cost < best_cost)) {
				best_cost = cost;
				memcpy(out, region, sizeof(int) * k);
			}
		}
	}
	if (best_cost >= 0) {
		rc = 0;
		loc_error_clear(err);
		goto out;
	}
	rc = loc_error_set(err, LOC_ENOFIT, NULL, 0,
			   "no idle region of %d nodes touches the placement",
			   k);
out:
	free(in_placed);
	free(tmp);
	free(dist);
	free(queue);
	free(within);
	free(region);
	return rc;
}
