/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_key_table.h - every locality.conf key, declared once.
 *
 * LOC_CONF_KEYS(X) calls X(ID, Name, Partition, Value, Doc) for each key:
 *   ID         the key's number is LOC_KEY_<ID>
 *   Name       as written in locality.conf (matched case-insensitively)
 *   Partition  true when a PartitionName or GresName line may override it
 *   Value      where the value lives, its type, range and default; expanded
 *              only by loc_conf_key_table.c, which defines these forms:
 *                LINE()                          starts or belongs to a
 *                                                NodeName or PartitionName
 *                                                line: no single value
 *                SHAPE()                         the grid shape; its own
 *                                                syntax (loc_conf_keys.c)
 *                SHAPE_INT(field, min, max, def) an integer of loc_shape_t
 *                CONF_INT(field, min, max, def)  an integer of loc_conf_t
 *                CONF_ENUM(field, what, names, def) as POLICY_ENUM, of
 *                                                loc_conf_t
 *                POLICY_INT(field, min, max, def) an integer of loc_policy_t
 *                POLICY_REAL(field, def)         a real >= 0 of loc_policy_t
 *                POLICY_SEED(field, def)         an unsigned 64-bit integer
 *                POLICY_ENUM(field, what, names, def) one of the names of
 *                                                the loc_<names>_parse() and
 *                                                loc_<names>_name() pair
 *   Doc        one line for the reader of `scontrol show config`
 *
 * The parser, the partition check, the copy of partition overrides, the
 * defaults, loc_conf_describe() and loc_conf_key_value() all read this
 * table; adding a key is one entry here plus the code that uses its value.
 * Every key must also have an entry in doc/locality.conf.5 (a unit test
 * checks). The order is the order of the start-up description.
 */
