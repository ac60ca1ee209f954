/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_keys.c - what each locality.conf key means: the key names, the
 * syntax of their values, the policy keys (global and per partition), and
 * the NodeName and PartitionName lines. The reader (loc_conf.c) hands each
 * logical line here as Key=Value tokens.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loc_conf_internal.h"
#include "loc_hostlist.h"

#define CONF_PARTITIONS_MAX 1024
#define CONF_NPP_MAX 65536           /* as loc_grid_create() accepts */
#define CONF_POINTS_MAX (1LL << 26)  /* as loc_grid_create() accepts */
#define CONF_NAME_BYTES_MAX (64LL << 20) /* node names on all NodeName lines */

/* ===================================================================== */
/* Internal variables                                                    */
/* ===================================================================== */

static const char *const _keys[K_COUNT + 1] = {
	[K_DIMENSIONS] = "Dimensions",
	[K_TORUS] = "Torus",
	[K_NPP] = "NodesPerPoint",
	[K_STRATEGY] = "Strategy",
	[K_CURVE] = "Curve",
	[K_WALLTIME] = "WalltimeAware",
	[K_SLTOL] = "SLTolerance",
	[K_PFHOLD] = "PFHoldTime",
	[K_ADJEST] = "AdjEstWindow",
	[K_PAGING_SIZE] = "PagingSize",
	[K_PAGING_INDEX] = "PagingIndex",
	[K_MM_CENTERS] = "MMMaxCenters",
	[K_SEED] = "Seed",
	[K_NODE_WEIGHT] = "NodeWeight",
	[K_PACK_TOL] = "PackTolerance",
	[K_COMPACT_WAIT] = "CompactWait",
	[K_COMPACT_TOL] = "CompactTolerance",
	[K_PLAN_WINDOW] = "PlanWindow",
	[K_PLAN_HOLD] = "PlanHold",
	[K_NODENAME] = "NodeName",
	[K_COORDS] = "Coords",
	[K_PARTITION] = "PartitionName",
	[K_COUNT] = NULL,
};

/* The policy keys a PartitionName line may override. */
#define PART_KEYS                                                       \
	((1u << K_STRATEGY) | (1u << K_CURVE) | (1u << K_WALLTIME) |    \
	 (1u << K_SLTOL) | (1u << K_PAGING_SIZE) | (1u << K_PAGING_INDEX) | \
	 (1u << K_MM_CENTERS) | (1u << K_SEED) | (1u << K_NODE_WEIGHT) | \
	 (1u << K_PACK_TOL) | (1u << K_COMPACT_WAIT) | (1u << K_COMPACT_TOL) | \
	 (1u << K_PLAN_WINDOW) | (1u << K_PLAN_HOLD))

/* ===================================================================== */
/* Internal functions: helpers                                           */
/* ===================================================================== */

/* Parses a decimal integer made of digits only (optional leading '-').
 * Returns 0, -1 when s is not an integer, -2 when outside [min, max]. */
static int _int(const char *s, long long min, long long max, long long *out)
{
	const char *d = s + (*s == '-');
	size_t nd = strspn(d, "0123456789");
	long long v = 0;

	if (nd == 0 || d[nd])
		return -1;
	if (nd > 12) /* far outside every range, and no overflow below */
		return -2;
	for (size_t i = 0; i < nd; i++)
		v = v * 10 + (d[i] - '0');
	if (*s == '-')
		v = -v;
	if (v < min || v > max)
		return -2;
	*out = v;
	return 0;
}

/* Reports _int() failures as "Key: 'val' ..." at line. */
static int _int_key(conf_parser_t *p, int key, const char *val, int line,
		    long long min, long long max, long long *out)
{
	int rc = _int(val, min, max, out);

	if (rc == -1)
		return loc__conf_perr(p, line, "%s: '%.64s' is not an integer",
				      _keys[key], val);
	if (rc == -2)
		return loc__conf_perr(p, line,
				      "%s: '%.64s' is out of range %lld-%lld",
				      _keys[key], val, min, max);
	return 0;
}

/* Parses "yes|no|true|false|1|0". Returns 1, 0 or -1. */
static int _bool(const char *s)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcmp(s, "1"))
		return 1;
	if (!strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcmp(s, "0"))
		return 0;
	return -1;
}

/* Writes "a b c" from a name table into buf for "valid: ..." hints. */
static const char *_names(const char *(*name)(int), int n, char *buf,
			  size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%s", i ? " " : "", name(i));
	return buf;
}

