/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack.h - what the files of the pack strategy (this project's own
 * heuristic) share: the per-allocator state and the steps of a decision.
 * Not installed, not used by drivers.
 *
 *   st_pack.c        one decision: how it searches, centres, the winner
 *   st_pack_state.c  the per-allocator state, built once
 *   st_pack_grow.c   the free nodes nearest a centre, greedy growth
 *   st_pack_swap.c   improving swaps on the winning set
 *   st_pack_index.c  busy neighbours and one-node answers, kept between
 *                    decisions
 * Its last answers are kept in a memo (st_memo.h), as mm's are.
 */
#ifndef LOC_ST_PACK_H
#define LOC_ST_PACK_H

#include "loc_ctx.h"
#include "st_memo.h"
#include "st_shells.h"

/* A swap candidate: its (signed) sum of hops to the set and its pool
 * position; ordered by sum, then position. */
typedef struct loc__pack_key {
	int64_t sum;
	int pos;
} loc__pack_key_t;

typedef struct loc__pack_index loc__pack_index_t;

typedef struct loc__pack {
	int n, np, nd;
	int len[LOC_MAX_DIMS];
	int diameter;
	const loc_grid_t *grid;
	const int *order, *ranks; /* curve (borrowed) */
	int *nb_off, *nb;         /* node -> neighbouring nodes (CSR) */
	int *walls;               /* node -> missing grid sides */
	int *pnb_off, *pnb;       /* point -> neighbouring points (CSR) */
	int *node_pt;             /* node -> point */
	int *pt_off, *pt_nodes;   /* point -> its nodes (CSR, ascending) */
	int *coord;               /* [np * nd] point coordinates */
	int *hop;                 /* per axis [2L - 1]: hops of a - b */
	int hop_at[LOC_MAX_DIMS]; /* where delta 0 is in s->hop */
	int64_t *f;               /* per axis [L]: hops from coordinate c to
				   * the current set along that axis */
	int f_at[LOC_MAX_DIMS];
	int maxlen;
	int64_t *axis_tmp;        /* [maxlen + 2 * (3 * maxlen + 1)] */
	int *sort_tmp;            /* [n] one axis of a set's coordinates */

	/* The pool: the free nodes nearest a centre, in search order. */
	int *pmark;               /* [np] search stamp per point */
	int *queue;               /* [np] */
	int *imark;               /* [n] stamp: node is in the pool */
	int *idx;                 /* [n] node -> pool position */
	int stamp;
	int *pool;                /* [n] pool nodes */
	int *pool_c;              /* [n * nd] their coordinates */
	int *closed;              /* [n] closed sides of each pool node */
	int *rest;                /* [n] pool positions not chosen yet */
	int *rest_c;              /* [nd * n] their coordinates, by axis */
	uint8_t *pt_hops;         /* [np * np] hops between points, when
				   * small enough (NULL: per-axis tables) */
	int *rest_pt;             /* [n] with pt_hops: the points of s->rest */
	int64_t *sum;             /* [n] hops to the set: of each node in
				   * s->rest while growing, of each pool
				   * node while swapping */
	loc__pack_key_t *keys;    /* [n] swap candidates */
	uint8_t *in;              /* [n] node chosen */
	uint8_t *pin;             /* [n] pool position chosen (swaps) */

	int *set;                 /* [n] the set being grown */
	int *best;                /* [n] the winning set */
	int *kept;                /* [2n] sets of evaluated centres, when
				   * they fit (saves regrowing the winner) */

	/* Centres on large machines. */
	loc__shells_t *sh;        /* NULL: too large, centres are spread */
	int *point_free;          /* [np] free nodes per point */
	int *cand;                /* [np] candidate centre points */
	loc__shell_rank_t *rank;  /* [np] */

	loc__pack_index_t *index; /* kept between decisions, built on first
				   * use (st_pack_index.c) */
	bool index_failed;        /* ... could not be: count instead */
	const int *busy;          /* [n] busy neighbours of each node, from
				   * the index (NULL without it) */
	loc__memo_t *memo;        /* the last answers (st_memo.h); NULL:
				   * none kept */
	uint8_t *memo_answer;     /* [8 + 4n] an answer as kept: its total,
				   * then its set */
	int *first_pick;          /* [n] a centre's second node, in this
				   * decision (where first_mark is current) */
	int *first_mark;          /* [n] first_pick's stamp per centre */
	int first_stamp;
} loc__pack_t;

/* ---- st_pack_state.c ----------------------------------------------- */

/* The strategy's init and fini (loc__strategy_ops_t): every table and
 * scratch array a decision uses, for this grid and curve. */
int loc__pack_create(const loc_grid_t *grid, const loc_curve_t *curve,
		     const loc_policy_t *policy, void **state,
		     loc_error_t *err);
void loc__pack_destroy(void *state);

/* ---- st_pack_grow.c ------------------------------------------------ */

/* Returns a fresh stamp for s->pmark and s->imark (clearing them when
 * the counter wraps). */
int loc__pack_stamp(loc__pack_t *s);

/*
 * Collects the m free nodes nearest node c (breadth-first over points,
 * c first) into the pool with their coordinates, closed sides and no
 * node chosen. Returns how many (< m when fewer are free).
 */
int loc__pack_pool(loc__pack_t *s, const loc__ctx_t *ctx, int c, int m);

