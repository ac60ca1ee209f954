/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm.c - Manhattan Median (mm), MM with local improvement (mm_inc) and
 * Krumke et al.'s Gen-Alg (genalg): seed 003 (Bender, Bunde, Demaine,
 * Fekete, Leung, Meijer, Phillips, WADS 2005) and seed 002 sec. 5.2.
 *
 * Around each candidate centre take the k free nodes nearest in torus L1
 * hops and keep the set with the least total pairwise hops. MM's centres
 * are the points whose coordinates are each a coordinate of some free
 * node (the crossings of the axis lines through free points); Gen-Alg's
 * are the points that hold a free node. mm_inc then swaps a chosen node
 * for a nearby free one while that lowers the total (MM+Inc of seed 003).
 *
 * Evaluating every centre costs O(centres * (walk + k)), too slow on large
 * machines, so centres are ranked first and only the best max_centers are
 * evaluated exactly: by their L1 star (hops to their k nearest free nodes,
 * a short walk with branch and bound) for small requests, else by their
 * MC1x1 shell cost (table lookups, see st_mc1x1.c), on one candidate per
 * small block when ranking them all would cost too much. Tiny requests
 * (walks of at most MM_EXACT_WALK points) are always evaluated in full:
 * ranking would cost as much. The default max_centers spends a fixed
 * budget of work and never evaluates fewer than MM_MIN_CENTERS centres;
 * mm_max_centers = -1 evaluates every candidate (exact MM).
 *
 * The k nearest nodes come from one list of grid offsets sorted by L1
 * length (then by squared length, so a partial last shell stays round),
 * built once; a centre walks it until k free nodes are found. The pairwise
 * total of a set is computed per axis from coordinate counts in
 * O(k * ndims + window), not O(k^2).
 */
#include <stdlib.h>
#include <string.h>

#include "loc_strategy_internal.h"

#define MM_MIN_CENTERS 128         /* default: evaluate at least this many */
#define MM_BUDGET (3L << 18)       /* default: work units per decision */
#define MM_EVAL_FIXED 48           /* work units per centre beyond its walk */
#define MM_DIRECT_PAIRS 12         /* up to this many points: pairs directly */
#define MM_EXACT_WALK 16           /* walks this short: evaluate every centre */
#define MM_STAR_WALK 64            /* walks this short: rank by L1 star */
#define MM_SL_ALTS 8               /* distinct sets offered with SL */
#define MM_INC_MAX_SWAPS 128       /* mm_inc: improving swaps per decision */
#define MM_INC_WORK (1L << 18)     /* mm_inc: and listed nodes * swaps */
#define MM_INC_PAIR_CAP (1L << 14) /* mm_inc: exhaustive pair scan limit */
#define MM_RANK_BUDGET (1L << 20)  /* shell ranking: table lookups */
#define MM_OUT (-(1 << 28))        /* axis table: off a mesh edge */
#define MM_MAX_OFFSETS (1L << 23)  /* offset table limit (about 100 MB) */

typedef struct _mm_pick {
	int64_t cost;
	uint64_t hash;
	int point;
} _mm_pick_t;

typedef struct _mm_state {
	int nd, npoints, nnodes;
	int len[LOC_MAX_DIMS];
	bool torus[LOC_MAX_DIMS];
	int pstride[LOC_MAX_DIMS];
	int lo[LOC_MAX_DIMS];    /* least offset per dimension */
	int range[LOC_MAX_DIMS]; /* offsets per dimension */
	int *coord;              /* [npoints * nd] */
	int *tab;                /* per axis [L + range - 1]: at c + u, the
				  * point stride part of coordinate c + lo + u,
				  * or MM_OUT */
	int tab_at[LOC_MAX_DIMS];
	int noff, maxrad;
	int *off;                /* [noff * nd] sorted offsets, as u = o - lo */
	int *off_l1;             /* [noff] their L1 length */
	int *rad_end;            /* [maxrad + 1] first offset longer than r */
	int max_centers;         /* policy: 0 default, -1 all, else a cap */
	loc__shells_t *sh;
	int *point_free;         /* [npoints + 1] free nodes per point; the
				  * last entry stays 0 (off a mesh edge) */
	uint8_t *axis_has;       /* [nd * maxlen] coordinate holds a free node */
	int maxlen, maxrange;
	int *cand;               /* [npoints] candidate centres */
	int *eval;               /* [npoints] centres to evaluate, best first */
	loc__shell_rank_t *rank; /* [npoints] */
	int *ent_pt, *ent_off, *ent_take; /* [nnodes] one walk's points */
	int nent, radius;
	int64_t *hist;           /* [maxrange] per-axis counts */
	int *nodes;              /* [nnodes] the set being offered */
	int *thin;               /* [npoints] one candidate per block */
	uint32_t *block_seen;    /* [npoints] stamps */
	uint32_t bstamp;
	int *hop;                /* per axis [2L - 1]: hops of delta + L - 1 */
	int hop_at[LOC_MAX_DIMS];
	/* mm_inc */
	uint32_t *mark;          /* [nnodes] stamps: node chosen */
	uint32_t stamp;
	int *inc_node, *inc_pt;  /* [nnodes] chosen nodes and free ones near */
	int *inc_c;              /* [nnodes * nd] their coordinates */
	uint8_t *inc_in;         /* [nnodes] 1 = currently chosen */
	int64_t *inc_d;          /* [nnodes] hops to the chosen set */
	int *inc_u, *inc_v;      /* [nnodes] filtered swap candidates */
	int64_t *phi;            /* [nd * maxlen] per-axis hops to the set */
	int64_t *pre;            /* [2 * (2 * maxlen + 1)] prefix sums */
} _mm_state_t;

