/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_sort.h - the allocator's sort of an answer into node order. Not
 * installed; used by loc_alloc.c only.
 */
#ifndef LOC_SORT_H
#define LOC_SORT_H

#include <stdint.h>

/*
 * Writes nodes[0..k-1] (distinct node numbers below n; borrowed) to out in
 * ascending order. bits (LOC__BITS_WORDS(n) words) and tmp (k ints) are
 * scratch. Returns nothing. O(k + n / 64) at most.
 */
void loc__sort_nodes(const int *nodes, int k, int n, uint64_t *bits,
		     int *tmp, int *out);

#endif /* LOC_SORT_H */
