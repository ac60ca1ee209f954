/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_place.c - the placement engine of job_test: Slurm's state turned
 * into the core's view over the grid's nodes (usable, busy, held), the
 * node counts Slurm means (the desired count first, then fewer down to
 * min_nodes, never more than max_nodes, enough CPUs for min_cpus), weight
 * tiers, and one loc_alloc_select() per attempt. The modes that use it
 * are in sl_modes.c.
 */
#include "sl_ctx.h"
#include "sl_gres.h"

#include "loc_metrics.h"
#include "loc_size.h"

void sl_ctx_init(sl_ctx_t *c, sl_machine_t *m, sl_ledger_t *l,
		 job_record_t *job, uint16_t mode)
{
	sl_scratch_t *s = &m->scratch;
	int n = m->ncore;

	memset(c, 0, sizeof(*c));
	c->m = m;
	c->l = l;
	c->job = job;
	c->mode = mode;
	c->now = time(NULL);
	if (!s->ok) {
		s->ok = xcalloc(n, sizeof(uint8_t));
		s->cand = xcalloc(n, sizeof(uint8_t));
		s->held = xcalloc(n, sizeof(uint8_t));
		s->busy = xcalloc(n, sizeof(int64_t));
		s->req = xcalloc(n, sizeof(int));
		s->out = xcalloc(n, sizeof(int));
		s->weight = xcalloc(n, sizeof(uint64_t));
		s->unheld = xcalloc(n, sizeof(uint8_t));
		s->in_hold = xcalloc(n, sizeof(uint8_t));
		s->late = xcalloc(n, sizeof(uint8_t));
		s->cand_now = xcalloc(n, sizeof(uint8_t));
		s->cpus = xcalloc(n, sizeof(*s->cpus));
		s->node_cpus = xcalloc(n, sizeof(*s->node_cpus));
		s->aside = xcalloc(n, sizeof(*s->aside));
		/* Out of memory here is fatal, as it is for xcalloc. */
		if (loc_tiers_init(&s->tiers, n, &c->err))
			fatal("%s: %s", plugin_type, c->err.text);
	}
	/* The arrays read before they are written start clear. */
	memset(s->ok, 0, n);
	memset(s->cand, 0, n);
	memset(s->held, 0, n);
	memset(s->busy, 0, n * sizeof(int64_t));
	c->ok = s->ok;
	c->cand = s->cand;
	c->held = s->held;
	c->busy = s->busy;
	c->req = s->req;
	c->out = s->out;
	c->weight = s->weight;
	c->tiers = &s->tiers;
	loc_tiers_clear(c->tiers); /* until sl_ctx_fill_ok() sets them */
}


/*
 * Whether node has the memory job asks for, as select/linear decides it:
 * only when memory is a consumable resource (SelectTypeParameters with
 * CR_Memory), and then for every CPU of the whole node. Without CR_Memory
 * slurmctld has already matched the request against each node's
 * RealMemory (per CPU: the per-CPU figure alone, job_req_node_filter()),
 * and a job asking --mem-per-cpu runs wherever that holds.
 */
static bool _mem_ok(job_record_t *job, node_record_t *node)
{
	if (!(slurm_conf.select_type_param & CR_MEMORY))
		return true;
	return sl_node_holds_job_mem(job, node);
}

/*
 * A node's place in Slurm's order of use: its Weight, shifted left by 8
 * bits, as slurmctld's node sets order them. Just before a RUN_NOW or
 * TEST_ONLY test slurmctld copies each set's full sort key into
 * sched_weight (_sync_node_weight, node_scheduler.c), with high bits for
 * nodes that must boot first or lie outside the job's flex reservation;
 * backfill's WILL_RUN calls skip that copy, so the value may belong to an
 * earlier job there and the configured Weight is used instead.
 */
static uint64_t _sched_weight(node_record_t *node, bool synced)
{
	if (synced && node->sched_weight)
		return node->sched_weight;
	return ((uint64_t)node->weight << 8) | 0xff;
}

