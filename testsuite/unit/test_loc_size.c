/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_size.c - how many nodes a request needs: loc_fewest_covering()
 * by hand (alike and mixed nodes, zero need, nodes of no CPUs, too little
 * in all) and on random small sets against brute force over every subset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "loc_size.h"

static void test_by_hand(void **state)
{
	uint32_t alike[4] = { 8, 8, 8, 8 };
	uint32_t mixed[5] = { 4, 64, 8, 4, 32 };
	uint32_t none[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(loc_fewest_covering(alike, 4, 0), 0);
	assert_int_equal(loc_fewest_covering(alike, 4, 1), 1);
	assert_int_equal(loc_fewest_covering(alike, 4, 8), 1);
	assert_int_equal(loc_fewest_covering(alike, 4, 9), 2);
	assert_int_equal(loc_fewest_covering(alike, 4, 32), 4);
	assert_int_equal(loc_fewest_covering(alike, 4, 33), 5);
	/* 64 + 32 = 96: two nodes, the largest ones, whatever their order. */
	assert_int_equal(loc_fewest_covering(mixed, 5, 96), 2);
	assert_int_equal(loc_fewest_covering(mixed, 5, 97), 3);
	assert_int_equal(loc_fewest_covering(mixed, 5, 112), 5);
	assert_int_equal(loc_fewest_covering(mixed, 5, 113), 6);
	assert_int_equal(loc_fewest_covering(none, 3, 1), 4);
	assert_int_equal(loc_fewest_covering(none, 3, 0), 0);
	assert_int_equal(loc_fewest_covering(NULL, 0, 1), 1);
	/* A need past 32 bits is not cut short. */
	assert_int_equal(loc_fewest_covering(alike, 4, UINT64_C(1) << 40), 5);
}

/* The fewest of v[0..n) that sum to need, over every subset. */
static int _brute(const uint32_t *v, int n, uint64_t need)
{
	int best = n + 1;

	for (unsigned s = 0; s < (1u << n); s++) {
		uint64_t sum = 0;
		int k = 0;

		for (int i = 0; i < n; i++)
			if (s & (1u << i)) {
				sum += v[i];
				k++;
			}
		if (sum >= need && k < best)
			best = k;
	}
	return best;
}

static void test_against_brute_force(void **state)
{
	uint32_t v[12], copy[12];

	(void)state;
	srand(20261128);
	for (int trial = 0; trial < 4000; trial++) {
		int n = rand() % 13;
		/* Half the trials alike, as most clusters' nodes are. */
		int alike = trial % 2, top = 1 + rand() % 64;
		uint64_t total = 0, need;

		for (int i = 0; i < n; i++) {
			v[i] = alike ? (uint32_t)top : (uint32_t)(rand() % 65);
			copy[i] = v[i];
			total += v[i];
		}
		need = (uint64_t)(rand() % (int)(total + 8));
		assert_int_equal(loc_fewest_covering(copy, n, need),
				 _brute(v, n, need));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_against_brute_force),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