#ifndef LOC_CONF_KEY_TABLE_H
#define LOC_CONF_KEY_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#define LOC_CONF_KEYS(X)                                                    \
	X(DIMENSIONS, "Dimensions", false, SHAPE(),                         \
	  "grid shape, 1 to 4 sizes (8x8x4); required")                     \
	X(TORUS, "Torus", false, SHAPE(),                                   \
	  "wraparound: yes or no for all dimensions, or one per dimension") \
	X(NPP, "NodesPerPoint", false,                                      \
	  SHAPE_INT(nodes_per_point, 1, 65536, 1), /* as loc_grid_create() */\
	  "nodes sharing one grid point")                                   \
	X(STRATEGY, "Strategy", true,                                       \
	  POLICY_ENUM(strategy, "strategy", strategy_kind,                  \
		      LOC_STRATEGY_PACK),                                   \
	  "how a job's nodes are chosen")                                   \
	X(CURVE, "Curve", true,                                             \
	  POLICY_ENUM(curve, "curve", curve_kind, LOC_CURVE_HILBERT),       \
	  "the order of the nodes for the curve strategies")                \
	X(WALLTIME, "WalltimeAware", true,                                  \
	  POLICY_ENUM(walltime, "mode", walltime_mode, LOC_WALLTIME_NONE),  \
	  "how expected end times steer placement")                         \
	X(SLTOL, "SLTolerance", true, POLICY_REAL(sl_tolerance, 0.0),       \
	  "fraction of the best cost SL may trade for end times")           \
	X(PFHOLD, "PFHoldTime", false,                                      \
	  CONF_INT(pf_hold_sec, 0, INT32_MAX, 300),                         \
	  "seconds a PF region hold lasts")                                 \
	X(ADJEST, "AdjEstWindow", false,                                    \
	  CONF_INT(adjest_window, 1, 1 << 20, 10),                          \
	  "finished jobs AdjEst remembers per user")                        \
	X(PAGING_SIZE, "PagingSize", true,                                  \
	  POLICY_INT(paging_size, 0, 10, 0),                                \
	  "paging: pages of side 2^n")                                      \
	X(PAGING_INDEX, "PagingIndex", true,                                \
	  POLICY_ENUM(paging_index, "indexing", paging_index,               \
		      LOC_PAGING_ROWMAJOR),                                 \
	  "paging: the order of the pages")                                 \
	X(MM_CENTERS, "MMMaxCenters", true,                                 \
	  POLICY_INT(mm_max_centers, 0, 1 << 30, 0),                        \
	  "mm: candidate medians kept after pruning (0 = default)")         \
	X(SEED, "Seed", true, POLICY_SEED(seed, 1),                         \
	  "seed of the random strategy")                                    \
	X(NODE_WEIGHT, "NodeWeight", true,                                  \
	  POLICY_ENUM(node_weight, "rule", node_weight,                     \
		      LOC_NODE_WEIGHT_TIERS),                               \
	  "whether Slurm's node weights form tiers")                        \
	X(PACK_TOL, "PackTolerance", true, POLICY_REAL(pack_tolerance, 0.0), \
	  "pack: fraction of hops traded for a smaller free perimeter")     \
	X(COMPACT_WAIT, "CompactWait", true,                                \
	  POLICY_INT(compact_wait, 0, 1 << 30, 0),                          \
	  "seconds a job may wait for a compact placement (0 = never)")     \
	X(COMPACT_TOL, "CompactTolerance", true,                            \
	  POLICY_REAL(compact_tolerance, 0.2),                              \
	  "a compact placement is within this fraction of the idle hops")   \
	X(COMPACT_CLAIMS, "CompactClaims", true,                            \
	  POLICY_INT(compact_claims, 0, 64, 0), /* LOC_CLAIMS_MAX */        \
	  "regions waiting jobs may claim at a time (0 = none)")            \
	X(PLAN_WINDOW, "PlanWindow", true,                                  \
	  POLICY_INT(plan_window, 0, 86400, 0),                             \
	  "plans release running jobs in windows of this many seconds")     \
	X(PLAN_HOLD, "PlanHold", true,                                      \
	  POLICY_ENUM(plan_hold, "hold", plan_hold,                         \
		      LOC_PLAN_HOLD_PLACEMENT),                             \
	  "which nodes a plan holds for a later start")                     \
	X(SHARED_NODES, "SharedNodes", true,                                \
	  POLICY_ENUM(shared_nodes, "rule", shared_nodes,                   \
		      LOC_SHARED_NODES_ANY),                                \
	  "jobs sharing nodes: in-use nodes first where no hops are lost")  \
	X(RECORD, "RecordPlacement", false,                                 \
	  CONF_ENUM(record, "field", record_field,                          \
		    LOC_RECORD_ADMIN_COMMENT),                             \
	  "the job field that records its placement (or none)")             \
	X(NODENAME, "NodeName", false, LINE(),                              \
	  "places a hostlist from a starting coordinate")                   \
	X(COORDS, "Coords", false, LINE(),                                  \
	  "the NodeName line's starting coordinate")                        \
	X(PARTITION, "PartitionName", false, LINE(),                        \
	  "a partition's overrides of the policy keys")                     \
	X(GRES, "GresName", false, LINE(),                                  \
	  "overrides of the policy keys for the jobs that ask for a GRES")

/* The keys' numbers, in table order. */
typedef enum loc_conf_key {
#define LOC_CONF_KEY_ENUM(id, name, partition, value, doc) LOC_KEY_##id,
	LOC_CONF_KEYS(LOC_CONF_KEY_ENUM)
#undef LOC_CONF_KEY_ENUM
	LOC_KEY_COUNT
} loc_conf_key_t;

/* What a reader of the configuration may know of a key. */
typedef struct loc_conf_key_info {
	const char *name;   /* as written in locality.conf */
	const char *doc;    /* one line */
	bool partition;     /* a PartitionName or GresName line may set it */
	bool has_value;     /* false for the lines' keys (NodeName, Coords,
			     * PartitionName, GresName) */
	long long min, max; /* integer keys; reals have min 0, max 0 */
} loc_conf_key_info_t;

/* Returns key's entry, or NULL when key is not in 0..LOC_KEY_COUNT-1. */
const loc_conf_key_info_t *loc_conf_key_info(int key);

#endif /* LOC_CONF_KEY_TABLE_H */