static const char *_strategy_name(int i)
{
	return loc_strategy_kind_name((loc_strategy_kind_t)i);
}

static const char *_curve_name(int i)
{
	return loc_curve_kind_name((loc_curve_kind_t)i);
}

static const char *_walltime_name(int i)
{
	return loc_walltime_mode_name((loc_walltime_mode_t)i);
}

static const char *_paging_name(int i)
{
	return loc_paging_index_name((loc_paging_index_t)i);
}

static const char *_node_weight_name(int i)
{
	return loc_node_weight_name((loc_node_weight_t)i);
}

static const char *_plan_hold_name(int i)
{
	return loc_plan_hold_name((loc_plan_hold_t)i);
}

/* A policy key whose value is a name from a table (Strategy=mm). */
typedef struct conf_enum_key {
	const char *what;              /* "Key: unknown <what> 'val'" */
	int (*parse)(const char *val); /* the value's index, or -1 */
	const char *(*name)(int i);    /* for the "valid: ..." hint */
	int count;                     /* names in the table */
	size_t off;                    /* of the enum field in loc_policy_t */
} conf_enum_key_t;

/* Indexed by key; parse is NULL for the keys of other values. */
static const conf_enum_key_t _enum_keys[K_COUNT] = {
	[K_STRATEGY] = { "strategy", loc_strategy_kind_parse, _strategy_name,
			 LOC_STRATEGY_COUNT, offsetof(loc_policy_t, strategy) },
	[K_CURVE] = { "curve", loc_curve_kind_parse, _curve_name,
		      LOC_CURVE_COUNT, offsetof(loc_policy_t, curve) },
	[K_WALLTIME] = { "mode", loc_walltime_mode_parse, _walltime_name,
			 LOC_WALLTIME_COUNT, offsetof(loc_policy_t, walltime) },
	[K_PAGING_INDEX] = { "indexing", loc_paging_index_parse, _paging_name,
			     LOC_PAGING_COUNT,
			     offsetof(loc_policy_t, paging_index) },
	[K_NODE_WEIGHT] = { "rule", loc_node_weight_parse, _node_weight_name,
			    LOC_NODE_WEIGHT_COUNT,
			    offsetof(loc_policy_t, node_weight) },
	[K_PLAN_HOLD] = { "hold", loc_plan_hold_parse, _plan_hold_name,
			  LOC_PLAN_HOLD_COUNT,
			  offsetof(loc_policy_t, plan_hold) },
};

/* _enum_key() stores an int at off: the enum fields must be int-sized. */
_Static_assert(sizeof(loc_strategy_kind_t) == sizeof(int) &&
		       sizeof(loc_curve_kind_t) == sizeof(int) &&
		       sizeof(loc_walltime_mode_t) == sizeof(int) &&
		       sizeof(loc_paging_index_t) == sizeof(int) &&
		       sizeof(loc_node_weight_t) == sizeof(int) &&
		       sizeof(loc_plan_hold_t) == sizeof(int),
	       "policy enums are not int-sized");

/* Splits s at sep into at most LOC_MAX_DIMS decimal values of 1..9
 * digits. Returns the count, or -1 when s is not such a list. */
static int _int_list(const char *s, const char *sep, long long *v)
{
	int n = 0;

	for (;;) {
		size_t d = strspn(s, "0123456789");

		if (d == 0 || d > 9 || n == LOC_MAX_DIMS)
			return -1;
		v[n++] = strtoll(s, NULL, 10);
		s += d;
		if (!*s)
			return n;
		if (!strchr(sep, *s))
			return -1;
		s++;
	}
}

/* ===================================================================== */
/* Internal functions: values                                            */
/* ===================================================================== */

/* Applies a key of _enum_keys[] to pol. */
static int _enum_key(conf_parser_t *p, loc_policy_t *pol, int key,
		     const char *val, int line)
{
	const conf_enum_key_t *e = &_enum_keys[key];
	char hint[200];
	int k = e->parse(val);

	if (k < 0)
		return loc__conf_perr(p, line,
				      "%s: unknown %s '%.64s' (valid: %s)",
				      _keys[key], e->what, val,
				      _names(e->name, e->count, hint,
					     sizeof(hint)));
	memcpy((char *)pol + e->off, &k, sizeof(k));
	return 0;
}

