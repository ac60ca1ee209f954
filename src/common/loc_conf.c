/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf.c - the locality.conf parser and the node -> grid placement.
 *
 * The format is described in loc_conf.h and doc/locality.conf.5. The parser
 * reads a whole file into memory, joins continued lines, splits them into
 * Key=Value tokens (remembering each token's physical line for messages),
 * applies them, and checks what depends on the whole file (Dimensions may
 * come after the lines that need it) in a final pass. Nothing is guessed:
 * every doubt is an error naming file, line and the offending text.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loc_conf.h"
#include "loc_hostlist.h"

#define CONF_LINE_MAX 65536          /* bytes in one physical line */
#define CONF_LOGICAL_MAX (1 << 20)   /* bytes in one continued line */
#define CONF_FILE_MAX (64 << 20)     /* bytes in one file */
#define CONF_PARTITIONS_MAX 1024
#define CONF_NPP_MAX 65536           /* as loc_grid_create() accepts */
#define CONF_POINTS_MAX (1LL << 26)  /* as loc_grid_create() accepts */
#define CONF_NAME_BYTES_MAX (64LL << 20) /* node names on all NodeName lines */

/* ===================================================================== */
/* Internal variables                                                    */
/* ===================================================================== */

enum {
	K_DIMENSIONS,
	K_TORUS,
	K_NPP,
	K_STRATEGY,
	K_CURVE,
	K_WALLTIME,
	K_SLTOL,
	K_PFHOLD,
	K_ADJEST,
	K_PAGING_SIZE,
	K_PAGING_INDEX,
	K_MM_CENTERS,
	K_SEED,
	K_NODENAME,
	K_COORDS,
	K_PARTITION,
	K_COUNT
};

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
	[K_NODENAME] = "NodeName",
	[K_COORDS] = "Coords",
	[K_PARTITION] = "PartitionName",
	[K_COUNT] = NULL,
};

/* The policy keys a PartitionName line may override. */
#define PART_KEYS                                                       \
	((1u << K_STRATEGY) | (1u << K_CURVE) | (1u << K_WALLTIME) |    \
	 (1u << K_SLTOL) | (1u << K_PAGING_SIZE) | (1u << K_PAGING_INDEX) | \
	 (1u << K_MM_CENTERS) | (1u << K_SEED))

/* One Key=Value token of a logical line. */
typedef struct conf_tok {
	int key;
	const char *val; /* NUL-terminated inside the logical line buffer */
	int line;
} conf_tok_t;

/* Where each physical line starts inside the logical line. */
typedef struct conf_seg {
	size_t off;
	int line;
} conf_seg_t;

typedef struct conf_parser {
	loc_conf_t *conf;
	loc_error_t *err;
	const char *name;
	int set_line[K_COUNT];       /* line of each global key, 0 = unset */
	bool torus[LOC_MAX_DIMS];
	int ntorus;
	int *ncoords;                /* per NodeName line: values in Coords */
	unsigned *pmask;             /* per partition: keys it overrides */
	loc_policy_t *povr;          /* per partition: the override values */
	long long nnames;            /* names on all NodeName lines */
	long long nbytes;            /* their bytes, NULs included */
	int nodes_cap, ncoords_cap, part_cap, pmask_cap, povr_cap;
	char *lbuf;                  /* the logical line being built */
	size_t llen, lcap;
	conf_seg_t *seg;
	int nseg, segcap;
	conf_tok_t *tok;
	int ntok, tokcap;
} conf_parser_t;

/* ===================================================================== */
/* Internal functions: helpers                                           */
/* ===================================================================== */

