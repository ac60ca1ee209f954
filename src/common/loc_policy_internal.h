/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_policy_internal.h - what the core derives from a policy, for the
 * allocator and the strategies. In loc_policy.c.
 */
#ifndef LOC_POLICY_INTERNAL_H
#define LOC_POLICY_INTERNAL_H

#include <stdbool.h>

#include "loc_strategy.h"

/* Returns policy's SL tolerance when SL is on (loc_policy_sl()), else 0;
 * strategies then offer near-best alternatives within it. */
double loc__policy_sl_tolerance(const loc_policy_t *policy);

#endif /* LOC_POLICY_INTERNAL_H */
