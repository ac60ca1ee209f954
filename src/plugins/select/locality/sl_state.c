/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_state.c - the ledger: which jobs hold which nodes.
 *
 * Allocation is whole-node and exclusive, so a node is held by at most
 * one job; the ledger counts holders anyway so that an inconsistency
 * (a node given twice) is seen and logged instead of hidden. The one
 * sharing Slurm documents is a job resumed after `scontrol suspend` on
 * nodes given away meanwhile (suspend releases them). Nothing is
 * saved to disk: after a restart or reconfigure the ledger is rebuilt
 * from slurmctld's job list, which is the truth.
 */
#include "select_locality.h"

static void _job_free(void *x)
{
	sl_ledger_job_t *j = x;

	if (!j)
		return;
	FREE_NULL_BITMAP(j->nodes);
	xfree(j);
}

static int _job_match(void *x, void *key)
{
	return ((sl_ledger_job_t *)x)->job_id == *(uint32_t *)key;
}

sl_ledger_t *sl_ledger_create(void)
{
	sl_ledger_t *l = xmalloc(sizeof(*l));

	l->nslurm = node_record_count;
	l->njobs = xcalloc(MAX(node_record_count, 1), sizeof(uint16_t));
	l->mem = xcalloc(MAX(node_record_count, 1), sizeof(uint64_t));
	l->jobs = list_create(_job_free);
	return l;
}

void sl_ledger_destroy(sl_ledger_t *l)
{
	if (!l)
		return;
	FREE_NULL_LIST(l->jobs);
	xfree(l->njobs);
	xfree(l->mem);
	xfree(l);
}

sl_ledger_job_t *sl_ledger_find(sl_ledger_t *l, uint32_t job_id)
{
	return list_find_first(l->jobs, _job_match, &job_id);
}

/*
 * Adds j's nodes (Slurm indexes) to the per-node counts. A node another
 * job holds too is logged once per job: an error, except on resume after
 * scontrol suspend, when Slurm documents it.
 */
static void _hold(sl_ledger_t *l, sl_ledger_job_t *j, job_record_t *job,
		  bool resume)
{
	int first = bit_ffs(j->nodes), last = bit_fls(j->nodes);
	int shared = 0, example = -1;

	for (int i = first; first >= 0 && i <= last; i++) {
		if (!bit_test(j->nodes, i))
			continue;
		if (i >= l->nslurm) {
			bit_clear(j->nodes, i);
			continue;
		}
		if (l->njobs[i]++) {
			shared++;
			example = i;
		}
		l->mem[i] += j->mem_per_node;
	}
	if (!shared || !node_record_table_ptr[example])
		return;
	if (resume)
		info("%s: %pJ resumes on %d node(s) other jobs were given while it was suspended (e.g. %s)",
		     plugin_type, job, shared,
		     node_record_table_ptr[example]->name);
	else
		error("%s: %pJ given %d node(s) another job holds (e.g. %s)",
		      plugin_type, job, shared,
		      node_record_table_ptr[example]->name);
}

static void _unhold_node(sl_ledger_t *l, sl_ledger_job_t *j, int i)
{
	if (l->njobs[i])
		l->njobs[i]--;
	l->mem[i] = l->mem[i] >= j->mem_per_node ? l->mem[i] - j->mem_per_node :
						   0;
}

/* The nodes a job holds: its allocation minus nodes already released
 * (job_ptr->node_bitmap loses nodes as they finish or are resized away). */
static bitstr_t *_job_nodes(job_record_t *job)
{
	bitstr_t *nodes;

	if (!job->node_bitmap)
		return NULL;
	nodes = bit_copy(job->node_bitmap);
	if (job->job_resrcs && job->job_resrcs->node_bitmap &&
	    bit_size(job->job_resrcs->node_bitmap) == bit_size(nodes))
		bit_and(nodes, job->job_resrcs->node_bitmap);
	if (bit_ffs(nodes) < 0)
		FREE_NULL_BITMAP(nodes);
	return nodes;
}

