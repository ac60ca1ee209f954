/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_hilbert.c - generalised Hilbert order for boxes of any size.
 *
 * Seed 000 (Leung et al., Cplant) reduces allocation to one dimension
 * along a Hilbert curve. Real machines are rarely 2^n cubes (Intrepid is
 * 5x4x4, Cplant test systems 8x8x5), so the curve is built by recursive
 * splitting instead of bit tricks, after the "generalized Hilbert" idea:
 *
 * A box has a start corner and three axes A (major), B and C with side
 * lengths w, h, d. Its walk starts at the corner and ends at the corner
 * w-1 steps along A. A box is split into 2, 3 or 5 sub-boxes, each again
 * walked corner to A-corner, chained so that each sub-box ends one hop
 * from where the next starts. On a 2^n cube the splits reproduce the
 * Hilbert curve's quadrants / octants.
 *
 * Continuity. The grid is bipartite, so a unit-step walk between two
 * corners of a box with an even number of points must join points of
 * opposite colours: w must be even. With an odd number of points both
 * ends must take the majority colour, which two corners w-1 apart along
 * A (w odd) do. A 1 x h x d box cannot end where it starts unless it is
 * a single point. loc__hilbert_walkable() states exactly this; each split
 * is taken only with cut points for which all of its sub-boxes are
 * walkable, which is always possible for a walkable box (each case is
 * argued at _choose()). The top-level box picks an even side as major
 * when there is one, so every 1-3-D shape gets a walk with no step longer
 * than one hop.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_hilbert.h"

/* A box in the recursion: point index of the start corner and, per local
 * axis (0 = A major, 1 = B, 2 = C), its length and signed index step. */
struct _box {
	int base;
	int len[3];
	int step[3];
};

/* One sub-box of a split, in the parent's local frame: start corner
 * offsets along the parent's A, B, C and, per child axis, which parent
 * axis it runs along, in which direction, for how many points. */
struct _part {
	int off[3];
	int axis[3];
	int sign[3];
	int len[3];
};

/* Where the walk goes: order[] and, for 4-D, the line walked along the
 * last dimension at every 3-D point (alternating direction). */
struct _sink {
	int *order;
	int n;
	int line_len;
	int line_step;
	bool line_back;
};

enum {
	_SPLIT_A,   /* two halves along A */
	_SPLIT_AB,  /* three parts: the 2-D Hilbert step in A, B; C whole */
	_SPLIT_AC,  /* the same in A, C; B whole */
	_SPLIT_ABC, /* five parts: the 3-D Hilbert step */
	_SPLIT_COUNT
};

#define _MAX_PARTS 5

bool loc__hilbert_walkable(int w, int h, int d)
{
	if (w < 1 || h < 1 || d < 1)
		return false;
	if (w == 1)
		return h == 1 && d == 1;
	return w % 2 == 0 || (h % 2 == 1 && d % 2 == 1);
}

static void _part_set(struct _part *p, int oa, int ob, int oc,
		      int a0, int s0, int l0, int a1, int s1, int l1,
		      int a2, int s2, int l2)
{
	p->off[0] = oa;
	p->off[1] = ob;
	p->off[2] = oc;
	p->axis[0] = a0;
	p->sign[0] = s0;
	p->len[0] = l0;
	p->axis[1] = a1;
	p->sign[1] = s1;
	p->len[1] = l1;
	p->axis[2] = a2;
	p->sign[2] = s2;
	p->len[2] = l2;
}

/*
 * Fills parts with the sub-boxes of split kind of a w x h x d box cut at
 * w1, h1, d1 (the sizes of the parts nearest the start corner).
 * Returns the number of parts.
 */
static int _split_parts(int kind, const int n[3], const int m[3],
			struct _part *parts)
{
	const int w = n[0], h = n[1], d = n[2];
	const int w1 = m[0], h1 = m[1], d1 = m[2];

