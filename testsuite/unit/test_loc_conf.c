/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_conf.c - locality.conf: every key, continuation, comments and
 * case rules; partitions; NodeName placement checked node by node; a table
 * of malformed files each rejected at the right line; hostile bytes; and
 * the man page documenting every key the parser accepts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "loc_conf.h"
#include "loc_test_util.h"

#ifndef LOC_DOC_DIR
#error "LOC_DOC_DIR must name the doc directory (testsuite/unit/local.am)"
#endif

/* Parses text as "locality.conf"; asserts success. */
static loc_conf_t *_ok(const char *text)
{
	loc_error_t err;
	char msg[600];
	loc_conf_t *c = loc_conf_parse(text, "locality.conf", &err);

	if (!c)
		fail_msg("rejected: %s", loc_error_format(&err, msg,
							  sizeof(msg)));
	return c;
}

/* Writes len bytes to a fresh temporary file; returns its path (static). */
static const char *_tmpfile(const char *data, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_loc_conf.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* ===================================================================== */
/* Good files                                                            */
/* ===================================================================== */

static const char _all_keys[] =
	"# every key, mixed case, comments and continuation\n"
	"dimensions=8X8x4   torus=YES,no,Yes   # a comment after keys\n"
	"\n"
	"   NodesPerPoint=2\n"
	"STRATEGY=MM_INC Curve=Snake WalltimeAware=AdjEst \\\n"
	"\tSLTolerance=0.25 PFHoldTime=120 \\\n"
	"\tAdjEstWindow=7\n"
	"PagingSize=3 PagingIndex=Shuffled MMMaxCenters=12 "
	"Seed=18446744073709551615\n"
	"NodeName=n[001-004] Coords=1,2,3\n"
	"nodename=m[1-2]   coords=7,7,3   # ends exactly at the last point\n"
	"PartitionName=debug Strategy=bestfit Curve=rowmajor NodeWeight=Ignore\n"
	"PartitionName=batch WalltimeAware=pf SLTolerance=0.5 PagingSize=1 "
	"PagingIndex=snake MMMaxCenters=3 Seed=9 PackTolerance=0.125 "
	"CompactWait=45 CompactTolerance=0.35 PlanWindow=30\n"
	"partitionname=plain\n";

static void parses_every_key(void **state)
{
	loc_conf_t *c = _ok(_all_keys);
	const loc_policy_t *p;

	(void)state;
	assert_string_equal(c->path, "locality.conf");
	assert_int_equal(c->shape.ndims, 3);
	assert_int_equal(c->shape.dims[0], 8);
	assert_int_equal(c->shape.dims[1], 8);
	assert_int_equal(c->shape.dims[2], 4);
	assert_true(c->shape.torus[0]);
	assert_false(c->shape.torus[1]);
	assert_true(c->shape.torus[2]);
	assert_int_equal(c->shape.nodes_per_point, 2);
	assert_int_equal(c->policy.strategy, LOC_STRATEGY_MM_INC);
	assert_int_equal(c->policy.curve, LOC_CURVE_SNAKE);
	assert_int_equal(c->policy.walltime, LOC_WALLTIME_ADJEST);
	assert_true(c->policy.sl_tolerance == 0.25);
	assert_int_equal(c->pf_hold_sec, 120);
	assert_int_equal(c->adjest_window, 7);
	assert_int_equal(c->policy.paging_size, 3);
	assert_int_equal(c->policy.paging_index, LOC_PAGING_SHUFFLED);
	assert_int_equal(c->policy.mm_max_centers, 12);
	assert_true(c->policy.seed == UINT64_MAX);

	assert_int_equal(c->nnodes_lines, 2);
	assert_string_equal(c->nodes[0].hostlist, "n[001-004]");
	assert_int_equal(c->nodes[0].count, 4);
	assert_string_equal(c->nodes[0].names[0], "n001");
	assert_string_equal(c->nodes[0].names[3], "n004");
	assert_int_equal(c->nodes[0].start.c[0], 1);
	assert_int_equal(c->nodes[0].start.c[1], 2);
	assert_int_equal(c->nodes[0].start.c[2], 3);
	assert_int_equal(c->nodes[0].line, 9);
	assert_int_equal(c->nodes[1].count, 2);
	assert_int_equal(c->nodes[1].line, 10);

	assert_int_equal(c->npartitions, 3);
	assert_int_equal(c->partitions[1].line, 12);
	p = loc_conf_policy(c, "debug");
	assert_int_equal(p->strategy, LOC_STRATEGY_BESTFIT);
	assert_int_equal(p->curve, LOC_CURVE_ROWMAJOR);
	assert_int_equal(p->node_weight, LOC_NODE_WEIGHT_IGNORE);
	/* Keys the line does not set come from the global policy. */
	assert_int_equal(p->walltime, LOC_WALLTIME_ADJEST);
	assert_true(p->sl_tolerance == 0.25);
	assert_int_equal(p->paging_size, 3);
	assert_true(p->seed == UINT64_MAX);
	p = loc_conf_policy(c, "batch");
	assert_int_equal(p->strategy, LOC_STRATEGY_MM_INC);
	assert_int_equal(p->curve, LOC_CURVE_SNAKE);
	assert_int_equal(p->walltime, LOC_WALLTIME_PF);
	assert_true(p->sl_tolerance == 0.5);
	assert_int_equal(p->paging_size, 1);
	assert_int_equal(p->paging_index, LOC_PAGING_SNAKE);
	assert_int_equal(p->mm_max_centers, 3);
	assert_true(p->seed == 9);
	assert_true(p->pack_tolerance == 0.125);
	assert_true(loc_conf_policy(c, "debug")->pack_tolerance == 0.0);
	assert_true(p->compact_wait == 45);
	assert_true(p->compact_tolerance == 0.35);
	assert_true(p->plan_window == 30);
	/* Off unless the file turns it on; 0.2 once it does. */
	assert_true(loc_conf_policy(c, "debug")->compact_wait == 0);
	assert_true(loc_conf_policy(c, "debug")->compact_tolerance == 0.2);
	assert_true(loc_conf_policy(c, "debug")->plan_window == 0);
	/* Slurm's own rule unless the file says otherwise. */
	assert_int_equal(p->node_weight, LOC_NODE_WEIGHT_TIERS);
	p = loc_conf_policy(c, "plain");
	assert_memory_equal(p, &c->policy, sizeof(*p));
	assert_ptr_not_equal(p, &c->policy);
	/* Unknown partitions and NULL get the global policy; names are
	 * case sensitive as in slurm.conf. */
	assert_ptr_equal(loc_conf_policy(c, NULL), &c->policy);
	assert_ptr_equal(loc_conf_policy(c, "nosuch"), &c->policy);
	assert_ptr_equal(loc_conf_policy(c, "DEBUG"), &c->policy);
	loc_conf_destroy(c);
}

static void every_key_is_exercised_by_the_good_file(void **state)
{
	const char *const *keys = loc_conf_keys();
	int n = 0;

	(void)state;
	for (; keys[n]; n++) {
		char lower[64], text[sizeof(_all_keys)];

		/* The good file spells keys in various cases. */
		for (size_t i = 0; i <= strlen(keys[n]); i++)
			lower[i] = (char)tolower((unsigned char)keys[n][i]);
		for (size_t i = 0; i < sizeof(_all_keys); i++)
			text[i] = (char)tolower((unsigned char)_all_keys[i]);
		if (!strstr(text, lower))
			fail_msg("key %s is not in the good file", keys[n]);
	}
	assert_int_equal(n, 21);
}

static void defaults_apply_to_absent_keys(void **state)
{
	loc_conf_t *c = _ok("Dimensions=5");
	loc_policy_t def;

	(void)state;
	loc_policy_init(&def);
	assert_int_equal(c->shape.ndims, 1);
	assert_int_equal(c->shape.dims[0], 5);
	assert_false(c->shape.torus[0]);
	assert_int_equal(c->shape.nodes_per_point, 1);
	assert_memory_equal(&c->policy, &def, sizeof(def));
	assert_int_equal(c->pf_hold_sec, 300);
	assert_int_equal(c->adjest_window, 10);
	assert_int_equal(c->nnodes_lines, 0);
	assert_int_equal(c->npartitions, 0);
	loc_conf_destroy(c);

	/* One Torus value covers every dimension, in any position. */
	c = _ok("Torus=true\nDimensions=2x3x4x5\n");
	assert_int_equal(c->shape.ndims, 4);
	for (int d = 0; d < 4; d++)
		assert_true(c->shape.torus[d]);
	loc_conf_destroy(c);
	c = _ok("Dimensions=3x3 Torus=0,1");
	assert_false(c->shape.torus[0]);
	assert_true(c->shape.torus[1]);
	loc_conf_destroy(c);
}

static void partitions_see_globals_set_later(void **state)
{
	loc_conf_t *c = _ok("PartitionName=p1 Curve=rowmajor\n"
			    "Dimensions=4x4\n"
			    "Strategy=span Curve=snake\n");

	(void)state;
	assert_int_equal(loc_conf_policy(c, "p1")->strategy,
			 LOC_STRATEGY_SPAN);
	assert_int_equal(loc_conf_policy(c, "p1")->curve, LOC_CURVE_ROWMAJOR);
	assert_int_equal(loc_conf_policy(c, NULL)->curve, LOC_CURVE_SNAKE);
	loc_conf_destroy(c);
}

static void comments_continuation_and_line_endings(void **state)
{
	loc_conf_t *c;

	(void)state;
	/* CRLF, blank lines, '#' inside a continued line, a continued
	 * line whose next part is only a comment, valid UTF-8 in comments. */
	c = _ok("# Maschinenbeschreibung f\xc3\xbcr den Test \xe2\x9c\x93\r\n"
		"Dimensions=4x4 \\\r\n"
		"  # comment line inside the continuation\r\n"
		"\r\n"
		"Strategy=box\t\t# tabs\r\n"
		"Seed=0");
	assert_int_equal(c->shape.dims[1], 4);
	assert_int_equal(c->policy.strategy, LOC_STRATEGY_BOX);
	assert_true(c->policy.seed == 0);
	loc_conf_destroy(c);
	/* A '\' inside a comment does not continue the line. */
	c = _ok("Dimensions=3 # not continued \\\nStrategy=span\n");
	assert_int_equal(c->policy.strategy, LOC_STRATEGY_SPAN);
	loc_conf_destroy(c);
}

static void every_strategy_curve_and_mode_name_parses(void **state)
{
	(void)state;
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
		char text[128];
		loc_conf_t *c;

		snprintf(text, sizeof(text), "Dimensions=2 Strategy=%s",
			 loc_strategy_kind_name(s));
		c = _ok(text);
		assert_int_equal(c->policy.strategy, s);
		loc_conf_destroy(c);
	}
	for (int s = 0; s < LOC_CURVE_COUNT; s++) {
		char text[128];
		loc_conf_t *c;

		snprintf(text, sizeof(text), "Dimensions=2 Curve=%s",
			 loc_curve_kind_name(s));
		c = _ok(text);
		assert_int_equal(c->policy.curve, s);
		loc_conf_destroy(c);
	}
	for (int s = 0; s < LOC_WALLTIME_COUNT; s++) {
		char text[128];
		loc_conf_t *c;

		snprintf(text, sizeof(text),
			 "Dimensions=2\nPartitionName=x WalltimeAware=%s",
			 loc_walltime_mode_name(s));
		c = _ok(text);
		assert_int_equal(loc_conf_policy(c, "x")->walltime, s);
		loc_conf_destroy(c);
	}
}

