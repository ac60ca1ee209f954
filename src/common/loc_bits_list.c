/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_bits_list.c - a bitmap to the list of its set bits, and a byte per
 * node or a range of ranks to a node bitmap: the conversions every large
 * answer pays (the free ranks listed for the fits and span, an answer's
 * nodes sorted through their node bitmap), with the vectors of
 * loc_simd.h.
 */

#include <string.h>

#include "loc_bits.h"
#include "loc_bits_word.h"
#include "loc_simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Byte value -> the positions of its set bits, then zeros, for the AVX2
 * listing (and the mm walk's packing of eight lanes); and the bit
 * positions of a word, 0 to 63, for VBMI2's. Filled once at load. */
uint8_t loc__byte_ones[256][8];
static uint8_t word_bits[64] __attribute__((aligned(64)));

__attribute__((constructor)) static void _fill_byte_ones(void)
{
	for (int v = 0; v < 256; v++)
		for (int b = 0, c = 0; b < 8; b++)
			if (v >> b & 1)
				loc__byte_ones[v][c++] = (uint8_t)b;
	for (int b = 0; b < 64; b++)
		word_bits[b] = (uint8_t)b;
}

/*
 * The set bits of words [w0, w1), all of them, with room for 64 positions
 * a word. A word with many set bits has every byte's (AVX2) or 16 bits'
 * (AVX-512) positions stored whole, the next ones starting after the count,
 * so there is no dependent step per set bit as in _put_ones(): 2.5 and
 * 1.7 us instead of 5.8 us for the 16,384 free ranks of a half-free map
 * of 32,768 on Sapphire Rapids (2.4 and 2.9 us on Zen 4). A word with
 * fewer than 16 (12) takes _put_ones(), cheaper there: one bit in 64, as
 * in answers sorted through a bitmap, takes 0.7 and 0.8 us instead of
 * 1.4 us. VBMI2 (below) does better at every density.
 */
__attribute__((target("avx2,popcnt")))
static int _ones_avx2(const uint64_t *bits, int w0, int w1, int *pos)
{
	const __m256i eight = _mm256_set1_epi32(8);
	const __m256i word = _mm256_set1_epi32(64);
	__m256i base = _mm256_set1_epi32(w0 << 6);
	int *out = pos;

	for (int w = w0; w < w1; w++) {
		const uint8_t *bytes = (const uint8_t *)(bits + w);

		if (__builtin_popcountll(bits[w]) < 16) {
			out += _put_ones(bits[w], w << 6, out, 1);
			base = _mm256_add_epi32(base, word);
			continue;
		}
		for (int q = 0; q < 8; q++) {
			__m128i row = _mm_loadl_epi64(
				(const __m128i *)loc__byte_ones[bytes[q]]);

			_mm256_storeu_si256(
				(__m256i *)out,
				_mm256_add_epi32(_mm256_cvtepu8_epi32(row),
						 base));
			out += __builtin_popcount(bytes[q]);
			base = _mm256_add_epi32(base, eight);
		}
	}
	return (int)(out - pos);
}

__attribute__((target("avx512f,popcnt")))
static int _ones_avx512(const uint64_t *bits, int w0, int w1, int *pos)
{
	const __m512i sixteen = _mm512_set1_epi32(16);
	const __m512i word = _mm512_set1_epi32(64);
	__m512i idx = _mm512_add_epi32(
		_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
				  14, 15),
		_mm512_set1_epi32(w0 << 6));
	int *out = pos;

	for (int w = w0; w < w1; w++) {
		const uint16_t *halves = (const uint16_t *)(bits + w);

		if (__builtin_popcountll(bits[w]) < 12) {
			out += _put_ones(bits[w], w << 6, out, 1);
			idx = _mm512_add_epi32(idx, word);
			continue;
		}
		for (int q = 0; q < 4; q++) {
			__m512i v = _mm512_maskz_compress_epi32(halves[q], idx);

			_mm512_storeu_si512(out, v);
			out += __builtin_popcount(halves[q]);
			idx = _mm512_add_epi32(idx, sixteen);
		}
	}
	return (int)(out - pos);
}

/* Sixteen byte positions widened, plus base, stored at out. */
__attribute__((target("avx512f"), always_inline))
static inline void _put16(int *out, __m128i bytes, __m512i base)
{
	_mm512_storeu_si512(out,
			    _mm512_add_epi32(_mm512_cvtepu8_epi32(bytes), base));
}

