/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_shells.c - the Chebyshev shells of MC1x1 (seed 003, Bender et al.,
 * after the MC algorithm of Mache, Lo and Windisch) over per-point free
 * counts: shell 0 is a centre's point, shell s the square (cube) ring of
 * points at Chebyshev distance s, with wraparound on torus dimensions,
 * and a centre's cost for k nodes is the sum of the shell numbers of its
 * k nearest. Shared by mc1x1, mm (ranking candidate medians) and pack.
 *
 * Shell counts come from a summed-volume table of free nodes per point in
 * which torus dimensions are unrolled to 2L-1, so every window is one box
 * and a shell count costs 2^ndims lookups. Centres are costed radius by
 * radius, all together, and one is dropped as soon as its partial cost
 * can no longer beat the kept ones. The result is exact (every centre is
 * considered) for O(centres * s * 2^ndims) work with s shells, or
 * O(centres * log L) on a 1-D line, where the cost has a closed form.
 */
#include <stdlib.h>
#include <string.h>

#include "st_shells.h"

/* Shell table limit in entries (512 MB of int32). */
#define SHELLS_MAX_TABLE (1L << 27)

loc__shells_t *loc__shells_create(const loc_grid_t *grid)
{
	const loc_shape_t *shape = loc_grid_shape(grid);
	int np = loc_grid_npoints(grid);
	loc__shells_t *sh = calloc(1, sizeof(*sh));
	long n = 1;

	if (!sh)
		return NULL;
	sh->nd = shape->ndims;
	for (int d = sh->nd - 1, ps = 1; d >= 0; d--) {
		sh->len[d] = shape->dims[d];
		sh->torus[d] = shape->torus[d] && shape->dims[d] > 1;
		sh->ext[d] = sh->torus[d] ? 2 * sh->len[d] - 1 : sh->len[d];
		sh->pstride[d] = ps;
		ps *= sh->len[d];
		sh->tstride[d] = n;
		n *= sh->ext[d] + 1;
	}
	sh->nsum = n;
	if (n > SHELLS_MAX_TABLE) {
		loc__shells_destroy(sh);
		return NULL;
	}
	sh->sum = malloc(sizeof(int32_t) * n);
	sh->coord = malloc(sizeof(int) * (size_t)np * sh->nd);
	sh->active = malloc(sizeof(int) * (size_t)np);
	sh->partial = malloc(sizeof(int64_t) * (size_t)np);
	if (sh->nd == 1)
		sh->moment = malloc(sizeof(int64_t) * n);
	if (!sh->sum || !sh->coord || !sh->active || !sh->partial ||
	    (sh->nd == 1 && !sh->moment)) {
		loc__shells_destroy(sh);
		return NULL;
	}
	for (int p = 0; p < np; p++) {
		loc_coord_t c;

		loc_grid_point_coord(grid, p, &c);
		for (int d = 0; d < sh->nd; d++)
			sh->coord[p * sh->nd + d] = c.c[d];
	}
	return sh;
}

void loc__shells_destroy(loc__shells_t *sh)
{
	if (!sh)
		return;
	free(sh->sum);
	free(sh->coord);
	free(sh->active);
	free(sh->partial);
	free(sh->moment);
	free(sh);
}

/* Aligned: its row loops ran about 15% slower (16^3 torus) when the
 * linker happened to place it differently after unrelated additions. */
__attribute__((aligned(64)))
void loc__shells_load(loc__shells_t *sh, const int *point_free)
{
	const int last = sh->nd - 1, L = sh->len[last], ext = sh->ext[last];
	int e[LOC_MAX_DIMS] = { 0 };
	int32_t *t = sh->sum;

	/* Table index 0 of each dimension is the zero pad, index e >= 1
	 * holds grid coordinate (e - 1) mod L. Rows along the last
	 * dimension are filled with their prefix sums at once. */
	for (long i = 0; i < sh->nsum; i += ext + 1) {
		int base = 0, d;
		bool pad = false;

		for (d = 0; d < last; d++) {
			int x = e[d] - 1;

			if (x < 0) {
				pad = true;
				break;
			}
			if (x >= sh->len[d])
				x -= sh->len[d];
			base += x * sh->pstride[d];
		}
		if (pad) {
			memset(t + i, 0, sizeof(int32_t) * (ext + 1));
		} else {
			const int *row = point_free + base;

			t[i] = 0;
			for (int x = 0; x < ext; x++)
				t[i + x + 1] = t[i + x] + row[x < L ? x : x - L];
		}
		for (d = last - 1; d >= 0; d--) {
			if (++e[d] <= sh->ext[d])
				break;
			e[d] = 0;
		}
	}
	for (int d = 0; d < last; d++) {
		long st = sh->tstride[d], blk = st * (sh->ext[d] + 1);

		for (long b = 0; b < sh->nsum; b += blk)
			for (long i = b + st; i < b + blk; i++)
				t[i] += t[i - st];
	}
	if (sh->moment) {
		sh->moment[0] = 0;
		for (int x = 0; x < ext; x++)
			sh->moment[x + 1] = sh->moment[x] +
					    (int64_t)x * (t[x + 1] - t[x]);
	}
}

