/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_strategy.h - the allocator: choose k nodes for a job (design sec. 5).
 *
 * Both drivers (the Slurm plugin and locality-replay) call only this:
 *   loc_alloc_create()   once per machine/partition configuration,
 *   loc_alloc_select()   once per placement decision,
 *   loc_alloc_destroy()  at the end.
 * The allocator keeps no record of running jobs: the driver describes the
 * current state in a loc_view_t on every call, so the plugin can rebuild
 * after a restart and the harness can replay, with one code path.
 */
#ifndef LOC_STRATEGY_H
#define LOC_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_curve.h"
#include "loc_error.h"
#include "loc_grid.h"

typedef enum loc_strategy_kind {
	LOC_STRATEGY_FREELIST = 0, /* seed 000: first k free in curve order */
	LOC_STRATEGY_FIRSTFIT,     /* seed 000/002: 1-D first fit + min span */
	LOC_STRATEGY_BESTFIT,      /* seed 000/002: 1-D best fit + min span */
	LOC_STRATEGY_SUMSQUARES,   /* seed 000/002: 1-D sum of squares + min span */
	LOC_STRATEGY_SPAN,         /* seed 002 5.1.1: exact 1-D pairwise optimum */
	LOC_STRATEGY_MM,           /* seed 003: Manhattan median */
	LOC_STRATEGY_MM_INC,       /* seed 003: MM + improving swaps */
	LOC_STRATEGY_GENALG,       /* seed 002/003: centres on free nodes */
	LOC_STRATEGY_MC1X1,        /* seed 003: MC with 1x1 shell 0 */
	LOC_STRATEGY_MBS,          /* seed 001: multiple buddy strategy */
	LOC_STRATEGY_PAGING,       /* seed 001: paging(indexing, page size) */
	LOC_STRATEGY_RANDOM,       /* seed 001: uniform random (seeded) */
	LOC_STRATEGY_BOX,          /* seed 004: contiguous boxes, least blocking */
	LOC_STRATEGY_PACK,         /* pairwise growth, least free perimeter */
	LOC_STRATEGY_COUNT
} loc_strategy_kind_t;

typedef enum loc_walltime_mode {
	LOC_WALLTIME_NONE = 0, /* Base */
	LOC_WALLTIME_SL,       /* similar-length tie-break (seed 004 Alg. 1) */
	LOC_WALLTIME_PF,       /* paired filling (seed 004 Alg. 2) */
	LOC_WALLTIME_COMBO,    /* SL then PF */
	LOC_WALLTIME_ADJEST,   /* Combo with AdjEst-adjusted walltimes */
	LOC_WALLTIME_COUNT
} loc_walltime_mode_t;

typedef enum loc_paging_index {
	LOC_PAGING_ROWMAJOR = 0,
	LOC_PAGING_SHUFFLED,
	LOC_PAGING_SNAKE,
	LOC_PAGING_COUNT
} loc_paging_index_t;

/*
 * What a driver that knows node weights (the Slurm plugin; the replay with
 * --node-weight) does with them. TIERS: a job is placed inside the
 * lightest weight tiers that together can hold it, as Slurm uses lower
 * Weight first (loc_tiers.h); IGNORE: every eligible node competes on
 * locality alone. Strategies never see weights.
 */
typedef enum loc_node_weight {
	LOC_NODE_WEIGHT_TIERS = 0,
	LOC_NODE_WEIGHT_IGNORE,
	LOC_NODE_WEIGHT_COUNT
} loc_node_weight_t;

/*
 * Which nodes an earliest-start plan holds for a job that starts later
 * (loc_plan.h). PLACEMENT: the placement found at that time, free nodes
 * included (what select/linear does); RELEASED: the nodes released by
 * running jobs by then, where they can hold the job, so that the nodes
 * free now stay free for backfill.
 */
typedef enum loc_plan_hold {
	LOC_PLAN_HOLD_PLACEMENT = 0,
	LOC_PLAN_HOLD_RELEASED,
	LOC_PLAN_HOLD_COUNT
} loc_plan_hold_t;

/*
 * Which nodes a job that shares nodes takes (loc_share.h). ANY: the set
 * the strategy chose; FIRST: nodes that already run other jobs before
 * idle ones, wherever that adds no hops to the set, so idle nodes stay
 * whole for the jobs that need whole nodes.
 */
typedef enum loc_shared_nodes {
	LOC_SHARED_NODES_ANY = 0,
	LOC_SHARED_NODES_FIRST,
	LOC_SHARED_NODES_COUNT
} loc_shared_nodes_t;

/* Name <-> kind tables (case-insensitive parse; -1 when unknown). */
int loc_strategy_kind_parse(const char *name);
const char *loc_strategy_kind_name(loc_strategy_kind_t kind);
int loc_walltime_mode_parse(const char *name);
const char *loc_walltime_mode_name(loc_walltime_mode_t mode);
int loc_paging_index_parse(const char *name);
const char *loc_paging_index_name(loc_paging_index_t index);
int loc_node_weight_parse(const char *name);
const char *loc_node_weight_name(loc_node_weight_t mode);
int loc_plan_hold_parse(const char *name);
const char *loc_plan_hold_name(loc_plan_hold_t hold);
int loc_shared_nodes_parse(const char *name);
const char *loc_shared_nodes_name(loc_shared_nodes_t rule);

