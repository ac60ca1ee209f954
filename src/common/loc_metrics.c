/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_metrics.c - locality metrics of one job's node set.
 *
 * Pairwise hops: the L1 (torus-aware) distance splits into per-axis
 * distances, so the pairwise sum is a sum over axes of the pairwise sum of
 * one coordinate, computed from a histogram of that coordinate in O(k + L)
 * (prefix sums over a doubled histogram for a ring), never O(k^2).
 * Spans follow seed 002 sec. 4.3 (Leung et al.), dispersal and weighted
 * dispersal seed 001 sec. 3.4.1 (Lo et al.), bounding boxes and connected
 * components the metrics list of seed 002 sec. 4.3.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_metrics.h"

static int _cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sum over pairs of |xi - xj| given cnt[L] coordinate counts of k items:
 * each unit segment between x and x+1 is crossed by left * right pairs. */
static int64_t _axis_pairs_mesh(const int64_t *cnt, int L, int64_t k)
{
	int64_t left = 0, sum = 0;

	for (int x = 0; x + 1 < L; x++) {
		left += cnt[x];
		sum += left * (k - left);
	}
	return sum;
}

/*
 * S(x) = sum_y cnt[y] * dist(x, y) for every x of an axis of length L,
 * into S[0..L): the hops along this axis from coordinate x to every item.
 * On a mesh, prefix sums of counts and of position * count split the
 * items left and right of x. On a ring, over the doubled histogram,
 * positions x..x+L/2 are reached forwards (distance y - x) and
 * x+L/2+1..x+L-1 backwards (distance x + L - y). O(L) either way;
 * scratch holds 2 * (2L + 1) values.
 */
static void _axis_sums(const int64_t *cnt, int L, bool torus,
		       int64_t *scratch, int64_t *S)
{
	int64_t *p0 = scratch, *p1 = scratch + 2 * L + 1;
	const int span = torus ? 2 * L : L, h = L / 2;

	p0[0] = p1[0] = 0;
	for (int i = 0; i < span; i++) {
		p0[i + 1] = p0[i] + cnt[i % L];
		p1[i + 1] = p1[i] + (int64_t)i * cnt[i % L];
	}
	for (int x = 0; x < L; x++) {
		if (!torus) {
			int64_t left = (int64_t)x * p0[x] - p1[x];
			int64_t right = (p1[L] - p1[x + 1]) -
					(int64_t)x * (p0[L] - p0[x + 1]);

			S[x] = left + right;
		} else {
			int mid = x + h + 1, end = x + L;
			int64_t fwd = (p1[mid] - p1[x]) -
				      (int64_t)x * (p0[mid] - p0[x]);
			int64_t back = (int64_t)end * (p0[end] - p0[mid]) -
				       (p1[end] - p1[mid]);

			S[x] = fwd + back;
		}
	}
}

/* Sum over pairs of the ring distance min(d, L - d): each pair is
 * counted from both ends of _axis_sums(), hence the halving. scratch
 * holds 2 * (2L + 1) + L values. */
static int64_t _axis_pairs_ring(const int64_t *cnt, int L, int64_t *scratch)
{
	int64_t *S = scratch + 2 * (2 * L + 1), sum = 0;

	_axis_sums(cnt, L, true, scratch, S);
	for (int x = 0; x < L; x++)
		sum += cnt[x] * S[x];
	return sum / 2;
}

/*
 * Number of coordinates in the smallest interval holding every occupied
 * coordinate: first..last on a mesh, L minus the largest circular run of
 * empty coordinates on a ring. 0 when nothing is occupied.
 */
static int _axis_side(const int64_t *cnt, int L, bool torus)
{
	int first = -1, last = -1, prev = -1, gap = 0;

	for (int x = 0; x < L; x++) {
		if (!cnt[x])
			continue;
		if (first < 0)
			first = x;
		if (prev >= 0 && x - prev - 1 > gap)
			gap = x - prev - 1;
		prev = last = x;
	}
	if (first < 0)
		return 0;
	if (!torus)
		return last - first + 1;
	if (L - 1 - last + first > gap)
		gap = L - 1 - last + first;
	return L - gap;
}

/* Checks nodes[k] are valid node indices. Returns 0 or LOC_EINVAL. */
static int _check_nodes(const loc_grid_t *grid, const int *nodes, int k)
{
	int n;

	if (!grid || k < 0 || (k > 0 && !nodes))
		return LOC_EINVAL;
	n = loc_grid_nnodes(grid);
	for (int i = 0; i < k; i++)
		if (nodes[i] < 0 || nodes[i] >= n)
			return LOC_EINVAL;
	return 0;
}

