/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_policy.c - the allocator's policy: its defaults, the names of each
 * choice (as slurm.conf, the replay and the tools spell them) and the
 * table of strategies behind the strategy names.
 */
#include <string.h>
#include <strings.h>

#include "loc_names.h"
#include "loc_policy_internal.h"
#include "loc_strategy_ops.h"

static const loc__strategy_ops_t *const _strategy_ops[LOC_STRATEGY_COUNT] = {
	[LOC_STRATEGY_FREELIST] = &loc__st_freelist,
	[LOC_STRATEGY_FIRSTFIT] = &loc__st_firstfit,
	[LOC_STRATEGY_BESTFIT] = &loc__st_bestfit,
	[LOC_STRATEGY_SUMSQUARES] = &loc__st_sumsquares,
	[LOC_STRATEGY_SPAN] = &loc__st_span,
	[LOC_STRATEGY_MM] = &loc__st_mm,
	[LOC_STRATEGY_MM_INC] = &loc__st_mm_inc,
	[LOC_STRATEGY_GENALG] = &loc__st_genalg,
	[LOC_STRATEGY_MC1X1] = &loc__st_mc1x1,
	[LOC_STRATEGY_MBS] = &loc__st_mbs,
	[LOC_STRATEGY_PAGING] = &loc__st_paging,
	[LOC_STRATEGY_RANDOM] = &loc__st_random,
	[LOC_STRATEGY_BOX] = &loc__st_box,
	[LOC_STRATEGY_PACK] = &loc__st_pack,
};

static const char *const _walltime_names[LOC_WALLTIME_COUNT] = {
	"none", "sl", "pf", "combo", "adjest",
};

static const char *const _paging_names[LOC_PAGING_COUNT] = {
	"rowmajor", "shuffled", "snake",
};

static const char *const _node_weight_names[LOC_NODE_WEIGHT_COUNT] = {
	"tiers", "ignore",
};

static const char *const _plan_hold_names[LOC_PLAN_HOLD_COUNT] = {
	"placement", "released",
};

static const char *const _shared_nodes_names[LOC_SHARED_NODES_COUNT] = {
	"any", "first",
};

int loc_strategy_kind_parse(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < LOC_STRATEGY_COUNT; i++)
		if (!strcasecmp(name, _strategy_ops[i]->name))
			return i;
	return -1;
}

const loc__strategy_ops_t *loc__strategy_ops(loc_strategy_kind_t kind)
{
	return _strategy_ops[kind];
}

const char *loc_strategy_kind_name(loc_strategy_kind_t kind)
{
	if ((int)kind < 0 || kind >= LOC_STRATEGY_COUNT)
		return "unknown";
	return _strategy_ops[kind]->name;
}

int loc_walltime_mode_parse(const char *name)
{
	return loc_names_index(name, _walltime_names, LOC_WALLTIME_COUNT);
}

const char *loc_walltime_mode_name(loc_walltime_mode_t mode)
{
	if ((int)mode < 0 || mode >= LOC_WALLTIME_COUNT)
		return "unknown";
	return _walltime_names[mode];
}

int loc_paging_index_parse(const char *name)
{
	return loc_names_index(name, _paging_names, LOC_PAGING_COUNT);
}

const char *loc_paging_index_name(loc_paging_index_t index)
{
	if ((int)index < 0 || index >= LOC_PAGING_COUNT)
		return "unknown";
	return _paging_names[index];
}

int loc_node_weight_parse(const char *name)
{
	return loc_names_index(name, _node_weight_names, LOC_NODE_WEIGHT_COUNT);
}

const char *loc_node_weight_name(loc_node_weight_t mode)
{
	if ((int)mode < 0 || mode >= LOC_NODE_WEIGHT_COUNT)
		return "unknown";
	return _node_weight_names[mode];
}

int loc_plan_hold_parse(const char *name)
{
	return loc_names_index(name, _plan_hold_names, LOC_PLAN_HOLD_COUNT);
}

const char *loc_plan_hold_name(loc_plan_hold_t hold)
{
	if ((int)hold < 0 || hold >= LOC_PLAN_HOLD_COUNT)
		return "unknown";
	return _plan_hold_names[hold];
}

int loc_shared_nodes_parse(const char *name)
{
	return loc_names_index(name, _shared_nodes_names,
			       LOC_SHARED_NODES_COUNT);
}

const char *loc_shared_nodes_name(loc_shared_nodes_t rule)
{
	if ((int)rule < 0 || rule >= LOC_SHARED_NODES_COUNT)
		return "unknown";
	return _shared_nodes_names[rule];
}

/* loc_policy_init() is in loc_conf_key_table.c: the defaults are the keys'. */

bool loc_policy_sl(const loc_policy_t *policy)
{
	return policy->walltime == LOC_WALLTIME_SL ||
	       policy->walltime == LOC_WALLTIME_COMBO ||
	       policy->walltime == LOC_WALLTIME_ADJEST;
}

bool loc_policy_pf(const loc_policy_t *policy)
{
	return policy->walltime == LOC_WALLTIME_PF ||
	       policy->walltime == LOC_WALLTIME_COMBO ||
	       policy->walltime == LOC_WALLTIME_ADJEST;
}

double loc__policy_sl_tolerance(const loc_policy_t *policy)
{
	return loc_policy_sl(policy) ? policy->sl_tolerance : 0.0;
}
