/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace_fields.c - the field readers the SWF (loc_trace_swf.c) and
 * sacct (loc_trace_sacct.c) readers share: node counts from processors,
 * integers, durations and times, each range-checked and never reading
 * past the field (fields are not NUL-terminated).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "loc_trace_internal.h"

int loc__trace_nodes(int64_t procs, double ppn)
{
	double n;

	if (!(ppn > 0))
		ppn = 1.0;
	if (procs < 1)
		return -1;
	/* A tiny epsilon keeps exact multiples exact (2048 / 2048.0). */
	n = ceil((double)procs / ppn - 1e-9);
	if (n < 1)
		n = 1;
	if (n > LOC__TRACE_MAX_NODES)
		return -1;
	return (int)n;
}

int loc__parse_int(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	int64_t v = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == len)
		return LOC_EPARSE;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return LOC_EPARSE;
		if (v > ((int64_t)1 << 53))
			return LOC_ERANGE;
		v = v * 10 + (s[i] - '0');
	}
	if (v > ((int64_t)1 << 53))
		return LOC_ERANGE;
	*out = neg ? -v : v;
	return 0;
}

/* ===================================================================== */
/* Durations and times                                                   */
/* ===================================================================== */

static bool _word(const char *text, const char *w)
{
	return !strcasecmp(text, w);
}

/* Reads up to 3 colon-separated non-negative integers. Returns the count,
 * or -1 on malformed text. Fractions of seconds ("01:02.345") are cut. */
static int _colon_parts(const char *s, int64_t *part)
{
	int n = 0;

	for (;;) {
		int64_t v = 0;
		int digits = 0;

		while (*s >= '0' && *s <= '9') {
			if (v > 100000000)
				return -1;
			v = v * 10 + (*s++ - '0');
			digits++;
		}
		if (!digits || n == 3)
			return -1;
		part[n++] = v;
		if (*s == '.' && n >= 2) {
			/* fraction of a second: digits only, then the end */
			s++;
			while (*s >= '0' && *s <= '9')
				s++;
			return *s ? -1 : n;
		}
		if (!*s)
			return n;
		if (*s++ != ':')
			return -1;
	}
}

int loc_trace_parse_duration(const char *text, int64_t *sec)
{
	int64_t days = 0, part[3];
	const char *dash, *s = text;
	int n;

	if (!text || !*text || _word(text, "UNLIMITED") ||
	    _word(text, "Partition_Limit") || _word(text, "INVALID") ||
	    _word(text, "Unknown") || _word(text, "None") ||
	    _word(text, "INFINITE")) {
		*sec = LOC_TRACE_UNKNOWN;
		return 0;
	}
	dash = strchr(text, '-');
	if (dash) {
		int64_t v = 0;

		if (dash == text)
			return LOC_EPARSE;
		for (; s < dash; s++) {
			if (*s < '0' || *s > '9' || v > 10000000)
				return LOC_EPARSE;
			v = v * 10 + (*s - '0');
		}
		days = v;
		s = dash + 1;
	}
	n = _colon_parts(s, part);
	if (n < 1)
		return LOC_EPARSE;
	if (dash) {
		/* days-hours[:minutes[:seconds]] */
		int64_t h = part[0], m = n > 1 ? part[1] : 0,
			x = n > 2 ? part[2] : 0;

		*sec = ((days * 24 + h) * 60 + m) * 60 + x;
	} else if (n == 3) {
		*sec = (part[0] * 60 + part[1]) * 60 + part[2];
	} else if (n == 2) {
		*sec = part[0] * 60 + part[1]; /* minutes:seconds */
	} else {
		*sec = part[0] * 60; /* minutes */
	}
	if (*sec > LOC__TRACE_MAX_TIME)
		return LOC_EPARSE;
	return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), no libc, no TZ. */
static int64_t _days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int _digits(const char *s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int loc_trace_parse_time(const char *text, int64_t *sec)
{
	int y, mo, d, h = 0, mi = 0, s = 0;
	size_t len;
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30,
				       31, 31, 30, 31, 30, 31 };

	if (!text || !*text || _word(text, "Unknown") || _word(text, "None")) {
		*sec = LOC_TRACE_UNKNOWN;
		return 0;
	}
	len = strlen(text);
	/* YYYY-MM-DD[THH:MM[:SS]] */
	if (len < 10 || _digits(text, 4, &y) || text[4] != '-' ||
	    _digits(text + 5, 2, &mo) || text[7] != '-' ||
	    _digits(text + 8, 2, &d))
		return LOC_EPARSE;
	if (len > 10) {
		if ((text[10] != 'T' && text[10] != ' ') || len < 16 ||
		    _digits(text + 11, 2, &h) || text[13] != ':' ||
		    _digits(text + 14, 2, &mi))
			return LOC_EPARSE;
		if (len > 16 &&
		    (len != 19 || text[16] != ':' || _digits(text + 17, 2, &s)))
			return LOC_EPARSE;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 ||
	    mi > 59 || s > 60)
		return LOC_EPARSE;
	*sec = ((_days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 + s;
	return 0;
}