/* ---- setup ---------------------------------------------------------- */

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
static int _mm_build_offsets(_mm_state_t *st)
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

static int _mm_build_tables(_mm_state_t *st)
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

static void _mm_fini(void *state)
{
	_mm_state_t *st = state;

	if (!st)
		return;
	loc__shells_destroy(st->sh);
	free(st->coord);
	free(st->tab);
	free(st->off);
	free(st->off_l1);
	free(st->rad_end);
	free(st->point_free);
	free(st->axis_has);
	free(st->cand);
	free(st->eval);
	free(st->rank);
	free(st->ent_pt);
	free(st->ent_off);
	free(st->ent_take);
	free(st->hist);
	free(st->nodes);
	free(st->mark);
	free(st->thin);
	free(st->block_seen);
	free(st->inc_node);
	free(st->inc_pt);
	free(st->inc_c);
	free(st->hop);
	free(st->inc_in);
	free(st->inc_d);
	free(st->inc_u);
	free(st->inc_v);
	free(st->phi);
	free(st->pre);
	free(st);
}

static int _mm_init(const loc_grid_t *grid, const loc_curve_t *curve,
		    const loc_policy_t *policy, void **state, loc_error_t *err)
{
	const loc_shape_t *shape = loc_grid_shape(grid);
	_mm_state_t *st;
	size_t nn, np;

	(void)curve;
	if (policy->mm_max_centers < -1)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "mm_max_centers %d: must be -1 (exact), 0 (default) or positive",
				     policy->mm_max_centers);
	st = calloc(1, sizeof(*st));
	if (!st)
		goto nomem;
	st->nd = shape->ndims;
	st->npoints = loc_grid_npoints(grid);
	st->nnodes = loc_grid_nnodes(grid);
	st->max_centers = policy->mm_max_centers;
	nn = st->nnodes;
	np = st->npoints;
	for (int d = st->nd - 1, ps = 1; d >= 0; d--) {
		st->len[d] = shape->dims[d];
		st->torus[d] = shape->torus[d] && shape->dims[d] > 1;
		st->pstride[d] = ps;
		ps *= st->len[d];
		if (st->len[d] > st->maxlen)
			st->maxlen = st->len[d];
	}
	if (_mm_build_offsets(st) == LOC_ERANGE) {
		_mm_fini(st);
		return loc_error_set(err, LOC_ERANGE, NULL, 0,
				     "grid too large for mm/genalg: more than %ld offsets",
				     MM_MAX_OFFSETS);
	}
	if (!st->off || !st->rad_end || _mm_build_tables(st))
		goto nomem;
	st->coord = malloc(sizeof(int) * np * st->nd);
	st->sh = loc__shells_create(grid);
	st->point_free = calloc(np + 1, sizeof(int));
	st->axis_has = malloc((size_t)st->nd * st->maxlen);
	st->cand = malloc(sizeof(int) * np);
	st->eval = malloc(sizeof(int) * np);
	st->rank = malloc(sizeof(loc__shell_rank_t) * np);
	st->ent_pt = malloc(sizeof(int) * nn);
	st->ent_off = malloc(sizeof(int) * nn);
	st->ent_take = malloc(sizeof(int) * nn);
	st->hist = malloc(sizeof(int64_t) * st->maxrange);
	st->nodes = malloc(sizeof(int) * nn);
	st->mark = calloc(nn, sizeof(uint32_t));
	st->thin = malloc(sizeof(int) * np);
	st->block_seen = calloc(np, sizeof(uint32_t));
	st->inc_node = malloc(sizeof(int) * nn);
	st->inc_pt = malloc(sizeof(int) * nn);
	st->inc_c = malloc(sizeof(int) * nn * st->nd);
	st->inc_in = malloc(nn);
	st->inc_d = malloc(sizeof(int64_t) * nn);
	st->inc_u = malloc(sizeof(int) * nn);
	st->inc_v = malloc(sizeof(int) * nn);
	st->phi = malloc(sizeof(int64_t) * st->nd * st->maxlen);
	st->pre = malloc(sizeof(int64_t) * 2 * (2 * st->maxlen + 1));
	if (!st->coord || !st->sh || !st->point_free || !st->axis_has ||
	    !st->cand || !st->eval || !st->rank || !st->ent_pt ||
	    !st->ent_off || !st->ent_take || !st->hist || !st->nodes ||
	    !st->thin || !st->block_seen || !st->mark || !st->inc_node ||
	    !st->inc_pt || !st->inc_c || !st->inc_in || !st->inc_d ||
	    !st->inc_u || !st->inc_v || !st->phi || !st->pre)
		goto nomem;
	for (size_t p = 0; p < np; p++) {
		loc_coord_t c;

		loc_grid_point_coord(grid, (int)p, &c);
		for (int d = 0; d < st->nd; d++)
			st->coord[p * st->nd + d] = c.c[d];
	}
	*state = st;
	return 0;
