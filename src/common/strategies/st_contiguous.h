/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_contiguous.h - contiguous mode, which the allocator runs for requests
 * with contiguous=true whatever the strategy, and the box enumeration it
 * borrows from the box strategy. Not installed, not used by drivers.
 */
#ifndef LOC_ST_CONTIGUOUS_H
#define LOC_ST_CONTIGUOUS_H

#include "loc_ctx.h"

/*
 * Contiguous mode (used for requests with contiguous=true, whatever the
 * strategy): offers unbroken curve intervals whose nodes form one connected
 * component on the grid, then (if none) boxes. In st_contiguous.c.
 */
int loc__contiguous_select(loc__ctx_t *ctx);

/*
 * Box enumeration shared by st_box.c and contiguous mode: offers every
 * axis-aligned sub-box (with wrap on torus dimensions) holding exactly
 * ctx->k nodes, all free, with the least-blocking cost. In st_box.c.
 */
int loc__box_offer_all(loc__ctx_t *ctx);

#endif /* LOC_ST_CONTIGUOUS_H */
