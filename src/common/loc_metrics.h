/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_metrics.h - locality metrics of one job's node set (design sec. 6).
 *
 * The harness, the plugin's logs and the tests all use these functions.
 * Dispersal follows seed 001 (Lo et al.); span follows seeds 000/002.
 */
#ifndef LOC_METRICS_H
#define LOC_METRICS_H

#include <stdint.h>

#include "loc_curve.h"
#include "loc_grid.h"

typedef struct loc_metrics {
	int nodes;                  /* k */
	int64_t total_pair_hops;    /* sum over unordered pairs */
	double avg_pair_hops;       /* total / (k*(k-1)/2); 0 when k < 2 */
	int linear_span;            /* max rank - min rank + 1 */
	int ring_span;              /* nnodes - largest free ring gap */
	int64_t bbox_volume;        /* points in the (torus-minimal) bounding box */
	int bbox_side_sum;          /* sum of the bounding box's side lengths */
	double dispersal;           /* seed 001: (bbox_volume*npp - k) / (bbox_volume*npp) */
	double weighted_dispersal;  /* seed 001 sec. 3.4.1: dispersal * k */
	int components;             /* connected components (one-hop adjacency
				     * of the job's points; shared points join) */
} loc_metrics_t;

/*
 * Computes every metric of the k nodes in nodes (borrowed; any order, must
 * be distinct). curve may be NULL, then spans are 0. Cost: O(k log k +
 * k * ndims) for all but the pairwise sum, which is O(k * ndims + sum of
 * dims) via per-axis coordinate counts (never O(k^2)).
 * Returns 0, or LOC_ENOMEM / LOC_EINVAL (bad or repeated node; curve of
 * another node count); out is zeroed on error.
 */
int loc_metrics_compute(const loc_grid_t *grid, const loc_curve_t *curve,
			const int *nodes, int k, loc_metrics_t *out);

/* Returns the total pairwise hop distance of the k nodes (same cost note),
 * or a negative LOC_EINVAL / LOC_ENOMEM. */
int64_t loc_metrics_total_pair_hops(const loc_grid_t *grid, const int *nodes,
				    int k);

/* Each node's hops to the whole set: sums[i] = the sum over j of the
 * hops from nodes[i] to nodes[j] (so the set's total pairwise hops less
 * sums[i] is the total of the set without nodes[i]). Same cost as the
 * total: per-axis histograms, O(k * ndims + sum of dims), never O(k^2).
 * Returns 0, or LOC_EINVAL (bad node, sums NULL) / LOC_ENOMEM. */
int loc_metrics_node_hop_sums(const loc_grid_t *grid, const int *nodes,
			      int k, int64_t *sums);

/* The mean over the k (k - 1) / 2 pairs of a total pairwise hop count
 * (0 when k < 2): the figure the replay, the plugins' records and the
 * ideal all report. */
double loc_metrics_pair_mean(int64_t total_pair_hops, int k);

/* Returns linear / ring span of the k nodes on curve (0 when curve is
 * NULL or k < 1; ring span may also return LOC_ENOMEM). */
int loc_metrics_linear_span(const loc_curve_t *curve, const int *nodes, int k);
int loc_metrics_ring_span(const loc_curve_t *curve, const int *nodes, int k);

#endif /* LOC_METRICS_H */
