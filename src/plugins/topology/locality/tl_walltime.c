/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_walltime.c - WalltimeAware's SL tie-break inside select/cons_tres.
 * The core's SL (loc_walltime_sl.h) runs inside loc_alloc_select() and
 * needs two inputs, both taken here from slurmctld: when each node's
 * running jobs are expected to end (their end_time, which slurmctld sets
 * from the time limit at start), and when the job being placed would end
 * (now plus its time limit). Among the placements within SLTolerance of
 * the most compact, the one whose busy neighbours end closest to the
 * job's end wins, so nodes tend to free up together.
 *
 * Paired filling (PF) and AdjEst are select/locality's: a topology plugin
 * hears of no job's start or end, so it can neither hold a region for a
 * partner nor learn a user's accuracy. Under topology/locality pf places
 * as none, combo and adjest as sl (tl_walltime_log says so at start).
 */
#include "topology_locality.h"

void tl_walltime_init(tl_walltime_t *w, const sl_machine_t *m)
{
	w->until = xcalloc(MAX(m->ncore, 1), sizeof(*w->until));
	w->now = w->update = 0;
}

void tl_walltime_fini(tl_walltime_t *w)
{
	xfree(w->until);
}

int64_t tl_walltime_expected_end(const job_record_t *job, time_t now)
{
	if (job->time_limit == NO_VAL || job->time_limit == INFINITE ||
	    job->time_limit == 0)
		return 0;
	return (int64_t)now + (int64_t)job->time_limit * 60;
}

/* Rebuilt once per second and job change (last_job_update): a scheduling
 * pass evaluates many jobs between two starts. */
const int64_t *tl_walltime_busy(tl_walltime_t *w, const sl_machine_t *m,
				time_t now)
{
	list_itr_t *it;
	job_record_t *job;

	if (!&job_list || !job_list || !&last_job_update)
		return NULL;
	if (w->now == now && w->update == last_job_update)
		return w->until;
	memset(w->until, 0, m->ncore * sizeof(*w->until));
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		/* A job past its end time still runs: busy a moment more. */
		int64_t end = job->end_time > now ? job->end_time : now + 1;

		if (!IS_JOB_RUNNING(job) || !job->node_bitmap)
			continue;
		for (int i = 0; next_node_bitmap(job->node_bitmap, &i); i++) {
			int g = i < m->nslurm ? m->to_core[i] : -1;

			if (g >= 0 && end > w->until[g])
				w->until[g] = end;
		}
	}
	list_iterator_destroy(it);
	w->now = now;
	w->update = last_job_update;
	return w->until;
}

void tl_walltime_log(const sl_machine_t *m)
{
	if (m->holds || m->adjest)
		info("%s: WalltimeAware pf, combo or adjest: paired filling and AdjEst are select/locality's; here pf places as none, combo and adjest as sl",
		     plugin_type);
}
