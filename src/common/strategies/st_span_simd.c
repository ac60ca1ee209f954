/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_span_simd.c - span's least window with vectors: eight windows at a
 * time with AVX2, sixteen with AVX-512 (loc_simd.h chooses at run time;
 * without either, st_span.c's scalar scan runs).
 *
 * The scalar scan carries the window total D from one window to the next,
 * a chain that no vector can follow. The same total has a closed form over
 * prefix sums of the positions x, P[j] = x_0 + ... + x_{j-1} and
 * P2[j] = P[0] + ... + P[j-1]:
 *   D(i) = (k-1) (P[i+k] + P[i]) - 2 (P2[i+k] - P2[i+1])
 * in which every window stands alone. P and P2 are built a vector at a
 * time (a prefix sum inside the register plus the carry), and the least
 * total and its first window are kept per lane. With AVX2 a second pass
 * scores the windows; with AVX-512 the same pass does, from
 *   D(i) = F[i+k] + G[i],  F = (k-1) P - 2 P2,  G = F + 2 (P + 2 P2)
 * as G[i] was stored k positions earlier (k >= 16).
 *
 * The arithmetic is 32-bit and wraps: D is an integer combination of P and
 * P2, so it comes out right modulo 2^32, hence exactly whenever the true
 * total fits in an int32. A window's total is the sum over its gaps of
 * u (k - u) times the gap (u members to the gap's left), so it is at most
 * floor(k/2) ceil(k/2) times its spread; the 32-bit totals are kept only
 * when that bound fits for the caller's whole range, or for the widest
 * window met (k up to 512 at 32,768 nodes, and more on dense maps, or on
 * a ring's doubled ranks). Past it, the steps between consecutive totals
 * are scored instead, in 32-bit lanes, with the totals themselves kept in
 * 64 bits (_least_wide() below).
 *
 * The cheaper searches come first where they apply: the striped one
 * (st_span_stripes.c) for 32-bit totals while 16 k <= nwin, and the
 * rotated one (st_span_rotated.c) for any k, in 64 bits (both with AVX2
 * and AVX-512). The passes here run for fewer than 256 windows, and
 * when a step between totals might not fit in 32 bits.
 */
#include <limits.h>

#include "st_span.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Inclusive prefix sum of the eight lanes. */
__attribute__((target("avx2")))
static inline __m256i _scan8(__m256i v)
{
	__m256i lo3;

	v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
	v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
	/* Lane 3 of the low half, added to the high half. */
	lo3 = _mm256_shuffle_epi32(v, 0xff);
	lo3 = _mm256_permute2x128_si256(lo3, lo3, 0x08);
	return _mm256_add_epi32(v, lo3);
}

/* p[0..m] and p2[0..m], wrapping. */
__attribute__((target("avx2")))
static void _prefixes(const int *x, int m, uint32_t *p, uint32_t *p2)
{
	const __m256i top = _mm256_set1_epi32(7);
	__m256i cp = _mm256_setzero_si256(), cp2 = cp;
	int j = 0;

	p[0] = p2[0] = 0;
	for (; j + 8 <= m; j += 8) {
		__m256i xv = _mm256_loadu_si256((const __m256i *)(x + j));
		__m256i pin = _mm256_add_epi32(cp, _scan8(xv));
		__m256i pex = _mm256_sub_epi32(pin, xv);
		__m256i p2in = _mm256_add_epi32(cp2, _scan8(pex));

		_mm256_storeu_si256((__m256i *)(p + j + 1), pin);
		_mm256_storeu_si256((__m256i *)(p2 + j + 1), p2in);
		cp = _mm256_permutevar8x32_epi32(pin, top);
		cp2 = _mm256_permutevar8x32_epi32(p2in, top);
	}
	for (; j < m; j++) {
		p[j + 1] = p[j] + (uint32_t)x[j];
		p2[j + 1] = p2[j] + p[j];
	}
}

static inline int32_t _total(const uint32_t *p, const uint32_t *p2, int i,
			     int k)
{
	uint32_t d = (uint32_t)(k - 1) * (p[i + k] + p[i]) -
		     2u * (p2[i + k] - p2[i + 1]);

	return (int32_t)d;
}

/* Keeps the least total, the first window on ties. */
static inline void _take(loc__span_least_t *out, int64_t d, int i)
{
	if (d < out->best || (d == out->best && i < out->at)) {
		out->best = d;
		out->at = i;
	}
}

/* The least total over windows [0, nwin), its first window, and the
 * largest x_{i+k} - x_i among them. */
__attribute__((target("avx2")))
static void _least(const int *x, const uint32_t *p, const uint32_t *p2,
		   int k, int nwin, loc__span_least_t *out)
{
	const __m256i km1 = _mm256_set1_epi32(k - 1);
	const __m256i eight = _mm256_set1_epi32(8);
	__m256i mn = _mm256_set1_epi32(INT32_MAX), arg = _mm256_setzero_si256();
	__m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	__m256i tmax = _mm256_setzero_si256();
	int32_t lmn[8], larg[8], lt[8], far = 0;
	int i = 0;

	for (; i + 8 <= nwin; i += 8) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(p + i + k));
		__m256i c = _mm256_loadu_si256((const __m256i *)(p2 + i + 1));
		__m256i e = _mm256_loadu_si256((const __m256i *)(p2 + i + k));
		__m256i x0 = _mm256_loadu_si256((const __m256i *)(x + i));
		__m256i xk = _mm256_loadu_si256((const __m256i *)(x + i + k));
		__m256i d = _mm256_sub_epi32(
			_mm256_mullo_epi32(km1, _mm256_add_epi32(a, b)),
			_mm256_slli_epi32(_mm256_sub_epi32(e, c), 1));
		/* Strictly less: each lane keeps its first least window. */
		__m256i lt8 = _mm256_cmpgt_epi32(mn, d);

		mn = _mm256_min_epi32(mn, d);
		arg = _mm256_blendv_epi8(arg, idx, lt8);
		tmax = _mm256_max_epi32(tmax, _mm256_sub_epi32(xk, x0));
		idx = _mm256_add_epi32(idx, eight);
	}
	out->best = INT64_MAX;
	out->at = 0;
	_mm256_storeu_si256((__m256i *)lmn, mn);
	_mm256_storeu_si256((__m256i *)larg, arg);
	_mm256_storeu_si256((__m256i *)lt, tmax);
	for (int l = 0; l < 8 && i > 0; l++) {
		_take(out, lmn[l], larg[l]);
		far = lt[l] > far ? lt[l] : far;
	}
	for (; i < nwin; i++) {
		_take(out, _total(p, p2, i, k), i);
		far = x[i + k] - x[i] > far ? x[i + k] - x[i] : far;
	}
	out->far = far;
}

/* Inclusive prefix sum of the sixteen lanes. */
__attribute__((target("avx512f")))
static inline __m512i _scan16(__m512i v)
{
	const __m512i zero = _mm512_setzero_si512();

	v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 15));
	v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 14));
	v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 12));
	return _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 8));
}

