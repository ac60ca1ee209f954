/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_hostlist_internal.h - what hostlist expansion (loc_hostlist.c) and
 * compression (loc_hostlist_compress.c) share: which characters a host
 * name may hold and how its numbers are read. Not installed.
 */
#ifndef LOC_HOSTLIST_INTERNAL_H
#define LOC_HOSTLIST_INTERNAL_H

#include <stddef.h>

/* Longest number in a range: 18 decimal digits always fit 63 bits. */
#define HL_DIGITS_MAX 18

/* Returns whether c may appear in a host name. */
static inline int loc__hostlist_name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/*
 * Reads a decimal number of at most HL_DIGITS_MAX digits from s[0..n).
 * Returns the digit count, 0 when s does not start with a digit, or -1
 * when the number is too long.
 */
static inline int loc__hostlist_number(const char *s, size_t n,
				       unsigned long long *val)
{
	size_t i = 0;

	*val = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		if (i == HL_DIGITS_MAX)
			return -1;
		*val = *val * 10 + (unsigned)(s[i] - '0');
		i++;
	}
	return (int)i;
}

#endif /* LOC_HOSTLIST_INTERNAL_H */
