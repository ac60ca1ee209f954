/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_internal.h - what the files of the locality.conf parser share:
 * the key table as the parser reads it, the parser's state, and the
 * helpers each calls in the others. The reader (loc_conf.c) turns bytes
 * into Key=Value tokens, the key handlers (loc_conf_keys.c) give them
 * meaning, loc_conf_key_table.c holds the table, and the grid builder
 * (loc_conf_grid.c) and loc_conf_describe.c use the parsed loc_conf_t.
 * Only for src/common/loc_conf*.c.
 */
#ifndef LOC_CONF_INTERNAL_H
#define LOC_CONF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "loc_conf.h"

/* Where a key's value lives and how it is written (loc_conf_key_table.h). */
typedef enum conf_key_home {
	KH_LINE,   /* NodeName, Coords, PartitionName, GresName: lines, not
		    * settings */
	KH_SHAPE,  /* loc_conf_t.shape */
	KH_CONF,   /* loc_conf_t, outside the policy */
	KH_POLICY, /* loc_policy_t: global, or a partition's */
} conf_key_home_t;

typedef enum conf_key_type {
	KT_SYNTAX, /* its own handler in loc_conf_keys.c */
	KT_INT,    /* decimal, in [min, max], an int or int64_t field */
	KT_REAL,   /* plain decimal >= 0, a double field */
	KT_SEED,   /* unsigned 64-bit */
	KT_ENUM,   /* a name of enum_names */
} conf_key_type_t;

/* The names of an enum-valued key (Strategy=mm). */
typedef struct conf_enum_names {
	int (*parse)(const char *val); /* the value's index, or -1 */
	const char *(*name)(int i);
	int count;
} conf_enum_names_t;

/* One entry of LOC_CONF_KEYS, as the parser reads it. */
typedef struct conf_key_def {
	loc_conf_key_info_t info;
	conf_key_home_t home;
	conf_key_type_t type;
	size_t off, size;            /* of the field, in its home struct */
	long long int_default;       /* KT_INT, KT_SEED, KT_ENUM */
	double real_default;         /* KT_REAL */
	const char *what;            /* KT_ENUM: "unknown <what> 'val'" */
	const conf_enum_names_t *names; /* KT_ENUM */
} conf_key_def_t;

/* loc_conf_key_table.c: the table. */

/* Returns the entry of key, 0 <= key < LOC_KEY_COUNT. */
const conf_key_def_t *loc__conf_key_def(int key);

/* Stores v in the int or int64_t (size bytes) at field. */
void loc__conf_store_int(void *field, size_t size, long long v);

/* Sets the keys of conf outside the policy to their defaults. */
void loc__conf_defaults(loc_conf_t *conf);

/* Formats the value of key held by conf (shape and conf keys) or pol
 * (policy keys) into buf. Returns buf, or NULL for a KH_LINE key. */
const char *loc__conf_format(const loc_conf_t *conf, const loc_policy_t *pol,
			     int key, char *buf, size_t len);

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
	int set_line[LOC_KEY_COUNT];       /* line of each global key, 0 = unset */
	bool torus[LOC_MAX_DIMS];
	int ntorus;
	int *ncoords;                /* per NodeName line: values in Coords */
	unsigned *pmask;             /* per partition: keys it overrides */
	loc_policy_t *povr;          /* per partition: the override values */
	loc_policy_t *govr;          /* per GresName line: its values (the
				      * keys are in conf->gres[i].keys) */
	long long nnames;            /* names on all NodeName lines */
	long long nbytes;            /* their bytes, NULs included */
	int nodes_cap, ncoords_cap, part_cap, pmask_cap, povr_cap;
	int gres_cap, govr_cap;
	char *lbuf;                  /* the logical line being built */
	size_t llen, lcap;
	conf_seg_t *seg;
	int nseg, segcap;
	conf_tok_t *tok;
	int ntok, tokcap;
} conf_parser_t;

/* loc_conf.c: the reader. */

/* Fills the error with the file and line; returns LOC_EPARSE. */
int loc__conf_perr(conf_parser_t *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fills the error with "out of memory"; returns LOC_ENOMEM. */
int loc__conf_nomem(conf_parser_t *p);

/*
 * Grows the array whose pointer is at arrp (elements of size sz, capacity
 * *cap) so that index n is valid.
 * Returns 0, or -1 (array unchanged) when out of memory.
 */
int loc__conf_grow(void *arrp, int *cap, int n, size_t sz);

/* loc_conf_keys.c: what each key means. */

/* Returns the key named by s (case-insensitive), or -1. */
int loc__conf_key(const char *s);

/* Applies a key of a line that is not a NodeName or PartitionName line. */
int loc__conf_global_key(conf_parser_t *p, const conf_tok_t *t);

/* Applies the NodeName, PartitionName or GresName line in p->tok. */
int loc__conf_nodename(conf_parser_t *p);
int loc__conf_partition(conf_parser_t *p);
int loc__conf_gres(conf_parser_t *p);

/* Copies the field of key from src to dst (partition overrides). */
void loc__conf_policy_copy(loc_policy_t *dst, const loc_policy_t *src,
			   int key);

/* loc_conf_grid.c: points and their names. */

/* Returns the row-major point of c in shape. */
long long loc__conf_point(const loc_shape_t *shape, const loc_coord_t *c);

/* Returns the number of points of shape. */
long long loc__conf_npoints(const loc_shape_t *shape);

/* Formats "8x8x4" into buf; returns buf. */
const char *loc__conf_shape_str(const loc_shape_t *shape, char *buf,
				size_t len);

/* Formats "3,1,0" into buf; returns buf. */
const char *loc__conf_coord_str(int ndims, const loc_coord_t *c, char *buf,
				size_t len);

#endif /* LOC_CONF_INTERNAL_H */
