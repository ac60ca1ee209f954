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

#include "loc_claim.h"

void tl_claims_init(tl_claims_t *c, const sl_machine_t *m)
{
	int n = MAX(m->ncore, 1);

	memset(c, 0, sizeof(*c));
	c->nnodes = m->ncore;
	c->owner = xcalloc(n, sizeof(*c->owner));
	c->nodes = xcalloc(n, sizeof(*c->nodes));
	c->avail = xcalloc(n, sizeof(*c->avail));
}

void tl_claims_fini(tl_claims_t *c)
{
	xfree(c->owner);
	xfree(c->nodes);
	xfree(c->avail);
	memset(c, 0, sizeof(*c));
}

/* Whether claim i is over: its job started or ended, or its CompactWait
 * ran out. */
static bool _over(const tl_claims_t *c, int i, time_t now)
{
	job_record_t *job = find_job_record(c->c[i].job_id);

	return now >= c->c[i].until || !job || !IS_JOB_PENDING(job);
}

void tl_claims_expire(tl_claims_t *c, time_t now)
{
	for (int i = 0; i < c->n;) {
		uint32_t id = c->c[i].job_id;

		if (!_over(c, i, now)) {
			i++;
			continue;
		}
		for (int g = 0; g < c->nnodes; g++)
			if (c->owner[g] == id)
				c->owner[g] = 0;
		debug("%s: JobId=%u no longer claims its region", plugin_type,
		      id);
		c->c[i] = c->c[--c->n];
	}
}

static bool _has_claim(const tl_claims_t *c, uint32_t job_id)
{
	for (int i = 0; i < c->n; i++)
		if (c->c[i].job_id == job_id)
			return true;
	return false;
}

void tl_claims_make(tl_claims_t *c, sl_machine_t *m, job_record_t *job,
		    const loc_policy_t *policy, const uint8_t *cand,
		    const int *chosen, int k, time_t until,
		    sl_reference_place_f place, void *arg)
{
	sl_ref_scratch_t *ref = &m->ref;
	loc_error_t err;
	int nidle;

	if (c->n >= TL_CLAIMS_MAX || _has_claim(c, job->job_id))
		return;
	if (policy->node_weight == LOC_NODE_WEIGHT_TIERS)
		loc_tiers_set(&ref->tiers, ref->weight, ref->set);
	else
		loc_tiers_clear(&ref->tiers);
	if (place(arg, ref->set, &ref->tiers, k, ref->out))
		return;
	/* Regions stay off other claims and in the tiers the placement
	 * took: a region the job would not be placed on does not drain for
	 * it. What counts as free is what the job could take now. */
	{
		uint64_t heaviest = 0;
		bool tiers = policy->node_weight == LOC_NODE_WEIGHT_TIERS;

		for (int j = 0; tiers && j < k; j++)
			heaviest = MAX(heaviest, ref->weight[ref->out[j]]);
		for (int g = 0; g < m->ncore; g++) {
			ref->set[g] = ref->set[g] && !c->owner[g] &&
				      (!tiers || ref->weight[g] <= heaviest);
			c->avail[g] = cand[g];
		}
		for (int j = 0; j < k; j++)
			c->avail[chosen[j]] = 1;
	}
	nidle = loc_claim_region(m->grid, ref->out, k, ref->set, c->avail,
				 c->nodes, &err);
	if (nidle < 0) {
		debug("%s: %pJ: %s", plugin_type, job, err.text);
		return;
	}
	for (int j = 0; j < k; j++)
		c->owner[c->nodes[j]] = job->job_id;
	c->c[c->n].job_id = job->job_id;
	c->c[c->n].until = until;
	c->n++;
	debug("%s: %pJ claims %d nodes (%d free for it now) to drain for a compact set",
	      plugin_type, job, k, nidle);
}
