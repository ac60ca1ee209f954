/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_span_stripes.c - span's least window with vectors, one stripe of
 * consecutive windows a lane: sixteen stripes with AVX-512, eight with
 * AVX2 (st_span_rotated.c, for any k in 64 bits, lays its stripes out
 * with loc__span_stripe16() and loc__span_stripe8() here).
 *
 * st_span_simd.c scores a vector of consecutive windows a step, from
 * prefix sums built across the register: two in-register scans a step,
 * eight shuffles and eight adds of the forty or so operations of its
 * AVX-512 pass. Here the windows [0, nwin) are cut into sixteen (eight)
 * stripes of L consecutive ones, lane l taking windows l L .. l L + L - 1,
 * and every lane slides its own window one position a step, as the scalar
 * scan does:
 *   D(i+1) = D(i) + (k-1) (x[i] + x[i+k]) - 2 W(i),
 *   W(i)   = x[i+1] + ... + x[i+k-1],   W(i+1) = W(i) + x[i+k] - x[i+1],
 * a dozen operations and no shuffle. The lanes read x striped: row r holds
 * x[l L + r] in lane l, written once by 16x16 (8x8) transposes for rows
 * 0 .. L+k-1 (a lane reads k rows past its stripe, into the next one).
 * Each lane starts from its first window's total, summed down the first k
 * rows. The arithmetic is 32-bit and wraps: D and W are integer
 * combinations of x, so D comes out right modulo 2^32, hence exactly when
 * the caller's bound says every total fits in an int32 (st_span_simd.c).
 *
 * Worth it while the stripes are long against k: the transposes and the
 * first totals cost k rows more. Measured at 32,768 nodes half free, on
 * an AMD EPYC with AVX-512 (doc/experiments.md, "Span in stripes",
 * 2026-11-27): st_span_simd.c's 7.7 us (AVX-512 or AVX2) became 4.0 us
 * at k=64 and 4.3-4.6 us at k=512; today's figures: doc/performance.md.
 */
#include <limits.h>
#include <stddef.h>

#include "st_span.h"
#include "st_span_stripes.h"