static void load_reads_a_file_like_parse(void **state)
{
	const char *path = _tmpfile(_all_keys, strlen(_all_keys));
	loc_error_t err;
	loc_conf_t *a = loc_conf_load(path, &err), *b = _ok(_all_keys);

	(void)state;
	assert_non_null(a);
	assert_string_equal(a->path, path);
	assert_memory_equal(&a->shape, &b->shape, sizeof(a->shape));
	assert_memory_equal(&a->policy, &b->policy, sizeof(a->policy));
	assert_int_equal(a->npartitions, b->npartitions);
	assert_int_equal(a->nnodes_lines, b->nnodes_lines);
	loc_conf_destroy(a);
	loc_conf_destroy(b);
	unlink(path);
}

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

/* ===================================================================== */
/* Description and documentation                                         */
/* ===================================================================== */

static void describe_is_one_readable_paragraph(void **state)
{
	loc_conf_t *c = _ok(_all_keys);
	char buf[1024], small[40];

	(void)state;
	loc_conf_describe(c, buf, sizeof(buf));
	assert_null(strchr(buf, '\n'));
	assert_non_null(strstr(buf, "locality.conf: Dimensions=8x8x4"));
	assert_non_null(strstr(buf, "Torus=yes,no,yes"));
	assert_non_null(strstr(buf, "NodesPerPoint=2"));
	assert_non_null(strstr(buf, "Strategy=mm_inc"));
	assert_non_null(strstr(buf, "WalltimeAware=adjest"));
	assert_non_null(strstr(buf, "PFHoldTime=120"));
	assert_non_null(strstr(buf, "2 NodeName lines placing 6 nodes"));
	assert_non_null(strstr(buf, "debug (Strategy=bestfit Curve=rowmajor "
				    "NodeWeight=ignore)"));
	assert_non_null(strstr(buf, "plain (none)"));
	assert_true(buf[strlen(buf) - 1] == '.');
	/* Truncation stays inside the buffer and terminated. */
	memset(small, 'Z', sizeof(small));
	loc_conf_describe(c, small, 20);
	assert_int_equal(strlen(small), 19);
	assert_true(small[25] == 'Z');
	loc_conf_destroy(c);
}

