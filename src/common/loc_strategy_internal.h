/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_strategy_internal.h - what strategy files share with the allocator.
 * Not installed, not used by drivers.
 *
 * A strategy is a function that looks at ctx->free (candidate nodes, with
 * required nodes already taken out) and offers one or more complete
 * placements of ctx->k nodes through loc__offer(), each with a cost (lower
 * is better). The allocator keeps the best offer; with walltime awareness
 * (SL) it keeps every offer within policy->sl_tolerance of the best and
 * lets walltime decide among them. Offer alternatives a strategy considers
 * equally good (e.g. several equally tight intervals or boxes), so SL has
 * something to choose from; offer in a deterministic order.
 */
#ifndef LOC_STRATEGY_INTERNAL_H
#define LOC_STRATEGY_INTERNAL_H

#include "loc_runhist.h"
#include "loc_simd.h"
#include "loc_strategy.h"

typedef struct loc__ctx {
	loc_alloc_t *alloc;
	const loc_grid_t *grid;
	const loc_curve_t *curve;
	const loc_policy_t *policy;
	const loc_view_t *view;
	const uint8_t *free; /* [nnodes] 1 = may be chosen */
	int nfree;           /* number of 1s in free */
	int k;               /* nodes to choose, 1 <= k <= nfree */
	int nnodes;
	int *scratch;        /* [4 * nnodes] ints, free for the strategy */
	void *state;         /* the strategy's own state from its init hook */
	/* Required nodes ([nnodes], 1 = every offer must hold it), or NULL
	 * when there are none. Set in contiguous mode, so it can search only
	 * the intervals that hold them. */
	const uint8_t *must;
	int nmust;
} loc__ctx_t;

/*
 * Offers a placement of ctx->k distinct free nodes (borrowed, any order)
 * with cost. Returns 0 (kept or ignored) or LOC_EINVAL if the set is not
 * k distinct free nodes (a strategy bug, caught in every build).
 */
int loc__offer(loc__ctx_t *ctx, const int *nodes, double cost);

/*
 * Offers the nodes at ranks ranks[(start + j) mod len] for j < ctx->k
 * (ranks NULL: the ranks (start + j) mod len, len the node count) with
 * cost: as writing them into buf (room for k; buf may be ranks when start
 * is 0) and calling loc__offer(), which it does for small offers. Large
 * offers that will be answered from their node bitmap are stamped
 * straight from the ranks, without the list. LOC_EINVAL also for start or
 * len out of range.
 */
int loc__offer_ranks(loc__ctx_t *ctx, const int *ranks, int len, int start,
		     int *buf, double cost);

/*
 * As loc__offer_ranks() for a window of consecutive free ranks: every
 * free rank from the window's first to its last (wrapping past the node
 * count) is one of its k, as when ranks lists all free ranks ascending
 * (or every rank is free, ranks NULL). Large offers that will be answered
 * from their node bitmap are then checked and marked in one pass over the
 * nodes' ranks (loc__bits_of_rank_range()): the free nodes in that range
 * must number k, else LOC_EINVAL.
 */
int loc__offer_window(loc__ctx_t *ctx, const int *ranks, int len, int start,
		      int *buf, double cost);

/*
 * Returns the cost an offer needs to beat to be kept (+inf before the
 * first offer): lets a strategy skip building hopeless placements.
 */
double loc__offer_bound(const loc__ctx_t *ctx);

/*
 * The free map in curve order, one bit per rank: bit r % 64 of word r / 64
 * is set when the node at rank r is in ctx->free. Bits from nnodes on are
 * 0, and a zero word follows the last. The allocator keeps it up to date
 * from one decision to the next (flipping the bits of nodes whose
 * candidacy changed), so it usually costs nothing; otherwise it is built
 * in O(nnodes) on the first request of a decision. Borrowed until the
 * strategy returns. In loc_alloc.c.
 */
const uint64_t *loc__rank_bits(loc__ctx_t *ctx);
/* The same when it is up to date already, else NULL (never builds it). */
const uint64_t *loc__rank_bits_cached(const loc__ctx_t *ctx);

/* A 64-bit hash of ctx->free, a function of the map alone, kept by the
 * allocator as the map changes: O(1). In loc_alloc.c. */
uint64_t loc__map_hash(const loc__ctx_t *ctx);

/* The free interval histogram of ctx->free in rank order, up to date,
 * for a strategy whose ops set interval_counts (else NULL); with ring
 * when every grid dimension is a torus. In loc_alloc.c. */
const loc__runhist_t *loc__rank_runs(loc__ctx_t *ctx);

/* Words of a bitmap of n bits, plus the trailing zero word. */
#define LOC__BITS_WORDS(n) (((n) + 63) / 64 + 1)

