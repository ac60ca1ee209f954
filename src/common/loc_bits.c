/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_bits.c - word-at-a-time scans of a bitmap, for the one-dimensional
 * strategies of seeds 000 and 002 (Leung et al., "Processor allocation on
 * Cplant"; SAND2003-3702) on the free map in curve order: the free ranks,
 * the runs of free ranks and the free intervals.
 *
 * The map of a busy machine is close to random, so a branch per rank
 * mispredicts half the time; here 64 ranks are handled per step with
 * shifts, masks and count-trailing-zeros (or vectors, loc_simd.h), and the
 * work is proportional to the words scanned plus the positions or runs
 * reported.
 */

#include <string.h>

#include "loc_simd.h"
#include "loc_strategy_internal.h"

/* Word w of bits with the bits outside [from, to) cleared. */
static inline uint64_t _word(const uint64_t *bits, int w, int from, int to)
{
	uint64_t x = bits[w];
	int base = w << 6;

	if (from > base)
		x &= ~0ULL << (from - base);
	if (to - base < 64)
		x &= to > base ? ~0ULL >> (64 - (to - base)) : 0;
	return x;
}

/* Set bits of x, without relying on a popcount instruction. */
static inline int _popcount(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* Writes base + the positions of the set bits of x, ascending, to
 * pos[0], pos[step], pos[2 step], ...; returns their count. Unrolled: the
 * count is known up front, so the loop has no branch per bit (step is a
 * constant at every call, so inlining keeps the stores as cheap). */
static inline int _put_ones(uint64_t x, int base, int *pos, int step)
{
	int c = _popcount(x), left = c;

	for (; left >= 4; left -= 4, pos += 4 * step) {
		pos[0] = base + __builtin_ctzll(x);
		x &= x - 1;
		pos[step] = base + __builtin_ctzll(x);
		x &= x - 1;
		pos[2 * step] = base + __builtin_ctzll(x);
		x &= x - 1;
		pos[3 * step] = base + __builtin_ctzll(x);
		x &= x - 1;
	}
	for (; left > 0; left--, x &= x - 1, pos += step)
		*pos = base + __builtin_ctzll(x);
	return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Byte value -> the positions of its set bits, then zeros, for the AVX2
 * listing; and the bit positions of a word, 0 to 63, for VBMI2's. Filled
 * once at load. */
static uint8_t byte_ones[256][8];
static uint8_t word_bits[64] __attribute__((aligned(64)));

__attribute__((constructor)) static void _fill_byte_ones(void)
{
	for (int v = 0; v < 256; v++)
		for (int b = 0, c = 0; b < 8; b++)
			if (v >> b & 1)
				byte_ones[v][c++] = (uint8_t)b;
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
				(const __m128i *)byte_ones[bytes[q]]);

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

/* Trailing ones of x (64 when all set). */
static inline int _cto(uint64_t x)
{
	return ~x ? __builtin_ctzll(~x) : 64;
}

/*
 * Bit p set where bits p .. p+len-1 of x are all set (1 <= len <= 63):
 * doubling windows, then two overlapping ones for the remainder. Windows
 * running past bit 63 are not reported.
 */
static inline uint64_t _windows(uint64_t x, int len)
{
	int l = 1;

	while (2 * l <= len) {
		x &= x >> l;
		l *= 2;
	}
	return x & (x >> (len - l));
}

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

int loc__bits_find(const uint64_t *bits, int from, int to, bool value)
{
	for (int w = from >> 6; from < to && (w << 6) < to; w++) {
		uint64_t x = value ? bits[w] : ~bits[w];
		int base = w << 6, p;

		if (from > base)
			x &= ~0ULL << (from - base);
		if (!x)
			continue;
		p = base + __builtin_ctzll(x);
		return p < to ? p : to;
	}
	return to;
}

int loc__bits_rfind(const uint64_t *bits, int from, int to, bool value)
{
	for (int w = (to - 1) >> 6; from < to && w >= (from >> 6); w--) {
		uint64_t x = value ? bits[w] : ~bits[w];
		int base = w << 6, p;

		if (to - base < 64)
			x &= ~0ULL >> (64 - (to - base));
		if (!x)
			continue;
		p = base + 63 - __builtin_clzll(x);
		return p >= from ? p : from - 1;
	}
	return from - 1;
}

/*
 * Per word: the run carried in from the previous word ends at the first
 * zero (or goes on through an all-ones word); the run touching bit 63 is
 * carried out; the runs strictly inside ("body" runs, at most 62 bits)
 * that hold len are found at once from the window mask, whose run starts
 * are the window bits without a window bit just below.
 */
/*
 * Every run: its starts are the 0-to-1 transitions and its ends the 1-to-0
 * ones, taken from each word separately (starts to even slots, ends to
 * odd ones), so the pairs line up without pairing them up bit by bit.
 * Needs room for every run.
 */
static int _all_runs(const uint64_t *bits, int from, int to, int *iv)
{
	int ns = 0, ne = 0;
	uint64_t carry = 0;

	for (int w = from >> 6; w <= (to - 1) >> 6; w++) {
		uint64_t x = _word(bits, w, from, to);
		uint64_t up = x & ~((x << 1) | carry);
		uint64_t down = ~x & ((x << 1) | carry);
		int base = w << 6;

		carry = x >> 63;
		ns += _put_ones(up, base, iv + 2 * ns, 2);
		ne += _put_ones(down, base, iv + 2 * ne + 1, 2);
	}
	/* A run reaching `to` at a word boundary is still open. */
	if (ne < ns)
		iv[2 * ne++ + 1] = to;
	return ns;
}

/* Whether some word of [from, to) lies wholly inside it and is all ones:
 * every run of 127 or more set bits holds one. One compare a word. */
static bool _any_full_word(const uint64_t *bits, int from, int to)
{
	int wf = (from + 63) >> 6, wl = to >> 6;
	uint64_t all = 0;

	for (int w = wf; w < wl; w++)
		all |= bits[w] + 1 == 0;
	return all;
}

bool loc__bits_may_hold_run(const uint64_t *bits, int from, int to,
			    int len)
{
	int wf = from >> 6, wl = (to - 1) >> 6, most = 0;
	uint64_t full = 0;

	if (len < 64 || from >= to)
		return from < to;
	if (len >= 127)
		return _any_full_word(bits, from, to);
	for (int w = wf; w < wl; w++) {
		uint64_t x = _word(bits, w, from, to);
		uint64_t y = _word(bits, w + 1, from, to);
		/* Leading ones of x, trailing ones of y (63 at most: a full
		 * word is caught by `full`). */
		int lead = __builtin_clzll(~x | 1), trail =
			__builtin_ctzll(~y | (1ULL << 63));

		full |= ~x == 0;
		most = lead + trail > most ? lead + trail : most;
		/* A branch per 32 words ends the pass at the first hint, so
		 * a map that does hold a run early costs little more. */
		if (!((w - wf + 1) & 31) && (full || most >= len))
			return true;
	}
	full |= ~_word(bits, wl, from, to) == 0;
	return full || most >= len;
}

int loc__bits_runs(const uint64_t *bits, int from, int to, int len, int *iv,
		   int max)
{
	int cnt = 0, cstart = 0, clen = 0;

	if (from >= to || max <= 0 || len < 1)
		return 0;
	if (len == 1 && (int64_t)max * 2 >= to - from + 1)
		return _all_runs(bits, from, to, iv);
	/* Long runs are rare on a busy machine: rule them out cheaply. */
	if (!loc__bits_may_hold_run(bits, from, to, len))
		return 0;
	for (int w = from >> 6; w <= (to - 1) >> 6; w++) {
		uint64_t x = _word(bits, w, from, to);
		int base = w << 6, top;

		if (clen) {
			int t = _cto(x);

			if (t == 64) {
				clen += 64;
				continue;
			}
			if (clen + t >= len) {
				iv[2 * cnt] = cstart;
				iv[2 * cnt + 1] = base + t;
				if (++cnt == max)
					return cnt;
			}
			clen = 0;
			x &= ~0ULL << t;
		}
		if (x == ~0ULL) {
			cstart = base;
			clen = 64;
			continue;
		}
		top = (int)(x >> 63) ? __builtin_clzll(~x) : 0;
		if (top)
			x &= ~0ULL >> top;
		if (x && len < 64) {
			uint64_t z = _windows(x, len);

			for (z &= ~(z << 1); z; z &= z - 1) {
				int p = __builtin_ctzll(z);

				iv[2 * cnt] = base + p;
				iv[2 * cnt + 1] = base + p + _cto(x >> p);
				if (++cnt == max)
					return cnt;
			}
		}
		if (top) {
			cstart = base + 64 - top;
			clen = top;
		}
	}
	if (clen >= len) {
		iv[2 * cnt] = cstart;
		iv[2 * cnt + 1] = cstart + clen;
		cnt++;
	}
	return cnt;
}

int loc__bits_intervals(const uint64_t *bits, int n, bool ring, int len,
			int *iv, int max)
{
	int head, tail, cnt;

	if (max <= 0)
		return 0;
	head = loc__bits_find(bits, 0, n, false);
	if (head == n) {
		if (n < len)
			return 0;
		iv[0] = 0;
		iv[1] = n;
		return 1;
	}
	if (!ring || !head || !((bits[(n - 1) >> 6] >> ((n - 1) & 63)) & 1))
		return loc__bits_runs(bits, 0, n, len, iv, max);
	/* Both ends free and some rank busy: the end runs join, last. */
	tail = n - 1 - loc__bits_rfind(bits, 0, n, false);
	cnt = loc__bits_runs(bits, head, n - tail, len, iv, max);
	if (cnt < max && head + tail >= len) {
		iv[2 * cnt] = n - tail;
		iv[2 * cnt + 1] = n + head;
		cnt++;
	}
	return cnt;
}

int loc__rank_intervals(loc__ctx_t *ctx, bool ring, int len, int *iv,
			int max)
{
	return loc__bits_intervals(loc__rank_bits(ctx), ctx->nnodes, ring, len,
				   iv, max);
}

int loc__rank_isolated(loc__ctx_t *ctx, bool ring, int *pos, int max)
{
	const uint64_t *bits = loc__rank_bits(ctx);
	int n = ctx->nnodes, nw = (n + 63) >> 6, cnt = 0;
	/* Rank 0's left neighbour: rank n - 1 on a ring, else none. */
	uint64_t carry = ring ? (bits[(n - 1) >> 6] >> ((n - 1) & 63)) & 1 : 0;

	if (n < 2 || max <= 0)
		return 0;
	for (int w = 0; w < nw && cnt < max; w++) {
		uint64_t x = bits[w];
		/* The zero word after the last one ends the last run. */
		uint64_t iso = x & ~((x << 1) | carry) &
			       ~((x >> 1) | (bits[w + 1] << 63));

		carry = x >> 63;
		/* Rank n - 1's right neighbour on a ring is rank 0. */
		if (ring && w == nw - 1 && (bits[0] & 1))
			iso &= ~(1ULL << ((n - 1) & 63));
		for (; iso && cnt < max; iso &= iso - 1)
			pos[cnt++] = (w << 6) + __builtin_ctzll(iso);
	}
	return cnt;
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
