/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_conf_grid.c - locality.conf placement, loc_conf_build_grid:
 * NodeName lines placed node by node and the other nodes filling the free
 * points; NodesPerPoint and partial points; names, not driver order; 100k
 * nodes; and the errors that name the file and line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_conf.h"
#include "loc_test_util.h"
#include "loc_test_conf.h"

/* ===================================================================== */
/* Placement                                                             */
/* ===================================================================== */

/* Returns the index of name in names[n], or -1. */
static int _find(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static void build_grid_places_lines_and_fills_the_rest(void **state)
{
	loc_conf_t *c = _ok(_all_keys);
	const char *names[106];
	char buf[100][8];
	loc_error_t err;
	loc_grid_t *g;
	int n = 0, x = 0, pt;

	(void)state;
	/* The driver lists 100 unnamed nodes with the six named ones
	 * scattered among them. */
	for (int i = 0; i < 100; i++) {
		snprintf(buf[i], sizeof(buf[i]), "x%d", i);
		names[n++] = buf[i];
		if (i == 3)
			names[n++] = "m2";
		if (i == 10)
			names[n++] = "n003";
		if (i == 50) {
			names[n++] = "n001";
			names[n++] = "m1";
		}
		if (i == 99) {
			names[n++] = "n004";
			names[n++] = "n002";
		}
	}
	assert_int_equal(n, 106);
	g = loc_conf_build_grid(c, names, n, &err);
	assert_non_null(g);
	assert_int_equal(loc_grid_nnodes(g), 106);
	assert_int_equal(loc_grid_npoints(g), 256);
	/* NodeName lines: (1,2,3) is point 43, holding n001 n002; n003
	 * n004 follow at point 44; m1 m2 share the last point 255. */
	assert_int_equal(loc_grid_node_point(g, _find(names, n, "n001")), 43);
	assert_int_equal(loc_grid_node_point(g, _find(names, n, "n002")), 43);
	assert_int_equal(loc_grid_node_point(g, _find(names, n, "n003")), 44);
	assert_int_equal(loc_grid_node_point(g, _find(names, n, "n004")), 44);
	assert_int_equal(loc_grid_node_point(g, _find(names, n, "m1")), 255);
	assert_int_equal(loc_grid_node_point(g, _find(names, n, "m2")), 255);
	/* The x nodes fill points 0, 1, ... two by two in driver order,
	 * skipping the points the NodeName lines used. */
	pt = 0;
	for (int i = 0; i < n; i++) {
		if (names[i][0] != 'x')
			continue;
		if (pt == 43)
			pt = 45;
		assert_int_equal(loc_grid_node_point(g, i), pt);
		if (++x % 2 == 0)
			pt++;
	}
	assert_int_equal(loc_grid_selfcheck(g), 0);
	loc_grid_destroy(g);
	loc_conf_destroy(c);
}

static void build_grid_npp_leaves_partial_points_alone(void **state)
{
	/* 3x2 points, 2 nodes each: a1 a2 at (1,0) = point 2, a3 alone at
	 * point 3. Point 3 is used, so the b nodes go to 0, 1, 4, 5. */
	loc_conf_t *c = _ok("Dimensions=3x2 NodesPerPoint=2\n"
			    "NodeName=a[1-3] Coords=1,0\n");
	const char *names[] = { "b1", "a3", "b2", "b3", "a1", "b4",
				"b5", "b6", "a2", "b7", "b8" };
	const int want[] = { 0, 3, 0, 1, 2, 1, 4, 4, 2, 5, 5 };
	loc_error_t err;
	loc_grid_t *g = loc_conf_build_grid(c, names, 11, &err);
	const int *at;

	(void)state;
	assert_non_null(g);
	for (int i = 0; i < 11; i++)
		if (loc_grid_node_point(g, i) != want[i])
			fail_msg("%s is at point %d, want %d", names[i],
				 loc_grid_node_point(g, i), want[i]);
	assert_int_equal(loc_grid_point_nodes(g, 3, &at), 1);
	assert_int_equal(at[0], 1);
	loc_grid_destroy(g);

	/* One more b node does not fit: the free points hold 8. */
	{
		const char *more[] = { "b1", "a3", "b2", "b3", "a1", "b4",
				       "b5", "b6", "a2", "b7", "b8", "b9" };

		assert_null(loc_conf_build_grid(c, more, 12, &err));
		assert_int_equal(err.code, LOC_ERANGE);
		assert_string_equal(err.file, "locality.conf");
		assert_int_equal(err.line, 0);
		assert_non_null(strstr(err.text, "9 nodes have no NodeName"));
		assert_non_null(strstr(err.text, "only 8"));
	}
	loc_conf_destroy(c);
}

static void build_grid_without_lines_is_row_major(void **state)
{
	loc_conf_t *c = _ok("Dimensions=3x5 NodesPerPoint=3 Torus=yes");
	const char *names[40];
	char buf[40][8];
	loc_error_t err;
	loc_grid_t *g;

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(buf[i], sizeof(buf[i]), "q%d", 39 - i);
		names[i] = buf[i];
	}
	g = loc_conf_build_grid(c, names, 40, &err);
	assert_non_null(g);
	for (int i = 0; i < 40; i++)
		assert_int_equal(loc_grid_node_point(g, i), i / 3);
	assert_true(loc_grid_shape(g)->torus[1]);
	loc_grid_destroy(g);
	loc_conf_destroy(c);
}