/*
 * One pass over x[0 .. nwin+k), sixteen positions j .. j+15 at a time: F
 * and G at j+1 .. j+16 (both stored), and the windows i = j+1-k ..
 * j+16-k that end there, scored as F (in the register) + G[i] (stored k
 * positions ago: k >= 16). The few windows before the first such block and
 * after the last are scored from the stored F and G.
 */
__attribute__((target("avx512f")))
static void _least_avx512(const int *x, int k, int nwin, uint32_t *f,
			  uint32_t *g, loc__span_least_t *out)
{
	const int len = nwin + k, j0 = (k - 1 + 15) / 16 * 16;
	const __m512i top = _mm512_set1_epi32(15);
	const __m512i km1 = _mm512_set1_epi32(k - 1);
	const __m512i sixteen = _mm512_set1_epi32(16);
	__m512i cp = _mm512_setzero_si512(), cp2 = cp, arg = cp, tmax = cp;
	__m512i mn = _mm512_set1_epi32(INT32_MAX);
	__m512i idx = _mm512_add_epi32(
		_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
				  14, 15),
		_mm512_set1_epi32(j0 + 1 - k));
	int32_t lmn[16], larg[16], lt[16];
	uint32_t p, p2;
	int j = 0, from = 0, to = 0, far = 0;

	f[0] = g[0] = 0;
	for (; j + 16 <= len && (j < j0 || j + 17 <= len); j += 16) {
		__m512i xv = _mm512_loadu_si512(x + j);
		__m512i pin = _mm512_add_epi32(cp, _scan16(xv));
		__m512i pex = _mm512_sub_epi32(pin, xv);
		__m512i p2in = _mm512_add_epi32(cp2, _scan16(pex));
		__m512i fv = _mm512_sub_epi32(_mm512_mullo_epi32(km1, pin),
					      _mm512_slli_epi32(p2in, 1));
		__m512i gv = _mm512_add_epi32(
			fv, _mm512_slli_epi32(
				    _mm512_add_epi32(
					    pin, _mm512_slli_epi32(p2in, 1)),
				    1));

		if (j >= j0) {
			const int i = j + 1 - k;
			__m512i d = _mm512_add_epi32(
				fv, _mm512_loadu_si512(g + i));
			/* Strictly less: each lane keeps its first least
			 * window. */
			__mmask16 lt16 = _mm512_cmpgt_epi32_mask(mn, d);

			mn = _mm512_min_epi32(mn, d);
			arg = _mm512_mask_mov_epi32(arg, lt16, idx);
			tmax = _mm512_max_epi32(
				tmax,
				_mm512_sub_epi32(_mm512_loadu_si512(x + j + 1),
						 _mm512_loadu_si512(x + i)));
			idx = _mm512_add_epi32(idx, sixteen);
			if (to == 0)
				from = i;
			to = i + 16;
		}
		_mm512_storeu_si512(f + j + 1, fv);
		_mm512_storeu_si512(g + j + 1, gv);
		cp = _mm512_permutexvar_epi32(top, pin);
		cp2 = _mm512_permutexvar_epi32(top, p2in);
	}
	/* The rest of F and G, from P and P2 at j. */
	p = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(cp));
	p2 = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(cp2));
	for (; j < len; j++) {
		p2 += p;
		p += (uint32_t)x[j];
		f[j + 1] = (uint32_t)(k - 1) * p - 2u * p2;
		g[j + 1] = f[j + 1] + 2u * (p + 2u * p2);
	}
	out->best = INT64_MAX;
	out->at = 0;
	if (to > from) {
		_mm512_storeu_si512(lmn, mn);
		_mm512_storeu_si512(larg, arg);
		_mm512_storeu_si512(lt, tmax);
		for (int l = 0; l < 16; l++) {
			_take(out, lmn[l], larg[l]);
			far = lt[l] > far ? lt[l] : far;
		}
	}
	for (int i = 0; i < nwin; i++) {
		if (i == from && to > from)
			i = to;
		if (i >= nwin)
			break;
		_take(out, (int32_t)(f[i + k] + g[i]), i);
		far = x[i + k] - x[i] > far ? x[i + k] - x[i] : far;
	}
	out->far = far;
}

