/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack_grow.c - pack's sets from a centre: the pool of free nodes
 * nearest the centre (breadth-first over points), the set grown in it
 * one node at a time by least sum of hops to the nodes already taken,
 * or simply its first k nodes, and the total pairwise hops of a set.
 *
 * Growth is k passes over the nodes of the pool not taken yet, each
 * adding the hops to the last node taken to every sum and keeping the
 * least: O(k * m) for a pool of m, with per-axis hop tables and the
 * pool's coordinates in one array per axis so a pass is a few loads per
 * node. Totals come from per-axis coordinate counts: the hops along an
 * axis from every coordinate to a set are prefix sums of those counts,
 * O(k * nd + sum of axis lengths) for the whole set instead of O(k^2).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
#include "st_pack.h"

int loc__pack_stamp(loc__pack_t *s)
{
	if (++s->stamp == 0x7fffffff) {
		memset(s->pmark, 0, sizeof(int) * s->np);
		memset(s->imark, 0, sizeof(int) * s->n);
		s->stamp = 1;
	}
	return s->stamp;
}

/* Sides of v closed before anything is chosen: walls and busy nodes. */
static int _closed0(const loc__pack_t *s, const loc__ctx_t *ctx, int v)
{
	int c = s->walls[v];

	if (s->busy)
		return c + s->busy[v];
	for (int i = s->nb_off[v]; i < s->nb_off[v + 1]; i++)
		c += !ctx->free[s->nb[i]];
	return c;
}

static void _pool_add(loc__pack_t *s, const loc__ctx_t *ctx, int v, int st,
		      int nl)
{
	const int *c = s->coord + (size_t)s->node_pt[v] * s->nd;

	int *pc = s->pool_c + (size_t)nl * s->nd;

	s->imark[v] = st;
	s->idx[v] = nl;
	s->pool[nl] = v;
	/* A loop, not memcpy(): nd is at most 4, a call costs more. */
	for (int d = 0; d < s->nd; d++)
		pc[d] = c[d];
	s->closed[nl] = _closed0(s, ctx, v);
}

int loc__pack_pool(loc__pack_t *s, const loc__ctx_t *ctx, int c, int m)
{
	const uint8_t *fr = ctx->free;
	int st = loc__pack_stamp(s), head = 0, tail = 0, nl = 0;
	int p0 = s->node_pt[c];

	_pool_add(s, ctx, c, st, nl++);
	s->pmark[p0] = st;
	s->queue[tail++] = p0;
	while (head < tail && nl < m) {
		int p = s->queue[head++];

		for (int j = s->pt_off[p]; j < s->pt_off[p + 1] && nl < m; j++) {
			int v = s->pt_nodes[j];

			if (fr[v] && s->imark[v] != st)
				_pool_add(s, ctx, v, st, nl++);
		}
		for (int i = s->pnb_off[p]; i < s->pnb_off[p + 1]; i++)
			if (s->pmark[s->pnb[i]] != st) {
				s->pmark[s->pnb[i]] = st;
				s->queue[tail++] = s->pnb[i];
			}
	}
	return nl;
}

int loc__pack_pool_all(loc__pack_t *s, const loc__ctx_t *ctx, int c,
		       const int *freel, int nf)
{
	int st = loc__pack_stamp(s), nl = 0;

	_pool_add(s, ctx, c, st, nl++);
	for (int i = 0; i < nf; i++)
		if (freel[i] != c)
			_pool_add(s, ctx, freel[i], st, nl++);
	return nl;
}

/*
 * phi[x] = sum over y of cnt[y] * (hops from x to y on the axis), for
 * every x, in O(L) with prefix sums of counts and of y * counts. On a
 * torus the counts are laid out three times and x looks L/2 ahead and
 * (L-1)/2 back from its middle copy: each coordinate once, at its
 * shorter way round. pre holds 2 * (3L + 1) entries.
 */
static void _axis_phi(const int64_t *cnt, int L, bool torus, int64_t *pre,
		      int64_t *phi)
{
	int reps = torus ? 3 : 1, w = reps * L;
	int64_t *p0 = pre, *p1 = pre + w + 1;

	p0[0] = p1[0] = 0;
	for (int j = 0; j < w; j++) {
		p0[j + 1] = p0[j] + cnt[j % L];
		p1[j + 1] = p1[j] + (int64_t)j * cnt[j % L];
	}
	for (int x = 0; x < L; x++) {
		int m = torus ? x + L : x, hi = torus ? L / 2 : L - 1 - x;
		int lo = torus ? (L - 1) / 2 : x;

		/* Ahead: sum of (i - m) cnt[i], i in (m, m + hi]; behind:
		 * sum of (m - i) cnt[i], i in [m - lo, m). */
		phi[x] = (p1[m + hi + 1] - p1[m + 1]) -
			 (int64_t)m * (p0[m + hi + 1] - p0[m + 1]) +
			 (int64_t)m * (p0[m] - p0[m - lo]) -
			 (p1[m] - p1[m - lo]);
	}
}