static void build_grid_follows_names_not_driver_order(void **state)
{
	loc_conf_t *c = _ok("Dimensions=8x8 Torus=yes\n"
			    "NodeName=n[001-064] Coords=0,0\n");
	const char *names[64];
	char buf[64][8];
	uint64_t s = 42;
	loc_error_t err;
	loc_grid_t *g;

	(void)state;
	for (int i = 0; i < 64; i++) {
		snprintf(buf[i], sizeof(buf[i]), "n%03d", i + 1);
		names[i] = buf[i];
	}
	for (int i = 63; i > 0; i--) {
		int j = tu_below(&s, i + 1);
		const char *t = names[i];

		names[i] = names[j];
		names[j] = t;
	}
	g = loc_conf_build_grid(c, names, 64, &err);
	assert_non_null(g);
	for (int i = 0; i < 64; i++)
		assert_int_equal(loc_grid_node_point(g, i),
				 atoi(names[i] + 1) - 1);
	loc_grid_destroy(g);
	loc_conf_destroy(c);
}

static void build_grid_handles_100k_nodes(void **state)
{
	loc_conf_t *c = _ok("Dimensions=50x50x20 NodesPerPoint=2\n"
			    "NodeName=n[000001-050000] Coords=25,0,0\n");
	int n = 100000;
	const char **names = malloc(sizeof(char *) * n);
	char *buf = malloc((size_t)n * 8);
	loc_error_t err;
	loc_grid_t *g;

	(void)state;
	assert_non_null(names);
	assert_non_null(buf);
	/* Driver order: the named nodes last and reversed, 50000 other
	 * nodes first. */
	for (int i = 0; i < n; i++) {
		char *b = buf + (size_t)i * 8;

		if (i < 50000)
			snprintf(b, 8, "o%05d", i);
		else
			snprintf(b, 8, "n%06d", n - i);
		names[i] = b;
	}
	g = loc_conf_build_grid(c, names, n, &err);
	assert_non_null(g);
	for (int i = 0; i < n; i++) {
		int want = i < 50000 ? i / 2 : 25000 + (n - i - 1) / 2;

		if (loc_grid_node_point(g, i) != want)
			fail_msg("%s at %d, want %d", names[i],
				 loc_grid_node_point(g, i), want);
	}
	loc_grid_destroy(g);
	loc_conf_destroy(c);
	free(names);
	free(buf);
}

/* Expects build_grid to fail with code at line, text containing needle. */
static void _grid_fails(const char *text, const char *const *names, int n,
			int code, int line, const char *needle)
{
	loc_conf_t *c = loc_conf_parse(text, "test.conf", NULL);
	loc_error_t err;

	assert_non_null(c);
	assert_null(loc_conf_build_grid(c, names, n, &err));
	if (err.code != code || err.line != line ||
	    strcmp(err.file, "test.conf") || !strstr(err.text, needle))
		fail_msg("'%s': got %d %s:%d '%s', want %d line %d '%s'", text,
			 err.code, err.file, err.line, err.text, code, line,
			 needle);
	loc_conf_destroy(c);
}

static void build_grid_errors_name_file_and_line(void **state)
{
	const char *abc[] = { "a", "b", "c" };

	(void)state;
	_grid_fails("Dimensions=4\nNodeName=a Coords=0\n\nNodeName=z Coords=1",
		    abc, 3, LOC_ENOENT, 4, "unknown node 'z'");
	_grid_fails("Dimensions=4\nNodeName=a,b Coords=0\nNodeName=b Coords=3",
		    abc, 3, LOC_EEXIST, 3, "'b' is placed twice (also on line 2)");
	_grid_fails("Dimensions=4\nNodeName=a,b,a Coords=0", abc, 3,
		    LOC_EEXIST, 2, "placed twice");
	_grid_fails("Dimensions=2x2\nNodeName=a Coords=1,0\n"
		    "NodeName=b Coords=1,0",
		    abc, 3, LOC_EEXIST, 3, "point 1,0 is full");
	_grid_fails("Dimensions=2x2 NodesPerPoint=2\nNodeName=a,b Coords=0,1\n"
		    "NodeName=c Coords=0,1",
		    abc, 3, LOC_EEXIST, 3, "NodesPerPoint=2");
	_grid_fails("Dimensions=2", abc, 3, LOC_ERANGE, 0,
		    "3 nodes but the 2 grid holds only 2");
	_grid_fails("Dimensions=2x2 NodesPerPoint=3",
		    (const char *[]){ "a", "b", "c", "d", "e", "f", "g", "h",
				      "i", "j", "k", "l", "m" },
		    13, LOC_ERANGE, 0, "13 nodes but the 2x2 grid holds only 12");
	_grid_fails("Dimensions=4", (const char *[]){ "a", "b", "a" }, 3,
		    LOC_EINVAL, 0, "names 'a' twice");
	_grid_fails("Dimensions=4", (const char *[]){ "a", NULL }, 2,
		    LOC_EINVAL, 0, "no name");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(build_grid_places_lines_and_fills_the_rest),
		cmocka_unit_test(build_grid_npp_leaves_partial_points_alone),
		cmocka_unit_test(build_grid_without_lines_is_row_major),
		cmocka_unit_test(build_grid_follows_names_not_driver_order),
		cmocka_unit_test(build_grid_handles_100k_nodes),
		cmocka_unit_test(build_grid_errors_name_file_and_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
