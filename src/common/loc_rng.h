/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_rng.h - the core's random numbers: reproducible from a seed on
 * every machine (the random strategy, genalg). In loc_rng.c.
 */
#ifndef LOC_RNG_H
#define LOC_RNG_H

#include <stdint.h>

/* Deterministic 64-bit PRNG (splitmix64 seeding xoshiro256**). */
typedef struct loc__rng {
	uint64_t s[4];
} loc__rng_t;
void loc__rng_seed(loc__rng_t *rng, uint64_t seed);
uint64_t loc__rng_next(loc__rng_t *rng);
/* Uniform in [0, bound), bound >= 1, without modulo bias. */
uint64_t loc__rng_below(loc__rng_t *rng, uint64_t bound);

#endif /* LOC_RNG_H */
