/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_simd.h - what the tests of the vector code say about the
 * levels they ran: they check every level up to the CPU's own
 * (loc__simd_level()), so on a CPU without AVX-512 the wider levels go
 * untested while the program still passes. Each such program prints the
 * levels it tested and those it could not; test_loc_simd_levels turns
 * the untested ones into a skip in make check's counts.
 */
#ifndef LOC_TEST_SIMD_H
#define LOC_TEST_SIMD_H

#include <stdio.h>

#include "loc_simd.h"

static const char *const tu_simd_names[] = { "scalar", "avx2", "avx512",
					     "avx512-vbmi2" };
#define TU_SIMD_TOP LOC_SIMD_AVX512_VBMI2

/* Prints "# PROG: vector levels tested: ...; not tested on this CPU:
 * ..." on stdout (make check keeps it in PROG.log). */
static inline void tu_simd_report(const char *prog)
{
	int cpu = (int)loc__simd_level();

	printf("# %s: vector levels tested:", prog);
	for (int lv = LOC_SIMD_NONE; lv <= cpu && lv <= TU_SIMD_TOP; lv++)
		printf(" %s", tu_simd_names[lv]);
	printf("; not tested on this CPU:");
	if (cpu >= TU_SIMD_TOP)
		printf(" none");
	for (int lv = cpu + 1; lv <= TU_SIMD_TOP; lv++)
		printf(" %s", tu_simd_names[lv]);
	printf("\n");
	fflush(stdout);
}

#endif