static int _perr(conf_parser_t *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fills the error with the file and line; returns LOC_EPARSE. */
static int _perr(conf_parser_t *p, int line, const char *fmt, ...)
{
	char text[LOC_ERROR_TEXT_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(text))
		text[sizeof(text) - 2] = '+';
	return loc_error_set(p->err, LOC_EPARSE, p->name, line, "%s", text);
}

static int _nomem(conf_parser_t *p)
{
	return loc_error_set(p->err, LOC_ENOMEM, p->name, 0, "out of memory");
}

/*
 * Grows the array whose pointer is at arrp (elements of size sz, capacity
 * *cap) so that index n is valid. The pointer is read and written with
 * memcpy so that any element type can share this helper.
 * Returns 0, or -1 (array unchanged) when out of memory.
 */
static int _grow(void *arrp, int *cap, int n, size_t sz)
{
	void *arr, *t;
	int ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 16;
	while (ncap <= n)
		ncap *= 2;
	memcpy(&arr, arrp, sizeof(arr));
	t = realloc(arr, sz * ncap);
	if (!t)
		return -1;
	memcpy(arrp, &t, sizeof(t));
	*cap = ncap;
	return 0;
}

/* Returns the length of the valid UTF-8 sequence at s (n bytes left), or
 * 0 when it is malformed (overlong, surrogate, beyond U+10FFFF, cut). */
static int _utf8_len(const unsigned char *s, size_t n)
{
	unsigned cp;
	int len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
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
		return _perr(p, line, "%s: '%.64s' is not an integer",
			     _keys[key], val);
	if (rc == -2)
		return _perr(p, line, "%s: '%.64s' is out of range %lld-%lld",
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

/* Applies a policy key (global or partition) to pol. */
static int _policy_key(conf_parser_t *p, loc_policy_t *pol, int key,
		       const char *val, int line)
{
	char hint[200];
	long long v;
	int k;

	switch (key) {
	case K_STRATEGY:
		k = loc_strategy_kind_parse(val);
		if (k < 0)
			return _perr(p, line,
				     "Strategy: unknown strategy '%.64s' (valid: %s)",
				     val,
				     _names(_strategy_name, LOC_STRATEGY_COUNT,
					    hint, sizeof(hint)));
		pol->strategy = (loc_strategy_kind_t)k;
		return 0;
	case K_CURVE:
		k = loc_curve_kind_parse(val);
		if (k < 0)
			return _perr(p, line,
				     "Curve: unknown curve '%.64s' (valid: %s)",
				     val,
				     _names(_curve_name, LOC_CURVE_COUNT, hint,
					    sizeof(hint)));
		pol->curve = (loc_curve_kind_t)k;
		return 0;
	case K_WALLTIME:
		k = loc_walltime_mode_parse(val);
		if (k < 0)
			return _perr(p, line,
				     "WalltimeAware: unknown mode '%.64s' (valid: %s)",
				     val,
				     _names(_walltime_name, LOC_WALLTIME_COUNT,
					    hint, sizeof(hint)));
		pol->walltime = (loc_walltime_mode_t)k;
		return 0;
	case K_PAGING_INDEX:
		k = loc_paging_index_parse(val);
		if (k < 0)
			return _perr(p, line,
				     "PagingIndex: unknown indexing '%.64s' (valid: %s)",
				     val,
				     _names(_paging_name, LOC_PAGING_COUNT, hint,
					    sizeof(hint)));
		pol->paging_index = (loc_paging_index_t)k;
		return 0;
	case K_SLTOL: {
		char *end;
		double d;

		/* Plain decimal notation only: no hex, inf or nan. */
		if (strspn(val, "0123456789.eE+-") != strlen(val) ||
		    strlen(val) > 32)
			return _perr(p, line,
				     "SLTolerance: '%.64s' is not a number",
				     val);
		errno = 0;
		d = strtod(val, &end);
		if (*end || end == val || errno || !isfinite(d))
			return _perr(p, line,
				     "SLTolerance: '%.64s' is not a number",
				     val);
		if (d < 0)
			return _perr(p, line,
				     "SLTolerance: '%.64s' is negative (must be >= 0)",
				     val);
		pol->sl_tolerance = d;
		return 0;
	}
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
			return _perr(p, line,
				     "Seed: '%.64s' is not an unsigned 64-bit integer",
				     val);
		errno = 0;
		s = strtoull(val, &end, 10);
		if (errno || *end)
			return _perr(p, line,
				     "Seed: '%.64s' is not an unsigned 64-bit integer",
				     val);
		pol->seed = s;
		return 0;
	}
	}
	return _perr(p, line, "%s is not a policy key", _keys[key]);
}

/* Copies the field of key from src to dst (partition overrides). */
static void _policy_copy(loc_policy_t *dst, const loc_policy_t *src, int key)
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
	}
}