/*
 * Past the 32-bit bound: window totals in 64 bits, built from steps.
 * D(t+1) - D(t) = (k-1) (x[t+k] + x[t]) - 2 (P[t+k] - P[t+1]) is the sum
 * over the k-1 members the two windows share of (x[t+k] - x) - (x - x[t]),
 * so at most (k-1) far in size: 32-bit lanes hold it, and a prefix sum of
 * sixteen of them too while (k-1) far < 2^27 (checked once far is known;
 * the caller falls back otherwise). A block's windows are then
 * base + L[l], base the 64-bit total before the block, and only a block
 * with some L[l] below best - base (clamped to 32 bits) is looked at
 * lane by lane, in order, so ties keep the first window.
 */

static inline int32_t _step(const int *x, const uint32_t *p, int t, int k)
{
	uint32_t d = (uint32_t)(k - 1) * ((uint32_t)x[t + k] + (uint32_t)x[t]) -
		     2u * (p[t + k] - p[t + 1]);

	return (int32_t)d;
}

static inline int32_t _clamp32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* Window 0's total, sum over j of (2j - (k-1)) x[j], four lanes of 64 bits
 * at a time. */
__attribute__((target("avx2")))
static int64_t _first_total4(const int *x, int k, int *done)
{
	__m256i acc = _mm256_setzero_si256(), eight = _mm256_set1_epi64x(8);
	__m256i c = _mm256_setr_epi64x(1 - k, 3 - k, 5 - k, 7 - k);
	int64_t lane[4];
	int j = 0;

	for (; j + 4 <= k; j += 4) {
		__m256i xv = _mm256_cvtepi32_epi64(
			_mm_loadu_si128((const __m128i *)(x + j)));

		/* Both factors fit in 32 bits: one signed product. */
		acc = _mm256_add_epi64(acc, _mm256_mul_epi32(xv, c));
		c = _mm256_add_epi64(c, eight);
	}
	_mm256_storeu_si256((__m256i *)lane, acc);
	*done = j;
	return lane[0] + lane[1] + lane[2] + lane[3];
}

