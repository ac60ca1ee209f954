/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_json.h - a small JSON reader for regression mode: reads a golden
 * summary.json and compares it with a new one within a tolerance.
 */
#ifndef RP_JSON_H
#define RP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "loc_error.h"

typedef enum rp_jtype {
	RJ_NULL = 0,
	RJ_BOOL,
	RJ_NUM,
	RJ_STR,
	RJ_ARR,
	RJ_OBJ,
} rp_jtype_t;

typedef struct rp_json {
	rp_jtype_t type;
	bool b;
	double num;
	char *str;              /* RJ_STR (owned) */
	char **keys;            /* RJ_OBJ: n keys (owned) */
	struct rp_json *items;  /* RJ_OBJ values / RJ_ARR items, n (owned) */
	int n;
} rp_json_t;

/*
 * Parses len bytes of JSON text (name is used in errors). Returns the
 * value (free with rp_json_free) or NULL with err naming name and line.
 */
rp_json_t *rp_json_parse(const char *text, size_t len, const char *name,
			 loc_error_t *err);

/* Reads and parses the file at path. Same returns as rp_json_parse(). */
rp_json_t *rp_json_load(const char *path, loc_error_t *err);

/* Frees v; accepts NULL. */
void rp_json_free(rp_json_t *v);

/* Returns obj's member key (borrowed), or NULL. */
const rp_json_t *rp_json_get(const rp_json_t *obj, const char *key);

/*
 * Compares now against golden: every member and item of golden must be in
 * now with the same type; numbers may differ by rel_tol relative to the
 * larger magnitude (or 1e-9 absolute); strings and booleans must match.
 * Members only in now are ignored (a newer version may add figures).
 * Writes one readable line per difference to out (may be NULL), at most
 * max_lines of them (0 = all) and then a count of the rest.
 * Returns the number of differences.
 */
int rp_json_compare(const rp_json_t *golden, const rp_json_t *now,
		    double rel_tol, FILE *out, int max_lines);

#endif /* RP_JSON_H */
