/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_modes.c - select_p_job_test() in its modes (run now, test only,
 * will run / reservation) and select_p_resv_test(), on the placement
 * engine of sl_place.c.
 */
#include "sl_ctx.h"
#include "sl_gres.h"

/*
 * PF: a job that was given a hold places on its held region first
 * (loc_holds_turn(), the replay's rule too). The region's candidates are
 * a set of their own (scratch.in_hold): the decision's candidates are
 * left whole for the placement that follows a miss, and a miss ends the
 * hold at the end of the turn (_turn_outcome()).
 */
static int _place_in_hold(sl_ctx_t *c)
{
	sl_place_req_t p;
	int rc;

	if (loc_holds_turn(c->m->holds, c->job->job_id, c->now, c->cand,
			   c->lo, c->m->scratch.in_hold) <= 0)
		return LOC_ENOFIT;
	p = sl_ctx_request(c, c->now, c->out);
	p.cand = c->m->scratch.in_hold;
	if ((rc = sl_ctx_place(c, &p)) == 0)
		c->k = p.k;
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
		rc = sl_ctx_place_decision(c, c->now);
		if (rc == LOC_ENOFIT && preemptee_candidates &&
		    sl_ctx_release_preemptable(c, preemptee_candidates))
			rc = sl_ctx_place_decision(c, c->now);
		if (rc == 0 && sl_compact_defer(c, c->out, c->k, true)) {
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
	if (sl_ctx_place_decision(c, c->now)) {
		debug2("%s: %pJ can never run on the nodes offered: %s",
		       plugin_type, c->job, c->err.text);
		return EINVAL;
	}
	sl_ctx_to_bitmap(c, bitmap);
	c->job->total_cpus = sl_ctx_sum_cpus(c, c->out, c->k);
	return SLURM_SUCCESS;
}

/* WILL_RUN's side of loc_plan_earliest(): the projection is the ctx. */
typedef struct will_run {
	sl_ctx_t *c;
	List preemptee_candidates;
	bool holds_dropped;
	int settle;   /* the release index of the settling nodes, or -1 */
	bool settled; /* ... released */
	int park;     /* the release index of the parked nodes, or -1 */
	bool unparked; /* ... released */
} will_run_t;

/* Free nodes that join the projection later than now (scratch.late). */
enum { LATE_NO, LATE_SETTLING, LATE_PARKED };

static int _plan_place(void *arg, int64_t t, int *out, int *k)
{
	sl_ctx_t *c = ((will_run_t *)arg)->c;
	/* Into the out[] the planner hands us: the answer is the planner's
	 * until loc_plan_earliest() returns it. */
	sl_place_req_t p = sl_ctx_request(c, t, out);
	int rc = sl_ctx_place(c, &p);

	*k = p.k;
	return rc;
}

/*
 * Free nodes no job can take now, each kind joining the projection as a
 * release of its own:
 * - settling: still completing a job (epilog, slurmd's report). RUN_NOW
 *   cannot take them, and sched/backfill does not start a job whose
 *   nodes include one, but moves its start a second on and reserves the
 *   nodes it was given, free ones too, meanwhile. They join a second from
 *   now, so a job that fits on the settled free nodes starts on them, and
 *   one that wants the completing ones gets its start then.
 * - parked: their devices held by a suspended job (sl_devices.c), which
 *   RUN_NOW skips. They join when the last suspended job that holds
 *   devices is expected to end (its end_time, as Slurm's own select
 *   plugins plan a suspended job), so a plan does not count on them now.
 * Fills scratch.late; returns whether any node is settling (*parked:
 * whether any is parked).
 */
static bool _late(will_run_t *w, bool *parked)
{
	sl_ctx_t *c = w->c;
	uint8_t *late = c->m->scratch.late;
	bool devices = sl_devices_any_suspended(), settling = false;

	*parked = false;
	for (int g = 0; g < c->m->ncore; g++) {
		node_record_t *node;

		late[g] = LATE_NO;
		/* ok[] nodes are slurmctld's (sl_ctx_fill_ok). */
		if (!c->ok[g] || c->held[g] ||
		    !(node = node_record_table_ptr[c->m->to_slurm[g]]))
			continue;
		if (devices && sl_gres_node_in_use(node))
			late[g] = LATE_PARKED;
		else if (IS_NODE_COMPLETING(node))
			late[g] = LATE_SETTLING;
		else
			continue;
		/* Released later, for PlanHold too. */
		c->cand[g] = c->m->scratch.cand_now[g] = 0;
		settling |= late[g] == LATE_SETTLING;
		*parked |= late[g] == LATE_PARKED;
	}
	return settling;
}

static bool _joined(const will_run_t *w, uint8_t late)
{
	return late == LATE_NO || (late == LATE_SETTLING && w->settled) ||
	       (late == LATE_PARKED && w->unparked);
}

/* PF holds are short: they bind now, and later times ignore them; the
 * late nodes join at their own release. */
static int _plan_release(void *arg, int i)
{
	will_run_t *w = arg;
	sl_ctx_t *c = w->c;
	const uint8_t *late = c->m->scratch.late;
	bool own = i == w->settle || i == w->park;
	int n = 0;

	w->settled |= i == w->settle;
	w->unparked |= i == w->park;
	if (!w->holds_dropped || own) {
		for (int g = 0; g < c->m->ncore; g++) {
			uint8_t was = c->cand[g];

			c->cand[g] = c->ok[g] && !c->held[g] &&
				     _joined(w, late[g]);
			n += c->cand[g] && !was;
		}
		w->holds_dropped = true;
	}
	if (own)
		return n;
	return n + sl_ctx_release(c, c->m->scratch.running[i]);
}

/* CompactWait, judged with the patience the job has now. */
static int _plan_declines(void *arg, const int *out, int k, int64_t t)
{
	sl_ctx_t *c = ((will_run_t *)arg)->c;

	return sl_compact_defer(c, out, k, t <= c->now);
}

/*
 * The nodes to hold for a later start: the job placed on the nodes
 * released by then alone, leaving out the candidates of now, which
 * sched/backfill would otherwise keep idle until the start (loc_plan.h).
 * Not for a job that names its nodes: those are its answer's already.
 */
static int _plan_place_released(void *arg, int64_t t, int *out, int *k)
{
	sl_ctx_t *c = ((will_run_t *)arg)->c;
	const uint8_t *cand_now = c->m->scratch.cand_now;
	sl_place_req_t p = sl_ctx_request(c, t, out);
	int left, rc;

	if (c->nreq)
		return LOC_ENOFIT;
	/* The projection's candidates, narrowed for this one placement. */
	left = loc_plan_narrow_to_released(c->cand, cand_now, c->m->ncore);
	rc = left >= c->lo ? sl_ctx_place(c, &p) : LOC_ENOFIT;
	loc_plan_unnarrow(c->cand, cand_now, c->m->ncore);
	*k = p.k;
	return rc;
}

/* Preemptable jobs' nodes count as free now. */
static int _plan_widen_now(void *arg)
{
	will_run_t *w = arg;
	int before = sl_count(w->c->cand, w->c->m->ncore);

	if (!sl_ctx_release_preemptable(w->c, w->preemptee_candidates))
		return 0;
	return sl_count(w->c->cand, w->c->m->ncore) - before;
}

/* The ledger's jobs and their expected ends, in scratch, with room for
 * the two late releases after them (_late). Returns the count. */
static int _running(sl_ctx_t *c)
{
	sl_scratch_t *s = &c->m->scratch;
	int n = list_count(c->l->jobs), i = 0;
	ListIterator it;
	sl_ledger_job_t *j;

	if (n + 2 > s->nrunning_cap) {
		/* Grown once: a machine rarely runs more jobs than nodes. */
		s->nrunning_cap = MAX(n + 2, c->m->ncore + 2);
		xrecalloc(s->running, s->nrunning_cap, sizeof(*s->running));
		xrecalloc(s->ends, s->nrunning_cap, sizeof(*s->ends));
	}
	it = list_iterator_create(c->l->jobs);
	while ((j = list_next(it)) && i < n) {
		s->running[i] = j;
		s->ends[i++] = j->end_time;
	}
	list_iterator_destroy(it);
	return i;
}

/*
 * When and where could the job start? loc_plan_earliest() (loc_plan.h)
 * answers, the rule the replay's EASY reservation follows too: now if it
 * fits; else the running jobs are released in end-time order (preemptable
 * ones first, at once) as sched/backfill expects; with CompactWait, the
 * first compact placement, even past the job's deadline. A job that
 * declines what it could take now has no start: backfill reserves
 * nothing for it while it waits.
 */
static int _will_run(sl_ctx_t *c, bitstr_t *bitmap, List preemptee_candidates,
		     List *preemptee_job_list)
{
	sl_scratch_t *s = &c->m->scratch;
	will_run_t w = { .c = c,
			 .preemptee_candidates = preemptee_candidates,
			 .settle = -1,
			 .park = -1 };
	loc_plan_ops_t ops = {
		.place = _plan_place,
		.release = _plan_release,
		.declines = (c->mode & SELECT_MODE_WILL_RUN) ? _plan_declines :
							       NULL,
		.widen_now = preemptee_candidates ? _plan_widen_now : NULL,
		.place_released =
			c->policy->plan_hold == LOC_PLAN_HOLD_RELEASED ?
				_plan_place_released :
				NULL,
	};
	loc_plan_request_t req = { .now = c->now, .need = c->lo };
	loc_plan_answer_t ans;
	bool parked;
	int rc;

	if (!s->planner &&
	    !(s->planner = loc_planner_create(c->m->ncore, &c->err))) {
		error("%s: %pJ WILL_RUN: %s", plugin_type, c->job, c->err.text);
		return EINVAL;
	}
	sl_ctx_fill_busy(c);
	/* The nodes free now, PF-held or not, are no released ones: a
	 * later start holding them keeps them idle until then. */
	if (ops.place_released)
		memcpy(s->cand_now, c->cand, c->m->ncore);
	sl_ctx_apply_holds(c);
	req.nrunning = _running(c);
	if (_late(&w, &parked)) {
		w.settle = req.nrunning++;
		s->ends[w.settle] = c->now + 1;
	}
	if (parked) {
		w.park = req.nrunning++;
		s->ends[w.park] = MAX((int64_t)sl_devices_suspended_end(),
				      c->now + 1);
	}
	req.ncand = sl_count(c->cand, c->m->ncore);
	req.ends = s->ends;
	req.deadline = c->job ? sl_compact_deadline(c) : c->now;
	req.now_only = c->job && (c->job->bit_flags & TEST_NOW_ONLY);
	req.window = c->policy->plan_window;
	/* The planner's answer becomes the decision's: c->out, c->k. */
	rc = loc_plan_earliest(s->planner, &req, &ops, &w, c->out, &ans,
			       &c->err);
	if (rc && ans.waiting) {
		/* Reserves nothing: backfill would hold free nodes for it. */
		debug2("%s: %pJ WILL_RUN: waits for a compact placement (CompactWait until %ld), reserves nothing",
		       plugin_type, c->job, (long)req.deadline);
		return EINVAL;
	}
	if (rc) {
		debug2("%s: %pJ WILL_RUN finds no start: %s", plugin_type,
		       c->job, c->err.text);
		return EINVAL;
	}
	c->k = ans.k;
	sl_ctx_to_bitmap(c, bitmap);
	sl_ctx_preemptees(c, bitmap, preemptee_candidates, preemptee_job_list);
	c->job->start_time = ans.start;
	c->job->total_cpus = sl_ctx_sum_cpus(c, c->out, c->k);
	if (get_log_level() >= LOG_LEVEL_DEBUG2) {
		char *names = bitmap2node_name(bitmap);

		debug2("%s: WILL_RUN %pJ start=%ld nodes=%s%s", plugin_type,
		       c->job, (long)ans.start, names,
		       ans.declined ? " (declined set, at the deadline)" :
		       ans.released ? " (released nodes)" : "");
		xfree(names);
	}
	return SLURM_SUCCESS;
}

/*
 * PF: a partner's turn came, in the main scheduler (RUN_NOW) or in
 * backfill's plan (WILL_RUN), and it does not start now: its hold ends.
 * Held on, its region would stand idle and keep off jobs of lower
 * priority, those backfill reserved it for among them, until PFHoldTime.
 */
static int _turn_outcome(sl_machine_t *m, job_record_t *job, uint16_t base,
			 int rc)
{
	/* SELECT_MODE_RUN_NOW is 0: it is a value of base, not a bit. */
	bool run_now = base == SELECT_MODE_RUN_NOW;

	if (!m->holds || !(run_now || (base & SELECT_MODE_WILL_RUN)) ||
	    (rc == SLURM_SUCCESS &&
	     (run_now || job->start_time <= time(NULL))))
		return rc;
	if (sl_pf_release(m, job->job_id))
		debug("%s: PF %pJ missed its held region (%s), hold released",
		      plugin_type, job,
		      run_now ? "RUN_NOW: no start" :
		      rc != SLURM_SUCCESS ? "WILL_RUN: no start" :
					    "WILL_RUN: planned later");
	return rc;
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
		return _turn_outcome(m, job, base, EINVAL);
	sl_ctx_init(&c, m, l, job, mode);
	c.alloc = sl_machine_job_alloc(m, job, &c.policy, &c.err);
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
	return _turn_outcome(m, job, base, rc);
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
