/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm_walk.c - the nearest-node walk of the Manhattan Median family
 * (seed 003, Bender et al., WADS 2005): one list of grid offsets sorted by
 * L1 length (then by squared length, so a partial last shell stays
 * round), built once; a centre walks it until k free nodes are found.
 */
#include <stdlib.h>

#include "st_mm.h"

typedef struct _mm_okey {
	int l1;
	long long sq;
	int idx;
} _mm_okey_t;

static int _cmp_okey(const void *x, const void *y)
{
	const _mm_okey_t *a = x, *b = y;

	if (a->l1 != b->l1)
		return a->l1 < b->l1 ? -1 : 1;
	if (a->sq != b->sq)
		return a->sq < b->sq ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * Every offset that can separate two points: one per residue on a torus
 * dimension (-(L-1)/2 .. L/2), -(L-1) .. L-1 on a mesh one.
 */
int loc__mm_build_offsets(loc__mm_t *st)
{
	long long n = 1;
	_mm_okey_t *key;
	int u[LOC_MAX_DIMS] = { 0 };

	for (int d = 0; d < st->nd; d++) {
		int L = st->len[d];

		st->range[d] = st->torus[d] ? L : 2 * L - 1;
		st->lo[d] = st->torus[d] ? -((L - 1) / 2) : -(L - 1);
		if (st->range[d] > st->maxrange)
			st->maxrange = st->range[d];
		n *= st->range[d];
		if (n > MM_MAX_OFFSETS)
			return LOC_ERANGE;
	}
	st->noff = (int)n;
	key = malloc(sizeof(*key) * n);
	st->off = malloc(sizeof(int) * n * st->nd);
	st->off_l1 = malloc(sizeof(int) * n);
	if (!key || !st->off || !st->off_l1) {
		free(key);
		return LOC_ENOMEM;
	}
	for (int i = 0; i < st->noff; i++) {
		int d;

		key[i].l1 = 0;
		key[i].sq = 0;
		key[i].idx = i;
		for (d = 0; d < st->nd; d++) {
			int o = st->lo[d] + u[d];

			key[i].l1 += o < 0 ? -o : o;
			key[i].sq += (long long)o * o;
		}
		for (d = st->nd - 1; d >= 0; d--) {
			if (++u[d] < st->range[d])
				break;
			u[d] = 0;
		}
	}
	qsort(key, n, sizeof(*key), _cmp_okey);
	st->maxrad = key[n - 1].l1;
	st->rad_end = malloc(sizeof(int) * (st->maxrad + 1));
	if (!st->rad_end) {
		free(key);
		return LOC_ENOMEM;
	}
	for (int i = 0, r = 0; i < st->noff; i++) {
		int idx = key[i].idx;

		for (int d = st->nd - 1; d >= 0; d--) {
			st->off[(size_t)i * st->nd + d] = idx % st->range[d];
			idx /= st->range[d];
		}
		st->off_l1[i] = key[i].l1;
		while (r < key[i].l1)
			st->rad_end[r++] = i;
	}
	st->rad_end[st->maxrad] = st->noff;
	free(key);
	return 0;
}

int loc__mm_build_tables(loc__mm_t *st)
{
	int n = 0;

	for (int d = 0; d < st->nd; d++) {
		st->tab_at[d] = n;
		n += st->len[d] + st->range[d] - 1;
	}
	st->tab = malloc(sizeof(int) * n);
	n = 0;
	for (int d = 0; d < st->nd; d++) {
		st->hop_at[d] = n + st->len[d] - 1;
		n += 2 * st->len[d] - 1;
	}
	st->hop = malloc(sizeof(int) * n);
	if (!st->tab || !st->hop)
		return LOC_ENOMEM;
	for (int d = 0; d < st->nd; d++) {
		int L = st->len[d];

		for (int delta = -(L - 1); delta < L; delta++) {
			int h = delta < 0 ? -delta : delta;

			st->hop[st->hop_at[d] + delta] =
				st->torus[d] && L - h < h ? L - h : h;
		}
	}
	for (int d = 0; d < st->nd; d++) {
		int L = st->len[d];

		for (int i = 0; i < L + st->range[d] - 1; i++) {
			int x = st->lo[d] + i;

			if (st->torus[d])
				x = x < 0 ? x + L : x >= L ? x - L : x;
			st->tab[st->tab_at[d] + i] =
				x < 0 || x >= L ? MM_OUT : x * st->pstride[d];
		}
	}
	return 0;
}

/*
 * Walks the offsets from point until k free nodes are found, recording
 * the points used (ent_*) and the last L1 radius. nd is a constant in
 * each caller below so the compiler unrolls the axis loop.
 */
static inline void _mm_walk_nd(loc__mm_t *st, int point, int k,
			       const int nd, const bool bytes)
{
	const int *tab[LOC_MAX_DIMS] = { NULL }, *pf = st->point_free;
	const uint8_t *pf8 = st->pf8;
	/* Locals: the stores below are ints, which could alias st's. */
	int *restrict ent_off = st->ent_off;
	int *restrict ent_take = st->ent_take;
	const int noff = st->noff, npoints = st->npoints;
	int need = k, i, n = 0, last = 0;

	loc__mm_tabs(st, point, tab);
	/* Branch-free body: whether a point is free is a coin toss on a
	 * fragmented machine, too costly to predict. */
	for (i = 0; i < noff && need; i++) {
		int pt = loc__mm_off_point(st, tab, i, nd), f, take;

		pt = pt < 0 ? npoints : pt;
		f = bytes ? pf8[pt] : pf[pt];
		take = f < need ? f : need;
		ent_off[n] = i;
		ent_take[n] = take;
		last = take ? i : last;
		n += take != 0;
		need -= take;
	}
	st->nent = n;
	st->radius = st->off_l1[last];
	st->walk_centre = point;
	st->walk_pts = false;
}

void loc__mm_walk(loc__mm_t *st, int point, int k)
{
	bool b = st->pf8 != NULL;

	switch (st->nd * 2 + b) {
	case 2:
		_mm_walk_nd(st, point, k, 1, false);
		break;
	case 3:
		_mm_walk_nd(st, point, k, 1, true);
		break;
	case 4:
		_mm_walk_nd(st, point, k, 2, false);
		break;
	case 5:
		_mm_walk_nd(st, point, k, 2, true);
		break;
	case 6:
		_mm_walk_nd(st, point, k, 3, false);
		break;
	case 7:
		_mm_walk_nd(st, point, k, 3, true);
		break;
	default:
		if (b)
			_mm_walk_nd(st, point, k, 4, true);
		else
			_mm_walk_nd(st, point, k, 4, false);
		break;
	}
}

/* Fills ent_pt from ent_off: the walk itself leaves it out, as only the
 * sets kept need their points. */
static void _mm_walk_points(loc__mm_t *st)
{
	const int *tab[LOC_MAX_DIMS];

	if (st->walk_pts)
		return;
	loc__mm_tabs(st, st->walk_centre, tab);
	for (int e = 0; e < st->nent; e++)
		st->ent_pt[e] = loc__mm_off_point(st, tab, st->ent_off[e],
						  st->nd);
	st->walk_pts = true;
}

/* An order-independent fingerprint of the walked set (SL dedupe). */
uint64_t loc__mm_walk_hash(loc__mm_t *st)
{
	uint64_t h = 0;

	_mm_walk_points(st);
	for (int e = 0; e < st->nent; e++) {
		uint64_t z = (uint64_t)st->ent_pt[e] * 0x9e3779b97f4a7c15ULL +
			     (uint64_t)st->ent_take[e];

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		h += z ^ (z >> 31);
	}
	return h;
}

/* Writes the walked set's nodes (lowest free nodes of each point). */
void loc__mm_walk_nodes(const loc__ctx_t *ctx, loc__mm_t *st)
{
	int n = 0;

	_mm_walk_points(st);
	for (int e = 0; e < st->nent; e++) {
		const int *pn;
		int m = loc_grid_point_nodes(ctx->grid, st->ent_pt[e], &pn);

		for (int i = 0, got = 0; i < m && got < st->ent_take[e]; i++)
			if (ctx->free[pn[i]]) {
				st->nodes[n++] = pn[i];
				got++;
			}
	}
}
