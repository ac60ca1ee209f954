/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_box_ws.c - the box strategy's workspace (seed 004, Tang et al.; see
 * st_box.c): its allocation and its O(1) box tests, prefix sums over the
 * candidate counts on a grid extended to twice the length of each torus
 * dimension, so a wrapping box is one rectangle in it.
 */
#include <stdlib.h>
#include <string.h>

#include "st_box.h"

/* ------------------------------------------------------------------ */
/* Workspace                                                           */
/* ------------------------------------------------------------------ */

void loc__box_ws_destroy(void *state)
{
	box_ws_t *w = state;

	if (!w)
		return;
	free(w->coord);
	free(w->cnt);
	free(w->pre);
	free(w->rpre);
	free(w->rfree);
	free(w->acc);
	free(w->list);
	free(w->sorted);
	free(w->bucket);
	free(w->nodes);
	loc__box_index_destroy(w->one);
	free(w);
}

box_ws_t *loc__box_ws_create(const loc_grid_t *grid)
{
	const loc_shape_t *sh = loc_grid_shape(grid);
	box_ws_t *w = calloc(1, sizeof(*w));
	size_t chunk;

	if (!w)
		return NULL;
	w->grid = grid;
	w->nd = sh->ndims;
	w->npoints = loc_grid_npoints(grid);
	w->nnodes = loc_grid_nnodes(grid);
	w->npp = sh->nodes_per_point;
	w->psize = 1;
	for (int d = w->nd - 1; d >= 0; d--) {
		w->dims[d] = sh->dims[d];
		w->torus[d] = sh->torus[d] && sh->dims[d] > 1;
		w->stride[d] = d == w->nd - 1 ?
				       1 : w->stride[d + 1] * w->dims[d + 1];
		w->ext[d] = w->torus[d] ? 2 * w->dims[d] : w->dims[d];
		w->pstride[d] = (int)w->psize;
		w->psize *= (size_t)w->ext[d] + 1;
	}
	chunk = (size_t)BOX_CHUNK * w->npoints;
	w->nbucket = BOX_MAX_REF * w->npoints + 2;
	w->coord = malloc(sizeof(int) * w->npoints * w->nd);
	w->cnt = malloc(sizeof(int) * w->npoints);
	w->pre = malloc(sizeof(int) * w->psize);
	w->rpre = malloc(sizeof(int) * w->psize);
	w->rfree = malloc(w->npoints);
	w->acc = malloc(sizeof(int) * chunk);
	w->list = malloc(sizeof(int) * chunk);
	w->sorted = malloc(sizeof(int) * chunk);
	w->bucket = malloc(sizeof(int) * w->nbucket);
	w->nodes = malloc(sizeof(int) * w->nnodes);
	if (!w->coord || !w->cnt || !w->pre || !w->rpre || !w->rfree ||
	    !w->acc || !w->list || !w->sorted || !w->bucket || !w->nodes) {
		loc__box_ws_destroy(w);
		return NULL;
	}
	for (int p = 0; p < w->npoints; p++)
		for (int d = 0; d < w->nd; d++)
			w->coord[p * w->nd + d] = p / w->stride[d] % w->dims[d];
	return w;
}

/* ------------------------------------------------------------------ */
/* Prefix sums                                                         */
/* ------------------------------------------------------------------ */

/* Fills the slab of pre at dimension d (prefix index pbase, grid point
 * gbase) from per-point values (ival, else bval); the last dimension is
 * summed here. */
static void _fill(const box_ws_t *w, int d, size_t pbase, int gbase,
		  const int *ival, const uint8_t *bval, int *pre)
{
	int L = w->dims[d];

	if (d == w->nd - 1) {
		int *row = pre + pbase, run = 0;

		row[0] = 0;
		if (ival)
			for (int x = 0; x < L; x++)
				row[x + 1] = run += ival[gbase + x];
		else
			for (int x = 0; x < L; x++)
				row[x + 1] = run += bval[gbase + x];
		/* The periodic second lap of a torus dimension. */
		for (int c = L + 1; c <= w->ext[d]; c++)
			row[c] = run + row[c - L];
		return;
	}
	memset(pre + pbase, 0, sizeof(int) * w->pstride[d]);
	for (int c = 1, x = 0; c <= w->ext[d]; c++) {
		_fill(w, d + 1, pbase + (size_t)c * w->pstride[d],
		      gbase + x * w->stride[d], ival, bval, pre);
		if (++x == L)
			x = 0;
	}
}

/* Builds inclusive-exclusive prefix sums of the per-point values
 * (periodic on torus dimensions) into pre. */
void loc__box_prefix(const box_ws_t *w, const int *ival, const uint8_t *bval,
		    int *pre)
{
	_fill(w, 0, 0, 0, ival, bval, pre);
	for (int d = w->nd - 2; d >= 0; d--) {
		size_t inner = w->pstride[d];
		size_t span = inner * (w->ext[d] + 1);

		for (size_t base = 0; base < w->psize; base += span)
			for (int c = 1; c <= w->ext[d]; c++) {
				int *dst = pre + base + c * inner;
				const int *src = dst - inner;

				for (size_t i = 0; i < inner; i++)
					dst[i] += src[i];
			}
	}
}

/* Sum over the extended box [lo, lo + len) (each within ext). */
int loc__box_query(const box_ws_t *w, const int *pre, const int *lo,
		  const int *len)
{
	int sum = 0;

	for (int m = 0; m < (1 << w->nd); m++) {
		size_t idx = 0;
		int neg = 0;

		for (int d = 0; d < w->nd; d++) {
			if (m >> d & 1) {
				idx += (size_t)(lo[d] + len[d]) * w->pstride[d];
			} else {
				idx += (size_t)lo[d] * w->pstride[d];
				neg ^= 1;
			}
		}
		sum += neg ? -pre[idx] : pre[idx];
	}
	return sum;
}