	switch (kind) {
	case _SPLIT_A:
		/* Left half, then right half, both along A. */
		_part_set(&parts[0], 0, 0, 0, 0, 1, w1, 1, 1, h, 2, 1, d);
		_part_set(&parts[1], w1, 0, 0, 0, 1, w - w1, 1, 1, h, 2, 1, d);
		return 2;
	case _SPLIT_AB:
		/* Up the near column along B, across the far band along A,
		 * back down the far column along -B. */
		_part_set(&parts[0], 0, 0, 0, 1, 1, h1, 0, 1, w1, 2, 1, d);
		_part_set(&parts[1], 0, h1, 0, 0, 1, w, 1, 1, h - h1, 2, 1, d);
		_part_set(&parts[2], w - 1, h1 - 1, 0, 1, -1, h1, 0, -1, w - w1,
			  2, 1, d);
		return 3;
	case _SPLIT_AC:
		_part_set(&parts[0], 0, 0, 0, 2, 1, d1, 0, 1, w1, 1, 1, h);
		_part_set(&parts[1], 0, 0, d1, 0, 1, w, 2, 1, d - d1, 1, 1, h);
		_part_set(&parts[2], w - 1, 0, d1 - 1, 2, -1, d1, 0, -1, w - w1,
			  1, 1, h);
		return 3;
	case _SPLIT_ABC:
		/* Near octant up B; near far-B slab up C; over the top
		 * along A; far far-B slab down C; far octant back down B. */
		_part_set(&parts[0], 0, 0, 0, 1, 1, h1, 2, 1, d1, 0, 1, w1);
		_part_set(&parts[1], 0, h1, 0, 2, 1, d, 0, 1, w1, 1, 1, h - h1);
		_part_set(&parts[2], 0, h1 - 1, d - 1, 0, 1, w, 1, -1, h1,
			  2, -1, d - d1);
		_part_set(&parts[3], w - 1, h1, d - 1, 2, -1, d, 0, -1, w - w1,
			  1, 1, h - h1);
		_part_set(&parts[4], w - 1, h1 - 1, 0, 1, -1, h1, 2, 1, d1,
			  0, -1, w - w1);
		return 5;
	}
	return 0;
}

/* Which of w1, h1, d1 split kind uses. */
static const bool _split_uses[_SPLIT_COUNT][3] = {
	[_SPLIT_A] = { true, false, false },
	[_SPLIT_AB] = { true, true, false },
	[_SPLIT_AC] = { true, false, true },
	[_SPLIT_ABC] = { true, true, true },
};

/*
 * Fills cand with split sizes for a side of len points: the middle and
 * its neighbours within 1..len-1 (one step either way is always enough
 * to fix a parity). Returns their count (0 when len < 2).
 */
static int _cut_candidates(int len, int *cand)
{
	int n = 0, mid = len / 2;
	const int try[3] = { mid, mid + 1, mid - 1 };

	for (int i = 0; i < 3; i++)
		if (try[i] >= 1 && try[i] <= len - 1)
			cand[n++] = try[i];
	return n;
}

/* Cost of cutting a side of len points after x: distance from the middle
 * (doubled, to stay integral), odd cuts a little dearer so that parts
 * stay even and keep their regular shape deeper down. */
static int _cut_cost(int len, int x)
{
	int dev = 2 * x - len;

	return 4 * (dev < 0 ? -dev : dev) + (x % 2);
}

/* Returns true when every part is non-empty and walkable. */
static bool _parts_walkable(const struct _part *parts, int nparts)
{
	for (int i = 0; i < nparts; i++)
		if (!loc__hilbert_walkable(parts[i].len[0], parts[i].len[1],
					   parts[i].len[2]))
			return false;
	return true;
}

/* Returns true when every part is non-empty. */
static bool _parts_nonempty(const struct _part *parts, int nparts)
{
	for (int i = 0; i < nparts; i++)
		for (int k = 0; k < 3; k++)
			if (parts[i].len[k] < 1)
				return false;
	return true;
}

