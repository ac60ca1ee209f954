/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_runhist.h - how many free intervals of each length the free map in
 * curve order holds, kept up to date as ranks flip.
 *
 * Sum of squares (st_fit.c) weighs a placement by the counts of free
 * intervals of each size it would leave; listing every interval of a
 * half-busy 32,768-node machine (about 8,000) cost it 13 us a decision.
 * The allocator's free map (loc_rankmap.c) keeps this histogram instead
 * when the strategy needs it: a rank that flips merges or splits the
 * interval around it, found from its neighbours' runs in O(1 + run / 64).
 * Intervals are those of loc__rank_intervals(): with ring, the runs at
 * both ends of the order are one interval, and every rank free is one
 * interval of nnodes. Not installed; used by the core only.
 */
#ifndef LOC_RUNHIST_H
#define LOC_RUNHIST_H

#include <stdbool.h>
#include <stdint.h>

typedef struct loc__runhist {
	int n;               /* ranks */
	bool ring;
	int *count;          /* [n + 1]: count[len] = intervals of len ranks */
	uint64_t *present;   /* bit len set when count[len] > 0 */
	int64_t sumsq;       /* sum over len of count[len]^2 */
	int nint;            /* intervals */
	int maxlen;          /* the longest interval (0: none) */
	int *scratch;        /* [n + 2]: the listing of a rebuild */
} loc__runhist_t;

/* For n ranks; NULL when out of memory. */
loc__runhist_t *loc__runhist_create(int n, bool ring);

/* Frees rh; accepts NULL. */
void loc__runhist_destroy(loc__runhist_t *rh);

/* Recounts from bits (a rank bitmap as loc__rank_bits()): O(n / 64 +
 * intervals). */
void loc__runhist_rebuild(loc__runhist_t *rh, const uint64_t *bits);

/* Rank r is about to flip in bits (called before the flip): updates the
 * counts for the interval it merges or splits. */
void loc__runhist_flip(loc__runhist_t *rh, const uint64_t *bits, int r);

/* The shortest interval length >= len present, or 0 when none. */
int loc__runhist_next(const loc__runhist_t *rh, int len);

/*
 * The first free interval in rank order (a ring's joined end runs come
 * last) whose length is one of lens[0..nlens): writes its start and end
 * (exclusive, may exceed n on a ring) to iv[0..1] and returns true, or
 * false when there is none.
 */
bool loc__runhist_first_of(const loc__runhist_t *rh, const uint64_t *bits,
			   const int *lens, int nlens, int *iv);

#endif /* LOC_RUNHIST_H */
