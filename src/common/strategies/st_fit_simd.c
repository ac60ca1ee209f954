/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_fit_simd.c - the least arc of the fits' minimum-span fallback: the
 * least x[i + k - 1] - x[i] over the windows of k consecutive free ranks,
 * sixteen windows a step with AVX-512, eight with AVX2, four in portable
 * C (loc_simd.h chooses at run time). At k = 4096 on a half-free machine
 * of 32,768 nodes that is 16,000 windows, most of first fit's decision
 * before the vectors.
 */
#include <limits.h>

#include "st_fit.h"

/* Four independent minima, so the comparisons overlap. */
static int _least_plain(const int *first, const int *last, int add, int from,
			int to)
{
	int b0 = INT_MAX, b1 = INT_MAX, b2 = INT_MAX, b3 = INT_MAX;
	int i = from;

	for (; i + 4 <= to; i += 4) {
		int a0 = last[i] - first[i];
		int a1 = last[i + 1] - first[i + 1];
		int a2 = last[i + 2] - first[i + 2];
		int a3 = last[i + 3] - first[i + 3];

		b0 = a0 < b0 ? a0 : b0;
		b1 = a1 < b1 ? a1 : b1;
		b2 = a2 < b2 ? a2 : b2;
		b3 = a3 < b3 ? a3 : b3;
	}
	for (; i < to; i++)
		b0 = last[i] - first[i] < b0 ? last[i] - first[i] : b0;
	b0 = b1 < b0 ? b1 : b0;
	b2 = b3 < b2 ? b3 : b2;
	b0 = b2 < b0 ? b2 : b0;
	return b0 == INT_MAX ? INT_MAX : b0 + add;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2")))
static int _least_avx2(const int *first, const int *last, int add, int from,
		       int to)
{
	__m256i b0 = _mm256_set1_epi32(INT_MAX), b1 = b0;
	int32_t lane[8];
	int i = from, best;

	for (; i + 16 <= to; i += 16) {
		__m256i f0 = _mm256_loadu_si256((const __m256i *)(first + i));
		__m256i l0 = _mm256_loadu_si256((const __m256i *)(last + i));
		__m256i f1 = _mm256_loadu_si256(
			(const __m256i *)(first + i + 8));
		__m256i l1 = _mm256_loadu_si256((const __m256i *)(last + i + 8));

		b0 = _mm256_min_epi32(b0, _mm256_sub_epi32(l0, f0));
		b1 = _mm256_min_epi32(b1, _mm256_sub_epi32(l1, f1));
	}
	_mm256_storeu_si256((__m256i *)lane, _mm256_min_epi32(b0, b1));
	best = _least_plain(first, last, 0, i, to);
	for (int l = 0; l < 8; l++)
		best = lane[l] < best ? lane[l] : best;
	return best == INT_MAX ? INT_MAX : best + add;
}

__attribute__((target("avx512f")))
static int _least_avx512(const int *first, const int *last, int add,
			 int from, int to)
{
	__m512i b0 = _mm512_set1_epi32(INT_MAX), b1 = b0;
	int i = from, best;

	for (; i + 32 <= to; i += 32) {
		__m512i d0 = _mm512_sub_epi32(_mm512_loadu_si512(last + i),
					      _mm512_loadu_si512(first + i));
		__m512i d1 = _mm512_sub_epi32(
			_mm512_loadu_si512(last + i + 16),
			_mm512_loadu_si512(first + i + 16));

		b0 = _mm512_min_epi32(b0, d0);
		b1 = _mm512_min_epi32(b1, d1);
	}
	best = _mm512_reduce_min_epi32(_mm512_min_epi32(b0, b1));
	i = _least_plain(first, last, 0, i, to);
	best = i < best ? i : best;
	return best == INT_MAX ? INT_MAX : best + add;
}
#endif

int loc__fit_least_arc(const int *first, const int *last, int add, int from,
		       int to, loc_simd_t level)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (level >= LOC_SIMD_AVX512)
		return _least_avx512(first, last, add, from, to);
	if (level == LOC_SIMD_AVX2)
		return _least_avx2(first, last, add, from, to);
#endif
	(void)level;
	return _least_plain(first, last, add, from, to);
}
