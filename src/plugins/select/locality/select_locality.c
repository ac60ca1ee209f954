/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_locality.c - select/locality, a Slurm node selection plugin
 * (Slurm 22.05 or 24.11) that gives each job a compact set of whole nodes
 * on a mesh or torus.
 *
 * This file is the Slurm side only: the plugin symbols and state,
 * init/fini and the select_p_* entry points of node_select_syms[]
 * (src/common/select.c in 22.05, src/interfaces/select.c in 24.11) that
 * both versions share, but for the nodeinfo/jobinfo data (sl_info.c).
 * Those whose signature or meaning differs are in glue/<version>/sl_glue.c
 * and call the sl_plugin_* functions here. Placement itself is the shared
 * core (src/common, loc_alloc_select()); sl_machine.c (src/plugins/common), sl_state.c,
 * sl_place.c and sl_modes.c translate between the two.
 *
 * Allocation is whole-node and exclusive. The plugin keeps a ledger of
 * which running job holds which node; it is rebuilt from slurmctld's job
 * list after a restart or reconfigure, so it needs no saving. (The text
 * of the locality.conf in use is saved, for 24.11's reconfigure:
 * sl_running.c.)
 *
 * Clients (sinfo, scontrol; sbatch too in 22.05) load every select plugin
 * they find in PluginDir: there only the nodeinfo/jobinfo functions
 * (sl_info.c) run, and init() does nothing. A slurmctld configured with
 * another SelectType also loads this plugin; init() leaves it idle then.
 */
#include "select_locality.h"

/*
 * plugin_name    - a human-readable description of the plugin.
 * plugin_type    - "select/locality": Slurm loads the file
 *                  select_locality.so for SelectType=select/locality.
 * plugin_id      - unique among select plugins; 101, 102 and 106-110
 *                  are Slurm's own (100 and 103-105 are historic).
 * plugin_version - must equal the loading slurmctld's
 *                  SLURM_VERSION_NUMBER exactly.
 */
const char plugin_name[] = "Locality-aware node selection plugin";
const char plugin_type[] = "select/locality";
const uint32_t plugin_id = 111;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* All plugin state, guarded by _lock. */
static pthread_mutex_t _lock = PTHREAD_MUTEX_INITIALIZER;
static bool _active;            /* slurmctld with SelectType=us */
static sl_machine_t *_machine;  /* the model in use; NULL before node_init */
static sl_ledger_t *_ledger;    /* NULL: rebuild from job_list on use */
static bool _fresh;             /* node_init loaded the file this cycle */
static bool _core_data;         /* cr_init_global_core_data() was run */

static char *_conf_path(void)
{
	return get_extra_conf_path("locality.conf");
}

/* The ledger, rebuilt from job_list when it was dropped. */
static sl_ledger_t *_ledger_get(void)
{
	if (!_ledger) {
		_ledger = sl_ledger_rebuild();
		sl_devices_rebuild();
	}
	return _ledger;
}

/*
 * Reads locality.conf and builds the machine for the current node table.
 * At start a bad file or node mismatch is fatal, in one line naming file,
 * line and node. Later (reconfigure) the error is logged and the running
 * model kept, re-pointed at the current node table.
 */
static void _load_machine(void)
{
	char *path = _conf_path(), *saved;
	char msg[LOC_ERROR_TEXT_MAX + LOC_ERROR_FILE_MAX + 32];
	loc_error_t err;
	sl_machine_t *m;

	loc_error_clear(&err);
	m = sl_machine_load(path, &err);
	/* A slurmctld restarted by reconfigure (24.11) has no running model
	 * in memory: the copy saved with Slurm's state is the one. */
	if (!m && !_machine && (saved = sl_running_fallback())) {
		loc_error_format(&err, msg, sizeof(msg));
		error("%s: %s; keeping the running configuration (%s)",
		      plugin_type, msg, saved);
		loc_error_clear(&err);
		if ((m = sl_machine_load(saved, &err))) {
			xfree(path);
			path = saved;
		} else {
			xfree(saved);
		}
	}
	if (!m) {
		loc_error_format(&err, msg, sizeof(msg));
		if (!_machine)
			fatal("%s: %s", plugin_type, msg);
		error("%s: %s; keeping the running configuration",
		      plugin_type, msg);
		if (!sl_machine_matches_nodes(_machine))
			fatal("%s: the node table changed and %s cannot describe it: %s",
			      plugin_type, path, msg);
		xfree(path);
		return;
	}
	if (_machine && _machine->ncore == m->ncore) {
		/* Walltime history and PF holds outlive a reload. */
		if (m->adjest && _machine->adjest) {
			loc_adjest_t *a = m->adjest;

			m->adjest = _machine->adjest;
			_machine->adjest = a;
		}
		if (m->holds && _machine->holds) {
			loc_holds_t *h = m->holds;

			m->holds = _machine->holds;
			_machine->holds = h;
		}
	}
	sl_machine_destroy(_machine);
	_machine = m;
	sl_machine_log(m);
	sl_running_remember(path);
	xfree(path);
}

