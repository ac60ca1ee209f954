/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_record.c - each job's placement in its AdminComment or SystemComment
 * (sl_record.h).
 */
#include "sl_record.h"

#include <stdlib.h>
#include <string.h>

#include "loc_ideal.h"
#include "loc_metrics.h"
#include "loc_record.h"

/* The machine's table of ideals, made on first use; NULL when the core
 * cannot make it (logged each time: it only fails out of memory). */
static loc_ideal_t *_ideals(sl_machine_t *m)
{
	loc_error_t err;

	if (!m->ideal) {
		m->ideal = loc_ideal_create(m->grid, &m->conf->policy, &err);
		if (!m->ideal)
			error("%s: no ideal placements: %s", plugin_type,
			      err.text);
	}
	return m->ideal;
}

int64_t sl_ideal_total_hops(sl_machine_t *m, int k)
{
	loc_error_t err;
	int64_t v;

	if (!_ideals(m))
		return -1;
	v = loc_ideal_total_pair_hops(m->ideal, k, &err);
	return v < 0 ? -1 : v;
}

/* The ideal mean of k nodes, or -1 when the core cannot say. */
static double _ideal(sl_machine_t *m, int k)
{
	int64_t total = sl_ideal_total_hops(m, k);

	return total < 0 ? -1 : loc_metrics_pair_mean(total, k);
}

void sl_record_placement(sl_machine_t *m, job_record_t *job, const int *nodes,
			 int k)
{
	const loc_policy_t *policy = sl_machine_job_policy(m, job);
	loc_record_t rec = { .nodes = k };
	char text[LOC_RECORD_MAX], *merged, **field;

	if (m->conf->record == LOC_RECORD_NONE || k < 1)
		return;
	snprintf(rec.strategy, sizeof(rec.strategy), "%s",
		 loc_strategy_kind_name(policy->strategy));
	if (k > 1) {
		int64_t total = loc_metrics_total_pair_hops(m->grid, nodes, k);

		if (total < 0)
			return;
		rec.hops = loc_metrics_pair_mean(total, k);
	}
	rec.ideal = _ideal(m, k);
	if (rec.ideal < 0 || loc_record_format(&rec, text, sizeof(text)) < 0)
		return;
	field = m->conf->record == LOC_RECORD_ADMIN_COMMENT ?
			&job->admin_comment :
			&job->system_comment;
	merged = loc_record_merge(*field, text);
	if (!merged)
		return;
	xfree(*field);
	*field = xstrdup(merged);
	free(merged);
}

void sl_record_job(sl_machine_t *m, job_record_t *job)
{
	int k = 0, *nodes;

	if (m->conf->record == LOC_RECORD_NONE || !job->node_bitmap)
		return;
	nodes = xcalloc(m->ncore, sizeof(*nodes));
	/* bit_ffs/bit_fls: 22.05 has no next_node_bitmap(). */
	for (int i = bit_ffs(job->node_bitmap), last = bit_fls(job->node_bitmap);
	     i >= 0 && i <= last && i < m->nslurm; i++)
		if (bit_test(job->node_bitmap, i) && m->to_core[i] >= 0)
			nodes[k++] = m->to_core[i];
	sl_record_placement(m, job, nodes, k);
	xfree(nodes);
}
