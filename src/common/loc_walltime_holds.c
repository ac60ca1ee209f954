/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime_holds.c - soft holds for PF partners inside Slurm: each
 * expires at its deadline and yields to jobs of higher priority.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_error.h"
#include "loc_walltime_holds.h"

typedef struct loc_hold {
	uint32_t partner_id;
	uint32_t priority;
	int64_t expires;
	int *nodes;
	int k;
} loc_hold_t;

struct loc_holds {
	int nnodes;
	loc_hold_t *hold;
	int n, cap;
};

loc_holds_t *loc_holds_create(int nnodes)
{
	loc_holds_t *h;

	if (nnodes < 0)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (h)
		h->nnodes = nnodes;
	return h;
}

void loc_holds_destroy(loc_holds_t *holds)
{
	if (!holds)
		return;
	for (int i = 0; i < holds->n; i++)
		free(holds->hold[i].nodes);
	free(holds->hold);
	free(holds);
}

static int _hold_find(const loc_holds_t *holds, uint32_t partner_id)
{
	for (int i = 0; i < holds->n; i++)
		if (holds->hold[i].partner_id == partner_id)
			return i;
	return -1;
}

static void _hold_remove(loc_holds_t *holds, int i)
{
	free(holds->hold[i].nodes);
	memmove(holds->hold + i, holds->hold + i + 1,
		sizeof(loc_hold_t) * (holds->n - i - 1));
	holds->n--;
}

static int _cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* A hold of k = 0 nodes is no hold: it only drops the job's old one.
 * Nodes outside 0..nnodes-1 are refused with LOC_EINVAL. */
int loc_holds_add(loc_holds_t *holds, uint32_t partner_id,
		  uint32_t partner_priority, const int *nodes, int k,
		  int64_t expires)
{
	int i, *copy;

	if (!holds || k < 0 || (k && !nodes))
		return LOC_EINVAL;
	for (int j = 0; j < k; j++)
		if (nodes[j] < 0 || nodes[j] >= holds->nnodes)
			return LOC_EINVAL;
	i = _hold_find(holds, partner_id);
	if (!k) {
		if (i >= 0)
			_hold_remove(holds, i);
		return 0;
	}
	copy = malloc(sizeof(int) * k);
	if (!copy)
		return LOC_ENOMEM;
	memcpy(copy, nodes, sizeof(int) * k);
	qsort(copy, k, sizeof(int), _cmp_int); /* for loc_holds_covers() */
	if (i < 0) {
		if (holds->n == holds->cap) {
			int cap = holds->cap ? 2 * holds->cap : 8;
			loc_hold_t *grown = realloc(holds->hold,
						    sizeof(loc_hold_t) * cap);

			if (!grown) {
				free(copy);
				return LOC_ENOMEM;
			}
			holds->hold = grown;
			holds->cap = cap;
		}
		i = holds->n++;
	} else {
		free(holds->hold[i].nodes);
	}
	holds->hold[i].partner_id = partner_id;
	holds->hold[i].priority = partner_priority;
	holds->hold[i].expires = expires;
	holds->hold[i].nodes = copy;
	holds->hold[i].k = k;
	return 0;
}

int loc_holds_release(loc_holds_t *holds, uint32_t partner_id)
{
	int i;

	if (!holds)
		return LOC_EINVAL;
	i = _hold_find(holds, partner_id);
	if (i < 0)
		return LOC_ENOENT;
	_hold_remove(holds, i);
	return 0;
}

int loc_holds_expire(loc_holds_t *holds, int64_t now)
{
	int dropped = 0;

	for (int i = 0; holds && i < holds->n;) {
		if (holds->hold[i].expires <= now) {
			_hold_remove(holds, i);
			dropped++;
		} else {
			i++;
		}
	}
	return dropped;
}

int loc_holds_filter(const loc_holds_t *holds, uint32_t job_id,
		     uint32_t job_priority, int64_t now, const uint8_t *in,
		     uint8_t *out)
{
	int cleared = 0, own = -1;

	if (!holds || !in || !out)
		return 0;
	if (out != in)
		memcpy(out, in, holds->nnodes);
	for (int i = 0; i < holds->n; i++) {
		const loc_hold_t *h = &holds->hold[i];

		if (h->partner_id == job_id) {
			own = i;
			continue;
		}
		/* Expired, or the job outranks the partner: ignored. */
		if (h->expires <= now || job_priority > h->priority ||
		    (job_priority == h->priority && job_id &&
		     job_id < h->partner_id))
			continue;
		for (int j = 0; j < h->k; j++)
			if (out[h->nodes[j]]) {
				out[h->nodes[j]] = 0;
				cleared++;
			}
	}
	/* The job's own region stays open to it even where another hold
	 * overlaps it. */
	if (own >= 0 && holds->hold[own].expires > now) {
		const loc_hold_t *h = &holds->hold[own];

		for (int j = 0; j < h->k; j++)
			if (in[h->nodes[j]] && !out[h->nodes[j]]) {
				out[h->nodes[j]] = in[h->nodes[j]];
				cleared--;
			}
	}
	return cleared;
}

bool loc_holds_covers(const loc_holds_t *holds, uint32_t partner_id,
		      int64_t now, const int *nodes, int k)
{
	int i = holds ? _hold_find(holds, partner_id) : -1;
	const loc_hold_t *h;

	if (i < 0 || k < 1 || !nodes || holds->hold[i].expires <= now)
		return false;
	h = &holds->hold[i];
	for (int a = 0; a < k; a++)
		if (!bsearch(&nodes[a], h->nodes, h->k, sizeof(int), _cmp_int))
			return false;
	return true;
}

int loc_holds_turn(const loc_holds_t *holds, uint32_t partner_id,
		   int64_t now, const uint8_t *cand, int need,
		   uint8_t *in_region)
{
	int i = holds ? _hold_find(holds, partner_id) : -1, n = 0;
	const loc_hold_t *h;

	if (i < 0 || !cand || !in_region || holds->hold[i].expires <= now)
		return 0;
	h = &holds->hold[i];
	memset(in_region, 0, holds->nnodes);
	for (int j = 0; j < h->k; j++)
		if (cand[h->nodes[j]]) {
			in_region[h->nodes[j]] = 1;
			n++;
		}
	return n >= need ? n : LOC_ENOFIT;
}

bool loc_holds_has(const loc_holds_t *holds, uint32_t partner_id,
		   int64_t now)
{
	int i = holds ? _hold_find(holds, partner_id) : -1;

	return i >= 0 && holds->hold[i].expires > now;
}

uint32_t loc_holds_partner(const loc_holds_t *holds, int i)
{
	return holds && i >= 0 && i < holds->n ? holds->hold[i].partner_id : 0;
}

int loc_holds_count(const loc_holds_t *holds, int *nodes_held)
{
	int total = 0;

	for (int i = 0; holds && i < holds->n; i++)
		total += holds->hold[i].k;
	if (nodes_held)
		*nodes_held = total;
	return holds ? holds->n : 0;
}
