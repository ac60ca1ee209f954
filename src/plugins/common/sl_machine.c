/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_machine.c - locality.conf to the machine the core allocates on: the
 * grid built over slurmctld's node table (in table order), the map
 * between Slurm node indexes and grid nodes, and one allocator per
 * distinct partition policy. Shared by select/locality and
 * topology/locality (sl_machine.h).
 */
#include "sl_machine.h"

#include "loc_ideal.h"

/* Policies are small structs with padding: compare them field by field. */
static bool _policy_equal(const loc_policy_t *a, const loc_policy_t *b)
{
	return a->strategy == b->strategy && a->curve == b->curve &&
	       a->walltime == b->walltime &&
	       a->sl_tolerance == b->sl_tolerance &&
	       a->paging_size == b->paging_size &&
	       a->paging_index == b->paging_index &&
	       a->mm_max_centers == b->mm_max_centers && a->seed == b->seed &&
	       a->node_weight == b->node_weight &&
	       a->pack_tolerance == b->pack_tolerance;
}

static bool _policy_uses(const loc_policy_t *p, bool adjest)
{
	if (adjest)
		return p->walltime == LOC_WALLTIME_ADJEST;
	return loc_policy_pf(p);
}

static bool _conf_uses(const loc_conf_t *conf, bool adjest)
{
	if (_policy_uses(&conf->policy, adjest))
		return true;
	for (int i = 0; i < conf->npartitions; i++)
		if (_policy_uses(&conf->partitions[i].policy, adjest))
			return true;
	for (int g = 0; g < conf->ngres; g++)
		for (int i = 0; i <= conf->npartitions; i++)
			if (_policy_uses(&conf->gres[g].policies[i], adjest))
				return true;
	return false;
}

/* Whether slurm.conf's GresTypes (a comma-separated list) names gres. */
static bool _gres_type_known(const char *gres)
{
	char *types = xstrdup(slurm_conf.gres_plugins), *save = NULL, *tok;
	bool known = false;

	for (tok = types ? strtok_r(types, ",", &save) : NULL; tok && !known;
	     tok = strtok_r(NULL, ",", &save))
		known = !xstrcmp(tok, gres);
	xfree(types);
	return known;
}

/* Returns the slot for policy, creating its allocator; NULL + err. */
static sl_alloc_slot_t *_slot(sl_machine_t *m, const loc_policy_t *policy,
			      loc_error_t *err)
{
	loc_alloc_t *alloc;

	for (int i = 0; i < m->nslots; i++)
		if (_policy_equal(&m->slots[i].policy, policy))
			return &m->slots[i];
	alloc = loc_alloc_create(m->grid, policy, err);
	if (!alloc)
		return NULL;
	xrecalloc(m->slots, m->nslots + 1, sizeof(*m->slots));
	m->slots[m->nslots].policy = *policy;
	m->slots[m->nslots].alloc = alloc;
	return &m->slots[m->nslots++];
}

void sl_machine_destroy(sl_machine_t *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nslots; i++)
		loc_alloc_destroy(m->slots[i].alloc);
	xfree(m->slots);
	loc_grid_destroy(m->grid);
	loc_conf_destroy(m->conf);
	loc_holds_destroy(m->holds);
	loc_adjest_destroy(m->adjest);
	for (int i = 0; m->names && i < m->ncore; i++)
		xfree(m->names[i]);
	xfree(m->names);
	xfree(m->to_core);
	xfree(m->to_slurm);
	xfree(m->scratch.ok);
	xfree(m->scratch.cand);
	xfree(m->scratch.held);
	xfree(m->scratch.busy);
	xfree(m->scratch.req);
	xfree(m->scratch.out);
	xfree(m->scratch.weight);
	loc_tiers_fini(&m->scratch.tiers);
	xfree(m->scratch.unheld);
	xfree(m->scratch.in_hold);
	xfree(m->scratch.late);
	xfree(m->scratch.cand_now);
	xfree(m->scratch.cpus);
	xfree(m->scratch.node_cpus);
	xfree(m->scratch.aside);
	loc_planner_destroy(m->scratch.planner);
	xfree(m->scratch.running);
	xfree(m->scratch.ends);
	xfree(m->ref.set);
	xfree(m->ref.weight);
	loc_tiers_fini(&m->ref.tiers);
	xfree(m->ref.out);
	loc_ideal_destroy(m->ideal);
	xfree(m->path);
	xfree(m);
}