void loc__pack_f_build(loc__pack_t *s, const int *set, int k)
{
	int64_t *cnt = s->axis_tmp, *pre = cnt + s->maxlen;
	const loc_shape_t *shape = loc_grid_shape(s->grid);

	for (int d = 0; d < s->nd; d++) {
		memset(cnt, 0, sizeof(int64_t) * s->len[d]);
		for (int j = 0; j < k; j++)
			cnt[s->coord[(size_t)s->node_pt[set[j]] * s->nd + d]]++;
		_axis_phi(cnt, s->len[d], shape->torus[d] && s->len[d] > 1,
			  pre, s->f + s->f_at[d]);
	}
}

static int _cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/*
 * Sum over pairs of axis hops between the sorted coordinates x[0..k):
 * each x[j] against the ones before it, the nearer of them the short way
 * (x[j] - x[i] <= L/2 on a torus) and the farther the way round; two
 * pointers and prefix sums, O(k).
 */
static int64_t _axis_pairs_sorted(const int *x, int k, int L, bool torus)
{
	int64_t total = 0, before = 0, far = 0;
	int lo = 0;

	for (int j = 0; j < k; j++) {
		if (torus) {
			/* Coordinates before lo are more than L/2 behind. */
			for (; lo < j && 2 * (x[j] - x[lo]) > L; lo++)
				far += x[lo];
			total += (int64_t)lo * (L - x[j]) + far;
			total += (int64_t)(j - lo) * x[j] - (before - far);
		} else {
			total += (int64_t)j * x[j] - before;
		}
		before += x[j];
	}
	return total;
}

int64_t loc__pack_set_total(loc__pack_t *s, const int *set, int k)
{
	const loc_shape_t *shape = loc_grid_shape(s->grid);
	int64_t total = 0;

	/* Short axes: per-coordinate counts, O(k + L) per axis. */
	if (s->maxlen <= 4L * k) {
		loc__pack_f_build(s, set, k);
		for (int j = 0; j < k; j++)
			total += loc__pack_f_sum(
				s, s->coord + (size_t)s->node_pt[set[j]] * s->nd);
		return total / 2;
	}
	/* Long axes (a long ring, a small set): sorted coordinates. */
	for (int d = 0; d < s->nd; d++) {
		int *x = s->sort_tmp;

		for (int j = 0; j < k; j++)
			x[j] = s->coord[(size_t)s->node_pt[set[j]] * s->nd + d];
		qsort(x, k, sizeof(int), _cmp_int);
		total += _axis_pairs_sorted(x, k, s->len[d],
					    shape->torus[d] && s->len[d] > 1);
	}
	return total;
}

/* Takes pool position pos into the set as its j-th node. */
static void _take(loc__pack_t *s, int pos, int j)
{
	int u = s->pool[pos], st = s->stamp;

	s->in[u] = 1;
	s->set[j] = u;
	for (int i = s->nb_off[u]; i < s->nb_off[u + 1]; i++) {
		int w = s->nb[i];

		if (s->imark[w] == st)
			s->closed[s->idx[w]]++;
	}
}

/* Between two nodes left at the same total: the one with more closed
 * neighbours, then the earlier on the curve (r against the best so far,
 * at). */
static inline bool _wins_tie(const loc__pack_t *s, int r, int at)
{
	int cr = s->closed[s->rest[r]], ca = s->closed[s->rest[at]];

	return cr > ca || (cr == ca && s->ranks[s->pool[s->rest[r]]] <
					       s->ranks[s->pool[s->rest[at]]]);
}

/*
 * One step of one-at-a-time growth over the nodes not chosen yet (kept
 * compact: s->rest holds their pool positions, s->sum their sums and
 * s->rest_c their coordinates, one array per axis): adds the hops to
 * the node just taken at coordinates u and returns the slot of the next
 * node (least sum, then most closed sides, then lowest rank). nd is a
 * constant in each caller, so the axis loop unrolls.
 */
