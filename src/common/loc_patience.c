/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_patience.c - a bounded wait for a compact placement (see .h).
 */
#include "loc_patience.h"

bool loc_patience_defer(const loc_policy_t *policy, int k, int64_t hops,
			int64_t reference, int64_t waited)
{
	if (policy->compact_wait <= 0 || k < 2 || reference <= 0 ||
	    waited >= policy->compact_wait)
		return false;
	return (double)hops >
	       (1.0 + policy->compact_tolerance) * (double)reference;
}

int64_t loc_patience_began(int64_t *began, int64_t now, bool offered_now)
{
	if (*began != LOC_PATIENCE_UNSET)
		return *began;
	if (offered_now)
		*began = now;
	return now;
}

int64_t loc_patience_deadline(const loc_policy_t *policy, int64_t began)
{
	return policy->compact_wait > 0 ? began + policy->compact_wait : began;
}