/*
 * Word-at-a-time scans of a bitmap (bits as in loc__rank_bits(): a zero
 * word must follow bit `to`'s word). Bits outside [from, to) count as 0.
 * In loc_bits.c, but for the listing (loc__bits_ones(), loc__bits_ones_at())
 * and loc__bits_of_marks(), which are in loc_bits_list.c.
 *
 * loc__bits_ones() writes the positions of the first max set bits,
 * ascending, to pos and returns how many (at most max).
 * loc__bits_runs() writes the first max maximal runs of at least len >= 1
 * set bits, in order, to iv (iv[2i] = start, iv[2i + 1] = end, exclusive)
 * and returns how many: O((to - from) / 64 + runs found).
 * loc__bits_find() returns the first position in [from, to) whose bit is
 * value, or to; loc__bits_rfind() the last one, or from - 1.
 */
int loc__bits_ones(const uint64_t *bits, int from, int to, int *pos, int max);
/* The same with the vector level chosen (tests run every level the CPU
 * runs; loc__bits_ones() takes loc__simd_level()). */
int loc__bits_ones_at(const uint64_t *bits, int from, int to, int *pos,
		      int max, loc_simd_t level);
int loc__bits_runs(const uint64_t *bits, int from, int to, int len, int *iv,
		   int max);
int loc__bits_find(const uint64_t *bits, int from, int to, bool value);
/* False when [from, to) surely holds no run of len >= 64 set bits (no word
 * all ones, no word's leading ones and the next one's trailing ones adding
 * up to len); true otherwise, and always for len < 64. Without a branch
 * per word, unlike the exact search, whose branches a random map
 * mispredicts: 0.65 us instead of 1 us at 32,768 half-free ranks.
 * loc__bits_runs() asks it first. */
bool loc__bits_may_hold_run(const uint64_t *bits, int from, int to,
			    int len);
int loc__bits_rfind(const uint64_t *bits, int from, int to, bool value);
/*
 * Sets bit v of bits (LOC__BITS_WORDS(n) words, the last one zeroed) when
 * marks[v] == mark and free[v] (0/1 bytes) is 1, for v < n, with the
 * vectors of level (at most loc__simd_level()); returns how many are set.
 */
int loc__bits_of_marks(const uint8_t *marks, uint8_t mark,
		       const uint8_t *free, int n, uint64_t *bits,
		       loc_simd_t level);
/*
 * Sets bit v of bits (as above) when free[v] and rank[v] lies in the len
 * ranks from lo, wrapping past n (0 <= lo < n, 0 < len <= n <= 65,536;
 * rank[] a permutation of [0, n), as loc_curve_ranks16()): a window of
 * consecutive free ranks as a node bitmap, in one vector pass over the
 * nodes instead of a step per member. Returns how many are set, or -1
 * having done nothing when level is below AVX2.
 */
int loc__bits_of_rank_range(const uint16_t *rank, int lo, int len,
			    const uint8_t *free, int n, uint64_t *bits,
			    loc_simd_t level);
#if defined(__x86_64__) && defined(__GNUC__)
/* Byte value -> the positions of its set bits, then zeros (in
 * loc_bits_list.c, filled at load): the lane order that packs the chosen
 * lanes of eight to the front. */
extern uint8_t loc__byte_ones[256][8];
#endif

/*
 * The free intervals of at least len ranks (maximal runs of free ranks),
 * in rank order, from loc__rank_bits(). With ring (every dimension a
 * torus) the runs at both ends of the order are one interval, listed last,
 * whose end exceeds nnodes (ranks wrap). Every rank free is the single
 * interval [0, nnodes). Writes at most max intervals to iv as for
 * loc__bits_runs() (room for nnodes + 1 ints covers every case) and
 * returns how many. In loc_bits.c.
 */
int loc__rank_intervals(loc__ctx_t *ctx, bool ring, int len, int *iv,
			int max);
/* The same on any bitmap of n bits (as loc__bits_runs()). */
int loc__bits_intervals(const uint64_t *bits, int n, bool ring, int len,
			int *iv, int max);

/*
 * The free intervals of exactly one rank (a free rank whose neighbours
 * are busy; with ring, ranks 0 and nnodes - 1 are neighbours), in rank
 * order: writes the first max ranks to pos and returns how many. The
 * same as the intervals of length 1 of loc__rank_intervals(), found a
 * word at a time without listing the others: O(nnodes / 64). In
 * loc_bits.c.
 */
int loc__rank_isolated(loc__ctx_t *ctx, bool ring, int *pos, int max);

/* A strategy: offers placements; returns 0, LOC_ENOFIT (nothing offered,
 * e.g. no box fits) or another LOC_E* code. */
typedef int (*loc__strategy_f)(loc__ctx_t *ctx);