/*
 * With VBMI2 a word's set bit positions are compressed as bytes in one
 * step, then widened and stored sixteen at a time, only as many sixteens
 * as the word holds; every word takes this path. On Zen 4, 1.2 us for
 * the free ranks of a half-free 32,768 (2.9 us with a compress per 16
 * bits, above) and 1.0 us for an answer of 4,096 nodes spread over them
 * (2.3-2.6 us through _put_ones()): those compresses, or a dependent
 * step per bit, were the cost, not the stores.
 */
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt")))
static int _ones_vbmi2(const uint64_t *bits, int w0, int w1, int *pos)
{
	const __m512i index = _mm512_load_si512(word_bits);
	const __m512i word = _mm512_set1_epi32(64);
	__m512i base = _mm512_set1_epi32(w0 << 6);
	int *out = pos;

	for (int w = w0; w < w1; w++) {
		int c = __builtin_popcountll(bits[w]);
		__m512i p = _mm512_maskz_compress_epi8(bits[w], index);

		/* Nested tests, not a loop over sixteens: twice as fast
		 * here (a loop's exit and the rotation between its
		 * stores cost more than the extracts). */
		_put16(out, _mm512_castsi512_si128(p), base);
		if (c > 16) {
			_put16(out + 16, _mm512_extracti32x4_epi32(p, 1), base);
			if (c > 32) {
				_put16(out + 32,
				       _mm512_extracti32x4_epi32(p, 2), base);
				if (c > 48)
					_put16(out + 48,
					       _mm512_extracti32x4_epi32(p, 3),
					       base);
			}
		}
		out += c;
		base = _mm512_add_epi32(base, word);
	}
	return (int)(out - pos);
}

static int _ones_wide(const uint64_t *bits, int w0, int w1, int *pos,
		      loc_simd_t level)
{
	if (level >= LOC_SIMD_AVX512_VBMI2)
		return _ones_vbmi2(bits, w0, w1, pos);
	return level >= LOC_SIMD_AVX512 ? _ones_avx512(bits, w0, w1, pos) :
					  _ones_avx2(bits, w0, w1, pos);
}
#else
static int _ones_wide(const uint64_t *bits, int w0, int w1, int *pos,
		      loc_simd_t level)
{
	int n = 0;

	(void)level;
	for (int w = w0; w < w1; w++)
		n += _put_ones(bits[w], w << 6, pos + n, 1);
	return n;
}
#endif

int loc__bits_ones_at(const uint64_t *bits, int from, int to, int *pos,
		      int max, loc_simd_t level)
{
	int n = 0;

	if (from >= to || max <= 0)
		return 0;
	for (int w = from >> 6; w <= (to - 1) >> 6; w++) {
		int room = (max - n) / 64, base = w << 6;
		uint64_t x;

		/* Whole words inside [from, to), as many as there is room
		 * for, with vectors. */
		if (level != LOC_SIMD_NONE && room > 0 && base >= from &&
		    base + 64 <= to) {
			int w1 = w + room < to >> 6 ? w + room : to >> 6;

			n += _ones_wide(bits, w, w1, pos + n, level);
			w = w1 - 1;
			continue;
		}
		x = _word(bits, w, from, to);
		if (room > 0) {
			n += _put_ones(x, base, pos + n, 1);
			continue;
		}
		for (; x && n < max; x &= x - 1)
			pos[n++] = base + __builtin_ctzll(x);
		if (n == max)
			break;
	}
	return n;
}

int loc__bits_ones(const uint64_t *bits, int from, int to, int *pos, int max)
{
	return loc__bits_ones_at(bits, from, to, pos, max, loc__simd_level());
}

/* ---- marks: a byte per node to bits --------------------------------- */

/* 0x80 in each byte of w that is zero, 0 elsewhere (exact, unlike the
 * borrow trick, which can flag a byte above a zero one). */
static inline uint64_t _zero_bytes(uint64_t w)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;

	return ~(((w & low7) + low7) | w | low7);
}

/* Bit j: byte j of w (as read from memory) is zero. */
static inline uint64_t _zero_bits8(uint64_t w)
{
	uint64_t z = _zero_bytes(w) >> 7;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	z = __builtin_bswap64(z);
#endif
	/* Gathers the eight 0/1 bytes' low bits into the top byte. */
	return (z * 0x0102040810204080ULL) >> 56;
}

