/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_span_stripes.h - the striped layout of span's free ranks that the
 * striped (st_span_stripes.c) and rotated (st_span_rotated.c) searches
 * share: x cut into lanes of L consecutive values, row r holding
 * x[l L + r] in lane l.
 */
#ifndef LOC_ST_SPAN_STRIPES_H
#define LOC_ST_SPAN_STRIPES_H

#include <stdint.h>

typedef struct stripes {
	int lanes; /* 16 or 8 */
	int len;   /* L: windows a lane */
	int rows;  /* striped rows written: L + k (rotated: L + 1), rounded
		    * up to 16 */
	int last;  /* the last lane with windows, */
	int ends;  /* its count of them (1 .. L; L in the lanes before) */
	int q, s;  /* rotated: k = q L + s */
} stripes_t;

/* L for n values in `lanes` stripes: a multiple of 16 but not of 32, so
 * the stripes' reads are an odd number of cache lines apart, never 4 KiB
 * apart, where they would share one L1 set (nwin = 16,334 with L = 1,024:
 * 6.5 us, not 4.0). */
int loc__span_stripe_len(int n, int lanes);

#if defined(__x86_64__) && defined(__GNUC__)
/* Rows [0, st->rows) of xs (64-byte aligned), 16 lanes: row r, lane l is
 * x[l L + r], 0 from x[n] on. The CPU must run AVX-512. */
__attribute__((target("avx512f")))
void loc__span_stripe16(const int *x, int n, const stripes_t *st,
			int32_t *xs);

/* As loc__span_stripe16(), eight lanes (32-byte aligned). The CPU must
 * run AVX2. */
__attribute__((target("avx2")))
void loc__span_stripe8(const int *x, int n, const stripes_t *st,
		       int32_t *xs);
#endif

#endif
