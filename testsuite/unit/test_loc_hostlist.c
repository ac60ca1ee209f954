/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_hostlist.c - hostlist expansion and compression: the forms
 * Slurm writes, zero padding, several bracket groups, round trips on
 * random lists, and every kind of hostile expression.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_hostlist.h"
#include "loc_test_util.h"

/* Expands expr and compares with the NULL-terminated expected names. */
static void _expect(const char *expr, const char *const *want)
{
	loc_hostlist_t hl;
	loc_error_t err;
	int n = 0;

	while (want[n])
		n++;
	assert_int_equal(loc_hostlist_expand(expr, &hl, &err), 0);
	assert_int_equal(hl.count, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(hl.names[i], want[i]);
	loc_hostlist_free(&hl);
	assert_null(hl.names);
	assert_int_equal(hl.count, 0);
}

static void expand_single_names_and_lists(void **state)
{
	(void)state;
	_expect("b1", (const char *[]){ "b1", NULL });
	_expect("b1,g1", (const char *[]){ "b1", "g1", NULL });
	_expect("  b1 , g1\t", (const char *[]){ "b1", "g1", NULL });
	_expect("login", (const char *[]){ "login", NULL });
	_expect("a.b-c_d", (const char *[]){ "a.b-c_d", NULL });
}

static void expand_ranges_keep_padding(void **state)
{
	loc_hostlist_t hl;
	char want[16];

	(void)state;
	assert_int_equal(loc_hostlist_expand("n[001-064]", &hl, NULL), 0);
	assert_int_equal(hl.count, 64);
	for (int i = 0; i < 64; i++) {
		snprintf(want, sizeof(want), "n%03d", i + 1);
		assert_string_equal(hl.names[i], want);
	}
	loc_hostlist_free(&hl);
	/* Unpadded bounds grow naturally; padded ones keep their width. */
	_expect("n[8-11]", (const char *[]){ "n8", "n9", "n10", "n11", NULL });
	_expect("n[08-11]",
		(const char *[]){ "n08", "n09", "n10", "n11", NULL });
	_expect("n[098-101]",
		(const char *[]){ "n098", "n099", "n100", "n101", NULL });
	_expect("n[0-2]", (const char *[]){ "n0", "n1", "n2", NULL });
	_expect("n[7]", (const char *[]){ "n7", NULL });
	_expect("n[5-5]", (const char *[]){ "n5", NULL });
}

static void expand_comma_lists_inside_brackets(void **state)
{
	(void)state;
	_expect("m[3-4,7]", (const char *[]){ "m3", "m4", "m7", NULL });
	_expect("b1,g1,m[3-4,7],x[01,10-11]",
		(const char *[]){ "b1", "g1", "m3", "m4", "m7", "x01", "x10",
				  "x11", NULL });
	/* Order is as written, not sorted. */
	_expect("m[7,3-4]", (const char *[]){ "m7", "m3", "m4", NULL });
}

static void expand_several_groups_multiply(void **state)
{
	(void)state;
	_expect("rack[1-2]-n[01-03]",
		(const char *[]){ "rack1-n01", "rack1-n02", "rack1-n03",
				  "rack2-n01", "rack2-n02", "rack2-n03",
				  NULL });
	_expect("[1-2][3-4]x",
		(const char *[]){ "13x", "14x", "23x", "24x", NULL });
}

static void expand_groups_with_suffixes(void **state)
{
	(void)state;
	_expect("r[1-2]c[3,5]s",
		(const char *[]){ "r1c3s", "r1c5s", "r2c3s", "r2c5s", NULL });
	_expect("[1-3]", (const char *[]){ "1", "2", "3", NULL });
	_expect("a[1-2]b[9-10]c[0]",
		(const char *[]){ "a1b9c0", "a1b10c0", "a2b9c0", "a2b10c0",
				  NULL });
}

static void expand_counts_many_groups(void **state)
{
	loc_hostlist_t hl;

	(void)state;
	/* 4 x 4 x 4 x 4 x 4 names, left-most slowest. */
	assert_int_equal(loc_hostlist_expand("a[0-3]b[0-3]c[0-3]d[0-3]e[0-3]",
					     &hl, NULL),
			 0);
	assert_int_equal(hl.count, 1024);
	for (int i = 0; i < 1024; i++) {
		char want[32];

		snprintf(want, sizeof(want), "a%db%dc%dd%de%d", i >> 8 & 3,
			 i >> 6 & 3, i >> 4 & 3, i >> 2 & 3, i & 3);
		assert_string_equal(hl.names[i], want);
	}
	loc_hostlist_free(&hl);
	loc_hostlist_free(&hl); /* freeing twice is allowed */
}

static void expand_at_the_limit(void **state)
{
	loc_hostlist_t hl;
	loc_error_t err;

	(void)state;
	assert_int_equal(loc_hostlist_expand("n[1-1048576]", &hl, &err), 0);
	assert_int_equal(hl.count, LOC_HOSTLIST_MAX);
	assert_string_equal(hl.names[LOC_HOSTLIST_MAX - 1], "n1048576");
	loc_hostlist_free(&hl);
	assert_int_equal(loc_hostlist_expand("n[1-1048577]", &hl, &err),
			 LOC_EPARSE);
	assert_null(hl.names);
	assert_int_equal(hl.count, 0);
	/* The limit holds across items and across multiplied groups. */
	assert_int_equal(loc_hostlist_expand("n[1-1048576],x", &hl, &err),
			 LOC_EPARSE);
	assert_int_equal(loc_hostlist_expand("a[1-1024]b[1-1025]", &hl, &err),
			 LOC_EPARSE);
	assert_non_null(strstr(err.text, "more than 1048576"));
}

/* Every expression here must be rejected with a message. */
static const char *const _hostile[] = {
	"",                       /* empty expression */
	"   ",                    /* blanks only */
	",",                      /* two empty items */
	"a,,b",                   /* empty item in the middle */
	"a,",                     /* trailing comma */
	",a",                     /* leading comma */
	"n[1-3",                  /* unclosed */
	"n1-3]",                  /* close without open */
	"n[[1-3]]",               /* nested */
	"n[1-[2]]",               /* nested later */
	"n]1[",                   /* reversed brackets */
	"n[]",                    /* empty brackets */
	"n[,]",                   /* empty ranges */
	"n[1,]",                  /* trailing empty range */
	"n[,1]",                  /* leading empty range */
	"n[5-3]",                 /* reversed range */
	"n[a-b]",                 /* non-numeric */
	"n[1-b]",                 /* non-numeric upper bound */
	"n[1-]",                  /* missing upper bound */
	"n[-3]",                  /* missing lower bound */
	"n[1-2-3]",               /* two dashes */
	"n[1x]",                  /* garbage after number */
	"n[ 1]",                  /* blank inside brackets */
	"n[0-99999999999999999999]",      /* overflow */
	"n[123456789012345678901]",       /* overflow, single */
	"n[0-1048576]",           /* 1048577 names */
	"n[1-9999999999]",        /* absurd count */
	"a[0-9999]b[0-9999]",     /* absurd product */
	"a b",                    /* blank inside a name */
	"a\tb",                   /* tab inside a name */
	"a\x01",                  /* control byte */
	"n\xc3\xa9",              /* non-ASCII (UTF-8) */
	"n\xff",                  /* non-UTF-8 */
	"a=b",                    /* not a host name character */
	"a;rm",                   /* shell character */
	"n[1-2]]",                /* stray close after a group */
	NULL,
};

static void expand_rejects_hostile_input(void **state)
{
	(void)state;
	for (int i = 0; _hostile[i]; i++) {
		loc_hostlist_t hl = { (char **)1, 99 };
		loc_error_t err;

		loc_error_clear(&err);
		if (loc_hostlist_expand(_hostile[i], &hl, &err) != LOC_EPARSE)
			fail_msg("accepted hostile hostlist #%d '%s'", i,
				 _hostile[i]);
		assert_int_equal(err.code, LOC_EPARSE);
		assert_true(strlen(err.text) > 10);
		assert_non_null(strstr(err.text, "hostlist"));
		/* The message never carries raw control or high bytes. */
		for (const char *c = err.text; *c; c++)
			assert_true(*c >= 0x20 && *c < 0x7f);
		assert_null(hl.names);
		assert_int_equal(hl.count, 0);
	}
	/* NULL arguments are invalid, not parse errors. */
	{
		loc_hostlist_t hl;

		assert_int_equal(loc_hostlist_expand(NULL, &hl, NULL),
				 LOC_EINVAL);
		assert_int_equal(loc_hostlist_expand("a", NULL, NULL),
				 LOC_EINVAL);
	}
}

static void hostile_messages_name_the_problem(void **state)
{
	static const struct {
		const char *expr, *needle;
	} cases[] = {
		{ "n[5-3]", "reversed" },
		{ "n[a-b]", "not numeric" },
		{ "n[[1]]", "nested" },
		{ "n[1-3", "never closed" },
		{ "n1]", "without '['" },
		{ "a,,b", "empty name" },
		{ "n[]", "empty brackets" },
		{ "n[1-1234567890123456789]", "digits" },
		{ "a\x01", "0x01" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		loc_hostlist_t hl;
		loc_error_t err;

		assert_int_equal(loc_hostlist_expand(cases[i].expr, &hl, &err),
				 LOC_EPARSE);
		if (!strstr(err.text, cases[i].needle))
			fail_msg("'%s': message '%s' lacks '%s'",
				 cases[i].expr, err.text, cases[i].needle);
	}
}

/* Compresses names and checks the exact text. */
static void _compress(const char *const *names, int n, const char *want)
{
	char buf[512];
	int len = loc_hostlist_compress(names, n, buf, sizeof(buf));

	assert_int_equal(len, (int)strlen(want));
	assert_string_equal(buf, want);
}

static void compress_known_lists(void **state)
{
	(void)state;
	_compress((const char *[]){ "n1", "n2", "n3", "m7" }, 4, "n[1-3],m7");
	_compress((const char *[]){ "n001", "n002", "n003", "n005" }, 4,
		  "n[001-003,005]");
	_compress((const char *[]){ "n8", "n9", "n10", "n11" }, 4, "n[8-11]");
	_compress((const char *[]){ "n08", "n9" }, 2, "n[08,9]");
	_compress((const char *[]){ "n09", "n10" }, 2, "n[09-10]");
	_compress((const char *[]){ "login", "n1" }, 2, "login,n1");
	_compress((const char *[]){ "b1", "g1", "m3", "m4", "m7" }, 5,
		  "b1,g1,m[3-4,7]");
	_compress((const char *[]){ "n3", "n1" }, 2, "n[3,1]");
	_compress((const char *[]){ "n1", "n1" }, 2, "n[1,1]");
	_compress((const char *[]){ "7", "8" }, 2, "[7-8]");
	_compress((const char *[]){ "r1-n1", "r1-n2", "r2-n1" }, 3,
		  "r1-n[1-2],r2-n1");
	_compress(NULL, 0, "");
}

static void compress_reports_needed_length(void **state)
{
	const char *names[] = { "n1", "n2", "n3", "m7" };
	char small[5];

	(void)state;
	assert_int_equal(loc_hostlist_compress(names, 4, NULL, 0), 9);
	assert_int_equal(loc_hostlist_compress(names, 4, small, sizeof(small)),
			 9);
	assert_string_equal(small, "n[1-");
	assert_int_equal(loc_hostlist_compress(names, -1, small, 5),
			 LOC_EINVAL);
	assert_int_equal(loc_hostlist_compress(
				 (const char *[]){ "a", "b[1]" }, 2, small, 5),
			 LOC_EINVAL);
	assert_int_equal(loc_hostlist_compress((const char *[]){ "" }, 1,
					       small, 5),
			 LOC_EINVAL);
	assert_int_equal(loc_hostlist_compress((const char *[]){ NULL }, 1,
					       small, 5),
			 LOC_EINVAL);
	assert_int_equal(loc_hostlist_compress((const char *[]){ "a b" }, 1,
					       small, 5),
			 LOC_EINVAL);
}

/* Makes a random name from a few prefixes, widths and numbers. */
static void _random_name(uint64_t *s, char *buf, size_t len, int *last)
{
	static const char *const prefix[] = { "n", "node", "rack1-n", "x",
					      "" };
	int p = tu_below(s, 5), w = tu_below(s, 4);
	int v;

	/* Mostly runs of consecutive numbers, sometimes jumps. */
	if (tu_below(s, 4))
		v = *last + 1;
	else
		v = tu_below(s, 1200);
	*last = v;
	if (tu_below(s, 10) == 0) {
		snprintf(buf, len, "%s", p == 4 ? "login" : prefix[p]);
		return;
	}
	snprintf(buf, len, "%s%0*d", prefix[p], w, v);
}

static void compress_round_trips_random_lists(void **state)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int trial = 0; trial < 400; trial++) {
		int n = 1 + tu_below(&s, 120), last = tu_below(&s, 50);
		char **names = calloc(n, sizeof(char *));
		char *buf;
		loc_hostlist_t hl;
		int len;

		assert_non_null(names);
		/* Keep the prefix for stretches so runs form. */
		for (int i = 0; i < n; i++) {
			char tmp[64];

			if (i && tu_below(&s, 3)) {
				/* Same prefix as before, next number. */
				const char *prev = names[i - 1];
				size_t b = strlen(prev);

				while (b && prev[b - 1] >= '0' &&
				       prev[b - 1] <= '9')
					b--;
				snprintf(tmp, sizeof(tmp), "%.*s%0*d", (int)b,
					 prev, (int)(strlen(prev) - b),
					 ++last);
			} else {
				_random_name(&s, tmp, sizeof(tmp), &last);
			}
			names[i] = strdup(tmp);
			assert_non_null(names[i]);
		}
		len = loc_hostlist_compress((const char *const *)names, n,
					    NULL, 0);
		assert_true(len > 0);
		buf = malloc(len + 1);
		assert_non_null(buf);
		assert_int_equal(loc_hostlist_compress(
					 (const char *const *)names, n, buf,
					 len + 1),
				 len);
		assert_int_equal((int)strlen(buf), len);
		if (loc_hostlist_expand(buf, &hl, NULL))
			fail_msg("compressed '%s' does not expand", buf);
		assert_int_equal(hl.count, n);
		for (int i = 0; i < n; i++)
			if (strcmp(hl.names[i], names[i]))
				fail_msg("'%s': name %d is '%s', want '%s'",
					 buf, i, hl.names[i], names[i]);
		loc_hostlist_free(&hl);
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
		free(buf);
	}
}

