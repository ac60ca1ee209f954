/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_span.h - span's least-window search over vectors (st_span_simd.c),
 * for st_span.c.
 */
#ifndef LOC_ST_SPAN_H
#define LOC_ST_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loc_simd.h"

/* A step between consecutive window totals is at most (k-1) far; below
 * this its sums over 16 steps fit in 32 bits (the 64-bit searches). */
#define LOC_SPAN_STEP_LIMIT (1LL << 27)

typedef struct loc__span_least {
	int64_t best; /* least total pairwise distance of a window */
	int at;       /* its first window */
	int64_t far;  /* the largest x[i + k] - x[i] over the windows */
	int64_t next; /* the total of window nwin, the first not scored */
} loc__span_least_t;

/*
 * Windows i in [0, nwin) of k consecutive positions x[i .. i+k-1]
 * (ascending, m of them, nwin + k <= m) scored by their total pairwise
 * distance with the vectors of level (at most loc__simd_level()): fills
 * out and returns true, or returns false, having done nothing useful, for
 * LOC_SIMD_NONE, nwin < 8, k < 2, or when past 32 bits a step between
 * totals might not (then after scoring: (k-1) far >= 2^27). pre: scratch
 * of 2 m + 2 values.
 */
bool loc__span_least_simd(const int *x, int m, int k, int nwin,
			  uint32_t *pre, loc__span_least_t *out,
			  loc_simd_t level);

/*
 * The same search for totals that fit in an int32 (the caller's bound),
 * one stripe of consecutive windows a lane with the vectors of level
 * (st_span_stripes.c): fills out, far and next included, and returns
 * true; or returns false, having done nothing useful, for LOC_SIMD_NONE,
 * unless nwin >= 256 and 16 k <= nwin, or when scratch has fewer than
 * nwin + 16 (k + 48) values (room; it may take fewer).
 */
bool loc__span_least_stripes(const int *x, int m, int k, int nwin,
			     uint32_t *scratch, size_t room,
			     loc__span_least_t *out, loc_simd_t level);

/*
 * The 64-bit search for any k (st_span_rotated.c): sixteen stripes with
 * AVX-512, eight with AVX2, that cover x once, window totals per lane
 * relative to its first window, chained at the end. Returns false, having
 * done nothing useful, unless level is LOC_SIMD_AVX2 or above,
 * nwin >= 256 and scratch holds nwin + k + (nwin + k) / 16 + 816 values
 * (room); and, after scoring, false when a step between totals might not
 * fit in 32 bits ((k-1) far >= 2^27).
 */
bool loc__span_least_rotated(const int *x, int m, int k, int nwin,
			     uint32_t *scratch, size_t room,
			     loc__span_least_t *out, loc_simd_t level);

/* Window 0's total in 64 bits, sum over j < k of (2j - (k-1)) x[j] (x
 * ascending), with the vectors of level (at most loc__simd_level()). */
int64_t loc__span_first_total(const int *x, int k, loc_simd_t level);

/* dst[j] = src[j] + add for j < cnt (dst and src apart): the ring's
 * second lap of free ranks, with the vectors of level. */
void loc__span_plus(int *dst, const int *src, int cnt, int add,
		    loc_simd_t level);

#endif
