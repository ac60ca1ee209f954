/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_conf_keys.c - the key table (loc_conf_key_table.h) and what it
 * drives: the man page documents every key of the table, each value
 * loc_conf_key_value() writes parses back to the same value, the partition
 * flag is what PartitionName lines accept, and the defaults are the
 * table's.
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

#include "loc_conf.h"
#include "loc_test_conf.h"

#ifndef LOC_DOC_DIR
#error "LOC_DOC_DIR must name the doc directory (testsuite/unit/local.am)"
#endif

/* Every key set away from its default, and partitions overriding some. */
static const char *const _custom =
	"Dimensions=8x8x2\n"
	"Torus=yes,no,yes\n"
	"NodesPerPoint=2\n"
	"Strategy=span\n"
	"Curve=snake\n"
	"WalltimeAware=combo\n"
	"SLTolerance=0.25\n"
	"PFHoldTime=120\n"
	"AdjEstWindow=7\n"
	"PagingSize=3\n"
	"PagingIndex=snake\n"
	"MMMaxCenters=5\n"
	"Seed=18446744073709551615\n"
	"NodeWeight=ignore\n"
	"PackTolerance=0.05\n"
	"CompactWait=900\n"
	"CompactTolerance=0.1\n"
	"PlanWindow=60\n"
	"PlanHold=released\n"
	"PartitionName=debug Strategy=firstfit Seed=7 PlanWindow=0\n"
	"PartitionName=big PackTolerance=0.3 NodeWeight=tiers\n";

static char *_read_man_page(void)
{
	FILE *f = fopen(LOC_DOC_DIR "/locality.conf.5", "r");
	char *doc;
	long len;

	if (!f)
		fail_msg("cannot open %s: %s", LOC_DOC_DIR "/locality.conf.5",
			 strerror(errno));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	doc = calloc(1, len + 1);
	assert_non_null(doc);
	assert_int_equal(fread(doc, 1, len, f), (size_t)len);
	fclose(f);
	return doc;
}

static void every_key_of_the_table_is_documented(void **state)
{
	char *doc = _read_man_page();

	(void)state;
	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		const loc_conf_key_info_t *info = loc_conf_key_info(k);
		char want[80];

		assert_non_null(info);
		assert_true(info->doc && info->doc[0]);
		/* A key's entry in the page: its name in bold on a .TP line. */
		snprintf(want, sizeof(want), ".TP\n\\fB%s\\fR", info->name);
		if (!strstr(doc, want))
			fail_msg("%s has no entry in doc/locality.conf.5 "
				 "(want \"%s\")", info->name, want);
	}
	assert_null(loc_conf_key_info(LOC_KEY_COUNT));
	assert_null(loc_conf_key_info(-1));
	free(doc);
}

static void the_names_are_the_table_in_order(void **state)
{
	const char *const *keys = loc_conf_keys();
	int n = 0;

	(void)state;
	for (; keys[n]; n++)
		assert_string_equal(keys[n], loc_conf_key_info(n)->name);
	assert_int_equal(n, LOC_KEY_COUNT);
}

/* Appends " Key=value" for every key partition (NULL: global) gives a
 * value of; only the partition keys when partition is set. */
static void _append_values(const loc_conf_t *c, const char *partition,
			   char *text, size_t len)
{
	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		const loc_conf_key_info_t *info = loc_conf_key_info(k);
		char val[64];
		size_t o = strlen(text);

		if (partition && !info->partition)
			continue;
		if (!loc_conf_key_value(c, partition, k, val, sizeof(val))) {
			assert_false(info->has_value);
			continue;
		}
		assert_true(info->has_value);
		snprintf(text + o, len - o, "%s%s=%s", partition ? " " : "",
			 info->name, val);
		if (!partition)
			strncat(text, "\n", len - strlen(text) - 1);
	}
}