int sl_ledger_add(sl_ledger_t *l, job_record_t *job, bool resume)
{
	sl_ledger_job_t *j;
	bitstr_t *nodes;
	int first;

	if (sl_ledger_find(l, job->job_id))
		return SLURM_ERROR;
	if (!(nodes = _job_nodes(job)))
		return SLURM_ERROR;
	j = xmalloc(sizeof(*j));
	j->job_id = job->job_id;
	j->nodes = nodes;
	j->end_time = job->end_time;
	first = bit_ffs(nodes);
	if (first < l->nslurm && node_record_table_ptr[first])
		j->mem_per_node =
			sl_job_mem_per_node(job, node_record_table_ptr[first]);
	_hold(l, j, job, resume);
	list_append(l->jobs, j);
	return SLURM_SUCCESS;
}

int sl_ledger_remove(sl_ledger_t *l, uint32_t job_id)
{
	sl_ledger_job_t *j = sl_ledger_find(l, job_id);
	int first, last;

	if (!j)
		return SLURM_ERROR;
	first = bit_ffs(j->nodes);
	last = bit_fls(j->nodes);
	for (int i = first; first >= 0 && i <= last; i++)
		if (bit_test(j->nodes, i))
			_unhold_node(l, j, i);
	list_delete_all(l->jobs, _job_match, &job_id);
	return SLURM_SUCCESS;
}

int sl_ledger_remove_node(sl_ledger_t *l, uint32_t job_id, int node)
{
	sl_ledger_job_t *j = sl_ledger_find(l, job_id);

	if (!j || node < 0 || node >= bit_size(j->nodes) ||
	    !bit_test(j->nodes, node))
		return SLURM_ERROR;
	bit_clear(j->nodes, node);
	_unhold_node(l, j, node);
	if (bit_ffs(j->nodes) < 0)
		list_delete_all(l->jobs, _job_match, &job_id);
	return SLURM_SUCCESS;
}

sl_ledger_t *sl_ledger_rebuild(void)
{
	sl_ledger_t *l = sl_ledger_create();
	ListIterator it;
	job_record_t *job;
	int njobs = 0;

	if (!&job_list || !job_list)
		return l;
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		/* Suspended jobs released their nodes (scontrol suspend). */
		if (!IS_JOB_RUNNING(job))
			continue;
		if (sl_ledger_add(l, job, false) == SLURM_SUCCESS)
			njobs++;
	}
	list_iterator_destroy(it);
	debug("%s: rebuilt node ownership from %d running job(s)",
	      plugin_type, njobs);
	return l;
}

void sl_ledger_refresh(sl_ledger_t *l)
{
	ListIterator it;
	sl_ledger_job_t *j;

	if (!&find_job_record)
		return;
	it = list_iterator_create(l->jobs);
	while ((j = list_next(it))) {
		job_record_t *job = find_job_record(j->job_id);

		if (job)
			j->end_time = job->end_time;
	}
	list_iterator_destroy(it);
}

void sl_ledger_busy(sl_ledger_t *l, const sl_machine_t *m, time_t now,
		    uint8_t *held, int64_t *busy)
{
	ListIterator it;
	sl_ledger_job_t *j;

	sl_ledger_refresh(l);
	it = list_iterator_create(l->jobs);
	while ((j = list_next(it))) {
		/* A job past its end time is still there: busy a moment. */
		int64_t end = j->end_time > now ? j->end_time : now + 1;
		int first = bit_ffs(j->nodes), last = bit_fls(j->nodes);

		for (int i = first; first >= 0 && i <= last; i++) {
			int g;

			if (!bit_test(j->nodes, i) || i >= m->nslurm ||
			    (g = m->to_core[i]) < 0)
				continue;
			held[g] = 1;
			if (end > busy[g])
				busy[g] = end;
		}
	}
	list_iterator_destroy(it);
}

uint16_t sl_node_cpus(int idx)
{
	node_record_t *node = node_record_table_ptr[idx];

	/* The configured count: what the whole node gives a job. */
	return node->config_ptr ? node->config_ptr->cpus : node->cpus;
}
