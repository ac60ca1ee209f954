/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_hostlist.h - Slurm-style hostlist expressions without Slurm:
 * "n[001-064]", "b1,g1,m[3-4]", "rack[1-2]-n[01-04]".
 */
#ifndef LOC_HOSTLIST_H
#define LOC_HOSTLIST_H

#include <stddef.h>

#include "loc_error.h"

/*
 * names and the strings they point to are one allocation: free it with
 * loc_hostlist_free() (or, having taken names over, free(names) alone),
 * never a single name.
 */
typedef struct loc_hostlist {
	char **names; /* owned; count entries */
	int count;
} loc_hostlist_t;

/* Upper bound on names one expression may expand to (guards hostile input). */
#define LOC_HOSTLIST_MAX 1048576

/*
 * Expands expr into out (initialised by this call; free with
 * loc_hostlist_free()). Zero-padding of range bounds is kept ("n[01-10]").
 * Several bracketed ranges multiply out, left-most slowest. Names use
 * letters, digits, '-', '_' and '.'; blanks around items are ignored.
 * Returns 0, or LOC_EPARSE (unbalanced brackets, bad range, empty name,
 * reversed range, more than LOC_HOSTLIST_MAX names or more than 64 bytes
 * per name at that count, 64 MiB of names in all) with err filled.
 */
int loc_hostlist_expand(const char *expr, loc_hostlist_t *out,
			loc_error_t *err);

/* Frees out's names and zeroes it; accepts an already freed list. */
void loc_hostlist_free(loc_hostlist_t *list);

/*
 * Compresses names (in the given order) into a hostlist expression, merging
 * consecutive numeric suffixes of the same prefix and width: names
 * n1,n2,n3,m7 -> "n[1-3],m7". Writes into buf (len bytes).
 * Returns the length needed (like snprintf), or a negative LOC_E* code
 * (LOC_EINVAL for a NULL or empty name or one with other characters than
 * expansion accepts).
 */
int loc_hostlist_compress(const char *const *names, int count, char *buf,
			  size_t len);

#endif /* LOC_HOSTLIST_H */
