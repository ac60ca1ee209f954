/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_bits.c - word-at-a-time scans of a bitmap, for the one-dimensional
 * strategies of seeds 000 and 002 (Leung et al., "Processor allocation on
 * Cplant"; SAND2003-3702) on the free map in curve order: the first free
 * or busy rank, the runs of free ranks, the free intervals and the
 * isolated free ranks. Listing every free rank is loc_bits_list.c's.
 *
 * The map of a busy machine is close to random, so a branch per rank
 * mispredicts half the time; here 64 ranks are handled per step with
 * shifts, masks and count-trailing-zeros, and the work is proportional
 * to the words scanned plus the positions or runs reported.
 */

#include "loc_bits.h"
#include "loc_bits_word.h"
#include "loc_ctx.h"
#include "loc_free_map.h"

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
