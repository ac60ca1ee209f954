/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_devices.c - the GRES (GPUs and other devices) a running job holds.
 *
 * slurmctld leaves GRES to the select plugin: unless the plugin records
 * which devices of each node a job gets (Slurm's GRES allocation,
 * SL_GRES_JOB_ALLOC in glue/<version>/sl_glue.h), the job's credential
 * names none, slurmd sets no CUDA_VISIBLE_DEVICES and confines the job to
 * no device, and `scontrol show job -d` lists none. slurmctld marks every
 * job of a whole-node plugin whole-node and asks for every GRES of its
 * nodes, which only Slurm's _whole_node allocation reads.
 *
 * A job keeps its devices while suspended (only its nodes go back to the
 * ledger), as under select/linear; meanwhile no job is started on them
 * (sl_ctx_fill_ok, which walks the nodes' GRES only while such a job
 * exists). Which jobs hold devices is kept here, so that a job
 * ending after a restart, which the rebuild below did not count, is not
 * taken from the nodes' counts twice. Callers hold the plugin mutex.
 */
#include "select_locality.h"

static List _holders;   /* uint32_t job ids whose GRES are on their nodes */
static List _suspended; /* those of them suspended (scontrol suspend) */

static int _id_match(void *x, void *key)
{
	return *(uint32_t *)x == *(uint32_t *)key;
}

static bool _in(List ids, uint32_t job_id)
{
	return ids && list_find_first(ids, _id_match, &job_id);
}

static bool _holds(uint32_t job_id)
{
	return _in(_holders, job_id);
}

static void _add(List *ids, uint32_t job_id)
{
	uint32_t *id = xmalloc(sizeof(*id));

	*id = job_id;
	if (!*ids)
		*ids = list_create(xfree_ptr);
	list_append(*ids, id);
}

/*
 * The nodes of job to act on: each node of its allocation it still holds
 * (a node released is out of node_bitmap; one resized away is out of
 * job_resrcs too). Calls fn with the node's Slurm index and its offset in
 * job_resrcs, the two places Slurm's GRES calls want.
 */
typedef void (*_node_fn)(job_record_t *job, node_record_t *node, int index,
			 int offset, bool flag);

static void _each_node(job_record_t *job, _node_fn fn, bool flag)
{
	job_resources_t *r = job->job_resrcs;
	int first, last, offset = -1;

	if (!r || !r->node_bitmap || !job->node_bitmap)
		return;
	first = bit_ffs(r->node_bitmap);
	last = bit_fls(r->node_bitmap);
	for (int i = first; first >= 0 && i <= last; i++) {
		node_record_t *node;

		if (!bit_test(r->node_bitmap, i))
			continue;
		offset++;
		if (!bit_test(job->node_bitmap, i) ||
		    !(node = node_record_table_ptr[i]))
			continue;
		fn(job, node, i, offset, flag);
	}
}

/* Allocates (new_alloc) or re-records the job's GRES on one node. */
static void _alloc_node(job_record_t *job, node_record_t *node, int index,
			int offset, bool new_alloc)
{
	int nhosts = job->job_resrcs->nhosts;

	if (SL_JOB_WHOLE_NODE(job))
		SL_GRES_JOB_ALLOC_WHOLE_NODE(job->gres_list_req,
					     &job->gres_list_alloc,
					     node->gres_list, nhosts, index,
					     offset, job->job_id, node->name,
					     NULL, new_alloc);
	else
		SL_GRES_JOB_ALLOC(job->gres_list_req, &job->gres_list_alloc,
				  node->gres_list, nhosts, index, offset,
				  job->job_id, node->name, NULL, new_alloc);
}

/* Returns the job's GRES on one node (resize: the node leaves the job). */
static void _dealloc_node(job_record_t *job, node_record_t *node, int index,
			  int offset, bool resize)
{
	SL_GRES_JOB_DEALLOC(job->gres_list_alloc, node->gres_list, offset,
			    job->job_id, node->name,
			    job->start_time < slurmctld_config.boot_time,
			    resize);
}

static bool _asks_gres(job_record_t *job)
{
	return job->gres_list_req && list_count(job->gres_list_req);
}

void sl_devices_alloc(job_record_t *job)
{
	if (!_asks_gres(job) || !job->job_resrcs || _holds(job->job_id))
		return;
	_each_node(job, _alloc_node, !job->gres_list_alloc);
	/* What scontrol show job -d lists (JOB_GRES, each node's IDX). */
	SL_GRES_JOB_BUILD_DETAILS(job);
	_add(&_holders, job->job_id);
}

void sl_devices_free(job_record_t *job)
{
	if (!_holds(job->job_id))
		return;
	_each_node(job, _dealloc_node, false);
	list_delete_all(_holders, _id_match, &job->job_id);
	if (_suspended)
		list_delete_all(_suspended, _id_match, &job->job_id);
}

void sl_devices_suspend(job_record_t *job)
{
	if (_holds(job->job_id) && !_in(_suspended, job->job_id))
		_add(&_suspended, job->job_id);
}

void sl_devices_resume(job_record_t *job)
{
	if (_suspended)
		list_delete_all(_suspended, _id_match, &job->job_id);
}

bool sl_devices_any_suspended(void)
{
	return _suspended && list_count(_suspended);
}

static int _latest_end(void *x, void *arg)
{
	job_record_t *job = find_job_record(*(uint32_t *)x);
	time_t *end = arg;

	if (job && job->end_time > *end)
		*end = job->end_time;
	return 0;
}

time_t sl_devices_suspended_end(void)
{
	time_t end = 0;

	if (_suspended)
		(void)list_for_each_ro(_suspended, _latest_end, &end);
	return end;
}

void sl_devices_free_node(job_record_t *job, node_record_t *node,
			  int offset)
{
	if (!_holds(job->job_id) || offset < 0)
		return;
	/* Slurm shifts the job's per-node GRES down over this offset, as
	 * job_resrcs has just dropped the node. */
	_dealloc_node(job, node, node->index, offset, true);
	SL_GRES_JOB_BUILD_DETAILS(job);
}

void sl_devices_expand(job_record_t *from, job_record_t *to)
{
	job_resources_t *fr = from->job_resrcs, *tr = to->job_resrcs;

	if (!fr || !tr || !fr->node_bitmap || !tr->node_bitmap)
		return;
	sl_devices_free(from);
	sl_devices_free(to);
	SL_GRES_JOB_MERGE(from->gres_list_req, fr->node_bitmap,
			  to->gres_list_req, tr->node_bitmap);
	SL_GRES_JOB_MERGE(from->gres_list_alloc, fr->node_bitmap,
			  to->gres_list_alloc, tr->node_bitmap);
}

/*
 * After a restart or reconfigure the nodes' GRES counts are Slurm's
 * rebuild, not ours: clear them and record again the devices of every
 * running or suspended job, as recorded in its saved allocation.
 */
void sl_devices_rebuild(void)
{
	ListIterator it;
	job_record_t *job;
	node_record_t *node;

	FREE_NULL_LIST(_holders);
	FREE_NULL_LIST(_suspended);
	if (!&job_list || !job_list)
		return;
	for (int i = 0; (node = next_node(&i)); i++)
		gres_node_state_dealloc_all(node->gres_list);
	it = list_iterator_create(job_list);
	while ((job = list_next(it)))
		if (IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job)) {
			sl_devices_alloc(job);
			if (IS_JOB_SUSPENDED(job))
				sl_devices_suspend(job);
		}
	list_iterator_destroy(it);
}

void sl_devices_fini(void)
{
	FREE_NULL_LIST(_holders);
	FREE_NULL_LIST(_suspended);
}