/* A non-negative real in plain decimal notation (no hex, inf or nan):
 * SLTolerance, PackTolerance, CompactTolerance. */
static int _fraction_key(conf_parser_t *p, int key, const char *val,
			 int line, double *out)
{
	char *end;
	double d;

	if (strspn(val, "0123456789.eE+-") != strlen(val) || strlen(val) > 32)
		return loc__conf_perr(p, line, "%s: '%.64s' is not a number",
				      _keys[key], val);
	errno = 0;
	d = strtod(val, &end);
	if (*end || end == val || errno || !isfinite(d))
		return loc__conf_perr(p, line, "%s: '%.64s' is not a number",
				      _keys[key], val);
	if (d < 0)
		return loc__conf_perr(p, line,
				      "%s: '%.64s' is negative (must be >= 0)",
				      _keys[key], val);
	*out = d;
	return 0;
}

/* Applies a policy key (global or partition) to pol. */
static int _policy_key(conf_parser_t *p, loc_policy_t *pol, int key,
		       const char *val, int line)
{
	long long v;

	if (_enum_keys[key].parse)
		return _enum_key(p, pol, key, val, line);
	switch (key) {
	case K_SLTOL:
		return _fraction_key(p, key, val, line, &pol->sl_tolerance);
	case K_PACK_TOL:
		return _fraction_key(p, key, val, line, &pol->pack_tolerance);
	case K_COMPACT_TOL:
		return _fraction_key(p, key, val, line,
				     &pol->compact_tolerance);
	case K_COMPACT_WAIT:
		if (_int_key(p, key, val, line, 0, 1 << 30, &v))
			return LOC_EPARSE;
		pol->compact_wait = v;
		return 0;
	case K_PLAN_WINDOW:
		if (_int_key(p, key, val, line, 0, 86400, &v))
			return LOC_EPARSE;
		pol->plan_window = v;
		return 0;
	case K_PAGING_SIZE:
		if (_int_key(p, key, val, line, 0, 10, &v))
			return LOC_EPARSE;
		pol->paging_size = (int)v;
		return 0;
	case K_MM_CENTERS:
		if (_int_key(p, key, val, line, 0, 1 << 30, &v))
			return LOC_EPARSE;
		pol->mm_max_centers = (int)v;
		return 0;
	case K_SEED: {
		char *end;
		unsigned long long s;

		if (strspn(val, "0123456789") != strlen(val) ||
		    strlen(val) > 20)
			return loc__conf_perr(p, line,
					      "Seed: '%.64s' is not an unsigned 64-bit integer",
					      val);
		errno = 0;
		s = strtoull(val, &end, 10);
		if (errno || *end)
			return loc__conf_perr(p, line,
					      "Seed: '%.64s' is not an unsigned 64-bit integer",
					      val);
		pol->seed = s;
		return 0;
	}
	}
	return loc__conf_perr(p, line, "%s is not a policy key", _keys[key]);
}

void loc__conf_policy_copy(loc_policy_t *dst, const loc_policy_t *src, int key)
{
	switch (key) {
	case K_STRATEGY:
		dst->strategy = src->strategy;
		break;
	case K_CURVE:
		dst->curve = src->curve;
		break;
	case K_WALLTIME:
		dst->walltime = src->walltime;
		break;
	case K_SLTOL:
		dst->sl_tolerance = src->sl_tolerance;
		break;
	case K_PAGING_SIZE:
		dst->paging_size = src->paging_size;
		break;
	case K_PAGING_INDEX:
		dst->paging_index = src->paging_index;
		break;
	case K_MM_CENTERS:
		dst->mm_max_centers = src->mm_max_centers;
		break;
	case K_SEED:
		dst->seed = src->seed;
		break;
	case K_NODE_WEIGHT:
		dst->node_weight = src->node_weight;
		break;
	case K_PACK_TOL:
		dst->pack_tolerance = src->pack_tolerance;
		break;
	case K_COMPACT_WAIT:
		dst->compact_wait = src->compact_wait;
		break;
	case K_COMPACT_TOL:
		dst->compact_tolerance = src->compact_tolerance;
		break;
	case K_PLAN_WINDOW:
		dst->plan_window = src->plan_window;
		break;
	case K_PLAN_HOLD:
		dst->plan_hold = src->plan_hold;
		break;
	}
}