nomem:
	_mm_fini(st);
	return loc_error_set(err, LOC_ENOMEM, NULL, 0,
			     "out of memory for the mm offset tables");
}

/* ---- one centre ----------------------------------------------------- */

/* Sets tab[d] to the axis tables seen from point. */
static void _mm_tabs(const _mm_state_t *st, int point, const int **tab)
{
	for (int d = 0; d < st->nd; d++)
		tab[d] = st->tab + st->tab_at[d] +
			 st->coord[(size_t)point * st->nd + d];
}

/* The point at offset i from the one tab was set for, or < 0. */
static inline int _mm_off_point(const _mm_state_t *st, const int **tab,
				int i, const int nd)
{
	const int *o = st->off + (size_t)i * nd;
	int pt = tab[0][o[0]];

	for (int d = 1; d < nd; d++)
		pt += tab[d][o[d]];
	return pt;
}

/*
 * Walks the offsets from point until k free nodes are found, recording
 * the points used (ent_*) and the last L1 radius. nd is a constant in
 * each caller below so the compiler unrolls the axis loop.
 */
static inline void _mm_walk_nd(_mm_state_t *st, int point, int k,
			       const int nd)
{
	const int *tab[LOC_MAX_DIMS], *pf = st->point_free;
	int need = k, i, n = 0, last = 0;

	_mm_tabs(st, point, tab);
	/* Branch-free body: whether a point is free is a coin toss on a
	 * fragmented machine, too costly to predict. */
	for (i = 0; i < st->noff && need; i++) {
		int pt = _mm_off_point(st, tab, i, nd), f, take;

		pt = pt < 0 ? st->npoints : pt;
		f = pf[pt];
		take = f < need ? f : need;
		st->ent_pt[n] = pt;
		st->ent_off[n] = i;
		st->ent_take[n] = take;
		last = take ? i : last;
		n += take != 0;
		need -= take;
	}
	st->nent = n;
	st->radius = st->off_l1[last];
}

