/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_sort.h - the allocator's sort of an answer into node order. Not
 * installed; used by loc_alloc.c only.
 */
#ifndef LOC_SORT_H
#define LOC_SORT_H

#include <stdint.h>

#include "loc_simd.h"

/*
 * Writes nodes[0..k-1] (distinct node numbers below n; borrowed) to out in
 * ascending order. bits (LOC__BITS_WORDS(n) words) and tmp (k ints) are
 * scratch. marks, when not NULL, has marks[v] == mark for exactly the
 * nodes v of the answer (n bytes); it may be read instead of nodes.
 * Returns nothing. O(k + n / 64) at most.
 */
void loc__sort_nodes(const int *nodes, int k, int n, uint64_t *bits,
		     int *tmp, int *out, const uint8_t *marks, uint8_t mark);

/*
 * Sets bit v of bits (LOC__BITS_WORDS(n) words, the last one zeroed) when
 * bytes[v] == mark, for v < n, with the vectors of level (at most
 * loc__simd_level()).
 */
void loc__bytes_eq_bits(const uint8_t *bytes, int n, uint8_t mark,
			uint64_t *bits, loc_simd_t level);

#endif /* LOC_SORT_H */
