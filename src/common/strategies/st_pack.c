/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack.c - "pack": compact placements that keep the free space in
 * compact pieces (this project's own heuristic, no paper).
 *
 * From a centre the set grows greedily by pairwise distance: the next
 * node is the free one with the least sum of hops to the nodes chosen so
 * far, ties broken by the most "closed" sides (grid neighbours that are
 * busy, outside the mesh, or already chosen), then by curve rank. Only
 * the M free nodes nearest the centre (M = 2k + 16, by breadth-first
 * search over grid points) are considered (st_pack_grow.c).
 *
 * Every centre gives one set and its total pairwise hops. Among the sets
 * within PackTolerance (a fraction) of the least total, the winner is the
 * one that adds the least to the perimeter of the free region: the
 * number of its sides facing free nodes left outside it, minus the
 * number facing busy nodes or walls (each of those was a border of the
 * free region and disappears). Then the lower total, then the earlier
 * centre in curve order. With PackTolerance=0 the choice is among exact
 * ties only. Finally improving swaps (a chosen node for a free one)
 * lower the total (st_pack_swap.c).
 *
 * How much of that is searched depends on the work it would take (in
 * units of about one pool node visited, a few nanoseconds):
 * - one node: no pairwise hops, so the rule is the perimeter alone,
 *   answered from an index kept between decisions (st_pack_index.c);
 * - "whole": while (free nodes) x (cost of growing one set) is at most
 *   PACK_EXACT_WORK, every free node is a centre and at most 8
 *   first-found swaps follow: the full rule, exactly as pack always did
 *   (small machines, small requests);
 * - "greedy": beyond, about PACK_GROW_WORK units of growth from centres
 *   chosen three ways, a third each: least MC1x1 shell cost of k nodes
 *   (hops to them shell by shell, as mm ranks its centres: dense free
 *   regions), the most enclosed free nodes (pockets: what the perimeter
 *   rule looks for), and evenly along the curve; for fewer than
 *   PACK_SHELL_MIN_K nodes, half enclosed and half spread;
 * - "star": when that budget would grow fewer than PACK_MIN_CENTRES sets
 *   (large requests), each centre's set is simply its k nearest free
 *   nodes, which costs O(k), for centres mostly ranked by shell cost;
 * - in both bounded modes, swaps in bulk rounds (st_pack_swap.c) for
 *   about PACK_SWAP_WORK units then carry the winning set to a local
 *   optimum or close to it: on large requests they matter more than how
 *   the set was grown.
 * Every choice is deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "loc_offer.h"
#include "loc_strategy_ops.h"
#include "st_pack.h"
#include "st_shells.h"

#define PACK_EXTRA 16               /* M = 2k + PACK_EXTRA */
#define PACK_POOL_COST 8            /* work units to find a pool node */
#define PACK_CENTRE_COST 200        /* ... and per centre, beyond growth */
#define PACK_EXACT_WORK (1L << 20)  /* the whole search up to this */
#define PACK_GROW_WORK (1L << 19)   /* bounded: units growing sets */
#define PACK_SWAP_WORK (5L << 17)   /* bounded: units swapping */
#define PACK_RANK_WORK (1L << 18)   /* bounded: shell table lookups */
#define PACK_MIN_CENTRES 16         /* greedy growth of at least this many */
#define PACK_SHELL_MIN_K 9          /* shell ranking from this many nodes */

/* Perimeter added to the free region by taking set (s->in marks it). */
static long _perimeter_delta(const loc__pack_t *s, const loc__ctx_t *ctx,
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

static void _clear_in(loc__pack_t *s, const int *set, int k)
{
	for (int j = 0; j < k; j++)
		s->in[set[j]] = 0;
}

/* How one decision searches. */
typedef enum pack_mode {
	PACK_WHOLE,  /* every free node a centre, the rule as it always was */
	PACK_GREEDY, /* chosen centres, greedy growth, bounded swaps */
	PACK_STAR,   /* chosen centres, nearest nodes, bounded swaps */
} pack_mode_t;

typedef struct pack_plan {
	pack_mode_t mode;
	int m;          /* pool size for growth and swaps */
	int ncentres;   /* centres to evaluate */
} pack_plan_t;

/* Work units (about a pool visit each) to grow one set greedily: the
 * pool search, then k steps over the nodes left. */
static double _greedy_cost(int k, int m)
{
	return PACK_CENTRE_COST + (double)PACK_POOL_COST * m +
	       (double)k * (m - k / 2.0);
}

/* ... to take the k nodes nearest a centre and cost them. */
static double _star_cost(int k)
{
	return PACK_CENTRE_COST + 5.0 * PACK_POOL_COST * k;
}

static pack_plan_t _plan(const loc__ctx_t *ctx, int nf)
{
	int k = ctx->k;
	pack_plan_t pl = { .m = 2 * k + PACK_EXTRA < nf ? 2 * k + PACK_EXTRA :
							  nf };
	double g = _greedy_cost(k, pl.m), c;

	if (nf * g <= PACK_EXACT_WORK) {
		pl.mode = PACK_WHOLE;
		pl.ncentres = nf;
		return pl;
	}
	/* Greedy growth while it leaves room for enough centres; beyond,
	 * many cheap sets and the swaps do better than a few grown ones. */
	pl.mode = PACK_GREEDY;
	c = PACK_GROW_WORK / g;
	if (c < PACK_MIN_CENTRES) {
		pl.mode = PACK_STAR;
		c = PACK_GROW_WORK / _star_cost(k);
	}
	pl.ncentres = c < 1 ? 1 : c > nf ? nf : (int)c;
	return pl;
}

static int _cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* Shell radius that holds k nodes at the mean free density. */
static int _shell_radius(const loc__pack_t *s, int k, int nf)
{
	double need = (double)k * s->np / nf;
	int rad = 0;

	for (;;) {
		double vol = 1;

		for (int d = 0; d < s->nd; d++)
			vol *= 2 * rad + 1;
		if (vol >= need)
			return rad;
		rad++;
	}
}

/*
 * Bounded modes: writes to centres (as curve ranks, ascending) up to want
 * free nodes, one per point with free nodes (its first in curve order).
 * When there are more such points: `ranked` of them with the least MC1x1
 * shell cost of k nodes (dense free regions: a good guide for larger
 * requests), then up to `enclosed` of the most enclosed free nodes (small
 * requests: the pockets the perimeter rule prefers, which the shells do
 * not see), the rest evenly along the curve. freel: the free nodes in
 * curve order. Returns how many.
 */
static int _centres(loc__pack_t *s, const loc__ctx_t *ctx, const int *freel,
		    int nf, int want, int ranked, int enclosed, int *centres)
{
	int st = loc__pack_stamp(s), ncand = 0, n = 0, step;

	/* s->pmark doubles as a point stamp, s->rest as the points'
	 * centre nodes. */
	memset(s->point_free, 0, sizeof(int) * s->np);
	for (int i = 0; i < nf; i++) {
		int p = s->node_pt[freel[i]];

		s->point_free[p]++;
		if (s->pmark[p] != st) {
			s->pmark[p] = st;
			s->rest[ncand] = freel[i];
			s->cand[ncand++] = p;
		}
	}
	if (ncand <= want) {
		for (int i = 0; i < ncand; i++)
			centres[n++] = s->ranks[s->rest[i]];
		qsort(centres, n, sizeof(int), _cmp_int);
		return n;
	}
	st = loc__pack_stamp(s);
	if (s->sh && ranked > 0) {
		long lookups = (long)ncand * (_shell_radius(s, ctx->k, nf) + 1)
			       << s->nd;
		int *thin = s->set, nthin = 0, m;

		/* Rank every step-th candidate along the curve within the
		 * lookup budget: curve neighbours are grid neighbours. */
		step = lookups > PACK_RANK_WORK ?
			       (int)(lookups / PACK_RANK_WORK) + 1 : 1;
		for (int i = 0; i < ncand; i += step)
			thin[nthin++] = i;
		for (int i = 0; i < nthin; i++)
			s->queue[i] = s->cand[thin[i]];
		loc__shells_load(s->sh, s->point_free);
		m = loc__shells_rank(s->sh, s->queue, nthin, ctx->k, ranked,
				     s->rank);
		for (int i = 0; i < m; i++) {
			int c = thin[s->rank[i].idx];

			s->pmark[s->cand[c]] = st;
			centres[n++] = s->ranks[s->rest[c]];
		}
	}
	if (enclosed > 0) {
		int *er = s->kept, ne;

		/* Scratch: the kept sets come later. */
		ne = loc__pack_enclosed(s, enclosed, er);
		for (int i = 0; i < ne && n < want; i++) {
			int p = s->node_pt[s->order[er[i]]];

			if (s->pmark[p] != st) {
				s->pmark[p] = st;
				centres[n++] = er[i];
			}
		}
	}
	/* The rest of the budget evenly along the curve. */
	if (n < want) {
		step = (ncand + (want - n) - 1) / (want - n);
		for (int i = 0; i < ncand && n < want; i += step)
			if (s->pmark[s->cand[i]] != st)
				centres[n++] = s->ranks[s->rest[i]];
	}
	qsort(centres, n, sizeof(int), _cmp_int);
	return n;
}

/* Grows (or, in star mode, takes) the set from centre c into s->set,
 * marked in s->in; returns its total or -1. freel: the nf free nodes.
 * same_set: may return LOC__PACK_GROWN_BEFORE when an earlier centre
 * of this decision grows the same set (loc__pack_grow()). */
static int64_t _grow_from(loc__pack_t *s, const loc__ctx_t *ctx, int c,
			  const pack_plan_t *pl, const int *freel, int nf,
			  bool same_set)
{
	int nl;

	if (pl->mode == PACK_STAR) {
		nl = loc__pack_pool(s, ctx, c, ctx->k);
		return loc__pack_take_pool(s, ctx, nl);
	}
	/* A pool of every free node needs no search (a busy machine, a
	 * large request: the search would visit every point). */
	if (pl->m >= nf) {
		nl = loc__pack_pool_all(s, ctx, c, freel, nf);
		return loc__pack_grow(s, ctx, nl, same_set);
	}
	nl = loc__pack_pool(s, ctx, c, pl->m);
	return loc__pack_grow(s, ctx, nl, false);
}

static int _pack_select(loc__ctx_t *ctx)
{
	loc__pack_t *s = ctx->state;
	const int *order = s->order;
	int k = ctx->k, nf, nc, *freel = ctx->scratch, *centre;
	int64_t best_total = -1, limit = -1, *tot;
	long *delta, best_delta = 0, nkept = 0;
	int win = -1, *at;
	double tol = ctx->policy->pack_tolerance;
	pack_plan_t pl;
	const uint64_t *bits;
	const uint8_t *known;
	int64_t q[LOC__MEMO_PARAMS] = { k }; /* k, PackTolerance's bits */
	size_t len;
	uint64_t hash;
	int rc;

	if (k == 1) {
		int v;

		rc = loc__pack_one(s, ctx, &v);
		return rc ? rc : loc__offer(ctx, &v, 0);
	}
	/* A question asked lately (the replay's reservations repeat
	 * them): its answer again, without the search. */
	bits = loc__rank_bits(ctx);
	hash = loc__map_hash(ctx);
	memcpy(&q[1], &tol, sizeof(tol));
	known = loc__memo_find(s->memo, hash, bits, q, &len);
	if (known) {
		memcpy(&best_total, known, sizeof(best_total));
		memcpy(s->best, known + sizeof(best_total),
		       len - sizeof(best_total));
		return loc__offer(ctx, s->best, (double)best_total);
	}
	loc__pack_index_sync(s, ctx);
	/* Free nodes in curve order (ranks first, then nodes). */
	nf = loc__bits_ones(bits, 0, ctx->nnodes, freel, ctx->nnodes);
	for (int i = 0; i < nf; i++)
		freel[i] = order[freel[i]];
	if (nf < k)
		return LOC_ENOFIT;
	pl = _plan(ctx, nf);

	centre = ctx->scratch + ctx->nnodes;
	if (pl.mode == PACK_WHOLE) {
		nc = nf;
		memcpy(centre, freel, sizeof(int) * nf);
	} else {
		/* Star (large requests, where the shells guide well):
		 * three quarters ranked by them. Greedy: a third ranked,
		 * a third enclosed, a third spread; below PACK_SHELL_MIN_K
		 * nodes the shells see nothing the other two do not (any
		 * dense spot holds the set): half enclosed, half spread. */
		int ranked = pl.ncentres / 3, enclosed = pl.ncentres / 3;

		if (pl.mode == PACK_STAR) {
			ranked = pl.ncentres * 3 / 4;
			enclosed = 0;
		} else if (k < PACK_SHELL_MIN_K) {
			ranked = 0;
			enclosed = pl.ncentres / 2;
		}
		nc = _centres(s, ctx, freel, nf, pl.ncentres, ranked, enclosed,
			      centre);
		for (int i = 0; i < nc; i++)
			centre[i] = order[centre[i]];
	}
	tot = malloc(sizeof(int64_t) * nc);
	delta = malloc(sizeof(long) * nc);
	at = malloc(sizeof(int) * nc);
	if (!tot || !delta || !at) {
		free(tot);
		free(delta);
		free(at);
		return LOC_ENOMEM;
	}
	/* Each centre's total. The perimeter is needed only while the
	 * total is within the tolerance of the least so far (the least can
	 * only fall); those sets are kept while there is room, else the
	 * winner is grown again. */
	loc__pack_new_decision(s);
	for (int i = 0; i < nc; i++) {
		at[i] = -1;
		tot[i] = _grow_from(s, ctx, centre[i], &pl, freel, nf, true);
		if (tot[i] == LOC__PACK_GROWN_BEFORE) {
			/* The earlier centre's set, total and perimeter: it
			 * wins every tie with this one. */
			_clear_in(s, s->set, 2);
			tot[i] = -1;
			continue;
		}
		if (tot[i] < 0)
			continue;
		if (best_total < 0 || tot[i] < best_total) {
			best_total = tot[i];
			limit = best_total +
				(int64_t)(tol * (double)best_total + 1e-9);
		}
		if (tot[i] <= limit) {
			delta[i] = _perimeter_delta(s, ctx, s->set, k);
			if (nkept + k <= 2L * s->n) {
				at[i] = (int)nkept;
				memcpy(s->kept + nkept, s->set, sizeof(int) * k);
				nkept += k;
			}
		}
		_clear_in(s, s->set, k);
	}
	if (best_total < 0) {
		free(tot);
		free(delta);
		free(at);
		return LOC_ENOFIT;
	}
	for (int i = 0; i < nc; i++) {
		if (tot[i] < 0 || tot[i] > limit)
			continue;
		if (win < 0 || delta[i] < best_delta ||
		    (delta[i] == best_delta && tot[i] < tot[win])) {
			win = i;
			best_delta = delta[i];
		}
	}
	best_total = tot[win];
	if (at[win] >= 0) {
		memcpy(s->best, s->kept + at[win], sizeof(int) * k);
	} else {
		_grow_from(s, ctx, centre[win], &pl, freel, nf, false);
		_clear_in(s, s->set, k);
		memcpy(s->best, s->set, sizeof(int) * k);
	}
	free(at);
	free(tot);
	free(delta);
	for (int j = 0; j < k; j++)
		s->in[s->best[j]] = 1;

	best_total = loc__pack_swap(s, ctx, best_total, pl.m,
				    pl.mode == PACK_WHOLE,
				    PACK_SWAP_WORK);
	_clear_in(s, s->best, k);
	if (s->memo) {
		memcpy(s->memo_answer, &best_total, sizeof(best_total));
		memcpy(s->memo_answer + sizeof(best_total), s->best,
		       sizeof(int) * (size_t)k);
		loc__memo_store(s->memo, hash, bits, q, s->memo_answer,
				sizeof(best_total) + sizeof(int) * (size_t)k);
	}
	return loc__offer(ctx, s->best, (double)best_total);
}

static void _pack_forget(void *p)
{
	loc__pack_t *s = p;

	loc__memo_clear(s->memo);
}

const loc__strategy_ops_t loc__st_pack = {
	.name = "pack",
	.select = _pack_select,
	.init = loc__pack_create,
	.fini = loc__pack_destroy,
	.forget = _pack_forget,
};