/*
 * Finds, for split kind of box n, the cut with the least cost whose parts
 * are all walkable (or, when strict is false, merely non-empty). Fills
 * parts. Returns the number of parts, or 0 when there is no such cut.
 */
static int _best_cut(int kind, const int n[3], bool strict,
		     struct _part *parts)
{
	int cand[3][3], ncand[3], best = -1, best_m[3] = { 0, 0, 0 };
	int m[3];

	for (int k = 0; k < 3; k++) {
		if (_split_uses[kind][k]) {
			ncand[k] = _cut_candidates(n[k], cand[k]);
			if (!ncand[k])
				return 0;
		} else {
			ncand[k] = 1;
			cand[k][0] = 0;
		}
	}
	for (int i = 0; i < ncand[0]; i++) {
		for (int j = 0; j < ncand[1]; j++) {
			for (int l = 0; l < ncand[2]; l++) {
				struct _part tmp[_MAX_PARTS];
				int np, cost = 0;

				m[0] = cand[0][i];
				m[1] = cand[1][j];
				m[2] = cand[2][l];
				np = _split_parts(kind, n, m, tmp);
				if (!_parts_nonempty(tmp, np) ||
				    (strict && !_parts_walkable(tmp, np)))
					continue;
				for (int k = 0; k < 3; k++)
					if (_split_uses[kind][k])
						cost += _cut_cost(n[k], m[k]);
				if (best < 0 || cost < best) {
					best = cost;
					memcpy(best_m, m, sizeof(m));
				}
			}
		}
	}
	if (best < 0)
		return 0;
	return _split_parts(kind, n, best_m, parts);
}

/*
 * Chooses the split of a box of sides n (n[0] >= 2 or the box is not a
 * line) and fills parts. Returns the number of parts (0: none possible).
 *
 * Preference follows the box's shape so parts stay close to cubes: a box
 * long in A is halved along A; a flat box gets the 2-D step in the two
 * long sides; otherwise the 5-part 3-D step. If the preferred split has
 * no walkable cut the others are tried. For a walkable box one always
 * exists (h, d >= 2 here, else the box is 2-D with C or B of length 1):
 * - w even, h >= 3: AB with h1 even gives parts with even major sides
 *   (h1, w, h1). Likewise AC when d >= 3.
 * - w even, h = d = 2: w = 2 takes ABC with all cuts 1 (parts 1x1x1 and
 *   2x1x1); w >= 4 takes A with an even w1.
 * - w, h, d odd (w >= 3; h, d odd and >= 2, so >= 3): AB with h1 even
 *   leaves the middle band w x (h-h1) x d all odd.
 * - 2-D (d = 1) is the same argument with AB and A only.
 */
static int _choose(const int n[3], struct _part *parts)
{
	const int w = n[0], h = n[1], d = n[2];
	int pref[_SPLIT_COUNT + 1], npref = 0, np;

	if (2 * w > 3 * h && 2 * w > 3 * d)
		pref[npref++] = _SPLIT_A;
	else if (3 * h > 4 * d)
		pref[npref++] = _SPLIT_AB;
	else if (3 * d > 4 * h)
		pref[npref++] = _SPLIT_AC;
	else
		pref[npref++] = _SPLIT_ABC;
	pref[npref++] = _SPLIT_ABC;
	pref[npref++] = _SPLIT_AB;
	pref[npref++] = _SPLIT_AC;
	pref[npref++] = _SPLIT_A;
	for (int i = 0; i < npref; i++)
		if ((np = _best_cut(pref[i], n, true, parts)))
			return np;
	/* Unreachable for walkable boxes: still cover every point. */
	for (int i = 0; i < npref; i++)
		if ((np = _best_cut(pref[i], n, false, parts)))
			return np;
	return 0;
}

