/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_claim.c - the regions jobs waiting for a compact set let drain
 * (loc_claim.h has the rule; topology_locality.h the claims' state).
 *
 * A claim is made when CompactWait declines a set the job could take
 * now, on the job's own reference set less the other claims, and lives
 * across evaluations under the plugin's lock. tl_eval.c weighs the
 * regions for every other job.
 */
#include "topology_locality.h"

void tl_claims_init(tl_claims_t *c, const sl_machine_t *m)
{
	loc_error_t err;

	if (loc_claims_init(&c->set, m->ncore, &err))
		fatal("%s: %s", plugin_type, err.text);
	c->avail = xcalloc(MAX(m->ncore, 1), sizeof(*c->avail));
}

void tl_claims_fini(tl_claims_t *c)
{
	loc_claims_fini(&c->set);
	xfree(c->avail);
}

/* Whether claim i is over: its job started or ended, or its CompactWait
 * ran out. */
static bool _over(const loc_claims_t *c, int i, time_t now)
{
	job_record_t *job = find_job_record(c->c[i].job_id);

	return now >= c->c[i].until || !job || !IS_JOB_PENDING(job);
}

void tl_claims_expire(tl_claims_t *c, time_t now)
{
	for (int i = 0; i < c->set.n;) {
		uint32_t id = c->set.c[i].job_id;

		if (!_over(&c->set, i, now)) {
			i++;
			continue;
		}
		loc_claims_drop(&c->set, i);
		debug("%s: JobId=%u no longer claims its region", plugin_type,
		      id);
	}
}

void tl_claims_make(tl_claims_t *c, sl_machine_t *m, job_record_t *job,
		    const loc_policy_t *policy, const uint8_t *cand,
		    const int *chosen, int k, time_t until,
		    sl_reference_place_f place, void *arg)
{
	sl_ref_scratch_t *ref = &m->ref;
	loc_error_t err;
	int nidle;

	if (c->set.n >= policy->compact_claims ||
	    loc_claims_held(&c->set, job->job_id))
		return;
	if (policy->node_weight == LOC_NODE_WEIGHT_TIERS)
		loc_tiers_set(&ref->tiers, ref->weight, ref->set);
	else
		loc_tiers_clear(&ref->tiers);
	if (place(arg, ref->set, &ref->tiers, k, ref->out))
		return;
	/* What counts as free is what the job could take now. */
	memcpy(c->avail, cand, m->ncore * sizeof(*c->avail));
	for (int j = 0; j < k; j++)
		c->avail[chosen[j]] = 1;
	nidle = loc_claims_make(
		&c->set, m->grid, policy->compact_claims, job->job_id, until,
		ref->out, k, ref->set,
		policy->node_weight == LOC_NODE_WEIGHT_TIERS ? ref->weight : NULL,
		c->avail, &err);
	if (nidle < 0) {
		debug("%s: %pJ makes no claim: %s", plugin_type, job, err.text);
		return;
	}
	debug("%s: %pJ claims %d nodes (%d free for it now) to drain for a compact set",
	      plugin_type, job, k, nidle);
}
