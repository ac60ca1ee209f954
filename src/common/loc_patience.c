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

int64_t loc_patience_began(const loc_policy_t *policy, loc_patience_t *p,
			   int64_t now, bool offered_now)
{
	if (!offered_now)
		return p->began != LOC_PATIENCE_UNSET ? p->began : now;
	if (p->began == LOC_PATIENCE_UNSET) {
		p->began = now;
	} else if (p->offered != LOC_PATIENCE_UNSET &&
		   now - p->offered > policy->compact_wait &&
		   p->restarts < LOC_PATIENCE_RESTARTS) {
		/* queued since its last offer, not declining */
		p->began = now;
		p->restarts++;
	}
	p->offered = now;
	return p->began;
}

int64_t loc_patience_deadline(const loc_policy_t *policy, int64_t began)
{
	return policy->compact_wait > 0 ? began + policy->compact_wait : began;
}
