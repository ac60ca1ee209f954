/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_size.c - how many nodes a request needs (loc_size.h).
 */
#include "loc_size.h"

#include <stdlib.h>

#include "loc_error.h"
#include "loc_metrics.h"

static int _cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y) - (x > y);
}

int loc_fewest_covering(uint32_t *amounts, int n, uint64_t need)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	uint64_t sum = 0;
	int k = 0;

	if (need == 0)
		return 0;
	for (int i = 0; i < n; i++) {
		lo = amounts[i] < lo ? amounts[i] : lo;
		hi = amounts[i] > hi ? amounts[i] : hi;
	}
	/* Most clusters' candidates are alike: a division, no sort. */
	if (n > 0 && lo == hi && hi > 0) {
		uint64_t k_alike = need / hi + (need % hi != 0);

		return k_alike <= (uint64_t)n ? (int)k_alike : n + 1;
	}
	if (n > 1) /* qsort() of a null array is undefined, even empty */
		qsort(amounts, (size_t)n, sizeof(*amounts), _cmp_desc);
	while (k < n && sum < need)
		sum += amounts[k++];
	return sum >= need ? k : n + 1;
}

int loc_narrow_to_even_share(uint8_t *cand, uint8_t *aside,
			     const uint32_t *amounts, int n, uint64_t need,
			     int k)
{
	uint64_t share;
	int left = 0, short_of = 0;

	if (k < 1 || need == 0)
		return -1;
	share = need / (uint64_t)k + (need % (uint64_t)k != 0);
	for (int i = 0; i < n; i++) {
		if (!cand[i])
			continue;
		if (amounts[i] >= share)
			left++;
		else
			short_of++;
	}
	if (!short_of || left < k)
		return -1;
	for (int i = 0; i < n; i++) {
		aside[i] = cand[i] && amounts[i] < share;
		if (aside[i])
			cand[i] = 0;
	}
	return left;
}

void loc_unnarrow(uint8_t *cand, uint8_t *aside, int n)
{
	for (int i = 0; i < n; i++)
		if (aside[i]) {
			cand[i] = 1;
			aside[i] = 0;
		}
}

int loc_drop_one(const loc_grid_t *grid, const int *nodes,
		 const uint32_t *amounts, int n, uint64_t need, int64_t *hops)
{
	uint64_t sum = 0;
	int64_t *sums, total = 0;
	int drop = LOC_ENOFIT, rc;

	if (!grid || !nodes || !amounts || !hops || n < 0)
		return LOC_EINVAL;
	if (n < 2)
		return LOC_ENOFIT;
	for (int i = 0; i < n; i++)
		sum += amounts[i];
	if (sum < need)
		return LOC_ENOFIT;
	sums = malloc((size_t)n * sizeof(*sums));
	if (!sums)
		return LOC_ENOMEM;
	if ((rc = loc_metrics_node_hop_sums(grid, nodes, n, sums))) {
		free(sums);
		return rc;
	}
	for (int i = 0; i < n; i++) {
		total += sums[i];
		if (sum - amounts[i] < need)
			continue; /* the others need it */
		if (drop < 0 || sums[i] > sums[drop] ||
		    (sums[i] == sums[drop] && amounts[i] < amounts[drop]))
			drop = i;
	}
	if (drop >= 0)
		*hops = total / 2 - sums[drop];
	free(sums);
	return drop;
}

bool loc_fewer_nodes_compact(int64_t hops, int64_t ideal, double tolerance)
{
	return ideal >= 0 && hops >= 0 &&
	       (double)hops <= (1.0 + tolerance) * (double)ideal;
}
