/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_modes.c - select_p_job_test() in its modes (run now, test only,
 * will run / reservation) and select_p_resv_test(), on the placement
 * engine of sl_place.c.
 */
#include "sl_ctx.h"

static int _cmp_end(void *x, void *y)
{
	sl_ledger_job_t *a = *(sl_ledger_job_t **)x;
	sl_ledger_job_t *b = *(sl_ledger_job_t **)y;

	if (a->end_time != b->end_time)
		return a->end_time < b->end_time ? -1 : 1;
	return (a->job_id > b->job_id) - (a->job_id < b->job_id);
}

/* PF: a job that was given a hold tries its held region first. */
static int _place_in_hold(sl_ctx_t *c)
{
	sl_pf_region_t *r = NULL;
	ListIterator it;
	uint8_t *save = c->m->scratch.tmp;
	int rc, n = 0;

	if (!c->m->pf_regions)
		return LOC_ENOFIT;
	it = list_iterator_create(c->m->pf_regions);
	while ((r = list_next(it)))
		if (r->job_id == c->job->job_id && r->expires > c->now)
			break;
	list_iterator_destroy(it);
	if (!r)
		return LOC_ENOFIT;
	memcpy(save, c->cand, c->m->ncore);
	for (int g = 0; g < c->m->ncore; g++) {
		int i = c->m->to_slurm[g];

		c->cand[g] = save[g] && i < bit_size(r->nodes) &&
			     bit_test(r->nodes, i);
		n += c->cand[g];
	}
	rc = n >= c->lo ? sl_ctx_place(c, c->now) : LOC_ENOFIT;
	memcpy(c->cand, save, c->m->ncore);
	return rc;
}

static int _run_now(sl_ctx_t *c, bitstr_t *bitmap, List preemptee_candidates,
		    List *preemptee_job_list)
{
	int rc;

	sl_ctx_fill_busy(c);
	sl_ctx_apply_holds(c);
	rc = _place_in_hold(c);
	if (rc == LOC_ENOFIT) {
		rc = sl_ctx_place(c, c->now);
		if (rc == LOC_ENOFIT && preemptee_candidates &&
		    sl_ctx_release_preemptable(c, preemptee_candidates))
			rc = sl_ctx_place(c, c->now);
		if (rc == 0 && sl_compact_defer(c, c->now)) {
			debug("%s: %pJ waits for a compact placement (k=%d, CompactWait until %ld)",
			      plugin_type, c->job, c->k,
			      (long)sl_compact_deadline(c));
			return EINVAL;
		}
	}
	if (rc) {
		debug2("%s: %pJ does not fit now: %s", plugin_type, c->job,
		       c->err.text);
		return EINVAL;
	}
	sl_ctx_to_bitmap(c, bitmap);
	sl_ctx_preemptees(c, bitmap, preemptee_candidates, preemptee_job_list);
	if (sl_build_job_resources(c->job, bitmap) != SLURM_SUCCESS)
		return EINVAL;
	sl_ctx_log_placement(c, bitmap);
	return SLURM_SUCCESS;
}

static int _test_only(sl_ctx_t *c, bitstr_t *bitmap)
{
	memcpy(c->cand, c->ok, c->m->ncore);
	if (sl_ctx_place(c, c->now)) {
		debug2("%s: %pJ can never run on the nodes offered: %s",
		       plugin_type, c->job, c->err.text);
		return EINVAL;
	}
	sl_ctx_to_bitmap(c, bitmap);
	c->job->total_cpus = sl_ctx_sum_cpus(c, c->out, c->k);
	return SLURM_SUCCESS;
}

/*
 * CompactWait in WILL_RUN: whether the job, as patient as it is now,
 * would decline the placement it gets at time t (a projected time is
 * judged on compactness alone: the job is not yet there to run out of
 * patience). A declined placement is kept in scratch as the fallback,
 * the latest one no later than the deadline (the free set only grows),
 * to be taken at the deadline if no compact one ever comes. Returns rc,
 * or LOC_ENOFIT for a declined placement.
 */