/*
 * Free nodes within Chebyshev distance s of coordinates c. nd is a
 * constant in each caller below so the compiler unrolls the loops.
 */
static inline int64_t _box_count_nd(const loc__shells_t *sh, const int *c,
				    int s, const int nd)
{
	long lo[LOC_MAX_DIMS], hi[LOC_MAX_DIMS];
	int64_t total = 0;

	for (int d = 0; d < nd; d++) {
		int L = sh->len[d], a, b;

		if (sh->torus[d]) {
			if (2 * s + 1 >= L) {
				a = 0;
				b = L - 1;
			} else {
				a = c[d] - s;
				if (a < 0)
					a += L;
				b = a + 2 * s;
			}
		} else {
			a = c[d] - s < 0 ? 0 : c[d] - s;
			b = c[d] + s >= L ? L - 1 : c[d] + s;
		}
		/* Prefix index a covers coordinates < a; b + 1 covers <= b. */
		lo[d] = a * sh->tstride[d];
		hi[d] = (long)(b + 1) * sh->tstride[d];
	}
	if (nd == 1)
		return sh->sum[hi[0]] - sh->sum[lo[0]];
	if (nd == 2)
		return (int64_t)sh->sum[hi[0] + hi[1]] - sh->sum[lo[0] + hi[1]] -
		       sh->sum[hi[0] + lo[1]] + sh->sum[lo[0] + lo[1]];
	if (nd == 3) {
		const int32_t *a = sh->sum + hi[2], *b = sh->sum + lo[2];

		return (int64_t)a[hi[0] + hi[1]] - a[lo[0] + hi[1]] -
		       a[hi[0] + lo[1]] + a[lo[0] + lo[1]] -
		       b[hi[0] + hi[1]] + b[lo[0] + hi[1]] +
		       b[hi[0] + lo[1]] - b[lo[0] + lo[1]];
	}
	for (int mask = 0; mask < (1 << nd); mask++) {
		long idx = 0;
		int neg = 0;

		for (int d = 0; d < nd; d++) {
			if (mask & (1 << d)) {
				idx += lo[d];
				neg ^= 1;
			} else {
				idx += hi[d];
			}
		}
		total += neg ? -(int64_t)sh->sum[idx] : sh->sum[idx];
	}
	return total;
}

static bool _rank_before(int64_t cost, int idx, const loc__shell_rank_t *r)
{
	return cost < r->cost || (cost == r->cost && idx < r->idx);
}

/* h[] is a max-heap on (cost, idx) while ranking: the root is the worst
 * centre kept. */
void loc__shells_rank_push(loc__shell_rank_t *h, int *n, int m, int64_t cost,
			   int idx)
{
	int i;

	if (*n < m) {
		for (i = (*n)++; i > 0; i = (i - 1) / 2) {
			const loc__shell_rank_t *up = &h[(i - 1) / 2];

			if (!_rank_before(up->cost, up->idx,
					  &(loc__shell_rank_t){ cost, idx }))
				break;
			h[i] = *up;
		}
	} else {
		if (!_rank_before(cost, idx, &h[0]))
			return;
		for (i = 0;;) {
			int l = 2 * i + 1, big = l;

			if (l >= m)
				break;
			if (l + 1 < m &&
			    _rank_before(h[l].cost, h[l].idx, &h[l + 1]))
				big = l + 1;
			if (!_rank_before(cost, idx, &h[big]))
				break;
			h[i] = h[big];
			i = big;
		}
	}
	h[i].cost = cost;
	h[i].idx = idx;
}

/*
 * One radius s for every open centre: a centre whose box holds k nodes
 * gets its cost, one that can no longer beat the kept ones is dropped.
 * With B(j) the free nodes within distance j and s the first radius with
 * B(s) >= k, the cost is s*k - sum_{j<s} B(j); while B(s) < k it is at
 * least (s+1)*k - sum_{j<=s} B(j). Returns the centres left open.
 */
