/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_tiers.c - Slurm's node weights in the core: the levels found,
 * the candidates each placement is offered (lightest tiers first, required
 * nodes always, heavier tiers only when nothing fits), the caller's
 * candidates restored, and the O(log N) retries with a weight per node,
 * by hand and on random states against a direct reading of the rule;
 * and the NODES=W parser on hostile input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "loc_tiers.h"

#define N_MAX 1024
#define CALLS_MAX 64

/* A fake placement: records each candidate set it is offered and fits
 * once it is offered at least `fits_at` candidates (or never, < 0). */
typedef struct fake {
	int n;
	uint8_t *cand; /* the array loc_tiers_place() narrows */
	int fits_at;
	int ncalls;
	uint8_t seen[CALLS_MAX][N_MAX];
	int nseen[CALLS_MAX];
} fake_t;

static int _place(void *arg)
{
	fake_t *f = arg;
	int m = 0;

	for (int g = 0; g < f->n; g++)
		m += f->cand[g];
	if (f->ncalls < CALLS_MAX) {
		memcpy(f->seen[f->ncalls], f->cand, f->n);
		f->nseen[f->ncalls] = m;
	}
	f->ncalls++;
	return f->fits_at >= 0 && m >= f->fits_at ? 0 : LOC_ENOFIT;
}

static void _setup(loc_tiers_t *t, fake_t *f, uint8_t *cand, int n)
{
	loc_error_t err;

	assert_int_equal(loc_tiers_init(t, n, &err), 0);
	memset(f, 0, sizeof(*f));
	f->n = n;
	f->cand = cand;
}

static void test_levels(void **state)
{
	loc_tiers_t t;
	uint64_t w[8] = { 5, 1, 5, 9, 1, 7, 9, 3 };
	uint8_t use[8] = { 1, 1, 1, 1, 1, 0, 1, 1 };
	loc_error_t err;

	(void)state;
	assert_int_equal(loc_tiers_init(&t, 8, &err), 0);
	assert_int_equal(loc_tiers_set(&t, w, NULL), 5);
	assert_true(t.levels[0] == 1 && t.levels[1] == 3 && t.levels[2] == 5 &&
		    t.levels[3] == 7 && t.levels[4] == 9);
	/* Only the nodes in use count: 7 is gone. */
	assert_int_equal(loc_tiers_set(&t, w, use), 4);
	assert_true(t.levels[3] == 9);
	loc_tiers_clear(&t);
	assert_int_equal(t.nlevels, 0);
	loc_tiers_fini(&t);
	loc_tiers_fini(&t); /* a zeroed t is fine */
}

/* Past 32 distinct weights the levels are sorted, not searched. */
static void test_many_levels(void **state)
{
	static uint64_t w[N_MAX];
	loc_tiers_t t;
	loc_error_t err;

	(void)state;
	for (int g = 0; g < N_MAX; g++)
		w[g] = (uint64_t)((g * 7919) % 300); /* 300 distinct */
	assert_int_equal(loc_tiers_init(&t, N_MAX, &err), 0);
	assert_int_equal(loc_tiers_set(&t, w, NULL), 300);
	for (int i = 0; i < 300; i++)
		assert_true(t.levels[i] == (uint64_t)i);
	loc_tiers_fini(&t);
}

/* The light tier holds the job: one call, on the light tier alone. */
static void test_light_first(void **state)
{
	uint64_t w[8] = { 1, 1, 1, 1, 100, 100, 100, 100 };
	uint8_t cand[8] = { 1, 1, 0, 1, 1, 1, 1, 1 }, before[8];
	loc_tiers_t t;
	fake_t f;

	(void)state;
	_setup(&t, &f, cand, 8);
	memcpy(before, cand, 8);
	loc_tiers_set(&t, w, NULL);
	f.fits_at = 0;
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 3, _place, &f), 0);
	assert_int_equal(f.ncalls, 1);
	assert_int_equal(f.nseen[0], 3);
	assert_memory_equal(f.seen[0], ((uint8_t[]){ 1, 1, 0, 1, 0, 0, 0, 0 }),
			    8);
	assert_memory_equal(cand, before, 8); /* restored */

	/* Four wanted, three light candidates: the heavy tier joins at once. */
	f.ncalls = 0;
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 4, _place, &f), 0);
	assert_int_equal(f.ncalls, 1);
	assert_int_equal(f.nseen[0], 7);
	loc_tiers_fini(&t);
}

