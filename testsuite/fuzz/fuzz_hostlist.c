/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_hostlist.c - hostlist expressions, both directions.
 *
 * The expressions come from locality.conf NodeName lines and from sacct
 * NodeList columns. Two invariants are checked:
 *  1. the input as an expression: when loc_hostlist_expand() accepts it,
 *     compressing the names and expanding the result gives the same list,
 *     in the same order;
 *  2. the input as names, one per line: when loc_hostlist_compress()
 *     accepts them, the expression expands back to exactly those names.
 * Compression must also keep snprintf semantics: the same length with any
 * buffer, a NUL-terminated prefix when the buffer is short.
 */
#include <stdbool.h>

#include "fuzz_util.h"
#include "loc_hostlist.h"

/* Names beyond this are not round-tripped: expansion alone is fuzzed. */
#define ROUND_TRIP_MAX 20000

static void _same(const char *const *a, int na, const loc_hostlist_t *b,
		  const char *expr)
{
	FUZZ_CHECK(na == b->count, "%d names became %d through '%.200s'", na,
		   b->count, expr);
	for (int i = 0; i < na; i++)
		FUZZ_CHECK(!strcmp(a[i], b->names[i]),
			   "name %d '%s' became '%s' through '%.200s'", i,
			   a[i], b->names[i], expr);
}

/* Compresses names, checks the buffer contract, re-expands, compares. */
static void _round_trip(const char *const *names, int count, size_t cut,
			bool from_expand)
{
	loc_hostlist_t back;
	loc_error_t err;
	char *expr, small[16];
	int need, got, rc;

	need = loc_hostlist_compress(names, count, NULL, 0);
	/* Expansion and compression accept the same characters. */
	if (need == LOC_EINVAL && !from_expand)
		return;
	FUZZ_CHECK(need >= 0, "compress returned %d", need);
	expr = malloc((size_t)need + 1);
	FUZZ_CHECK(expr, "out of memory");
	got = loc_hostlist_compress(names, count, expr, (size_t)need + 1);
	FUZZ_CHECK(got == need, "length %d, then %d", need, got);
	FUZZ_CHECK(strlen(expr) == (size_t)need, "wrote %zu of %d",
		   strlen(expr), need);
	/* A short buffer: same return, a terminated prefix. */
	cut %= sizeof(small) + 1;
	memset(small, 'X', sizeof(small));
	got = loc_hostlist_compress(names, count, cut ? small : NULL, cut);
	FUZZ_CHECK(got == need, "length %d with a %zu-byte buffer", got, cut);
	if (cut) {
		size_t l = strnlen(small, cut);

		FUZZ_CHECK(l < cut, "short buffer not terminated");
		FUZZ_CHECK(!strncmp(small, expr, l) &&
				   l == ((size_t)need < cut - 1 ? (size_t)need :
								  cut - 1),
			   "short buffer holds '%.*s' of '%s'", (int)l, small,
			   expr);
	}
	if (count == 0) {
		FUZZ_CHECK(need == 0, "no names gave '%s'", expr);
		free(expr);
		return;
	}
	rc = loc_hostlist_expand(expr, &back, &err);
	FUZZ_CHECK(rc == 0, "'%.200s' from compress does not expand: %s",
		   expr, err.text);
	_same(names, count, &back, expr);
	loc_hostlist_free(&back);
	free(expr);
}

/* Invariant 1: the input is an expression. */
static void _as_expression(const char *s, size_t cut)
{
	loc_hostlist_t hl;
	loc_error_t err;
	int rc = loc_hostlist_expand(s, &hl, &err);

	if (rc) {
		fuzz_check_error(&err, rc);
		FUZZ_CHECK(hl.count == 0 && hl.names == NULL,
			   "failure leaves names");
		return;
	}
	FUZZ_CHECK(hl.count >= 1 && hl.count <= LOC_HOSTLIST_MAX,
		   "count %d", hl.count);
	for (int i = 0; i < hl.count; i++)
		FUZZ_CHECK(hl.names[i] && hl.names[i][0], "empty name %d", i);
	if (hl.count <= ROUND_TRIP_MAX)
		_round_trip((const char *const *)hl.names, hl.count, cut,
			    true);
	loc_hostlist_free(&hl);
	FUZZ_CHECK(hl.count == 0 && hl.names == NULL, "free does not zero");
	loc_hostlist_free(&hl); /* a freed list may be freed again */
}

/* Invariant 2: the input is a list of names, one per line. */
static void _as_names(char *s, size_t cut)
{
	const char *names[256];
	int n = 0;

	for (char *p = s; n < 256;) {
		char *nl = strchr(p, '\n');

		names[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	_round_trip(names, n, cut, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	size_t cut = size ? data[0] : 0;

	if (size > 4096) /* longer adds nothing but time */
		return 0;
	s = fuzz_cstr(data, size);
	if (!s)
		return 0;
	_as_expression(s, cut);
	_as_names(s, cut);
	free(s);
	return 0;
}