/* Optional per-allocator state: built once at loc_alloc_create(). */
typedef int (*loc__strategy_init_f)(const loc_grid_t *grid,
				    const loc_curve_t *curve,
				    const loc_policy_t *policy, void **state,
				    loc_error_t *err);
typedef void (*loc__strategy_fini_f)(void *state);

typedef struct loc__strategy_ops {
	const char *name;
	loc__strategy_f select;
	loc__strategy_init_f init; /* may be NULL */
	loc__strategy_fini_f fini; /* may be NULL */
	bool interval_counts;      /* uses loc__rank_runs() */
} loc__strategy_ops_t;

/* The strategy of kind (valid, below LOC_STRATEGY_COUNT). In loc_policy.c. */
const loc__strategy_ops_t *loc__strategy_ops(loc_strategy_kind_t kind);

/* One ops table per strategy file (st_*.c). */
extern const loc__strategy_ops_t loc__st_freelist;
extern const loc__strategy_ops_t loc__st_firstfit;
extern const loc__strategy_ops_t loc__st_bestfit;
extern const loc__strategy_ops_t loc__st_sumsquares;
extern const loc__strategy_ops_t loc__st_span;
extern const loc__strategy_ops_t loc__st_mm;
extern const loc__strategy_ops_t loc__st_mm_inc;
extern const loc__strategy_ops_t loc__st_genalg;
extern const loc__strategy_ops_t loc__st_mc1x1;
extern const loc__strategy_ops_t loc__st_mbs;
extern const loc__strategy_ops_t loc__st_paging;
extern const loc__strategy_ops_t loc__st_random;
extern const loc__strategy_ops_t loc__st_box;
extern const loc__strategy_ops_t loc__st_pack;

/*
 * Contiguous mode (used for requests with contiguous=true, whatever the
 * strategy): offers unbroken curve intervals whose nodes form one connected
 * component on the grid, then (if none) boxes. In st_contiguous.c.
 */
int loc__contiguous_select(loc__ctx_t *ctx);

/*
 * Box enumeration shared by st_box.c and contiguous mode: offers every
 * axis-aligned sub-box (with wrap on torus dimensions) holding exactly
 * ctx->k nodes, all free, with the least-blocking cost. In st_box.c.
 */
int loc__box_offer_all(loc__ctx_t *ctx);

/*
 * Chebyshev shells (seed 003 MC1x1) over per-point free counts, shared by
 * st_mc1x1.c, st_pack.c and st_mm_rank.c (which ranks candidate medians
 * by shell cost before evaluating the best ones exactly). In st_shells.c
 * (the table itself in st_shells.h).
 * loc__shells_create() returns NULL when out of memory; load() takes
 * point_free[npoints] (borrowed for the call). rank() finds the m points
 * of points[0..n) (distinct) with the least MC1x1 cost of k nodes around
 * them (ties: earlier in points first), writes them best first to
 * best[0..m) and returns how many (min(m, n)); k must not exceed the
 * loaded total. rank_push() keeps the m least (cost, idx) of a stream in
 * the heap h[0..*n) (room for m) and rank_sort() orders them best first,
 * for rankings by other costs.
 */
typedef struct loc__shells loc__shells_t;
typedef struct loc__shell_rank {
	int64_t cost;
	int idx; /* index into points */
} loc__shell_rank_t;
loc__shells_t *loc__shells_create(const loc_grid_t *grid);
void loc__shells_destroy(loc__shells_t *sh);
void loc__shells_load(loc__shells_t *sh, const int *point_free);
int loc__shells_rank(loc__shells_t *sh, const int *points, int n, int k,
		     int m, loc__shell_rank_t *best);
void loc__shells_rank_push(loc__shell_rank_t *h, int *n, int m, int64_t cost,
			   int idx);
void loc__shells_rank_sort(loc__shell_rank_t *h, int n);

/* Returns true when policy's walltime mode includes the SL tie-break
 * (sl, combo, adjest): strategies then offer near-best alternatives. */
bool loc__policy_sl(const loc_policy_t *policy);

/* Returns policy's SL tolerance when SL is on, else 0. */
double loc__policy_sl_tolerance(const loc_policy_t *policy);

/* Deterministic 64-bit PRNG (splitmix64 seeding xoshiro256**). */
typedef struct loc__rng {
	uint64_t s[4];
} loc__rng_t;
void loc__rng_seed(loc__rng_t *rng, uint64_t seed);
uint64_t loc__rng_next(loc__rng_t *rng);
/* Uniform in [0, bound), bound >= 1, without modulo bias. */
uint64_t loc__rng_below(loc__rng_t *rng, uint64_t bound);

#endif /* LOC_STRATEGY_INTERNAL_H */