/* Nothing fits in the light tier: heavier tiers join, then every node. */
static void test_widen(void **state)
{
	uint64_t w[8] = { 1, 1, 2, 2, 3, 3, 4, 4 };
	uint8_t cand[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	loc_tiers_t t;
	fake_t f;

	(void)state;
	_setup(&t, &f, cand, 8);
	loc_tiers_set(&t, w, NULL);
	f.fits_at = -1; /* never fits */
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 2, _place, &f),
			 LOC_ENOFIT);
	/* 2 candidates, then at least 4 (two tiers), then at least 8. */
	assert_int_equal(f.ncalls, 3);
	assert_int_equal(f.nseen[0], 2);
	assert_int_equal(f.nseen[1], 4);
	assert_int_equal(f.nseen[2], 8);
	for (int g = 0; g < 8; g++)
		assert_int_equal(cand[g], 1);

	f.ncalls = 0;
	f.fits_at = 3; /* fits once 3 are offered: the second call */
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 2, _place, &f), 0);
	assert_int_equal(f.ncalls, 2);
	loc_tiers_fini(&t);
}

/* A required node is a candidate whatever its tier; a non-candidate
 * required node is not made one. */
static void test_required(void **state)
{
	uint64_t w[6] = { 1, 1, 1, 9, 9, 9 };
	uint8_t cand[6] = { 1, 1, 1, 1, 0, 1 };
	int req[2] = { 5, 4 };
	loc_tiers_t t;
	fake_t f;

	(void)state;
	_setup(&t, &f, cand, 6);
	loc_tiers_set(&t, w, NULL);
	f.fits_at = 0;
	assert_int_equal(loc_tiers_place(&t, cand, req, 2, 3, _place, &f), 0);
	assert_int_equal(f.ncalls, 1);
	assert_memory_equal(f.seen[0], ((uint8_t[]){ 1, 1, 1, 0, 0, 1 }), 6);
	loc_tiers_fini(&t);
}

/* Levels found on some nodes: a heavier node outside them still joins at
 * the last level, and a node between levels joins the tier above. */
static void test_outside_levels(void **state)
{
	uint64_t w[6] = { 1, 1, 5, 5, 3, 50 };
	uint8_t use[6] = { 1, 1, 1, 1, 0, 0 };
	uint8_t cand[6] = { 1, 1, 1, 1, 1, 1 };
	loc_tiers_t t;
	fake_t f;

	(void)state;
	_setup(&t, &f, cand, 6);
	assert_int_equal(loc_tiers_set(&t, w, use), 2);
	f.fits_at = -1;
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 2, _place, &f),
			 LOC_ENOFIT);
	assert_int_equal(f.ncalls, 2);
	assert_memory_equal(f.seen[0], ((uint8_t[]){ 1, 1, 0, 0, 0, 0 }), 6);
	assert_memory_equal(f.seen[1], ((uint8_t[]){ 1, 1, 1, 1, 1, 1 }), 6);
	loc_tiers_fini(&t);
}

/* One weight per node: a placement that never fits costs O(log N) calls. */
static void test_weight_per_node(void **state)
{
	static uint64_t w[N_MAX];
	static uint8_t cand[N_MAX];
	loc_tiers_t t;
	static fake_t f;

	(void)state;
	for (int g = 0; g < N_MAX; g++) {
		w[g] = (uint64_t)(N_MAX - g);
		cand[g] = 1;
	}
	_setup(&t, &f, cand, N_MAX);
	loc_tiers_set(&t, w, NULL);
	f.fits_at = -1;
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 1, _place, &f),
			 LOC_ENOFIT);
	assert_in_range(f.ncalls, 2, 12); /* 1, 2, 4, ... 1024 */
	assert_int_equal(f.nseen[f.ncalls - 1], N_MAX);
	loc_tiers_fini(&t);
}

/* One level, or no weights: one call on the candidates as they are. */
static void test_one_level(void **state)
{
	uint64_t w[4] = { 7, 7, 7, 7 };
	uint8_t cand[4] = { 1, 0, 1, 1 };
	loc_tiers_t t;
	fake_t f;

	(void)state;
	_setup(&t, &f, cand, 4);
	f.fits_at = -1;
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 9, _place, &f),
			 LOC_ENOFIT);
	assert_int_equal(f.ncalls, 1);
	loc_tiers_set(&t, w, NULL);
	assert_int_equal(loc_tiers_place(&t, cand, NULL, 0, 9, _place, &f),
			 LOC_ENOFIT);
	assert_int_equal(f.ncalls, 2);
	assert_int_equal(f.nseen[1], 3);
	loc_tiers_fini(&t);
}

