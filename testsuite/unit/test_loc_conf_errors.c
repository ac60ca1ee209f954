/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_conf_errors.c - locality.conf files the parser must reject: a
 * table of malformed files each rejected at the right line; the error
 * format; hostile bytes (NUL, over-long lines, random garbage); and
 * unreadable files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loc_conf.h"
#include "loc_test_util.h"
#include "loc_test_conf.h"

/* ===================================================================== */
/* Malformed files                                                       */
/* ===================================================================== */

static const struct bad {
	const char *text;
	int line;
	const char *needle;
} _bad[] = {
	{ "Dimensions=8x8\nStrateg=mm\n", 2, "unknown key 'Strateg'" },
	{ "Dimensions=8xx8", 1, "'8xx8' is not a shape like 8x8x4" },
	{ "Dimensions=8x0", 1, "is 0" },
	{ "Dimensions=2x2x2x2x2", 1, "not a shape" },
	{ "Dimensions=100000x100000", 1, "more than 67108864 points" },
	{ "Dimensions=-8", 1, "not a shape" },
	{ "Dimensions=8x", 1, "not a shape" },
	{ "Dimensions=8\nDimensions=8", 2, "already set on line 1" },
	{ "Dimensions=4 Torus=yes Torus=no", 1, "duplicate key 'Torus'" },
	{ "# c\nTorus=maybe\nDimensions=8", 2, "Torus: 'maybe'" },
	{ "Dimensions=8x8\nTorus=yes,no,yes", 2, "3 values" },
	{ "Dimensions=8 NodesPerPoint=0", 1, "out of range 1-65536" },
	{ "Dimensions=4\nNodesPerPoint=65537", 2, "out of range" },
	{ "Dimensions=8\nStrategy=fastest", 2, "unknown strategy 'fastest'" },
	{ "Dimensions=8\nCurve=peano", 2, "unknown curve 'peano'" },
	{ "Dimensions=8\nWalltimeAware=maybe", 2, "unknown mode" },
	{ "Dimensions=8\nSLTolerance=-0.5", 2, "negative" },
	{ "SLTolerance=nan\nDimensions=8", 1, "not a number" },
	{ "Dimensions=8\nSLTolerance=1e999", 2, "not a number" },
	{ "Dimensions=8\nPackTolerance=-0.1", 2,
	  "PackTolerance: '-0.1' is negative" },
	{ "Dimensions=8\nPackTolerance=0x1", 2,
	  "PackTolerance: '0x1' is not a number" },
	{ "Dimensions=8\nCompactWait=-5", 2, "CompactWait" },
	{ "Dimensions=8\nCompactWait=ten", 2, "CompactWait" },
	{ "Dimensions=8\nPlanWindow=-30", 2, "PlanWindow" },
	{ "Dimensions=8\nPlanWindow=86401", 2, "PlanWindow" },
	{ "Dimensions=8\nPlanHold=free", 2, "unknown hold 'free'" },
	{ "Dimensions=8\nCompactTolerance=-1", 2,
	  "CompactTolerance: '-1' is negative" },
	{ "Dimensions=8\nPFHoldTime=-1", 2, "PFHoldTime" },
	{ "Dimensions=8\nPFHoldTime=5s", 2, "not an integer" },
	{ "Dimensions=8\nAdjEstWindow=0", 2, "AdjEstWindow" },
	{ "Dimensions=8\nPagingSize=11", 2, "out of range 0-10" },
	{ "Dimensions=8\nPagingIndex=diagonal", 2, "unknown indexing" },
	{ "Dimensions=8\nNodeWeight=heaviest", 2, "unknown rule 'heaviest'" },
	{ "Dimensions=8\nMMMaxCenters=-3", 2, "MMMaxCenters" },
	{ "Dimensions=8\nSeed=-1", 2, "Seed" },
	{ "Dimensions=8\nSeed=18446744073709551616", 2, "64-bit" },
	{ "Dimensions=8\n\nNodeName=n[1-4]\n", 3, "no Coords" },
	{ "NodeName=n[1-4] Coords=0,0\nDimensions=8", 1,
	  "Coords: 2 values but Dimensions=8 has 1" },
	{ "Dimensions=4x4\nNodeName=n1 Coords=4,0", 2, "outside dimension 0" },
	{ "Dimensions=4\nNodeName=n[1-5] Coords=0", 2, "run off the end" },
	{ "Dimensions=2x2 NodesPerPoint=2\nNodeName=n[1-3] Coords=1,1", 2,
	  "'n3' is the first that does not fit" },
	{ "Dimensions=4\nNodeName=n[1-3 Coords=0", 2, "never closed" },
	{ "Dimensions=4\nNodeName=n[3-1] Coords=0", 2, "reversed" },
	{ "Dimensions=4\nNodeName=n1 Coords=0 Strategy=mm", 2,
	  "not valid on a NodeName line" },
	{ "Dimensions=4\nNodeName=n1 Coords=0 Coords=1", 2,
	  "duplicate key 'Coords'" },
	{ "Dimensions=4\nNodeName=n1 Coords=0,x", 2, "not a list" },
	{ "Dimensions=4\nCoords=0", 2, "only valid on a NodeName line" },
	{ "Dimensions=4\nStrategy=mm NodeName=n1", 2, "must be the first" },
	{ "Dimensions=4\nPartitionName=debug Dimensions=8", 2,
	  "'Dimensions' is not valid on a PartitionName line" },
	{ "Dimensions=4\nPartitionName=debug Strategy=mm NodeName=x", 2,
	  "not valid on a PartitionName line" },
	{ "Dimensions=4\nPartitionName=debug Strategy=mm\n"
	  "PartitionName=debug Curve=snake",
	  3, "first on line 2" },
	{ "Dimensions=4\nPartitionName=debug Strategy=mm Strategy=span", 2,
	  "duplicate key 'Strategy'" },
	{ "Dimensions=4\nPartitionName=deb$ug", 2, "not a valid partition" },
	{ "Dimensions=4\nPartitionName=debug Seed=x", 2, "Seed: 'x'" },
	{ "Dimensions=4\nGresName=gpu Dimensions=8", 2,
	  "'Dimensions' is not valid on a GresName line" },
	{ "Dimensions=4\nGresName=gpu RecordPlacement=none", 2,
	  "'RecordPlacement' is not valid on a GresName line" },
	{ "Dimensions=4\nGresName=gpu PartitionName=p", 2,
	  "'PartitionName' is not valid on a GresName line" },
	{ "Dimensions=4\nPartitionName=p GresName=gpu", 2,
	  "'GresName' is not valid on a PartitionName line" },
	{ "Dimensions=4\nStrategy=mm GresName=gpu", 2, "must be the first" },
	{ "Dimensions=4\nGresName=gpu CompactWait=0\n# c\n"
	  "GresName=gpu CompactWait=5",
	  4, "duplicate GresName 'gpu' (first on line 2)" },
	{ "Dimensions=4\nGresName=gpu CompactWait=0 CompactWait=5", 2,
	  "duplicate key 'CompactWait' on this GresName line" },
	{ "Dimensions=4\nGresName=gpu:a100 CompactWait=0", 2,
	  "names a type; name the GRES alone" },
	{ "Dimensions=4\nGresName=g.pu", 2, "'g.pu' is not a valid GRES" },
	{ "Dimensions=4\nGresName=gpu CompactTolerance=-0.3", 2,
	  "CompactTolerance: '-0.3' is negative" },
	{ "Dimensions=4\nStrategy", 2, "expected Key=Value" },
	{ "Dimensions=4\n=mm", 2, "missing key" },
	{ "Dimensions=4\nStrategy=", 2, "empty value" },
	{ "Strategy=mm\n", 0, "missing required key Dimensions" },
	{ "", 0, "missing required key Dimensions" },
	{ "# only a comment\n\n", 0, "Dimensions" },
	{ "Dimensions=4\nStrategy=mm \\\n  Curve=snake \\\n  Bogus=1\n", 4,
	  "unknown key 'Bogus'" },
	{ "Dimensions=4 \\", 1, "past the end of the file" },
	{ "Dimensions=4\nStrategy=m\x01m", 2, "control character 0x01" },
	{ "Dimensions=4\nStrategy=m\x7fm", 2, "control character 0x7f" },
	{ "Dimensions=4\nStrategy=m\xc3\xa9", 2, "non-ASCII byte 0xc3" },
	{ "Dimensions=4\n# caf\xff\n", 2, "invalid UTF-8 byte 0xff" },
	{ "Dimensions=4\n# \xc0\xaf overlong\n", 2, "invalid UTF-8" },
	{ "Dimensions=4\n# \xed\xa0\x80 surrogate\n", 2, "invalid UTF-8" },
	{ "Dimensions=4\n# cut \xe2\x82", 2, "invalid UTF-8" },
	{ "Dimensions=4\n# caf\xc3\xa9 is fine\nStrategy=bad", 3,
	  "unknown strategy" },
	{ "Dimensions=4\r\nStrategy=nope\r\n", 2, "unknown strategy 'nope'" },
	{ "Dimensions=4\nStrategy=mm\rCurve=snake", 2, "control character" },
	{ "Dimensions=4\nStrategy=\"mm\"", 2, "unknown strategy" },
	{ "Dimensions=4\nNodeName=a=b Coords=0", 2, "invalid character '='" },
};

