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
 *
 * One node (k = 1) costs 0 around every free point, so the search keeps
 * the free points in the order it evaluates them (point order) and each
 * offers the lowest free node of its point; mm_inc finds no swap that
 * gains. The short path returns the same: the first free points in point
 * order, found by a scan that stops there (word at a time over the free
 * map when nodes are numbered row-major) instead of O(nnodes) set-up.
 *
 * This file holds the entry points, the state and the search over the
 * ranked centres; st_mm.h lists the other files of the family.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_policy_internal.h"
#include "loc_strategy_ops.h"
#include "st_memo.h"
#include "st_mm.h"
#include "st_shells.h"

#define MM_SL_ALTS 8               /* distinct sets offered with SL */

typedef struct _mm_pick {
	int64_t cost;
	uint64_t hash;
	int point;
} _mm_pick_t;

/* ---- setup ---------------------------------------------------------- */

static void _mm_fini(void *state)
{
	loc__mm_t *st = state;

	if (!st)
		return;
	loc__shells_destroy(st->sh);
	loc__memo_destroy(st->memo);
	free(st->coord);
	free(st->tab);
	free(st->off);
	free(st->off_l1);
	free(st->rad_end);
	free(st->point_free);
	free(st->pf8);
	free(st->pad);
	free(st->pad_delta);
	free(st->axis_has);
	free(st->cand);
	free(st->eval);
	free(st->rank);
	free(st->star_hist);
	free(st->ent_pt);
	free(st->ent_off);
	free(st->ent_take);
	free(st->hist);
	free(st->whist);
	free(st->nodes);
	free(st->mark);
	free(st->thin);
	free(st->block_seen);
	free(st->inc_node);
	free(st->inc_pt);
	free(st->inc_c);
	free(st->inc_x);
	free(st->inc_row);
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
	loc__mm_t *st;
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
	st->npp = shape->nodes_per_point;
	st->rowmajor = true;
	for (int v = 0; v < st->nnodes && st->rowmajor; v++)
		st->rowmajor = loc_grid_node_point(grid, v) == v / st->npp;
	for (int d = st->nd - 1, ps = 1; d >= 0; d--) {
		st->len[d] = shape->dims[d];
		st->torus[d] = shape->torus[d] && shape->dims[d] > 1;
		st->pstride[d] = ps;
		ps *= st->len[d];
		if (st->len[d] > st->maxlen)
			st->maxlen = st->len[d];
	}
	st->simd = loc__simd_level();
	{
		/* The most pairs a vector sum sees, each at most npp^2
		 * node pairs at most hopmax apart. */
		int64_t pairs = MM_VECTOR_PAIRS * (MM_VECTOR_PAIRS - 1) / 2;
		int64_t hopmax = 0;

		for (int d = 0; d < st->nd; d++)
			hopmax += st->torus[d] ? st->len[d] / 2 :
						 st->len[d] - 1;
		st->pairs32 = pairs * st->npp * st->npp * hopmax <= INT32_MAX;
	}
	if (loc__mm_build_offsets(st) == LOC_ERANGE) {
		_mm_fini(st);
		return loc_error_set(err, LOC_ERANGE, NULL, 0,
				     "grid too large for mm/genalg: more than %ld offsets",
				     MM_MAX_OFFSETS);
	}
	if (!st->off || !st->rad_end || loc__mm_build_tables(st))
		goto nomem;
	st->coord = malloc(sizeof(int) * np * st->nd);
	st->sh = loc__shells_create(grid);
	st->point_free = calloc(np + 1, sizeof(int));
	if (st->npp <= UINT8_MAX && loc__mm_build_pad(st))
		goto nomem;
	st->axis_has = malloc((size_t)st->nd * st->maxlen);
	st->cand = malloc(sizeof(int) * np);
	st->eval = malloc(sizeof(int) * np);
	st->rank = malloc(sizeof(loc__shell_rank_t) * np);
	st->star_hist = malloc(sizeof(uint32_t) * MM_STAR_HIST);
	st->star_hist_len = MM_STAR_HIST;
	st->ent_pt = malloc(sizeof(int) * nn);
	st->ent_off = malloc(sizeof(int) * (nn + MM_WALK_SLACK));
	st->ent_take = malloc(sizeof(int) * (nn + MM_WALK_SLACK));
	st->hist = malloc(sizeof(int64_t) * st->maxrange);
	st->whist = malloc(sizeof(int64_t) * (2 * st->nd + 1) * st->maxrange);
	st->nodes = malloc(sizeof(int) * nn);
	st->mark = calloc(nn, sizeof(uint32_t));
	st->thin = malloc(sizeof(int) * np);
	st->block_seen = calloc(np, sizeof(uint32_t));
	st->inc_node = malloc(sizeof(int) * nn);
	st->inc_pt = malloc(sizeof(int) * nn);
	st->inc_c = malloc(sizeof(int) * nn * st->nd);
	st->inc_x = malloc(sizeof(int) * nn * st->nd);
	st->inc_row = malloc(sizeof(int) * 3 * st->nd * st->maxlen);
	st->inc_in = malloc(nn);
	st->inc_d = malloc(sizeof(int64_t) * nn);
	st->inc_u = malloc(sizeof(int) * nn);
	st->inc_v = malloc(sizeof(int) * nn);
	st->phi = malloc(sizeof(int64_t) * st->nd * st->maxlen);
	st->pre = malloc(sizeof(int64_t) * 2 * (2 * st->maxlen + 1));
	if (!st->coord || !st->sh || !st->point_free || !st->axis_has ||
	    !st->cand || !st->eval || !st->rank || !st->star_hist ||
	    !st->ent_pt || !st->ent_off || !st->ent_take || !st->hist ||
	    !st->whist || !st->nodes || !st->thin || !st->block_seen ||
	    !st->mark || !st->inc_node || !st->inc_pt || !st->inc_c ||
	    !st->inc_x || !st->inc_row || !st->inc_in || !st->inc_d ||
	    !st->inc_u || !st->inc_v || !st->phi || !st->pre)
		goto nomem;
	for (int d = 0, at = 0; d < st->nd; d++) {
		st->row_at[d] = at;
		at += st->len[d];
	}
	for (size_t p = 0; p < np; p++) {
		loc_coord_t c;

		loc_grid_point_coord(grid, (int)p, &c);
		for (int d = 0; d < st->nd; d++)
			st->coord[p * st->nd + d] = c.c[d];
	}
	/* NULL: out of memory, every question is searched afresh. */
	st->memo = loc__memo_create(st->nnodes);
	*state = st;
	return 0;
nomem:
	_mm_fini(st);
	return loc_error_set(err, LOC_ENOMEM, NULL, 0,
			     "out of memory for the mm offset tables");
}

