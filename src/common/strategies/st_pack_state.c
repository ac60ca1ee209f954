/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack_state.c - the pack strategy's state: built once per allocator
 * from the grid and the curve (adjacency, coordinates, hop tables and
 * every decision's scratch), so that no decision allocates.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
#include "st_pack.h"
#include "st_shells.h"

#define PACK_HOP_MATRIX_POINTS 1024 /* a point-to-point hop table up to
				     * this many points (1 MB) */

void loc__pack_destroy(void *p)
{
	loc__pack_t *s = p;

	if (!s)
		return;
	free(s->nb_off);
	free(s->nb);
	free(s->walls);
	free(s->pnb_off);
	free(s->pnb);
	free(s->node_pt);
	free(s->pt_off);
	free(s->pt_nodes);
	free(s->coord);
	free(s->hop);
	free(s->f);
	free(s->axis_tmp);
	free(s->sort_tmp);
	free(s->pmark);
	free(s->queue);
	free(s->imark);
	free(s->idx);
	free(s->pool);
	free(s->pool_c);
	free(s->closed);
	free(s->rest);
	free(s->rest_c);
	free(s->sum);
	free(s->keys);
	free(s->in);
	free(s->pin);
	free(s->set);
	free(s->best);
	free(s->kept);
	loc__shells_destroy(s->sh);
	free(s->point_free);
	free(s->cand);
	free(s->rank);
	loc__pack_index_destroy(s->index);
	loc__memo_destroy(s->memo);
	free(s->memo_answer);
	free(s->first_pick);
	free(s->first_mark);
	free(s->pt_hops);
	free(s->rest_pt);
	free(s);
}

/* Node and point adjacency (CSR) and the walls of every node. */
static int _init_adjacency(loc__pack_t *s, const loc_grid_t *grid)
{
	int n = s->n, np = s->np, pn[2 * LOC_MAX_DIMS];
	long total = 0, ptotal = 0;

	s->pnb_off = malloc(sizeof(int) * (np + 1));
	s->nb_off = malloc(sizeof(int) * (n + 1));
	s->walls = malloc(sizeof(int) * n);
	if (!s->pnb_off || !s->nb_off || !s->walls)
		return LOC_ENOMEM;
	/* Point adjacency first; a node's neighbours are the other nodes
	 * of its point and every node of the neighbouring points. */
	for (int p = 0; p < np; p++) {
		s->pnb_off[p] = (int)ptotal;
		ptotal += loc_grid_point_neighbors(grid, p, pn);
	}
	s->pnb_off[np] = (int)ptotal;
	s->pnb = malloc(sizeof(int) * (ptotal + 1));
	if (!s->pnb)
		return LOC_ENOMEM;
	for (int p = 0; p < np; p++)
		loc_grid_point_neighbors(grid, p, s->pnb + s->pnb_off[p]);
	for (int v = 0; v < n; v++) {
		int p = loc_grid_node_point(grid, v), deg;
		const int *same;

		s->nb_off[v] = (int)total;
		total += loc_grid_point_nodes(grid, p, &same) - 1;
		deg = s->pnb_off[p + 1] - s->pnb_off[p];
		s->walls[v] = 2 * s->nd - deg;
		for (int i = s->pnb_off[p]; i < s->pnb_off[p + 1]; i++) {
			const int *o;

			total += loc_grid_point_nodes(grid, s->pnb[i], &o);
		}
	}
	s->nb_off[n] = (int)total;
	s->nb = malloc(sizeof(int) * (total + 1));
	if (!s->nb)
		return LOC_ENOMEM;
	for (int v = 0, t = 0; v < n; v++) {
		int p = loc_grid_node_point(grid, v), c;
		const int *o;

		c = loc_grid_point_nodes(grid, p, &o);
		for (int j = 0; j < c; j++)
			if (o[j] != v)
				s->nb[t++] = o[j];
		for (int i = s->pnb_off[p]; i < s->pnb_off[p + 1]; i++) {
			c = loc_grid_point_nodes(grid, s->pnb[i], &o);
			for (int j = 0; j < c; j++)
				s->nb[t++] = o[j];
		}
	}
	return 0;
}

/* Coordinates, per-axis hop tables and the axis sums' scratch. */
static int _init_axes(loc__pack_t *s, const loc_grid_t *grid)
{
	long hops = 0, lens = 0;

	s->node_pt = malloc(sizeof(int) * s->n);
	s->coord = malloc(sizeof(int) * (size_t)s->np * s->nd);
	s->pt_off = malloc(sizeof(int) * (s->np + 1));
	s->pt_nodes = malloc(sizeof(int) * (s->n + 1));
	if (!s->node_pt || !s->coord || !s->pt_off || !s->pt_nodes)
		return LOC_ENOMEM;
	for (int v = 0; v < s->n; v++)
		s->node_pt[v] = loc_grid_node_point(grid, v);
	for (int p = 0, t = 0; p < s->np; p++) {
		const int *o;
		int c = loc_grid_point_nodes(grid, p, &o);

		s->pt_off[p] = t;
		memcpy(s->pt_nodes + t, o, sizeof(int) * c);
		t += c;
		s->pt_off[p + 1] = t;
	}
	for (int p = 0; p < s->np; p++) {
		loc_coord_t c;

		loc_grid_point_coord(grid, p, &c);
		memcpy(s->coord + (size_t)p * s->nd, c.c, sizeof(int) * s->nd);
	}
	for (int d = 0; d < s->nd; d++) {
		s->len[d] = loc_grid_shape(grid)->dims[d];
		s->hop_at[d] = (int)hops + s->len[d] - 1;
		s->f_at[d] = (int)lens;
		hops += 2 * s->len[d] - 1;
		lens += s->len[d];
		if (s->len[d] > s->maxlen)
			s->maxlen = s->len[d];
	}
	s->hop = malloc(sizeof(int) * hops);
	s->f = malloc(sizeof(int64_t) * lens);
	s->axis_tmp = malloc(sizeof(int64_t) * (7 * (size_t)s->maxlen + 2));
	s->sort_tmp = malloc(sizeof(int) * s->n);
	if (!s->hop || !s->f || !s->axis_tmp || !s->sort_tmp)
		return LOC_ENOMEM;
	for (int d = 0; d < s->nd; d++)
		for (int delta = 1 - s->len[d]; delta < s->len[d]; delta++)
			s->hop[s->hop_at[d] + delta] = loc_grid_axis_hops(
				grid, d, delta < 0 ? -delta : 0,
				delta < 0 ? 0 : delta);
	s->diameter = loc_grid_diameter(grid);
	/* Growth adds one node's hops to every node left at each step: a
	 * row of this table costs one load per node where the per-axis
	 * tables cost two per axis. Optional: growth falls back on them. */
	if (s->np <= PACK_HOP_MATRIX_POINTS && s->diameter <= UINT8_MAX) {
		s->pt_hops = malloc((size_t)s->np * s->np);
		s->rest_pt = malloc(sizeof(int) * s->n);
		if (!s->pt_hops || !s->rest_pt) {
			free(s->pt_hops);
			free(s->rest_pt);
			s->pt_hops = NULL;
			s->rest_pt = NULL;
			return 0;
		}
		for (int p = 0; p < s->np; p++)
			for (int q = 0; q < s->np; q++) {
				int h = 0;

				/* From p to q, as growth reads the
				 * axis tables. */
				for (int d = 0; d < s->nd; d++)
					h += s->hop[s->hop_at[d] +
						    s->coord[q * s->nd + d] -
						    s->coord[p * s->nd + d]];
				s->pt_hops[(size_t)p * s->np + q] = (uint8_t)h;
			}
	}
	return 0;
}

int loc__pack_create(const loc_grid_t *grid, const loc_curve_t *curve,
		     const loc_policy_t *policy, void **state,
		     loc_error_t *err)
{
	int n = loc_grid_nnodes(grid), np = loc_grid_npoints(grid);
	loc__pack_t *s = calloc(1, sizeof(*s));

	(void)policy;
	if (!s)
		goto nomem;
	s->n = n;
	s->np = np;
	s->nd = loc_grid_ndims(grid);
	s->grid = grid;
	s->order = loc_curve_order(curve);
	s->ranks = loc_curve_ranks(curve);
	if (_init_adjacency(s, grid) || _init_axes(s, grid))
		goto nomem;
	s->pmark = calloc(np, sizeof(int));
	s->queue = malloc(sizeof(int) * np);
	s->imark = calloc(n, sizeof(int));
	s->idx = malloc(sizeof(int) * n);
	s->pool = malloc(sizeof(int) * n);
	s->pool_c = malloc(sizeof(int) * (size_t)n * s->nd);
	s->closed = malloc(sizeof(int) * n);
	s->rest = malloc(sizeof(int) * n);
	s->rest_c = malloc(sizeof(int) * (size_t)n * s->nd);
	s->sum = malloc(sizeof(int64_t) * n);
	s->keys = malloc(sizeof(loc__pack_key_t) * n);
	s->in = calloc(n, 1);
	s->pin = malloc(n);
	s->set = malloc(sizeof(int) * n);
	s->best = malloc(sizeof(int) * n);
	s->kept = malloc(sizeof(int) * 2 * (size_t)n);
	s->point_free = malloc(sizeof(int) * np);
	s->cand = malloc(sizeof(int) * np);
	s->rank = malloc(sizeof(loc__shell_rank_t) * np);
	s->first_pick = malloc(sizeof(int) * n);
	s->first_mark = calloc(n, sizeof(int));
	if (!s->first_pick || !s->first_mark)
		goto nomem;
	if (!s->pmark || !s->queue || !s->imark || !s->idx || !s->pool ||
	    !s->pool_c || !s->closed || !s->rest || !s->rest_c || !s->sum || !s->keys ||
	    !s->in || !s->pin || !s->set || !s->best || !s->kept || !s->point_free ||
	    !s->cand || !s->rank)
		goto nomem;
	/* NULL when the table would be too large: centres are then spread
	 * evenly along the curve instead of ranked. */
	s->sh = loc__shells_create(grid);
	/* NULL: out of memory, every question is answered afresh. */
	s->memo = loc__memo_create(n);
	s->memo_answer = malloc(sizeof(int64_t) + sizeof(int) * (size_t)n);
	if (!s->memo_answer) {
		loc__memo_destroy(s->memo);
		s->memo = NULL;
	}
	*state = s;
	return 0;
nomem:
	loc__pack_destroy(s);
	return loc_error_set(err, LOC_ENOMEM, NULL, 0,
			     "out of memory creating the pack strategy");
}
