/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_adjest.c - AdjEst (seed 004, sec. III-C, IV-C): per-user
 * history of runtime accuracy in an open-addressing table.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "loc_error.h"
#include "loc_walltime_adjest.h"

typedef struct adj_user {
	uint32_t user;
	bool used;
	int count; /* accuracies recorded, up to window */
	int next;  /* ring slot for the next one */
	double *acc;
} adj_user_t;

struct loc_adjest {
	int window;
	adj_user_t *slot; /* open addressing, linear probing */
	size_t cap;       /* power of two */
	size_t n;
};

static size_t _adj_hash(uint32_t user, size_t cap)
{
	uint64_t h = (uint64_t)user * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static adj_user_t *_adj_find(const loc_adjest_t *adj, uint32_t user)
{
	size_t i = _adj_hash(user, adj->cap);

	while (adj->slot[i].used) {
		if (adj->slot[i].user == user)
			return &adj->slot[i];
		i = (i + 1) & (adj->cap - 1);
	}
	return NULL;
}

loc_adjest_t *loc_adjest_create(int window)
{
	loc_adjest_t *adj;

	if (window < 1)
		return NULL;
	adj = calloc(1, sizeof(*adj));
	if (!adj)
		return NULL;
	adj->window = window;
	adj->cap = 16;
	adj->slot = calloc(adj->cap, sizeof(adj_user_t));
	if (!adj->slot) {
		free(adj);
		return NULL;
	}
	return adj;
}

void loc_adjest_destroy(loc_adjest_t *adj)
{
	if (!adj)
		return;
	for (size_t i = 0; i < adj->cap; i++)
		free(adj->slot[i].acc);
	free(adj->slot);
	free(adj);
}

/* Doubles the table when it is half full. */
static int _adj_grow(loc_adjest_t *adj)
{
	size_t cap = adj->cap * 2;
	adj_user_t *slot = calloc(cap, sizeof(adj_user_t));

	if (!slot)
		return LOC_ENOMEM;
	for (size_t i = 0; i < adj->cap; i++) {
		size_t j;

		if (!adj->slot[i].used)
			continue;
		j = _adj_hash(adj->slot[i].user, cap);
		while (slot[j].used)
			j = (j + 1) & (cap - 1);
		slot[j] = adj->slot[i];
	}
	free(adj->slot);
	adj->slot = slot;
	adj->cap = cap;
	return 0;
}

/* Accuracy is capped at 1: a job that overran its request (killed at the
 * limit, or a grace period) says its request was right, not short. A
 * request <= 0 or a negative runtime is refused with LOC_EINVAL. */
int loc_adjest_record(loc_adjest_t *adj, uint32_t user, int64_t requested,
		      int64_t actual)
{
	adj_user_t *u;
	double a;

	if (!adj || requested <= 0 || actual < 0)
		return LOC_EINVAL;
	a = (double)actual / (double)requested;
	if (a > 1)
		a = 1;
	u = _adj_find(adj, user);
	if (!u) {
		size_t i;
		double *acc;

		if (2 * (adj->n + 1) > adj->cap && _adj_grow(adj))
			return LOC_ENOMEM;
		acc = malloc(sizeof(double) * adj->window);
		if (!acc)
			return LOC_ENOMEM;
		i = _adj_hash(user, adj->cap);
		while (adj->slot[i].used)
			i = (i + 1) & (adj->cap - 1);
		u = &adj->slot[i];
		u->used = true;
		u->user = user;
		u->count = 0;
		u->next = 0;
		u->acc = acc;
		adj->n++;
	}
	u->acc[u->next] = a;
	u->next = (u->next + 1) % adj->window;
	if (u->count < adj->window)
		u->count++;
	return 0;
}

int64_t loc_adjest_estimate(const loc_adjest_t *adj, uint32_t user,
			    int64_t requested)
{
	const adj_user_t *u;
	int64_t est, floor;
	double sum = 0;

	if (!adj || requested <= 0)
		return requested;
	u = _adj_find(adj, user);
	if (!u || !u->count)
		return requested;
	for (int i = 0; i < u->count; i++)
		sum += u->acc[i];
	est = (int64_t)llround((double)requested * (sum / u->count));
	floor = requested < LOC_ADJEST_MIN_RUNTIME_SEC ?
			requested :
			LOC_ADJEST_MIN_RUNTIME_SEC;
	if (est < floor)
		est = floor;
	if (est > requested)
		est = requested;
	return est;
}
