/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_sort.c - puts an answer into node order, the order the allocator
 * returns it in: a node bitmap for large answers, a radix sort for
 * middling ones, qsort() for a few nodes, nothing for answers already in
 * order.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_sort.h"

static int _cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/*
 * Writes nodes[0..k-1] (node numbers below n) to out in ascending order:
 * least significant digit first, 8 bits a pass, through tmp (k ints).
 * Several times faster than qsort() for the tens to hundreds of nodes
 * where the bitmap below does not pay.
 */
static void _radix_sort(const int *nodes, int k, int n, int *tmp, int *out)
{
	int passes = 1;
	const int *src = nodes;

	while (passes < 4 && (n - 1) >> (8 * passes))
		passes++;
	/* An odd number of passes starts in out, so the last one ends there. */
	for (int p = 0; p < passes; p++) {
		int *dst = (passes - p) % 2 ? out : tmp, cnt[257] = { 0 };
		int sh = 8 * p;

		for (int i = 0; i < k; i++)
			cnt[((src[i] >> sh) & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (int i = 0; i < k; i++)
			dst[cnt[(src[i] >> sh) & 255]++] = src[i];
		src = dst;
	}
}

/*
 * Large answers are marked in a node bitmap and read back a word at a
 * time, O(k + n / 64): at k = 4096 on 32,768 nodes, sorting was most of a curve
 * strategy's decision time. Answers of 32 nodes or more too small for
 * that are radix sorted, O(k) per pass; the smallest go to qsort().
 * Answers already in order (from 32 nodes) are copied as they are.
 */
void loc__sort_nodes(const int *nodes, int k, int n, uint64_t *b, int *tmp,
		     int *out)
{
	int nw = LOC__BITS_WORDS(n) - 1, i = 1;

	if (k < 32) {
		memcpy(out, nodes, sizeof(int) * k);
		qsort(out, k, sizeof(int), _cmp_int);
		return;
	}
	/* Some strategies (paging in row-major order) answer in node order
	 * already; others leave it within a few nodes. */
	while (i < k && nodes[i] > nodes[i - 1])
		i++;
	if (i == k) {
		memcpy(out, nodes, sizeof(int) * k);
		return;
	}
	if ((int64_t)k * 4 < nw) {
		_radix_sort(nodes, k, n, tmp, out);
		return;
	}
	memset(b, 0, sizeof(uint64_t) * nw);
	for (int j = 0; j < k; j++)
		b[nodes[j] >> 6] |= 1ULL << (nodes[j] & 63);
	loc__bits_ones(b, 0, n, out, k);
}
