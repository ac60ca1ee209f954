/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER: being written. Naive total pair hops for early tests. */
#include "loc_metrics.h"
int64_t loc_metrics_total_pair_hops(const loc_grid_t *grid, const int *nodes, int k)
{
	int64_t t = 0;
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			t += loc_grid_node_hops(grid, nodes[i], nodes[j]);
	return t;
}
