/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_policy_internal.h - what the core derives from a policy, for the
 * allocator and the strategies. In loc_policy.c.
 */
#ifndef LOC_POLICY_INTERNAL_H
#define LOC_POLICY_INTERNAL_H

#include <stdbool.h>

#include "loc_strategy.h"

/* Returns true when policy's walltime mode includes the SL tie-break
 * (sl, combo, adjest): strategies then offer near-best alternatives. */
bool loc__policy_sl(const loc_policy_t *policy);

/* Returns policy's SL tolerance when SL is on, else 0. */
double loc__policy_sl_tolerance(const loc_policy_t *policy);

#endif /* LOC_POLICY_INTERNAL_H */
