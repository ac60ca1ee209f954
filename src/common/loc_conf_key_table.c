/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_key_table.c - LOC_CONF_KEYS expanded into the table the parser
 * reads, and what follows from the table alone: the key names, the
 * defaults (of loc_conf_t and of loc_policy_init()) and each key's value
 * as text.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "loc_conf_internal.h"

/* ===================================================================== */
/* The names of the enum-valued keys                                     */
/* ===================================================================== */

/* The name functions take their own enum type; the table wants int. */
#define CONF_ENUM_NAMES(names, count)                                   \
	static const char *_##names##_name(int i)                       \
	{                                                               \
		return loc_##names##_name(i);                           \
	}                                                               \
	static const conf_enum_names_t _##names = {                     \
		loc_##names##_parse, _##names##_name, count             \
	};

CONF_ENUM_NAMES(strategy_kind, LOC_STRATEGY_COUNT)
CONF_ENUM_NAMES(curve_kind, LOC_CURVE_COUNT)
CONF_ENUM_NAMES(walltime_mode, LOC_WALLTIME_COUNT)
CONF_ENUM_NAMES(paging_index, LOC_PAGING_COUNT)
CONF_ENUM_NAMES(node_weight, LOC_NODE_WEIGHT_COUNT)
CONF_ENUM_NAMES(plan_hold, LOC_PLAN_HOLD_COUNT)
CONF_ENUM_NAMES(shared_nodes, LOC_SHARED_NODES_COUNT)
CONF_ENUM_NAMES(record_field, LOC_RECORD_COUNT)
#undef CONF_ENUM_NAMES

/* Enum values are stored as int: the enum fields must be int-sized. */
_Static_assert(sizeof(loc_strategy_kind_t) == sizeof(int) &&
		       sizeof(loc_curve_kind_t) == sizeof(int) &&
		       sizeof(loc_walltime_mode_t) == sizeof(int) &&
		       sizeof(loc_paging_index_t) == sizeof(int) &&
		       sizeof(loc_node_weight_t) == sizeof(int) &&
		       sizeof(loc_plan_hold_t) == sizeof(int) &&
		       sizeof(loc_shared_nodes_t) == sizeof(int) &&
		       sizeof(loc_record_field_t) == sizeof(int),
	       "policy enums are not int-sized");

/* ===================================================================== */
/* The table                                                             */
/* ===================================================================== */

/* Every key that is not LINE() has a value. */
#define FIELD(type, field)                                             \
	.info.has_value = true, .off = offsetof(type, field),           \
	.size = sizeof(((type *)0)->field)
#define LINE() .home = KH_LINE, .type = KT_SYNTAX
#define SHAPE() .home = KH_SHAPE, .type = KT_SYNTAX, .info.has_value = true
#define SHAPE_INT(field, lo, hi, def)                                  \
	.home = KH_SHAPE, .type = KT_INT, FIELD(loc_conf_t, shape.field), \
	.info.min = (lo), .info.max = (hi), .int_default = (def)
#define CONF_INT(field, lo, hi, def)                                   \
	.home = KH_CONF, .type = KT_INT, FIELD(loc_conf_t, field),      \
	.info.min = (lo), .info.max = (hi), .int_default = (def)
#define POLICY_INT(field, lo, hi, def)                                 \
	.home = KH_POLICY, .type = KT_INT, FIELD(loc_policy_t, field),  \
	.info.min = (lo), .info.max = (hi), .int_default = (def)
#define POLICY_REAL(field, def)                                        \
	.home = KH_POLICY, .type = KT_REAL, FIELD(loc_policy_t, field), \
	.real_default = (def)
#define POLICY_SEED(field, def)                                        \
	.home = KH_POLICY, .type = KT_SEED, FIELD(loc_policy_t, field), \
	.int_default = (def)
#define POLICY_ENUM(field, what_, names_, def)                         \
	.home = KH_POLICY, .type = KT_ENUM, FIELD(loc_policy_t, field), \
	.what = (what_), .names = &_##names_, .int_default = (def)
#define CONF_ENUM(field, what_, names_, def)                           \
	.home = KH_CONF, .type = KT_ENUM, FIELD(loc_conf_t, field),     \
	.what = (what_), .names = &_##names_, .int_default = (def)
#define CONF_KEY_DEF(id, name_, partition_, value, doc_)               \
	[LOC_KEY_##id] = { .info.name = (name_), .info.doc = (doc_),    \
			   .info.partition = (partition_), value },

static const conf_key_def_t _defs[LOC_KEY_COUNT] = {
	LOC_CONF_KEYS(CONF_KEY_DEF)
};

#undef CONF_KEY_DEF
#undef POLICY_ENUM
#undef CONF_ENUM
#undef POLICY_SEED
#undef POLICY_REAL
#undef POLICY_INT
#undef CONF_INT
#undef SHAPE_INT
#undef SHAPE
#undef LINE
#undef FIELD

/* The names as loc_conf_keys() returns them, NULL-terminated. */
static const char *const _names[LOC_KEY_COUNT + 1] = {
#define CONF_KEY_NAME(id, name, partition, value, doc) [LOC_KEY_##id] = name,
	LOC_CONF_KEYS(CONF_KEY_NAME)
#undef CONF_KEY_NAME
	[LOC_KEY_COUNT] = NULL,
};

