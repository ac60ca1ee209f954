/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_runhist.c - the free interval histogram kept as ranks flip
 * (loc_runhist.h).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_runhist.h"

/* Ranks in the first chunk of loc__runhist_first_of(), doubling up to the
 * last: the first match is usually near the start, and a chunk's runs are
 * listed at once. */
#define RUNHIST_CHUNK_FIRST 128
#define RUNHIST_CHUNK_LAST 4096

loc__runhist_t *loc__runhist_create(int n, bool ring)
{
	loc__runhist_t *rh = calloc(1, sizeof(*rh));

	if (!rh)
		return NULL;
	rh->n = n;
	rh->ring = ring;
	rh->count = calloc((size_t)n + 1, sizeof(int));
	rh->present = calloc(LOC__BITS_WORDS(n + 1), sizeof(uint64_t));
	rh->scratch = malloc(sizeof(int) * ((size_t)n + 2));
	if (!rh->count || !rh->present || !rh->scratch) {
		loc__runhist_destroy(rh);
		return NULL;
	}
	return rh;
}

void loc__runhist_destroy(loc__runhist_t *rh)
{
	if (!rh)
		return;
	free(rh->count);
	free(rh->present);
	free(rh->scratch);
	free(rh);
}

/* One interval of len ranks more (d = 1) or less (d = -1). */
static void _add(loc__runhist_t *rh, int len, int d)
{
	int c = rh->count[len];

	if (len <= 0)
		return;
	rh->sumsq += 2 * (int64_t)c * d + 1;
	rh->count[len] = c + d;
	rh->nint += d;
	if (c && c + d)
		return;
	rh->present[len >> 6] ^= 1ULL << (len & 63);
	/* The longest: raised at once; when it goes, the next one down
	 * (a scan, but only when the longest interval disappears). */
	if (c + d && len > rh->maxlen)
		rh->maxlen = len;
	else if (!(c + d) && len == rh->maxlen)
		rh->maxlen = loc__bits_rfind(rh->present, 1, len, true); /* 0: none */
}

void loc__runhist_rebuild(loc__runhist_t *rh, const uint64_t *bits)
{
	/* At most (n + 1) / 2 intervals: n + 1 ints. */
	int nint = loc__bits_intervals(bits, rh->n, rh->ring, 1, rh->scratch,
				       (rh->n + 2) / 2);

	memset(rh->count, 0, sizeof(int) * ((size_t)rh->n + 1));
	memset(rh->present, 0, sizeof(uint64_t) * LOC__BITS_WORDS(rh->n + 1));
	rh->sumsq = 0;
	rh->nint = 0;
	rh->maxlen = 0;
	for (int i = 0; i < nint; i++)
		_add(rh, rh->scratch[2 * i + 1] - rh->scratch[2 * i], 1);
}

static inline bool _bit(const uint64_t *bits, int r)
{
	return (bits[r >> 6] >> (r & 63)) & 1;
}

void loc__runhist_flip(loc__runhist_t *rh, const uint64_t *bits, int r)
{
	int n = rh->n, left, right, p;
	bool was_free = _bit(bits, r);

	/* The free ranks next to r on each side (around the ring). */
	p = loc__bits_rfind(bits, 0, r, false);
	left = r - 1 - p;
	if (p < 0 && rh->ring)
		left += n - 1 - loc__bits_rfind(bits, r + 1, n, false);
	p = loc__bits_find(bits, r + 1, n, false);
	right = p - r - 1;
	if (p == n && rh->ring)
		right += loc__bits_find(bits, 0, r, false);
	if (rh->ring && left == n - 1) {
		/* Every other rank free: both sides are the same run, and
		 * r joins or leaves the one interval. */
		_add(rh, was_free ? n : n - 1, -1);
		_add(rh, was_free ? n - 1 : n, 1);
		return;
	}
	if (was_free) {
		_add(rh, left + right + 1, -1);
		_add(rh, left, 1);
		_add(rh, right, 1);
	} else {
		_add(rh, left, -1);
		_add(rh, right, -1);
		_add(rh, left + right + 1, 1);
	}
}

int loc__runhist_next(const loc__runhist_t *rh, int len)
{
	int p;

	if (len > rh->maxlen)
		return 0;
	p = loc__bits_find(rh->present, len < 1 ? 1 : len, rh->maxlen + 1,
			   true);
	return p > rh->maxlen ? 0 : p;
}

static bool _wanted(const int *lens, int nlens, int len)
{
	for (int i = 0; i < nlens; i++)
		if (lens[i] == len)
			return true;
	return false;
}

/* The first run in [from, to) (both ends busy or the bounds) of a wanted
 * length, chunk by chunk: each chunk ends at a busy rank, so no run is
 * cut. */
static bool _first_in(const loc__runhist_t *rh, const uint64_t *bits,
		      int from, int to, const int *lens, int nlens, int *iv)
{
	int chunk = RUNHIST_CHUNK_FIRST;

	for (int a = from; a < to;) {
		int b = a + chunk < to ? loc__bits_find(bits, a + chunk, to, false) :
					 to;
		int nr = loc__bits_runs(bits, a, b, 1, rh->scratch,
					(rh->n + 2) / 2);

		for (int i = 0; i < nr; i++) {
			int s = rh->scratch[2 * i], e = rh->scratch[2 * i + 1];

			if (_wanted(lens, nlens, e - s)) {
				iv[0] = s;
				iv[1] = e;
				return true;
			}
		}
		a = b;
		if (chunk < RUNHIST_CHUNK_LAST)
			chunk *= 2;
	}
	return false;
}

bool loc__runhist_first_of(const loc__runhist_t *rh, const uint64_t *bits,
			   const int *lens, int nlens, int *iv)
{
	int n = rh->n, head, tail;

	head = loc__bits_find(bits, 0, n, false);
	if (head == n) {
		iv[0] = 0;
		iv[1] = n;
		return _wanted(lens, nlens, n);
	}
	if (!rh->ring || !head || !_bit(bits, n - 1))
		return _first_in(rh, bits, 0, n, lens, nlens, iv);
	/* Both ends free: the joined end runs come last. */
	tail = n - 1 - loc__bits_rfind(bits, 0, n, false);
	if (_first_in(rh, bits, head, n - tail, lens, nlens, iv))
		return true;
	iv[0] = n - tail;
	iv[1] = n + head;
	return _wanted(lens, nlens, head + tail);
}