static int _judge(sl_ctx_t *c, int rc, int64_t t, int64_t *fb_t)
{
	sl_scratch_t *s = &c->m->scratch;
	int64_t deadline = sl_compact_deadline(c);

	if (rc || !(c->mode & SELECT_MODE_WILL_RUN) ||
	    !sl_compact_defer(c, c->now))
		return rc;
	if (!*fb_t || t <= deadline) {
		memcpy(s->fb, c->out, sizeof(int) * c->k);
		s->fb_k = c->k;
		*fb_t = MAX(deadline, t);
	}
	return LOC_ENOFIT;
}

/*
 * When and where could the job start? Now if it fits; else release the
 * running jobs in end-time order (preemptable ones first, at once) and
 * place again after each release, as sched/backfill expects.
 *
 * With CompactWait, the answer is the first compact placement, even past
 * the job's deadline: sched/backfill reserves what this returns, and a
 * reservation on the scattered nodes the job declined would keep nodes
 * that are free now idle for it until the deadline. Reserving the
 * compact set instead leaves the free nodes to backfill; at its deadline
 * the job still takes whatever fits (RUN_NOW no longer declines). Only
 * when no compact placement ever comes is the declined one the answer,
 * at the deadline.
 */
static int _will_run(sl_ctx_t *c, bitstr_t *bitmap, List preemptee_candidates,
		     List *preemptee_job_list)
{
	int rc;
	time_t start = c->now;
	int64_t fb_t = 0; /* != 0: a declined placement waits in scratch */

	sl_ctx_fill_busy(c);
	sl_ctx_apply_holds(c);
	rc = _judge(c, sl_ctx_place(c, c->now), c->now, &fb_t);
	if (rc == LOC_ENOFIT) {
		/* Holds are short: later times ignore them. */
		for (int g = 0; g < c->m->ncore; g++)
			c->cand[g] = c->ok[g] && !c->held[g];
		if (preemptee_candidates &&
		    sl_ctx_release_preemptable(c, preemptee_candidates))
			rc = _judge(c, sl_ctx_place(c, c->now), c->now,
				    &fb_t);
	}
	if (rc == LOC_ENOFIT && !(c->job->bit_flags & TEST_NOW_ONLY)) {
		List order = list_create(NULL);
		ListIterator it = list_iterator_create(c->l->jobs);
		sl_ledger_job_t *j;

		while ((j = list_next(it)))
			list_append(order, j);
		list_iterator_destroy(it);
		list_sort(order, _cmp_end);
		it = list_iterator_create(order);
		while ((j = list_next(it))) {
			if (!sl_ctx_release(c, j))
				continue;
			start = j->end_time > c->now ? j->end_time : c->now + 1;
			rc = _judge(c, sl_ctx_place(c, start), start, &fb_t);
			if (rc != LOC_ENOFIT)
				break;
		}
		list_iterator_destroy(it);
		FREE_NULL_LIST(order);
	}
	if (rc == LOC_ENOFIT && fb_t) {
		memcpy(c->out, c->m->scratch.fb, sizeof(int) * c->m->scratch.fb_k);
		c->k = c->m->scratch.fb_k;
		start = fb_t;
		rc = 0;
	}
	if (rc) {
		debug2("%s: %pJ WILL_RUN finds no start: %s", plugin_type,
		       c->job, c->err.text);
		return EINVAL;
	}
	sl_ctx_to_bitmap(c, bitmap);
	sl_ctx_preemptees(c, bitmap, preemptee_candidates, preemptee_job_list);
	c->job->start_time = start;
	c->job->total_cpus = sl_ctx_sum_cpus(c, c->out, c->k);
	if (get_log_level() >= LOG_LEVEL_DEBUG2) {
		char *names = bitmap2node_name(bitmap);

		debug2("%s: WILL_RUN %pJ start=%ld nodes=%s", plugin_type,
		       c->job, (long)start, names);
		xfree(names);
	}
	return SLURM_SUCCESS;
}

