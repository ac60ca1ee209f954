/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_rankmap.h - the allocator's copy of the candidate map (0/1 per
 * node) and, kept with it, the same map in curve order as a bitmap
 * (loc__rank_bits()). Not installed; used by loc_alloc.c only. The
 * strategies' side (bitmap scans) is in loc_bits.h and loc_free_map.h.
 */
#ifndef LOC_RANKMAP_H
#define LOC_RANKMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_curve.h"
#include "loc_runhist.h"

typedef struct loc__freemap loc__freemap_t;

/* Creates an empty map (every node busy) for the nnodes nodes of curve
 * (borrowed: must outlive the map). Returns it, or NULL when out of
 * memory. */
loc__freemap_t *loc__freemap_create(const loc_curve_t *curve, int nnodes);

/* Frees fm; accepts NULL. Returns nothing. */
void loc__freemap_destroy(loc__freemap_t *fm);

/* Returns the 0/1 map (borrowed, nnodes bytes, valid while fm lives; it
 * changes at each load). */
const uint8_t *loc__freemap_map(const loc__freemap_t *fm);

/*
 * Loads cand (nnodes bytes, nonzero = free; borrowed for the call).
 * Consecutive decisions mostly see nearly the same map, so only the
 * words that changed are rewritten (and, while the rank bitmap is kept,
 * their nodes' rank bits flipped). The result depends only on cand.
 * Returns the number of free nodes.
 */
int loc__freemap_load(loc__freemap_t *fm, const uint8_t *cand);

/* A 64-bit hash of the map as last loaded: a function of the map alone
 * (not of earlier loads), kept up to date in O(1) per changed block of
 * eight nodes. */
uint64_t loc__freemap_hash(const loc__freemap_t *fm);

/* Returns the rank bitmap (see loc__rank_bits()), building it when it is
 * not up to date and build is true, else NULL in that case. */
const uint64_t *loc__freemap_rank_bits(loc__freemap_t *fm, bool build);

/* Keeps the free interval histogram (loc_runhist.h; ring as there) from
 * now on. Returns 0, or -1 when out of memory. */
int loc__freemap_track_runs(loc__freemap_t *fm, bool ring);

/* The histogram, up to date (rebuilt with the rank bitmap when needed),
 * or NULL when not tracked. */
const loc__runhist_t *loc__freemap_runs(loc__freemap_t *fm);

#endif /* LOC_RANKMAP_H */
