/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_rankmap.c - the allocator's copy of the candidate map (loc_rankmap.h):
 * its 0/1 bytes by node, its hash, and the free map in curve order as a
 * bitmap (scanned by loc_bits.c), kept up to date from one decision to the
 * next a block of eight nodes at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_rankmap.h"
#include "loc_runhist.h"

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
