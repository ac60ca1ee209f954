/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_keys.c - what each locality.conf key means: the syntax of each
 * type of value of loc_conf_key_table.h, the keys with a syntax of their
 * own (Dimensions, Torus), and the NodeName, PartitionName and GresName
 * lines. The reader (loc_conf.c) hands each logical line here as
 * Key=Value tokens.
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
#define CONF_GRES_MAX 64             /* a line per GRES a site defines */
#define CONF_POINTS_MAX (1LL << 26)  /* as loc_grid_create() accepts */
#define CONF_NAME_BYTES_MAX (64LL << 20) /* node names on all NodeName lines */

/* ===================================================================== */
/* Internal functions: helpers                                           */
/* ===================================================================== */

/* Returns the name of key, as locality.conf spells it. */
static const char *_key_name(int key)
{
	return loc__conf_key_def(key)->info.name;
}

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
				      _key_name(key), val);
	if (rc == -2)
		return loc__conf_perr(p, line,
				      "%s: '%.64s' is out of range %lld-%lld",
				      _key_name(key), val, min, max);
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
static const char *_names(const conf_enum_names_t *names, char *buf,
			  size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < names->count && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%s", i ? " " : "",
			      names->name(i));
	return buf;
}

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

/* Applies a KT_ENUM key to the field at field. */
static int _enum_key(conf_parser_t *p, int key, const char *val, int line,
		     char *field)
{
	const conf_key_def_t *d = loc__conf_key_def(key);
	char hint[200];
	int k = d->names->parse(val);

	if (k < 0)
		return loc__conf_perr(p, line,
				      "%s: unknown %s '%.64s' (valid: %s)",
				      _key_name(key), d->what, val,
				      _names(d->names, hint, sizeof(hint)));
	memcpy(field, &k, sizeof(k));
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
				      _key_name(key), val);
	errno = 0;
	d = strtod(val, &end);
	if (*end || end == val || errno || !isfinite(d))
		return loc__conf_perr(p, line, "%s: '%.64s' is not a number",
				      _key_name(key), val);
	if (d < 0)
		return loc__conf_perr(p, line,
				      "%s: '%.64s' is negative (must be >= 0)",
				      _key_name(key), val);
	*out = d;
	return 0;
}

/* Stores val, checked against the range of key, in its int or int64_t
 * field at field. */
static int _int_field(conf_parser_t *p, int key, const char *val, int line,
		      char *field)
{
	const conf_key_def_t *d = loc__conf_key_def(key);
	long long v = 0; /* set when _int_key() returns 0 */

	if (_int_key(p, key, val, line, d->info.min, d->info.max, &v))
		return LOC_EPARSE;
	loc__conf_store_int(field, d->size, v);
	return 0;
}

static int _seed_key(conf_parser_t *p, int key, const char *val, int line,
		     char *field)
{
	char *end;
	unsigned long long s;
	uint64_t seed;

	if (strspn(val, "0123456789") != strlen(val) || strlen(val) > 20)
		return loc__conf_perr(p, line,
				      "%s: '%.64s' is not an unsigned 64-bit integer",
				      _key_name(key), val);
	errno = 0;
	s = strtoull(val, &end, 10);
	if (errno || *end)
		return loc__conf_perr(p, line,
				      "%s: '%.64s' is not an unsigned 64-bit integer",
				      _key_name(key), val);
	seed = s;
	memcpy(field, &seed, sizeof(seed));
	return 0;
}

/* Applies a key with a value of its table's type: to conf for the shape
 * and conf keys, to pol (global or a partition's) for the policy keys. */