/*
 * The same with AVX-512 over y[j] = x[j] - x[0], the same total as the
 * coefficients sum to 0: sixteen products a step in 32 bits, each at most
 * (k-1) (x[k-1] - x[0]), summed in 32-bit lanes for as many steps as
 * surely fit, then into 64-bit ones. Returns false, having done nothing,
 * when one product might not fit.
 */
__attribute__((target("avx512f")))
static bool _first_total16(const int *x, int k, int64_t *d)
{
	const int64_t per = (int64_t)(k - 1) * ((int64_t)x[k - 1] - x[0]);
	const __m512i x0 = _mm512_set1_epi32(x[0]);
	const __m512i step = _mm512_set1_epi32(32);
	__m512i c = _mm512_setr_epi32(1 - k, 3 - k, 5 - k, 7 - k, 9 - k,
				      11 - k, 13 - k, 15 - k, 17 - k, 19 - k,
				      21 - k, 23 - k, 25 - k, 27 - k, 29 - k,
				      31 - k);
	__m512i lo = _mm512_setzero_si512(), hi = lo;
	int64_t tail = 0;
	int j = 0, run;

	if (per >= INT32_MAX)
		return false;
	/* Steps a 32-bit lane holds: |sum| < run per <= INT32_MAX. */
	run = per ? (int)(INT32_MAX / per) : 1 << 20;
	run = run < (1 << 20) ? run : 1 << 20;
	while (j + 16 <= k) {
		__m512i acc = _mm512_setzero_si512();

		for (int left = run; left > 0 && j + 16 <= k;
		     left--, j += 16) {
			acc = _mm512_add_epi32(
				acc, _mm512_mullo_epi32(
					     c, _mm512_sub_epi32(
							_mm512_loadu_si512(x + j),
							x0)));
			c = _mm512_add_epi32(c, step);
		}
		lo = _mm512_add_epi64(
			lo, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc)));
		hi = _mm512_add_epi64(
			hi,
			_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc, 1)));
	}
	for (; j < k; j++)
		tail += (2 * (int64_t)j - (k - 1)) * ((int64_t)x[j] - x[0]);
	*d = _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi)) + tail;
	return true;
}

int64_t loc__span_first_total(const int *x, int k, loc_simd_t level)
{
	int64_t d = 0;
	int j = 0;

	if (level >= LOC_SIMD_AVX512 && _first_total16(x, k, &d))
		return d;
	if (level >= LOC_SIMD_AVX2)
		d = _first_total4(x, k, &j);
	for (; j < k; j++)
		d += (2 * (int64_t)j - (k - 1)) * x[j];
	return d;
}

/* dst[j] = src[j] + add, eight at a time. */
__attribute__((target("avx2")))
static int _plus8(int *dst, const int *src, int cnt, int add)
{
	const __m256i a = _mm256_set1_epi32(add);
	int j = 0;

	for (; j + 8 <= cnt; j += 8)
		_mm256_storeu_si256(
			(__m256i *)(dst + j),
			_mm256_add_epi32(a, _mm256_loadu_si256(
						    (const __m256i *)(src + j))));
	return j;
}

/* The windows after the last block, and window nwin's total. */
static void _steps_rest(const int *x, const uint32_t *p, int k, int nwin,
			int t, int64_t base, int far, loc__span_least_t *out)
{
	for (; t < nwin; t++) {
		far = x[t + k] - x[t] > far ? x[t + k] - x[t] : far;
		base += _step(x, p, t, k);
		if (t + 1 < nwin && base < out->best) {
			out->best = base;
			out->at = t + 1;
		}
	}
	out->far = far;
	out->next = base;
}

