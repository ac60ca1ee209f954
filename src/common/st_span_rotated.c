/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_span_rotated.c - span's least window with AVX-512 for any k, window
 * totals in 64 bits: the rotated search.
 *
 * The striped search (st_span_stripes.c) needs 16 k <= nwin, as each lane
 * reads k rows past its stripe. Here the sixteen stripes cover
 * x[0, nwin + k) once (L rows and one more, the next lane's first value),
 * and lane l reads x[i + k] = x[(l+q) L + t + s] from row t + s
 * of lane l + q, or past row L from row t + s - L of lane l + q + 1: one
 * lane rotation a step instead of k rows more a lane. A lane's windows
 * are totalled relative to its first window, D(l L + t) - D(l L), in a
 * 32-bit R (16 steps below LOC_SPAN_STEP_LIMIT) moved into a 64-bit base
 * every 16 steps; the lanes' first totals are then chained from window
 * 0's, D((l+1) L) = D(l L) + lane l's base after L steps. Only W needs a
 * start per lane, P[l L + k] - P[l L + 1] (exact modulo 2^32, as the
 * steps only need; W and the steps are those of st_span_stripes.c), from
 * per-lane sums of the rows.
 */
#include <limits.h>
#include <stddef.h>

#include "st_span.h"
#include "st_span_stripes.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Lanes 0-7 and 8-15 of v in 64 bits. */
__attribute__((target("avx512f")))
static inline __m512i _lo64(__m512i v)
{
	return _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
}

__attribute__((target("avx512f")))
static inline __m512i _hi64(__m512i v)
{
	return _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
}

/* Each lane's first inner sum, W = P[l L + k] - P[l L + 1], wrapping. */
__attribute__((target("avx512f")))
static __m512i _first_inner(const int32_t *xs, const stripes_t *st)
{
	__m512i before_s = _mm512_setzero_si512(), from_s = before_s;
	uint32_t sum[16], part[16], start[17], w[16];

	/* Two sums: no branch, and two chains of adds. */
	for (int r = 0; r < st->s; r++)
		before_s = _mm512_add_epi32(before_s,
					    _mm512_load_si512(xs + 16 * r));
	for (int r = st->s; r < st->len; r++)
		from_s = _mm512_add_epi32(from_s,
					  _mm512_load_si512(xs + 16 * r));
	_mm512_storeu_si512(sum, _mm512_add_epi32(before_s, from_s));
	_mm512_storeu_si512(part, before_s);
	/* start[l] = P[l L]. */
	start[0] = 0;
	for (int l = 0; l < 16; l++)
		start[l + 1] = start[l] + sum[l];
	for (int l = 0; l < 16; l++) {
		/* Lanes past the last with windows: any value. */
		int a = l + st->q < 16 ? l + st->q : 15;

		w[l] = start[a] + part[a] - (start[l] + (uint32_t)xs[l]);
	}
	return _mm512_loadu_si512(w);
}

/* Every lane's relative totals: per lane the least, the block of 16
 * steps that first reached it and its total there relative to the
 * block's first window, the base after L steps, far, and (at nwin)
 * *next_rel. */
typedef struct rotated {
	int64_t least[16], base[16], next_rel;
	int32_t blk[16], rel[16], far[16];
} rotated_t;

/* wblk[16 b + l]: lane l's W at the first window of block b. */
__attribute__((target("avx512f")))
static void _slide_rotated(const int32_t *xs, int k, const stripes_t *st,
			   int32_t *wblk, rotated_t *o)
{
	const int len = st->len;
	const __m512i km1 = _mm512_set1_epi32(k - 1);
	const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
					       10, 11, 12, 13, 14, 15);
	const __m512i top = _mm512_set1_epi32(15);
	const __m512i by_q = _mm512_min_epi32(
		_mm512_add_epi32(iota, _mm512_set1_epi32(st->q)), top);
	const __m512i by_q1 = _mm512_min_epi32(
		_mm512_add_epi32(iota, _mm512_set1_epi32(st->q + 1)), top);
	const __mmask16 in_all = (__mmask16)((2u << st->last) - 1);
	const __mmask16 in_rest = (__mmask16)((1u << st->last) - 1);
	__m512i w = _first_inner(xs, st), r = _mm512_setzero_si512();
	__m512i blk = r, rel = r, far = r, base_lo = r, base_hi = r;
	__m512i least_lo = _mm512_set1_epi64(INT64_MAX), least_hi = least_lo;
	int64_t b[16];
	int32_t rl[16];
	__mmask16 met;

	/* Each lane's least is only kept per block: which window of the
	 * block reached it is found again for the winning lane alone
	 * (_first_at()), which takes three operations a step off the
	 * loop. */
	for (int t0 = 0; t0 < len; t0 += 16) {
		int t1 = t0 + 16 < len ? t0 + 16 : len;
		/* Below thr, a lane's R beats its least so far (saturated). */
		__m512i thr = _mm512_inserti64x4(
			_mm512_castsi256_si512(_mm512_cvtsepi64_epi32(
				_mm512_sub_epi64(least_lo, base_lo))),
			_mm512_cvtsepi64_epi32(
				_mm512_sub_epi64(least_hi, base_hi)), 1);
		const __m512i thr0 = thr;

		_mm512_store_si512(wblk + t0, w);

		/* Runs with one row offset, rotation and lane mask: they
		 * change where t + s passes L, and past window nwin. */
		for (int t = t0; t < t1;) {
			int u = t1, wrap = t + st->s >= len;
			__mmask16 in = t < st->ends ? in_all : in_rest;
			__m512i by = wrap ? by_q1 : by_q;
			const int32_t *rows_k = xs + 16 * (st->s - (wrap ? len : 0));

			if (t < st->ends && st->ends < u)
				u = st->ends;
			if (!wrap && len - st->s < u)
				u = len - st->s;
			if (t == st->ends) {
				/* Lane last is at window nwin. */
				_mm512_storeu_si512(rl, r);
				_mm512_storeu_si512(b, base_lo);
				_mm512_storeu_si512(b + 8, base_hi);
				o->next_rel = b[st->last] + rl[st->last];
			}
			for (; t < u; t++) {
				__m512i xa = _mm512_load_si512(xs + 16 * t);
				__m512i xa1 = _mm512_load_si512(xs + 16 * (t + 1));
				__m512i xk = _mm512_permutexvar_epi32(
					by, _mm512_load_si512(rows_k + 16 * t));
				thr = _mm512_mask_min_epi32(thr, in, thr, r);
				far = _mm512_mask_max_epi32(
					far, in, far, _mm512_sub_epi32(xk, xa));
				r = _mm512_add_epi32(
					r, _mm512_sub_epi32(
						   _mm512_mullo_epi32(
							   km1, _mm512_add_epi32(
									xa, xk)),
						   _mm512_slli_epi32(w, 1)));
				w = _mm512_add_epi32(w,
						     _mm512_sub_epi32(xk, xa1));
			}
		}
		/* thr only ever falls: below thr0 in the lanes that met a
		 * new least (strictly: each lane keeps its first least). */
		met = _mm512_cmplt_epi32_mask(thr, thr0);
		blk = _mm512_mask_mov_epi32(blk, met, _mm512_set1_epi32(t0));
		rel = _mm512_mask_mov_epi32(rel, met, thr);
		/* A lane that met a new least: base + that R. */
		least_lo = _mm512_mask_add_epi64(least_lo, (__mmask8)met,
						 base_lo, _lo64(thr));
		least_hi = _mm512_mask_add_epi64(least_hi, (__mmask8)(met >> 8),
						 base_hi, _hi64(thr));
		base_lo = _mm512_add_epi64(base_lo, _lo64(r));
		base_hi = _mm512_add_epi64(base_hi, _hi64(r));
		r = _mm512_setzero_si512();
	}
	_mm512_storeu_si512(o->base, base_lo);
	_mm512_storeu_si512(o->base + 8, base_hi);
	if (st->ends == len)
		o->next_rel = o->base[st->last];
	_mm512_storeu_si512(o->least, least_lo);
	_mm512_storeu_si512(o->least + 8, least_hi);
	_mm512_storeu_si512(o->blk, blk);
	_mm512_storeu_si512(o->rel, rel);
	_mm512_storeu_si512(o->far, far);
}

