/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_compact_wait.c - the Slurm side of CompactWait shared by both
 * plugins (sl_compact_wait.h): the start of a job's wait, the nodes its
 * reference is made on, and the reference's cache.
 */
#include "sl_compact_wait.h"
#include "sl_gres.h"

#include "loc_metrics.h"
#include "loc_patience.h"

/* A job's last offer and restarts, which job_record_t has no field for:
 * kept by job id, a collision or a restarted slurmctld forgetting them
 * (the job then never begins again, the bound kept). slurmctld judges
 * placements under its job write lock. */
#define SL_OFFER_SLOTS 4096

static struct {
	uint32_t job_id;
	int64_t offered;
	int restarts;
} _offers[SL_OFFER_SLOTS];

int64_t sl_compact_wait_began(const loc_policy_t *policy,
			      job_record_t *job, int64_t now,
			      bool offered_now)
{
	time_t eligible = job->details ? job->details->begin_time : 0;
	/* A wait that began before the job became eligible is an earlier
	 * life's: slurmctld moves begin_time past the requeue when it
	 * requeues a job (and an updated BeginTime restarts it too). */
	loc_patience_t p = LOC_PATIENCE_INIT;
	int slot = job->job_id % SL_OFFER_SLOTS;
	int64_t t;

	if (job->wait4switch_start && job->wait4switch_start >= eligible) {
		p.began = (int64_t)job->wait4switch_start;
		if (_offers[slot].job_id == job->job_id) {
			p.offered = _offers[slot].offered;
			p.restarts = _offers[slot].restarts;
		}
	}
	t = loc_patience_began(policy, &p, now, offered_now);
	if (p.began != LOC_PATIENCE_UNSET)
		job->wait4switch_start = (time_t)p.began;
	if (offered_now) {
		_offers[slot].job_id = job->job_id;
		_offers[slot].offered = p.offered;
		_offers[slot].restarts = p.restarts;
	}
	return t;
}

/* Slurm's list of features and the nodes where each is active: in
 * slurmctld alone (22.05's read_config.c), so weak where a client loads
 * the plugin. */
#pragma weak active_feature_list

static int _feature_named(void *x, void *name)
{
	return !xstrcmp(((node_feature_t *)x)->name, name);
}

#define SL_MAX_FEATURES 16

/*
 * Clears set[] where the node's active features do not satisfy the job's
 * constraint (--constraint, or --prefer while slurmctld tries it: the
 * list it schedules with, as valid_feature_counts() picks it). Only a
 * plain list is read: features joined by '&' alone or by '|' alone,
 * without counts, brackets, parentheses or changeable features, whose
 * meaning is the set slurmctld offers. Anything else returns false with
 * set[] untouched.
 */
static bool _narrow_to_features(const sl_machine_t *m, job_record_t *job,
				uint8_t *set)
{
	job_details_t *details = job->details;
	List wanted = details->features_use ? details->feature_list_use :
					       details->feature_list;
	bitstr_t *with[SL_MAX_FEATURES];
	int nfeat = 0, op = -1;
	ListIterator it;
	job_feature_t *f;
	bool plain = true;

	if (!wanted || !&active_feature_list || !active_feature_list)
		return false;
	it = list_iterator_create(wanted);
	while (plain && (f = list_next(it))) {
		node_feature_t *nf;

		if (f->count || SL_FEATURE_BRACKETED(f) || f->paren ||
		    f->changeable || nfeat == SL_MAX_FEATURES) {
			plain = false;
			break;
		}
		if (f->op_code != FEATURE_OP_END) {
			if ((f->op_code != FEATURE_OP_AND &&
			     f->op_code != FEATURE_OP_OR) ||
			    (op >= 0 && f->op_code != op))
				plain = false;
			op = f->op_code;
		}
		nf = list_find_first(active_feature_list, _feature_named,
				     f->name);
		with[nfeat++] = nf ? nf->node_bitmap : NULL;
	}
	list_iterator_destroy(it);
	if (!plain || !nfeat)
		return false;
	for (int g = 0; g < m->ncore; g++) {
		int i = m->to_slurm[g];
		bool any = false, all = true;

		if (!set[g])
			continue;
		for (int j = 0; j < nfeat; j++) {
			bool has = with[j] && bit_test(with[j], i);

			any |= has;
			all &= has;
		}
		set[g] = op == FEATURE_OP_OR ? any : all;
	}
	return true;
}

bool sl_compact_wait_reference_set(const sl_machine_t *m, job_record_t *job,
				   uint8_t *set)
{
	bitstr_t *part = job->part_ptr->node_bitmap;
	bitstr_t *excluded = job->details->exc_node_bitmap;
	bitstr_t *resv = job->resv_ptr ? job->resv_ptr->node_bitmap : NULL;
	int first = bit_ffs(part), last = bit_fls(part);
	sl_gres_wants_t gres;

	memset(set, 0, m->ncore);
	sl_gres_wants_read(job, &gres);
	/* bit_ffs/bit_fls: 22.05 has no next_node_bitmap(). */
	for (int i = first; first >= 0 && i <= last; i++) {
		node_record_t *node;
		int g;

		if (!bit_test(part, i) || i >= m->nslurm ||
		    (g = m->to_core[i]) < 0 ||
		    !(node = node_record_table_ptr[i]))
			continue;
		if (!sl_node_usable(node, i, false) ||
		    (excluded && bit_test(excluded, i)) ||
		    (resv && !bit_test(resv, i)) ||
		    !sl_node_holds_job_mem(job, node) ||
		    !sl_gres_node_serves(node, &gres))
			continue;
		set[g] = 1;
	}
	sl_gres_wants_free(&gres);
	if (!job->details->features && !job->details->features_use)
		return true;
	return _narrow_to_features(m, job, set);
}

/* The cache's key: FNV-1a over what the reference depends on. */
static uint64_t _ref_key(const sl_machine_t *m, const void *alloc, int k)
{
	uint64_t h = 1469598103934665603ULL;

	h = (h ^ (uint64_t)(uintptr_t)alloc) * 1099511628211ULL;
	h = (h ^ (uint64_t)k) * 1099511628211ULL;
	for (int g = 0; g < m->ncore; g++)
		h = (h ^ (m->ref.set[g] ? m->ref.weight[g] + 1 : 0)) *
		    1099511628211ULL;
	return h;
}

int64_t sl_compact_wait_reference(sl_machine_t *m, const void *alloc,
				  const loc_policy_t *policy, int k,
				  sl_reference_place_f place, void *arg)
{
	uint64_t key = _ref_key(m, alloc, k);
	sl_ref_t *slot = &m->refs[key % SL_REF_SLOTS];
	int64_t hops = 0;

	if (slot->key == key && slot->k == k)
		return slot->hops;
	if (policy->node_weight == LOC_NODE_WEIGHT_TIERS)
		loc_tiers_set(&m->ref.tiers, m->ref.weight, m->ref.set);
	else
		loc_tiers_clear(&m->ref.tiers);
	if (place(arg, m->ref.set, &m->ref.tiers, k, m->ref.out) == 0)
		hops = loc_metrics_total_pair_hops(m->grid, m->ref.out, k);
	slot->key = key;
	slot->k = k;
	slot->hops = hops > 0 ? hops : 0;
	return slot->hops;
}