static inline int _rank_pass(loc__shells_t *sh, const int *points, int nact,
			     int s, int k, int m, loc__shell_rank_t *best,
			     int *nbest, const int nd)
{
	int w = 0;

	for (int a = 0; a < nact; a++) {
		int i = sh->active[a];
		int64_t b = _box_count_nd(sh,
					  sh->coord + (size_t)points[i] * nd,
					  s, nd);

		if (b >= k) {
			loc__shells_rank_push(best, nbest, m,
					      (int64_t)s * k - sh->partial[i],
					      i);
			continue;
		}
		sh->partial[i] += b;
		if (*nbest == m &&
		    !_rank_before((int64_t)(s + 1) * k - sh->partial[i], i,
				  &best[0]))
			continue;
		sh->active[w++] = i;
	}
	return w;
}

static int _cmp_rank(const void *x, const void *y)
{
	const loc__shell_rank_t *a = x, *b = y;

	return _rank_before(a->cost, a->idx, b) ? -1 :
	       _rank_before(b->cost, b->idx, a) ? 1 : 0;
}

void loc__shells_rank_sort(loc__shell_rank_t *h, int n)
{
	qsort(h, n, sizeof(*h), _cmp_rank);
}

/* Radius by radius over all open centres, so the table is read in
 * streams and early finishers tighten the bound for the rest. */
/*
 * 1-D: shells are intervals, so a node at distance e from the centre is
 * counted in B(e) .. B(s-1) and sum_{j<s} B(j) is a triangle-weighted
 * count, s * count - sum of distances, from prefix sums of counts and of
 * x * count. With s found by bisection a centre costs O(log L), where
 * the passes would cost O(s) (thousands on a long line).
 */
static int64_t _cost_1d(const loc__shells_t *sh, int point, int k)
{
	const int L = sh->len[0], c0 = sh->coord[point];
	const int32_t *p0 = sh->sum;
	const int64_t *p1 = sh->moment;
	int lo = 0, hi = sh->torus[0] ? L / 2 : L - 1, s, w, a, b, c = c0;
	int64_t tri;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (_box_count_nd(sh, &c, mid, 1) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	s = lo;
	/* On a ring, windows from radius L/2 on hold everything. */
	w = sh->torus[0] && s > L / 2 ? L / 2 : s;
	if (w == 0)
		return 0;
	a = c - w + 1;
	b = c + w - 1;
	if (sh->torus[0] && a < 0) {
		a += L;
		b += L;
		c += L;
	} else if (!sh->torus[0]) {
		a = a < 0 ? 0 : a;
		b = b >= L ? L - 1 : b;
	}
	/* Table index x + 1 covers unrolled coordinates <= x. */
	tri = (int64_t)w * (p0[b + 1] - p0[a]) -
	      ((p1[b + 1] - p1[c + 1]) - (int64_t)c * (p0[b + 1] - p0[c + 1])) -
	      ((int64_t)c * (p0[c] - p0[a]) - (p1[c] - p1[a]));
	tri += (int64_t)(s - w) * _box_count_nd(sh, &c, L, 1);
	return (int64_t)s * k - tri;
}

int loc__shells_rank(loc__shells_t *sh, const int *points, int n, int k,
		     int m, loc__shell_rank_t *best)
{
	int nact = n, nbest = 0;

	if (m <= 0)
		return 0;
	if (sh->nd == 1) {
		for (int i = 0; i < n; i++)
			loc__shells_rank_push(best, &nbest, m,
					      _cost_1d(sh, points[i], k), i);
		loc__shells_rank_sort(best, nbest);
		return nbest;
	}
	for (int i = 0; i < n; i++) {
		sh->active[i] = i;
		sh->partial[i] = 0;
	}
	for (int s = 0; nact > 0; s++) {
		switch (sh->nd) {
		case 1:
			nact = _rank_pass(sh, points, nact, s, k, m, best,
					  &nbest, 1);
			break;
		case 2:
			nact = _rank_pass(sh, points, nact, s, k, m, best,
					  &nbest, 2);
			break;
		case 3:
			nact = _rank_pass(sh, points, nact, s, k, m, best,
					  &nbest, 3);
			break;
		default:
			nact = _rank_pass(sh, points, nact, s, k, m, best,
					  &nbest, 4);
			break;
		}
	}
	loc__shells_rank_sort(best, nbest);
	return nbest;
}

static int64_t _box_count(const loc__shells_t *sh, const int *c, int s)
{
	switch (sh->nd) {
	case 1:
		return _box_count_nd(sh, c, s, 1);
	case 2:
		return _box_count_nd(sh, c, s, 2);
	case 3:
		return _box_count_nd(sh, c, s, 3);
	default:
		return _box_count_nd(sh, c, s, 4);
	}
}

/* The shell radius at which point's count reaches k. */
int loc__shells_radius(const loc__shells_t *sh, int point, int k)
{
	const int *c = sh->coord + (size_t)point * sh->nd;
	int s = 0;

	while (_box_count(sh, c, s) < k)
		s++;
	return s;
}
