/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_rng.c - a small deterministic PRNG (xoshiro256** seeded by
 * splitmix64), so seeded strategies give the same answer everywhere.
 */
#include "loc_rng.h"

static uint64_t _splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t _rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void loc__rng_seed(loc__rng_t *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = _splitmix64(&seed);
}

uint64_t loc__rng_next(loc__rng_t *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = _rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = _rotl(s[3], 45);
	return result;
}

uint64_t loc__rng_below(loc__rng_t *rng, uint64_t bound)
{
	/* Rejection sampling: drop the top partial block to avoid bias. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t x;

	do {
		x = loc__rng_next(rng);
	} while (x >= limit);
	return x % bound;
}