/*
 * init() runs when any process loads the plugin. Only a slurmctld whose
 * SelectType is select/locality does anything: it checks locality.conf
 * (the grid is built later, in select_p_node_init, once the node table
 * exists).
 */
extern int init(void)
{
	char *path, *saved = NULL;
	char msg[LOC_ERROR_TEXT_MAX + LOC_ERROR_FILE_MAX + 32];
	loc_error_t err;
	loc_conf_t *conf;

	if (!running_in_slurmctld() ||
	    xstrcasecmp(slurm_conf.select_type, plugin_type))
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	_active = true;
	path = _conf_path();
	loc_error_clear(&err);
	if ((conf = loc_conf_load(path, &err))) {
		loc_conf_destroy(conf);
	} else if (!(saved = sl_running_fallback())) {
		loc_error_format(&err, msg, sizeof(msg));
		fatal("%s: %s", plugin_type, msg);
	}
	xfree(saved); /* select_p_node_init logs and loads it */
	info("%s: loaded, LocalityConf=%s", plugin_type, path);
	xfree(path);
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	slurm_mutex_lock(&_lock);
	sl_ledger_destroy(_ledger);
	_ledger = NULL;
	sl_devices_fini();
	sl_machine_destroy(_machine);
	_machine = NULL;
	sl_running_forget();
	if (_core_data)
		cr_fini_global_core_data();
	_core_data = false;
	_active = false;
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/*
 * The remainder of this file implements the standard Slurm node
 * selection API.
 */

/*
 * The ledger needs no saving: it is rebuilt from slurmctld's job list.
 * The locality.conf in use is saved, for a slurmctld that a reconfigure
 * restarts to fall back to (sl_running.c).
 */
extern int select_p_state_save(char *dir_name)
{
	int rc;

	if (!_active)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	rc = sl_running_save(dir_name);
	slurm_mutex_unlock(&_lock);
	return rc;
}

extern int select_p_state_restore(char *dir_name)
{
	return SLURM_SUCCESS;
}

/*
 * Called after a (re)start once jobs are loaded, but before slurmctld
 * rebuilds their node bitmaps (_sync_jobs_to_conf): drop the ledger, so
 * that it is rebuilt from the job list on first use.
 */
extern int select_p_job_init(List job_list_arg)
{
	if (!_active)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	sl_ledger_destroy(_ledger);
	_ledger = NULL;
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/* The node table was (re)built: read locality.conf and build the grid. */
extern int select_p_node_init(void)
{
	if (!_active)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	cr_init_global_core_data(node_record_table_ptr, node_record_count);
	_core_data = true;
	_load_machine();
	_fresh = true;
	sl_ledger_destroy(_ledger);
	_ledger = NULL;
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/* select_p_job_test (glue/<version>/sl_glue.c) without its version's
 * extra arguments. */
int sl_plugin_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
		       uint32_t min_nodes, uint32_t max_nodes,
		       uint32_t req_nodes, uint16_t mode,
		       List preemptee_candidates, List *preemptee_job_list)
{
	int rc;

	if (!_active || !bitmap)
		return EINVAL;
	slurm_mutex_lock(&_lock);
	if (!_machine) {
		error("%s: job_test before node_init", plugin_type);
		slurm_mutex_unlock(&_lock);
		return EINVAL;
	}
	rc = sl_job_test(_machine, _ledger_get(), job_ptr, bitmap, min_nodes,
			 max_nodes, req_nodes, mode, preemptee_candidates,
			 preemptee_job_list);
	slurm_mutex_unlock(&_lock);
	return rc;
}

/* The job starts on the nodes job_test chose (or slurmctld restored). */
extern int select_p_job_begin(job_record_t *job_ptr)
{
	sl_ledger_t *l;

	if (!_active)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	l = _ledger_get();
	if (!sl_ledger_find(l, job_ptr->job_id) &&
	    sl_ledger_add(l, job_ptr, false) != SLURM_SUCCESS)
		error("%s: %pJ begins without nodes", plugin_type, job_ptr);
	sl_devices_alloc(job_ptr);
	if (_machine) {
		sl_pf_after_begin(_machine, l, job_ptr);
		sl_record_job(_machine, job_ptr);
	}
	job_ptr->wait4switch_start = 0; /* its CompactWait is over */
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/* Ready when every node is powered up. */
extern int select_p_job_ready(job_record_t *job_ptr)
{
	int first, last;

	if (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr))
		return 0;
	if (!job_ptr->node_bitmap ||
	    (first = bit_ffs(job_ptr->node_bitmap)) < 0)
		return READY_NODE_STATE;
	last = bit_fls(job_ptr->node_bitmap);
	for (int i = first; i <= last; i++) {
		node_record_t *node;

		if (!bit_test(job_ptr->node_bitmap, i) ||
		    !(node = node_record_table_ptr[i]))
			continue;
		if (IS_NODE_POWERED_DOWN(node) || IS_NODE_POWERING_UP(node))
			return 0;
	}
	return READY_NODE_STATE;
}

/*
 * Moves every node of from_job_ptr into to_job_ptr (scontrol update
 * JobId=X NumNodes=ALL after a job was submitted with --dependency=expand).
 * slurmctld then ends from_job_ptr; it no longer holds anything here.
 */
extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	bitstr_t *both;
	sl_ledger_t *l;
	int rc = SLURM_SUCCESS;

	if (!_active)
		return SLURM_SUCCESS;
	if (from_job_ptr->job_id == to_job_ptr->job_id ||
	    !from_job_ptr->node_bitmap || !to_job_ptr->node_bitmap ||
	    !to_job_ptr->details)
		return SLURM_ERROR;
	slurm_mutex_lock(&_lock);
	l = _ledger_get();
	both = bit_copy(to_job_ptr->node_bitmap);
	bit_or(both, from_job_ptr->node_bitmap);
	(void)sl_ledger_remove(l, from_job_ptr->job_id);
	(void)sl_ledger_remove(l, to_job_ptr->job_id);
	sl_devices_expand(from_job_ptr, to_job_ptr);
	if (sl_build_job_resources(to_job_ptr, both) != SLURM_SUCCESS)
		rc = SLURM_ERROR;
	bit_or(to_job_ptr->node_bitmap, both);
	to_job_ptr->node_cnt = to_job_ptr->total_nodes = bit_set_count(both);
	to_job_ptr->cpu_cnt = to_job_ptr->total_cpus;
	to_job_ptr->details->min_cpus = to_job_ptr->total_cpus;
	to_job_ptr->details->max_cpus = to_job_ptr->total_cpus;
	xfree(to_job_ptr->nodes);
	to_job_ptr->nodes = bitmap2node_name(to_job_ptr->node_bitmap);

	bit_clear_all(from_job_ptr->node_bitmap);
	if (from_job_ptr->job_resrcs) {
		job_resources_t *r = from_job_ptr->job_resrcs;

		if (r->node_bitmap)
			bit_clear_all(r->node_bitmap);
		r->nhosts = 0;
		r->ncpus = 0;
		xfree(r->nodes);
		r->nodes = xstrdup("");
	}
	/* No nodes and no CPUs is how slurmctld knows a job that gave all
	 * to another (make_node_idle: else a node_cnt underflow). */
	from_job_ptr->node_cnt = from_job_ptr->total_nodes = 0;
	from_job_ptr->total_cpus = 0;
	if (from_job_ptr->details) {
		from_job_ptr->details->min_nodes = 0;
		from_job_ptr->details->min_cpus = 0;
		from_job_ptr->details->max_cpus = 0;
	}
	xfree(from_job_ptr->nodes);
	from_job_ptr->nodes = xstrdup("");
	(void)sl_ledger_add(l, to_job_ptr, false);
	sl_devices_alloc(to_job_ptr);
	FREE_NULL_BITMAP(both);
	slurm_mutex_unlock(&_lock);
	return rc;
}

/* One node left the job (it shrank). */
extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	if (!_active)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	if (sl_ledger_remove_node(_ledger_get(), job_ptr->job_id,
				  node_ptr->index) != SLURM_SUCCESS)
		debug("%s: %pJ did not hold node %s", plugin_type, job_ptr,
		      node_ptr->name);
	sl_devices_free_node(job_ptr, node_ptr,
			     sl_job_resources_remove_node(job_ptr, node_ptr));
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/* The job is ending: its nodes are free for the next placement (RUN_NOW
 * still keeps COMPLETING nodes out until their epilog is done, and
 * WILL_RUN counts them free a second on: sl_modes.c). */
extern int select_p_job_fini(job_record_t *job_ptr)
{
	if (!_active)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	if (sl_ledger_remove(_ledger_get(), job_ptr->job_id) != SLURM_SUCCESS)
		debug("%s: %pJ held no nodes", plugin_type, job_ptr);
	sl_devices_free(job_ptr);
	if (_machine)
		sl_walltime_after_fini(_machine, job_ptr);
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/*
 * scontrol suspend (indf_susp) releases the job's nodes for other jobs, as
 * Slurm documents; resuming takes them back even if other jobs use them
 * meanwhile (logged). Gang scheduling's time slices (!indf_susp) keep
 * them.
 */
extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	if (!_active || !indf_susp)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	(void)sl_ledger_remove(_ledger_get(), job_ptr->job_id);
	sl_devices_suspend(job_ptr);
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	sl_ledger_t *l;

	if (!_active || !indf_susp)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	l = _ledger_get();
	if (!sl_ledger_find(l, job_ptr->job_id))
		(void)sl_ledger_add(l, job_ptr, true);
	sl_devices_resume(job_ptr);
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/* NULL: slurmctld picks step nodes among the job's own (whole nodes). */
extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return NULL;
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return SLURM_SUCCESS;
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return SLURM_SUCCESS;
}

/* Refreshes every node's allocated CPUs, memory and TRES for sinfo. */
extern int select_p_select_nodeinfo_set_all(void)
{
	static time_t last_set_all;
	node_record_t *node;

	if (!_active || !&last_node_update)
		return SLURM_SUCCESS;
	if (last_set_all && last_node_update < last_set_all)
		return SLURM_NO_CHANGE_IN_DATA;
	last_set_all = last_node_update;

	slurm_mutex_lock(&_lock);
	for (int i = 0; (node = next_node(&i)); i++) {
		select_nodeinfo_t *ni = NULL;

		select_g_select_nodeinfo_get(node->select_nodeinfo,
					     SELECT_NODEDATA_PTR, 0, &ni);
		if (!ni) {
			error("%s: node %s has no nodeinfo", plugin_type,
			      node->name);
			continue;
		}
		xfree(ni->tres_alloc_fmt_str);
		if (IS_NODE_ALLOCATED(node) || IS_NODE_COMPLETING(node)) {
			ni->alloc_cpus = node->config_ptr ?
						 node->config_ptr->cpus :
						 node->cpus;
			ni->tres_alloc_fmt_str =
				assoc_mgr_make_tres_str_from_array(
					node->tres_cnt, TRES_STR_CONVERT_UNITS,
					false);
			ni->tres_alloc_weighted = assoc_mgr_tres_weighted(
				node->tres_cnt,
				node->config_ptr ?
					node->config_ptr->tres_weights :
					NULL,
				slurm_conf.priority_flags, false);
		} else {
			ni->alloc_cpus = 0;
			ni->tres_alloc_weighted = 0.0;
		}
		ni->alloc_memory = (_ledger && i < _ledger->nslurm) ?
					   _ledger->mem[i] :
					   0;
	}
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/* SELECT_CONFIG_INFO of select_p_get_info_from_plugin (sl_glue.c). */
List sl_plugin_config_pairs(void)
{
	List pairs;

	slurm_mutex_lock(&_lock);
	pairs = _active ? sl_machine_key_pairs(_machine) : NULL;
	slurm_mutex_unlock(&_lock);
	return pairs;
}

/*
 * The end of slurmctld's start or of scontrol reconfigure (right after
 * select_p_node_init, which read the file), partition or node updates:
 * re-read locality.conf unless it was just read, and rebuild the ledger
 * from the job list. After a start or reconfigure the rebuild is done now,
 * as read_slurm_conf() asks ("sync select plugin"), with every lock
 * held: the nodes' GRES counts it rebuilds are what sinfo shows before
 * any job is scheduled. After an update it waits for the next job_test,
 * which holds the job locks.
 */
extern int select_p_reconfigure(void)
{
	bool read_conf;

	if (!_active)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	read_conf = _fresh;
	if (!_fresh || !sl_machine_matches_nodes(_machine))
		_load_machine();
	_fresh = false;
	sl_ledger_destroy(_ledger);
	_ledger = NULL;
	if (read_conf)
		(void)_ledger_get();
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

/* A reservation's nodes (22.05: select_p_resv_test; 24.11: job_test of
 * the reservation's stand-in job), as compact as a job's. */
bitstr_t *sl_plugin_resv_pick(const char *partition, const char *name,
			      uint32_t node_cnt, bitstr_t *avail)
{
	resv_desc_msg_t resv = { .partition = (char *)partition,
				 .name = (char *)name };
	bitstr_t *picked;

	if (!avail || bit_set_count(avail) < (int64_t)node_cnt)
		return NULL;
	slurm_mutex_lock(&_lock);
	if (_machine)
		picked = sl_resv_test(_machine, &resv, node_cnt, avail);
	else
		picked = bit_pick_cnt(avail, node_cnt);
	slurm_mutex_unlock(&_lock);
	return picked;
}