static void every_key_is_documented(void **state)
{
	const char *const *keys = loc_conf_keys();
	FILE *f = fopen(LOC_DOC_DIR "/locality.conf.5", "r");
	char *doc;
	long len;

	(void)state;
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
	for (int i = 0; keys[i]; i++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR", keys[i]);
		if (!strstr(doc, want))
			fail_msg("%s is not documented as %s", keys[i], want);
	}
	/* And every strategy, curve and walltime mode has its entry. */
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR",
			 loc_strategy_kind_name(s));
		if (!strstr(doc, want))
			fail_msg("strategy %s is not documented",
				 loc_strategy_kind_name(s));
	}
	for (int s = 0; s < LOC_CURVE_COUNT; s++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR",
			 loc_curve_kind_name(s));
		assert_non_null(strstr(doc, want));
	}
	for (int s = 0; s < LOC_WALLTIME_COUNT; s++) {
		char want[80];

		snprintf(want, sizeof(want), "\\fB%s\\fR",
			 loc_walltime_mode_name(s));
		assert_non_null(strstr(doc, want));
	}
	free(doc);
}

static void man_page_examples_parse(void **state)
{
	FILE *f = fopen(LOC_DOC_DIR "/locality.conf.5", "r");
	char line[512], text[4096];
	size_t o = 0;
	int in = 0, examples = 0;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".nf", 3)) {
			in = 1;
			o = 0;
			continue;
		}
		if (!strncmp(line, ".fi", 3) && in) {
			loc_error_t err;
			char msg[600];
			loc_conf_t *c;

			text[o] = '\0';
			c = loc_conf_parse(text, "example", &err);
			if (!c)
				fail_msg("example %d: %s", examples + 1,
					 loc_error_format(&err, msg,
							  sizeof(msg)));
			loc_conf_destroy(c);
			examples++;
			in = 0;
			continue;
		}
		if (!in)
			continue;
		/* Undo the roff escapes the page uses: \- and \\. */
		for (char *s = line; *s && o + 1 < sizeof(text); s++) {
			if (s[0] == '\\' && (s[1] == '-' || s[1] == '\\'))
				s++;
			text[o++] = *s;
		}
	}
	fclose(f);
	assert_int_equal(examples, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_every_key),
		cmocka_unit_test(every_key_is_exercised_by_the_good_file),
		cmocka_unit_test(defaults_apply_to_absent_keys),
		cmocka_unit_test(partitions_see_globals_set_later),
		cmocka_unit_test(comments_continuation_and_line_endings),
		cmocka_unit_test(every_strategy_curve_and_mode_name_parses),
		cmocka_unit_test(load_reads_a_file_like_parse),
		cmocka_unit_test(build_grid_places_lines_and_fills_the_rest),
		cmocka_unit_test(build_grid_npp_leaves_partial_points_alone),
		cmocka_unit_test(build_grid_without_lines_is_row_major),
		cmocka_unit_test(build_grid_follows_names_not_driver_order),
		cmocka_unit_test(build_grid_handles_100k_nodes),
		cmocka_unit_test(build_grid_errors_name_file_and_line),
		cmocka_unit_test(malformed_files_are_rejected_at_their_line),
		cmocka_unit_test(error_format_reads_file_line_text),
		cmocka_unit_test(nul_bytes_are_errors),
		cmocka_unit_test(long_lines_are_errors),
		cmocka_unit_test(random_garbage_never_crashes),
		cmocka_unit_test(unreadable_files_name_path_and_reason),
		cmocka_unit_test(describe_is_one_readable_paragraph),
		cmocka_unit_test(every_key_is_documented),
		cmocka_unit_test(man_page_examples_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
