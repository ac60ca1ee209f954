/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_simd_levels.c - says which vector levels this CPU lets the
 * unit tests check. The tests of the vector code (offer, strategy_span,
 * span_search, strategy_fit, mm_walk) check each level up to the CPU's,
 * and pass on a CPU without AVX-512 having checked less. This program
 * exits 77 (automake's SKIP) when a level goes untested, so make check
 * and scripts/test.sh count a skip instead of a silent pass; it passes
 * when the CPU runs every level.
 */
#include <stdio.h>

#include "loc_test_simd.h"

int main(void)
{
	tu_simd_report("test_loc_simd_levels");
	if ((int)loc__simd_level() < TU_SIMD_TOP) {
		printf("SKIP: this CPU runs %s at most: the wider vector code "
		       "was not tested\n",
		       tu_simd_names[loc__simd_level()]);
		return 77;
	}
	printf("PASS: every vector level tested\n");
	return 0;
}