/* ===================================================================== */
/* Internal functions                                                    */
/* ===================================================================== */

/* KT_INT fields are int or int64_t (FIELD() records which by size). */
void loc__conf_store_int(void *field, size_t size, long long v)
{
	if (size == sizeof(int)) {
		int i = (int)v;

		memcpy(field, &i, sizeof(i));
	} else {
		int64_t i = v;

		memcpy(field, &i, sizeof(i));
	}
}

static long long _get_int(const void *field, size_t size)
{
	if (size == sizeof(int)) {
		int i;

		memcpy(&i, field, sizeof(i));
		return i;
	} else {
		int64_t i;

		memcpy(&i, field, sizeof(i));
		return i;
	}
}

/* Sets the keys stored in base (a loc_conf_t for home, a loc_policy_t for
 * KH_POLICY) to their defaults. */
static void _defaults(void *base, conf_key_home_t home)
{
	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		const conf_key_def_t *d = &_defs[k];
		char *field = (char *)base + d->off;

		if (d->home != home)
			continue;
		if (d->type == KT_REAL) {
			memcpy(field, &d->real_default, sizeof(double));
		} else if (d->type == KT_SEED) {
			uint64_t s = (uint64_t)d->int_default;

			memcpy(field, &s, sizeof(s));
		} else if (d->type == KT_INT || d->type == KT_ENUM) {
			loc__conf_store_int(field, d->size, d->int_default);
		}
	}
}

/* ===================================================================== */
/* External functions                                                    */
/* ===================================================================== */

const conf_key_def_t *loc__conf_key_def(int key)
{
	return &_defs[key];
}

void loc__conf_defaults(loc_conf_t *conf)
{
	_defaults(conf, KH_SHAPE);
	_defaults(conf, KH_CONF);
	loc_policy_init(&conf->policy);
}

void loc_policy_init(loc_policy_t *policy)
{
	memset(policy, 0, sizeof(*policy));
	_defaults(policy, KH_POLICY);
}

const char *loc__conf_format(const loc_conf_t *conf, const loc_policy_t *pol,
			     int key, char *buf, size_t len)
{
	const conf_key_def_t *d = &_defs[key];
	const char *field;

	if (d->home == KH_LINE)
		return NULL;
	if (key == LOC_KEY_DIMENSIONS)
		return loc__conf_shape_str(&conf->shape, buf, len);
	if (key == LOC_KEY_TORUS) {
		size_t o = 0;

		buf[0] = '\0';
		for (int i = 0; i < conf->shape.ndims && o < len; i++)
			o += snprintf(buf + o, len - o, "%s%s", i ? "," : "",
				      conf->shape.torus[i] ? "yes" : "no");
		return buf;
	}
	field = d->home == KH_POLICY ? (const char *)pol + d->off :
				       (const char *)conf + d->off;
	switch (d->type) {
	case KT_INT:
		snprintf(buf, len, "%lld", _get_int(field, d->size));
		break;
	case KT_REAL: {
		double v;

		memcpy(&v, field, sizeof(v));
		snprintf(buf, len, "%g", v);
		break;
	}
	case KT_SEED: {
		uint64_t v;

		memcpy(&v, field, sizeof(v));
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
	case KT_ENUM:
		snprintf(buf, len, "%s",
			 d->names->name((int)_get_int(field, d->size)));
		break;
	case KT_SYNTAX:
		return NULL;
	}
	return buf;
}

const loc_conf_key_info_t *loc_conf_key_info(int key)
{
	if (key < 0 || key >= LOC_KEY_COUNT)
		return NULL;
	return &_defs[key].info;
}

const char *loc_conf_key_value(const loc_conf_t *conf, const char *partition,
			       int key, char *buf, size_t len)
{
	if (!conf || !buf || !len || key < 0 || key >= LOC_KEY_COUNT)
		return NULL;
	return loc__conf_format(conf, loc_conf_policy(conf, partition), key,
				buf, len);
}

const char *const *loc_conf_keys(void)
{
	return _names;
}

const char *loc_conf_policy_key_value(const loc_policy_t *pol, int key,
				      char *buf, size_t len)
{
	if (!pol || !buf || !len || key < 0 || key >= LOC_KEY_COUNT ||
	    _defs[key].home != KH_POLICY)
		return NULL;
	return loc__conf_format(NULL, pol, key, buf, len);
}

const char *loc_conf_overrides_value(const loc_conf_overrides_t *ov, int key,
				     char *buf, size_t len)
{
	if (!ov || !buf || !len || key < 0 || key >= LOC_KEY_COUNT ||
	    _defs[key].type == KT_SYNTAX)
		return NULL;
	return loc__conf_format(&ov->values, &ov->values.policy, key, buf,
				len);
}

bool loc_conf_policy_key_equal(const loc_policy_t *a, const loc_policy_t *b,
			       int key)
{
	const conf_key_def_t *d;
	double x, y;

	if (key < 0 || key >= LOC_KEY_COUNT || _defs[key].home != KH_POLICY)
		return false;
	d = &_defs[key];
	if (d->type != KT_REAL)
		return !memcmp((const char *)a + d->off,
			       (const char *)b + d->off, d->size);
	/* as ==: 0 and -0 are one value */
	memcpy(&x, (const char *)a + d->off, sizeof(x));
	memcpy(&y, (const char *)b + d->off, sizeof(y));
	return x == y;
}
