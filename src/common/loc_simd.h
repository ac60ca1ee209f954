/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_simd.h - which vector instructions the core's hot loops may use on
 * this CPU, chosen at run time: the plugin and the replay are built for any
 * x86-64 (or other) machine, and the widest vectors halve the cost of
 * listing free ranks and of span's scan at tens of thousands of nodes.
 */
#ifndef LOC_SIMD_H
#define LOC_SIMD_H

typedef enum loc_simd {
	LOC_SIMD_NONE = 0, /* portable C */
	LOC_SIMD_AVX2,     /* x86-64 with AVX2 */
	LOC_SIMD_AVX512,   /* x86-64 with AVX-512F and BW (and so AVX2) */
	LOC_SIMD_AVX512_VBMI2, /* and VBMI2's byte compress (Ice Lake,
				* Sapphire Rapids, Zen 4 and later) */
} loc_simd_t;

/* The widest level this CPU runs. Cheap: a feature word read. */
loc_simd_t loc__simd_level(void);

#endif
