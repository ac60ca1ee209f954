/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf.h - locality.conf, read by both the plugin and locality-replay.
 *
 * Syntax mirrors slurm.conf: Key=Value pairs separated by blanks, several
 * on a line; case-insensitive keys; '#' starts a comment; a trailing '\'
 * continues a line. The keys, their values, ranges and defaults are
 * declared once, in loc_conf_key_table.h, and documented in
 * doc/locality.conf.5. Besides the settings, two kinds of line:
 *
 *   NodeName=n[001-016] Coords=0,0,0
 *       explicit placement: the first node of the hostlist at Coords, the
 *       following ones filling points in row-major order from there
 *       (NodesPerPoint nodes per point)
 *   PartitionName=debug Strategy=bestfit [Curve=snake] [WalltimeAware=sl]
 *       per-partition overrides of the policy keys
 *   GresName=gpu CompactTolerance=0.3
 *       overrides of the policy keys for the jobs that ask for that GRES,
 *       applied over their partition's policy
 *
 * Unknown keys, malformed values and duplicates are errors naming file,
 * line and the offending text; nothing is guessed.
 */
#ifndef LOC_CONF_H
#define LOC_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loc_conf_key_table.h"
#include "loc_error.h"
#include "loc_grid.h"
#include "loc_record.h"
#include "loc_strategy.h"

/* One NodeName= line: a hostlist placed from a starting coordinate. */
typedef struct loc_conf_nodes {
	char *hostlist;     /* as written (owned) */
	char **names;       /* expanded (owned) */
	int count;
	loc_coord_t start;
	int line;           /* line number in the file, for errors */
} loc_conf_nodes_t;

/* One PartitionName= line: a policy override. */
typedef struct loc_conf_partition {
	char *name;          /* owned */
	loc_policy_t policy; /* the global policy with this line's keys applied */
	int line;
} loc_conf_partition_t;

/* One GresName= line: policy overrides for the jobs that ask for a GRES,
 * on top of their partition's policy. */
typedef struct loc_conf_gres {
	char *name;             /* owned: the GRES, as slurm.conf's GresTypes */
	uint32_t keys;          /* bit k: the line sets policy key k */
	loc_policy_t *policies; /* owned: [i] is PartitionName line i's policy
				 * with this line's keys applied, and
				 * [npartitions] the global policy with them */
	int line;
} loc_conf_gres_t;

typedef struct loc_conf {
	char *path;              /* file read (owned), "" for a string */
	loc_shape_t shape;
	loc_policy_t policy;     /* global defaults */
	int pf_hold_sec;
	int adjest_window;
	loc_record_field_t record; /* where the plugins record placement */
	loc_conf_nodes_t *nodes; /* NodeName lines, in file order */
	int nnodes_lines;
	loc_conf_partition_t *partitions;
	int npartitions;
	loc_conf_gres_t *gres;   /* GresName lines, in file order */
	int ngres;
} loc_conf_t;

/*
 * Parses the file at path. Returns the config (free with loc_conf_destroy),
 * or NULL with err naming path, line and the offending text.
 */
loc_conf_t *loc_conf_load(const char *path, loc_error_t *err);

/*
 * Parses text as if it were a file called name (for tests and for
 * embedded defaults). Same returns as loc_conf_load().
 */
loc_conf_t *loc_conf_parse(const char *text, const char *name,
			   loc_error_t *err);

/*
 * Parses the len bytes at buf (borrowed; need not be NUL-terminated and
 * may hold NUL bytes, which are reported as errors) as if they were a
 * file called name. loc_conf_load() reads the file and calls this.
 * Same returns as loc_conf_load().
 */
loc_conf_t *loc_conf_parse_mem(const char *buf, size_t len, const char *name,
			       loc_error_t *err);

/* Frees conf; accepts NULL. */
void loc_conf_destroy(loc_conf_t *conf);

/*
 * Builds the grid for the driver's nodes: names[0..nnodes-1] in the
 * driver's order (borrowed). Nodes named on NodeName lines get their
 * coordinates; the rest fill row-major in driver order the points no
 * NodeName line used. Errors name the file and line: a NodeName line
 * naming a node the driver does not have, a node placed twice, a point
 * over-full, more nodes than the grid holds.
 * Returns the grid (free with loc_grid_destroy) or NULL with err filled.
 */
loc_grid_t *loc_conf_build_grid(const loc_conf_t *conf,
				const char *const *names, int nnodes,
				loc_error_t *err);

/* Returns the policy for partition name (borrowed): its override, or the
 * global policy when name is NULL or has none. */