/* How to allocate: copied by loc_alloc_create(). */
typedef struct loc_policy {
	loc_strategy_kind_t strategy;
	loc_curve_kind_t curve;
	loc_walltime_mode_t walltime;
	double sl_tolerance;        /* SL: placements within this fraction of the
				     * best cost compete on walltime (0 = ties) */
	int paging_size;            /* paging: page side is 2^paging_size */
	loc_paging_index_t paging_index;
	int mm_max_centers;         /* mm/mm_inc/genalg: candidate medians kept
				     * after pruning (0 = default; -1 = exact,
				     * no pruning: evaluate every candidate) */
	uint64_t seed;              /* the random strategy (shuffled paging is
				     * the paper's fixed Z order) */
	loc_node_weight_t node_weight; /* for drivers with node weights */
	double pack_tolerance;      /* pack: fraction of the least total hops
				     * traded for a smaller free perimeter */
	int64_t compact_wait;       /* seconds a job may wait for a compact
				     * placement (0 = never; loc_patience.h) */
	double compact_tolerance;   /* ... one within this fraction of the
				     * hops it would get on idle nodes */
	int compact_claims;         /* ... claiming at most this many
				     * regions at a time (loc_claim.h) */
	int64_t plan_window;        /* earliest-start plans release running
				     * jobs in windows of this many seconds
				     * (0 = each end time; loc_plan.h) */
	loc_plan_hold_t plan_hold;  /* ... and hold these nodes for a
				     * later start */
	loc_shared_nodes_t shared_nodes; /* jobs sharing nodes: in-use
					  * ones first (loc_share.h) */
} loc_policy_t;

/* Whether policy's walltime mode includes the SL tie-break (sl, combo,
 * adjest), and paired filling (pf, combo, adjest): drivers that gather
 * end times or partners do so only then. */
bool loc_policy_sl(const loc_policy_t *policy);
bool loc_policy_pf(const loc_policy_t *policy);

/* Fills policy with the defaults of the policy keys of locality.conf
 * (loc_conf_key_table.h: pack, hilbert, no walltime awareness, ...). */
void loc_policy_init(loc_policy_t *policy);

/*
 * The state of the machine at decision time, owned by the driver.
 * Arrays are indexed by node (0..nnodes-1) and borrowed for the call.
 */
typedef struct loc_view {
	/* 1 = this node may be given to this job (free, up, in the job's
	 * partition, has the features, not excluded). Required. */
	const uint8_t *candidate;
	/* Expected end time (seconds, any epoch) of the job running on each
	 * node, or 0 when idle. Optional (NULL): walltime modes then see no
	 * running neighbours. */
	const int64_t *busy_until;
	int64_t now; /* current time, same epoch as busy_until */
} loc_view_t;

/* One placement request. */
typedef struct loc_request {
	int nodes;            /* k >= 1 */
	const int *required;  /* nodes that must be included (borrowed), or NULL */
	int nrequired;
	bool contiguous;      /* an unbroken curve interval or a box */
	int64_t expected_end; /* now + (adjusted) walltime; 0 = unknown */
} loc_request_t;

typedef struct loc_alloc loc_alloc_t;

/*
 * Creates an allocator for grid (borrowed, must outlive it) with policy
 * (copied). Builds the curve and all scratch memory up front so that
 * loc_alloc_select() does not allocate on the hot path.
 * Returns the allocator, or NULL with err filled.
 */
loc_alloc_t *loc_alloc_create(const loc_grid_t *grid,
			      const loc_policy_t *policy, loc_error_t *err);

/* Frees alloc; accepts NULL. */
void loc_alloc_destroy(loc_alloc_t *alloc);

/*
 * Forgets the answers alloc's strategy keeps to give again to the same
 * question (the last answers of pack and the mm family), so the next
 * call searches: for timing decisions. Answers never change by it.
 * Accepts NULL.
 */
void loc_alloc_forget(loc_alloc_t *alloc);

/* Returns the allocator's curve (borrowed), grid and policy. */
const loc_curve_t *loc_alloc_curve(const loc_alloc_t *alloc);
const loc_grid_t *loc_alloc_grid(const loc_alloc_t *alloc);
const loc_policy_t *loc_alloc_policy(const loc_alloc_t *alloc);

/*
 * Chooses exactly req->nodes distinct nodes, each a candidate, including
 * every required node, and writes them in ascending node order to out
 * (room for req->nodes). Deterministic for the same inputs.
 * Returns 0; LOC_ENOFIT when the candidates cannot hold the request (too
 * few, a required node not a candidate, no contiguous interval or box);
 * LOC_EINVAL on a malformed request. err gets the reason.
 */
int loc_alloc_select(loc_alloc_t *alloc, const loc_request_t *req,
		     const loc_view_t *view, int *out, loc_error_t *err);

#endif /* LOC_STRATEGY_H */
