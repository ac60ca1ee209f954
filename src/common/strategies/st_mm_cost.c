/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm_cost.c - the total pairwise hops of a set found by the Manhattan
 * Median walk (seed 003, Bender et al., WADS 2005): directly for a few
 * points (in vectors when the CPU has AVX2), else per axis from
 * coordinate counts in O(k * ndims + window), not O(k^2).
 */
#include <string.h>

#include "st_mm.h"

#define MM_DIRECT_PAIRS 12         /* up to this many points: pairs directly */

/*
 * Sum over pairs of min(delta, L - delta) for counts h[0..w) at linear
 * positions (L = 0: a mesh axis, plain delta).
 */
int64_t loc__mm_axis_pairs(const int64_t *h, int w, int L)
{
	int64_t tot = 0, n = 0, s = 0, cn = 0, cs = 0;
	int half = L / 2;

	for (int u = 0; u < w; u++) {
		int t = u - half - 1;

		/* On a ring, pairs more than L/2 apart go the other way. */
		if (L && t >= 0) {
			cn += h[t];
			cs += (int64_t)t * h[t];
		}
		if (h[u]) {
			tot += h[u] * ((int64_t)u * n - s);
			if (L)
				tot -= h[u] * (2 * ((int64_t)u * cn - cs) -
					       (int64_t)L * cn);
		}
		n += h[u];
		s += (int64_t)u * h[u];
	}
	return tot;
}

/* Pairwise hops of a few walked points, straight from their offsets. */
static inline int64_t _mm_walk_cost_direct(const loc__mm_t *st,
					   const int nd)
{
	int64_t total = 0;

	for (int e = 1; e < st->nent; e++) {
		const int *a = st->off + (size_t)st->ent_off[e] * nd;

		for (int f = 0; f < e; f++) {
			const int *b = st->off + (size_t)st->ent_off[f] * nd;
			int h = 0;

			for (int d = 0; d < nd; d++)
				h += st->hop[st->hop_at[d] + a[d] - b[d]];
			total += (int64_t)h * st->ent_take[e] * st->ent_take[f];
		}
	}
	return total;
}

/*
 * The same from per-axis counts, all axes filled in one pass over the
 * walked points: every walked offset lies within the radius, so each
 * axis needs only that window of counts.
 */
static inline int64_t _mm_walk_cost_hist(loc__mm_t *st, const int nd)
{
	const int *restrict ent_off = st->ent_off;
	const int *restrict ent_take = st->ent_take;
	const int *off = st->off, nent = st->nent;
	int64_t *h[2][LOC_MAX_DIMS], total = 0;
	int w[LOC_MAX_DIMS], e = 0;

	for (int d = 0; d < nd; d++) {
		int base = -st->lo[d], a, b;

		a = base - st->radius < 0 ? 0 : base - st->radius;
		b = base + st->radius >= st->range[d] ? st->range[d] - 1 :
							base + st->radius;
		w[d] = b - a + 1;
		for (int c = 0; c < 2; c++) {
			/* Indexed by offset, so at z - a: a block of pad
			 * before the first keeps that inside whist. */
			int64_t *z = st->whist +
				     (size_t)(2 * d + c + 1) * st->maxrange;

			memset(z, 0, sizeof(int64_t) * w[d]);
			h[c][d] = z - a;
		}
	}
	/* Two sets of counts, even and odd points: neighbouring walked
	 * points often share a coordinate, and separate counters keep
	 * their additions from waiting on each other. */
	for (; e + 2 <= nent; e += 2) {
		const int *o0 = off + (size_t)ent_off[e] * nd;
		const int *o1 = off + (size_t)ent_off[e + 1] * nd;
		int t0 = ent_take[e], t1 = ent_take[e + 1];

		for (int d = 0; d < nd; d++) {
			h[0][d][o0[d]] += t0;
			h[1][d][o1[d]] += t1;
		}
	}
	for (; e < nent; e++) {
		const int *o = off + (size_t)ent_off[e] * nd;

		for (int d = 0; d < nd; d++)
			h[0][d][o[d]] += ent_take[e];
	}
	for (int d = 0; d < nd; d++) {
		int a = -st->lo[d] - st->radius < 0 ? 0 :
						      -st->lo[d] - st->radius;
		int64_t *z0 = h[0][d] + a, *z1 = h[1][d] + a;

		for (int x = 0; x < w[d]; x++)
			z0[x] += z1[x];
		total += loc__mm_axis_pairs(z0, w[d],
					    st->torus[d] ? st->len[d] : 0);
	}
	return total;
}

/* Total pairwise hops of the set the last walk found. */
int64_t loc__mm_walk_cost(loc__mm_t *st)
{
#if MM_VECTORS
	if (st->nent > MM_FEW_POINTS && st->nent <= MM_VECTOR_PAIRS &&
	    st->pairs32 && st->simd >= LOC_SIMD_AVX2)
		return loc__mm_walk_cost_avx2(st);
#endif
	if (st->nent <= MM_DIRECT_PAIRS) {
		switch (st->nd) {
		case 1:
			return _mm_walk_cost_direct(st, 1);
		case 2:
			return _mm_walk_cost_direct(st, 2);
		case 3:
			return _mm_walk_cost_direct(st, 3);
		default:
			return _mm_walk_cost_direct(st, 4);
		}
	}

	switch (st->nd) {
	case 1:
		return _mm_walk_cost_hist(st, 1);
	case 2:
		return _mm_walk_cost_hist(st, 2);
	case 3:
		return _mm_walk_cost_hist(st, 3);
	default:
		return _mm_walk_cost_hist(st, 4);
	}
}