static void compress_of_expansion_is_stable(void **state)
{
	static const char *const exprs[] = {
		"n[001-064]", "b1,g1,m[3-4,7]", "n[1-3],m7",
		"rack1-n[01-04],rack2-n[01-04]", "x[08-11,13]", "n[9-10]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		loc_hostlist_t hl;
		char buf[256];

		assert_int_equal(loc_hostlist_expand(exprs[i], &hl, NULL), 0);
		loc_hostlist_compress((const char *const *)hl.names, hl.count,
				      buf, sizeof(buf));
		assert_string_equal(buf, exprs[i]);
		loc_hostlist_free(&hl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expand_single_names_and_lists),
		cmocka_unit_test(expand_ranges_keep_padding),
		cmocka_unit_test(expand_comma_lists_inside_brackets),
		cmocka_unit_test(expand_several_groups_multiply),
		cmocka_unit_test(expand_groups_with_suffixes),
		cmocka_unit_test(expand_counts_many_groups),
		cmocka_unit_test(expand_at_the_limit),
		cmocka_unit_test(expand_rejects_hostile_input),
		cmocka_unit_test(hostile_messages_name_the_problem),
		cmocka_unit_test(compress_known_lists),
		cmocka_unit_test(compress_reports_needed_length),
		cmocka_unit_test(compress_round_trips_random_lists),
		cmocka_unit_test(compress_of_expansion_is_stable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
