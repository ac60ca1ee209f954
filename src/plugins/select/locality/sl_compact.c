/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_compact.c - CompactWait in the plugin: whether a placement job_test
 * found should be declined so the job waits for a more compact one. The
 * rule is the core's (loc_patience.h), shared with the replay; when the
 * wait began and the reference (the placement the job would get with
 * every node of its partition that it may use idle) are shared with
 * topology/locality (sl_compact_wait.h); this file places the reference
 * as job_test places the job.
 */
#include "sl_ctx.h"

#include "loc_metrics.h"
#include "loc_patience.h"

/* The reference placed as the decision's job: its allocator, walltime,
 * CPUs and busy_until, on the reference's own nodes, tiers and answer,
 * with an error of its own, so the decision's are left as they were. */
static int _place_reference(void *arg, uint8_t *set, loc_tiers_t *tiers,
			    int k, int *out)
{
	sl_ctx_t *c = arg;
	loc_error_t err;
	sl_place_req_t ref = {
		.cand = set,
		.tiers = tiers,
		.lo = k,
		.want = k,
		.hi = k,
		.start = c->now,
		.out = out,
		.err = &err,
	};

	loc_error_clear(&err);
	return sl_ctx_place(c, &ref);
}

int64_t sl_compact_deadline(sl_ctx_t *c)
{
	return loc_patience_deadline(
		c->policy,
		sl_compact_wait_began(c->policy, c->job, c->now, false));
}

bool sl_compact_defer(sl_ctx_t *c, const int *out, int k, bool offered_now)
{
	int64_t waited, hops, ref;

	if (!c->job || c->policy->compact_wait <= 0 || k < 2 || c->nreq)
		return false;
	waited = c->now - sl_compact_wait_began(c->policy, c->job, c->now,
						 offered_now);
	if (waited >= c->policy->compact_wait)
		return false;
	hops = loc_metrics_total_pair_hops(c->m->grid, out, k);
	if (hops <= 0)
		return false;
	sl_ctx_fill_reference_set(c);
	ref = sl_compact_wait_reference(c->m, c->alloc, c->policy, k,
					_place_reference, c);
	return loc_patience_defer(c->policy, k, hops, ref, waited);
}
