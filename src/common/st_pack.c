/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack.c - "pack": compact placements that keep the free space in
 * compact pieces (this project's own heuristic, no paper).
 *
 * Every free node is tried as a centre (a bounded, evenly spread subset
 * on large machines). From a centre the set grows greedily by pairwise
 * distance: the next node is the free one with the least sum of hops to
 * the nodes chosen so far, ties broken by the most "closed" sides (grid
 * neighbours that are busy, outside the mesh, or already chosen), then by
 * curve rank. Only the M free nodes nearest the centre (M = 2k + 16, by
 * breadth-first search over grid points) are considered, which bounds
 * the work without changing the answer in practice.
 *
 * Every centre gives one set and its total pairwise hops. Among the sets
 * within PackTolerance (a fraction) of the least total, the winner is the
 * one that adds the least to the perimeter of the free region: the
 * number of its sides facing free nodes left outside it, minus the
 * number facing busy nodes or walls (each of those was a border of the
 * free region and disappears). Then the lower total, then the earlier
 * centre. With PackTolerance=0 the choice is among exact ties only.
 * Finally improving swaps (a chosen node for a free one) lower the total
 * while any exists, bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_strategy_internal.h"

#define PACK_WORK (1L << 22)  /* centres * M * k per decision */
#define PACK_SWAP_PASSES 8    /* improving-swap passes over the set */
#define PACK_EXTRA 16         /* M = 2k + PACK_EXTRA nearest free nodes */

typedef struct pack_state {
	int n, np;
	int *nb_off, *nb;      /* node -> neighbouring nodes (CSR) */
	int *walls;            /* node -> missing grid sides */
	int *pnb_off, *pnb;    /* point -> neighbouring points (CSR) */
	int *pmark;            /* [np] BFS stamp per point */
	int *queue;            /* [np] */
	int *idx;              /* [n] node -> position in the local list */
	int *imark;            /* [n] stamp for idx */
	int stamp;
	int *local;            /* [n] the M nearest free nodes */
	long *sd;              /* [n] sum of hops to the chosen nodes */
	int *closed;           /* [n] closed sides of each local node */
	uint8_t *in;           /* [n] chosen */
	int *set, *best;       /* [n] current and winning sets */
	const int *ranks;      /* curve ranks (borrowed at decision time) */
} pack_state_t;

static void _pack_fini(void *p)
{
	pack_state_t *s = p;

	if (!s)
		return;
	free(s->nb_off);
	free(s->nb);
	free(s->walls);
	free(s->pnb_off);
	free(s->pnb);
	free(s->pmark);
	free(s->queue);
	free(s->idx);
	free(s->imark);
	free(s->local);
	free(s->sd);
	free(s->closed);
	free(s->in);
	free(s->set);
	free(s->best);
	free(s);
}

static int _pack_init(const loc_grid_t *grid, const loc_curve_t *curve,
		      const loc_policy_t *policy, void **state,
		      loc_error_t *err)
{
	int n = loc_grid_nnodes(grid), np = loc_grid_npoints(grid);
	int nd = loc_grid_ndims(grid), pn[2 * LOC_MAX_DIMS];
	long total = 0, ptotal = 0;
	pack_state_t *s = calloc(1, sizeof(*s));

	(void)curve;
	(void)policy;
	if (!s)
		goto nomem;
	s->n = n;
	s->np = np;
	s->pnb_off = malloc(sizeof(int) * (np + 1));
	s->nb_off = malloc(sizeof(int) * (n + 1));
	s->walls = malloc(sizeof(int) * n);
	if (!s->pnb_off || !s->nb_off || !s->walls)
		goto nomem;
	/* Point adjacency first; a node's neighbours are the other nodes
	 * of its point and every node of the neighbouring points. */
	for (int p = 0; p < np; p++) {
		s->pnb_off[p] = (int)ptotal;
		ptotal += loc_grid_point_neighbors(grid, p, pn);
	}
	s->pnb_off[np] = (int)ptotal;
	s->pnb = malloc(sizeof(int) * (ptotal + 1));
	if (!s->pnb)
		goto nomem;
	for (int p = 0; p < np; p++)
		loc_grid_point_neighbors(grid, p, s->pnb + s->pnb_off[p]);
	for (int v = 0; v < n; v++) {
		int p = loc_grid_node_point(grid, v), deg;
		const int *same;

		s->nb_off[v] = (int)total;
		total += loc_grid_point_nodes(grid, p, &same) - 1;
		deg = s->pnb_off[p + 1] - s->pnb_off[p];
		s->walls[v] = 2 * nd - deg;
		for (int i = s->pnb_off[p]; i < s->pnb_off[p + 1]; i++) {
			const int *o;

			total += loc_grid_point_nodes(grid, s->pnb[i], &o);
		}
	}
	s->nb_off[n] = (int)total;
	s->nb = malloc(sizeof(int) * (total + 1));
	if (!s->nb)
		goto nomem;
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
	s->pmark = calloc(np, sizeof(int));
	s->queue = malloc(sizeof(int) * np);
	s->idx = malloc(sizeof(int) * n);
	s->imark = calloc(n, sizeof(int));
	s->local = malloc(sizeof(int) * n);
	s->sd = malloc(sizeof(long) * n);
	s->closed = malloc(sizeof(int) * n);
	s->in = calloc(n, 1);
	s->set = malloc(sizeof(int) * n);
	s->best = malloc(sizeof(int) * n);
	if (!s->pmark || !s->queue || !s->idx || !s->imark || !s->local ||
	    !s->sd || !s->closed || !s->in || !s->set || !s->best)
		goto nomem;
	*state = s;
	return 0;
nomem:
	_pack_fini(s);
	return loc_error_set(err, LOC_ENOMEM, NULL, 0,
			     "out of memory creating the pack strategy");
}

static int _next_stamp(pack_state_t *s)
{
	if (++s->stamp == 0x7fffffff) {
		memset(s->pmark, 0, sizeof(int) * s->np);
		memset(s->imark, 0, sizeof(int) * s->n);
		s->stamp = 1;
	}
	return s->stamp;
}

/* Collects the m free nodes nearest the centre c (breadth-first over
 * points, c first) into s->local; returns how many. */
static int _nearest(pack_state_t *s, const loc__ctx_t *ctx, int c, int m)
{
	const loc_grid_t *g = ctx->grid;
	int st = _next_stamp(s), head = 0, tail = 0, nl = 0;
	int p0 = loc_grid_node_point(g, c);

	s->local[nl++] = c;
	s->idx[c] = 0;
	s->imark[c] = st;
	s->pmark[p0] = st;
	s->queue[tail++] = p0;
	while (head < tail && nl < m) {
		int p = s->queue[head++], cnt;
		const int *o;

		cnt = loc_grid_point_nodes(g, p, &o);
		for (int j = 0; j < cnt && nl < m; j++)
			if (ctx->free[o[j]] && s->imark[o[j]] != st) {
				s->imark[o[j]] = st;
				s->idx[o[j]] = nl;
				s->local[nl++] = o[j];
			}
		for (int i = s->pnb_off[p]; i < s->pnb_off[p + 1]; i++)
			if (s->pmark[s->pnb[i]] != st) {
				s->pmark[s->pnb[i]] = st;
				s->queue[tail++] = s->pnb[i];
			}
	}
	return nl;
}

/* Sides of v closed before anything is chosen: walls and busy nodes. */
static int _closed0(const pack_state_t *s, const loc__ctx_t *ctx, int v)
{
	int c = s->walls[v];

	for (int i = s->nb_off[v]; i < s->nb_off[v + 1]; i++)
		c += !ctx->free[s->nb[i]];
	return c;
}

/* Perimeter added to the free region by taking set (s->in marks it). */
static long _perimeter_delta(const pack_state_t *s, const loc__ctx_t *ctx,
			     const int *set, int k)
{
	long d = 0;

	for (int j = 0; j < k; j++) {
		int v = set[j];

		d -= s->walls[v];
		for (int i = s->nb_off[v]; i < s->nb_off[v + 1]; i++) {
			int w = s->nb[i];

			d += ctx->free[w] ? !s->in[w] : -1;
		}
	}
	return d;
}

/* Grows a set of k nodes from the centre c; returns its total pairwise
 * hops, or -1 when fewer than k nodes are reachable. */
static long _grow(pack_state_t *s, const loc__ctx_t *ctx, int c, int m)
{
	const int *rank = s->ranks;
	int k = ctx->k, nl = _nearest(s, ctx, c, m), st = s->stamp;
	long total = 0;

	if (nl < k)
		return -1;
	for (int i = 0; i < nl; i++) {
		s->sd[i] = 0;
		s->closed[i] = _closed0(s, ctx, s->local[i]);
	}
	for (int j = 0; j < k; j++) {
		int pick = -1, u;

		if (j == 0) {
			pick = 0;
		} else {
			for (int i = 0; i < nl; i++) {
				if (s->in[s->local[i]])
					continue;
				if (pick < 0 || s->sd[i] < s->sd[pick] ||
				    (s->sd[i] == s->sd[pick] &&
				     (s->closed[i] > s->closed[pick] ||
				      (s->closed[i] == s->closed[pick] &&
				       rank[s->local[i]] <
					       rank[s->local[pick]]))))
					pick = i;
			}
		}
		u = s->local[pick];
		total += s->sd[pick];
		s->in[u] = 1;
		s->set[j] = u;
		for (int i = 0; i < nl; i++)
			if (!s->in[s->local[i]])
				s->sd[i] += loc_grid_node_hops(ctx->grid,
							       s->local[i], u);
		for (int i = s->nb_off[u]; i < s->nb_off[u + 1]; i++) {
			int w = s->nb[i];

			if (s->imark[w] == st)
				s->closed[s->idx[w]]++;
		}
	}
	return total;
}

static void _clear_in(pack_state_t *s, const int *set, int k)
{
	for (int j = 0; j < k; j++)
		s->in[set[j]] = 0;
}

/* Improving swaps on s->best (marked in s->in): a chosen node u for a
 * free node v near the set when that lowers the total pairwise hops. */
static long _polish(pack_state_t *s, const loc__ctx_t *ctx, long total,
		    int m)
{
	const loc_grid_t *g = ctx->grid;
	int k = ctx->k, nl;

	if (k < 2)
		return total;
	/* Candidates: the free nodes nearest the first chosen node. */
	nl = _nearest(s, ctx, s->best[0], m + k);
	for (int pass = 0; pass < PACK_SWAP_PASSES; pass++) {
		bool moved = false;

		for (int i = 0; i < nl; i++)
			s->sd[i] = 0;
		for (int i = 0; i < nl; i++)
			for (int j = 0; j < k; j++)
				s->sd[i] += loc_grid_node_hops(g, s->local[i],
							       s->best[j]);
		for (int a = 0; a < k && !moved; a++) {
			int u = s->best[a];
			long su = 0;

			for (int j = 0; j < k; j++)
				su += loc_grid_node_hops(g, u, s->best[j]);
			for (int i = 0; i < nl; i++) {
				int v = s->local[i];
				long gain;

				if (s->in[v])
					continue;
				gain = su - (s->sd[i] -
					     loc_grid_node_hops(g, v, u));
				if (gain > 0) {
					s->in[u] = 0;
					s->in[v] = 1;
					s->best[a] = v;
					total -= gain;
					moved = true;
					break;
				}
			}
		}
		if (!moved)
			break;
	}
	return total;
}

static int _pack_select(loc__ctx_t *ctx)
{
	pack_state_t *s = ctx->state;
	const int *order = loc_curve_order(ctx->curve);
	int k = ctx->k, nf = 0, m, step, *freel = ctx->scratch;
	long best_total = -1, best_delta = 0, work;
	double tol = ctx->policy->pack_tolerance;

	s->ranks = loc_curve_ranks(ctx->curve);
	for (int r = 0; r < ctx->nnodes; r++)
		if (ctx->free[order[r]])
			freel[nf++] = order[r];
	if (nf < k)
		return LOC_ENOFIT;
	m = 2 * k + PACK_EXTRA < nf ? 2 * k + PACK_EXTRA : nf;
	work = (long)m * k;
	step = work * nf > PACK_WORK ? (int)((work * nf) / PACK_WORK) + 1 : 1;
	if (step > nf)
		step = nf;

	/* Pass 1: the least total over the centres; pass 2: the least
	 * perimeter among the centres within the tolerance of it. Both
	 * passes regrow (cheap against keeping every set). */
	{
		long *tot = malloc(sizeof(long) * ((nf + step - 1) / step));
		long limit;
		int nc = 0;

		if (!tot)
			return LOC_ENOMEM;
		for (int c = 0; c < nf; c += step, nc++) {
			tot[nc] = _grow(s, ctx, freel[c], m);
			_clear_in(s, s->set, tot[nc] < 0 ? 0 : k);
			if (tot[nc] >= 0 &&
			    (best_total < 0 || tot[nc] < best_total))
				best_total = tot[nc];
		}
		if (best_total < 0) {
			free(tot);
			return LOC_ENOFIT;
		}
		limit = best_total + (long)(tol * (double)best_total + 1e-9);
		best_total = -1;
		for (int c = 0, i = 0; i < nc; c += step, i++) {
			long d;

			if (tot[i] < 0 || tot[i] > limit)
				continue;
			_grow(s, ctx, freel[c], m);
			d = _perimeter_delta(s, ctx, s->set, k);
			_clear_in(s, s->set, k);
			if (best_total < 0 || d < best_delta ||
			    (d == best_delta && tot[i] < best_total)) {
				best_total = tot[i];
				best_delta = d;
				memcpy(s->best, s->set, sizeof(int) * k);
			}
		}
		free(tot);
	}
	for (int j = 0; j < k; j++)
		s->in[s->best[j]] = 1;
	best_total = _polish(s, ctx, best_total, m);
	_clear_in(s, s->best, k);
	return loc__offer(ctx, s->best, (double)best_total);
}

const loc__strategy_ops_t loc__st_pack = {
	.name = "pack",
	.select = _pack_select,
	.init = _pack_init,
	.fini = _pack_fini,
};
