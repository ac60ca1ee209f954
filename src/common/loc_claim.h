/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_claim.h - where a job that waits for a compact set lets nodes drain.
 *
 * A job that declines a scattered set (CompactWait, loc_patience.h) waits
 * for a compact one to free up; meanwhile the jobs started behind it take
 * the nodes that free up wherever they are, so on a busy machine a large
 * compact set may not free up before its patience runs out. A claim
 * names one region, the translate of the job's compact placement (as made
 * on its usable nodes all idle) that holds the most nodes idle now, where
 * other jobs go only when the rest of their candidates cannot hold them,
 * so the region drains as its running jobs end. On a torus each translate
 * is exactly as compact as the placement; on a mesh only those that stay
 * inside it are tried.
 */
#ifndef LOC_CLAIM_H
#define LOC_CLAIM_H

#include <stdint.h>

#include "loc_error.h"
#include "loc_grid.h"

/* The most node visits one search makes: a larger machine tries every
 * n-th translate (the placement itself always). */
#define LOC_CLAIM_BUDGET (1 << 22)

/*
 * The translate of place[0..k) (grid nodes, as a strategy placed them on
 * usable[] nodes) lying wholly on usable[] nodes with the most idle[]
 * ones, in out[0..k); ties go to the placement itself, then to the
 * translates in point order from it.
 * Returns how many of its nodes are idle, or LOC_E* with err filled
 * (LOC_ENOFIT: no translate lies on usable nodes).
 */
int loc_claim_region(const loc_grid_t *grid, const int *place, int k,
		     const uint8_t *usable, const uint8_t *idle, int *out,
		     loc_error_t *err);

#endif /* LOC_CLAIM_H */
