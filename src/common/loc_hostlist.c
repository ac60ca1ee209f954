/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_hostlist.c - Slurm-style hostlist expressions: expansion of
 * "n[001-064],b1,rack[1-2]-n[01-04]" into names (compression back is
 * loc_hostlist_compress.c).
 *
 * The expander is written for hostile input: every byte is checked, numbers
 * are bounded before they are converted and the number of names and their
 * bytes are counted before anything is allocated, so a short expression
 * cannot ask for gigabytes.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_hostlist.h"
#include "loc_hostlist_internal.h"

/*
 * Most bytes of names (NUL included) one expression may expand to: the
 * name count limit alone let "<2000 letters>[1-1000000]" ask for 2 GB
 * (found by fuzz_conf). 64 bytes per name at the count limit.
 */
#define HL_BYTES_MAX (64ULL * LOC_HOSTLIST_MAX)

/* One "lo-hi" (or "n") entry inside brackets. */
typedef struct hl_range {
	unsigned long long lo, hi;
	int width; /* digits of lo as written: zero padding to keep */
} hl_range_t;

/* A piece of an item: literal text, or a bracket group of ranges. */
typedef struct hl_piece {
	const char *lit; /* literal text (not NUL-terminated), or NULL */
	int lit_len;
	int first;       /* group: index of its first range */
	int nranges;
	unsigned long long count; /* group: names it yields */
	unsigned long long digit_bytes; /* group: digits it writes in all */
} hl_piece_t;

/* A parsed item, before expansion. Arrays grow as needed. */
typedef struct hl_item {
	hl_piece_t *piece;
	int npieces, piece_cap;
	hl_range_t *range;
	int nranges, range_cap;
	unsigned long long count;
	int len; /* length of the item text */
	unsigned long long bytes; /* of all its names, NULs included */
} hl_item_t;

/* ===================================================================== */
/* Internal functions                                                    */
/* ===================================================================== */

static int _is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* Copies s (n bytes) into out (at least 64 bytes) with unprintable bytes
 * escaped and long text cut with "...", so that messages stay short and
 * never carry control characters. */
static const char *_quote(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (o >= 52 || o + 8 > outlen) {
			o += snprintf(out + o, outlen - o, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7f)
			out[o++] = (char)c;
		else
			o += snprintf(out + o, outlen - o, "\\x%02x", c);
	}
	out[o] = '\0';
	return out;
}