static int _dimensions(conf_parser_t *p, const char *val, int line)
{
	loc_shape_t *shape = &p->conf->shape;
	long long v[LOC_MAX_DIMS], points = 1;
	int n = _int_list(val, "xX", v);

	if (n < 0)
		return _perr(p, line,
			     "Dimensions: '%.64s' is not a shape like 8x8x4 (1 to %d sizes)",
			     val, LOC_MAX_DIMS);
	for (int d = 0; d < n; d++) {
		if (v[d] < 1)
			return _perr(p, line,
				     "Dimensions: size %d in '%.64s' is 0 (each must be >= 1)",
				     d + 1, val);
		points *= v[d];
		if (points > CONF_POINTS_MAX)
			return _perr(p, line,
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
			return _perr(p, line,
				     "Torus: '%.64s' is not yes/no or a list of %d yes/no values",
				     val, LOC_MAX_DIMS);
		if (p->ntorus == LOC_MAX_DIMS)
			return _perr(p, line,
				     "Torus: '%.64s' has more than %d values",
				     val, LOC_MAX_DIMS);
		p->torus[p->ntorus++] = b;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* Applies a global (not record) key. */
static int _global_key(conf_parser_t *p, const conf_tok_t *t)
{
	loc_conf_t *c = p->conf;
	long long v;

	if (p->set_line[t->key])
		return _perr(p, t->line,
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
		return _perr(p, t->line,
			     "Coords is only valid on a NodeName line");
	}
	return _policy_key(p, &c->policy, t->key, t->val, t->line);
}

/* ===================================================================== */
/* Internal functions: records                                           */
/* ===================================================================== */

static int _nodename(conf_parser_t *p)
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
			return _perr(p, p->tok[i].line,
				     "key '%s' is not valid on a NodeName line (only Coords is)",
				     _keys[p->tok[i].key]);
		if (coords)
			return _perr(p, p->tok[i].line,
				     "duplicate key 'Coords' on this NodeName line");
		coords = &p->tok[i];
	}
	if (!coords)
		return _perr(p, line, "NodeName=%.64s has no Coords=",
			     p->tok[0].val);
	n = _int_list(coords->val, ",", v);
	if (n < 0)
		return _perr(p, coords->line,
			     "Coords: '%.64s' is not a list like 0,0,0 of 1 to %d non-negative integers",
			     coords->val, LOC_MAX_DIMS);
	if (loc_hostlist_expand(p->tok[0].val, &hl, &herr))
		return herr.code == LOC_ENOMEM ?
			       _nomem(p) :
			       _perr(p, line, "NodeName: %s", herr.text);
	p->nnames += hl.count;
	if (p->nnames > LOC_HOSTLIST_MAX) {
		loc_hostlist_free(&hl);
		return _perr(p, line,
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
		return _perr(p, line,
			     "NodeName lines name more than %d MiB of nodes in all",
			     (int)(CONF_NAME_BYTES_MAX >> 20));
	}
	if (_grow(&c->nodes, &p->nodes_cap, c->nnodes_lines,
		  sizeof(*c->nodes)) ||
	    _grow(&p->ncoords, &p->ncoords_cap, c->nnodes_lines,
		  sizeof(int))) {
		loc_hostlist_free(&hl);
		return _nomem(p);
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
		return _nomem(p);
	return 0;
}

static int _partition(conf_parser_t *p)
{
	loc_conf_t *c = p->conf;
	loc_conf_partition_t *pt;
	const char *name = p->tok[0].val;
	int line = p->tok[0].line, np = c->npartitions;
	unsigned mask = 0;
	loc_policy_t ovr;

	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._-+@:") != strlen(name))
		return _perr(p, line,
			     "PartitionName: '%.64s' is not a valid partition name",
			     name);
	for (int i = 0; i < np; i++)
		if (!strcmp(c->partitions[i].name, name))
			return _perr(p, line,
				     "duplicate PartitionName '%.64s' (first on line %d)",
				     name, c->partitions[i].line);
	if (np == CONF_PARTITIONS_MAX)
		return _perr(p, line, "more than %d PartitionName lines",
			     CONF_PARTITIONS_MAX);
	loc_policy_init(&ovr);
	for (int i = 1; i < p->ntok; i++) {
		const conf_tok_t *t = &p->tok[i];

		if (!(PART_KEYS & (1u << t->key)))
			return _perr(p, t->line,
				     "key '%s' is not valid on a PartitionName line",
				     _keys[t->key]);
		if (mask & (1u << t->key))
			return _perr(p, t->line,
				     "duplicate key '%s' on this PartitionName line",
				     _keys[t->key]);
		mask |= 1u << t->key;
		if (_policy_key(p, &ovr, t->key, t->val, t->line))
			return LOC_EPARSE;
	}
	if (_grow(&c->partitions, &p->part_cap, np,
		  sizeof(*c->partitions)) ||
	    _grow(&p->pmask, &p->pmask_cap, np, sizeof(unsigned)) ||
	    _grow(&p->povr, &p->povr_cap, np, sizeof(loc_policy_t)))
		return _nomem(p);
	pt = &c->partitions[np];
	pt->name = strdup(name);
	pt->line = line;
	p->pmask[np] = mask;
	p->povr[np] = ovr;
	c->npartitions++;
	return pt->name ? 0 : _nomem(p);
}

/* ===================================================================== */
/* Internal functions: lines                                             */
/* ===================================================================== */

/* Appends a physical line's content s[0..n) to the logical line. */
static int _append(conf_parser_t *p, const char *s, size_t n, int line)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return _perr(p, line,
				     "control character 0x%02x at column %zu",
				     c, i + 1);
		if (c >= 0x80)
			return _perr(p, line,
				     "non-ASCII byte 0x%02x at column %zu (only comments may hold UTF-8)",
				     c, i + 1);
	}
	if (p->llen + n + 2 > CONF_LOGICAL_MAX)
		return _perr(p, line,
			     "continued line is longer than %d bytes",
			     CONF_LOGICAL_MAX);
	if (p->llen + n + 2 > p->lcap) {
		size_t cap = p->lcap ? p->lcap : 256;
		char *t;

		while (cap < p->llen + n + 2)
			cap *= 2;
		t = realloc(p->lbuf, cap);
		if (!t)
			return _nomem(p);
		p->lbuf = t;
		p->lcap = cap;
	}
	if (_grow(&p->seg, &p->segcap, p->nseg, sizeof(*p->seg)))
		return _nomem(p);
	p->seg[p->nseg].off = p->llen;
	p->seg[p->nseg++].line = line;
	memcpy(p->lbuf + p->llen, s, n);
	p->llen += n;
	p->lbuf[p->llen++] = ' ';
	p->lbuf[p->llen] = '\0';
	return 0;
}

/* Returns the key named by s (case-insensitive), or -1. */
static int _key(const char *s)
{
	for (int k = 0; k < K_COUNT; k++)
		if (!strcasecmp(s, _keys[k]))
			return k;
	return -1;
}

/* Splits the logical line into Key=Value tokens. */
static int _tokenize(conf_parser_t *p)
{
	char *b = p->lbuf;
	size_t i = 0;
	int si = 0;

	p->ntok = 0;
	while (i < p->llen) {
		size_t start;
		char *eq;
		int key, line;

		while (i < p->llen && (b[i] == ' ' || b[i] == '\t'))
			i++;
		if (i == p->llen)
			break;
		start = i;
		while (i < p->llen && b[i] != ' ' && b[i] != '\t')
			i++;
		b[i++] = '\0';
		while (si + 1 < p->nseg && p->seg[si + 1].off <= start)
			si++;
		line = p->seg[si].line;
		eq = strchr(b + start, '=');
		if (!eq)
			return _perr(p, line,
				     "expected Key=Value, found '%.64s'",
				     b + start);
		*eq = '\0';
		if (eq == b + start)
			return _perr(p, line, "missing key before '=%.64s'",
				     eq + 1);
		key = _key(b + start);
		if (key < 0)
			return _perr(p, line, "unknown key '%.64s'", b + start);
		if (!eq[1])
			return _perr(p, line, "%s: empty value", _keys[key]);
		if (_grow(&p->tok, &p->tokcap, p->ntok,
			  sizeof(*p->tok)))
			return _nomem(p);
		p->tok[p->ntok].key = key;
		p->tok[p->ntok].val = eq + 1;
		p->tok[p->ntok++].line = line;
	}
	return 0;
}

/* Applies one logical line. */
static int _logical(conf_parser_t *p)
{
	int rc = _tokenize(p);

	p->llen = 0;
	p->nseg = 0;
	if (rc || !p->ntok)
		return rc;
	if (p->tok[0].key == K_NODENAME)
		return _nodename(p);
	if (p->tok[0].key == K_PARTITION)
		return _partition(p);
	for (int i = 0; i < p->ntok; i++) {
		const conf_tok_t *t = &p->tok[i];

		if (t->key == K_NODENAME || t->key == K_PARTITION)
			return _perr(p, t->line,
				     "%s must be the first key on its line",
				     _keys[t->key]);
		rc = _global_key(p, t);
		if (rc)
			return rc;
	}
	return 0;
}

/* Splits buf into physical lines, strips comments, joins continuations. */
static int _lines(conf_parser_t *p, const char *buf, size_t len)
{
	size_t pos = 0;
	int line = 0, rc;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		const char *hash;
		bool cont;

		line++;
		pos += n + 1;
		if (n > CONF_LINE_MAX)
			return _perr(p, line, "line is longer than %d bytes",
				     CONF_LINE_MAX);
		if (memchr(s, '\0', n))
			return _perr(p, line,
				     "NUL byte at column %zu",
				     (size_t)((const char *)memchr(s, '\0', n) -
					      s) + 1);
		for (size_t i = 0; i < n;) {
			int l = _utf8_len((const unsigned char *)s + i, n - i);

			if (!l)
				return _perr(p, line,
					     "invalid UTF-8 byte 0x%02x at column %zu",
					     (unsigned char)s[i], i + 1);
			i += l;
		}
		if (n && s[n - 1] == '\r')
			n--;
		hash = memchr(s, '#', n);
		if (hash)
			n = hash - s;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		cont = n && s[n - 1] == '\\';
		if (cont)
			n--;
		rc = _append(p, s, n, line);
		if (rc)
			return rc;
		if (cont) {
			if (pos >= len)
				return _perr(p, line,
					     "'\\' continues the last line past the end of the file");
			continue;
		}
		rc = _logical(p);
		if (rc)
			return rc;
	}
	return 0;
}

