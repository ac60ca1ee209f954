/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_hostlist_compress.c - a list of host names back into a Slurm-style
 * hostlist expression ("n001,n002,n003,b1" -> "n[001-003],b1"): runs of
 * consecutive numbers under one prefix and one width become ranges, and
 * every name must survive expansion (loc_hostlist.c) unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "loc_hostlist.h"
#include "loc_hostlist_internal.h"

/* Output with snprintf semantics: counts everything, stores what fits. */
typedef struct hl_out {
	char *buf;
	size_t len;
	size_t need;
} hl_out_t;

static void _put(hl_out_t *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->need++)
		if (o->need + 1 < o->len)
			o->buf[o->need] = s[i];
}

static void _putnum(hl_out_t *o, unsigned long long v, int width)
{
	char t[48];
	int n = snprintf(t, sizeof(t), "%0*llu", width, v);

	_put(o, t, n);
}

/* Splits name into prefix length and trailing number; returns the digit
 * count (0 = no usable number). */
static int _split(const char *name, size_t *plen, unsigned long long *val)
{
	size_t n = strlen(name), b = n;

	while (b > 0 && name[b - 1] >= '0' && name[b - 1] <= '9')
		b--;
	*plen = b;
	if (b == n || n - b > HL_DIGITS_MAX)
		return 0;
	loc__hostlist_number(name + b, n - b, val);
	return (int)(n - b);
}

/* A name must survive expansion unchanged: only host name characters. */
static int _name_ok(const char *name)
{
	if (!name || !*name)
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (!loc__hostlist_name_char(*p))
			return 0;
	return 1;
}

/* Formats v with width and compares with the digits s[0..n). */
static int _same_digits(unsigned long long v, int width, const char *s,
			size_t n)
{
	char t[48];
	int len = snprintf(t, sizeof(t), "%0*llu", width, v);

	return (size_t)len == n && !memcmp(t, s, n);
}

int loc_hostlist_compress(const char *const *names, int count, char *buf,
			  size_t len)
{
	hl_out_t o = { .buf = buf, .len = buf ? len : 0 };
	int i = 0;

	if (count < 0 || (count > 0 && !names))
		return LOC_EINVAL;
	for (int k = 0; k < count; k++)
		if (!_name_ok(names[k]))
			return LOC_EINVAL;
	while (i < count) {
		size_t plen, pl2;
		unsigned long long v, v2;
		int w = _split(names[i], &plen, &v);
		int j, runs = 0, single;

		if (i)
			_put(&o, ",", 1);
		if (!w) {
			_put(&o, names[i], strlen(names[i]));
			i++;
			continue;
		}
		/* The block: following names with the same prefix. */
		for (j = i + 1; j < count; j++) {
			if (!_split(names[j], &pl2, &v2) || pl2 != plen ||
			    memcmp(names[i], names[j], plen))
				break;
		}
		single = (j == i + 1);
		_put(&o, names[i], plen);
		if (!single)
			_put(&o, "[", 1);
		while (i < j) {
			int wlo = _split(names[i], &plen, &v);
			unsigned long long lo = v, hi = v;

			i++;
			while (i < j) {
				int w2 = _split(names[i], &pl2, &v2);

				if (v2 != hi + 1 ||
				    !_same_digits(v2, wlo, names[i] + pl2, w2))
					break;
				hi = v2;
				i++;
			}
			if (runs++)
				_put(&o, ",", 1);
			_putnum(&o, lo, wlo);
			if (hi != lo) {
				_put(&o, "-", 1);
				_putnum(&o, hi, wlo);
			}
		}
		if (!single)
			_put(&o, "]", 1);
	}
	if (o.len)
		o.buf[o.need < o.len ? o.need : o.len - 1] = '\0';
	if (o.need > INT32_MAX)
		return LOC_ERANGE;
	return (int)o.need;
}