/* The first window t of lane l's block from t0 whose total, relative to
 * the block's first, is rel: the kernel's steps for one lane, in the
 * same wrapping 32-bit arithmetic, from W = w at t0 (window i0 + t of x). */
static int _first_at(const int *x, int k, int i0, int t0, uint32_t w,
		     int32_t rel)
{
	uint32_t r = 0;
	int t = t0;

	for (; (int32_t)r != rel && t < t0 + 15; t++) {
		const uint32_t xa = (uint32_t)x[i0 + t];
		const uint32_t xk = (uint32_t)x[i0 + t + k];

		r += (uint32_t)(k - 1) * (xa + xk) - 2 * w;
		w += xk - (uint32_t)x[i0 + t + 1];
	}
	return t;
}

bool loc__span_least_rotated(const int *x, int m, int k, int nwin,
			     uint32_t *scratch, size_t room,
			     loc__span_least_t *out, loc_simd_t level)
{
	int32_t *xs = (int32_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
	stripes_t st = { .lanes = 16 };
	rotated_t o;
	int64_t first;
	int lane = 0;

	if (level < LOC_SIMD_AVX512 || k < 2 || nwin < 256 || nwin + k > m)
		return false;
	/* Every total, at most floor(k/2) ceil(k/2) spread, in an int64. */
	if ((double)(k / 2) * ((k + 1) / 2) *
		    ((double)x[nwin + k - 1] - x[0]) >= 0x1p62)
		return false;
	st.len = loc__span_stripe_len(nwin + k, 16);
	st.rows = st.len + 16;
	st.last = (nwin - 1) / st.len;
	st.ends = nwin - st.last * st.len;
	st.q = k / st.len;
	st.s = k % st.len;
	/* The rows, then W per block of 16 rows (len a multiple of 16). */
	if ((size_t)16 * st.rows + st.len + 16 > room)
		return false;
	loc__span_stripe16(x, nwin + k, &st, xs);
	_slide_rotated(xs, k, &st, xs + 16 * st.rows, &o);
	first = loc__span_first_total(x, k, level);
	out->best = INT64_MAX;
	out->far = 0;
	/* Lane by lane in window order, first = D(l L). */
	for (int l = 0; l <= st.last; l++) {
		if (first + o.least[l] < out->best) {
			out->best = first + o.least[l];
			lane = l;
		}
		out->far = o.far[l] > out->far ? o.far[l] : out->far;
		if (l == st.last)
			out->next = first + o.next_rel;
		first += o.base[l];
	}
	out->at = lane * st.len +
		  _first_at(x, k, lane * st.len, o.blk[lane],
			    (uint32_t)xs[16 * st.rows + o.blk[lane] + lane],
			    o.rel[lane]);
	return (int64_t)(k - 1) * out->far < LOC_SPAN_STEP_LIMIT;
}
#else
bool loc__span_least_rotated(const int *x, int m, int k, int nwin,
			     uint32_t *scratch, size_t room,
			     loc__span_least_t *out, loc_simd_t level)
{
	(void)x, (void)m, (void)k, (void)nwin, (void)scratch, (void)room;
	(void)out, (void)level;
	return false;
}
#endif