/*
 * The pool of every free node (freel[0..nf), c among them), c first and
 * the others in freel's order: what loc__pack_pool() collects when m >=
 * nf, in O(nf) instead of a search over every point. Only for growth,
 * whose choice does not depend on the pool's order (its next node is
 * the least by sum, closed sides and rank: a total order); the swaps and
 * star mode read the search order. Returns nf.
 */
int loc__pack_pool_all(loc__pack_t *s, const loc__ctx_t *ctx, int c,
		       const int *freel, int nf);

/* loc__pack_grow(): the set would be an earlier centre's. */
#define LOC__PACK_GROWN_BEFORE (-2)

/*
 * Grows a set of ctx->k nodes from pool position 0 (the centre) into
 * s->set, marking them in s->in: one node at a time, the next being the
 * least (sum of hops to the set, -closed sides, curve rank). Needs the
 * pool (loc__pack_pool). Returns the set's total pairwise hops, or -1
 * when the pool holds fewer than k nodes (nothing chosen then).
 *
 * same_pool: every centre of this decision grows in the same pool (of
 * every free node), so growth is a function of the nodes taken so far.
 * Centre c's second node y is then noted, and when y was grown from
 * before and took c second, both grow the same set from there on:
 * returns LOC__PACK_GROWN_BEFORE with only s->set[0..2) taken (marked
 * in s->in). loc__pack_new_decision() starts the notes afresh.
 */
int64_t loc__pack_grow(loc__pack_t *s, const loc__ctx_t *ctx, int nl,
		       bool same_pool);

/* Forgets the centres' second nodes noted by loc__pack_grow(). */
void loc__pack_new_decision(loc__pack_t *s);

/* Takes the first ctx->k pool nodes (the nearest the centre) as the set,
 * like loc__pack_grow(). Returns its total, or -1 (pool too small). */
int64_t loc__pack_take_pool(loc__pack_t *s, const loc__ctx_t *ctx, int nl);

/* Returns the total pairwise hops of set[0..k), axis by axis: O(k + L)
 * per axis of length L from coordinate counts, or O(k log k) from sorted
 * coordinates when the axes are much longer than k. May overwrite s->f. */
int64_t loc__pack_set_total(loc__pack_t *s, const int *set, int k);

/* Sets s->f to the per-axis hops from every coordinate to set[0..k):
 * O(k + L) per axis of length L. Returns nothing. */
void loc__pack_f_build(loc__pack_t *s, const int *set, int k);

/* Returns the hops from the coordinates c (nd ints) to the set of s->f. */
static inline int64_t loc__pack_f_sum(const loc__pack_t *s, const int *c)
{
	int64_t t = 0;

	for (int d = 0; d < s->nd; d++)
		t += s->f[s->f_at[d] + c[d]];
	return t;
}

/* Returns the hops between pool positions i and j. */
static inline int loc__pack_pool_hops(const loc__pack_t *s, int i, int j)
{
	const int *a = s->pool_c + (size_t)i * s->nd;
	const int *b = s->pool_c + (size_t)j * s->nd;
	int h = 0;

	for (int d = 0; d < s->nd; d++)
		h += s->hop[s->hop_at[d] + a[d] - b[d]];
	return h;
}

/* ---- st_pack_swap.c ------------------------------------------------ */

/*
 * Improving swaps on s->best (k nodes, marked in s->in, s->best[0] the
 * centre the set came from, its other nodes among the m nearest it) of
 * the given total: a chosen node for a free node among the m + k nearest
 * the centre. exact: at most 8 swaps, each the first that gains in (set
 * position, pool order), as pack always did. Otherwise bulk rounds (see
 * st_pack_swap.c) until nothing gains, a round gains little, or about
 * `work` units are spent. Returns the new total (s->best and s->in
 * updated, s->best in pool order when not exact).
 */
int64_t loc__pack_swap(loc__pack_t *s, const loc__ctx_t *ctx, int64_t total,
		       int m, bool exact, long work);

/* ---- st_pack_index.c ----------------------------------------------- */

/*
 * Brings the index up to date with ctx->free and points s->busy at its
 * busy-neighbour counts (NULL when the index could not be allocated).
 * Returns 0.
 */
int loc__pack_index_sync(loc__pack_t *s, loc__ctx_t *ctx);

/*
 * One-node requests: the free node that adds the least to the free
 * region's perimeter (free neighbours minus busy neighbours and walls),
 * then the lowest curve rank; exactly what the general search chooses
 * for k = 1, in O(nnodes / 64 + changes) instead of O(free nodes).
 * Writes the node to *node; returns 0, or LOC_ENOFIT (nothing free).
 */
int loc__pack_one(loc__pack_t *s, loc__ctx_t *ctx, int *node);

/*
 * Writes to ranks the curve ranks of up to want free nodes that have a
 * free neighbour, the most enclosed first (least free neighbours minus
 * busy ones and walls; then curve order): where pockets of free nodes
 * are. Needs a synced index. Returns how many (0 without the index).
 */
int loc__pack_enclosed(const loc__pack_t *s, int want, int *ranks);

/* Frees the index; accepts NULL. */
void loc__pack_index_destroy(loc__pack_index_t *index);

#endif /* LOC_ST_PACK_H */
