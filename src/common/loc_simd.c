/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_simd.c - the run-time choice of vector instructions (loc_simd.h).
 * Tests call the dispatched functions at every level the CPU runs, so
 * each path is checked on the machine that runs them.
 */
#include "loc_simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
static loc_simd_t _detect(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw"))
		return __builtin_cpu_supports("avx512vbmi2") ?
			       LOC_SIMD_AVX512_VBMI2 :
			       LOC_SIMD_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return LOC_SIMD_AVX2;
	return LOC_SIMD_NONE;
}

/* Read once as the library loads (before main, or at the plugin's
 * dlopen), so the hot loops that ask pay a load, and threads only read. */
static loc_simd_t simd_level;

__attribute__((constructor))
static void _simd_level_init(void)
{
	simd_level = _detect();
}

loc_simd_t loc__simd_level(void)
{
	return simd_level;
}
#else
loc_simd_t loc__simd_level(void)
{
	return LOC_SIMD_NONE;
}
#endif
