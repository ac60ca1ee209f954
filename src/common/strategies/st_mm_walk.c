/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm_walk.c - the nearest-node walk of the Manhattan Median family
 * (seed 003, Bender et al., WADS 2005): one list of grid offsets sorted by
 * L1 length (then by squared length, so a partial last shell stays
 * round), built once; a centre walks it until k free nodes are found,
 * reading each decision's free counts from a padded copy where a walked
 * point is the centre's index plus the offset's.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
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
 * The padded copy: each axis widened by every offset's reach (L + range
 * - 1 coordinates, as the axis tables), so the walk reads a point as its
 * centre's index plus the offset's, with no per-axis lookup. A padded
 * row is at most three runs of the axis tables' coordinates: the wrap
 * before, the row, the wrap after (zeros off a mesh).
 */
int loc__mm_build_pad(loc__mm_t *st)
{
	const int D = st->nd - 1, *tab = st->tab + st->tab_at[D];
	const int w = st->len[D] + st->range[D] - 1;
	size_t size = 1;

	for (int d = D; d >= 0; d--) {
		st->pad_stride[d] = (int)size;
		size *= (size_t)(st->len[d] + st->range[d] - 1);
		if (size > (size_t)MM_PAD_MAX * st->npoints ||
		    size > INT_MAX)
			return 0;
	}
	st->pad_nruns = 0;
	for (int q = 0, from = 0; q < w; q++) {
		bool more = q + 1 < w &&
			    (tab[q] == MM_OUT ? tab[q + 1] == MM_OUT :
						tab[q + 1] == tab[q] + 1);

		if (more)
			continue;
		if (st->pad_nruns == MM_PAD_RUNS)
			return 0;
		st->pad_run[st->pad_nruns][0] = from;
		st->pad_run[st->pad_nruns][1] = q + 1;
		st->pad_run[st->pad_nruns++][2] = tab[from] == MM_OUT ? -1 :
							  tab[from];
		from = q + 1;
	}
	st->pad_size = size;
	st->pf8 = calloc(st->npoints + 1, 1);
	st->pad = calloc(size + MM_PAD_SLACK, 1);
	st->pad_delta = malloc(sizeof(int) * st->noff);
	if (!st->pf8 || !st->pad || !st->pad_delta)
		return LOC_ENOMEM;
	for (int i = 0; i < st->noff; i++) {
		const int *u = st->off + (size_t)i * st->nd;
		int at = 0;

		for (int d = 0; d < st->nd; d++)
			at += u[d] * st->pad_stride[d];
		st->pad_delta[i] = at;
	}
	return 0;
}

/* Row by row: the outer axes' tables give the row, or none (a mesh edge
 * passed), and the runs copy its bytes. */
void loc__mm_fill_pad(loc__mm_t *st)
{
	const int D = st->nd - 1, w = st->len[D] + st->range[D] - 1;
	const size_t nrows = st->pad_size / (size_t)w;
	int q[LOC_MAX_DIMS] = { 0 };
	uint8_t *row = st->pad;

	for (size_t n = 0; n < nrows; n++, row += w) {
		int r = 0;

		for (int d = 0; d < D; d++)
			r += st->tab[st->tab_at[d] + q[d]];
		for (int j = 0; j < st->pad_nruns; j++) {
			const int *run = st->pad_run[j];

			if (r < 0 || run[2] < 0)
				memset(row + run[0], 0, run[1] - run[0]);
			else
				memcpy(row + run[0], st->pf8 + r + run[2],
				       run[1] - run[0]);
		}
		for (int d = D - 1; d >= 0; d--) {
			if (++q[d] < st->len[d] + st->range[d] - 1)
				break;
			q[d] = 0;
		}
	}
}

/* Records walked offset i of f free nodes, of which it takes what w
 * still needs; branch-free, since whether a point is free is a coin toss
 * on a fragmented machine. */
static inline void _mm_step(loc__mm_walked_t *restrict w,
			    int *restrict ent_off, int *restrict ent_take,
			    int i, int f)
{
	int take = f < w->need ? f : w->need;

	ent_off[w->n] = i;
	ent_take[w->n] = take;
	w->last = take ? i : w->last;
	w->n += take != 0;
	w->need -= take;
}

/*
 * Walks the offsets from point until k free nodes are found, recording
 * the points used (ent_*) and the last L1 radius. With the padded copy a
 * walked point is one add away (sixteen at a time with AVX-512, eight
 * with AVX2); without
 * it (large counts, or a copy too large) nd is a constant in each caller
 * so the axis loop unrolls.
 */
static inline void _mm_walk_nd(loc__mm_t *st, int point, int k,
			       const int nd)
{
	/* Locals: the stores below are ints, which could alias st's. */
	int *restrict ent_off = st->ent_off;
	int *restrict ent_take = st->ent_take;
	const int noff = st->noff;
	loc__mm_walked_t w = { .need = k };
	int i = 0;

	if (st->pad) {
		const uint8_t *at = st->pad + loc__mm_pad_at(st, point);

#if MM_VECTORS
		if (st->simd >= LOC_SIMD_AVX512)
			i = loc__mm_walk_avx512(st, at, &w);
		else if (st->simd >= LOC_SIMD_AVX2)
			i = loc__mm_walk_avx2(st, at, &w);
#endif
		for (; i < noff && w.need; i++)
			_mm_step(&w, ent_off, ent_take, i,
				 at[st->pad_delta[i]]);
	} else {
		const int *tab[LOC_MAX_DIMS] = { NULL }, *pf = st->point_free;

		loc__mm_tabs(st, point, tab);
		for (; i < noff && w.need; i++) {
			int pt = loc__mm_off_point(st, tab, i, nd);

			_mm_step(&w, ent_off, ent_take, i,
				 pf[pt < 0 ? st->npoints : pt]);
		}
	}
	st->nent = w.n;
	st->radius = st->off_l1[w.last];
	st->walk_centre = point;
	st->walk_pts = false;
}

void loc__mm_walk(loc__mm_t *st, int point, int k)
{
	switch (st->pad ? 0 : st->nd) {
	case 0:
	case 1:
		_mm_walk_nd(st, point, k, 1);
		break;
	case 2:
		_mm_walk_nd(st, point, k, 2);
		break;
	case 3:
		_mm_walk_nd(st, point, k, 3);
		break;
	default:
		_mm_walk_nd(st, point, k, 4);
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