static void malformed_files_are_rejected_at_their_line(void **state)
{
	int n = (int)(sizeof(_bad) / sizeof(_bad[0]));

	(void)state;
	assert_true(n >= 30);
	for (int i = 0; i < n; i++) {
		loc_error_t err;
		loc_conf_t *c;

		memset(&err, 0x55, sizeof(err));
		c = loc_conf_parse(_bad[i].text, "locality.conf", &err);
		if (c)
			fail_msg("case %d accepted: '%s'", i, _bad[i].text);
		if (err.line != _bad[i].line ||
		    strcmp(err.file, "locality.conf") ||
		    !strstr(err.text, _bad[i].needle))
			fail_msg("case %d: got %s:%d '%s', want line %d '%s'",
				 i, err.file, err.line, err.text, _bad[i].line,
				 _bad[i].needle);
		assert_int_not_equal(err.code, LOC_OK);
		for (const char *t = err.text; *t; t++)
			assert_true(*t >= 0x20 && *t < 0x7f);
	}
}

static void error_format_reads_file_line_text(void **state)
{
	loc_error_t err;
	char buf[300];

	(void)state;
	assert_null(loc_conf_parse("Dimensions=8x8\n\nStrateg=mm\n",
				   "locality.conf", &err));
	assert_int_equal(err.code, LOC_EPARSE);
	assert_string_equal(loc_error_format(&err, buf, sizeof(buf)),
			    "locality.conf:3: unknown key 'Strateg'");
	assert_null(loc_conf_parse("Dimensions=8xx8\n", "locality.conf",
				   &err));
	assert_string_equal(loc_error_format(&err, buf, sizeof(buf)),
			    "locality.conf:1: Dimensions: '8xx8' is not a "
			    "shape like 8x8x4 (1 to 4 sizes)");
	/* NULL error records are allowed. */
	assert_null(loc_conf_parse("Strateg=mm", "x", NULL));
	assert_null(loc_conf_parse(NULL, "x", &err));
	assert_int_equal(err.code, LOC_EINVAL);
}