const loc_policy_t *loc_conf_policy(const loc_conf_t *conf, const char *name);

/* Whether the job being placed asks for the GRES named gres: the
 * driver's answer (the core knows no jobs). */
typedef bool (*loc_conf_asks_gres_fn)(const char *gres, void *arg);

/*
 * Returns the policy (borrowed) for a job of partition part (NULL: none)
 * that asks for the GRES asks(gres, arg) says yes to: the partition's
 * policy (loc_conf_policy()) with the keys of the first GresName line, in
 * file order, that names one of them. asks may be NULL: a job with no
 * GRES. Costs one asks() call per GresName line.
 */
const loc_policy_t *loc_conf_job_policy(const loc_conf_t *conf,
					const char *part,
					loc_conf_asks_gres_fn asks, void *arg);

/* Returns the keys the parser accepts, NULL-terminated, in the order of
 * loc_conf_key_t (for the test that checks every key is documented in
 * doc/locality.conf.5). */
const char *const *loc_conf_keys(void);

/*
 * Writes the value conf gives key (loc_conf_key_t) into buf as
 * locality.conf spells it ("pack", "0.2", "8x8x4", "yes,no"): partition's
 * value for a policy key when partition names a PartitionName line, else
 * the global one. For `scontrol show config`:
 *
 *   for (int k = 0; k < LOC_KEY_COUNT; k++)
 *           if (loc_conf_key_value(conf, NULL, k, val, sizeof(val)))
 *                   print(loc_conf_key_info(k)->name, val);
 *
 * Returns buf, or NULL when key has no single value (NodeName, Coords,
 * PartitionName), is out of range, or conf, buf or len is 0.
 */
const char *loc_conf_key_value(const loc_conf_t *conf, const char *partition,
			       int key, char *buf, size_t len);

/* Writes a one-paragraph summary of conf (shape, policy, overrides) into
 * buf, for the plugin's start-up log and `locality-replay --show-config`.
 * Returns buf. */
const char *loc_conf_describe(const loc_conf_t *conf, char *buf, int len);

/*
 * Values for some of the keys, and which: the command line's or a row's
 * overrides of locality.conf in locality-replay. Start from a zeroed
 * struct (no key set). values holds nothing owned: no lines, no path.
 */
typedef struct loc_conf_overrides {
	uint32_t set;      /* bit k: key k (loc_conf_key_t) has a value */
	loc_conf_t values; /* the set keys' values; policy keys in .policy */
} loc_conf_overrides_t;

/*
 * Parses text as locality.conf would parse the value of key (same
 * syntax, range and wording) and stores it in conf for the shape and
 * conf keys or in pol for the policy keys (the other may be NULL when
 * key does not live there). Returns 0, or LOC_EPARSE (a bad value) or
 * LOC_EINVAL (key has no single value: Dimensions, Torus, the lines)
 * with "Key: 'text' ..." in err (errlen bytes).
 */
int loc_conf_key_parse_value(loc_conf_t *conf, loc_policy_t *pol, int key,
			     const char *text, char *err, size_t errlen);

/* As loc_conf_key_parse_value() into ov, marking key set there. */
int loc_conf_overrides_parse(loc_conf_overrides_t *ov, int key,
			     const char *text, char *err, size_t errlen);

/* Marks key set in ov after its value was stored in ov->values. */
void loc_conf_overrides_mark(loc_conf_overrides_t *ov, int key);

/* Whether ov sets key. */
bool loc_conf_overrides_has(const loc_conf_overrides_t *ov, int key);

/* Copies every key ov sets into conf (shape and conf keys) or pol
 * (policy keys); either may be NULL to leave those keys alone. */
void loc_conf_overrides_apply(const loc_conf_overrides_t *ov, loc_conf_t *conf,
			      loc_policy_t *pol);

/* Writes the value of policy key in pol as locality.conf spells it.
 * Returns buf, or NULL when key is not a policy key. */
const char *loc_conf_policy_key_value(const loc_policy_t *pol, int key,
				      char *buf, size_t len);

/* Whether a and b hold the same value of policy key (false when key is
 * not a policy key). */
bool loc_conf_policy_key_equal(const loc_policy_t *a, const loc_policy_t *b,
			       int key);

/* Writes the value ov holds for key as locality.conf spells it (set or
 * not). Returns buf, or NULL when key has no single value. */
const char *loc_conf_overrides_value(const loc_conf_overrides_t *ov, int key,
				     char *buf, size_t len);

#endif /* LOC_CONF_H */
