/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER: being written; replaced before the first commit. */
#include "loc_strategy_internal.h"
static int _nofit(loc__ctx_t *ctx) { (void)ctx; return LOC_ENOFIT; }
const loc__strategy_ops_t loc__st_paging = { .name = "paging", .select = _nofit };
