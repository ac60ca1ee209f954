/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_tiers.c - placement inside the lightest weight tiers (loc_tiers.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loc_tiers.h"

#define FEW_LEVELS 32 /* distinct weights found by linear search */

int loc_tiers_init(loc_tiers_t *t, int nnodes, loc_error_t *err)
{
	size_t n = nnodes > 0 ? (size_t)nnodes : 1;

	memset(t, 0, sizeof(*t));
	t->nnodes = nnodes;
	t->levels = calloc(n, sizeof(uint64_t));
	t->count = calloc(n, sizeof(int));
	t->save = calloc(n, sizeof(uint8_t));
	if (!t->levels || !t->count || !t->save) {
		loc_tiers_fini(t);
		return loc_error_set(err, LOC_ENOMEM, NULL, 0,
				     "out of memory for %d nodes' tiers",
				     nnodes);
	}
	return 0;
}

void loc_tiers_fini(loc_tiers_t *t)
{
	free(t->levels);
	free(t->count);
	free(t->save);
	memset(t, 0, sizeof(*t));
}

static int _cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int loc_tiers_set(loc_tiers_t *t, const uint64_t *weight, const uint8_t *use)
{
	int n = 0, i;

	t->weight = weight;
	t->nlevels = 0;
	for (int g = 0; g < t->nnodes && n <= FEW_LEVELS; g++) {
		if (use && !use[g])
			continue;
		for (i = 0; i < n && t->levels[i] != weight[g]; i++)
			;
		if (i == n)
			t->levels[n++] = weight[g];
	}
	if (n > FEW_LEVELS) {
		n = 0;
		for (int g = 0; g < t->nnodes; g++)
			if (!use || use[g])
				t->levels[n++] = weight[g];
	}
	if (n > 1)
		qsort(t->levels, n, sizeof(uint64_t), _cmp_u64);
	for (i = 0; i < n; i++)
		if (!t->nlevels || t->levels[i] != t->levels[t->nlevels - 1])
			t->levels[t->nlevels++] = t->levels[i];
	return t->nlevels;
}

void loc_tiers_clear(loc_tiers_t *t)
{
	t->weight = NULL;
	t->nlevels = 0;
}

/* The level of weight w: the first level >= w (a node outside the nodes
 * the levels were found on joins the tier above its weight). */
static int _level_of(const loc_tiers_t *t, uint64_t w)
{
	int lo = 0, hi = t->nlevels - 1;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (t->levels[mid] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* candidate[] = save[] within the levels up to `level` (the last holds
 * every weight), plus the required nodes. Returns the candidate count. */
static int _narrow(loc_tiers_t *t, uint8_t *candidate, const int *required,
		   int nrequired, int level)
{
	uint64_t top = level == t->nlevels - 1 ? UINT64_MAX : t->levels[level];
	int n = 0;

	for (int g = 0; g < t->nnodes; g++) {
		candidate[g] = t->save[g] && t->weight[g] <= top;
		n += candidate[g];
	}
	for (int i = 0; i < nrequired; i++) {
		int g = required[i];

		n += !candidate[g] && t->save[g];
		candidate[g] = t->save[g];
	}
	return n;
}

int loc_tiers_place(loc_tiers_t *t, uint8_t *candidate, const int *required,
		    int nrequired, int need, loc_tiers_place_f place,
		    void *arg)
{
	int rc = LOC_ENOFIT, upto = nrequired;

	if (t->nlevels <= 1 || !t->weight)
		return place(arg);
	memcpy(t->save, candidate, t->nnodes);
	memset(t->count, 0, t->nlevels * sizeof(int));
	for (int g = 0; g < t->nnodes; g++)
		if (candidate[g])
			t->count[_level_of(t, t->weight[g])]++;
	for (int l = 0; l < t->nlevels; l++) {
		int n;

		/* upto over-counts required nodes: a cheap trigger only. */
		upto += t->count[l];
		if (l < t->nlevels - 1 && upto < need)
			continue;
		n = _narrow(t, candidate, required, nrequired, l);
		rc = place(arg);
		if (rc != LOC_ENOFIT)
			break;
		if (need < 2 * n)
			need = 2 * n;
	}
	memcpy(candidate, t->save, t->nnodes);
	return rc;
}

typedef struct select_call {
	loc_alloc_t *alloc;
	const loc_request_t *req;
	const loc_view_t *view;
	int *out;
	int64_t *calls;
	loc_error_t *err;
} select_call_t;

static int _select_now(void *arg)
{
	select_call_t *c = arg;

	if (c->calls)
		(*c->calls)++;
	return loc_alloc_select(c->alloc, c->req, c->view, c->out, c->err);
}

int loc_tiers_select(loc_tiers_t *t, loc_alloc_t *alloc,
		     const loc_request_t *req, uint8_t *cand,
		     const loc_view_t *view, int *out, int64_t *calls,
		     loc_error_t *err)
{
	select_call_t c = { alloc, req, view, out, calls, err };

	return loc_tiers_place(t, cand, req->required, req->nrequired,
			       req->nodes, _select_now, &c);
}

int loc_tiers_parse_weight(const char *spec, loc_hostlist_t *nodes,
			   uint64_t *weight, loc_error_t *err)
{
	const char *eq = strrchr(spec, '=');
	unsigned long long w = 0;
	char expr[4096], *end = NULL;

	memset(nodes, 0, sizeof(*nodes));
	if (eq && eq > spec && isdigit((unsigned char)eq[1])) {
		errno = 0;
		w = strtoull(eq + 1, &end, 10);
	}
	if (!end || *end || errno || w > UINT32_MAX ||
	    (size_t)(eq - spec) >= sizeof(expr))
		return loc_error_set(err, LOC_EPARSE, NULL, 0,
				     "'%s': expected NODES=WEIGHT, WEIGHT "
				     "from 0 to %lu",
				     spec, (unsigned long)UINT32_MAX);
	memcpy(expr, spec, eq - spec);
	expr[eq - spec] = '\0';
	*weight = w;
	return loc_hostlist_expand(expr, nodes, err);
}
