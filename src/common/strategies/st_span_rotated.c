/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_span_rotated.c - span's least window for any k, window totals in 64
 * bits: the rotated search, sixteen lanes with AVX-512, eight with AVX2.
 *
 * The striped search (st_span_stripes.c) needs 16 k <= nwin, as each lane
 * reads k rows past its stripe. Here the stripes cover x[0, nwin + k)
 * once (L rows and one more, the next lane's first value), and lane l
 * reads x[i + k] = x[(l+q) L + t + s] from row t + s of lane l + q, or
 * past row L from row t + s - L of lane l + q + 1: one lane rotation a
 * step instead of k rows more a lane. A lane's windows are totalled
 * relative to its first window, D(l L + t) - D(l L), in a 32-bit R (16
 * steps below LOC_SPAN_STEP_LIMIT) moved into a 64-bit base every 16
 * steps; the lanes' first totals are then chained from window 0's,
 * D((l+1) L) = D(l L) + lane l's base after L steps. Only W needs a start
 * per lane, P[l L + k] - P[l L + 1] (exact modulo 2^32, as the steps only
 * need; W and the steps are those of st_span_stripes.c), from per-lane
 * sums of the rows.
 *
 * Each lane keeps its least per block of 16 steps; the window of the
 * winning lane's block that reached it is found again in scalar code
 * (_first_at()). AVX2 has no masks nor 64-to-32-bit saturation: the lane
 * not scored past window nwin costs two operations a step, and the
 * block's threshold is clamped by compares, once a block.
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

/* Each lane's first inner sum, W = P[l L + k] - P[l L + 1], wrapping,
 * from the sums of each lane's rows: all L (sum) and the first s (part). */
static void _first_inner(const uint32_t *sum, const uint32_t *part,
			 const int32_t *xs, const stripes_t *st, uint32_t *w)
{
	uint32_t start[17];

	/* start[l] = P[l L]. */
	start[0] = 0;
	for (int l = 0; l < st->lanes; l++)
		start[l + 1] = start[l] + sum[l];
	for (int l = 0; l < st->lanes; l++) {
		/* Lanes past the last with windows: any value. */
		int a = l + st->q < st->lanes ? l + st->q : st->lanes - 1;

		w[l] = start[a] + part[a] - (start[l] + (uint32_t)xs[l]);
	}
}

/* The sum of rows [from, to), four chains of adds: one would wait on
 * each add, a row a cycle. */
__attribute__((target("avx512f")))
static __m512i _rows_sum16(const int32_t *xs, int from, int to)
{
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
	int r = from;

	for (; r + 4 <= to; r += 4) {
		a0 = _mm512_add_epi32(a0, _mm512_load_si512(xs + 16 * r));
		a1 = _mm512_add_epi32(a1, _mm512_load_si512(xs + 16 * r + 16));
		a2 = _mm512_add_epi32(a2, _mm512_load_si512(xs + 16 * r + 32));
		a3 = _mm512_add_epi32(a3, _mm512_load_si512(xs + 16 * r + 48));
	}
	for (; r < to; r++)
		a0 = _mm512_add_epi32(a0, _mm512_load_si512(xs + 16 * r));
	return _mm512_add_epi32(_mm512_add_epi32(a0, a1),
				_mm512_add_epi32(a2, a3));
}

__attribute__((target("avx512f")))
static __m512i _first_inner16(const int32_t *xs, const stripes_t *st)
{
	__m512i before_s = _rows_sum16(xs, 0, st->s);
	uint32_t sum[16], part[16], w[16];

	_mm512_storeu_si512(sum, _mm512_add_epi32(
					 before_s,
					 _rows_sum16(xs, st->s, st->len)));
	_mm512_storeu_si512(part, before_s);
	_first_inner(sum, part, xs, st, w);
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
static void _slide_rotated16(const int32_t *xs, int k, const stripes_t *st,
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
	__m512i w = _first_inner16(xs, st), r = _mm512_setzero_si512();
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

/* Lanes 0-3 and 4-7 of v in 64 bits. */
__attribute__((target("avx2")))
static inline __m256i _lo64x4(__m256i v)
{
	return _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
}

__attribute__((target("avx2")))
static inline __m256i _hi64x4(__m256i v)
{
	return _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
}

/* Four int64 lanes saturated to int32, in the low 128 bits. */
__attribute__((target("avx2")))
static inline __m128i _sat32x4(__m256i v)
{
	const __m256i lo = _mm256_set1_epi64x(INT32_MIN);
	const __m256i hi = _mm256_set1_epi64x(INT32_MAX);

	v = _mm256_blendv_epi8(v, hi, _mm256_cmpgt_epi64(v, hi));
	v = _mm256_blendv_epi8(v, lo, _mm256_cmpgt_epi64(lo, v));
	return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
		v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

/* As _rows_sum16(), eight lanes. */
__attribute__((target("avx2")))
static __m256i _rows_sum8(const int32_t *xs, int from, int to)
{
	const __m256i *row = (const __m256i *)xs;
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
	int r = from;

	for (; r + 4 <= to; r += 4) {
		a0 = _mm256_add_epi32(a0, _mm256_load_si256(row + r));
		a1 = _mm256_add_epi32(a1, _mm256_load_si256(row + r + 1));
		a2 = _mm256_add_epi32(a2, _mm256_load_si256(row + r + 2));
		a3 = _mm256_add_epi32(a3, _mm256_load_si256(row + r + 3));
	}
	for (; r < to; r++)
		a0 = _mm256_add_epi32(a0, _mm256_load_si256(row + r));
	return _mm256_add_epi32(_mm256_add_epi32(a0, a1),
				_mm256_add_epi32(a2, a3));
}

__attribute__((target("avx2")))
static __m256i _first_inner8(const int32_t *xs, const stripes_t *st)
{
	__m256i before_s = _rows_sum8(xs, 0, st->s);
	uint32_t sum[8], part[8], w[8];

	_mm256_storeu_si256((__m256i *)sum,
			    _mm256_add_epi32(before_s,
					     _rows_sum8(xs, st->s, st->len)));
	_mm256_storeu_si256((__m256i *)part, before_s);
	_first_inner(sum, part, xs, st, w);
	return _mm256_loadu_si256((const __m256i *)w);
}

/* The eight lanes' running values across the steps. */
typedef struct lanes8 {
	__m256i r, w, thr, far;
} lanes8_t;

/*
 * Steps [t, u) of _slide_rotated8(), lane l's window x[i + k] from lane
 * by[l] of rows_k. Without AVX-512's masks a lane not scored costs two
 * operations a step, so only the steps past lane last's windows pay them
 * (masked: the lanes `in` all ones, the others at INT32_MAX in cap); the
 * lanes past it are never read.
 */
__attribute__((target("avx2"), always_inline))
static inline void _steps8(const int32_t *xs, const int32_t *rows_k, int t,
			   int u, __m256i by, int k, bool masked, __m256i in,
			   __m256i cap, lanes8_t *v)
{
	const __m256i km1 = _mm256_set1_epi32(k - 1);
	__m256i r = v->r, w = v->w, thr = v->thr, far = v->far;

	for (; t < u; t++) {
		__m256i xa = _mm256_load_si256((const __m256i *)(xs + 8 * t));
		__m256i xa1 = _mm256_load_si256(
			(const __m256i *)(xs + 8 * (t + 1)));
		__m256i xk = _mm256_permutevar8x32_epi32(
			_mm256_load_si256((const __m256i *)(rows_k + 8 * t)),
			by);
		__m256i spread = _mm256_sub_epi32(xk, xa);

		thr = _mm256_min_epi32(thr, masked ? _mm256_max_epi32(r, cap)
						   : r);
		far = _mm256_max_epi32(
			far, masked ? _mm256_and_si256(spread, in) : spread);
		r = _mm256_add_epi32(
			r, _mm256_sub_epi32(
				   _mm256_mullo_epi32(km1,
						      _mm256_add_epi32(xa, xk)),
				   _mm256_slli_epi32(w, 1)));
		w = _mm256_add_epi32(w, _mm256_sub_epi32(xk, xa1));
	}
	v->r = r, v->w = w, v->thr = thr, v->far = far;
}

/* As _slide_rotated16(), eight lanes: wblk[8 b + l]. */
__attribute__((target("avx2")))
static void _slide_rotated8(const int32_t *xs, int k, const stripes_t *st,
			    int32_t *wblk, rotated_t *o)
{
	const int len = st->len;
	const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const __m256i top = _mm256_set1_epi32(7);
	const __m256i by_q = _mm256_min_epi32(
		_mm256_add_epi32(iota, _mm256_set1_epi32(st->q)), top);
	const __m256i by_q1 = _mm256_min_epi32(
		_mm256_add_epi32(iota, _mm256_set1_epi32(st->q + 1)), top);
	/* Past window nwin: lanes below last scored, lane last not. */
	const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32(st->last),
					      iota);
	const __m256i cap = _mm256_blendv_epi8(_mm256_set1_epi32(INT32_MAX),
					       _mm256_set1_epi32(INT32_MIN),
					       in);
	lanes8_t v = { .w = _first_inner8(xs, st) };
	__m256i blk = v.r, rel = v.r, base_lo = v.r, base_hi = v.r;
	__m256i least_lo = _mm256_set1_epi64x(INT64_MAX), least_hi = least_lo;
	int64_t b[8];
	int32_t rl[8];

	for (int t0 = 0; t0 < len; t0 += 16) {
		int t1 = t0 + 16 < len ? t0 + 16 : len;
		__m256i thr0, met;

		v.thr = _mm256_inserti128_si256(
			_mm256_castsi128_si256(_sat32x4(
				_mm256_sub_epi64(least_lo, base_lo))),
			_sat32x4(_mm256_sub_epi64(least_hi, base_hi)), 1);
		thr0 = v.thr;
		_mm256_storeu_si256((__m256i *)(wblk + t0 / 2), v.w);
		for (int t = t0; t < t1;) {
			int u = t1, wrap = t + st->s >= len;
			__m256i by = wrap ? by_q1 : by_q;
			const int32_t *rows_k = xs + 8 * (st->s - (wrap ? len : 0));

			if (t < st->ends && st->ends < u)
				u = st->ends;
			if (!wrap && len - st->s < u)
				u = len - st->s;
			if (t == st->ends) {
				_mm256_storeu_si256((__m256i *)rl, v.r);
				_mm256_storeu_si256((__m256i *)b, base_lo);
				_mm256_storeu_si256((__m256i *)(b + 4), base_hi);
				o->next_rel = b[st->last] + rl[st->last];
			}
			if (t < st->ends)
				_steps8(xs, rows_k, t, u, by, k, false, in, cap,
					&v);
			else
				_steps8(xs, rows_k, t, u, by, k, true, in, cap,
					&v);
			t = u;
		}
		met = _mm256_cmpgt_epi32(thr0, v.thr);
		blk = _mm256_blendv_epi8(blk, _mm256_set1_epi32(t0), met);
		rel = _mm256_blendv_epi8(rel, v.thr, met);
		least_lo = _mm256_blendv_epi8(
			least_lo, _mm256_add_epi64(base_lo, _lo64x4(v.thr)),
			_lo64x4(met));
		least_hi = _mm256_blendv_epi8(
			least_hi, _mm256_add_epi64(base_hi, _hi64x4(v.thr)),
			_hi64x4(met));
		base_lo = _mm256_add_epi64(base_lo, _lo64x4(v.r));
		base_hi = _mm256_add_epi64(base_hi, _hi64x4(v.r));
		v.r = _mm256_setzero_si256();
	}
	_mm256_storeu_si256((__m256i *)o->base, base_lo);
	_mm256_storeu_si256((__m256i *)(o->base + 4), base_hi);
	if (st->ends == len)
		o->next_rel = o->base[st->last];
	_mm256_storeu_si256((__m256i *)o->least, least_lo);
	_mm256_storeu_si256((__m256i *)(o->least + 4), least_hi);
	_mm256_storeu_si256((__m256i *)o->blk, blk);
	_mm256_storeu_si256((__m256i *)o->rel, rel);
	_mm256_storeu_si256((__m256i *)o->far, v.far);
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
	stripes_t st = { .lanes = level >= LOC_SIMD_AVX512 ? 16 : 8 };
	int32_t *wblk;
	rotated_t o;
	int64_t first;
	int lane = 0;

	if (level < LOC_SIMD_AVX2 || k < 2 || nwin < 256 || nwin + k > m)
		return false;
	/* Every total, at most floor(k/2) ceil(k/2) spread, in an int64. */
	if ((double)(k / 2) * ((k + 1) / 2) *
		    ((double)x[nwin + k - 1] - x[0]) >= 0x1p62)
		return false;
	st.len = loc__span_stripe_len(nwin + k, st.lanes);
	st.rows = st.len + 16;
	st.last = (nwin - 1) / st.len;
	st.ends = nwin - st.last * st.len;
	st.q = k / st.len;
	st.s = k % st.len;
	/* The rows, then W per block of 16 rows (len a multiple of 16). */
	if ((size_t)st.lanes * (st.rows + st.len / 16) + 16 > room)
		return false;
	wblk = xs + st.lanes * st.rows;
	if (st.lanes == 16) {
		loc__span_stripe16(x, nwin + k, &st, xs);
		_slide_rotated16(xs, k, &st, wblk, &o);
	} else {
		loc__span_stripe8(x, nwin + k, &st, xs);
		_slide_rotated8(xs, k, &st, wblk, &o);
	}
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
			    (uint32_t)wblk[st.lanes * (o.blk[lane] / 16) + lane],
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