/*
 * Fills ok[] from Slurm's candidate bitmap: what slurmctld passed
 * (partition, features, reservations, --exclude already applied), minus
 * nodes whose state or memory rules them out, and those not configured
 * with the GRES the job asks of each node, or (RUN_NOW) whose GRES a
 * suspended job holds: slurmctld leaves GRES to the select plugin
 * (select/linear tests them in its job_test). TEST_ONLY
 * asks whether the job could ever run, so current state does not count
 * there.
 */
void sl_ctx_fill_ok(sl_ctx_t *c, bitstr_t *bitmap)
{
	job_record_t *job = c->job;
	bitstr_t *exc = job->details->exc_node_bitmap;
	int first = bit_ffs(bitmap), last = bit_fls(bitmap);
	bool test_only = (c->mode & SELECT_MODE_BASE) == SELECT_MODE_TEST_ONLY;
	bool run_now = (c->mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW;
	bool parked = run_now && sl_devices_any_suspended();
	sl_gres_wants_t gres;

	sl_gres_wants_read(job, &gres);
	for (int i = first; first >= 0 && i <= last; i++) {
		node_record_t *node;
		int g;

		if (!bit_test(bitmap, i) || i >= c->m->nslurm)
			continue;
		if ((g = c->m->to_core[i]) < 0 ||
		    !(node = node_record_table_ptr[i]))
			continue;
		if (exc && i < bit_size(exc) && bit_test(exc, i))
			continue;
		if (!_mem_ok(job, node) || !sl_gres_node_serves(node, &gres))
			continue;
		/* A suspended job's devices (sl_devices.c): busy now; a
		 * plan counts them free from its end (sl_modes.c). For every
		 * job, not only GPU ones: slurmctld gives a whole-node job
		 * all the devices of its nodes. */
		if (parked && sl_gres_node_in_use(node))
			continue;
		if (!test_only && !sl_node_usable(node, i, run_now))
			continue;
		c->ok[g] = 1;
		c->weight[g] = _sched_weight(node, run_now || test_only);
	}
	sl_gres_wants_free(&gres);
	if (c->policy->node_weight == LOC_NODE_WEIGHT_TIERS)
		loc_tiers_set(c->tiers, c->weight, c->ok);
	else
		loc_tiers_clear(c->tiers);
}

/*
 * The nodes the CompactWait reference is made on (sl_compact.c), in
 * m->ref.set, with their weights: sl_compact_wait_reference_set(),
 * whatever this call offers. A job with no partition, or with a
 * constraint only slurmctld evaluates, keeps the offered set: its
 * reference is then the best of what it is offered, so it takes it.
 * Offered nodes keep this call's weight, the others their configured
 * Weight.
 */
void sl_ctx_fill_reference_set(sl_ctx_t *c)
{
	sl_ref_scratch_t *ref = &c->m->ref;

	if (!c->job->part_ptr ||
	    !sl_compact_wait_reference_set(c->m, c->job, ref->set))
		memcpy(ref->set, c->ok, c->m->ncore);
	for (int g = 0; g < c->m->ncore; g++) {
		if (!ref->set[g])
			continue;
		ref->weight[g] = c->ok[g] ?
			c->weight[g] :
			_sched_weight(node_record_table_ptr[c->m->to_slurm[g]],
				      false);
	}
}

/* Fills held[] and busy[] from the ledger and cand[] = ok minus held. */
void sl_ctx_fill_busy(sl_ctx_t *c)
{
	sl_ledger_busy(c->l, c->m, c->now, c->held, c->busy);
	for (int g = 0; g < c->m->ncore; g++)
		c->cand[g] = c->ok[g] && !c->held[g];
}

/* Clears candidates held by PF for other jobs (soft: expires, and never
 * against a job of higher priority than the partner). The filter reads
 * the candidates whole while it writes (a job's own region is reopened
 * from them), so it writes into scratch.unheld, this step's alone. */
void sl_ctx_apply_holds(sl_ctx_t *c)
{
	uint8_t *unheld = c->m->scratch.unheld;

	if (!c->m->holds || !c->job)
		return;
	sl_pf_drop_departed(c->m);
	loc_holds_expire(c->m->holds, c->now);
	memset(unheld, 0, c->m->ncore);
	loc_holds_filter(c->m->holds, c->job->job_id, c->job->priority,
			 c->now, c->cand, unheld);
	memcpy(c->cand, unheld, c->m->ncore);
}

int sl_count(const uint8_t *v, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += v[i] ? 1 : 0;
	return s;
}

/*
 * Sets lo/want/hi, the node counts to try, and the required nodes.
 * Returns false when the job can never fit in ok[].
 */
bool sl_ctx_counts(sl_ctx_t *c, uint32_t min_nodes, uint32_t max_nodes,
		   uint32_t req_nodes)
{
	job_details_t *d = c->job->details;
	int nok = sl_count(c->ok, c->m->ncore), kcpu;
	uint32_t *cpus = c->m->scratch.cpus;

	c->nreq = 0;
	if (d->req_node_bitmap) {
		int first = bit_ffs(d->req_node_bitmap);
		int last = bit_fls(d->req_node_bitmap);

		for (int i = first; first >= 0 && i <= last; i++) {
			int g;

			if (!bit_test(d->req_node_bitmap, i))
				continue;
			if (i >= c->m->nslurm || (g = c->m->to_core[i]) < 0 ||
			    !c->ok[g])
				return false; /* a required node is unusable */
			c->req[c->nreq++] = g;
		}
	}
	c->contiguous = d->contiguous != 0;
	c->min_cpus = d->min_cpus == NO_VAL ? 0 : d->min_cpus;

	/* The fewest usable nodes that can hold min_cpus. */
	for (int g = 0, n = 0; g < c->m->ncore; g++)
		if (c->ok[g])
			cpus[n++] = sl_node_cpus(c->m->to_slurm[g]);
	kcpu = loc_fewest_covering(cpus, nok, c->min_cpus);
	if (kcpu > nok)
		return false;

	c->hi = (max_nodes && max_nodes != NO_VAL) ? (int)MIN(max_nodes,
							       INT32_MAX) :
						     c->m->ncore;
	c->lo = MAX((int)min_nodes, 1);
	c->lo = MAX(c->lo, c->nreq);
	c->lo = MAX(c->lo, kcpu);
	c->want = MAX((int)MIN(req_nodes, INT32_MAX), c->lo);
	c->want = MIN(c->want, c->hi);
	c->hi = MIN(c->hi, c->m->ncore);
	return c->lo <= c->hi && c->lo <= nok;
}

uint64_t sl_ctx_sum_cpus(sl_ctx_t *c, const int *nodes, int k)
{
	uint64_t s = 0;

	for (int i = 0; i < k; i++)
		s += sl_node_cpus(c->m->to_slurm[nodes[i]]);
	return s;
}

/* One core call for k nodes of p's candidates at p's start. */
static int _select(sl_ctx_t *c, sl_place_req_t *p, int k)
{
	loc_view_t view = {
		.candidate = p->cand,
		.busy_until = c->busy,
		.now = p->start,
	};
	loc_request_t req = {
		.nodes = k,
		.required = c->nreq ? c->req : NULL,
		.nrequired = c->nreq,
		.contiguous = c->contiguous,
		.expected_end = c->walltime ? p->start + c->walltime : 0,
	};

	return loc_alloc_select(c->alloc, &req, &view, p->out, p->err);
}

/*
 * The core's k nodes lack the job's CPUs. With more than one kind of node
 * among the candidates, k larger ones may hold them: narrowed to the
 * candidates that hold an even share (loc_size.h), any k the core picks
 * do, and the job does not spread over one node more than it needs, when
 * the set is as compact as CompactTolerance allows over the ideal for k
 * (loc_fewer_nodes_compact()). True with p->out set. Not with required
 * nodes (they count towards the CPUs whatever they hold).
 */
static bool _select_even_share(sl_ctx_t *c, sl_place_req_t *p, int k)
{
	sl_scratch_t *s = &c->m->scratch;
	bool ok;

	if (c->nreq || !c->min_cpus)
		return false;
	for (int g = 0; g < c->m->ncore; g++)
		s->node_cpus[g] = p->cand[g] ? sl_node_cpus(c->m->to_slurm[g]) :
					       0;
	if (loc_narrow_to_even_share(p->cand, s->aside, s->node_cpus,
				     c->m->ncore, c->min_cpus, k) < 0)
		return false;
	ok = !_select(c, p, k) &&
	     sl_ctx_sum_cpus(c, p->out, k) >= c->min_cpus &&
	     loc_fewer_nodes_compact(
		     loc_metrics_total_pair_hops(c->m->grid, p->out, k),
		     sl_ideal_total_hops(c->m, k), c->policy->compact_tolerance);
	loc_unnarrow(p->cand, s->aside, c->m->ncore);
	return ok;
}

/*
 * The set p->out[0..k) covers the job's CPUs, larger than the fewest
 * that could. Of two kinds of node it may hold a node it can spare
 * (loc_drop_one(): the one whose loss leaves the fewest hops); the k - 1
 * left are taken when they still hold the CPUs and are as compact as
 * CompactTolerance allows over the ideal for k - 1, the even share's
 * bar. True with the k - 1 first in p->out. Not with required nodes.
 */
static bool _drop_one(sl_ctx_t *c, sl_place_req_t *p, int k)
{
	uint32_t *cpus = c->m->scratch.node_cpus;
	int64_t hops;
	int j, x;

	if (c->nreq || !c->min_cpus || k < 2)
		return false;
	for (int i = 0; i < k; i++)
		cpus[i] = sl_node_cpus(c->m->to_slurm[p->out[i]]);
	j = loc_drop_one(c->m->grid, p->out, cpus, k, c->min_cpus, &hops);
	if (j < 0 || !loc_fewer_nodes_compact(hops,
					      sl_ideal_total_hops(c->m, k - 1),
					      c->policy->compact_tolerance))
		return false;
	x = p->out[j];
	p->out[j] = p->out[k - 1];
	p->out[k - 1] = x;
	return true;
}

/*
 * Places the job on p->cand[]: the desired count first, then fewer down
 * to lo; if the chosen nodes lack CPUs, k nodes that hold an even share
 * of them, then more nodes up to hi, sparing what nodes such a set can.
 * Returns 0 with p->out / p->k set, LOC_ENOFIT, or another LOC_E* code.
 */
static int _place_counts(sl_ctx_t *c, sl_place_req_t *p)
{
	int ncand = sl_count(p->cand, c->m->ncore), top, rc;
	bool short_cpus = false;

	for (int i = 0; i < c->nreq; i++)
		if (!p->cand[c->req[i]])
			return LOC_ENOFIT;
	top = MIN(p->want, ncand);
	for (int k = top; k >= p->lo; k--) {
		rc = _select(c, p, k);
		if (rc == LOC_ENOFIT)
			continue;
		if (rc)
			return rc;
		if (sl_ctx_sum_cpus(c, p->out, k) >= c->min_cpus ||
		    _select_even_share(c, p, k)) {
			p->k = k;
			return 0;
		}
		short_cpus = true;
	}
	for (int k = MAX(top + 1, p->lo); short_cpus && k <= MIN(p->hi, ncand);
	     k++) {
		rc = _select(c, p, k);
		if (rc == LOC_ENOFIT)
			continue;
		if (rc)
			return rc;
		if (sl_ctx_sum_cpus(c, p->out, k) >= c->min_cpus) {
			while (k > MAX(top, p->lo) && _drop_one(c, p, k))
				k--;
			p->k = k;
			return 0;
		}
		if (_select_even_share(c, p, k)) {
			p->k = k;
			return 0;
		}
	}
	return LOC_ENOFIT;
}

/* loc_tiers_place() calls back with one pointer: the ctx and the request
 * travel together. */
typedef struct place_call {
	sl_ctx_t *c;
	sl_place_req_t *p;
} place_call_t;

static int _place_counts_cb(void *arg)
{
	place_call_t *call = arg;

	return _place_counts(call->c, call->p);
}

sl_place_req_t sl_ctx_request(sl_ctx_t *c, int64_t start, int *out)
{
	sl_place_req_t p = {
		.cand = c->cand,
		.tiers = c->tiers,
		.lo = c->lo,
		.want = c->want,
		.hi = c->hi,
		.start = start,
		.out = out,
		.err = &c->err,
	};

	return p;
}

/* _place_counts() inside the lightest weight tiers first (NodeWeight=
 * tiers, loc_tiers.h: Slurm uses lower Weight first). */
int sl_ctx_place(sl_ctx_t *c, sl_place_req_t *p)
{
	place_call_t call = { .c = c, .p = p };

	return loc_tiers_place(p->tiers, p->cand, c->req, c->nreq, p->want,
			       _place_counts_cb, &call);
}

int sl_ctx_place_decision(sl_ctx_t *c, int64_t start)
{
	sl_place_req_t p = sl_ctx_request(c, start, c->out);
	int rc = sl_ctx_place(c, &p);

	if (rc == 0)
		c->k = p.k;
	return rc;
}

/* Writes the chosen grid nodes into Slurm's bitmap. */
void sl_ctx_to_bitmap(sl_ctx_t *c, bitstr_t *bitmap)
{
	bit_clear_all(bitmap);
	for (int i = 0; i < c->k; i++)
		bit_set(bitmap, c->m->to_slurm[c->out[i]]);
}

/* Frees, in the simulated state, the nodes of ledger job j. Returns how
 * many became candidates. */
int sl_ctx_release(sl_ctx_t *c, sl_ledger_job_t *j)
{
	int first = bit_ffs(j->nodes), last = bit_fls(j->nodes), n = 0;

	for (int i = first; first >= 0 && i <= last; i++) {
		int g;

		if (!bit_test(j->nodes, i) || i >= c->m->nslurm ||
		    (g = c->m->to_core[i]) < 0)
			continue;
		c->busy[g] = 0;
		c->held[g] = 0;
		if (c->ok[g] && !c->cand[g]) {
			c->cand[g] = 1;
			n++;
		}
	}
	return n;
}

static int _find_ptr(void *x, void *key)
{
	return x == key;
}

/* Frees every preemptable job's nodes in the simulated state. Returns
 * how many ledger jobs were released. */
int sl_ctx_release_preemptable(sl_ctx_t *c, List preemptee_candidates)
{
	ListIterator it;
	job_record_t *pj;
	int n = 0;

	if (!preemptee_candidates)
		return 0;
	it = list_iterator_create(preemptee_candidates);
	while ((pj = list_next(it))) {
		sl_ledger_job_t *j = sl_ledger_find(c->l, pj->job_id);

		if (j) {
			sl_ctx_release(c, j);
			n++;
		}
	}
	list_iterator_destroy(it);
	return n;
}

/* Appends to *out_list the preemptable jobs whose nodes the placement
 * uses. */
void sl_ctx_preemptees(sl_ctx_t *c, bitstr_t *chosen,
		       List preemptee_candidates, List *out_list)
{
	ListIterator it;
	job_record_t *pj;

	if (!preemptee_candidates || !out_list)
		return;
	it = list_iterator_create(preemptee_candidates);
	while ((pj = list_next(it))) {
		if (!pj->node_bitmap ||
		    !bit_overlap_any(chosen, pj->node_bitmap))
			continue;
		if (!*out_list)
			*out_list = list_create(NULL);
		if (!list_find_first(*out_list, _find_ptr, pj))
			list_append(*out_list, pj);
	}
	list_iterator_destroy(it);
}

/* The placement line: nodes, count and locality figures. */
void sl_ctx_log_placement(sl_ctx_t *c, bitstr_t *bitmap)
{
	loc_metrics_t met;
	char *names;

	if (get_log_level() < LOG_LEVEL_DEBUG)
		return;
	memset(&met, 0, sizeof(met));
	loc_metrics_compute(c->m->grid, loc_alloc_curve(c->alloc), c->out,
			    c->k, &met);
	names = bitmap2node_name(bitmap);
	debug("%s: %pJ nodes=%s k=%d avg_hops=%.2f span=%d strategy=%s",
	      plugin_type, c->job, names, c->k, met.avg_pair_hops,
	      met.linear_span, loc_strategy_kind_name(c->policy->strategy));
	xfree(names);
}
