/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology_locality.c - the plugin's state and the version-independent
 * bodies of its entry points (glue/<version>/tl_glue.c calls them):
 * locality.conf loaded into the machine in slurmctld, the eval_nodes
 * entry that hands node choice to tl_eval.c, and MPI rank order along
 * the curve.
 */
#include <pthread.h>

#include "topology_locality.h"

#include "loc_curve.h"

/* Only slurmctld places jobs; slurmd, slurmstepd and the commands load
 * the plugin for its other calls and never build the machine. */
static pthread_mutex_t _lock = PTHREAD_MUTEX_INITIALIZER;
static sl_machine_t *_machine;
static tl_scratch_t _scratch; /* sized for _machine, replaced with it */

/* The hook's signature carries only the evaluation: it reads the machine
 * here, set for the duration of tl_eval_nodes() under _lock. */
static int _hook(topology_eval_t *te)
{
	return tl_eval_compact(te, _machine, &_scratch);
}

int tl_build_config(void)
{
	char msg[LOC_ERROR_TEXT_MAX + LOC_ERROR_FILE_MAX + 32];
	char *path;
	loc_error_t err;
	sl_machine_t *m;

	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	path = get_extra_conf_path("locality.conf");
	loc_error_clear(&err);
	m = sl_machine_load(path, &err);
	xfree(path);
	if (!m) {
		/* At start, and in the slurmctld that `scontrol reconfigure`
		 * starts anew (whose failure leaves the old one running), a
		 * broken file stops it with file, line and text. */
		loc_error_format(&err, msg, sizeof(msg));
		fatal("%s: %s", plugin_type, msg);
	}
	slurm_mutex_lock(&_lock);
	sl_machine_destroy(_machine);
	tl_scratch_fini(&_scratch);
	_machine = m;
	tl_scratch_init(&_scratch, m);
	info("%s: Slurm %s, cons_tres accounting by Slurm's topology helpers",
	     plugin_type, SL_SLURM_SERIES);
	sl_machine_log(m);
	tl_walltime_log(m);
	slurm_mutex_unlock(&_lock);
	return SLURM_SUCCESS;
}

void tl_destroy_config(void)
{
	slurm_mutex_lock(&_lock);
	sl_machine_destroy(_machine);
	tl_scratch_fini(&_scratch);
	_machine = NULL;
	slurm_mutex_unlock(&_lock);
}

int tl_eval_nodes(topology_eval_t *te)
{
	int rc;

	/* Only this plugin's CompactWait declines a set (tl_compact.c);
	 * --switches is topology/tree's and means nothing here. */
	te->job_ptr->best_switch = true;
	slurm_mutex_lock(&_lock);
	/* A node table that changed under the machine (dynamic nodes) is
	 * placed by Slurm's own rule until the next build_config. */
	if (_machine && _machine->nslurm == node_record_count) {
		/* Slurm's order of precedence stays: --spread-job, LLN
		 * partitions and pack_serial_at_end are the admin's or the
		 * user's explicit choice; every other job is ours. */
		te->eval_nodes = _hook;
		te->trump_others = false;
		rc = common_topo_choose_nodes(te);
	} else {
		rc = common_topo_choose_nodes(te);
	}
	slurm_mutex_unlock(&_lock);
	return rc;
}

typedef struct {
	uint32_t key, pos;
} _keyed_t;

static int _cmp_keyed(const void *a, const void *b)
{
	const _keyed_t *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* v[i] = the rank of v[i] among v (ties by position). */
static void _ranks_of_keys(uint32_t *v, uint32_t n)
{
	_keyed_t *k = xcalloc(MAX(n, 1), sizeof(*k));

	for (uint32_t i = 0; i < n; i++)
		k[i] = (_keyed_t){ .key = v[i], .pos = i };
	qsort(k, n, sizeof(*k), _cmp_keyed);
	for (uint32_t r = 0; r < n; r++)
		v[k[r].pos] = r;
	xfree(k);
}

int tl_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size)
{
	const loc_curve_t *curve;
	loc_alloc_t *alloc;
	loc_error_t err;
	uint32_t n = 0;

	*node_rank = NULL;
	*size = 0;
	if (!node_bitmap || !running_in_slurmctld())
		return SLURM_SUCCESS;
	slurm_mutex_lock(&_lock);
	if (!_machine || _machine->nslurm != node_record_count ||
	    !(alloc = sl_machine_alloc(_machine, NULL, &err))) {
		slurm_mutex_unlock(&_lock);
		return SLURM_SUCCESS;
	}
	curve = loc_alloc_curve(alloc);
	*size = bit_set_count(node_bitmap);
	*node_rank = xcalloc(MAX(*size, 1), sizeof(uint32_t));
	/* Each node's place on the curve, then its order among the set. */
	for (int i = 0; next_node_bitmap(node_bitmap, &i); i++) {
		int g = _machine->to_core[i];

		(*node_rank)[n++] = g < 0 ? UINT32_MAX :
				    (uint32_t)loc_curve_rank(curve, g);
	}
	slurm_mutex_unlock(&_lock);
	_ranks_of_keys(*node_rank, n);
	return SLURM_SUCCESS;
}