sl_machine_t *sl_machine_load(const char *path, loc_error_t *err)
{
	sl_machine_t *m = xmalloc(sizeof(*m));
	node_record_t *node;
	int n = 0;

	m->path = xstrdup(path);
	m->conf = loc_conf_load(path, err);
	if (!m->conf)
		goto fail;

	/* Grid nodes are the node table's non-empty slots, in order. */
	m->nslurm = node_record_count;
	m->to_core = xcalloc(MAX(node_record_count, 1), sizeof(int));
	m->to_slurm = xcalloc(MAX(node_record_count, 1), sizeof(int));
	m->names = xcalloc(MAX(node_record_count, 1), sizeof(char *));
	for (int i = 0; i < node_record_count; i++)
		m->to_core[i] = -1;
	for (int i = 0; (node = next_node(&i)); i++) {
		m->to_core[i] = n;
		m->to_slurm[n] = i;
		m->names[n++] = xstrdup(node->name);
	}
	m->ncore = n;
	if (n == 0) {
		loc_error_set(err, LOC_EINVAL, path, 0,
			      "slurm.conf defines no nodes");
		goto fail;
	}
	m->grid = loc_conf_build_grid(m->conf, (const char *const *)m->names,
				      n, err);
	if (!m->grid)
		goto fail;
	m->ref.set = xcalloc(n, sizeof(*m->ref.set));
	m->ref.weight = xcalloc(n, sizeof(*m->ref.weight));
	m->ref.out = xcalloc(n, sizeof(*m->ref.out));
	if (loc_tiers_init(&m->ref.tiers, n, err))
		goto fail;

	/*
	 * Make the allocator of every policy the file names now, so that a
	 * policy the core refuses stops slurmctld at start with its line.
	 */
	{
		loc_error_t e2;

		if (!_slot(m, &m->conf->policy, &e2)) {
			loc_error_set(err, e2.code, path, 0, "%s", e2.text);
			goto fail;
		}
	}
	for (int i = 0; i < m->conf->npartitions; i++) {
		const loc_conf_partition_t *p = &m->conf->partitions[i];
		loc_error_t e2;

		if (!_slot(m, &p->policy, &e2)) {
			loc_error_set(err, e2.code, path, p->line,
				      "PartitionName=%s: %s", p->name,
				      e2.text);
			goto fail;
		}
	}
	for (int g = 0; g < m->conf->ngres; g++) {
		const loc_conf_gres_t *gr = &m->conf->gres[g];
		loc_error_t e2;

		/* A name no job can ask for is a typo that would be silent. */
		if (!_gres_type_known(gr->name)) {
			loc_error_set(err, LOC_EINVAL, path, gr->line,
				      "GresName=%s: slurm.conf's GresTypes (%s) does not name it",
				      gr->name,
				      slurm_conf.gres_plugins ?
					      slurm_conf.gres_plugins :
					      "not set");
			goto fail;
		}
		for (int i = 0; i <= m->conf->npartitions; i++)
			if (!_slot(m, &gr->policies[i], &e2)) {
				loc_error_set(err, e2.code, path, gr->line,
					      "GresName=%s: %s", gr->name,
					      e2.text);
				goto fail;
			}
	}
	if (_conf_uses(m->conf, false)) {
		m->holds = loc_holds_create(n);
		if (!m->holds) {
			loc_error_set(err, LOC_ENOMEM, path, 0, "out of memory");
			goto fail;
		}
	}
	if (_conf_uses(m->conf, true)) {
		m->adjest = loc_adjest_create(m->conf->adjest_window > 0 ?
						      m->conf->adjest_window :
						      10);
		if (!m->adjest) {
			loc_error_set(err, LOC_ENOMEM, path, 0, "out of memory");
			goto fail;
		}
	}
	return m;
fail:
	sl_machine_destroy(m);
	return NULL;
}

