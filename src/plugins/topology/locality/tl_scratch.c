/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_scratch.c - the evaluation's arrays (tl_scratch_t), sized once per
 * machine so that no evaluation allocates.
 */
#include "topology_locality.h"

void tl_scratch_init(tl_scratch_t *s, const sl_machine_t *m)
{
	int n = MAX(m->ncore, 1);
	loc_error_t err;

	s->cand = xcalloc(n, sizeof(*s->cand));
	s->weight = xcalloc(n, sizeof(*s->weight));
	s->cpus = xcalloc(MAX(m->nslurm, 1), sizeof(*s->cpus));
	s->req = xcalloc(n, sizeof(*s->req));
	s->out = xcalloc(n, sizeof(*s->out));
	s->cand_cpus = xcalloc(n, sizeof(*s->cand_cpus));
	s->unrequired = xcalloc(n, sizeof(*s->unrequired));
	s->taken = xcalloc(n, sizeof(*s->taken));
	s->chosen = xcalloc(n, sizeof(*s->chosen));
	s->cand_now = xcalloc(n, sizeof(*s->cand_now));
	s->full = xcalloc(n, sizeof(*s->full));
	s->aside = xcalloc(n, sizeof(*s->aside));
	s->in_use = xcalloc(n, sizeof(*s->in_use));
	s->set_cpus = xcalloc(n, sizeof(*s->set_cpus));
	if (loc_share_init(&s->share, n, &err))
		fatal("%s: %s", plugin_type, err.text);
	tl_claims_init(&s->claims, m);
	tl_walltime_init(&s->walltime, m);
	if (loc_tiers_init(&s->tiers, n, &err))
		fatal("%s: %s", plugin_type, err.text);
}

void tl_scratch_fini(tl_scratch_t *s)
{
	xfree(s->cand);
	xfree(s->weight);
	xfree(s->cpus);
	xfree(s->req);
	xfree(s->out);
	xfree(s->cand_cpus);
	xfree(s->unrequired);
	xfree(s->taken);
	xfree(s->chosen);
	xfree(s->cand_now);
	xfree(s->full);
	xfree(s->aside);
	xfree(s->in_use);
	xfree(s->set_cpus);
	loc_share_fini(&s->share);
	tl_claims_fini(&s->claims);
	tl_walltime_fini(&s->walltime);
	loc_tiers_fini(&s->tiers);
	memset(s, 0, sizeof(*s));
}