int loc__span_stripe_len(int n, int lanes)
{
	int len = (n + 16 * lanes - 1) / (16 * lanes) * 16;

	return len % 32 ? len : len + 16;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* In place: r[c] gets column c of the 16x16 matrix whose rows were r. */
__attribute__((target("avx512f")))
static inline void _transpose16(__m512i r[16])
{
	__m512i a[16], b[16];

	/* Pairs of rows interleaved, then pairs of pairs: b[4g + c] holds,
	 * in its 128-bit lane q, column 4q + c of rows 4g .. 4g+3. */
#pragma GCC unroll 16
	for (int i = 0; i < 16; i += 2) {
		a[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
		a[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
	}
#pragma GCC unroll 16
	for (int i = 0; i < 16; i += 4) {
		b[i] = _mm512_unpacklo_epi64(a[i], a[i + 2]);
		b[i + 1] = _mm512_unpackhi_epi64(a[i], a[i + 2]);
		b[i + 2] = _mm512_unpacklo_epi64(a[i + 1], a[i + 3]);
		b[i + 3] = _mm512_unpackhi_epi64(a[i + 1], a[i + 3]);
	}
	/* Column 4q + c: lane q of b[c], b[4 + c], b[8 + c], b[12 + c]. */
#pragma GCC unroll 4
	for (int c = 0; c < 4; c++) {
		__m512i u0 = _mm512_shuffle_i32x4(b[c], b[4 + c], 0x44);
		__m512i u1 = _mm512_shuffle_i32x4(b[c], b[4 + c], 0xee);
		__m512i v0 = _mm512_shuffle_i32x4(b[8 + c], b[12 + c], 0x44);
		__m512i v1 = _mm512_shuffle_i32x4(b[8 + c], b[12 + c], 0xee);

		r[c] = _mm512_shuffle_i32x4(u0, v0, 0x88);
		r[4 + c] = _mm512_shuffle_i32x4(u0, v0, 0xdd);
		r[8 + c] = _mm512_shuffle_i32x4(u1, v1, 0x88);
		r[12 + c] = _mm512_shuffle_i32x4(u1, v1, 0xdd);
	}
}

__attribute__((target("avx512f")))
void loc__span_stripe16(const int *x, int m, const stripes_t *st,
			int32_t *xs)
{
	for (int r0 = 0; r0 < st->rows; r0 += 16) {
		__m512i r[16];

		if (15 * (int64_t)st->len + r0 + 16 <= m) {
#pragma GCC unroll 16
			for (int l = 0; l < 16; l++)
				r[l] = _mm512_loadu_si512(x + l * st->len + r0);
		} else for (int l = 0; l < 16; l++) {
			int64_t at = (int64_t)l * st->len + r0;
			int64_t left = m - at;
			__mmask16 in = left >= 16 ? 0xffff :
				       left <= 0  ? 0 :
						    (__mmask16)((1u << left) - 1);

			r[l] = _mm512_maskz_loadu_epi32(in, x + (left > 0 ? at
									  : 0));
		}
		_transpose16(r);
#pragma GCC unroll 16
		for (int c = 0; c < 16; c++)
			_mm512_store_si512(xs + 16 * (r0 + c), r[c]);
	}
}

/* Each lane's window total and inner sum, its least total, first window
 * of it, largest x[i+k] - x[i], and the window it is at. */
typedef struct slide16 {
	__m512i d, w, mn, arg, far, t;
} slide16_t;

/* Windows t of every lane in [t0, t1), those of lanes `in` scored. */
__attribute__((target("avx512f")))
static void _slide16(const int32_t *xs, int k, int t0, int t1, __mmask16 in,
		     slide16_t *s)
{
	const __m512i km1 = _mm512_set1_epi32(k - 1);
	const __m512i one = _mm512_set1_epi32(1);
	/* In registers: a vector type may alias xs, so through s every
	 * step would store and reload them. */
	__m512i d = s->d, w = s->w, mn = s->mn, arg = s->arg, far = s->far;
	__m512i t = s->t, xa = _mm512_load_si512(xs + 16 * t0);

	for (int r = t0; r < t1; r++) {
		__m512i xa1 = _mm512_load_si512(xs + 16 * (r + 1));
		__m512i xk = _mm512_load_si512(xs + 16 * (r + k));
		/* Strictly less: each lane keeps its first least window.
		 * The least by min, not by the mask: one cycle a step on
		 * the chain from one step to the next. */
		__mmask16 lt = _mm512_mask_cmplt_epi32_mask(in, d, mn);

		mn = _mm512_mask_min_epi32(mn, in, mn, d);
		arg = _mm512_mask_mov_epi32(arg, lt, t);
		far = _mm512_mask_max_epi32(far, in, far,
					    _mm512_sub_epi32(xk, xa));
		d = _mm512_add_epi32(
			d, _mm512_sub_epi32(
				   _mm512_mullo_epi32(km1,
						      _mm512_add_epi32(xa, xk)),
				   _mm512_slli_epi32(w, 1)));
		w = _mm512_add_epi32(w, _mm512_sub_epi32(xk, xa1));
		t = _mm512_add_epi32(t, one);
		xa = xa1;
	}
	s->d = d, s->w = w, s->mn = mn, s->arg = arg, s->far = far, s->t = t;
}

/* Each lane's first window: D = sum over j < k of (2j - (k-1)) x[j] and
 * W = x[1] + ... + x[k-1], down the first k rows. */
__attribute__((target("avx512f")))
static void _first_windows16(const int32_t *xs, int k, slide16_t *s)
{
	const __m512i two = _mm512_set1_epi32(2);
	__m512i c = _mm512_set1_epi32(1 - k);
	__m512i d = _mm512_setzero_si512(), w = d;

	for (int j = 0; j < k; j++) {
		__m512i xj = _mm512_load_si512(xs + 16 * j);

		d = _mm512_add_epi32(d, _mm512_mullo_epi32(c, xj));
		if (j)
			w = _mm512_add_epi32(w, xj);
		c = _mm512_add_epi32(c, two);
	}
	s->d = d;
	s->w = w;
}

/* The least of the lanes' least totals, its first window, and far. */
static void _reduce(const stripes_t *st, const int32_t *lmn,
		    const int32_t *larg, const int32_t *lfar,
		    loc__span_least_t *out)
{
	int64_t far = 0;

	out->best = INT64_MAX;
	out->at = 0;
	for (int l = 0; l <= st->last; l++) {
		/* In window order: lane by lane, the first least in each. */
		if (lmn[l] < out->best) {
			out->best = lmn[l];
			out->at = l * st->len + larg[l];
		}
		far = lfar[l] > far ? lfar[l] : far;
	}
	out->far = far;
}

__attribute__((target("avx512f")))
static void _least16(const int *x, int m, int k, const stripes_t *st,
		     int32_t *xs, loc__span_least_t *out)
{
	int32_t lmn[16], larg[16], lfar[16];
	slide16_t s;

	loc__span_stripe16(x, m, st, xs);
	_first_windows16(xs, k, &s);
	s.mn = _mm512_set1_epi32(INT32_MAX);
	s.arg = s.far = s.t = _mm512_setzero_si512();
	_slide16(xs, k, 0, st->ends, (__mmask16)((2u << st->last) - 1), &s);
	/* Lane last has just stepped past window nwin - 1: its total is
	 * window nwin's. */
	_mm512_storeu_si512(lmn, s.d);
	out->next = lmn[st->last];
	_slide16(xs, k, st->ends, st->len, (__mmask16)((1u << st->last) - 1),
		 &s);
	_mm512_storeu_si512(lmn, s.mn);
	_mm512_storeu_si512(larg, s.arg);
	_mm512_storeu_si512(lfar, s.far);
	_reduce(st, lmn, larg, lfar, out);
}

/* As _transpose16(), eight rows of eight. */
__attribute__((target("avx2")))
static inline void _transpose8(__m256i r[8])
{
	__m256i a[8], b[8];

#pragma GCC unroll 8
	for (int i = 0; i < 8; i += 2) {
		a[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
		a[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
	}
#pragma GCC unroll 8
	for (int i = 0; i < 8; i += 4) {
		b[i] = _mm256_unpacklo_epi64(a[i], a[i + 2]);
		b[i + 1] = _mm256_unpackhi_epi64(a[i], a[i + 2]);
		b[i + 2] = _mm256_unpacklo_epi64(a[i + 1], a[i + 3]);
		b[i + 3] = _mm256_unpackhi_epi64(a[i + 1], a[i + 3]);
	}
	/* Column 4q + c: lane q of b[c] and of b[4 + c]. */
#pragma GCC unroll 4
	for (int c = 0; c < 4; c++) {
		r[c] = _mm256_permute2x128_si256(b[c], b[4 + c], 0x20);
		r[4 + c] = _mm256_permute2x128_si256(b[c], b[4 + c], 0x31);
	}
}

__attribute__((target("avx2")))
void loc__span_stripe8(const int *x, int m, const stripes_t *st, int32_t *xs)
{
	const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);

	for (int r0 = 0; r0 < st->rows; r0 += 8) {
		__m256i r[8];

		if (7 * (int64_t)st->len + r0 + 8 <= m) {
#pragma GCC unroll 8
			for (int l = 0; l < 8; l++)
				r[l] = _mm256_loadu_si256(
					(const __m256i *)(x + l * st->len + r0));
		} else for (int l = 0; l < 8; l++) {
			int64_t at = (int64_t)l * st->len + r0;
			int left = m - at > 8 ? 8 : m - at < 0 ? 0 : (int)(m - at);
			__m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32(left),
							iota);

			r[l] = _mm256_maskload_epi32(x + (left > 0 ? at : 0), in);
		}
		_transpose8(r);
#pragma GCC unroll 8
		for (int c = 0; c < 8; c++)
			_mm256_store_si256((__m256i *)(xs + 8 * (r0 + c)), r[c]);
	}
}

typedef struct slide8 {
	__m256i d, w, mn, arg, far, t;
} slide8_t;

/* As _slide16(), eight lanes, `in` all ones in the lanes scored. */
__attribute__((target("avx2")))
static void _slide8(const int32_t *xs, int k, int t0, int t1, __m256i in,
		    slide8_t *s)
{
	const __m256i km1 = _mm256_set1_epi32(k - 1);
	const __m256i one = _mm256_set1_epi32(1);
	const __m256i none = _mm256_set1_epi32(INT32_MAX);
	__m256i d = s->d, w = s->w, mn = s->mn, arg = s->arg, far = s->far;
	__m256i t = s->t;
	__m256i xa = _mm256_load_si256((const __m256i *)(xs + 8 * t0));

	for (int r = t0; r < t1; r++) {
		__m256i xa1 = _mm256_load_si256(
			(const __m256i *)(xs + 8 * (r + 1)));
		__m256i xk = _mm256_load_si256(
			(const __m256i *)(xs + 8 * (r + k)));
		__m256i lt = _mm256_and_si256(in, _mm256_cmpgt_epi32(mn, d));

		/* As _slide16(): the least by min, lanes not scored at
		 * INT32_MAX. */
		mn = _mm256_min_epi32(mn, _mm256_blendv_epi8(none, d, in));
		arg = _mm256_blendv_epi8(arg, t, lt);
		/* Spreads are >= 0: a lane not scored adds 0. */
		far = _mm256_max_epi32(
			far, _mm256_and_si256(in, _mm256_sub_epi32(xk, xa)));
		d = _mm256_add_epi32(
			d, _mm256_sub_epi32(
				   _mm256_mullo_epi32(km1,
						      _mm256_add_epi32(xa, xk)),
				   _mm256_slli_epi32(w, 1)));
		w = _mm256_add_epi32(w, _mm256_sub_epi32(xk, xa1));
		t = _mm256_add_epi32(t, one);
		xa = xa1;
	}
	s->d = d, s->w = w, s->mn = mn, s->arg = arg, s->far = far, s->t = t;
}

__attribute__((target("avx2")))
static void _first_windows8(const int32_t *xs, int k, slide8_t *s)
{
	const __m256i two = _mm256_set1_epi32(2);
	__m256i c = _mm256_set1_epi32(1 - k);
	__m256i d = _mm256_setzero_si256(), w = d;

	for (int j = 0; j < k; j++) {
		__m256i xj = _mm256_load_si256((const __m256i *)(xs + 8 * j));

		d = _mm256_add_epi32(d, _mm256_mullo_epi32(c, xj));
		if (j)
			w = _mm256_add_epi32(w, xj);
		c = _mm256_add_epi32(c, two);
	}
	s->d = d;
	s->w = w;
}

/* Lanes 0 .. n-1 all ones. */
__attribute__((target("avx2")))
static inline __m256i _lanes8(int n)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
				  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

__attribute__((target("avx2")))
static void _least8(const int *x, int m, int k, const stripes_t *st,
		    int32_t *xs, loc__span_least_t *out)
{
	int32_t lmn[8], larg[8], lfar[8];
	slide8_t s;

	loc__span_stripe8(x, m, st, xs);
	_first_windows8(xs, k, &s);
	s.mn = _mm256_set1_epi32(INT32_MAX);
	s.arg = s.far = s.t = _mm256_setzero_si256();
	_slide8(xs, k, 0, st->ends, _lanes8(st->last + 1), &s);
	_mm256_storeu_si256((__m256i *)lmn, s.d);
	out->next = lmn[st->last];
	_slide8(xs, k, st->ends, st->len, _lanes8(st->last), &s);
	_mm256_storeu_si256((__m256i *)lmn, s.mn);
	_mm256_storeu_si256((__m256i *)larg, s.arg);
	_mm256_storeu_si256((__m256i *)lfar, s.far);
	_reduce(st, lmn, larg, lfar, out);
}

bool loc__span_least_stripes(const int *x, int m, int k, int nwin,
			     uint32_t *scratch, size_t room,
			     loc__span_least_t *out, loc_simd_t level)
{
	int32_t *xs = (int32_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
	stripes_t st = { .lanes = level >= LOC_SIMD_AVX512 ? 16 : 8 };

	if (level == LOC_SIMD_NONE || k < 2 || nwin < 256 || nwin + k > m)
		return false;
	st.len = loc__span_stripe_len(nwin, st.lanes);
	st.rows = (st.len + k + 15) / 16 * 16;
	st.last = (nwin - 1) / st.len;
	st.ends = nwin - st.last * st.len;
	/* Long stripes only, and room for the rows after aligning. */
	if (16 * (int64_t)k > nwin ||
	    (size_t)st.lanes * st.rows + 16 > room)
		return false;
	if (level >= LOC_SIMD_AVX512)
		_least16(x, m, k, &st, xs, out);
	else
		_least8(x, m, k, &st, xs, out);
	return true;
}
#else
bool loc__span_least_stripes(const int *x, int m, int k, int nwin,
			     uint32_t *scratch, size_t room,
			     loc__span_least_t *out, loc_simd_t level)
{
	(void)x, (void)m, (void)k, (void)nwin, (void)scratch, (void)room;
	(void)out, (void)level;
	return false;
}
#endif
