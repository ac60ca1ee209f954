/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack_memo.c - pack's answers to the last few free maps.
 *
 * Pack's choice is a function of the free map, k and PackTolerance
 * alone (the index and the shells only speed it up), so the same
 * question gets the same answer. The replay asks it again and again:
 * EASY's reservation places the queue's head on the projected machine
 * at every pass, and most passes project the same machine as the one
 * before (an arrival changes no running job). Remembering the last few
 * answers turns those repeats into a lookup. A hit is checked against
 * the whole rank bitmap, not only its hash: the answer is exact.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "st_pack.h"

/* A reservation offers the head at a few projected times: enough slots
 * for the usual run of offers to survive until the next pass. KTH-SP2's
 * first 2,000 jobs on an 8x8 torus, 4,629 questions: 1,598 searches with
 * 8 slots, 1,544 with 16, 1,523 with 32, 1,516 with 64. */
#define PACK_MEMO_SLOTS 16

typedef struct pack_memo_slot {
	bool used;
	uint64_t hash;
	int k;
	double tolerance;
	int64_t total;
	uint64_t *bits; /* [nw] the rank bitmap of the question */
	int *set;       /* [cap] the answer, in the order pack offered it */
	int cap;
} pack_memo_slot_t;

struct loc__pack_memo {
	int nw;
	int next; /* the slot a new answer overwrites (round robin) */
	pack_memo_slot_t slot[PACK_MEMO_SLOTS];
};

loc__pack_memo_t *loc__pack_memo_create(int nnodes)
{
	loc__pack_memo_t *m = calloc(1, sizeof(*m));

	if (m)
		m->nw = LOC__BITS_WORDS(nnodes);
	return m;
}

void loc__pack_memo_destroy(loc__pack_memo_t *m)
{
	if (!m)
		return;
	for (int i = 0; i < PACK_MEMO_SLOTS; i++) {
		free(m->slot[i].bits);
		free(m->slot[i].set);
	}
	free(m);
}

void loc__pack_memo_clear(loc__pack_memo_t *m)
{
	if (!m)
		return;
	for (int i = 0; i < PACK_MEMO_SLOTS; i++)
		m->slot[i].used = false;
}

const int *loc__pack_memo_find(const loc__pack_memo_t *m, uint64_t hash,
			       const uint64_t *bits, int k, double tolerance,
			       int64_t *total)
{
	if (!m)
		return NULL;
	for (int i = 0; i < PACK_MEMO_SLOTS; i++) {
		const pack_memo_slot_t *e = &m->slot[i];

		if (e->used && e->hash == hash && e->k == k &&
		    e->tolerance == tolerance &&
		    !memcmp(e->bits, bits, sizeof(uint64_t) * m->nw)) {
			*total = e->total;
			return e->set;
		}
	}
	return NULL;
}

void loc__pack_memo_store(loc__pack_memo_t *m, uint64_t hash,
			  const uint64_t *bits, int k, double tolerance,
			  const int *set, int64_t total)
{
	pack_memo_slot_t *e;

	if (!m)
		return;
	e = &m->slot[m->next];
	/* Out of memory only loses the slot: the memo is an aid. */
	e->used = false;
	if (!e->bits && !(e->bits = malloc(sizeof(uint64_t) * m->nw)))
		return;
	if (e->cap < k) {
		int *grown = realloc(e->set, sizeof(int) * (size_t)k);

		if (!grown)
			return;
		e->set = grown;
		e->cap = k;
	}
	memcpy(e->bits, bits, sizeof(uint64_t) * m->nw);
	memcpy(e->set, set, sizeof(int) * (size_t)k);
	e->hash = hash;
	e->k = k;
	e->tolerance = tolerance;
	e->total = total;
	e->used = true;
	m->next = (m->next + 1) % PACK_MEMO_SLOTS;
}