/* Returns the row-major point of coord in shape. */
static long long _point(const loc_shape_t *shape, const loc_coord_t *c)
{
	long long pt = 0;

	for (int d = 0; d < shape->ndims; d++)
		pt = pt * shape->dims[d] + c->c[d];
	return pt;
}

static long long _npoints(const loc_shape_t *shape)
{
	long long n = 1;

	for (int d = 0; d < shape->ndims; d++)
		n *= shape->dims[d];
	return n;
}

/* Formats "8x8x4" into buf. */
static const char *_shape_str(const loc_shape_t *shape, char *buf,
			      size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 0; d < shape->ndims && o < len; d++)
		o += snprintf(buf + o, len - o, "%s%d", d ? "x" : "",
			      shape->dims[d]);
	return buf;
}

/* Formats "3,1,0" into buf. */
static const char *_coord_str(int ndims, const loc_coord_t *c, char *buf,
			      size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 0; d < ndims && o < len; d++)
		o += snprintf(buf + o, len - o, "%s%d", d ? "," : "", c->c[d]);
	return buf;
}

/* The checks that need the whole file. */
static int _finish(conf_parser_t *p)
{
	loc_conf_t *c = p->conf;
	loc_shape_t *sh = &c->shape;
	long long npoints;
	char b1[64], b2[64];

	if (!p->set_line[K_DIMENSIONS])
		return _perr(p, 0,
			     "missing required key Dimensions (e.g. Dimensions=8x8x4)");
	if (p->ntorus > 1 && p->ntorus != sh->ndims)
		return _perr(p, p->set_line[K_TORUS],
			     "Torus: %d values but Dimensions=%s has %d dimensions (give one value or one per dimension)",
			     p->ntorus, _shape_str(sh, b1, sizeof(b1)),
			     sh->ndims);
	for (int d = 0; d < sh->ndims; d++)
		sh->torus[d] = p->ntorus == 1 ? p->torus[0] :
			       p->ntorus ? p->torus[d] : false;
	npoints = _npoints(sh);
	for (int i = 0; i < c->nnodes_lines; i++) {
		const loc_conf_nodes_t *nl = &c->nodes[i];
		long long last;

		if (p->ncoords[i] != sh->ndims)
			return _perr(p, nl->line,
				     "Coords: %d values but Dimensions=%s has %d dimensions",
				     p->ncoords[i], _shape_str(sh, b1, sizeof(b1)),
				     sh->ndims);
		for (int d = 0; d < sh->ndims; d++)
			if (nl->start.c[d] >= sh->dims[d])
				return _perr(p, nl->line,
					     "Coords: %d is outside dimension %d (0-%d) of Dimensions=%s",
					     nl->start.c[d], d, sh->dims[d] - 1,
					     _shape_str(sh, b1, sizeof(b1)));
		last = _point(sh, &nl->start) +
		       (nl->count - 1) / sh->nodes_per_point;
		if (last >= npoints)
			return _perr(p, nl->line,
				     "NodeName: %d nodes from Coords=%s run off the end of the %s grid (node '%.64s' is the first that does not fit)",
				     nl->count,
				     _coord_str(sh->ndims, &nl->start, b2,
						sizeof(b2)),
				     _shape_str(sh, b1, sizeof(b1)),
				     nl->names[(npoints -
						_point(sh, &nl->start)) *
					       sh->nodes_per_point]);
	}
	for (int i = 0; i < c->npartitions; i++) {
		c->partitions[i].policy = c->policy;
		for (int k = 0; k < K_COUNT; k++)
			if (p->pmask[i] & (1u << k))
				_policy_copy(&c->partitions[i].policy,
					     &p->povr[i], k);
	}
	return 0;
}