bool sl_machine_matches_nodes(const sl_machine_t *m)
{
	node_record_t *node;
	int n = 0;

	if (!m || m->nslurm != node_record_count)
		return false;
	for (int i = 0; (node = next_node(&i)); i++) {
		if (n >= m->ncore || m->to_core[i] != n ||
		    xstrcmp(m->names[n], node->name))
			return false;
		n++;
	}
	return n == m->ncore;
}

const loc_policy_t *sl_machine_policy(const sl_machine_t *m, const char *part)
{
	return loc_conf_policy(m->conf, part);
}

loc_alloc_t *sl_machine_alloc(sl_machine_t *m, const char *part,
			      loc_error_t *err)
{
	sl_alloc_slot_t *slot = _slot(m, loc_conf_policy(m->conf, part), err);

	return slot ? slot->alloc : NULL;
}

/* Whether job asks for the GRES named gres (loc_conf_asks_gres_fn). */
static bool _job_asks_gres(const char *gres, void *arg)
{
	job_record_t *job = arg;
	ListIterator it;
	gres_state_t *gs;
	bool asks = false;

	if (!job || !job->gres_list_req)
		return false;
	it = list_iterator_create(job->gres_list_req);
	while (!asks && (gs = list_next(it)))
		asks = !xstrcmp(gs->gres_name, gres);
	list_iterator_destroy(it);
	return asks;
}

const loc_policy_t *sl_machine_job_policy(const sl_machine_t *m,
					  job_record_t *job)
{
	return loc_conf_job_policy(m->conf, sl_part_name(job),
				   m->conf->ngres ? _job_asks_gres : NULL,
				   job);
}

loc_alloc_t *sl_machine_job_alloc(sl_machine_t *m, job_record_t *job,
				  const loc_policy_t **policy,
				  loc_error_t *err)
{
	const loc_policy_t *p = sl_machine_job_policy(m, job);
	sl_alloc_slot_t *slot = _slot(m, p, err);

	if (policy)
		*policy = p;

	return slot ? slot->alloc : NULL;
}

static const char *_policy_text(const loc_policy_t *p, char *buf, int len)
{
	snprintf(buf, len, "Strategy=%s Curve=%s WalltimeAware=%s",
		 loc_strategy_kind_name(p->strategy),
		 loc_curve_kind_name(p->curve),
		 loc_walltime_mode_name(p->walltime));
	return buf;
}

void sl_machine_log(const sl_machine_t *m)
{
	char buf[1024];

	info("%s: LocalityConf=%s", plugin_type, m->path);
	info("%s: Grid=%s", plugin_type,
	     loc_grid_describe(m->grid, buf, sizeof(buf)));
	info("%s: %s", plugin_type,
	     _policy_text(&m->conf->policy, buf, sizeof(buf)));
	for (int i = 0; i < m->conf->npartitions; i++) {
		const loc_conf_partition_t *p = &m->conf->partitions[i];

		info("%s: PartitionName=%s %s", plugin_type, p->name,
		     _policy_text(&p->policy, buf, sizeof(buf)));
	}
	info("%s: %s", plugin_type,
	     loc_conf_describe(m->conf, buf, sizeof(buf)));
}

static void _add_pair(List list, const char *name, const char *value)
{
	config_key_pair_t *kp = xmalloc(sizeof(*kp));

	kp->name = xstrdup(name);
	kp->value = xstrdup(value);
	list_append(list, kp);
}

/* Every key the file gives a value, as locality.conf spells it, from the
 * key table (loc_conf_key_table.h): KEY, or KEY[PARTITION] for a
 * partition's override of a policy key. */