static void every_value_written_parses_back(void **state)
{
	loc_conf_t *c = _ok(_custom), *back;
	char text[4096] = "", a[64], b[64];
	const char *parts[] = { NULL, "debug", "big" };

	(void)state;
	_append_values(c, NULL, text, sizeof(text));
	for (int i = 1; i < 3; i++) {
		strncat(text, "PartitionName=", sizeof(text) - strlen(text) - 1);
		strncat(text, parts[i], sizeof(text) - strlen(text) - 1);
		_append_values(c, parts[i], text, sizeof(text));
		strncat(text, "\n", sizeof(text) - strlen(text) - 1);
	}
	back = _ok(text);
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < LOC_KEY_COUNT; k++) {
			const char *va = loc_conf_key_value(c, parts[i], k, a,
							    sizeof(a));
			const char *vb = loc_conf_key_value(back, parts[i], k,
							    b, sizeof(b));

			if (!va) {
				assert_null(vb);
				continue;
			}
			assert_non_null(vb);
			assert_string_equal(va, vb);
		}
	/* A few spelled out, so the round trip is not trivially "". */
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_DIMENSIONS, a,
					       sizeof(a)), "8x8x2");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_TORUS, a,
					       sizeof(a)), "yes,no,yes");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_SEED, a,
					       sizeof(a)),
			    "18446744073709551615");
	assert_string_equal(loc_conf_key_value(c, "debug", LOC_KEY_SEED, a,
					       sizeof(a)), "7");
	assert_string_equal(loc_conf_key_value(c, "debug", LOC_KEY_STRATEGY,
					       a, sizeof(a)), "firstfit");
	assert_string_equal(loc_conf_key_value(c, "big", LOC_KEY_STRATEGY, a,
					       sizeof(a)), "span");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_PFHOLD, a,
					       sizeof(a)), "120");
	assert_null(loc_conf_key_value(c, NULL, LOC_KEY_NODENAME, a,
				       sizeof(a)));
	assert_null(loc_conf_key_value(c, NULL, LOC_KEY_COUNT, a, sizeof(a)));
	loc_conf_destroy(back);
	loc_conf_destroy(c);
}

/* PartitionName and GresName lines take the same keys: the table's. */
static void override_lines_accept_exactly_the_partition_keys(void **state)
{
	static const char *const lines[] = { "PartitionName=p", "GresName=gpu" };
	loc_conf_t *defaults = _ok("Dimensions=4\n");

	(void)state;
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < LOC_KEY_COUNT; k++) {
			const loc_conf_key_info_t *info = loc_conf_key_info(k);
			char text[200], val[64];
			loc_error_t err;
			loc_conf_t *c;

			if (!loc_conf_key_value(defaults, NULL, k, val,
						sizeof(val)))
				continue;
			snprintf(text, sizeof(text), "Dimensions=4\n%s %s=%s\n",
				 lines[l], info->name, val);
			c = loc_conf_parse(text, "locality.conf", &err);
			if (info->partition && !c)
				fail_msg("%s: %s may set it, but: %s",
					 info->name, lines[l], err.text);
			if (!info->partition && c)
				fail_msg("%s: %s may not set it, but the parser took it",
					 info->name, lines[l]);
			loc_conf_destroy(c);
		}
	loc_conf_destroy(defaults);
}

static void defaults_are_the_tables(void **state)
{
	loc_conf_t *c = _ok("Dimensions=4\n");
	loc_policy_t pol;
	char v[64];

	(void)state;
	loc_policy_init(&pol);
	assert_memory_equal(&pol, &c->policy, sizeof(pol));
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_STRATEGY, v,
					       sizeof(v)), "pack");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_COMPACT_TOL,
					       v, sizeof(v)), "0.2");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_NPP, v,
					       sizeof(v)), "1");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_PFHOLD, v,
					       sizeof(v)), "300");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_ADJEST, v,
					       sizeof(v)), "10");
	assert_string_equal(loc_conf_key_value(c, NULL, LOC_KEY_TORUS, v,
					       sizeof(v)), "no");
	assert_int_equal(c->policy.seed, 1);
	loc_conf_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_key_of_the_table_is_documented),
		cmocka_unit_test(the_names_are_the_table_in_order),
		cmocka_unit_test(every_value_written_parses_back),
		cmocka_unit_test(override_lines_accept_exactly_the_partition_keys),
		cmocka_unit_test(defaults_are_the_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
