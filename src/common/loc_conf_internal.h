/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_internal.h - what the files of the locality.conf parser share:
 * the key numbers, the parser's state, and the helpers each calls in the
 * others. The reader (loc_conf.c) turns bytes into Key=Value tokens, the
 * key handlers (loc_conf_keys.c) give them meaning, the grid builder
 * (loc_conf_grid.c) and loc_conf_describe.c use the parsed loc_conf_t.
 * Only for src/common/loc_conf*.c.
 */
#ifndef LOC_CONF_INTERNAL_H
#define LOC_CONF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "loc_conf.h"

/* The keys, in the order of loc_conf_keys(). */
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
	K_NODE_WEIGHT,
	K_PACK_TOL,
	K_COMPACT_WAIT,
	K_COMPACT_TOL,
	K_PLAN_WINDOW,
	K_PLAN_HOLD,
	K_NODENAME,
	K_COORDS,
	K_PARTITION,
	K_COUNT
};

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

/* Applies the NodeName or PartitionName line in p->tok. */
int loc__conf_nodename(conf_parser_t *p);
int loc__conf_partition(conf_parser_t *p);

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
