/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_bits_word.h - one 64-bit word of a bitmap at a time: the inline
 * helpers the bitmap scans (loc_bits.c) and the listings (loc_bits_list.c)
 * share. Not installed.
 */
#ifndef LOC_BITS_WORD_H
#define LOC_BITS_WORD_H

#include <stdint.h>

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

#endif /* LOC_BITS_WORD_H */