/* Steps t .. t+7 (windows t+1 .. t+8), P from _prefixes(). */
__attribute__((target("avx2")))
static void _least_steps(const int *x, const uint32_t *p, int k, int nwin,
			 loc__span_least_t *out)
{
	const __m256i km1 = _mm256_set1_epi32(k - 1);
	__m256i tmax = _mm256_setzero_si256();
	int64_t base = loc__span_first_total(x, k, LOC_SIMD_AVX2);
	int32_t lane[8];
	int t = 0, far = 0;

	out->best = base;
	out->at = 0;
	for (; t + 8 < nwin; t += 8) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)(x + t));
		__m256i xk = _mm256_loadu_si256((const __m256i *)(x + t + k));
		__m256i w = _mm256_sub_epi32(
			_mm256_loadu_si256((const __m256i *)(p + t + k)),
			_mm256_loadu_si256((const __m256i *)(p + t + 1)));
		__m256i l = _scan8(_mm256_sub_epi32(
			_mm256_mullo_epi32(km1, _mm256_add_epi32(x0, xk)),
			_mm256_slli_epi32(w, 1)));
		__m256i thr = _mm256_set1_epi32(_clamp32(out->best - base));

		tmax = _mm256_max_epi32(tmax, _mm256_sub_epi32(xk, x0));
		if (!_mm256_testz_si256(_mm256_cmpgt_epi32(thr, l),
					_mm256_set1_epi32(-1))) {
			_mm256_storeu_si256((__m256i *)lane, l);
			for (int q = 0; q < 8; q++)
				if (base + lane[q] < out->best) {
					out->best = base + lane[q];
					out->at = t + 1 + q;
				}
		}
		base += _mm256_extract_epi32(l, 7);
	}
	_mm256_storeu_si256((__m256i *)lane, tmax);
	for (int q = 0; q < 8 && t > 0; q++)
		far = lane[q] > far ? lane[q] : far;
	_steps_rest(x, p, k, nwin, t, base, far, out);
}

/* p[0..len], wrapping: P alone, sixteen at a time. */
__attribute__((target("avx512f")))
static void _prefix16(const int *x, int len, uint32_t *p)
{
	const __m512i top = _mm512_set1_epi32(15);
	__m512i cp = _mm512_setzero_si512();
	int j = 0;

	p[0] = 0;
	for (; j + 16 <= len; j += 16) {
		__m512i pin = _mm512_add_epi32(cp,
					       _scan16(_mm512_loadu_si512(x + j)));

		_mm512_storeu_si512(p + j + 1, pin);
		cp = _mm512_permutexvar_epi32(top, pin);
	}
	for (; j < len; j++)
		p[j + 1] = p[j] + (uint32_t)x[j];
}

/* As _least_steps(), sixteen steps at a time. */
__attribute__((target("avx512f")))
static void _least_steps16(const int *x, const uint32_t *p, int k, int nwin,
			   loc__span_least_t *out)
{
	const __m512i km1 = _mm512_set1_epi32(k - 1);
	__m512i tmax = _mm512_setzero_si512();
	int64_t base = loc__span_first_total(x, k, LOC_SIMD_AVX512);
	int32_t lane[16];
	int t = 0, far = 0;

	out->best = base;
	out->at = 0;
	for (; t + 16 < nwin; t += 16) {
		__m512i x0 = _mm512_loadu_si512(x + t);
		__m512i xk = _mm512_loadu_si512(x + t + k);
		__m512i w = _mm512_sub_epi32(_mm512_loadu_si512(p + t + k),
					     _mm512_loadu_si512(p + t + 1));
		__m512i l = _scan16(_mm512_sub_epi32(
			_mm512_mullo_epi32(km1, _mm512_add_epi32(x0, xk)),
			_mm512_slli_epi32(w, 1)));
		__m512i thr = _mm512_set1_epi32(_clamp32(out->best - base));

		tmax = _mm512_max_epi32(tmax, _mm512_sub_epi32(xk, x0));
		if (_mm512_cmplt_epi32_mask(l, thr)) {
			_mm512_storeu_si512(lane, l);
			for (int q = 0; q < 16; q++)
				if (base + lane[q] < out->best) {
					out->best = base + lane[q];
					out->at = t + 1 + q;
				}
		}
		base += _mm_extract_epi32(_mm512_extracti32x4_epi32(l, 3), 3);
	}
	if (t > 0)
		far = _mm512_reduce_max_epi32(tmax);
	_steps_rest(x, p, k, nwin, t, base, far, out);
}

