/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_one.h - one-node (k = 1) short paths of the geometric strategies,
 * each giving exactly what the strategy's general search gives (see
 * st_one.c). Not installed, not used by drivers.
 */
#ifndef LOC_ST_ONE_H
#define LOC_ST_ONE_H

#include "loc_strategy_internal.h"

/*
 * Whether one-node requests take the short paths (true) or the general
 * searches; unit tests turn it off to compare the two.
 */
extern bool loc__fast_one;

/* The first free node at or after from in the 0/1 byte map f[0..n), eight
 * bytes at a time, or n. */
int loc__one_next_free(const uint8_t *f, int from, int n);

/* mc1x1 with k = 1: offers what its search offers. Returns as a select. */
int loc__one_mc1x1(loc__ctx_t *ctx);

/* box with k = 1: offers what st_box.c's search offers. cnt and acc
 * are [npoints] ints of room. Returns as a select. In st_box_one.c. */
int loc__one_box(loc__ctx_t *ctx, int *cnt, int *acc);

#endif /* LOC_ST_ONE_H */