/*
 * One histogram per axis of the k nodes' coordinates: axis d's count of
 * coordinate x at cnt[off[d] + x] (*sum_dims counts in all), filled in
 * one pass, in a zeroed allocation of per_sum values per coordinate of
 * all axes and per_max per coordinate of the longest, for the caller's
 * scratch after the counts. Returns it (the caller frees it), or NULL
 * out of memory.
 */
static int64_t *_histograms(const loc_grid_t *grid, const int *nodes, int k,
			    int *off, int *sum_dims, size_t per_sum,
			    size_t per_max)
{
	const loc_shape_t *s = loc_grid_shape(grid);
	int max_dim = 1;
	int64_t *cnt;

	*sum_dims = 0;
	for (int d = 0; d < s->ndims; d++) {
		off[d] = *sum_dims;
		*sum_dims += s->dims[d];
		if (s->dims[d] > max_dim)
			max_dim = s->dims[d];
	}
	cnt = calloc(per_sum * (size_t)*sum_dims +
			     per_max * (size_t)max_dim + 2,
		     sizeof(int64_t));
	if (!cnt)
		return NULL;
	for (int i = 0; i < k; i++) {
		loc_coord_t c;

		loc_grid_node_coord(grid, nodes[i], &c);
		for (int d = 0; d < s->ndims; d++)
			cnt[off[d] + c.c[d]]++;
	}
	return cnt;
}

/*
 * Per-axis pass: total pairwise hops, bounding box volume and side sum,
 * from one histogram per axis (sum of dims counts, filled in one pass).
 * Returns 0 or LOC_ENOMEM.
 */
static int _axis_pass(const loc_grid_t *grid, const int *nodes, int k,
		      int64_t *total, int64_t *volume, int *side_sum)
{
	const loc_shape_t *s = loc_grid_shape(grid);
	int off[LOC_MAX_DIMS], sum_dims;
	int64_t *cnt, *scratch;

	*total = 0;
	*volume = k ? 1 : 0;
	*side_sum = 0;
	if (!k)
		return 0;
	cnt = _histograms(grid, nodes, k, off, &sum_dims, 1, 5);
	if (!cnt)
		return LOC_ENOMEM;
	scratch = cnt + sum_dims;
	for (int d = 0; d < s->ndims; d++) {
		const int64_t *h = cnt + off[d];
		int L = s->dims[d], side;

		if (s->torus[d])
			*total += _axis_pairs_ring(h, L, scratch);
		else
			*total += _axis_pairs_mesh(h, L, k);
		side = _axis_side(h, L, s->torus[d]);
		*volume *= side;
		*side_sum += side;
	}
	free(cnt);
	return 0;
}

double loc_metrics_pair_mean(int64_t total_pair_hops, int k)
{
	return k < 2 ? 0 : (double)total_pair_hops / ((double)k * (k - 1) / 2);
}

int64_t loc_metrics_total_pair_hops(const loc_grid_t *grid, const int *nodes,
				    int k)
{
	int64_t total, volume;
	int side_sum, rc;

	if ((rc = _check_nodes(grid, nodes, k)))
		return rc;
	if ((rc = _axis_pass(grid, nodes, k, &total, &volume, &side_sum)))
		return rc;
	return total;
}

int loc_metrics_node_hop_sums(const loc_grid_t *grid, const int *nodes,
			      int k, int64_t *sums)
{
	const loc_shape_t *s;
	int off[LOC_MAX_DIMS], sum_dims, rc;
	int64_t *cnt, *S, *scratch;

	if ((rc = _check_nodes(grid, nodes, k)) || (k > 0 && !sums))
		return rc ? rc : LOC_EINVAL;
	if (!k)
		return 0;
	s = loc_grid_shape(grid);
	cnt = _histograms(grid, nodes, k, off, &sum_dims, 2, 4);
	if (!cnt)
		return LOC_ENOMEM;
	S = cnt + sum_dims;
	scratch = S + sum_dims;
	for (int d = 0; d < s->ndims; d++)
		_axis_sums(cnt + off[d], s->dims[d], s->torus[d], scratch,
			   S + off[d]);
	for (int i = 0; i < k; i++) {
		loc_coord_t c;

		loc_grid_node_coord(grid, nodes[i], &c);
		sums[i] = 0;
		for (int d = 0; d < s->ndims; d++)
			sums[i] += S[off[d] + c.c[d]];
	}
	free(cnt);
	return 0;
}

int loc_metrics_linear_span(const loc_curve_t *curve, const int *nodes, int k)
{
	int lo, hi;

	if (!curve || k < 1 || !nodes)
		return 0;
	lo = hi = loc_curve_rank(curve, nodes[0]);
	for (int i = 1; i < k; i++) {
		int r = loc_curve_rank(curve, nodes[i]);

		if (r < lo)
			lo = r;
		if (r > hi)
			hi = r;
	}
	return hi - lo + 1;
}

/* Seed 002 sec. 4.3: |P| minus the largest free run of ranks, counting
 * the run that wraps from the last rank to the first. ranks sorted. */