/* The 64-bit search: false when a step sum might not fit in 32 bits. */
static bool _least_wide(const int *x, int m, int k, int nwin, uint32_t *pre,
			loc__span_least_t *out, loc_simd_t level)
{
	/* Every total, at most floor(k/2) ceil(k/2) spread, in an int64. */
	if ((double)(k / 2) * ((k + 1) / 2) *
		    ((double)x[nwin + k - 1] - x[0]) >= 0x1p62)
		return false;
	if (loc__span_least_rotated(x, m, k, nwin, pre, 2 * (size_t)m + 2,
				    out, level))
		return true;
	if (level >= LOC_SIMD_AVX512) {
		_prefix16(x, nwin + k, pre);
		_least_steps16(x, pre, k, nwin, out);
	} else {
		_prefixes(x, nwin + k, pre, pre + m + 1);
		_least_steps(x, pre, k, nwin, out);
	}
	return (int64_t)(k - 1) * out->far < LOC_SPAN_STEP_LIMIT;
}

bool loc__span_least_simd(const int *x, int m, int k, int nwin,
			  uint32_t *pre, loc__span_least_t *out,
			  loc_simd_t level)
{
	const int64_t bound = (int64_t)(k / 2) * ((k + 1) / 2);
	int64_t spread, last, widest;

	if (level == LOC_SIMD_NONE || nwin < 8 || k < 2 || nwin + k > m)
		return false;
	/* Every total met, the last window's too, within an int32: surely
	 * when the whole range's spread would fit; when only a window twice
	 * the mean width would, it is tried and checked against the widest
	 * window scored (far), which bounds their spreads. */
	spread = (int64_t)x[nwin + k - 1] - x[0];
	last = (int64_t)x[nwin + k - 1] - x[nwin];
	if (bound * spread >= INT32_MAX &&
	    bound * (2 * spread * k / (nwin + k)) >= INT32_MAX)
		return _least_wide(x, m, k, nwin, pre, out, level);
	if (loc__span_least_stripes(x, m, k, nwin, pre, 2 * (size_t)m + 2,
				    out, level)) {
		/* Long stripes: the cheaper pass. */
	} else if (loc__span_least_rotated(x, m, k, nwin, pre,
					   2 * (size_t)m + 2, out, level)) {
		/* Exact in 64 bits: no bound to check. */
		return true;
	} else if (level >= LOC_SIMD_AVX512 && k >= 16) {
		_least_avx512(x, k, nwin, pre, pre + m + 1, out);
		out->next = (int32_t)(pre[nwin + k] + pre[m + 1 + nwin]);
	} else {
		_prefixes(x, nwin + k, pre, pre + m + 1);
		_least(x, pre, pre + m + 1, k, nwin, out);
		out->next = _total(pre, pre + m + 1, nwin, k);
	}
	widest = out->far > last ? out->far : last;
	if (bound * spread < INT32_MAX || bound * widest < INT32_MAX)
		return true;
	return _least_wide(x, m, k, nwin, pre, out, level);
}

void loc__span_plus(int *dst, const int *src, int cnt, int add,
		    loc_simd_t level)
{
	int j = level >= LOC_SIMD_AVX2 ? _plus8(dst, src, cnt, add) : 0;

	for (; j < cnt; j++)
		dst[j] = src[j] + add;
}
#else
void loc__span_plus(int *dst, const int *src, int cnt, int add,
		    loc_simd_t level)
{
	(void)level;
	for (int j = 0; j < cnt; j++)
		dst[j] = src[j] + add;
}

int64_t loc__span_first_total(const int *x, int k, loc_simd_t level)
{
	int64_t d = 0;

	(void)level;
	for (int j = 0; j < k; j++)
		d += (2 * (int64_t)j - (k - 1)) * x[j];
	return d;
}

bool loc__span_least_simd(const int *x, int m, int k, int nwin,
			  uint32_t *pre, loc__span_least_t *out,
			  loc_simd_t level)
{
	(void)x, (void)m, (void)k, (void)nwin, (void)pre, (void)out;
	(void)level;
	return false;
}
#endif
