/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_compact.c - CompactWait in the plugin: whether a placement job_test
 * found should be declined so the job waits for a more compact one. The
 * rule is the core's (loc_patience.h), shared with the replay; this file
 * supplies what only the plugin knows: when the job's wait began, and
 * the reference, the placement the job would get with every node of its
 * partition that it may use idle (sl_ctx_fill_reference_set()).
 */
#include "sl_ctx.h"

#include "loc_metrics.h"
#include "loc_patience.h"

/*
 * When the job's wait for a compact set began (loc_patience_began()): the
 * first time it could start. Kept where select plugins keep the start of
 * a --switches wait, the job's wait4switch_start (0: not begun), which
 * slurmctld leaves to them; select_p_job_begin() clears it, so a requeued
 * job waits afresh. A restarted slurmctld does not save it: the wait
 * begins again there.
 */
static int64_t _began(sl_ctx_t *c, bool offered_now)
{
	int64_t began = c->job->wait4switch_start ?
				(int64_t)c->job->wait4switch_start :
				LOC_PATIENCE_UNSET;
	int64_t t = loc_patience_began(&began, c->now, offered_now);

	if (began != LOC_PATIENCE_UNSET)
		c->job->wait4switch_start = (time_t)began;
	return t;
}

/*
 * Total pairwise hops of the placement of k nodes on the reference set all
 * idle, or 0 when there is none. Cached per machine (a reconfigure starts
 * afresh). The reference is a placement of its own: its nodes, tiers and
 * answer are CompactWait's scratch (ref_*) and its error is local, so the
 * decision's candidates, answer and error are left as they were.
 */
static int64_t _reference(sl_ctx_t *c, int k)
{
	sl_scratch_t *s = &c->m->scratch;
	loc_error_t err;
	sl_place_req_t ref = {
		.cand = s->ref_set,
		.tiers = &s->ref_tiers,
		.lo = k,
		.want = k,
		.hi = k,
		.start = c->now,
		.out = s->ref_out,
		.err = &err,
	};
	uint64_t key;
	int64_t hops = 0;

	sl_ctx_fill_reference_set(c, s->ref_set);
	key = sl_ref_key(c->m, c->alloc, k, s->ref_set, c->weight);
	if (sl_ref_get(c->m, key, k, &hops))
		return hops;
	if (c->policy->node_weight == LOC_NODE_WEIGHT_TIERS)
		loc_tiers_set(ref.tiers, c->weight, s->ref_set);
	else
		loc_tiers_clear(ref.tiers);
	loc_error_clear(&err);
	if (sl_ctx_place(c, &ref) == 0)
		hops = loc_metrics_total_pair_hops(c->m->grid, ref.out, ref.k);
	sl_ref_put(c->m, key, k, hops);
	return hops > 0 ? hops : 0;
}

int64_t sl_compact_deadline(sl_ctx_t *c)
{
	return loc_patience_deadline(c->policy, _began(c, false));
}

bool sl_compact_defer(sl_ctx_t *c, const int *out, int k, bool offered_now)
{
	int64_t waited, hops;

	if (!c->job || c->policy->compact_wait <= 0 || k < 2 || c->nreq)
		return false;
	waited = c->now - _began(c, offered_now);
	if (waited >= c->policy->compact_wait)
		return false;
	hops = loc_metrics_total_pair_hops(c->m->grid, out, k);
	return hops > 0 && loc_patience_defer(c->policy, k, hops,
					      _reference(c, k), waited);
}