/* ===================================================================== */
/* External functions                                                    */
/* ===================================================================== */

loc_conf_t *loc_conf_parse_mem(const char *buf, size_t len, const char *name,
			       loc_error_t *err)
{
	conf_parser_t p = { .err = err, .name = name ? name : "" };
	int rc;

	loc_error_clear(err);
	if (!buf && len) {
		loc_error_set(err, LOC_EINVAL, p.name, 0, "no text to parse");
		return NULL;
	}
	p.conf = calloc(1, sizeof(*p.conf));
	if (!p.conf || !(p.conf->path = strdup(p.name))) {
		_nomem(&p);
		free(p.conf);
		return NULL;
	}
	p.conf->shape.nodes_per_point = 1;
	loc_policy_init(&p.conf->policy);
	p.conf->pf_hold_sec = 300;
	p.conf->adjest_window = 10;
	rc = _lines(&p, buf ? buf : "", len);
	if (!rc)
		rc = _finish(&p);
	free(p.lbuf);
	free(p.seg);
	free(p.tok);
	free(p.ncoords);
	free(p.pmask);
	free(p.povr);
	if (rc) {
		loc_conf_destroy(p.conf);
		return NULL;
	}
	return p.conf;
}

loc_conf_t *loc_conf_parse(const char *text, const char *name,
			   loc_error_t *err)
{
	if (!text) {
		loc_error_set(err, LOC_EINVAL, name, 0, "no text to parse");
		return NULL;
	}
	return loc_conf_parse_mem(text, strlen(text), name, err);
}