static int _dimensions(conf_parser_t *p, const char *val, int line)
{
	loc_shape_t *shape = &p->conf->shape;
	long long v[LOC_MAX_DIMS], points = 1;
	int n = _int_list(val, "xX", v);

	if (n < 0)
		return loc__conf_perr(p, line,
				      "Dimensions: '%.64s' is not a shape like 8x8x4 (1 to %d sizes)",
				      val, LOC_MAX_DIMS);
	for (int d = 0; d < n; d++) {
		if (v[d] < 1)
			return loc__conf_perr(p, line,
					      "Dimensions: size %d in '%.64s' is 0 (each must be >= 1)",
					      d + 1, val);
		points *= v[d];
		if (points > CONF_POINTS_MAX)
			return loc__conf_perr(p, line,
					      "Dimensions: '%.64s' has more than %lld points",
					      val, CONF_POINTS_MAX);
		shape->dims[d] = (int)v[d];
	}
	shape->ndims = n;
	return 0;
}

static int _torus(conf_parser_t *p, const char *val, int line)
{
	const char *s = val;

	p->ntorus = 0;
	for (;;) {
		size_t n = strcspn(s, ",");
		char word[8];
		int b = -1;

		if (n > 0 && n < sizeof(word)) {
			memcpy(word, s, n);
			word[n] = '\0';
			b = _bool(word);
		}
		if (b < 0)
			return loc__conf_perr(p, line,
					      "Torus: '%.64s' is not yes/no or a list of %d yes/no values",
					      val, LOC_MAX_DIMS);
		if (p->ntorus == LOC_MAX_DIMS)
			return loc__conf_perr(p, line,
					      "Torus: '%.64s' has more than %d values",
					      val, LOC_MAX_DIMS);
		p->torus[p->ntorus++] = b;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

int loc__conf_global_key(conf_parser_t *p, const conf_tok_t *t)
{
	loc_conf_t *c = p->conf;
	long long v;

	if (p->set_line[t->key])
		return loc__conf_perr(p, t->line,
				      "duplicate key '%s' (already set on line %d)",
				      _keys[t->key], p->set_line[t->key]);
	p->set_line[t->key] = t->line;
	switch (t->key) {
	case K_DIMENSIONS:
		return _dimensions(p, t->val, t->line);
	case K_TORUS:
		return _torus(p, t->val, t->line);
	case K_NPP:
		if (_int_key(p, t->key, t->val, t->line, 1, CONF_NPP_MAX, &v))
			return LOC_EPARSE;
		c->shape.nodes_per_point = (int)v;
		return 0;
	case K_PFHOLD:
		if (_int_key(p, t->key, t->val, t->line, 0, INT32_MAX,
			     &v))
			return LOC_EPARSE;
		c->pf_hold_sec = (int)v;
		return 0;
	case K_ADJEST:
		if (_int_key(p, t->key, t->val, t->line, 1, 1 << 20, &v))
			return LOC_EPARSE;
		c->adjest_window = (int)v;
		return 0;
	case K_COORDS:
		return loc__conf_perr(p, t->line,
				      "Coords is only valid on a NodeName line");
	}
	return _policy_key(p, &c->policy, t->key, t->val, t->line);
}

/* ===================================================================== */
/* Internal functions: records                                           */
/* ===================================================================== */

int loc__conf_nodename(conf_parser_t *p)
{
	loc_conf_t *c = p->conf;
	const conf_tok_t *coords = NULL;
	loc_conf_nodes_t *nl;
	loc_hostlist_t hl;
	loc_error_t herr;
	long long v[LOC_MAX_DIMS];
	int line = p->tok[0].line, n;

	for (int i = 1; i < p->ntok; i++) {
		if (p->tok[i].key != K_COORDS)
			return loc__conf_perr(p, p->tok[i].line,
					      "key '%s' is not valid on a NodeName line (only Coords is)",
					      _keys[p->tok[i].key]);
		if (coords)
			return loc__conf_perr(p, p->tok[i].line,
					      "duplicate key 'Coords' on this NodeName line");
		coords = &p->tok[i];
	}
	if (!coords)
		return loc__conf_perr(p, line, "NodeName=%.64s has no Coords=",
				      p->tok[0].val);
	n = _int_list(coords->val, ",", v);
	if (n < 0)
		return loc__conf_perr(p, coords->line,
				      "Coords: '%.64s' is not a list like 0,0,0 of 1 to %d non-negative integers",
				      coords->val, LOC_MAX_DIMS);
	if (loc_hostlist_expand(p->tok[0].val, &hl, &herr))
		return herr.code == LOC_ENOMEM ?
			       loc__conf_nomem(p) :
			       loc__conf_perr(p, line, "NodeName: %s",
					      herr.text);
	p->nnames += hl.count;
	if (p->nnames > LOC_HOSTLIST_MAX) {
		loc_hostlist_free(&hl);
		return loc__conf_perr(p, line,
				      "NodeName lines name more than %d nodes in all",
				      LOC_HOSTLIST_MAX);
	}
	/* One line's names are bounded by the expander; all lines together
	 * too, or a few lines of long names could fill slurmctld's memory
	 * (fuzz_conf). */
	for (int i = 0; i < hl.count; i++)
		p->nbytes += (long long)strlen(hl.names[i]) + 1;
	if (p->nbytes > CONF_NAME_BYTES_MAX) {
		loc_hostlist_free(&hl);
		return loc__conf_perr(p, line,
				      "NodeName lines name more than %d MiB of nodes in all",
				      (int)(CONF_NAME_BYTES_MAX >> 20));
	}
	if (loc__conf_grow(&c->nodes, &p->nodes_cap, c->nnodes_lines,
			   sizeof(*c->nodes)) ||
	    loc__conf_grow(&p->ncoords, &p->ncoords_cap, c->nnodes_lines,
			   sizeof(int))) {
		loc_hostlist_free(&hl);
		return loc__conf_nomem(p);
	}
	nl = &c->nodes[c->nnodes_lines];
	memset(nl, 0, sizeof(*nl));
	nl->hostlist = strdup(p->tok[0].val);
	nl->names = hl.names;
	nl->count = hl.count;
	nl->line = line;
	for (int d = 0; d < n; d++)
		nl->start.c[d] = (int)v[d];
	p->ncoords[c->nnodes_lines++] = n;
	if (!nl->hostlist)
		return loc__conf_nomem(p);
	return 0;
}

int loc__conf_partition(conf_parser_t *p)
{
	loc_conf_t *c = p->conf;
	loc_conf_partition_t *pt;
	const char *name = p->tok[0].val;
	int line = p->tok[0].line, np = c->npartitions;
	unsigned mask = 0;
	loc_policy_t ovr;

	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._-+@:") != strlen(name))
		return loc__conf_perr(p, line,
				      "PartitionName: '%.64s' is not a valid partition name",
				      name);
	for (int i = 0; i < np; i++)
		if (!strcmp(c->partitions[i].name, name))
			return loc__conf_perr(p, line,
					      "duplicate PartitionName '%.64s' (first on line %d)",
					      name, c->partitions[i].line);
	if (np == CONF_PARTITIONS_MAX)
		return loc__conf_perr(p, line,
				      "more than %d PartitionName lines",
				      CONF_PARTITIONS_MAX);
	loc_policy_init(&ovr);
	for (int i = 1; i < p->ntok; i++) {
		const conf_tok_t *t = &p->tok[i];

		if (!(PART_KEYS & (1u << t->key)))
			return loc__conf_perr(p, t->line,
					      "key '%s' is not valid on a PartitionName line",
					      _keys[t->key]);
		if (mask & (1u << t->key))
			return loc__conf_perr(p, t->line,
					      "duplicate key '%s' on this PartitionName line",
					      _keys[t->key]);
		mask |= 1u << t->key;
		if (_policy_key(p, &ovr, t->key, t->val, t->line))
			return LOC_EPARSE;
	}
	if (loc__conf_grow(&c->partitions, &p->part_cap, np,
			   sizeof(*c->partitions)) ||
	    loc__conf_grow(&p->pmask, &p->pmask_cap, np, sizeof(unsigned)) ||
	    loc__conf_grow(&p->povr, &p->povr_cap, np, sizeof(loc_policy_t)))
		return loc__conf_nomem(p);
	pt = &c->partitions[np];
	pt->name = strdup(name);
	pt->line = line;
	p->pmask[np] = mask;
	p->povr[np] = ovr;
	c->npartitions++;
	return pt->name ? 0 : loc__conf_nomem(p);
}

/* ===================================================================== */
/* Key names                                                             */
/* ===================================================================== */

int loc__conf_key(const char *s)
{
	for (int k = 0; k < K_COUNT; k++)
		if (!strcasecmp(s, _keys[k]))
			return k;
	return -1;
}

const char *const *loc_conf_keys(void)
{
	return _keys;
}