static int _marks_plain(const uint8_t *marks, uint8_t mark,
			const uint8_t *free, int n, uint64_t *bits)
{
	const uint64_t marks8 = 0x0101010101010101ULL * mark;
	int cnt = 0;

	for (int v = 0; v + 64 <= n; v += 64) {
		uint64_t x = 0;

		for (int j = 0; j < 8; j++) {
			uint64_t w, f;

			memcpy(&w, marks + v + 8 * j, 8);
			memcpy(&f, free + v + 8 * j, 8);
			x |= (_zero_bits8(w ^ marks8) & ~_zero_bits8(f))
			     << (8 * j);
		}
		bits[v >> 6] = x;
		cnt += _popcount(x);
	}
	return cnt;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* 64 nodes a step, in two compares of each array. */
__attribute__((target("avx2,popcnt")))
static int _marks_avx2(const uint8_t *marks, uint8_t mark,
		       const uint8_t *free, int n, uint64_t *bits)
{
	const __m256i m = _mm256_set1_epi8((char)mark);
	const __m256i zero = _mm256_setzero_si256();
	int cnt = 0;

	for (int v = 0; v + 64 <= n; v += 64) {
		const __m256i *mp = (const __m256i *)(marks + v);
		const __m256i *fp = (const __m256i *)(free + v);
		__m256i lo = _mm256_andnot_si256(
			_mm256_cmpeq_epi8(_mm256_loadu_si256(fp), zero),
			_mm256_cmpeq_epi8(_mm256_loadu_si256(mp), m));
		__m256i hi = _mm256_andnot_si256(
			_mm256_cmpeq_epi8(_mm256_loadu_si256(fp + 1), zero),
			_mm256_cmpeq_epi8(_mm256_loadu_si256(mp + 1), m));
		uint64_t x = (uint32_t)_mm256_movemask_epi8(lo) |
			     (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;

		bits[v >> 6] = x;
		cnt += __builtin_popcountll(x);
	}
	return cnt;
}

/* 64 nodes a step, a compare of each array. */
__attribute__((target("avx512f,avx512bw,popcnt")))
static int _marks_avx512(const uint8_t *marks, uint8_t mark,
			 const uint8_t *free, int n, uint64_t *bits)
{
	const __m512i m = _mm512_set1_epi8((char)mark);
	int cnt = 0;

	for (int v = 0; v + 64 <= n; v += 64) {
		__m512i f = _mm512_loadu_si512(free + v);
		uint64_t x = _mm512_mask_cmpeq_epi8_mask(
			_mm512_test_epi8_mask(f, f),
			_mm512_loadu_si512(marks + v), m);

		bits[v >> 6] = x;
		cnt += __builtin_popcountll(x);
	}
	return cnt;
}
#endif

int loc__bits_of_marks(const uint8_t *marks, uint8_t mark,
		       const uint8_t *free, int n, uint64_t *bits,
		       loc_simd_t level)
{
	int v = n & ~63, cnt;

#if defined(__x86_64__) && defined(__GNUC__)
	if (level >= LOC_SIMD_AVX512)
		cnt = _marks_avx512(marks, mark, free, n, bits);
	else if (level == LOC_SIMD_AVX2)
		cnt = _marks_avx2(marks, mark, free, n, bits);
	else
#endif
		cnt = _marks_plain(marks, mark, free, n, bits);
	(void)level;
	/* The last partial word, then the zero word the scans expect. */
	if (v < n) {
		uint64_t x = 0;

		for (int j = v; j < n; j++)
			x |= (uint64_t)(marks[j] == mark && free[j]) << (j - v);
		bits[v >> 6] = x;
		cnt += _popcount(x);
	}
	bits[LOC__BITS_WORDS(n) - 1] = 0;
	return cnt;
}

/* ---- a rank range: the node order bits of its free nodes ----------- */

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * The passes below set bit v when free[v] and (rank[v] - base) mod 2^16
 * < len, or when free[v] and it is not (out: all ones), 64 nodes a step:
 * a range of ranks that wraps past n is the complement of the one
 * between its ends. 16-bit ranks halve the bytes read, which set the
 * pace (32-bit ones took 1.7 us at 32,768 nodes on Zen 4).
 */
__attribute__((target("avx2,popcnt")))
static int _range_avx2(const uint16_t *rank, uint16_t base, uint16_t len,
		       uint64_t out, const uint8_t *free, int n,
		       uint64_t *bits)
{
	/* Unsigned compares as signed ones, with the sign bits flipped. */
	const __m256i sign = _mm256_set1_epi16(INT16_MIN);
	const __m256i b = _mm256_set1_epi16((short)base);
	const __m256i l = _mm256_set1_epi16((short)(len ^ 0x8000u));
	const __m256i zero = _mm256_setzero_si256();
	int cnt = 0;

	for (int v = 0; v + 64 <= n; v += 64) {
		const __m256i *rp = (const __m256i *)(rank + v);
		const __m256i *fp = (const __m256i *)(free + v);
		__m256i in[4];
		uint64_t x, z;

		for (int q = 0; q < 4; q++)
			in[q] = _mm256_cmpgt_epi16(
				l, _mm256_xor_si256(
					   _mm256_sub_epi16(
						   _mm256_loadu_si256(rp + q),
						   b),
					   sign));
		/* Packing pairs interleaves their halves; 0xd8 puts the
		 * bytes back in node order. */
		x = (uint32_t)_mm256_movemask_epi8(_mm256_permute4x64_epi64(
			    _mm256_packs_epi16(in[0], in[1]), 0xd8)) |
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(
			    _mm256_permute4x64_epi64(
				    _mm256_packs_epi16(in[2], in[3]), 0xd8))
			    << 32;
		z = (uint32_t)_mm256_movemask_epi8(
			    _mm256_cmpeq_epi8(_mm256_loadu_si256(fp), zero)) |
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
			    _mm256_loadu_si256(fp + 1), zero))
			    << 32;
		x = (x ^ out) & ~z;
		bits[v >> 6] = x;
		cnt += __builtin_popcountll(x);
	}
	return cnt;
}

