/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_rankmap.c - the free map in curve order, as a bitmap, for the
 * one-dimensional strategies of seeds 000 and 002 (Leung et al.,
 * "Processor allocation on Cplant"; SAND2003-3702): word-at-a-time scans
 * for the free ranks, the runs of free ranks and the free intervals; and
 * the allocator's copy of the candidate map that keeps the bitmap up to
 * date from one decision to the next (loc_rankmap.h).
 *
 * The map of a busy machine is close to random, so a branch per rank
 * mispredicts half the time; here 64 ranks are handled per step with
 * shifts, masks and count-trailing-zeros, and the work is proportional to
 * the words scanned plus the positions or runs reported.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_rankmap.h"
#include "loc_runhist.h"
#include "loc_simd.h"
#include "loc_strategy_internal.h"

struct loc__freemap {
	int n;
	const int *order;  /* rank -> node */
	const int *ranks;  /* node -> rank */
	uint8_t *free;     /* [n] 0/1 */
	int nfree;
	uint64_t *rbits;   /* [LOC__BITS_WORDS(n)] free map in rank order */
	bool rbits_ok;     /* rbits matches free */
	uint64_t hash;     /* loc__freemap_hash(): kept with free */
	loc__runhist_t *runs; /* interval lengths, when tracked */
	bool runs_ok;      /* runs matches rbits (implies rbits_ok) */
};

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

/* Byte value -> the positions of its set bits, then zeros: filled once at
 * load, for the AVX2 listing. */
static uint8_t byte_ones[256][8];

__attribute__((constructor)) static void _fill_byte_ones(void)
{
	for (int v = 0; v < 256; v++)
		for (int b = 0, c = 0; b < 8; b++)
			if (v >> b & 1)
				byte_ones[v][c++] = (uint8_t)b;
}

/*
 * The set bits of words [w0, w1), all of them, with room for 64 positions
 * a word. A word with many set bits has every byte's (AVX2) or 16 bits'
 * (AVX-512) positions stored whole, the next ones starting after the count,
 * so there is no dependent step per set bit as in _put_ones(): 2.5 and
 * 1.7 us instead of 5.8 us for the 16,384 free ranks of a half-free map
 * of 32,768. A word with fewer than 16 (12) takes _put_ones(), cheaper
 * there: one bit in 64, as in answers sorted through a bitmap, takes 0.7
 * and 0.8 us instead of 1.4 us.
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

static int _ones_wide(const uint64_t *bits, int w0, int w1, int *pos,
		      loc_simd_t level)
{
	return level == LOC_SIMD_AVX512 ? _ones_avx512(bits, w0, w1, pos) :
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

bool loc__bits_may_hold_run(const uint64_t *bits, int from, int to,
			    int len)
{
	int wf = from >> 6, wl = (to - 1) >> 6, most = 0;
	uint64_t full = 0;

	if (len < 64 || from >= to)
		return from < to;
	for (int w = wf; w < wl; w++) {
		uint64_t x = _word(bits, w, from, to);
		uint64_t y = _word(bits, w + 1, from, to);
		/* Leading ones of x, trailing ones of y (63 at most: a full
		 * word is caught by `full`). */
		int lead = __builtin_clzll(~x | 1), trail =
			__builtin_ctzll(~y | (1ULL << 63));

		full |= ~x == 0;
		most = lead + trail > most ? lead + trail : most;
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

/* ---- the allocator's free map --------------------------------------- */

/*
 * The map's hash is the XOR, over the blocks of eight nodes starting at
 * v (and over the nodes past the last whole block, one at a time), of a
 * 64-bit mix of the block's 0/1 bytes and v: a function of the map alone,
 * updated in O(1) per block that changes at a load.
 */
static inline uint64_t _mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* w is the block as read from memory: byte j is node v + j everywhere. */
static inline uint64_t _block_hash(int v, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return _mix64(w ^ ((uint64_t)v * 0x9e3779b97f4a7c15ULL));
}