/*
 * Random states against the rule read directly: the first call is offered
 * the candidates of weight <= W, plus the required ones, for the least
 * level W whose candidates of weight <= W, with the required ones counted
 * in, number at least need (the heaviest when none does); each later call
 * holds its predecessor and about twice as many candidates, or all.
 */
static void test_random(void **state)
{
	static uint64_t w[64];
	static uint8_t cand[64], before[64], expect[64];
	static fake_t f;
	int req[4];
	loc_tiers_t t;
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 64;
		int nlev = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6;
		int nreq = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
		int need, ncand = 0, rc;
		uint64_t top = 0;

		_setup(&t, &f, cand, n);
		for (int g = 0; g < n; g++) {
			seed = seed * 1103515245u + 12345u;
			w[g] = (seed >> 16) % (unsigned)nlev * 10;
			cand[g] = (seed >> 8) % 3 != 0;
			ncand += cand[g];
		}
		for (int i = 0; i < nreq; i++)
			req[i] = (int)((seed = seed * 1103515245u + 12345u) >>
				       16) % n;
		need = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % n;
		f.fits_at = (int)(seed >> 20) % (n + 2) - 1;
		memcpy(before, cand, n);
		loc_tiers_set(&t, w, NULL);

		/* the least level holding need candidates */
		for (int l = 0; l < t.nlevels; l++) {
			int m = 0;

			top = t.levels[l];
			for (int g = 0; g < n; g++)
				m += cand[g] && w[g] <= top;
			if (m + nreq >= need)
				break;
		}
		if (t.nlevels)
			top = top == t.levels[t.nlevels - 1] ? UINT64_MAX : top;
		for (int g = 0; g < n; g++)
			expect[g] = cand[g] && (t.nlevels <= 1 || w[g] <= top);
		for (int i = 0; i < nreq; i++)
			expect[req[i]] = cand[req[i]];

		f.ncalls = 0;
		rc = loc_tiers_place(&t, cand, req, nreq, need, _place, &f);
		assert_memory_equal(cand, before, n);
		assert_true(f.ncalls >= 1 && f.ncalls <= CALLS_MAX);
		assert_memory_equal(f.seen[0], expect, n);
		for (int c = 1; c < f.ncalls; c++) {
			for (int g = 0; g < n; g++)
				assert_true(!f.seen[c - 1][g] || f.seen[c][g]);
			/* required nodes are counted as if new */
			assert_true(f.nseen[c] >= 2 * f.nseen[c - 1] - nreq ||
				    f.nseen[c] == ncand);
		}
		if (rc == LOC_ENOFIT)
			assert_int_equal(f.nseen[f.ncalls - 1], ncand);
		else
			assert_int_equal(rc, 0);
		loc_tiers_fini(&t);
	}
}

/* "NODES=W" as slurm.conf writes weights; hostile input refused. */
static void test_parse_weight(void **state)
{
	static const char *bad[] = {
		"", "=", "n1", "n1=", "=7", "n1=x", "n1=-1", "n1=+1", "n1=1e3",
		"n1=7 ", "n1=4294967296", "n1=99999999999999999999999",
		"n[3-1]=2", "n[1-=2", "n[1-2]]=2",
	};
	loc_hostlist_t hl;
	loc_error_t err;
	uint64_t w = 0;

	(void)state;
	assert_int_equal(loc_tiers_parse_weight("n[01-03]=100", &hl, &w, &err),
			 0);
	assert_int_equal(hl.count, 3);
	assert_string_equal(hl.names[2], "n03");
	assert_true(w == 100);
	loc_hostlist_free(&hl);
	/* the last '=' splits; Slurm's whole Weight range */
	assert_int_equal(loc_tiers_parse_weight("a,b=4294967295", &hl, &w,
						&err),
			 0);
	assert_int_equal(hl.count, 2);
	assert_true(w == 4294967295u);
	loc_hostlist_free(&hl);
	assert_int_equal(loc_tiers_parse_weight("n1=0", &hl, &w, &err), 0);
	assert_true(w == 0);
	loc_hostlist_free(&hl);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		loc_error_clear(&err);
		if (loc_tiers_parse_weight(bad[i], &hl, &w, &err) == 0)
			fail_msg("'%s' was taken", bad[i]);
		assert_true(err.text[0] != '\0');
		assert_int_equal(hl.count, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_many_levels),
		cmocka_unit_test(test_light_first),
		cmocka_unit_test(test_widen),
		cmocka_unit_test(test_required),
		cmocka_unit_test(test_outside_levels),
		cmocka_unit_test(test_weight_per_node),
		cmocka_unit_test(test_one_level),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_parse_weight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