int sl_job_test(sl_machine_t *m, sl_ledger_t *l, job_record_t *job,
		bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
		uint32_t req_nodes, uint16_t mode, List preemptee_candidates,
		List *preemptee_job_list)
{
	sl_ctx_t c;
	int rc = EINVAL;
	uint16_t base = mode & SELECT_MODE_BASE;

	if (!job->details || bit_set_count(bitmap) < (int64_t)min_nodes)
		return EINVAL;
	sl_ctx_init(&c, m, l, job, mode);
	c.policy = sl_machine_policy(m, sl_part_name(job));
	c.alloc = sl_machine_alloc(m, sl_part_name(job), &c.err);
	if (!c.alloc) {
		error("%s: no allocator for partition %s: %s", plugin_type,
		      sl_part_name(job), c.err.text);
		goto out;
	}
	c.walltime = sl_walltime_estimate(m, c.policy, job);
	sl_ctx_fill_ok(&c, bitmap);
	if (!sl_ctx_counts(&c, min_nodes, max_nodes, req_nodes)) {
		debug2("%s: %pJ cannot fit %u-%u nodes in the %d usable",
		       plugin_type, job, min_nodes, max_nodes,
		       sl_count(c.ok, m->ncore));
		goto out;
	}
	if (base == SELECT_MODE_TEST_ONLY)
		rc = _test_only(&c, bitmap);
	else if (base & (SELECT_MODE_WILL_RUN | SELECT_MODE_RESV))
		rc = _will_run(&c, bitmap, preemptee_candidates,
			       preemptee_job_list);
	else if (base == SELECT_MODE_RUN_NOW)
		rc = _run_now(&c, bitmap, preemptee_candidates,
			      preemptee_job_list);
	else
		error("%s: %pJ: unknown job_test mode %u", plugin_type, job,
		      mode);
out:
	return rc;
}

bitstr_t *sl_resv_test(sl_machine_t *m, resv_desc_msg_t *resv,
		       uint32_t node_cnt, bitstr_t *avail)
{
	sl_ctx_t c;
	bitstr_t *picked = NULL;
	int first = bit_ffs(avail), last = bit_fls(avail), rc;

	if (node_cnt == 0)
		return bit_alloc(bit_size(avail));
	sl_ctx_init(&c, m, NULL, NULL, SELECT_MODE_RESV);
	c.policy = sl_machine_policy(m, resv->partition);
	c.alloc = sl_machine_alloc(m, resv->partition, &c.err);
	if (!c.alloc)
		goto out;
	for (int i = first; first >= 0 && i <= last; i++) {
		int g;

		if (bit_test(avail, i) && i < m->nslurm &&
		    (g = m->to_core[i]) >= 0)
			c.cand[g] = 1;
	}
	{
		loc_view_t view = { .candidate = c.cand, .now = c.now };
		loc_request_t req = { .nodes = (int)MIN(node_cnt, INT32_MAX) };

		rc = loc_alloc_select(c.alloc, &req, &view, c.out, &c.err);
	}
	if (rc) {
		debug("%s: reservation %s: no %u nodes: %s", plugin_type,
		      resv->name, node_cnt, c.err.text);
		goto out;
	}
	c.k = node_cnt;
	picked = bit_alloc(bit_size(avail));
	sl_ctx_to_bitmap(&c, picked);
	if (get_log_level() >= LOG_LEVEL_DEBUG) {
		char *names = bitmap2node_name(picked);

		debug("%s: reservation %s nodes=%s k=%d strategy=%s",
		      plugin_type, resv->name, names, c.k,
		      loc_strategy_kind_name(c.policy->strategy));
		xfree(names);
	}
out:
	return picked;
}