static inline uint64_t _node_hash(int v, uint8_t b)
{
	return _mix64((uint64_t)b ^ ((uint64_t)v * 0x9e3779b97f4a7c15ULL) ^
		      0x5851f42d4c957f2dULL);
}

/* The hash of the all-busy map. */
static uint64_t _empty_hash(int n)
{
	uint64_t h = 0;
	int v = 0;

	for (; v + 8 <= n; v += 8)
		h ^= _block_hash(v, 0);
	for (; v < n; v++)
		h ^= _node_hash(v, 0);
	return h;
}

loc__freemap_t *loc__freemap_create(const loc_curve_t *curve, int nnodes)
{
	loc__freemap_t *fm = calloc(1, sizeof(*fm));

	if (!fm)
		return NULL;
	fm->n = nnodes;
	fm->order = loc_curve_order(curve);
	fm->ranks = loc_curve_ranks(curve);
	/* All zero: nfree = 0, and rbits (not valid yet) all busy. */
	fm->free = calloc(nnodes ? nnodes : 1, 1);
	fm->rbits = calloc(LOC__BITS_WORDS(nnodes), sizeof(uint64_t));
	if (!fm->free || !fm->rbits) {
		loc__freemap_destroy(fm);
		return NULL;
	}
	fm->hash = _empty_hash(nnodes);
	return fm;
}

void loc__freemap_destroy(loc__freemap_t *fm)
{
	if (!fm)
		return;
	free(fm->free);
	free(fm->rbits);
	loc__runhist_destroy(fm->runs);
	free(fm);
}

const uint8_t *loc__freemap_map(const loc__freemap_t *fm)
{
	return fm->free;
}

/* Sets every nonzero byte of w to 1 and every zero byte to 0. */
static inline uint64_t _bytes_to_01(uint64_t w)
{
	w |= (w >> 4) & 0x0f0f0f0f0f0f0f0fULL;
	w |= (w >> 2) & 0x0303030303030303ULL;
	w |= w >> 1;
	return w & 0x0101010101010101ULL;
}

/* The sum of the bytes of w, when it is below 256. */
static inline int _count01(uint64_t w)
{
	return (int)((w * 0x0101010101010101ULL) >> 56);
}

/*
 * Flips the rank bits of the nodes v + j for the set bytes j of diff (a
 * word of 0/1 bytes, byte j = node v + j). Returns how many.
 */
static int _flip_ranks(loc__freemap_t *fm, int v, uint64_t diff)
{
	const int *ranks = fm->ranks;
	int cnt = 0;

	for (; diff; diff &= diff - 1, cnt++) {
		int r = ranks[v + (__builtin_ctzll(diff) >> 3)];

		if (fm->runs_ok)
			loc__runhist_flip(fm->runs, fm->rbits, r);
		fm->rbits[r >> 6] ^= 1ULL << (r & 63);
	}
	return cnt;
}

/*
 * Copies the candidate map into fm->free as 0/1, rewriting only what
 * changed: consecutive decisions mostly see nearly the same map, so
 * unchanged blocks are skipped at memcmp() speed and the free count is
 * updated from the changed words (fm->free is always a valid 0/1 copy
 * with its count, all busy at creation); on 32,768 nodes a full copy and
 * recount per call was most of a small request's cost. While
 * the rank bitmap is kept, the changed nodes' bits are flipped in it too;
 * when too many change, the bitmap is dropped (rebuilt on demand). The
 * hash is updated from the changed blocks. Returns the number of free
 * nodes.
 */
