/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_simd.c - the run-time choice of vector instructions (loc_simd.h).
 * Tests call the dispatched functions at every level the CPU runs, so
 * each path is checked on the machine that runs them.
 */
#include "loc_simd.h"

loc_simd_t loc__simd_level(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw"))
		return LOC_SIMD_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return LOC_SIMD_AVX2;
#endif
	return LOC_SIMD_NONE;
}