static int _fail(loc_error_t *err, const char *expr, size_t n,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Fills err with "hostlist 'expr': <message>" and returns LOC_EPARSE. */
static int _fail(loc_error_t *err, const char *expr, size_t n,
		 const char *fmt, ...)
{
	char msg[160], q[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return loc_error_set(err, LOC_EPARSE, NULL, 0, "hostlist '%s': %s",
			     _quote(expr, n, q, sizeof(q)), msg);
}

static void _item_free(hl_item_t *it)
{
	free(it->piece);
	free(it->range);
	memset(it, 0, sizeof(*it));
}

static hl_piece_t *_item_piece(hl_item_t *it)
{
	if (it->npieces == it->piece_cap) {
		int cap = it->piece_cap ? 2 * it->piece_cap : 8;
		hl_piece_t *p = realloc(it->piece, sizeof(*p) * cap);

		if (!p)
			return NULL;
		it->piece = p;
		it->piece_cap = cap;
	}
	memset(&it->piece[it->npieces], 0, sizeof(hl_piece_t));
	return &it->piece[it->npieces++];
}

static hl_range_t *_item_range(hl_item_t *it)
{
	if (it->nranges == it->range_cap) {
		int cap = it->range_cap ? 2 * it->range_cap : 8;
		hl_range_t *r = realloc(it->range, sizeof(*r) * cap);

		if (!r)
			return NULL;
		it->range = r;
		it->range_cap = cap;
	}
	return &it->range[it->nranges++];
}

/* Returns the digits "%0*llu" writes for width and every value lo..hi:
 * each number has max(width, its own digits). */
static unsigned long long _digit_bytes(unsigned long long lo,
				       unsigned long long hi, int width)
{
	unsigned long long sum = 0, first = 0, last = 9;

	for (int d = 1; d <= HL_DIGITS_MAX && first <= hi; d++) {
		unsigned long long a = lo > first ? lo : first;
		unsigned long long b = hi < last ? hi : last;

		if (a <= b)
			sum += (b - a + 1) * (unsigned)(d > width ? d : width);
		first = last + 1;
		last = last * 10 + 9;
	}
	return sum;
}

/* Trims blanks around s[*b..*e). */
static void _trim(const char *s, size_t *b, size_t *e)
{
	while (*b < *e && _is_blank(s[*b]))
		(*b)++;
	while (*e > *b && _is_blank(s[*e - 1]))
		(*e)--;
}

/* Parses the ranges between brackets, g[0..n), into a group piece. */
static int _parse_group(hl_item_t *it, hl_piece_t *pc, const char *g, size_t n,
			const char *item, size_t ilen, loc_error_t *err)
{
	size_t pos = 0;

	pc->first = it->nranges;
	if (n == 0)
		return _fail(err, item, ilen, "empty brackets");
	while (pos <= n) {
		size_t b = pos, e = pos, dash;
		unsigned long long lo, hi;
		hl_range_t *r;
		int dl, dh;

		while (e < n && g[e] != ',')
			e++;
		pos = e + 1;
		_trim(g, &b, &e);
		if (b == e)
			return _fail(err, item, ilen,
				     "empty range inside brackets");
		for (dash = b; dash < e && g[dash] != '-'; dash++)
			;
		dl = loc__hostlist_number(g + b, dash - b, &lo);
		if (dl < 0)
			return _fail(err, item, ilen,
				     "number is longer than %d digits",
				     HL_DIGITS_MAX);
		if (dl == 0 || b + dl != dash)
			return _fail(err, item, ilen,
				     "range '%.*s' is not numeric",
				     (int)(e - b < 40 ? e - b : 40), g + b);
		hi = lo;
		if (dash < e) {
			size_t hb = dash + 1;

			dh = loc__hostlist_number(g + hb, e - hb, &hi);
			if (dh < 0)
				return _fail(err, item, ilen,
					     "number is longer than %d digits",
					     HL_DIGITS_MAX);
			if (dh == 0 || hb + dh != e)
				return _fail(err, item, ilen,
					     "range '%.*s' is not numeric",
					     (int)(e - b < 40 ? e - b : 40),
					     g + b);
			if (hi < lo)
				return _fail(err, item, ilen,
					     "range %llu-%llu is reversed",
					     lo, hi);
		}
		if (hi - lo >= LOC_HOSTLIST_MAX)
			return _fail(err, item, ilen,
				     "range %llu-%llu has more than %d names",
				     lo, hi, LOC_HOSTLIST_MAX);
		r = _item_range(it);
		if (!r)
			return loc_error_set(err, LOC_ENOMEM, NULL, 0,
					     "out of memory");
		r->lo = lo;
		r->hi = hi;
		r->width = dl;
		pc->digit_bytes += _digit_bytes(lo, hi, dl);
		pc->count += hi - lo + 1;
		pc->nranges++;
		if (pc->count > LOC_HOSTLIST_MAX)
			return _fail(err, item, ilen,
				     "brackets expand to more than %d names",
				     LOC_HOSTLIST_MAX);
	}
	return 0;
}

/* Parses one trimmed, non-empty item s[0..n) into it. */
static int _parse_item(hl_item_t *it, const char *s, size_t n,
		       loc_error_t *err)
{
	size_t i = 0, lit = 0;
	int rc;

	it->count = 1;
	it->len = (int)n;
	while (i < n) {
		hl_piece_t *pc = _item_piece(it);
		size_t j = i;

		if (!pc)
			return loc_error_set(err, LOC_ENOMEM, NULL, 0,
					     "out of memory");
		if (s[i] != '[') {
			while (j < n && s[j] != '[')
				j++;
			pc->lit = s + i;
			pc->lit_len = (int)(j - i);
			lit += pc->lit_len;
			i = j;
			continue;
		}
		/* Brackets were checked for balance by the caller. */
		while (s[j] != ']')
			j++;
		rc = _parse_group(it, pc, s + i + 1, j - i - 1, s, n, err);
		if (rc)
			return rc;
		it->count *= pc->count;
		if (it->count > LOC_HOSTLIST_MAX)
			return _fail(err, s, n, "expands to more than %d names",
				     LOC_HOSTLIST_MAX);
		i = j + 1;
	}
	/* Exact: literals and NUL in every name, each group's digits once
	 * per combination of the other groups. */
	it->bytes = it->count * (lit + 1);
	for (int p = 0; p < it->npieces; p++)
		if (!it->piece[p].lit)
			it->bytes += it->count / it->piece[p].count *
				     it->piece[p].digit_bytes;
	return 0;
}

/* Checks bytes and bracket structure of item s[0..n). */
static int _check_item(const char *s, size_t n, loc_error_t *err)
{
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (_is_blank((char)c))
			return _fail(err, s, n, "blank inside a name");
		if (c < 0x21 || c > 0x7e)
			return _fail(err, s, n, "invalid byte 0x%02x", c);
		if (!loc__hostlist_name_char(c) && c != '[' && c != ']' &&
		    c != ',')
			return _fail(err, s, n,
				     "invalid character '%c' (names use letters, digits, '-', '_' and '.')",
				     c);
		if (c == '[') {
			if (depth)
				return _fail(err, s, n, "nested '['");
			depth = 1;
		} else if (c == ']') {
			if (!depth)
				return _fail(err, s, n, "']' without '['");
			depth = 0;
		}
	}
	if (depth)
		return _fail(err, s, n, "'[' is never closed");
	return 0;
}

/* Writes v in decimal, zero-padded to width, at out; returns the length. */
static int _put_number(char *out, unsigned long long v, int width)
{
	char tmp[HL_DIGITS_MAX + 2];
	int n = 0, len;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		tmp[n++] = '0';
	len = n;
	while (n)
		*out++ = tmp[--n];
	return len;
}

/*
 * Writes the names of a parsed item into the pool at *pool (pool_end is
 * one past its end), pointing names[*at...] at them. No name is longer
 * than its item's text, and the pool has that much room beyond the
 * counted bytes, so the check before each name fails only on a counting
 * bug: LOC_EINVAL rather than a write past the pool.
 */
static int _generate(const hl_item_t *it, char **names, int *at, char **pool,
		     const char *pool_end)
{
	int *cur = calloc(it->npieces, sizeof(int)); /* range per piece */
	unsigned long long *val = calloc(it->npieces, sizeof(*val));
	int rc = LOC_ENOMEM;

	if (!cur || !val)
		goto out;
	for (int p = 0; p < it->npieces; p++)
		if (!it->piece[p].lit)
			val[p] = it->range[it->piece[p].first].lo;
	rc = LOC_EINVAL;
	for (unsigned long long k = 0; k < it->count; k++) {
		char *o = *pool;
		int p;

		if (pool_end - o < it->len + 1)
			goto out;
		for (p = 0; p < it->npieces; p++) {
			const hl_piece_t *pc = &it->piece[p];

			if (pc->lit) {
				memcpy(o, pc->lit, pc->lit_len);
				o += pc->lit_len;
			} else {
				o += _put_number(o, val[p],
						 it->range[pc->first + cur[p]].width);
			}
		}
		*o++ = '\0';
		names[(*at)++] = *pool;
		*pool = o;
		/* Odometer: the right-most group varies fastest. */
		for (p = it->npieces - 1; p >= 0; p--) {
			const hl_piece_t *pc = &it->piece[p];

			if (pc->lit)
				continue;
			if (val[p] < it->range[pc->first + cur[p]].hi) {
				val[p]++;
				break;
			}
			if (cur[p] + 1 < pc->nranges) {
				cur[p]++;
				val[p] = it->range[pc->first + cur[p]].lo;
				break;
			}
			cur[p] = 0;
			val[p] = it->range[pc->first].lo;
		}
	}
	rc = 0;
out:
	free(cur);
	free(val);
	return rc;
}

/* ===================================================================== */
/* External functions                                                    */
/* ===================================================================== */

int loc_hostlist_expand(const char *expr, loc_hostlist_t *out,
			loc_error_t *err)
{
	hl_item_t *items = NULL;
	int nitems = 0, cap = 0, rc = 0, at = 0;
	unsigned long long total = 0, bytes = 0;
	size_t n, start = 0;
	char *pool, *pool_end;
	int depth = 0;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!expr || !out)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "hostlist: missing expression");
	n = strlen(expr);
	/* Split at top-level commas; commas inside brackets separate ranges. */
	for (size_t i = 0; i <= n; i++) {
		size_t b = start, e = i;

		if (i < n) {
			if (expr[i] == '[')
				depth++;
			else if (expr[i] == ']' && depth > 0)
				depth--;
			if (expr[i] != ',' || depth)
				continue;
		}
		start = i + 1;
		_trim(expr, &b, &e);
		if (b == e) {
			rc = _fail(err, expr, n, "empty name at offset %zu", b);
			goto out;
		}
		rc = _check_item(expr + b, e - b, err);
		if (rc)
			goto out;
		if (nitems == cap) {
			int ncap = cap ? 2 * cap : 8;
			hl_item_t *t = realloc(items, sizeof(*t) * ncap);

			if (!t) {
				rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
						   "out of memory");
				goto out;
			}
			items = t;
			cap = ncap;
		}
		memset(&items[nitems], 0, sizeof(hl_item_t));
		rc = _parse_item(&items[nitems++], expr + b, e - b, err);
		if (rc)
			goto out;
		total += items[nitems - 1].count;
		if (total > LOC_HOSTLIST_MAX) {
			rc = _fail(err, expr, n,
				   "expands to more than %d names",
				   LOC_HOSTLIST_MAX);
			goto out;
		}
		bytes += items[nitems - 1].bytes;
		if (bytes > HL_BYTES_MAX) {
			rc = _fail(err, expr, n,
				   "expands to more than %llu MiB of names",
				   HL_BYTES_MAX >> 20);
			goto out;
		}
	}
	/* One allocation: the pointers, then the names (plus the longest
	 * name's room, see _generate()). */
	out->names = malloc(total * sizeof(char *) + bytes + n + 1);
	if (!out->names) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	pool = (char *)(out->names + total);
	pool_end = pool + bytes + n + 1;
	for (int i = 0; i < nitems; i++) {
		rc = _generate(&items[i], out->names, &at, &pool, pool_end);
		if (rc) {
			loc_error_set(err, rc, NULL, 0,
				      rc == LOC_ENOMEM ?
					      "out of memory" :
					      "hostlist: names longer than counted");
			break;
		}
	}
	out->count = at;
out:
	for (int i = 0; i < nitems; i++)
		_item_free(&items[i]);
	free(items);
	if (rc)
		loc_hostlist_free(out);
	return rc;
}

void loc_hostlist_free(loc_hostlist_t *list)
{
	if (!list)
		return;
	free(list->names); /* the names live in the same block */
	list->names = NULL;
	list->count = 0;
}