loc_conf_t *loc_conf_load(const char *path, loc_error_t *err)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	loc_conf_t *conf;
	FILE *f;

	if (!path) {
		loc_error_set(err, LOC_EINVAL, NULL, 0, "no file name");
		return NULL;
	}
	f = fopen(path, "rb");
	if (!f) {
		loc_error_set(err, LOC_EIO, path, 0, "cannot open: %s",
			      strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got, want;

		if (len == cap) {
			char *t;

			cap = cap ? 2 * cap : 65536;
			t = realloc(buf, cap);
			if (!t) {
				loc_error_set(err, LOC_ENOMEM, path, 0,
					      "out of memory reading the file");
				goto fail;
			}
			buf = t;
		}
		want = cap - len;
		got = fread(buf + len, 1, want, f);
		len += got;
		if (len > CONF_FILE_MAX) {
			loc_error_set(err, LOC_ERANGE, path, 0,
				      "file is larger than %d MiB",
				      CONF_FILE_MAX >> 20);
			goto fail;
		}
		if (got < want) {
			if (ferror(f)) {
				loc_error_set(err, LOC_EIO, path, 0,
					      "cannot read: %s",
					      strerror(errno));
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	conf = loc_conf_parse_mem(buf, len, path, err);
	free(buf);
	return conf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

void loc_conf_destroy(loc_conf_t *conf)
{
	if (!conf)
		return;
	for (int i = 0; i < conf->nnodes_lines; i++) {
		loc_hostlist_t hl = { conf->nodes[i].names,
				      conf->nodes[i].count };

		loc_hostlist_free(&hl);
		free(conf->nodes[i].hostlist);
	}
	for (int i = 0; i < conf->npartitions; i++)
		free(conf->partitions[i].name);
	free(conf->nodes);
	free(conf->partitions);
	free(conf->path);
	free(conf);
}

const loc_policy_t *loc_conf_policy(const loc_conf_t *conf, const char *name)
{
	if (!conf)
		return NULL;
	for (int i = 0; name && i < conf->npartitions; i++)
		if (!strcmp(conf->partitions[i].name, name))
			return &conf->partitions[i].policy;
	return &conf->policy;
}

const char *const *loc_conf_keys(void)
{
	return _keys;
}

/* ===================================================================== */
/* Node placement                                                        */
/* ===================================================================== */

/* Open-addressing index of the driver's names: name -> node. */
typedef struct name_index {
	int *slot; /* node or LOC_NONE */
	size_t mask;
	const char *const *names;
} name_index_t;

static size_t _hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

/* Finds name; returns its node or LOC_NONE, and the slot to insert at. */
static int _index_find(const name_index_t *ix, const char *name, size_t *at)
{
	size_t i = _hash(name) & ix->mask;

	while (ix->slot[i] != LOC_NONE) {
		if (!strcmp(ix->names[ix->slot[i]], name))
			break;
		i = (i + 1) & ix->mask;
	}
	if (at)
		*at = i;
	return ix->slot[i];
}

/* Builds the index; returns 0, LOC_ENOMEM, or LOC_EEXIST with *dup set
 * to the second node of a name the list holds twice. */
static int _index_build(name_index_t *ix, const char *const *names, int n,
			int *dup)
{
	size_t cap = 16;

	while (cap < 2 * (size_t)n)
		cap *= 2;
	ix->slot = malloc(sizeof(int) * cap);
	if (!ix->slot)
		return LOC_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		ix->slot[i] = LOC_NONE;
	ix->mask = cap - 1;
	ix->names = names;
	for (int i = 0; i < n; i++) {
		size_t at;

		if (_index_find(ix, names[i], &at) != LOC_NONE) {
			*dup = i;
			return LOC_EEXIST;
		}
		ix->slot[at] = i;
	}
	return 0;
}

/* Fills err with the conf file name and line; returns code. */
static int _gerr(loc_error_t *err, const loc_conf_t *conf, int code, int line,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int _gerr(loc_error_t *err, const loc_conf_t *conf, int code, int line,
		 const char *fmt, ...)
{
	char text[LOC_ERROR_TEXT_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(text))
		text[sizeof(text) - 2] = '+';
	return loc_error_set(err, code, conf->path, line, "%s", text);
}

/* Places the nodes of NodeName lines; marks used points in count[]. */
static int _place_lines(const loc_conf_t *conf, loc_grid_t *grid,
			const name_index_t *ix, int *count, int *placed,
			loc_error_t *err)
{
	const loc_shape_t *sh = &conf->shape;
	int npp = sh->nodes_per_point;
	long long npoints = _npoints(sh);
	char b1[64], b2[64];

	for (int l = 0; l < conf->nnodes_lines; l++) {
		const loc_conf_nodes_t *nl = &conf->nodes[l];
		long long p0 = _point(sh, &nl->start);

		for (int i = 0; i < nl->count; i++) {
			long long pt = p0 + i / npp;
			const char *name = nl->names[i];
			loc_coord_t c;
			int node;

			if (pt >= npoints)
				return _gerr(err, conf, LOC_ERANGE, nl->line,
					     "NodeName: node '%.64s' runs off the end of the %s grid",
					     name,
					     _shape_str(sh, b1, sizeof(b1)));
			node = _index_find(ix, name, NULL);
			if (node == LOC_NONE)
				return _gerr(err, conf, LOC_ENOENT, nl->line,
					     "NodeName: unknown node '%.64s' (not in the node list)",
					     name);
			if (placed[node])
				return _gerr(err, conf, LOC_EEXIST, nl->line,
					     "NodeName: node '%.64s' is placed twice (also on line %d)",
					     name, placed[node]);
			loc_grid_point_coord(grid, (int)pt, &c);
			if (count[pt] >= npp)
				return _gerr(err, conf, LOC_EEXIST, nl->line,
					     "NodeName: point %s is full (NodesPerPoint=%d) when placing node '%.64s'",
					     _coord_str(sh->ndims, &c, b2,
							sizeof(b2)),
					     npp, name);
			if (loc_grid_set_node_coord(grid, node, &c, err))
				return err ? err->code : LOC_ERANGE;
			count[pt]++;
			placed[node] = nl->line;
		}
	}
	return 0;
}

/* Fills the points no NodeName line used with the remaining nodes. */
static int _place_rest(const loc_conf_t *conf, loc_grid_t *grid, int nnodes,
		       const int *count, const int *placed, loc_error_t *err)
{
	int npp = conf->shape.nodes_per_point, npoints = loc_grid_npoints(grid);
	long long rest = 0, free_points = 0;
	int pt = 0, fill = 0;

	for (int i = 0; i < nnodes; i++)
		rest += !placed[i];
	for (int q = 0; q < npoints; q++)
		free_points += !count[q];
	if (rest > free_points * npp)
		return _gerr(err, conf, LOC_ERANGE, 0,
			     "%lld nodes have no NodeName line but the points the NodeName lines leave free hold only %lld (%lld points x %d nodes per point)",
			     rest, free_points * npp, free_points, npp);
	for (int i = 0; i < nnodes; i++) {
		loc_coord_t c;

		if (placed[i])
			continue;
		if (fill == npp) {
			pt++;
			fill = 0;
		}
		while (count[pt])
			pt++;
		loc_grid_point_coord(grid, pt, &c);
		if (loc_grid_set_node_coord(grid, i, &c, err))
			return err ? err->code : LOC_ERANGE;
		fill++;
	}
	return 0;
}

loc_grid_t *loc_conf_build_grid(const loc_conf_t *conf,
				const char *const *names, int nnodes,
				loc_error_t *err)
{
	name_index_t ix = { 0 };
	loc_grid_t *grid = NULL;
	int *count = NULL, *placed = NULL;
	long long npoints, capacity;
	char b1[64];
	int rc, dup = 0;

	loc_error_clear(err);
	if (!conf || !names || nnodes < 1) {
		loc_error_set(err, LOC_EINVAL, conf ? conf->path : NULL, 0,
			      "no configuration or no nodes to place");
		return NULL;
	}
	for (int i = 0; i < nnodes; i++)
		if (!names[i]) {
			_gerr(err, conf, LOC_EINVAL, 0,
			      "node %d of the node list has no name", i);
			return NULL;
		}
	npoints = _npoints(&conf->shape);
	capacity = npoints * conf->shape.nodes_per_point;
	if (nnodes > capacity) {
		_gerr(err, conf, LOC_ERANGE, 0,
		      "%d nodes but the %s grid holds only %lld (%lld points x %d nodes per point)",
		      nnodes, _shape_str(&conf->shape, b1, sizeof(b1)),
		      capacity, npoints, conf->shape.nodes_per_point);
		return NULL;
	}
	rc = _index_build(&ix, names, nnodes, &dup);
	if (rc == LOC_EEXIST) {
		_gerr(err, conf, LOC_EINVAL, 0,
		      "the node list names '%.64s' twice (nodes %d and %d)",
		      names[dup], _index_find(&ix, names[dup], NULL), dup);
		goto out;
	}
	if (rc)
		goto nomem;
	grid = loc_grid_create(&conf->shape, nnodes, err);
	if (!grid) {
		if (err)
			snprintf(err->file, sizeof(err->file), "%s",
				 conf->path);
		goto out;
	}
	count = calloc(npoints, sizeof(int));
	placed = calloc(nnodes, sizeof(int));
	if (!count || !placed)
		goto nomem;
	if (_place_lines(conf, grid, &ix, count, placed, err) ||
	    _place_rest(conf, grid, nnodes, count, placed, err))
		goto fail;
	if (loc_grid_finalize(grid, err)) {
		if (err)
			snprintf(err->file, sizeof(err->file), "%s",
				 conf->path);
		goto fail;
	}
	goto out;
nomem:
	_gerr(err, conf, LOC_ENOMEM, 0, "out of memory placing nodes");
fail:
	loc_grid_destroy(grid);
	grid = NULL;
out:
	free(ix.slot);
	free(count);
	free(placed);
	return grid;
}

/* ===================================================================== */
/* Description                                                           */
/* ===================================================================== */

typedef struct desc {
	char *buf;
	size_t len, o;
} desc_t;

static void _d(desc_t *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void _d(desc_t *d, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (d->o + 1 >= d->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(d->buf + d->o, d->len - d->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		d->o += (size_t)n < d->len - d->o ? (size_t)n :
						      d->len - d->o - 1;
}

/* Writes the policy keys of pol that differ from base (all when NULL). */
static int _d_policy(desc_t *d, const loc_policy_t *pol,
		     const loc_policy_t *base)
{
	int n = 0;

#define D_FIELD(field, fmt, ...)                                  \
	do {                                                      \
		if (!base || pol->field != base->field)           \
			_d(d, "%s" fmt, n++ ? " " : "", __VA_ARGS__); \
	} while (0)
	D_FIELD(strategy, "Strategy=%s", loc_strategy_kind_name(pol->strategy));
	D_FIELD(curve, "Curve=%s", loc_curve_kind_name(pol->curve));
	D_FIELD(walltime, "WalltimeAware=%s",
		loc_walltime_mode_name(pol->walltime));
	D_FIELD(sl_tolerance, "SLTolerance=%g", pol->sl_tolerance);
	D_FIELD(paging_size, "PagingSize=%d", pol->paging_size);
	D_FIELD(paging_index, "PagingIndex=%s",
		loc_paging_index_name(pol->paging_index));
	D_FIELD(mm_max_centers, "MMMaxCenters=%d", pol->mm_max_centers);
	D_FIELD(seed, "Seed=%llu", (unsigned long long)pol->seed);
#undef D_FIELD
	return n;
}

const char *loc_conf_describe(const loc_conf_t *conf, char *buf, int len)
{
	desc_t d = { .buf = buf, .len = len > 0 ? (size_t)len : 0 };
	const loc_shape_t *sh;
	long long placed = 0;
	char b1[64];

	if (!buf || len <= 0)
		return buf;
	buf[0] = '\0';
	if (!conf)
		return buf;
	sh = &conf->shape;
	_d(&d, "%s: Dimensions=%s Torus=", conf->path[0] ? conf->path :
				"locality.conf",
	   _shape_str(sh, b1, sizeof(b1)));
	for (int i = 0; i < sh->ndims; i++)
		_d(&d, "%s%s", i ? "," : "", sh->torus[i] ? "yes" : "no");
	_d(&d, " NodesPerPoint=%d (%lld points, room for %lld nodes); ",
	   sh->nodes_per_point, _npoints(sh),
	   _npoints(sh) * sh->nodes_per_point);
	_d_policy(&d, &conf->policy, NULL);
	_d(&d, " PFHoldTime=%d AdjEstWindow=%d", conf->pf_hold_sec,
	   conf->adjest_window);
	for (int i = 0; i < conf->nnodes_lines; i++)
		placed += conf->nodes[i].count;
	_d(&d, "; %d NodeName line%s placing %lld node%s",
	   conf->nnodes_lines, conf->nnodes_lines == 1 ? "" : "s", placed,
	   placed == 1 ? "" : "s");
	if (conf->nnodes_lines)
		_d(&d, ", the rest filling free points in row-major order");
	else
		_d(&d, " (all nodes fill points in row-major order)");
	for (int i = 0; i < conf->npartitions; i++) {
		_d(&d, "%s%s (", i ? ", " : "; partition overrides: ",
		   conf->partitions[i].name);
		if (!_d_policy(&d, &conf->partitions[i].policy, &conf->policy))
			_d(&d, "none");
		_d(&d, ")");
	}
	_d(&d, ".");
	return buf;
}
