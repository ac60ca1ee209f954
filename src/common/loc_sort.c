/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_sort.c - puts an answer into node order, the order the allocator
 * returns it in: read back from the marks its check left (large answers),
 * a node bitmap, a radix sort for middling ones, qsort() for a few nodes,
 * nothing for answers already in order.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_simd.h"
#include "loc_sort.h"
#include "loc_strategy_internal.h"

/* Answers of at least n / SORT_MARKS_RATIO nodes are read from the marks:
 * below that, scanning every node's byte costs more than marking k bits. */
#define SORT_MARKS_RATIO 16

/* 0x80 in each byte of w that is zero, 0 elsewhere (exact, unlike the
 * borrow trick, which can flag a byte above a zero one). */
static inline uint64_t _zero_bytes(uint64_t w)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;

	return ~(((w & low7) + low7) | w | low7);
}

/* Bit j of the result: byte j of w (read from memory) equals mark. */
static inline uint64_t _eq8(uint64_t w, uint64_t marks8)
{
	uint64_t z = _zero_bytes(w ^ marks8) >> 7;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	z = __builtin_bswap64(z);
#endif
	/* Gathers the eight 0/1 bytes' low bits into the top byte. */
	return (z * 0x0102040810204080ULL) >> 56;
}

static void _eq_bits_plain(const uint8_t *bytes, int n, uint8_t mark,
			   uint64_t *bits)
{
	const uint64_t marks8 = 0x0101010101010101ULL * mark;
	int v = 0;

	for (; v + 64 <= n; v += 64) {
		uint64_t x = 0;

		for (int j = 0; j < 8; j++) {
			uint64_t w;

			memcpy(&w, bytes + v + 8 * j, 8);
			x |= _eq8(w, marks8) << (8 * j);
		}
		bits[v >> 6] = x;
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* 64 bytes to a word in two compares. */
__attribute__((target("avx2")))
static void _eq_bits_avx2(const uint8_t *bytes, int n, uint8_t mark,
			  uint64_t *bits)
{
	const __m256i m = _mm256_set1_epi8((char)mark);

	for (int v = 0; v + 64 <= n; v += 64) {
		__m256i lo = _mm256_loadu_si256((const __m256i *)(bytes + v));
		__m256i hi = _mm256_loadu_si256((const __m256i *)(bytes + v + 32));
		uint32_t l = (uint32_t)_mm256_movemask_epi8(
			_mm256_cmpeq_epi8(lo, m));
		uint32_t h = (uint32_t)_mm256_movemask_epi8(
			_mm256_cmpeq_epi8(hi, m));

		bits[v >> 6] = l | (uint64_t)h << 32;
	}
}
#endif

void loc__bytes_eq_bits(const uint8_t *bytes, int n, uint8_t mark,
			uint64_t *bits, loc_simd_t level)
{
	int v = n & ~63;

#if defined(__x86_64__) && defined(__GNUC__)
	if (level >= LOC_SIMD_AVX2)
		_eq_bits_avx2(bytes, n, mark, bits);
	else
#endif
		_eq_bits_plain(bytes, n, mark, bits);
	(void)level;
	/* The last partial word, then the zero word the scans expect. */
	if (v < n) {
		uint64_t x = 0;

		for (int j = v; j < n; j++)
			x |= (uint64_t)(bytes[j] == mark) << (j - v);
		bits[v >> 6] = x;
	}
	bits[LOC__BITS_WORDS(n) - 1] = 0;
}

static int _cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/*
 * Writes nodes[0..k-1] (node numbers below n) to out in ascending order:
 * least significant digit first, 8 bits a pass, through tmp (k ints).
 * Several times faster than qsort() for the tens to hundreds of nodes
 * where the bitmap below does not pay.
 */
static void _radix_sort(const int *nodes, int k, int n, int *tmp, int *out)
{
	int passes = 1;
	const int *src = nodes;

	while (passes < 4 && (n - 1) >> (8 * passes))
		passes++;
	/* An odd number of passes starts in out, so the last one ends there. */
	for (int p = 0; p < passes; p++) {
		int *dst = (passes - p) % 2 ? out : tmp, cnt[257] = { 0 };
		int sh = 8 * p;

		for (int i = 0; i < k; i++)
			cnt[((src[i] >> sh) & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (int i = 0; i < k; i++)
			dst[cnt[(src[i] >> sh) & 255]++] = src[i];
		src = dst;
	}
}

/*
 * Large answers are marked in a node bitmap and read back a word at a
 * time, O(k + n / 64): at k = 4096 on 32,768 nodes, sorting was most of a curve
 * strategy's decision time. When the caller still has a byte per node
 * marking exactly the answer (the allocator's check of an offer leaves
 * one), the bitmap comes from those bytes, 32 or 64 at a compare, instead
 * of k scattered writes. Answers of 32 nodes or more too small for that
 * are radix sorted, O(k) per pass; the smallest go to qsort(). Answers
 * already in order (from 32 nodes) are copied as they are.
 */
void loc__sort_nodes(const int *nodes, int k, int n, uint64_t *b, int *tmp,
		     int *out, const uint8_t *marks, uint8_t mark)
{
	int nw = LOC__BITS_WORDS(n) - 1, i = 1;

	if (k < 32) {
		memcpy(out, nodes, sizeof(int) * k);
		qsort(out, k, sizeof(int), _cmp_int);
		return;
	}
	/* Some strategies (paging in row-major order) answer in node order
	 * already; others leave it within a few nodes. */
	while (i < k && nodes[i] > nodes[i - 1])
		i++;
	if (i == k) {
		memcpy(out, nodes, sizeof(int) * k);
		return;
	}
	if ((int64_t)k * 4 < nw) {
		_radix_sort(nodes, k, n, tmp, out);
		return;
	}
	if (marks && (int64_t)k * SORT_MARKS_RATIO >= n) {
		loc__bytes_eq_bits(marks, n, mark, b, loc__simd_level());
		loc__bits_ones(b, 0, n, out, k);
		return;
	}
	memset(b, 0, sizeof(uint64_t) * nw);
	for (int j = 0; j < k; j++)
		b[nodes[j] >> 6] |= 1ULL << (nodes[j] & 63);
	loc__bits_ones(b, 0, n, out, k);
}
