/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_runhist.c - the free interval histogram kept as ranks flip
 * (loc_runhist.h), against a brute force that walks the bitmap rank by
 * rank: on lines and rings of 1 to 5,000 ranks (runs crossing 64-rank words,
 * joined end runs, every rank free, none free), after every single flip;
 * and the first interval of given lengths, in rank order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_runhist.h"
#include "loc_test_util.h"

/* The intervals of the map, as loc__rank_intervals() defines them:
 * starts and ends (exclusive, may exceed n on a ring) in rank order, the
 * joined end runs last. Returns how many. */
static int _brute_intervals(const uint8_t *map, int n, bool ring, int *iv)
{
	int cnt = 0, nfree = 0;

	for (int r = 0; r < n; r++)
		nfree += map[r];
	if (nfree == n) {
		iv[0] = 0;
		iv[1] = n;
		return 1;
	}
	for (int r = 0; r < n; r++) {
		int e = r;

		if (!map[r] || (r > 0 && map[r - 1]))
			continue;
		/* On a ring, a run starting at rank 0 with rank n - 1 free
		 * belongs to the joined one. */
		if (ring && r == 0 && map[n - 1])
			continue;
		while (e < n && map[e])
			e++;
		if (ring && e == n && map[0]) {
			int h = 0;

			while (map[h])
				h++;
			e = n + h;
		}
		iv[2 * cnt] = r;
		iv[2 * cnt + 1] = e;
		cnt++;
	}
	return cnt;
}

static void _to_bits(const uint8_t *map, int n, uint64_t *bits)
{
	memset(bits, 0, sizeof(uint64_t) * LOC__BITS_WORDS(n));
	for (int r = 0; r < n; r++)
		if (map[r])
			bits[r >> 6] |= 1ULL << (r & 63);
}

static void _assert_counts(const loc__runhist_t *rh, const uint8_t *map,
			   int n, bool ring)
{
	static int iv[2 * 301], count[302];
	int nint = _brute_intervals(map, n, ring, iv);
	int64_t sumsq = 0;

	memset(count, 0, sizeof(int) * (n + 1));
	for (int i = 0; i < nint; i++)
		count[iv[2 * i + 1] - iv[2 * i]]++;
	for (int len = 0; len <= n; len++) {
		assert_int_equal(rh->count[len], count[len]);
		sumsq += (int64_t)count[len] * count[len];
	}
	assert_int_equal(rh->nint, nint);
	assert_int_equal(rh->sumsq, sumsq);
	{
		int longest = 0;

		for (int len = 1; len <= n; len++)
			if (count[len])
				longest = len;
		assert_int_equal(rh->maxlen, longest);
	}
	/* next(): the shortest length present from each length on. */
	for (int len = 1; len <= n; len++) {
		int want = 0;

		for (int l = len; l <= n && !want; l++)
			if (count[l])
				want = l;
		assert_int_equal(loc__runhist_next(rh, len), want);
	}
}

/* Random walks of single flips on every size, line and ring: the kept
 * counts match the brute force after each flip and a rebuild. */
static void test_flips_match_brute_force(void **state)
{
	static const int sizes[] = { 1, 2, 3, 7, 63, 64, 65, 127, 128, 129,
				     200, 300 };
	uint64_t s = 31;
	int checked = 0;

	(void)state;
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (int ring = 0; ring < 2; ring++) {
			int n = sizes[si];
			loc__runhist_t *rh = loc__runhist_create(n, ring);
			loc__runhist_t *fresh = loc__runhist_create(n, ring);
			uint64_t bits[LOC__BITS_WORDS(300)];
			uint8_t map[300];
			/* Start all free, all busy or half. */
			int mode = tu_below(&s, 3);

			assert_non_null(rh);
			assert_non_null(fresh);
			for (int r = 0; r < n; r++)
				map[r] = mode == 0 ? 1 :
					 mode == 1 ? 0 : tu_below(&s, 2);
			_to_bits(map, n, bits);
			loc__runhist_rebuild(rh, bits);
			_assert_counts(rh, map, n, ring);
			for (int step = 0; step < 400; step++) {
				/* Mostly near the ends and word edges. */
				int r = tu_below(&s, 4) ? tu_below(&s, n) :
					(int[]){ 0, n - 1, 63 % n,
						 64 % n }[tu_below(&s, 4)];

				loc__runhist_flip(rh, bits, r);
				map[r] ^= 1;
				bits[r >> 6] ^= 1ULL << (r & 63);
				_assert_counts(rh, map, n, ring);
				checked++;
			}
			loc__runhist_rebuild(fresh, bits);
			_assert_counts(fresh, map, n, ring);
			loc__runhist_destroy(rh);
			loc__runhist_destroy(fresh);
		}
	}
	assert_true(checked > 9000);
}

/* first_of(): the first interval in rank order whose length is wanted;
 * 5,000 ranks take several chunks of the scan. */
static void test_first_of_matches_brute_force(void **state)
{
	static const int sizes[] = { 1, 5, 64, 65, 200, 300, 5000 };
	static int iv[2 * 5001];
	static uint64_t bits[LOC__BITS_WORDS(5000)];
	static uint8_t map[5000];
	uint64_t s = 5;
	int found = 0;

	(void)state;
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (int ring = 0; ring < 2; ring++) {
			int n = sizes[si];
			loc__runhist_t *rh = loc__runhist_create(n, ring);

			assert_non_null(rh);
			for (int st = 0; st < 200; st++) {
				int lens[3], nlens = 1 + tu_below(&s, 3);
				int got[2], nint, want = -1;
				bool ok;

				/* Busy fraction from 0 to 1 across states. */
				for (int r = 0; r < n; r++)
					map[r] = tu_below(&s, 200) >= st;
				for (int i = 0; i < nlens; i++)
					lens[i] = 1 + tu_below(&s, st % 2 ? 4 : n);
				_to_bits(map, n, bits);
				loc__runhist_rebuild(rh, bits);
				nint = _brute_intervals(map, n, ring, iv);
				/* Often the length of an interval that is
				 * there, preferably one across rank 2048
				 * (a chunk edge of the scan). */
				if (nint && tu_below(&s, 2)) {
					int pick = tu_below(&s, nint);

					for (int i = 0; i < nint; i++)
						if (iv[2 * i] < 2048 &&
						    iv[2 * i + 1] > 2048)
							pick = i;
					lens[0] = iv[2 * pick + 1] - iv[2 * pick];
				}
				for (int i = 0; i < nint && want < 0; i++)
					for (int j = 0; j < nlens; j++)
						if (iv[2 * i + 1] - iv[2 * i] ==
						    lens[j])
							want = i;
				ok = loc__runhist_first_of(rh, bits, lens, nlens,
							   got);
				assert_int_equal(ok, want >= 0);
				if (!ok)
					continue;
				assert_int_equal(got[0], iv[2 * want]);
				assert_int_equal(got[1], iv[2 * want + 1]);
				found++;
			}
			loc__runhist_destroy(rh);
		}
	}
	assert_true(found > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flips_match_brute_force),
		cmocka_unit_test(test_first_of_matches_brute_force),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
