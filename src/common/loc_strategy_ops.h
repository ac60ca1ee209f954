/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_strategy_ops.h - a strategy as the allocator calls it: its select
 * function, optional per-allocator state, and the table of strategies
 * behind the strategy names (loc_policy.c).
 *
 * The core's one dependency loop, kept on purpose: the allocator
 * (loc_alloc.c) calls the strategies through this table and contiguous
 * mode (strategies/st_contiguous.h), and the strategies call back into
 * the allocator, but only through loc_offer.h and loc_free_map.h. A
 * strategy answers with offers so that costs, the SL tie-break and the
 * bitmap views live in the allocator alone. The walltime schemes make no
 * loop: loc_alloc.c uses loc_walltime_sl.h only, and loc_walltime_pf.c
 * uses the allocator's public loc_alloc_select(), which never calls PF.
 */
#ifndef LOC_STRATEGY_OPS_H
#define LOC_STRATEGY_OPS_H

#include <stdbool.h>

#include "loc_ctx.h"
#include "loc_error.h"

/* A strategy: offers placements; returns 0, LOC_ENOFIT (nothing offered,
 * e.g. no box fits) or another LOC_E* code. */
typedef int (*loc__strategy_f)(loc__ctx_t *ctx);

/* Optional per-allocator state: built once at loc_alloc_create(). */
typedef int (*loc__strategy_init_f)(const loc_grid_t *grid,
				    const loc_curve_t *curve,
				    const loc_policy_t *policy, void **state,
				    loc_error_t *err);
typedef void (*loc__strategy_fini_f)(void *state);
/* Optional: drops answers the state keeps to give them again. */
typedef void (*loc__strategy_forget_f)(void *state);

typedef struct loc__strategy_ops {
	const char *name;
	loc__strategy_f select;
	loc__strategy_init_f init; /* may be NULL */
	loc__strategy_fini_f fini; /* may be NULL */
	loc__strategy_forget_f forget; /* may be NULL: keeps no answers */
	bool interval_counts;      /* uses loc__rank_runs() */
} loc__strategy_ops_t;

/* The strategy of kind (valid, below LOC_STRATEGY_COUNT). In loc_policy.c. */
const loc__strategy_ops_t *loc__strategy_ops(loc_strategy_kind_t kind);

/* One ops table per strategy family (strategies/st_*.c). */
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

#endif /* LOC_STRATEGY_OPS_H */