/* ===================================================================== */
/* Hostile bytes and files                                               */
/* ===================================================================== */

static void nul_bytes_are_errors(void **state)
{
	static const char text[] = "Dimensions=4\nStr\0ategy=mm\n";
	loc_error_t err;
	const char *path;

	(void)state;
	assert_null(loc_conf_parse_mem(text, sizeof(text) - 1, "mem.conf",
				       &err));
	assert_int_equal(err.line, 2);
	assert_string_equal(err.file, "mem.conf");
	assert_non_null(strstr(err.text, "NUL byte at column 4"));
	/* The same through a file, and a NUL in a comment. */
	path = _tmpfile(text, sizeof(text) - 1);
	assert_null(loc_conf_load(path, &err));
	assert_int_equal(err.line, 2);
	assert_string_equal(err.file, path);
	unlink(path);
	path = _tmpfile("Dimensions=4 # x\0y\n", 19);
	assert_null(loc_conf_load(path, &err));
	assert_int_equal(err.line, 1);
	unlink(path);
}

static void long_lines_are_errors(void **state)
{
	size_t n = 70000;
	char *text = malloc(n + 64);
	loc_error_t err;

	(void)state;
	assert_non_null(text);
	strcpy(text, "Dimensions=4\n# ");
	memset(text + 15, 'a', n);
	strcpy(text + 15 + n, "\nSeed=1\n");
	assert_null(loc_conf_parse(text, "long.conf", &err));
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.text, "longer than 65536"));
	/* A line of exactly 65536 bytes is fine. */
	text[15 + 65536 - 2] = '\n';
	text[15 + 65536 - 1] = '\0';
	{
		loc_conf_t *c = loc_conf_parse(text, "long.conf", &err);

		assert_non_null(c);
		loc_conf_destroy(c);
	}
	/* Continued lines joining to more than 1 MiB. */
	{
		size_t lines = 40, len = 30000;
		char *big = malloc(lines * (len + 16) + 64), *o = big;

		assert_non_null(big);
		o += sprintf(o, "Dimensions=4\n");
		for (size_t i = 0; i < lines; i++) {
			o += sprintf(o, "Seed=1");
			memset(o, ' ', len);
			o += len;
			o += sprintf(o, "\\\n");
		}
		strcpy(o, "Curve=snake\n");
		assert_null(loc_conf_parse(big, "long.conf", &err));
		assert_non_null(strstr(err.text, "longer than 1048576"));
		assert_true(err.line > 30 && err.line <= 41);
		free(big);
	}
	free(text);
}

