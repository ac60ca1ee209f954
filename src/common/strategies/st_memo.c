/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_memo.c - a strategy's answers to its last few questions
 * (st_memo.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "st_memo.h"

/* A reservation offers the head at a few projected times: enough slots
 * for the usual run of offers to survive until the next pass. pack on
 * KTH-SP2's first 2,000 jobs on an 8x8 torus, 4,629 questions: 1,598
 * searches with 8 slots, 1,544 with 16, 1,523 with 32, 1,516 with 64. */
#define MEMO_SLOTS 16

typedef struct memo_slot {
	bool used;
	uint64_t hash;
	int64_t q[LOC__MEMO_PARAMS];
	uint64_t *bits;  /* [nw] the rank bitmap of the question */
	uint8_t *answer; /* [cap] */
	size_t len, cap;
} memo_slot_t;

struct loc__memo {
	int nw;
	int next; /* the slot a new answer overwrites (round robin) */
	memo_slot_t slot[MEMO_SLOTS];
};

loc__memo_t *loc__memo_create(int nnodes)
{
	loc__memo_t *m = calloc(1, sizeof(*m));

	if (m)
		m->nw = LOC__BITS_WORDS(nnodes);
	return m;
}

void loc__memo_destroy(loc__memo_t *m)
{
	if (!m)
		return;
	for (int i = 0; i < MEMO_SLOTS; i++) {
		free(m->slot[i].bits);
		free(m->slot[i].answer);
	}
	free(m);
}

void loc__memo_clear(loc__memo_t *m)
{
	if (!m)
		return;
	for (int i = 0; i < MEMO_SLOTS; i++)
		m->slot[i].used = false;
}

const void *loc__memo_find(const loc__memo_t *m, uint64_t hash,
			   const uint64_t *bits,
			   const int64_t q[LOC__MEMO_PARAMS], size_t *len)
{
	if (!m)
		return NULL;
	for (int i = 0; i < MEMO_SLOTS; i++) {
		const memo_slot_t *e = &m->slot[i];

		if (e->used && e->hash == hash &&
		    !memcmp(e->q, q, sizeof(e->q)) &&
		    !memcmp(e->bits, bits, sizeof(uint64_t) * m->nw)) {
			*len = e->len;
			return e->answer;
		}
	}
	return NULL;
}

void loc__memo_store(loc__memo_t *m, uint64_t hash, const uint64_t *bits,
		     const int64_t q[LOC__MEMO_PARAMS], const void *answer,
		     size_t len)
{
	memo_slot_t *e;

	if (!m)
		return;
	e = &m->slot[m->next];
	e->used = false;
	if (!e->bits && !(e->bits = malloc(sizeof(uint64_t) * m->nw)))
		return;
	if (e->cap < len) {
		uint8_t *grown = realloc(e->answer, len);

		if (!grown)
			return;
		e->answer = grown;
		e->cap = len;
	}
	memcpy(e->bits, bits, sizeof(uint64_t) * m->nw);
	if (len)
		memcpy(e->answer, answer, len);
	memcpy(e->q, q, sizeof(e->q));
	e->hash = hash;
	e->len = len;
	e->used = true;
	m->next = (m->next + 1) % MEMO_SLOTS;
}