static void _emit(struct _sink *s, int p)
{
	if (s->line_len == 1) {
		s->order[s->n++] = p;
		return;
	}
	for (int i = 0; i < s->line_len; i++) {
		int j = s->line_back ? s->line_len - 1 - i : i;

		s->order[s->n++] = p + j * s->line_step;
	}
	s->line_back = !s->line_back;
}

static void _walk(struct _sink *s, const struct _box *b)
{
	struct _part parts[_MAX_PARTS];
	int np;

	if (b->len[1] == 1 && b->len[2] == 1) {
		for (int i = 0; i < b->len[0]; i++)
			_emit(s, b->base + i * b->step[0]);
		return;
	}
	if (b->len[0] == 1) {
		/* Not walkable (never produced by _choose()): make the
		 * longer other side major so the points are still covered. */
		struct _box r = *b;
		int k = b->len[1] >= b->len[2] ? 1 : 2;

		r.len[0] = b->len[k];
		r.step[0] = b->step[k];
		r.len[k] = 1;
		r.step[k] = b->step[0];
		_walk(s, &r);
		return;
	}
	np = _choose(b->len, parts);
	for (int i = 0; i < np; i++) {
		const struct _part *pt = &parts[i];
		struct _box c;

		c.base = b->base;
		for (int k = 0; k < 3; k++) {
			c.base += pt->off[k] * b->step[k];
			c.len[k] = pt->len[k];
			c.step[k] = pt->sign[k] * b->step[pt->axis[k]];
		}
		_walk(s, &c);
	}
}

int loc__hilbert_order(const loc_shape_t *shape, int *order, loc_error_t *err)
{
	int stride[LOC_MAX_DIMS], nd, m, major = -1, rest[2], nrest = 0;
	struct _sink sink = { .order = order, .line_len = 1, .line_step = 0 };
	struct _box box = { .base = 0 };

	if (!shape || !order || shape->ndims < 1 || shape->ndims > LOC_MAX_DIMS)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "hilbert order needs a 1-%d-D shape",
				     LOC_MAX_DIMS);
	nd = shape->ndims;
	for (int d = 0; d < nd; d++)
		if (shape->dims[d] < 1)
			return loc_error_set(err, LOC_EINVAL, NULL, 0,
					     "dimension %d has size %d", d,
					     shape->dims[d]);
	stride[nd - 1] = 1;
	for (int d = nd - 2; d >= 0; d--)
		stride[d] = stride[d + 1] * shape->dims[d + 1];
	m = nd < 3 ? nd : 3;
	if (nd == 4) {
		sink.line_len = shape->dims[3];
		sink.line_step = stride[3];
	}

	/* Major axis: the longest side the walk can end on (an even one
	 * when the box holds an even number of points). */
	for (int d = 0; d < m; d++) {
		int o[2] = { 1, 1 }, no = 0;

		for (int e = 0; e < m; e++)
			if (e != d)
				o[no++] = shape->dims[e];
		if (!loc__hilbert_walkable(shape->dims[d], o[0], o[1]))
			continue;
		if (major < 0 || shape->dims[d] > shape->dims[major])
			major = d;
	}
	if (major < 0)
		major = 0; /* cannot happen: some side is even or all odd */
	for (int d = 0; d < m; d++)
		if (d != major)
			rest[nrest++] = d;
	if (nrest == 2 && shape->dims[rest[1]] > shape->dims[rest[0]]) {
		int t = rest[0];

		rest[0] = rest[1];
		rest[1] = t;
	}
	box.len[0] = shape->dims[major];
	box.step[0] = stride[major];
	for (int k = 1; k < 3; k++) {
		box.len[k] = k - 1 < nrest ? shape->dims[rest[k - 1]] : 1;
		box.step[k] = k - 1 < nrest ? stride[rest[k - 1]] : 0;
	}
	_walk(&sink, &box);
	return 0;
}