static int _value_key(conf_parser_t *p, loc_policy_t *pol, int key,
		      const char *val, int line)
{
	const conf_key_def_t *d = loc__conf_key_def(key);
	char *field = d->home == KH_POLICY ? (char *)pol + d->off :
					     (char *)p->conf + d->off;
	double r = 0; /* set when _fraction_key() returns 0 */

	switch (d->home == KH_LINE ? KT_SYNTAX : d->type) {
	case KT_INT:
		return _int_field(p, key, val, line, field);
	case KT_REAL:
		if (_fraction_key(p, key, val, line, &r))
			return LOC_EPARSE;
		memcpy(field, &r, sizeof(r));
		return 0;
	case KT_SEED:
		return _seed_key(p, key, val, line, field);
	case KT_ENUM:
		return _enum_key(p, key, val, line, field);
	case KT_SYNTAX:
		break;
	}
	return loc__conf_perr(p, line, "%s is not a policy key",
			      _key_name(key));
}

void loc__conf_policy_copy(loc_policy_t *dst, const loc_policy_t *src, int key)
{
	const conf_key_def_t *d = loc__conf_key_def(key);

	if (d->home == KH_POLICY)
		memcpy((char *)dst + d->off, (const char *)src + d->off,
		       d->size);
}

/* ===================================================================== */
/* External functions: one key's value outside a file                    */
/* ===================================================================== */

/* The set mask has a bit per key. */
_Static_assert(LOC_KEY_COUNT <= 32, "loc_conf_overrides_t.set is too small");

int loc_conf_key_parse_value(loc_conf_t *conf, loc_policy_t *pol, int key,
			     const char *text, char *err, size_t errlen)
{
	const conf_key_def_t *d;
	loc_error_t e = { 0 };
	conf_parser_t p = { .conf = conf, .err = &e };
	int rc;

	if (key < 0 || key >= LOC_KEY_COUNT || !text)
		return LOC_EINVAL;
	d = loc__conf_key_def(key);
	if (d->home == KH_LINE || d->type == KT_SYNTAX ||
	    (d->home == KH_POLICY ? !pol : !conf)) {
		if (err && errlen)
			snprintf(err, errlen, "%s has no single value to set",
				 _key_name(key));
		return LOC_EINVAL;
	}
	/* the file's own handler, without a file or line to name */
	rc = _value_key(&p, pol, key, text, 0);
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", e.text);
	return rc;
}

int loc_conf_overrides_parse(loc_conf_overrides_t *ov, int key,
			     const char *text, char *err, size_t errlen)
{
	int rc = loc_conf_key_parse_value(&ov->values, &ov->values.policy, key,
					  text, err, errlen);

	if (!rc)
		loc_conf_overrides_mark(ov, key);
	return rc;
}

void loc_conf_overrides_mark(loc_conf_overrides_t *ov, int key)
{
	if (key >= 0 && key < LOC_KEY_COUNT)
		ov->set |= 1u << key;
}

bool loc_conf_overrides_has(const loc_conf_overrides_t *ov, int key)
{
	return key >= 0 && key < LOC_KEY_COUNT && (ov->set & (1u << key));
}