static void _add_keys(List list, const loc_conf_t *conf, const char *part)
{
	const loc_policy_t *mine = loc_conf_policy(conf, part);
	char key[256], val[256], global[256];

	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		const loc_conf_key_info_t *info = loc_conf_key_info(k);

		if (!info || !info->has_value || (part && !info->partition) ||
		    !loc_conf_key_value(conf, part, k, val, sizeof(val)))
			continue;
		if (part) {
			/* Only what the partition changes. */
			if (mine == &conf->policy ||
			    (loc_conf_key_value(conf, NULL, k, global,
						sizeof(global)) &&
			     !strcmp(global, val)))
				continue;
			snprintf(key, sizeof(key), "Locality%s[%s]", info->name,
				 part);
		} else {
			snprintf(key, sizeof(key), "Locality%s", info->name);
		}
		_add_pair(list, key, val);
	}
}

/* The keys a GresName line sets, as KEY[GresName=NAME]. */
static void _add_gres_keys(List list, const loc_conf_t *conf,
			   const loc_conf_gres_t *gr)
{
	char key[256], val[256];

	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		if (!(gr->keys & (1u << k)) ||
		    !loc_conf_policy_key_value(&gr->policies[conf->npartitions],
					       k, val, sizeof(val)))
			continue;
		snprintf(key, sizeof(key), "Locality%s[GresName=%s]",
			 loc_conf_key_info(k)->name, gr->name);
		_add_pair(list, key, val);
	}
}

List sl_machine_key_pairs(const sl_machine_t *m)
{
	List list = list_create(destroy_config_key_pair);
	char buf[512];

	if (!m) {
		_add_pair(list, "LocalityConf", "(not loaded)");
		return list;
	}
	_add_pair(list, "LocalityConf", m->path);
	_add_pair(list, "LocalityGrid",
		  loc_grid_describe(m->grid, buf, sizeof(buf)));
	snprintf(buf, sizeof(buf), "%d", m->ncore);
	_add_pair(list, "LocalityNodes", buf);
	_add_pair(list, "LocalityPolicy",
		  _policy_text(&m->conf->policy, buf, sizeof(buf)));
	_add_keys(list, m->conf, NULL);
	for (int i = 0; i < m->conf->npartitions; i++)
		_add_keys(list, m->conf, m->conf->partitions[i].name);
	for (int g = 0; g < m->conf->ngres; g++)
		_add_gres_keys(list, m->conf, &m->conf->gres[g]);
	return list;
}

bool sl_node_usable(node_record_t *node, int idx, bool run_now)
{
	if (IS_NODE_DOWN(node) || IS_NODE_DRAIN(node) || IS_NODE_FAIL(node) ||
	    IS_NODE_POWERING_DOWN(node) || IS_NODE_POWER_DOWN(node) ||
	    IS_NODE_FUTURE(node))
		return false;
	if (run_now && (IS_NODE_COMPLETING(node) || IS_NODE_NO_RESPOND(node)))
		return false;
	if (&avail_node_bitmap && avail_node_bitmap &&
	    idx < bit_size(avail_node_bitmap) &&
	    !bit_test(avail_node_bitmap, idx))
		return false;
	return true;
}

uint64_t sl_job_mem_per_node(job_record_t *job, node_record_t *node)
{
	uint64_t mem = job->details ? job->details->pn_min_memory : 0;

	if (mem == NO_VAL64 || mem == 0)
		return node->real_memory; /* the whole node */
	if (mem & MEM_PER_CPU)
		return (mem & ~MEM_PER_CPU) * node->config_ptr->cpus;
	return mem;
}

bool sl_node_holds_job_mem(job_record_t *job, node_record_t *node)
{
	uint64_t mem = job->details->pn_min_memory, avail;

	if (mem == 0 || mem == NO_VAL64)
		return true;
	avail = node->real_memory;
	avail = avail > node->mem_spec_limit ? avail - node->mem_spec_limit :
					       0;
	return sl_job_mem_per_node(job, node) <= avail;
}