static void random_garbage_never_crashes(void **state)
{
	uint64_t s = 7;
	static const char *const pieces[] = {
		"Dimensions=", "8x8", "NodeName=", "n[1-4]", "Coords=", "0,0",
		"PartitionName=", "p", "Strategy=", "mm", "Torus=", "yes",
		"GresName=", "gpu",
		" ", "\t", "\n", "\\\n", "#", "=", ",", "[", "]", "-", "x",
		"\xff", "\x01", "\xc3\xa9", "\r\n", "9999999999",
	};
	int accepted = 0, npieces = sizeof(pieces) / sizeof(pieces[0]);

	(void)state;
	for (int trial = 0; trial < 3000; trial++) {
		char text[512];
		size_t o = 0;
		loc_error_t err;
		loc_conf_t *c;

		while (o < 400) {
			const char *pc = pieces[tu_below(&s, npieces)];
			size_t l = strlen(pc);

			memcpy(text + o, pc, l);
			o += l;
		}
		text[o] = '\0';
		c = loc_conf_parse_mem(text, o, "fuzz.conf", &err);
		if (c) {
			accepted++;
			loc_conf_destroy(c);
		} else {
			assert_string_equal(err.file, "fuzz.conf");
			assert_true(err.line >= 0 && err.line <= 400);
			assert_true(err.text[0] != '\0');
		}
	}
	/* Random soup is almost never a valid file. */
	assert_true(accepted < 3000);
}

static void unreadable_files_name_path_and_reason(void **state)
{
	loc_error_t err;

	(void)state;
	assert_null(loc_conf_load("/nonexistent/dir/locality.conf", &err));
	assert_int_equal(err.code, LOC_EIO);
	assert_string_equal(err.file, "/nonexistent/dir/locality.conf");
	assert_int_equal(err.line, 0);
	assert_non_null(strstr(err.text, strerror(ENOENT)));
	assert_null(loc_conf_load("/tmp", &err));
	assert_string_equal(err.file, "/tmp");
	assert_non_null(strstr(err.text, strerror(EISDIR)));
	assert_null(loc_conf_load(NULL, &err));
	assert_int_equal(err.code, LOC_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(malformed_files_are_rejected_at_their_line),
		cmocka_unit_test(error_format_reads_file_line_text),
		cmocka_unit_test(nul_bytes_are_errors),
		cmocka_unit_test(long_lines_are_errors),
		cmocka_unit_test(random_garbage_never_crashes),
		cmocka_unit_test(unreadable_files_name_path_and_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