static inline int _step_nd(loc__pack_t *s, int nrest, const int *u,
			   const int nd)
{
	const int *h[LOC_MAX_DIMS], *c[LOC_MAX_DIMS];
	int64_t least = INT64_MAX;
	int at = -1;

	for (int d = 0; d < nd; d++) {
		h[d] = s->hop + s->hop_at[d] - u[d];
		c[d] = s->rest_c + (size_t)d * s->n;
	}
	for (int r = 0; r < nrest; r++) {
		int64_t v = s->sum[r];

#pragma GCC unroll 4
		for (int d = 0; d < nd; d++)
			v += h[d][c[d][r]];
		s->sum[r] = v;
		if (v > least)
			continue;
		if (v < least || _wins_tie(s, r, at)) {
			least = v;
			at = r;
		}
	}
	return at;
}

/* _step_nd() with the point-to-point table: u is the point of the node
 * just taken, s->rest_pt the points of the nodes left. */
static int _step_table(loc__pack_t *s, int nrest, int u)
{
	const uint8_t *row = s->pt_hops + (size_t)u * s->np;
	const int *pt = s->rest_pt;
	int64_t least = INT64_MAX;
	int at = -1;

	for (int r = 0; r < nrest; r++) {
		int64_t v = s->sum[r] + row[pt[r]];

		s->sum[r] = v;
		if (v > least)
			continue;
		if (v < least || _wins_tie(s, r, at)) {
			least = v;
			at = r;
		}
	}
	return at;
}

static int _step(loc__pack_t *s, int nrest, const int *u)
{
	switch (s->nd) {
	case 1:
		return _step_nd(s, nrest, u, 1);
	case 2:
		return _step_nd(s, nrest, u, 2);
	case 3:
		return _step_nd(s, nrest, u, 3);
	default:
		return _step_nd(s, nrest, u, 4);
	}
}

void loc__pack_new_decision(loc__pack_t *s)
{
	if (++s->first_stamp == 0x7fffffff) {
		memset(s->first_mark, 0, sizeof(int) * s->n);
		s->first_stamp = 1;
	}
}

/* One node at a time; returns the total, or LOC__PACK_GROWN_BEFORE (see
 * loc__pack_grow()). */
static int64_t _grow_exact(loc__pack_t *s, int nl, int k, bool same_pool)
{
	int nrest = nl - 1, u[LOC_MAX_DIMS];
	int64_t total = 0;
	const bool table = s->pt_hops != NULL;

	for (int i = 1; i < nl; i++) {
		s->rest[i - 1] = i;
		s->sum[i - 1] = 0;
		if (table)
			s->rest_pt[i - 1] = s->node_pt[s->pool[i]];
		else
			for (int d = 0; d < s->nd; d++)
				s->rest_c[(size_t)d * s->n + i - 1] =
					s->pool_c[(size_t)i * s->nd + d];
	}
	_take(s, 0, 0);
	for (int d = 0; d < s->nd; d++)
		u[d] = s->pool_c[d];
	for (int j = 1; j < k; j++) {
		int at = table ? _step_table(s, nrest, s->node_pt[s->set[j - 1]]) :
				 _step(s, nrest, u);
		int pick = s->rest[at];

		total += s->sum[at];
		_take(s, pick, j);
		if (j == 1 && same_pool) {
			int c = s->pool[0], y = s->pool[pick];

			if (s->first_mark[y] == s->first_stamp &&
			    s->first_pick[y] == c)
				return LOC__PACK_GROWN_BEFORE;
			s->first_mark[c] = s->first_stamp;
			s->first_pick[c] = y;
		}
		for (int d = 0; d < s->nd; d++)
			u[d] = s->pool_c[(size_t)pick * s->nd + d];
		/* The last slot fills the hole. */
		nrest--;
		s->rest[at] = s->rest[nrest];
		s->sum[at] = s->sum[nrest];
		if (table)
			s->rest_pt[at] = s->rest_pt[nrest];
		else
			for (int d = 0; d < s->nd; d++)
				s->rest_c[(size_t)d * s->n + at] =
					s->rest_c[(size_t)d * s->n + nrest];
	}
	return total;
}

int64_t loc__pack_take_pool(loc__pack_t *s, const loc__ctx_t *ctx, int nl)
{
	int k = ctx->k;

	if (nl < k)
		return -1;
	/* No growth follows: closed sides need no update. */
	for (int j = 0; j < k; j++) {
		s->set[j] = s->pool[j];
		s->in[s->pool[j]] = 1;
	}
	return loc__pack_set_total(s, s->set, k);
}

int64_t loc__pack_grow(loc__pack_t *s, const loc__ctx_t *ctx, int nl,
		       bool same_pool)
{
	if (nl < ctx->k)
		return -1;
	return _grow_exact(s, nl, ctx->k, same_pool);
}
