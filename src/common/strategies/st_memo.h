/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_memo.h - a strategy's answers to its last few questions, shared by
 * st_pack.c and st_mm.c. Not installed, not used by drivers.
 *
 * The replay asks a strategy the same question again and again: EASY's
 * reservation places the queue's head on the projected machine at every
 * pass, and most passes project the same machine as the one before (an
 * arrival changes no running job). A strategy whose answer is a function
 * of the question alone (the free map, and a few numbers such as k)
 * keeps its last answers here and turns those repeats into a lookup. A
 * hit compares the whole rank bitmap, not only its hash: the answer is
 * exact. Out of memory loses a slot, never an answer: the memo is an aid.
 */
#ifndef LOC_ST_MEMO_H
#define LOC_ST_MEMO_H

#include <stddef.h>
#include <stdint.h>

/* The numbers that complete a question besides its map (k, ...). */
#define LOC__MEMO_PARAMS 4

typedef struct loc__memo loc__memo_t;

/* A memo of questions on nnodes nodes; NULL when out of memory (every
 * question is then answered afresh). */
loc__memo_t *loc__memo_create(int nnodes);

/* Frees the memo; accepts NULL. */
void loc__memo_destroy(loc__memo_t *m);

/* Forgets every answer (loc_alloc_forget); accepts NULL. */
void loc__memo_clear(loc__memo_t *m);

/*
 * The answer kept for the free map of rank bitmap bits (hash: its
 * loc__map_hash()) and the numbers q, and its length in bytes in *len;
 * NULL when none. Borrowed until the next store or clear.
 */
const void *loc__memo_find(const loc__memo_t *m, uint64_t hash,
			   const uint64_t *bits,
			   const int64_t q[LOC__MEMO_PARAMS], size_t *len);

/* Keeps len bytes of answer to that question, in place of the oldest
 * one kept; a failed allocation keeps nothing. */
void loc__memo_store(loc__memo_t *m, uint64_t hash, const uint64_t *bits,
		     const int64_t q[LOC__MEMO_PARAMS], const void *answer,
		     size_t len);

#endif /* LOC_ST_MEMO_H */