/* ---- the search ----------------------------------------------------- */

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

/*
 * Evaluates the ranked centres exactly; pick[] receives the best distinct
 * sets (first evaluated wins ties). Returns how many. The picks are a
 * function of the free map, k, a and the family member alone, so the
 * memo answers a repeated question (EASY's reservations ask many); the
 * candidates are listed either way, as the walks that offer the picks
 * read the free counts they load.
 */
static int _mm_search(loc__ctx_t *ctx, loc__mm_t *st, bool genalg,
		      _mm_pick_t *pick, int a)
{
	int ncand = loc__mm_candidates(ctx, st, genalg), m, npick = 0;
	const int64_t q[LOC__MEMO_PARAMS] = { ctx->k, a, genalg, 0 };
	const uint64_t *bits = NULL;
	uint64_t hash = 0;
	const void *known;
	size_t len;

	if (!ncand)
		return 0;
	if (st->memo) {
		bits = loc__rank_bits(ctx);
		hash = loc__map_hash(ctx);
		known = loc__memo_find(st->memo, hash, bits, q, &len);
		if (known) {
			memcpy(pick, known, len);
			return (int)(len / sizeof(*pick));
		}
	}
	m = loc__mm_rank(ctx, st, ncand);
	for (int i = 0; i < m; i++) {
		int64_t cost;

		/* Nothing beats a set of k nodes sharing points. */
		if (npick == a && pick[a - 1].cost == 0)
			break;
		loc__mm_walk(st, st->eval[i], ctx->k);
		cost = loc__mm_walk_cost(st);
		if (npick == a && cost >= pick[a - 1].cost)
			continue;
		_mm_keep(pick, &npick, a, cost,
			 a > 1 ? loc__mm_walk_hash(st) : 0, st->eval[i]);
	}
	loc__memo_store(st->memo, hash, bits, q, pick,
			sizeof(*pick) * (size_t)npick);
	return npick;
}

