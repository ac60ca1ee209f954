/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_names.h - the one lookup of a keyword among an enum's names, as
 * every locality.conf value and record field is matched: case-insensitive,
 * the whole word.
 */
#ifndef LOC_NAMES_H
#define LOC_NAMES_H

#include <strings.h>

/* The index of name in names[0..n-1], or -1 (name NULL included). */
static inline int loc_names_index(const char *name, const char *const *names,
				  int n)
{
	for (int i = 0; name && i < n; i++)
		if (!strcasecmp(name, names[i]))
			return i;
	return -1;
}

#endif /* LOC_NAMES_H */