__attribute__((target("avx512f,avx512bw,popcnt")))
static int _range_avx512(const uint16_t *rank, uint16_t base, uint16_t len,
			 uint64_t out, const uint8_t *free, int n,
			 uint64_t *bits)
{
	const __m512i b = _mm512_set1_epi16((short)base);
	const __m512i l = _mm512_set1_epi16((short)len);
	int cnt = 0;

	for (int v = 0; v + 64 <= n; v += 64) {
		__m512i f = _mm512_loadu_si512(free + v);
		uint64_t x =
			(uint32_t)_mm512_cmplt_epu16_mask(
				_mm512_sub_epi16(_mm512_loadu_si512(rank + v),
						 b),
				l) |
			(uint64_t)_mm512_cmplt_epu16_mask(
				_mm512_sub_epi16(
					_mm512_loadu_si512(rank + v + 32), b),
				l) << 32;

		x = (x ^ out) & _mm512_test_epi8_mask(f, f);
		bits[v >> 6] = x;
		cnt += __builtin_popcountll(x);
	}
	return cnt;
}
#endif

int loc__bits_of_rank_range(const uint16_t *rank, int lo, int len,
			    const uint8_t *free, int n, uint64_t *bits,
			    loc_simd_t level)
{
	uint16_t base = (uint16_t)lo, blen = (uint16_t)len;
	uint64_t out = 0;
	int v = n & ~63, cnt = -1;

	if (len == n) {
		/* Every rank: the complement of none. */
		base = 0;
		blen = 0;
		out = ~0ULL;
	} else if (lo + len > n) {
		/* [lo, n) and [0, lo + len - n): not [lo + len - n, lo). */
		base = (uint16_t)(lo + len - n);
		blen = (uint16_t)(n - len);
		out = ~0ULL;
	}
#if defined(__x86_64__) && defined(__GNUC__)
	if (level >= LOC_SIMD_AVX512)
		cnt = _range_avx512(rank, base, blen, out, free, n, bits);
	else if (level == LOC_SIMD_AVX2)
		cnt = _range_avx2(rank, base, blen, out, free, n, bits);
#endif
	(void)level;
	if (cnt < 0)
		return -1;
	if (v < n) {
		uint64_t x = 0;

		for (int j = v; j < n; j++)
			x |= (uint64_t)((((uint16_t)(rank[j] - base) < blen) !=
					 (out != 0)) &&
					free[j])
			     << (j - v);
		bits[v >> 6] = x;
		cnt += _popcount(x);
	}
	bits[LOC__BITS_WORDS(n) - 1] = 0;
	return cnt;
}