static int _load_free_diff(loc__freemap_t *fm, const uint8_t *cand)
{
	uint8_t *fr = fm->free;
	int n = fm->n, v = 0, nfree = fm->nfree, flips = 0;
	uint64_t hash = fm->hash;
	/* A flip costs a few times a rebuild's step per rank. */
	int max_flips = n / 8 + 64, max_run_flips = n / 64 + 64;
	bool track = fm->rbits_ok;

	for (; v + 8 <= n; v += 8) {
		uint64_t w, old, diff;

		/* Whole unchanged blocks at memcmp() speed. */
		while ((v & 255) == 0 && v + 256 <= n &&
		       !memcmp(cand + v, fr + v, 256))
			v += 256;
		if (v + 8 > n)
			break;
		memcpy(&w, cand + v, 8);
		memcpy(&old, fr + v, 8);
		if (w == old)
			continue;
		if (w & ~0x0101010101010101ULL) {
			w = _bytes_to_01(w);
			if (w == old)
				continue;
		}
		if (track) {
			diff = w ^ old;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			diff = __builtin_bswap64(diff);
#endif
			flips += _flip_ranks(fm, v, diff);
			if (flips > max_flips)
				track = fm->rbits_ok = fm->runs_ok = false;
			/* An interval count update costs a few times a bit
			 * flip: past about one per word, recount instead. */
			if (flips > max_run_flips)
				fm->runs_ok = false;
		}
		/* Bytes of w + 1 - old are 0..2 with no borrow: one multiply
		 * sums them, giving the change in free nodes plus 8. */
		nfree += _count01(w + 0x0101010101010101ULL - old) - 8;
		hash ^= _block_hash(v, old) ^ _block_hash(v, w);
		memcpy(fr + v, &w, 8);
	}
	for (; v < n; v++) {
		uint8_t b = cand[v] != 0;

		if (b == fr[v])
			continue;
		if (track)
			_flip_ranks(fm, v, 1);
		nfree += (int)b - (int)fr[v];
		hash ^= _node_hash(v, fr[v]) ^ _node_hash(v, b);
		fr[v] = b;
	}
	fm->hash = hash;
	return nfree;
}

int loc__freemap_load(loc__freemap_t *fm, const uint8_t *cand)
{
	fm->nfree = _load_free_diff(fm, cand);
	return fm->nfree;
}

uint64_t loc__freemap_hash(const loc__freemap_t *fm)
{
	return fm->hash;
}

/* The free bits of the eight nodes o[0..7], in that order. Constant
 * shifts: a variable one costs more than the load. */
static inline uint64_t _gather8(const uint8_t *fr, const int *o)
{
	return (uint64_t)fr[o[0]] | (uint64_t)fr[o[1]] << 1 |
	       (uint64_t)fr[o[2]] << 2 | (uint64_t)fr[o[3]] << 3 |
	       (uint64_t)fr[o[4]] << 4 | (uint64_t)fr[o[5]] << 5 |
	       (uint64_t)fr[o[6]] << 6 | (uint64_t)fr[o[7]] << 7;
}

/* Builds the rank bitmap from scratch: one gather along the curve. */
static void _build_rank_bits(loc__freemap_t *fm)
{
	const int *order = fm->order;
	const uint8_t *fr = fm->free;
	int n = fm->n, nw = LOC__BITS_WORDS(n);

	for (int w = 0; w < nw; w++) {
		const int *o = order + ((size_t)w << 6);
		int cnt = n - (w << 6);
		uint64_t x = 0;

		if (cnt >= 64) {
			for (int j = 0; j < 64; j += 8)
				x |= _gather8(fr, o + j) << j;
		} else {
			for (int j = 0; j < cnt; j++)
				x |= (uint64_t)fr[o[j]] << j;
		}
		fm->rbits[w] = x;
	}
	fm->rbits_ok = true;
}

int loc__freemap_track_runs(loc__freemap_t *fm, bool ring)
{
	if (!fm->runs && !(fm->runs = loc__runhist_create(fm->n, ring)))
		return -1;
	return 0;
}

const loc__runhist_t *loc__freemap_runs(loc__freemap_t *fm)
{
	if (!fm->runs)
		return NULL;
	if (!fm->runs_ok) {
		loc__runhist_rebuild(fm->runs,
				     loc__freemap_rank_bits(fm, true));
		fm->runs_ok = true;
	}
	return fm->runs;
}

const uint64_t *loc__freemap_rank_bits(loc__freemap_t *fm, bool build)
{
	if (!fm->rbits_ok) {
		if (!build)
			return NULL;
		_build_rank_bits(fm);
	}
	return fm->rbits;
}
