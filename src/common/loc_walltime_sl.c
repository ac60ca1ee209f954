/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_sl.c - the SL score of Algorithm 1 of seed 004 (Tang, Lan,
 * Desai, Buettner, Yu, "Reducing fragmentation on torus-connected
 * supercomputers", IPDPS 2011).
 */
#include <stdlib.h>

#include "loc_walltime_sl.h"

/* The gap between two end times, in seconds. */
static int64_t _abs64(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * Algorithm 1 compares the candidate's neighbouring running jobs with the
 * scheduled job; here every busy node next to the placement (sharing a
 * point or one hop away) counts once, and the score is the mean end-time
 * gap. Uses a temporary mark array; on ENOMEM it reports "no score" (-1),
 * which only costs the tie-break.
 */
double loc_sl_score(const loc_grid_t *grid, const loc_view_t *view,
		    int64_t expected_end, const int *nodes, int k)
{
	int n, np, cnt = 0;
	uint8_t *mark, *seen_point;
	double sum = 0;

	if (!grid || !view || !view->busy_until || !nodes || k < 1 ||
	    expected_end <= 0)
		return -1;
	n = loc_grid_nnodes(grid);
	np = loc_grid_npoints(grid);
	mark = calloc((size_t)n + np, 1);
	if (!mark)
		return -1;
	seen_point = mark + n;
	for (int i = 0; i < k; i++) {
		if (nodes[i] < 0 || nodes[i] >= n) {
			free(mark);
			return -1;
		}
		mark[nodes[i]] = 1;
	}
	for (int i = 0; i < k; i++) {
		int p = loc_grid_node_point(grid, nodes[i]);
		int pts[1 + 2 * LOC_MAX_DIMS], npts;

		pts[0] = p;
		npts = 1 + loc_grid_point_neighbors(grid, p, pts + 1);
		for (int j = 0; j < npts; j++) {
			const int *at;
			int m;

			if (seen_point[pts[j]])
				continue;
			seen_point[pts[j]] = 1;
			m = loc_grid_point_nodes(grid, pts[j], &at);
			for (int t = 0; t < m; t++) {
				int u = at[t];

				if (mark[u] || view->busy_until[u] <= view->now)
					continue;
				sum += (double)_abs64(view->busy_until[u],
						      expected_end);
				cnt++;
			}
		}
	}
	free(mark);
	return cnt ? sum / cnt : -1;
}
