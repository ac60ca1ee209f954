/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sim_pf.c - PF (paired filling, seed 004: Tang et al., IPDPS 2011) in
 * the queue simulator. After a job is placed next to an idle region of its
 * size (for Combo only when SL found no busy neighbour), the region is
 * held for the waiting job of the same size with the closest walltime, as
 * select/locality holds it (loc_walltime_holds.h): jobs the partner
 * outranks keep off it until the partner's turn in a pass, where it takes
 * the region if all of it is still free and otherwise loses the hold, or
 * until PFHoldTime. With pf_with_job the partner starts there at once, as
 * in seed 004. EASY's reservation ignores holds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_sim_internal.h"

bool rp__sim_pf_mode(rp_wmode_t m)
{
	return m == RP_W_PF || m == RP_W_COMBO || m == RP_W_ADJEST ||
	       m == RP_W_ACTRUN;
}

/* Job j's priority for PF's holds, higher first, as this pass orders the
 * queue: submit order, or WFP's score (fixed when a hold is made, as the
 * plugin keeps the partner's Slurm priority of that time). WFP's scores
 * span many decades (r^3 x nodes): a logarithm keeps their order in 32
 * bits, where scaling them saturated every long wait at UINT32_MAX and
 * made those jobs ties (up to 1e25 fits; ties go to the job queued
 * first, in the replay's order and loc_holds_filter() alike). */
static uint32_t _hold_priority(const sim_t *s, int j, int64_t now)
{
	const rp_job_t *job = &s->jobs[j];
	double r, p;

	if (s->o.prio != RP_PRIO_WFP)
		return UINT32_MAX - (uint32_t)j;
	r = (double)(now - job->submit) / job->request;
	p = log1p(r * r * r * job->nodes) * 7.4e7;
	return p >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)p;
}

uint8_t *rp__sim_unheld(sim_t *s, int j, int64_t now, uint8_t *cand)
{
	uint32_t id = j < 0 ? 0 : (uint32_t)j + 1;
	uint32_t prio = j < 0 ? 0 : _hold_priority(s, j, now);

	if (!s->holds || !loc_holds_count(s->holds, NULL))
		return cand;
	loc_holds_filter(s->holds, id, prio, now, cand, s->unheld);
	return s->unheld;
}

void rp__sim_turn_passed(sim_t *s, int j)
{
	if (s->holds && !loc_holds_release(s->holds, (uint32_t)j + 1)) {
		s->ver++;
		s->nr_stamp++;
	}
}

int rp__sim_own_region(sim_t *s, int j, int64_t now, const uint8_t *cand)
{
	int k = s->holds ? loc_holds_turn(s->holds, (uint32_t)j + 1, now, cand,
					  s->jobs[j].nodes, s->in_region) :
			   0;
	int m = 0;

	if (k == LOC_ENOFIT)
		rp__sim_turn_passed(s, j);
	/* A region is its partner's size: more nodes cannot be. */
	if (k != s->jobs[j].nodes)
		return 0;
	for (int i = 0; i < s->n && m < k; i++)
		if (s->in_region[i])
			s->out[m++] = i;
	return 1;
}

/* Holds region[0..k) for partner j until its turn, or PFHoldTime. */
static int _hold(sim_t *s, int j, const int *region, int k, int64_t now)
{
	int rc = loc_holds_add(s->holds, (uint32_t)j + 1,
			       _hold_priority(s, j, now), region, k,
			       now + s->o.pf_hold);

	if (rc)
		return loc_error_set(s->err, rc, NULL, 0,
				     "PF could not hold a region: %s",
				     loc_strerror(rc));
	return 0;
}

int rp__sim_pair(sim_t *s, int j, int64_t now)
{
	const rp_job_t *job = &s->jobs[j];
	const int *placed = s->run->pool + s->run->node_off[j];
	int k = job->nodes, m = 0, idx, rc;
	int64_t est = rp__sim_place_est(s, j);
	loc_view_t view = {
		.candidate = rp__sim_unheld(s, -1, now,
				     s->resv_phase ? s->cand_nr : s->free),
		.busy_until = s->busy,
		.now = now,
	};
	loc_error_t e;

	if (s->o.pf_max_nodes > 0 && k > s->o.pf_max_nodes)
		return 0;
	/* Combo: PF only when SL found no busy neighbour. */
	if (s->o.wmode != RP_W_PF &&
	    loc_sl_score(s->grid, &view, now + est, placed, k) >= 0)
		return 0;
	for (int i = 0; i < s->norder; i++) {
		int w = s->order[i];

		if (s->state[w] != J_WAITING || s->jobs[w].nodes != k ||
		    loc_holds_has(s->holds, (uint32_t)w + 1, now))
			continue;
		s->pfq[m].job_id = (uint32_t)w;
		s->pfq[m].nodes = k;
		s->pfq[m].walltime = rp__sim_place_est(s, w);
		m++;
	}
	if (!m)
		return 0;
	rc = loc_pf_neighbor_region(s->alloc, &view, placed, k, s->out2, &e);
	s->run->alloc_calls++;
	if (rc == LOC_ENOFIT)
		return 0;
	if (rc) {
		*s->err = e;
		return rc;
	}
	idx = loc_pf_pick_partner(s->pfq, m, -1, k, est);
	if (idx < 0)
		return 0;
	/* A partner whose CompactWait would decline the region is not
	 * paired: live, such a partner declined its held region, which
	 * stood idle until the partner started elsewhere. Its wait does not
	 * begin: the scheduler offered it nothing. */
	rc = rp__sim_declines(s, (int)s->pfq[idx].job_id, now, now, s->out2,
			      false, NULL);
	if (rc)
		return rc < 0 ? rc : 0;
	for (int i = 0; i < k; i++)
		if (s->out2[i] < 0 || s->out2[i] >= s->n ||
		    !view.candidate[s->out2[i]])
			return loc_error_set(
				s->err, LOC_EINVAL, NULL, 0,
				"PF region holds node %d, which is not free",
				s->out2[i]);
	j = (int)s->pfq[idx].job_id;
	s->run->pf_pairs++;
	if (s->holds)
		return _hold(s, j, s->out2, k, now);
	rp__sim_start(s, j, now, s->out2);
	s->run->pf_partner[j] = true;
	return 0;
}
