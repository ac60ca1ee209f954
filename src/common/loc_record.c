/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_record.c - each job's placement as one line of text (loc_record.h).
 */
#include "loc_record.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_names.h"

#define TAG "locality"
#define TAG_LEN (sizeof(TAG) - 1)

static const char *const _field_names[LOC_RECORD_COUNT] = {
	"AdminComment", "SystemComment", "none",
};

int loc_record_field_parse(const char *name)
{
	return loc_names_index(name, _field_names, LOC_RECORD_COUNT);
}

const char *loc_record_field_name(loc_record_field_t field)
{
	if ((int)field < 0 || field >= LOC_RECORD_COUNT)
		return "unknown";
	return _field_names[field];
}

int loc_record_format(const loc_record_t *rec, char *buf, size_t len)
{
	int n;

	if (!rec || !buf || !rec->strategy[0] ||
	    strpbrk(rec->strategy, " \t;=") || rec->nodes < 1 ||
	    !isfinite(rec->hops) || !isfinite(rec->ideal) || rec->hops < 0 ||
	    rec->ideal < 0 || rec->hops > LOC_RECORD_HOPS_MAX ||
	    rec->ideal > LOC_RECORD_HOPS_MAX)
		return -1;
	n = snprintf(buf, len, TAG " strategy=%s nodes=%d hops=%.3f ideal=%.3f",
		     rec->strategy, rec->nodes, rec->hops, rec->ideal);
	return (n < 0 || (size_t)n >= len) ? -1 : n;
}

/* The start of the record in text (a part that begins with the tag and a
 * space), or NULL. Parts are separated by ';' and may begin with spaces. */
static const char *_find(const char *text)
{
	const char *p = text;

	while (p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, TAG, TAG_LEN) && p[TAG_LEN] == ' ')
			return p;
		p = strchr(p, ';');
		if (p)
			p++;
	}
	return NULL;
}

static int _parse_int(const char *v, size_t n, int *out)
{
	char tmp[16], *end;
	long x;

	if (!n || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	errno = 0;
	x = strtol(tmp, &end, 10);
	if (errno || *end || x < 1 || x > 1 << 30)
		return -1;
	*out = (int)x;
	return 0;
}

static int _parse_real(const char *v, size_t n, double *out)
{
	char tmp[32], *end;
	double x;

	if (!n || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	errno = 0;
	x = strtod(tmp, &end);
	if (errno || *end || !isfinite(x) || x < 0 || x > LOC_RECORD_HOPS_MAX)
		return -1;
	*out = x;
	return 0;
}

int loc_record_parse(const char *text, loc_record_t *rec)
{
	const char *p, *end;
	loc_record_t r;
	unsigned seen = 0;

	if (!text || !(p = _find(text)))
		return 0;
	memset(&r, 0, sizeof(r));
	end = strchr(p, ';');
	if (!end)
		end = p + strlen(p);
	p += TAG_LEN;
	while (p < end) {
		const char *key, *eq, *val;
		size_t klen, vlen;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		key = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		eq = memchr(key, '=', p - key);
		if (!eq)
			return -1;
		klen = eq - key;
		val = eq + 1;
		vlen = p - val;
		if (klen == 8 && !strncmp(key, "strategy", 8)) {
			if (!vlen || vlen >= sizeof(r.strategy) ||
			    memchr(val, '=', vlen))
				return -1;
			memcpy(r.strategy, val, vlen);
			seen |= 1;
		} else if (klen == 5 && !strncmp(key, "nodes", 5)) {
			if (_parse_int(val, vlen, &r.nodes))
				return -1;
			seen |= 2;
		} else if (klen == 4 && !strncmp(key, "hops", 4)) {
			if (_parse_real(val, vlen, &r.hops))
				return -1;
			seen |= 4;
		} else if (klen == 5 && !strncmp(key, "ideal", 5)) {
			if (_parse_real(val, vlen, &r.ideal))
				return -1;
			seen |= 8;
		} /* other keys: a later version's, skipped */
	}
	if (seen != 15)
		return -1;
	if (rec)
		*rec = r;
	return 1;
}

char *loc_record_merge(const char *old, const char *record)
{
	const char *at = old ? _find(old) : NULL, *tail;
	size_t n;
	char *out;

	if (!record)
		return NULL;
	if (!old || !old[strspn(old, " \t")])
		return strdup(record);
	if (!at) {
		n = strlen(old) + 2 + strlen(record) + 1;
		if ((out = malloc(n)))
			snprintf(out, n, "%s; %s", old, record);
		return out;
	}
	tail = strchr(at, ';');
	if (!tail)
		tail = at + strlen(at);
	n = (size_t)(at - old) + strlen(record) + strlen(tail) + 1;
	if ((out = malloc(n)))
		snprintf(out, n, "%.*s%s%s", (int)(at - old), old, record,
			 tail);
	return out;
}