void loc_conf_overrides_apply(const loc_conf_overrides_t *ov, loc_conf_t *conf,
			      loc_policy_t *pol)
{
	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		const conf_key_def_t *d = loc__conf_key_def(k);

		if (!(ov->set & (1u << k)) || d->type == KT_SYNTAX)
			continue;
		if (d->home == KH_POLICY && pol)
			loc__conf_policy_copy(pol, &ov->values.policy, k);
		else if ((d->home == KH_CONF || d->home == KH_SHAPE) && conf)
			memcpy((char *)conf + d->off,
			       (const char *)&ov->values + d->off, d->size);
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

	if (p->set_line[t->key])
		return loc__conf_perr(p, t->line,
				      "duplicate key '%s' (already set on line %d)",
				      _key_name(t->key), p->set_line[t->key]);
	p->set_line[t->key] = t->line;
	switch (t->key) {
	case LOC_KEY_DIMENSIONS:
		return _dimensions(p, t->val, t->line);
	case LOC_KEY_TORUS:
		return _torus(p, t->val, t->line);
	case LOC_KEY_COORDS:
		return loc__conf_perr(p, t->line,
				      "Coords is only valid on a NodeName line");
	}
	return _value_key(p, &c->policy, t->key, t->val, t->line);
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
		if (p->tok[i].key != LOC_KEY_COORDS)
			return loc__conf_perr(p, p->tok[i].line,
					      "key '%s' is not valid on a NodeName line (only Coords is)",
					      _key_name(p->tok[i].key));
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

/* Parses the policy keys after the first token of a PartitionName or
 * GresName line (what) into ovr, their bits into *mask. */
static int _override_keys(conf_parser_t *p, const char *what,
			  loc_policy_t *ovr, uint32_t *mask)
{
	loc_policy_init(ovr);
	*mask = 0;
	for (int i = 1; i < p->ntok; i++) {
		const conf_tok_t *t = &p->tok[i];

		if (!loc__conf_key_def(t->key)->info.partition)
			return loc__conf_perr(p, t->line,
					      "key '%s' is not valid on a %s line",
					      _key_name(t->key), what);
		if (*mask & (1u << t->key))
			return loc__conf_perr(p, t->line,
					      "duplicate key '%s' on this %s line",
					      _key_name(t->key), what);
		*mask |= 1u << t->key;
		if (_value_key(p, ovr, t->key, t->val, t->line))
			return LOC_EPARSE;
	}
	return 0;
}

int loc__conf_partition(conf_parser_t *p)
{
	loc_conf_t *c = p->conf;
	loc_conf_partition_t *pt;
	const char *name = p->tok[0].val;
	int line = p->tok[0].line, np = c->npartitions;
	uint32_t mask;
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
	if (_override_keys(p, "PartitionName", &ovr, &mask))
		return LOC_EPARSE;
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

int loc__conf_gres(conf_parser_t *p)
{
	loc_conf_t *c = p->conf;
	loc_conf_gres_t *gr;
	const char *name = p->tok[0].val;
	int line = p->tok[0].line, ng = c->ngres;
	uint32_t mask;
	loc_policy_t ovr;

	/* A GRES name as slurm.conf's GresTypes spells one; a type
	 * (gpu:a100) is not a GRES of its own to Slurm's job records. */
	if (strchr(name, ':'))
		return loc__conf_perr(p, line,
				      "GresName: '%.64s' names a type; name the GRES alone (as in GresTypes, e.g. GresName=gpu)",
				      name);
	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_-") != strlen(name))
		return loc__conf_perr(p, line,
				      "GresName: '%.64s' is not a valid GRES name",
				      name);
	for (int i = 0; i < ng; i++)
		if (!strcmp(c->gres[i].name, name))
			return loc__conf_perr(p, line,
					      "duplicate GresName '%.64s' (first on line %d)",
					      name, c->gres[i].line);
	if (ng == CONF_GRES_MAX)
		return loc__conf_perr(p, line, "more than %d GresName lines",
				      CONF_GRES_MAX);
	if (_override_keys(p, "GresName", &ovr, &mask))
		return LOC_EPARSE;
	if (loc__conf_grow(&c->gres, &p->gres_cap, ng, sizeof(*c->gres)) ||
	    loc__conf_grow(&p->govr, &p->govr_cap, ng, sizeof(loc_policy_t)))
		return loc__conf_nomem(p);
	gr = &c->gres[ng];
	memset(gr, 0, sizeof(*gr));
	gr->name = strdup(name);
	gr->keys = mask;
	gr->line = line;
	p->govr[ng] = ovr;
	c->ngres++;
	return gr->name ? 0 : loc__conf_nomem(p);
}

/* ===================================================================== */
/* Key names                                                             */
/* ===================================================================== */

int loc__conf_key(const char *s)
{
	for (int k = 0; k < LOC_KEY_COUNT; k++)
		if (!strcasecmp(s, _key_name(k)))
			return k;
	return -1;
}