static void _mm_walk(_mm_state_t *st, int point, int k)
{
	switch (st->nd) {
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

/*
 * Sum over pairs of min(delta, L - delta) for counts h[0..w) at linear
 * positions (L = 0: a mesh axis, plain delta).
 */
static int64_t _axis_pairs(const int64_t *h, int w, int L)
{
	int64_t tot = 0, n = 0, s = 0, cn = 0, cs = 0;
	int half = L / 2;

	for (int u = 0; u < w; u++) {
		int t = u - half - 1;

		/* On a ring, pairs more than L/2 apart go the other way. */
		if (L && t >= 0) {
			cn += h[t];
			cs += (int64_t)t * h[t];
		}
		if (h[u]) {
			tot += h[u] * ((int64_t)u * n - s);
			if (L)
				tot -= h[u] * (2 * ((int64_t)u * cn - cs) -
					       (int64_t)L * cn);
		}
		n += h[u];
		s += (int64_t)u * h[u];
	}
	return tot;
}

/* Pairwise hops of a few walked points, straight from their offsets. */
static inline int64_t _mm_walk_cost_direct(const _mm_state_t *st,
					   const int nd)
{
	int64_t total = 0;

	for (int e = 1; e < st->nent; e++) {
		const int *a = st->off + (size_t)st->ent_off[e] * nd;

		for (int f = 0; f < e; f++) {
			const int *b = st->off + (size_t)st->ent_off[f] * nd;
			int h = 0;

			for (int d = 0; d < nd; d++)
				h += st->hop[st->hop_at[d] + a[d] - b[d]];
			total += (int64_t)h * st->ent_take[e] * st->ent_take[f];
		}
	}
	return total;
}

/* Total pairwise hops of the set the last walk found. */
static int64_t _mm_walk_cost(_mm_state_t *st)
{
	int64_t total = 0;

	if (st->nent <= MM_DIRECT_PAIRS) {
		switch (st->nd) {
		case 1:
			return _mm_walk_cost_direct(st, 1);
		case 2:
			return _mm_walk_cost_direct(st, 2);
		case 3:
			return _mm_walk_cost_direct(st, 3);
		default:
			return _mm_walk_cost_direct(st, 4);
		}
	}

	for (int d = 0; d < st->nd; d++) {
		int base = -st->lo[d], a, b;

		/* Every walked offset lies within the radius. */
		a = base - st->radius < 0 ? 0 : base - st->radius;
		b = base + st->radius >= st->range[d] ? st->range[d] - 1 :
							base + st->radius;
		memset(st->hist, 0, sizeof(int64_t) * (b - a + 1));
		for (int e = 0; e < st->nent; e++)
			st->hist[st->off[(size_t)st->ent_off[e] * st->nd + d] -
				 a] += st->ent_take[e];
		total += _axis_pairs(st->hist, b - a + 1,
				     st->torus[d] ? st->len[d] : 0);
	}
	return total;
}

/* An order-independent fingerprint of the walked set (SL dedupe). */
static uint64_t _mm_walk_hash(const _mm_state_t *st)
{
	uint64_t h = 0;

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
static void _mm_walk_nodes(const loc__ctx_t *ctx, _mm_state_t *st)
{
	int n = 0;

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

/* ---- choosing centres ----------------------------------------------- */

/* Lists the candidate centres in point order; returns their count. */
static int _mm_candidates(loc__ctx_t *ctx, _mm_state_t *st, bool genalg)
{
	int n = 0;

	memset(st->point_free, 0, sizeof(int) * st->npoints);
	for (int v = 0; v < ctx->nnodes; v++)
		if (ctx->free[v])
			st->point_free[loc_grid_node_point(ctx->grid, v)]++;
	if (genalg) {
		for (int p = 0; p < st->npoints; p++)
			if (st->point_free[p])
				st->cand[n++] = p;
		return n;
	}
	memset(st->axis_has, 0, (size_t)st->nd * st->maxlen);
	for (int p = 0; p < st->npoints; p++)
		if (st->point_free[p])
			for (int d = 0; d < st->nd; d++)
				st->axis_has[d * st->maxlen +
					     st->coord[p * st->nd + d]] = 1;
	for (int p = 0; p < st->npoints; p++) {
		int d;

		for (d = 0; d < st->nd; d++)
			if (!st->axis_has[d * st->maxlen +
					  st->coord[p * st->nd + d]])
				break;
		if (d == st->nd)
			st->cand[n++] = p;
	}
	return n;
}

/* Points a walk visits: about k / (free nodes per point). */
static double _mm_walk_len(const loc__ctx_t *ctx, const _mm_state_t *st)
{
	return (double)ctx->k * st->npoints / ctx->nfree;
}

/* How many centres to evaluate exactly. */
static int _mm_budget(const loc__ctx_t *ctx, const _mm_state_t *st,
		      int ncand)
{
	double walk = _mm_walk_len(ctx, st);
	long per, m;

	/* Ranking would cost as much as evaluating tiny requests. */
	if (st->max_centers < 0 || walk <= MM_EXACT_WALK)
		return ncand;
	if (st->max_centers > 0)
		return st->max_centers < ncand ? st->max_centers : ncand;
	per = (long)walk + ctx->k + MM_EVAL_FIXED;
	m = MM_BUDGET / per;
	/* The floor gives way only for huge requests (within 4 budgets). */
	if (m < MM_MIN_CENTERS)
		m = 4 * MM_BUDGET / per < MM_MIN_CENTERS ?
			    4 * MM_BUDGET / per + 1 : MM_MIN_CENTERS;
	/* Ranking many costs more than evaluating the rest. */
	return 2 * m < ncand ? (int)m : ncand;
}

/*
 * The L1 star of point: hops from it to its k nearest free nodes, or a
 * value > bound once the rest of the walk cannot bring it under bound.
 */
static inline int64_t _mm_star_nd(const _mm_state_t *st, int point, int k,
				  int64_t bound, const int nd)
{
	const int *tab[LOC_MAX_DIMS], *pf = st->point_free;
	int64_t star = 0;
	int need = k;

	_mm_tabs(st, point, tab);
	for (int i = 0; i < st->noff; i++) {
		int pt = _mm_off_point(st, tab, i, nd), take;
		int64_t lb;

		pt = pt < 0 ? st->npoints : pt;
		take = pf[pt] < need ? pf[pt] : need;
		star += (int64_t)take * st->off_l1[i];
		need -= take;
		if (!need)
			return star;
		lb = star + (int64_t)need * st->off_l1[i];
		if (lb > bound)
			return lb;
	}
	return star;
}

static int64_t _mm_star(const _mm_state_t *st, int point, int k,
			int64_t bound)
{
	switch (st->nd) {
	case 1:
		return _mm_star_nd(st, point, k, bound, 1);
	case 2:
		return _mm_star_nd(st, point, k, bound, 2);
	case 3:
		return _mm_star_nd(st, point, k, bound, 3);
	default:
		return _mm_star_nd(st, point, k, bound, 4);
	}
}

/* The m candidates with the least L1 star (ties: point order). */
static int _mm_rank_star(loc__ctx_t *ctx, _mm_state_t *st, int ncand, int m)
{
	loc__shell_rank_t *h = st->rank;
	int n = 0;

	for (int i = 0; i < ncand; i++) {
		/* A later candidate must beat the worst kept outright. */
		int64_t bound = n == m ? h[0].cost - 1 : INT64_MAX;
		int64_t star = _mm_star(st, st->cand[i], ctx->k, bound);

		if (star <= bound)
			loc__shells_rank_push(h, &n, m, star, i);
	}
	loc__shells_rank_sort(h, n);
	return n;
}

/*
 * Shell ranking costs about (radius + 1) * 2^ndims lookups per centre.
 * When that exceeds MM_RANK_BUDGET over all candidates, only the first
 * candidate of each t^ndims block is ranked (t at most a quarter of the
 * radius: the shell cost barely changes over such a step). Fills
 * st->thin; returns its length.
 */
static int _mm_thin(const loc__ctx_t *ctx, _mm_state_t *st, int ncand)
{
	double need = _mm_walk_len(ctx, st);
	int s = 0, t = 1, n = 0, nb[LOC_MAX_DIMS];
	uint32_t stamp;

	for (;; s++) {
		double vol = 1;

		for (int d = 0; d < st->nd; d++)
			vol *= 2 * s + 1;
		if (vol >= need)
			break;
	}
	while (4 * (t + 1) <= s) {
		double blocks = ncand;

		for (int d = 0; d < st->nd; d++)
			blocks /= t;
		if (blocks * (s + 1) * (1 << st->nd) <= MM_RANK_BUDGET)
			break;
		t++;
	}
	if (t == 1) {
		memcpy(st->thin, st->cand, sizeof(int) * ncand);
		return ncand;
	}
	if (++st->bstamp == 0) {
		memset(st->block_seen, 0, sizeof(uint32_t) * st->npoints);
		st->bstamp = 1;
	}
	stamp = st->bstamp;
	for (int d = 0; d < st->nd; d++)
		nb[d] = (st->len[d] + t - 1) / t;
	for (int i = 0; i < ncand; i++) {
		const int *c = st->coord + (size_t)st->cand[i] * st->nd;
		int b = 0;

		for (int d = 0; d < st->nd; d++)
			b = b * nb[d] + c[d] / t;
		if (st->block_seen[b] != stamp) {
			st->block_seen[b] = stamp;
			st->thin[n++] = st->cand[i];
		}
	}
	return n;
}

/*
 * Fills st->eval with the centres to evaluate, best first: every
 * candidate in point order when affordable, else the m with the least
 * L1 star when walks are short, or with the least MC1x1 shell cost
 * (ties: point order). Returns how many.
 */
static int _mm_rank(loc__ctx_t *ctx, _mm_state_t *st, int ncand)
{
	int m = _mm_budget(ctx, st, ncand), n = 0;

	/* k nodes on one point cost 0: nothing else needs a look. */
	for (int i = 0; i < ncand; i++)
		if (st->point_free[st->cand[i]] >= ctx->k)
			st->eval[n++] = st->cand[i];
	if (n)
		return n;
	if (m >= ncand) {
		memcpy(st->eval, st->cand, sizeof(int) * ncand);
		return ncand;
	}
	if (_mm_walk_len(ctx, st) <= MM_STAR_WALK) {
		m = _mm_rank_star(ctx, st, ncand, m);
		for (int i = 0; i < m; i++)
			st->eval[i] = st->cand[st->rank[i].idx];
	} else {
		int nthin = _mm_thin(ctx, st, ncand);

		loc__shells_load(st->sh, st->point_free);
		m = loc__shells_rank(st->sh, st->thin, nthin, ctx->k, m,
				     st->rank);
		for (int i = 0; i < m; i++)
			st->eval[i] = st->thin[st->rank[i].idx];
	}
	return m;
}

/* Inserts a distinct set into the best-first list pick[0..*n) (max a). */
static void _mm_keep(_mm_pick_t *pick, int *n, int a, int64_t cost,
		     uint64_t hash, int point)
{
	int i;

	for (i = 0; i < *n; i++)
		if (pick[i].cost == cost && pick[i].hash == hash)
			return;
	if (*n == a && cost >= pick[a - 1].cost)
		return;
	i = *n < a ? (*n)++ : a - 1;
	while (i > 0 && pick[i - 1].cost > cost) {
		pick[i] = pick[i - 1];
		i--;
	}
	pick[i].cost = cost;
	pick[i].hash = hash;
	pick[i].point = point;
}

static bool _sl_enabled(const loc_policy_t *policy)
{
	return policy->walltime == LOC_WALLTIME_SL ||
	       policy->walltime == LOC_WALLTIME_COMBO ||
	       policy->walltime == LOC_WALLTIME_ADJEST;
}

/*
 * Evaluates the ranked centres exactly; pick[] receives the best distinct
 * sets (first evaluated wins ties). Returns how many.
 */
static int _mm_search(loc__ctx_t *ctx, _mm_state_t *st, bool genalg,
		      _mm_pick_t *pick, int a)
{
	int ncand = _mm_candidates(ctx, st, genalg), m, npick = 0;

	if (!ncand)
		return 0;
	m = _mm_rank(ctx, st, ncand);
	for (int i = 0; i < m; i++) {
		int64_t cost;

		/* Nothing beats a set of k nodes sharing points. */
		if (npick == a && pick[a - 1].cost == 0)
			break;
		_mm_walk(st, st->eval[i], ctx->k);
		cost = _mm_walk_cost(st);
		if (npick == a && cost >= pick[a - 1].cost)
			continue;
		_mm_keep(pick, &npick, a, cost, a > 1 ? _mm_walk_hash(st) : 0,
			 st->eval[i]);
	}
	return npick;
}

/* Offers pick[from..n) that can still matter. */
static int _mm_offer_rest(loc__ctx_t *ctx, _mm_state_t *st,
			  const _mm_pick_t *pick, int from, int n)
{
	for (int i = from; i < n; i++) {
		int rc;

		if (!((double)pick[i].cost < loc__offer_bound(ctx)))
			continue;
		_mm_walk(st, pick[i].point, ctx->k);
		_mm_walk_nodes(ctx, st);
		rc = loc__offer(ctx, st->nodes, (double)pick[i].cost);
		if (rc)
			return rc;
	}
	return 0;
}

/* k = nfree leaves one choice: every free node. */
static int _mm_offer_all(loc__ctx_t *ctx, _mm_state_t *st)
{
	int64_t total = 0;
	int n = 0;

	for (int v = 0; v < ctx->nnodes; v++)
		if (ctx->free[v])
			st->nodes[n++] = v;
	for (int d = 0; d < st->nd; d++) {
		memset(st->hist, 0, sizeof(int64_t) * st->len[d]);
		for (int i = 0; i < n; i++) {
			int p = loc_grid_node_point(ctx->grid, st->nodes[i]);

			st->hist[st->coord[(size_t)p * st->nd + d]]++;
		}
		total += _axis_pairs(st->hist, st->len[d],
				     st->torus[d] ? st->len[d] : 0);
	}
	return loc__offer(ctx, st->nodes, (double)total);
}

static int _mm_select_common(loc__ctx_t *ctx, bool genalg)
{
	_mm_state_t *st = ctx->state;
	_mm_pick_t pick[MM_SL_ALTS];
	int a = _sl_enabled(ctx->policy) ? MM_SL_ALTS : 1, n;

	if (ctx->k == ctx->nfree)
		return _mm_offer_all(ctx, st);
	n = _mm_search(ctx, st, genalg, pick, a);
	if (!n)
		return LOC_ENOFIT;
	return _mm_offer_rest(ctx, st, pick, 0, n);
}

static int _mm_select(loc__ctx_t *ctx)
{
	return _mm_select_common(ctx, false);
}

static int _genalg_select(loc__ctx_t *ctx)
{
	return _mm_select_common(ctx, true);
}

/* ---- mm_inc: local improvement -------------------------------------- */

/* Hops between the coordinates a and b (nd constant in callers). */
static inline int _mm_hops(const _mm_state_t *st, const int *a, const int *b,
			   const int nd)
{
	int h = 0;

	for (int d = 0; d < nd; d++)
		h += st->hop[st->hop_at[d] + a[d] - b[d]];
	return h;
}

/* Hops between listed nodes i and j. */
static int _mm_inc_hops(const _mm_state_t *st, int i, int j)
{
	return _mm_hops(st, st->inc_c + (size_t)i * st->nd,
			st->inc_c + (size_t)j * st->nd, st->nd);
}

/* After swapping u out and v in: D(x) += hops(x, v) - hops(x, u). */
static inline void _mm_inc_update_nd(_mm_state_t *st, int n, int u, int v,
				     const int nd)
{
	const int *cu = st->inc_c + (size_t)u * nd;
	const int *cv = st->inc_c + (size_t)v * nd;
	const int *c = st->inc_c;

	for (int i = 0; i < n; i++, c += nd)
		st->inc_d[i] += _mm_hops(st, c, cv, nd) -
				_mm_hops(st, c, cu, nd);
}

static void _mm_inc_update(_mm_state_t *st, int n, int u, int v)
{
	switch (st->nd) {
	case 1:
		_mm_inc_update_nd(st, n, u, v, 1);
		break;
	case 2:
		_mm_inc_update_nd(st, n, u, v, 2);
		break;
	case 3:
		_mm_inc_update_nd(st, n, u, v, 3);
		break;
	default:
		_mm_inc_update_nd(st, n, u, v, 4);
		break;
	}
}

/*
 * phi[x] = sum over counts cnt[y] of the axis hops from x to y, for every
 * x, in O(L) with prefix sums over the axis unrolled twice.
 */
static void _axis_phi(_mm_state_t *st, const int64_t *cnt, int L, bool torus,
		      int64_t *phi)
{
	int64_t *pc = st->pre, *ps = st->pre + 2 * L + 1;
	int half = L / 2;

	pc[0] = ps[0] = 0;
	for (int j = 0; j < 2 * L; j++) {
		int64_t c = cnt[j % L];

		pc[j + 1] = pc[j] + c;
		ps[j + 1] = ps[j] + c * j;
	}
	for (int x = 0; x < L; x++) {
		if (!torus) {
			/* Left of x: x - y; right of x: y - x. */
			phi[x] = x * pc[x] - ps[x] + (ps[L] - ps[x + 1]) -
				 x * (pc[L] - pc[x + 1]);
			continue;
		}
		/* Forward 1..half hops, then backward for the rest. */
		phi[x] = (ps[x + half + 1] - ps[x + 1]) -
			 x * (pc[x + half + 1] - pc[x + 1]) +
			 (int64_t)(L + x) * (pc[x + L] - pc[x + half + 1]) -
			 (ps[x + L] - ps[x + half + 1]);
	}
}

typedef struct _mm_swap {
	int64_t gain;
	int u, v;
} _mm_swap_t;

/* Keeps swapping u out for v if it gains more than the best so far. */
static void _mm_try(const _mm_state_t *st, int u, int v, _mm_swap_t *sw)
{
	int64_t g = st->inc_d[u] - st->inc_d[v] +
		    _mm_inc_hops(st, u, v);

	if (g > sw->gain) {
		sw->gain = g;
		sw->u = u;
		sw->v = v;
	}
}

/*
 * Improves the set the last walk found (from centre, with cost): free
 * nodes within L1 radius + 1 of the centre are the candidates to swap in.
 * Each round applies the swap that lowers the total most (over every
 * pair that can gain, or, past MM_INC_PAIR_CAP pairs, the worst chosen
 * node against every outsider and the best outsider against every chosen
 * one), until none gains or the swap and work limits are reached. Writes
 * the result to st->nodes; returns its cost.
 */
static int64_t _mm_improve(loc__ctx_t *ctx, _mm_state_t *st, int centre,
			   int64_t cost)
{
	const int *tab[LOC_MAX_DIMS];
	int r = st->radius + 1 > st->maxrad ? st->maxrad : st->radius + 1;
	int n = 0, k = ctx->k, reach = 2 * r;
	uint32_t stamp;

	if (++st->stamp == 0) {
		memset(st->mark, 0, sizeof(uint32_t) * st->nnodes);
		st->stamp = 1;
	}
	stamp = st->stamp;
	_mm_walk_nodes(ctx, st);
	for (int i = 0; i < k; i++)
		st->mark[st->nodes[i]] = stamp;
	/* Chosen nodes and their free neighbourhood, in walk order. */
	_mm_tabs(st, centre, tab);
	for (int i = 0; i < st->rad_end[r]; i++) {
		int pt = _mm_off_point(st, tab, i, st->nd), m;
		const int *pn;

		if (pt < 0 || !st->point_free[pt])
			continue;
		m = loc_grid_point_nodes(ctx->grid, pt, &pn);
		for (int j = 0; j < m; j++) {
			if (!ctx->free[pn[j]])
				continue;
			st->inc_node[n] = pn[j];
			st->inc_pt[n] = pt;
			memcpy(st->inc_c + (size_t)n * st->nd,
			       st->coord + (size_t)pt * st->nd,
			       sizeof(int) * st->nd);
			st->inc_in[n++] = st->mark[pn[j]] == stamp;
		}
	}
	/* Hops from every listed node to the chosen set, per axis. */
	for (int i = 0; i < n; i++)
		st->inc_d[i] = 0;
	for (int d = 0; d < st->nd; d++) {
		int64_t *phi = st->phi + (size_t)d * st->maxlen;

		memset(st->hist, 0, sizeof(int64_t) * st->len[d]);
		for (int i = 0; i < n; i++)
			if (st->inc_in[i])
				st->hist[st->coord[(size_t)st->inc_pt[i] *
						   st->nd + d]]++;
		_axis_phi(st, st->hist, st->len[d], st->torus[d], phi);
		for (int i = 0; i < n; i++)
			st->inc_d[i] += phi[st->coord[(size_t)st->inc_pt[i] *
						      st->nd + d]];
	}
	for (int round = 0;
	     round < MM_INC_MAX_SWAPS &&
	     (round < 8 || (long)round * n < MM_INC_WORK);
	     round++) {
		int64_t max_in = INT64_MIN, min_out = INT64_MAX;
		int nu = 0, nv = 0, top = -1, low = -1;
		_mm_swap_t sw = { .gain = 0, .u = -1, .v = -1 };

		for (int i = 0; i < n; i++) {
			if (st->inc_in[i] && st->inc_d[i] > max_in) {
				max_in = st->inc_d[i];
				top = i;
			} else if (!st->inc_in[i] && st->inc_d[i] < min_out) {
				min_out = st->inc_d[i];
				low = i;
			}
		}
		/* Swapping u out and v in gains D(u) - D(v) + hops(u, v),
		 * and hops(u, v) <= reach. */
		if (low < 0 || max_in - min_out + reach <= 0)
			break;
		for (int i = 0; i < n; i++) {
			if (st->inc_in[i] && st->inc_d[i] > min_out - reach)
				st->inc_u[nu++] = i;
			else if (!st->inc_in[i] &&
				 st->inc_d[i] < max_in + reach)
				st->inc_v[nv++] = i;
		}
		if ((long)nu * nv > MM_INC_PAIR_CAP) {
			/* Too many pairs: the worst chosen node against every
			 * outsider, the best outsider against every chosen. */
			for (int j = 0; j < nv; j++)
				_mm_try(st, top, st->inc_v[j], &sw);
			for (int j = 0; j < nu; j++)
				_mm_try(st, st->inc_u[j], low, &sw);
		} else {
			for (int i = 0; i < nu; i++)
				for (int j = 0; j < nv; j++)
					_mm_try(st, st->inc_u[i], st->inc_v[j],
						&sw);
		}
		if (sw.gain <= 0)
			break;
		cost -= sw.gain;
		st->inc_in[sw.u] = 0;
		st->inc_in[sw.v] = 1;
		_mm_inc_update(st, n, sw.u, sw.v);
	}
	for (int i = 0, m = 0; i < n; i++)
		if (st->inc_in[i])
			st->nodes[m++] = st->inc_node[i];
	return cost;
}

static int _mm_inc_select(loc__ctx_t *ctx)
{
	_mm_state_t *st = ctx->state;
	_mm_pick_t pick[MM_SL_ALTS];
	int a = _sl_enabled(ctx->policy) ? MM_SL_ALTS : 1;
	int n, rc;
	int64_t cost;

	if (ctx->k == ctx->nfree)
		return _mm_offer_all(ctx, st);
	n = _mm_search(ctx, st, false, pick, a);
	if (!n)
		return LOC_ENOFIT;
	_mm_walk(st, pick[0].point, ctx->k);
	cost = _mm_improve(ctx, st, pick[0].point, pick[0].cost);
	rc = loc__offer(ctx, st->nodes, (double)cost);
	if (rc)
		return rc;
	/* SL alternatives: the other good MM sets, unimproved. */
	return _mm_offer_rest(ctx, st, pick, 1, n);
}

const loc__strategy_ops_t loc__st_mm = {
	.name = "mm",
	.select = _mm_select,
	.init = _mm_init,
	.fini = _mm_fini,
};

const loc__strategy_ops_t loc__st_mm_inc = {
	.name = "mm_inc",
	.select = _mm_inc_select,
	.init = _mm_init,
	.fini = _mm_fini,
};

const loc__strategy_ops_t loc__st_genalg = {
	.name = "genalg",
	.select = _genalg_select,
	.init = _mm_init,
	.fini = _mm_fini,
};
