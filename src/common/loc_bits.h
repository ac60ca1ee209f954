/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_bits.h - scans of bitmaps a word at a time: set bits, runs, the next
 * set or clear bit, and bitmaps built from byte maps. Bits as
 * loc__rank_bits() lays them out (loc_free_map.h).
 */
#ifndef LOC_BITS_H
#define LOC_BITS_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_simd.h"

/* Words of a bitmap of n bits, plus the trailing zero word. */
#define LOC__BITS_WORDS(n) (((n) + 63) / 64 + 1)

/*
 * Word-at-a-time scans of a bitmap (bits as in loc__rank_bits(): a zero
 * word must follow bit `to`'s word). Bits outside [from, to) count as 0.
 * In loc_bits.c, but for the listing (loc__bits_ones(), loc__bits_ones_at())
 * and loc__bits_of_marks(), which are in loc_bits_list.c.
 *
 * loc__bits_ones() writes the positions of the first max set bits,
 * ascending, to pos and returns how many (at most max).
 * loc__bits_runs() writes the first max maximal runs of at least len >= 1
 * set bits, in order, to iv (iv[2i] = start, iv[2i + 1] = end, exclusive)
 * and returns how many: O((to - from) / 64 + runs found).
 * loc__bits_find() returns the first position in [from, to) whose bit is
 * value, or to; loc__bits_rfind() the last one, or from - 1.
 */
int loc__bits_ones(const uint64_t *bits, int from, int to, int *pos, int max);
/* The same with the vector level chosen (tests run every level the CPU
 * runs; loc__bits_ones() takes loc__simd_level()). */
int loc__bits_ones_at(const uint64_t *bits, int from, int to, int *pos,
		      int max, loc_simd_t level);
int loc__bits_runs(const uint64_t *bits, int from, int to, int len, int *iv,
		   int max);
int loc__bits_find(const uint64_t *bits, int from, int to, bool value);
/* False when [from, to) surely holds no run of len >= 64 set bits (no word
 * all ones, no word's leading ones and the next one's trailing ones adding
 * up to len); true otherwise, and always for len < 64. Without a branch
 * per word, unlike the exact search, whose branches a random map
 * mispredicts: 0.65 us instead of 1 us at 32,768 half-free ranks.
 * loc__bits_runs() asks it first. */
bool loc__bits_may_hold_run(const uint64_t *bits, int from, int to,
			    int len);
int loc__bits_rfind(const uint64_t *bits, int from, int to, bool value);
/*
 * Sets bit v of bits (LOC__BITS_WORDS(n) words, the last one zeroed) when
 * marks[v] == mark and free[v] (0/1 bytes) is 1, for v < n, with the
 * vectors of level (at most loc__simd_level()); returns how many are set.
 */
int loc__bits_of_marks(const uint8_t *marks, uint8_t mark,
		       const uint8_t *free, int n, uint64_t *bits,
		       loc_simd_t level);
/*
 * Sets bit v of bits (as above) when free[v] and rank[v] lies in the len
 * ranks from lo, wrapping past n (0 <= lo < n, 0 < len <= n <= 65,536;
 * rank[] a permutation of [0, n), as loc_curve_ranks16()): a window of
 * consecutive free ranks as a node bitmap, in one vector pass over the
 * nodes instead of a step per member. Returns how many are set, or -1
 * having done nothing when level is below AVX2.
 */
int loc__bits_of_rank_range(const uint16_t *rank, int lo, int len,
			    const uint8_t *free, int n, uint64_t *bits,
			    loc_simd_t level);
#if defined(__x86_64__) && defined(__GNUC__)
/* Byte value -> the positions of its set bits, then zeros (in
 * loc_bits_list.c, filled at load): the lane order that packs the chosen
 * lanes of eight to the front. */
extern uint8_t loc__byte_ones[256][8];
#endif

/* The free intervals of loc__rank_intervals() (loc_free_map.h) on any
 * bitmap of n bits (as loc__bits_runs()). */
int loc__bits_intervals(const uint64_t *bits, int n, bool ring, int len,
			int *iv, int max);

#endif /* LOC_BITS_H */
