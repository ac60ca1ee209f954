/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_fit.c - topology/locality's set sized to a job's CPUs: how many
 * nodes (the fewest candidates that hold them), whether a set covers the
 * job, a best fit for a job that one node holds, and, when the core's k
 * nodes fall short on a cluster with more than one kind of node (or of
 * nodes other jobs share), k nodes that each hold an even share before
 * one node more, and a larger set less the nodes it can spare. What each
 * node can give the job is cons_tres's (eval_nodes_select_cores(), in
 * cpus[]).
 */
#include "tl_job.h"

#include "loc_metrics.h"
#include "loc_size.h"

int tl_fit_nodes_for_cpus(tl_job_t *t)
{
	uint32_t *c = t->s->cand_cpus;
	int n = 0;

	if (t->rem_cpus <= 0)
		return 0;
	for (int g = 0; g < t->m->ncore; g++)
		if (t->cand[g])
			c[n++] = t->cpus[t->m->to_slurm[g]];
	return loc_fewest_covering(c, n, (uint64_t)t->rem_cpus);
}

/* Judged on the CPU counts before accounting and, per job, on the GRES
 * the nodes could give (gres_sched_consec over the set). */
bool tl_fit_covers(tl_job_t *t, int k)
{
	int64_t sum = 0;
	bool ok;

	for (int j = t->nreq; j < t->nreq + k; j++)
		sum += t->cpus[t->m->to_slurm[t->out[j]]];
	if (sum < t->rem_cpus)
		return false;
	if (!t->te->gres_per_job)
		return true;
	{
		list_t *have = NULL;

		for (int j = t->nreq; j < t->nreq + k; j++) {
			int i = t->m->to_slurm[t->out[j]];

			gres_sched_consec(&have, t->job->gres_list_req,
					  t->te->avail_res_array[i]
						  ->sock_gres_list);
		}
		ok = gres_sched_sufficient(t->job->gres_list_req, have);
		FREE_NULL_LIST(have);
	}
	return ok;
}

/* A node's free CPUs, whatever the job would use of them (its usable
 * CPUs, cpus[], are capped at what the job asks). */
static uint16_t _free_cpus(tl_job_t *t, int i)
{
	avail_res_t *a = t->te->avail_res_array[i];

	return a ? a->max_cpus : t->cpus[i];
}

/*
 * A job that one node holds goes to a best fit: among the candidates
 * whose usable CPUs cover it, those of the lightest weight tier with the
 * fewest free CPUs (a node that shares its cores with running jobs
 * before an idle one). Which of them, the core decides. A one-node job
 * has no hops to save, and an idle node it takes is one that a
 * multi-node job's compact set no longer has. Sets the other candidates
 * aside in aside[] (tl_fit_select_best() puts them back); false, with
 * nothing set aside, when no candidate holds it alone or the job asks
 * GRES of the job as a whole (judged on the set).
 */
static bool _narrow_to_best_fit(tl_job_t *t)
{
	uint8_t *aside = t->s->aside;
	uint64_t best_w = UINT64_MAX;
	uint16_t best_c = UINT16_MAX;
	bool tiers = t->use_tiers;

	if (t->nreq || t->te->gres_per_job || t->rem_cpus <= 0)
		return false;
	for (int g = 0; g < t->m->ncore; g++) {
		int i = t->m->to_slurm[g];
		uint16_t c = _free_cpus(t, i);
		uint64_t w = tiers ? t->weight[g] : 0;

		if (!t->cand[g] || t->cpus[i] < t->rem_cpus)
			continue;
		if (w < best_w || (w == best_w && c < best_c)) {
			best_w = w;
			best_c = c;
		}
	}
	if (best_c == UINT16_MAX)
		return false;
	for (int g = 0; g < t->m->ncore; g++) {
		int i = t->m->to_slurm[g];

		aside[g] = t->cand[g] &&
			   (t->cpus[i] < t->rem_cpus ||
			    _free_cpus(t, i) != best_c ||
			    (tiers && t->weight[g] != best_w));
		if (aside[g])
			t->cand[g] = 0;
	}
	return true;
}

bool tl_fit_select_best(tl_job_t *t)
{
	bool ok;

	if (!_narrow_to_best_fit(t))
		return false;
	ok = !tl_job_select(t, 1) && tl_fit_covers(t, 1);
	loc_unnarrow(t->cand, t->s->aside, t->m->ncore);
	return ok;
}

/*
 * The core places k nodes by hops alone. With two kinds of node in the
 * candidates, its k may be the small ones and fall short where k of the
 * large ones would not, and the job would spread over one node more than
 * it needs (and more than topology/flat gives it). Narrowed to the
 * candidates that hold ceil(rem_cpus / k) each, any k it picks cover the
 * CPUs; GRES are judged on the set as before. The set is taken only when
 * as compact as CompactTolerance allows over the ideal for k
 * (loc_fewer_nodes_compact()); else the caller tries one node more.
 * Nothing to narrow (every candidate holds the share, or fewer than k
 * do): false, one call saved. Not with required nodes.
 */
bool tl_fit_select_even_share(tl_job_t *t, int k)
{
	uint32_t *cpus = t->s->set_cpus;
	bool ok;

	if (t->rem_cpus <= 0 || k < 1 || t->nreq)
		return false;
	for (int g = 0; g < t->m->ncore; g++)
		cpus[g] = t->cand[g] ? t->cpus[t->m->to_slurm[g]] : 0;
	if (loc_narrow_to_even_share(t->cand, t->s->aside, cpus, t->m->ncore,
				     (uint64_t)t->rem_cpus, k) < 0)
		return false;
	ok = !tl_job_select(t, k) && tl_fit_covers(t, k) &&
	     loc_fewer_nodes_compact(
		     loc_metrics_total_pair_hops(t->m->grid, t->out, k),
		     sl_ideal_total_hops(t->m, k),
		     t->policy->compact_tolerance);
	loc_unnarrow(t->cand, t->s->aside, t->m->ncore);
	return ok;
}

static void _swap(int *v, int a, int b)
{
	int x = v[a];

	v[a] = v[b];
	v[b] = x;
}

/*
 * The core's k nodes fell short, and so did an even share: it was asked
 * for more, and its set covers. Of two kinds of node, that set may hold
 * a node it can spare (12 CPUs on 8- and 4-CPU nodes: three nodes, two
 * of 8 and one of 4, where one of each does). loc_drop_one() finds the
 * node whose loss leaves the fewest hops; the k - 1 left are taken when
 * they still cover the job (GRES included) and are as compact as
 * CompactTolerance allows over the ideal for k - 1, the bar of the even
 * share. Not with required nodes.
 */
bool tl_fit_drop_one(tl_job_t *t, int k)
{
	uint32_t *cpus = t->s->set_cpus;
	int *set = t->out + t->nreq, j, last = k - 1;
	int64_t hops;

	if (t->nreq || t->rem_cpus <= 0 || k < 2)
		return false;
	for (int i = 0; i < k; i++)
		cpus[i] = t->cpus[t->m->to_slurm[set[i]]];
	j = loc_drop_one(t->m->grid, set, cpus, k, (uint64_t)t->rem_cpus,
			 &hops);
	if (j < 0)
		return false;
	_swap(set, j, last);
	if (tl_fit_covers(t, last) &&
	    loc_fewer_nodes_compact(hops, sl_ideal_total_hops(t->m, last),
				    t->policy->compact_tolerance))
		return true;
	_swap(set, j, last);
	return false;
}
