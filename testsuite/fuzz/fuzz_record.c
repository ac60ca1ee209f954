/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_record.c - placement records (loc_record.h) in a hostile job field.
 *
 * The input is a whole AdminComment as slurmctld or an administrator may
 * have left it. Checked:
 *  1. a record loc_record_parse() accepts is one loc_record_format()
 *     writes again into LOC_RECORD_MAX bytes, and that text parses back to
 *     the same record (to the 3 decimals it is written with);
 *  2. loc_record_merge() puts exactly the new record in the field: it
 *     parses back from the merged text, merging twice is merging the last
 *     record once, and a field with no record keeps its text as a prefix,
 *     byte for byte.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz_util.h"
#include "loc_record.h"

static bool _same(const loc_record_t *a, const loc_record_t *b)
{
	return !strcmp(a->strategy, b->strategy) && a->nodes == b->nodes &&
	       fabs(a->hops - b->hops) < 0.0006 &&
	       fabs(a->ideal - b->ideal) < 0.0006;
}

static void _round_trip(const loc_record_t *rec, const char *field)
{
	char text[LOC_RECORD_MAX], again[LOC_RECORD_MAX];
	loc_record_t back;
	int n;

	FUZZ_CHECK(rec->strategy[0] && !strpbrk(rec->strategy, " \t;=") &&
			   rec->nodes >= 1 && isfinite(rec->hops) &&
			   rec->hops >= 0 && isfinite(rec->ideal) &&
			   rec->ideal >= 0,
		   "parse accepted a record format refuses, from '%.200s'",
		   field);
	n = loc_record_format(rec, text, sizeof(text));
	FUZZ_CHECK(n > 0, "a parsed record does not fit %d bytes: '%.200s'",
		   LOC_RECORD_MAX, field);
	FUZZ_CHECK(loc_record_parse(text, &back) == 1 && _same(rec, &back),
		   "'%s' does not parse back (from '%.200s')", text, field);
	FUZZ_CHECK(loc_record_format(&back, again, sizeof(again)) == n &&
			   !strcmp(text, again),
		   "'%s' became '%s'", text, again);
}

static void _merge(const char *field, int had)
{
	static const loc_record_t first = { "mm", 3, 1.333, 1.333 };
	static const loc_record_t last = { "pack", 8, 1.786, 1.714 };
	char first_text[LOC_RECORD_MAX], last_text[LOC_RECORD_MAX];
	char *once, *half, *twice;
	loc_record_t back;

	FUZZ_CHECK(loc_record_format(&first, first_text, sizeof(first_text)) >
				   0 &&
			   loc_record_format(&last, last_text,
					     sizeof(last_text)) > 0,
		   "the fixed records do not format");
	once = loc_record_merge(field, last_text);
	half = loc_record_merge(field, first_text);
	twice = half ? loc_record_merge(half, last_text) : NULL;
	FUZZ_CHECK(once && half && twice, "out of memory");
	FUZZ_CHECK(loc_record_parse(once, &back) == 1 && _same(&back, &last),
		   "'%.200s' merged into '%.200s' is not read back", last_text,
		   field);
	FUZZ_CHECK(!strcmp(once, twice),
		   "merging twice into '%.200s' gave '%.200s', once '%.200s'",
		   field, twice, once);
	if (had == 0 && field[strspn(field, " \t")])
		FUZZ_CHECK(!strncmp(once, field, strlen(field)),
			   "'%.200s' lost its text: '%.200s'", field, once);
	free(once);
	free(half);
	free(twice);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *field = fuzz_cstr(data, size);
	loc_record_t rec;
	int rc;

	if (!field)
		return 0;
	rc = loc_record_parse(field, &rec);
	FUZZ_CHECK(rc >= -1 && rc <= 1, "parse returned %d", rc);
	if (rc == 1)
		_round_trip(&rec, field);
	_merge(field, rc);
	free(field);
	return 0;
}
