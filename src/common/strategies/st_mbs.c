/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mbs.c - the Multiple Buddy Strategy (seed 001: Lo, Windisch, Liu,
 * Nitzberg, "Non-contiguous processor allocation algorithms for
 * mesh-connected multicomputers", sec. 3.3).
 *
 * The mesh is cut once into initial blocks: non-overlapping squares of
 * side 2^i, largest first (sec. 3.3.1, the 12x10 example of Fig. 4). A
 * request for k nodes is written in base 4 and served with that many
 * blocks of each size (Algorithm 3): a missing block is made by breaking
 * a larger free block into buddies (Algorithm 2, generate_buddy), and
 * when no larger block exists the request for one 2^i x 2^i block
 * becomes four requests for 2^(i-1) x 2^(i-1) blocks.
 *
 * Generalisations, all following the same rules:
 *  - Dimensions of size 1 are ignored, so an 8x8x1 grid behaves as 2-D.
 *  - Blocks are cubes of side 2^i over the remaining dimensions: 1-D
 *    segments (base 2), 2-D squares (base 4), 3-D cubes split into octets
 *    (base 8) and 4-D hypercubes split into 16 (base 16).
 *  - With several nodes per point, a wholly free point is the smallest
 *    block and its nodes are the "buddies" below it: k = q * npp + r,
 *    q is factored as above and r nodes are taken singly (from partly
 *    used points first, else by breaking a free point).
 *  - Torus wraparound is not used: blocks never wrap, as in the paper.
 *
 * The allocator is stateless between calls, so the free block records
 * (FBR) are derived from the candidate map on each call: a block is in
 * FBR[i] when all its nodes are candidates and its parent block is not,
 * which is exactly the state the paper's buddy merging on deallocation
 * maintains. Each FBR list is kept in the canonical order of blocks
 * (initial block order, then buddy order inside: <x,y>, <x+p/2,y>,
 * <x,y+p/2>, <x+p/2,y+p/2>), so "the first blocks of FBR[i]" is
 * well-defined; with that order the Fig. 3(a) example allocates exactly
 * <2,0,2> and <5,0,1> as the paper says.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
#include "loc_offer.h"
#include "loc_strategy_ops.h"
#include "st_mbs.h"
#include "st_one.h"

typedef struct mbs_block {
	int c[LOC_MAX_DIMS]; /* origin over the effective dimensions */
	int level;           /* side is 2^level */
} mbs_block_t;


/* ------------------------------------------------------------------ */
/* Initial blocks                                                      */
/* ------------------------------------------------------------------ */

static int _floor_log2(int v)
{
	int l = 0;

	while ((2 << l) <= v)
		l++;
	return l;
}

/*
 * Cuts the box [lo, lo + size) of ne dimensions into initial blocks:
 * tiles of the largest power-of-two side fitting the shortest side, then
 * the remainder as ne slabs (slab j: dimensions < j whole, dimension j
 * beyond the tiles, dimensions > j over the tiles), each cut the same
 * way. On the 12x10 mesh this yields <0,0,8>, <8,0,4>, <8,4,4> and the
 * six 2x2 blocks of the top row, in the paper's order. Returns the new
 * block count (blocks beyond max are counted, not written).
 */
static int _decompose(int ne, const int *lo, const int *size,
		      mbs_block_t *out, int n, int max)
{
	int smin = size[0], s, level, ntile[LOC_MAX_DIMS], t[LOC_MAX_DIMS], j;

	for (j = 0; j < ne; j++) {
		if (size[j] <= 0)
			return n;
		if (size[j] < smin)
			smin = size[j];
	}
	level = _floor_log2(smin);
	s = 1 << level;
	for (j = 0; j < ne; j++) {
		ntile[j] = size[j] / s;
		t[j] = 0;
	}
	/* Tiles, dimension 0 varying fastest. */
	for (;;) {
		if (n < max) {
			memset(&out[n], 0, sizeof(out[n]));
			for (j = 0; j < ne; j++)
				out[n].c[j] = lo[j] + t[j] * s;
			out[n].level = level;
		}
		n++;
		j = 0;
		while (j < ne && ++t[j] == ntile[j])
			t[j++] = 0;
		if (j == ne)
			break;
	}
	for (j = 0; j < ne; j++) {
		int slo[LOC_MAX_DIMS], ssize[LOC_MAX_DIMS];

		for (int i = 0; i < ne; i++) {
			slo[i] = lo[i];
			if (i < j)
				ssize[i] = size[i];
			else if (i == j) {
				slo[i] = lo[i] + ntile[i] * s;
				ssize[i] = size[i] - ntile[i] * s;
			} else {
				ssize[i] = ntile[i] * s;
			}
		}
		n = _decompose(ne, slo, ssize, out, n, max);
	}
	return n;
}

/* Finds the effective dimensions of grid; returns their count. */
static int _effective_dims(const loc_grid_t *grid, int *edim, int *esize)
{
	const loc_shape_t *sh = loc_grid_shape(grid);
	int ne = 0;

	for (int d = 0; d < sh->ndims; d++)
		if (sh->dims[d] > 1) {
			edim[ne] = d;
			esize[ne++] = sh->dims[d];
		}
	return ne;
}

/* Fills *blocks (malloc'd) with grid's initial blocks; returns their
 * count or LOC_ENOMEM. */
static int _initial_blocks(const loc_grid_t *grid, mbs_block_t **blocks)
{
	int edim[LOC_MAX_DIMS], esize[LOC_MAX_DIMS], lo[LOC_MAX_DIMS] = { 0 };
	int ne = _effective_dims(grid, edim, esize), n;

	if (ne == 0) {
		*blocks = calloc(1, sizeof(mbs_block_t));
		return *blocks ? 1 : LOC_ENOMEM;
	}
	n = _decompose(ne, lo, esize, NULL, 0, 0);
	*blocks = malloc(sizeof(mbs_block_t) * n);
	if (!*blocks)
		return LOC_ENOMEM;
	return _decompose(ne, lo, esize, *blocks, 0, n);
}

int loc__mbs_initial_blocks(const loc_grid_t *grid, loc_coord_t *origin,
			    int *side, int max)
{
	int edim[LOC_MAX_DIMS], esize[LOC_MAX_DIMS];
	int ne = _effective_dims(grid, edim, esize);
	mbs_block_t *b;
	int n = _initial_blocks(grid, &b);

	if (n < 0)
		return n;
	for (int i = 0; i < n && i < max; i++) {
		memset(&origin[i], 0, sizeof(origin[i]));
		for (int j = 0; j < ne; j++)
			origin[i].c[edim[j]] = b[i].c[j];
		side[i] = 1 << b[i].level;
	}
	free(b);
	return n;
}

/* ------------------------------------------------------------------ */
/* Per-allocator state                                                 */
/* ------------------------------------------------------------------ */

static void _mbs_fini(void *state)
{
	mbs_state_t *s = state;

	if (!s)
		return;
	free(s->init_rank);
	free(s->init_level);
	free(s->canon_point);
	free(s->canon_rank);
	free(s->full);
	for (int i = 0; i < MBS_NLISTS; i++)
		free(s->list[i]);
	free(s);
}

static int _mbs_init(const loc_grid_t *grid, const loc_curve_t *curve,
		     const loc_policy_t *policy, void **state,
		     loc_error_t *err)
{
	const loc_shape_t *sh = loc_grid_shape(grid);
	int esize[LOC_MAX_DIMS], stride[LOC_MAX_DIMS], rank = 0;
	mbs_block_t *b = NULL;
	mbs_state_t *s;

	(void)curve;
	(void)policy;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->ne = _effective_dims(grid, s->edim, esize);
	s->branch = 1 << s->ne;
	s->npoints = loc_grid_npoints(grid);
	s->nnodes = loc_grid_nnodes(grid);
	s->npp = sh->nodes_per_point;
	stride[sh->ndims - 1] = 1;
	for (int d = sh->ndims - 2; d >= 0; d--)
		stride[d] = stride[d + 1] * sh->dims[d + 1];

	s->ninit = _initial_blocks(grid, &b);
	if (s->ninit < 0)
		goto nomem;
	s->init_rank = malloc(sizeof(int) * s->ninit);
	s->init_level = malloc(sizeof(int) * s->ninit);
	s->canon_point = malloc(sizeof(int) * s->npoints);
	s->canon_rank = malloc(sizeof(int) * s->npoints);
	s->full = malloc(s->npoints);
	if (!s->init_rank || !s->init_level || !s->canon_point ||
	    !s->canon_rank || !s->full)
		goto nomem;
	for (int i = 0; i < s->ninit; i++)
		if (b[i].level > s->maxlevel)
			s->maxlevel = b[i].level;
	s->pow[0] = 1;
	for (int l = 1; l <= s->maxlevel; l++)
		s->pow[l] = s->pow[l - 1] * s->branch;

	/* Canonical order: initial blocks in turn, buddy (Morton) order
	 * inside each with effective dimension 0 in the lowest bit. */
	for (int i = 0; i < s->ninit; i++) {
		int L = b[i].level;

		s->init_rank[i] = rank;
		s->init_level[i] = L;
		for (int m = 0; m < s->pow[L]; m++) {
			int p = 0;

			for (int j = 0; j < s->ne; j++) {
				int off = 0;

				for (int bit = 0; bit < L; bit++)
					off |= ((m >> (bit * s->ne + j)) & 1)
					       << bit;
				p += (b[i].c[j] + off) * stride[s->edim[j]];
			}
			s->canon_point[rank] = p;
			s->canon_rank[p] = rank;
			rank++;
		}
	}
	free(b);
	b = NULL;

	/* FBR capacities: level-l blocks are disjoint, so at most
	 * npoints / branch^l of them; single nodes at most nnodes. */
	s->cap[0] = s->nnodes;
	for (int l = 0; l <= s->maxlevel; l++)
		s->cap[l + 1] = s->npoints / s->pow[l];
	for (int i = 0; i <= s->maxlevel + 1; i++) {
		s->list[i] = malloc(sizeof(int) * (s->cap[i] ? s->cap[i] : 1));
		if (!s->list[i])
			goto nomem;
	}
	*state = s;
	return 0;
nomem:
	free(b);
	_mbs_fini(s);
	return loc_error_set(err, LOC_ENOMEM, NULL, 0,
			     "out of memory building MBS blocks");
}

/* ------------------------------------------------------------------ */
/* Free block records                                                  */
/* ------------------------------------------------------------------ */

/* Orders single nodes by their point's canonical rank, then node id. */
static long long _node_key(const mbs_state_t *s, const loc_grid_t *g, int v)
{
	return (long long)s->canon_rank[loc_grid_node_point(g, v)] *
		       ((long long)s->nnodes + 1) + v;
}

static long long _key(const mbs_state_t *s, const loc_grid_t *g, int li,
		      int x)
{
	return li ? x : _node_key(s, g, x);
}

/* Appends x to list li (callers append in canonical order). */
static void _append(mbs_state_t *s, int li, int x)
{
	s->list[li][s->len[li]++] = x;
}

/* Inserts x into list li at its canonical position. */
static void _insert(mbs_state_t *s, const loc_grid_t *g, int li, int x)
{
	int lo = s->head[li], hi = s->len[li];
	long long kx = _key(s, g, li, x);

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (_key(s, g, li, s->list[li][mid]) < kx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->len[li] == s->cap[li] && s->head[li] > 0) {
		/* Reclaim the consumed front before growing. */
		int h = s->head[li];

		memmove(s->list[li], s->list[li] + h,
			sizeof(int) * (s->len[li] - h));
		s->len[li] -= h;
		lo -= h;
		s->head[li] = 0;
	}
	memmove(s->list[li] + lo + 1, s->list[li] + lo,
		sizeof(int) * (s->len[li] - lo));
	s->list[li][lo] = x;
	s->len[li]++;
}

static int _avail(const mbs_state_t *s, int li)
{
	return s->len[li] - s->head[li];
}

/* Appends the candidate nodes of the point at rank r as single nodes. */
static void _add_fragments(mbs_state_t *s, const loc__ctx_t *ctx, int r)
{
	const int *nodes;
	int n = loc_grid_point_nodes(ctx->grid, s->canon_point[r], &nodes);

	for (int i = 0; i < n; i++)
		if (ctx->free[nodes[i]])
			_append(s, 0, nodes[i]);
}

/*
 * Returns whether the block at rank r and level l is wholly free; if it
 * is not, records its wholly free children in FBR (post-order keeps each
 * list in canonical order) and its free nodes on partly free points.
 */
static bool _visit(mbs_state_t *s, const loc__ctx_t *ctx, int r, int l)
{
	bool f[1 << LOC_MAX_DIMS], all = true;
	int step;

	if (l == 0) {
		if (s->full[r])
			return true;
		_add_fragments(s, ctx, r);
		return false;
	}
	step = s->pow[l - 1];
	for (int c = 0; c < s->branch; c++) {
		f[c] = _visit(s, ctx, r + c * step, l - 1);
		all = all && f[c];
	}
	if (all)
		return true;
	for (int c = 0; c < s->branch; c++)
		if (f[c])
			_append(s, l, r + c * step);
	return false;
}

static void _build_fbr(mbs_state_t *s, const loc__ctx_t *ctx)
{
	for (int r = 0; r < s->npoints; r++) {
		const int *nodes;
		int n = loc_grid_point_nodes(ctx->grid, s->canon_point[r],
					     &nodes);
		bool full = n == s->npp;

		for (int i = 0; i < n && full; i++)
			full = ctx->free[nodes[i]];
		s->full[r] = full;
	}
	for (int i = 0; i <= s->maxlevel + 1; i++)
		s->head[i] = s->len[i] = 0;
	for (int i = 0; i < s->ninit; i++)
		if (_visit(s, ctx, s->init_rank[i], s->init_level[i]))
			_append(s, s->init_level[i] + 1, s->init_rank[i]);
}

/* ------------------------------------------------------------------ */
/* Allocation (Algorithms 2 and 3)                                     */
/* ------------------------------------------------------------------ */

/*
 * generate_buddy(i): takes the first block of the smallest level above i
 * (up to search_level) that has one and breaks it down: at each level on
 * the way the first buddy is broken further and the others are recorded;
 * at level i all buddies are recorded. Level -1 buddies are the nodes of
 * a point. Returns whether a block was found.
 */
static bool _generate(mbs_state_t *s, const loc__ctx_t *ctx, int i,
		      int search_level)
{
	int j, r;

	for (j = i + 1; j <= search_level; j++)
		if (_avail(s, j + 1))
			break;
	if (j > search_level)
		return false;
	r = s->list[j + 1][s->head[j + 1]++];
	for (; j > i + 1; j--)
		for (int c = 1; c < s->branch; c++)
			_insert(s, ctx->grid, j, r + c * s->pow[j - 1]);
	if (i >= 0) {
		for (int c = 0; c < s->branch; c++)
			_insert(s, ctx->grid, i + 1, r + c * s->pow[i]);
	} else {
		const int *nodes;
		int n = loc_grid_point_nodes(ctx->grid, s->canon_point[r],
					     &nodes);

		for (int c = 0; c < n; c++)
			_insert(s, ctx->grid, 0, nodes[c]);
	}
	return true;
}

/* Writes the nodes of the first t blocks of list li to out. */
static int _take(mbs_state_t *s, const loc__ctx_t *ctx, int li, int t,
		 int *out, int nout)
{
	for (int b = 0; b < t; b++) {
		int x = s->list[li][s->head[li]++];

		if (li == 0) {
			out[nout++] = x;
			continue;
		}
		for (int r = x; r < x + s->pow[li - 1]; r++) {
			const int *nodes;
			int n = loc_grid_point_nodes(ctx->grid,
						     s->canon_point[r], &nodes);

			memcpy(out + nout, nodes, sizeof(int) * n);
			nout += n;
		}
	}
	return nout;
}

static int _mbs_select(loc__ctx_t *ctx)
{
	mbs_state_t *s = ctx->state;
	int *out = ctx->scratch, nout = 0, nblocks = 0;
	int search_level = s->maxlevel;
	long long q;

	/* One node: the first entry of the one list that serves it. */
	if (ctx->k == 1 && loc__fast_one) {
		int v;

		if (loc__mbs_one(ctx, s, &v))
			return loc__offer(ctx, &v, 1.0);
	}
	_build_fbr(s, ctx);

	/* Request factoring: base-(2^ne) digits of the number of whole
	 * points, the rest as single nodes; digits above the largest
	 * initial block fold into it. */
	q = ctx->k / s->npp;
	memset(s->req, 0, sizeof(s->req));
	s->req[0] = ctx->k % s->npp;
	for (int l = 0; l < s->maxlevel; l++) {
		s->req[l + 1] = q % s->branch;
		q /= s->branch;
	}
	s->req[s->maxlevel + 1] = q;

	for (int i = s->maxlevel; i >= -1; i--) {
		int li = i + 1;
		long long need = s->req[li];
		int got;

		if (!need)
			continue;
		if (_avail(s, li) < need) {
			while (_avail(s, li) < need &&
			       _generate(s, ctx, i, search_level))
				;
			search_level = i;
		}
		got = _avail(s, li) < need ? _avail(s, li) : (int)need;
		nout = _take(s, ctx, li, got, out, nout);
		nblocks += got;
		if (got < need) {
			/* Break each missing block into its buddies. */
			if (i < 0)
				return LOC_ENOFIT;
			s->req[li - 1] += (need - got) *
					  (i > 0 ? s->branch : s->npp);
		}
	}
	if (nout != ctx->k)
		return LOC_EINVAL;
	return loc__offer(ctx, out, nblocks);
}

const loc__strategy_ops_t loc__st_mbs = {
	.name = "mbs",
	.select = _mbs_select,
	.init = _mbs_init,
	.fini = _mbs_fini,
};