/* Offers pick[from..n) that can still matter. */
static int _mm_offer_rest(loc__ctx_t *ctx, loc__mm_t *st,
			  const _mm_pick_t *pick, int from, int n)
{
	for (int i = from; i < n; i++) {
		int rc;

		if (!((double)pick[i].cost < loc__offer_bound(ctx)))
			continue;
		loc__mm_walk(st, pick[i].point, ctx->k);
		loc__mm_walk_nodes(ctx, st);
		rc = loc__offer(ctx, st->nodes, (double)pick[i].cost);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * k = 1: what the search keeps is the first a points holding a free node,
 * in point order, each with cost 0; offers the lowest free node of each.
 */
static int _mm_offer_one(loc__ctx_t *ctx, loc__mm_t *st, int a)
{
	int node[MM_SL_ALTS], n = 0;

	/* Unused here, but asking keeps the allocator's free map on its
	 * O(changes) update path for the next decision. */
	(void)loc__rank_bits(ctx);
	if (st->rowmajor) {
		for (int v = loc__one_next_free(ctx->free, 0, ctx->nnodes);
		     v < ctx->nnodes && n < a;
		     v = loc__one_next_free(ctx->free, (v / st->npp + 1) * st->npp,
				       ctx->nnodes))
			node[n++] = v;
	} else {
		for (int p = 0; p < st->npoints && n < a; p++) {
			const int *pn;
			int m = loc_grid_point_nodes(ctx->grid, p, &pn);

			for (int j = 0; j < m; j++)
				if (ctx->free[pn[j]]) {
					node[n++] = pn[j];
					break;
				}
		}
	}
	if (!n)
		return LOC_ENOFIT;
	for (int i = 0; i < n; i++) {
		int rc;

		if (!(0.0 < loc__offer_bound(ctx)))
			continue;
		rc = loc__offer(ctx, &node[i], 0.0);
		if (rc)
			return rc;
	}
	return 0;
}

/* k = nfree leaves one choice: every free node. */
static int _mm_offer_all(loc__ctx_t *ctx, loc__mm_t *st)
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
		total += loc__mm_axis_pairs(st->hist, st->len[d],
					    st->torus[d] ? st->len[d] : 0);
	}
	return loc__offer(ctx, st->nodes, (double)total);
}

static int _mm_select_common(loc__ctx_t *ctx, bool genalg)
{
	loc__mm_t *st = ctx->state;
	_mm_pick_t pick[MM_SL_ALTS];
	int a = loc_policy_sl(ctx->policy) ? MM_SL_ALTS : 1, n;

	if (ctx->k == 1 && loc__fast_one)
		return _mm_offer_one(ctx, st, a);
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

/* ---- mm_inc --------------------------------------------------------- */

static int _mm_inc_select(loc__ctx_t *ctx)
{
	loc__mm_t *st = ctx->state;
	_mm_pick_t pick[MM_SL_ALTS];
	int a = loc_policy_sl(ctx->policy) ? MM_SL_ALTS : 1;
	int n, rc;
	int64_t cost;

	/* One node: no swap gains, the MM answer stands. */
	if (ctx->k == 1 && loc__fast_one)
		return _mm_offer_one(ctx, st, a);
	if (ctx->k == ctx->nfree)
		return _mm_offer_all(ctx, st);
	n = _mm_search(ctx, st, false, pick, a);
	if (!n)
		return LOC_ENOFIT;
	loc__mm_walk(st, pick[0].point, ctx->k);
	cost = loc__mm_improve(ctx, st, pick[0].point, pick[0].cost);
	rc = loc__offer(ctx, st->nodes, (double)cost);
	if (rc)
		return rc;
	/* SL alternatives: the other good MM sets, unimproved. */
	return _mm_offer_rest(ctx, st, pick, 1, n);
}

static void _mm_forget(void *state)
{
	loc__memo_clear(((loc__mm_t *)state)->memo);
}

const loc__strategy_ops_t loc__st_mm = {
	.name = "mm",
	.select = _mm_select,
	.init = _mm_init,
	.fini = _mm_fini,
	.forget = _mm_forget,
};

const loc__strategy_ops_t loc__st_mm_inc = {
	.name = "mm_inc",
	.select = _mm_inc_select,
	.init = _mm_init,
	.fini = _mm_fini,
	.forget = _mm_forget,
};

const loc__strategy_ops_t loc__st_genalg = {
	.name = "genalg",
	.select = _genalg_select,
	.init = _mm_init,
	.fini = _mm_fini,
	.forget = _mm_forget,
};