static int _ring_span_sorted(const int *ranks, int k, int n)
{
	int gap;

	if (k < 1)
		return 0;
	gap = n - 1 - ranks[k - 1] + ranks[0];
	for (int i = 0; i + 1 < k; i++)
		if (ranks[i + 1] - ranks[i] - 1 > gap)
			gap = ranks[i + 1] - ranks[i] - 1;
	return n - gap;
}

int loc_metrics_ring_span(const loc_curve_t *curve, const int *nodes, int k)
{
	int *ranks, span;

	if (!curve || k < 1 || !nodes)
		return 0;
	ranks = malloc(sizeof(int) * k);
	if (!ranks)
		return LOC_ENOMEM;
	for (int i = 0; i < k; i++)
		ranks[i] = loc_curve_rank(curve, nodes[i]);
	qsort(ranks, k, sizeof(int), _cmp_int);
	span = _ring_span_sorted(ranks, k,
				 loc_grid_nnodes(loc_curve_grid(curve)));
	free(ranks);
	return span;
}

/*
 * Counts the connected components of the m distinct sorted points pts
 * under one-hop (torus-aware) adjacency. Returns the count or LOC_ENOMEM.
 */
static int _components(const loc_grid_t *grid, const int *pts, int m)
{
	int *stack = malloc(sizeof(int) * (m ? m : 1));
	bool *seen = calloc(m ? m : 1, sizeof(bool));
	int comps = 0;

	if (!stack || !seen) {
		free(stack);
		free(seen);
		return LOC_ENOMEM;
	}
	for (int i = 0; i < m; i++) {
		int top = 0;

		if (seen[i])
			continue;
		comps++;
		seen[i] = true;
		stack[top++] = i;
		while (top) {
			int nb[2 * LOC_MAX_DIMS], nn, p = pts[stack[--top]];

			nn = loc_grid_point_neighbors(grid, p, nb);

			for (int j = 0; j < nn; j++) {
				const int *hit = bsearch(&nb[j], pts, m,
							 sizeof(int), _cmp_int);
				int idx;

				if (!hit)
					continue;
				idx = (int)(hit - pts);
				if (!seen[idx]) {
					seen[idx] = true;
					stack[top++] = idx;
				}
			}
		}
	}
	free(stack);
	free(seen);
	return comps;
}

int loc_metrics_compute(const loc_grid_t *grid, const loc_curve_t *curve,
			const int *nodes, int k, loc_metrics_t *out)
{
	int *buf = NULL, rc, m = 0, npp;
	int64_t slots;

	if (!out)
		return LOC_EINVAL;
	memset(out, 0, sizeof(*out));
	if ((rc = _check_nodes(grid, nodes, k)))
		return rc;
	if (curve && loc_grid_nnodes(loc_curve_grid(curve)) !=
			     loc_grid_nnodes(grid))
		return LOC_EINVAL;
	out->nodes = k;
	if (!k)
		return 0;
	buf = malloc(sizeof(int) * k);
	if (!buf)
		return LOC_ENOMEM;

	/* Distinctness, then the distinct points for components. */
	memcpy(buf, nodes, sizeof(int) * k);
	qsort(buf, k, sizeof(int), _cmp_int);
	rc = LOC_EINVAL;
	for (int i = 0; i + 1 < k; i++)
		if (buf[i] == buf[i + 1])
			goto out;
	for (int i = 0; i < k; i++)
		buf[i] = loc_grid_node_point(grid, nodes[i]);
	qsort(buf, k, sizeof(int), _cmp_int);
	for (int i = 0; i < k; i++)
		if (!m || buf[m - 1] != buf[i])
			buf[m++] = buf[i];
	rc = _components(grid, buf, m);
	if (rc < 0)
		goto out;
	out->components = rc;

	rc = _axis_pass(grid, nodes, k, &out->total_pair_hops,
			&out->bbox_volume, &out->bbox_side_sum);
	if (rc)
		goto out;
	out->avg_pair_hops = loc_metrics_pair_mean(out->total_pair_hops, k);

	/* Seed 001: free processors in the enclosing box over its size. */
	npp = loc_grid_shape(grid)->nodes_per_point;
	slots = out->bbox_volume * npp;
	out->dispersal = (double)(slots - k) / (double)slots;
	out->weighted_dispersal = out->dispersal * k;

	if (curve) {
		for (int i = 0; i < k; i++)
			buf[i] = loc_curve_rank(curve, nodes[i]);
		qsort(buf, k, sizeof(int), _cmp_int);
		out->linear_span = buf[k - 1] - buf[0] + 1;
		out->ring_span = _ring_span_sorted(buf, k,
						   loc_grid_nnodes(grid));
	}
	rc = 0;
out:
	free(buf);
	if (rc) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	return 0;
}
