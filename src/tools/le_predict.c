/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le_predict.c - the core's answers for a described state, which the
 * integration tests require of the plugin in a real slurmctld:
 *   --predict  the nodes a job gets now (job_test RUN_NOW);
 *   --plan     when and where it could start if the running jobs end when
 *              expected (WILL_RUN, sbatch --test-only): loc_plan.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "le.h"

/* ---------------------------------------------------------------------- */
/* --predict                                                              */
/* ---------------------------------------------------------------------- */

/* Each node's weight from --node-weight NODES=W (others weigh 1, Slurm's
 * default) into tiers, as the plugin reads them from slurm.conf. */
static void _weights(const model_t *mo, const opts_t *o,
		     const name_index_t *ix, uint64_t *weight,
		     loc_tiers_t *tiers)
{
	int nn = loc_grid_nnodes(mo->grid);
	loc_error_t err;

	for (int i = 0; i < nn; i++)
		weight[i] = 1;
	for (int i = 0; i < o->nweights; i++) {
		loc_hostlist_t hl;
		uint64_t w;

		loc_error_clear(&err);
		if (loc_tiers_parse_weight(o->weights[i], &hl, &w, &err))
			le_die("--node-weight: %s", err.text);
		for (int k = 0; k < hl.count; k++) {
			int v = le_index_find(ix, hl.names[k]);

			if (v < 0)
				le_die("--node-weight '%s': '%s' is not a "
				       "node of the machine",
				       o->weights[i], hl.names[k]);
			weight[v] = w;
		}
		loc_hostlist_free(&hl);
	}
	if (loc_tiers_init(tiers, nn, &err))
		le_die_err(&err);
	if (o->nweights && mo->policy.node_weight == LOC_NODE_WEIGHT_TIERS)
		loc_tiers_set(tiers, weight, NULL);
}

int le_predict(const model_t *mo, const opts_t *o)
{
	int nn = loc_grid_nnodes(mo->grid), nreq = 0, rc;
	uint8_t *busy = le_xcalloc((size_t)nn, 1);
	uint8_t *req = le_xcalloc((size_t)nn, 1);
	uint8_t *cand = le_xcalloc((size_t)nn, 1);
	int *required = le_xcalloc((size_t)nn, sizeof(int));
	uint64_t *weight = le_xcalloc((size_t)nn, sizeof(uint64_t));
	loc_tiers_t tiers;
	int *out;
	name_index_t ix;
	loc_alloc_t *alloc;
	loc_request_t rq;
	loc_view_t view;
	loc_error_t err;
	char *hl;

	if (o->k < 1)
		le_die("--predict needs -k K (K >= 1)");
	le_index_build(&ix, &mo->names);
	le_mark_nodes(&ix, o->busy, "--busy", busy);
	le_mark_nodes(&ix, o->required, "--required", req);
	_weights(mo, o, &ix, weight, &tiers);
	for (int i = 0; i < nn; i++) {
		cand[i] = !busy[i];
		if (req[i])
			required[nreq++] = i;
	}
	loc_error_clear(&err);
	alloc = loc_alloc_create(mo->grid, &mo->policy, &err);
	if (!alloc)
		le_die_err(&err);
	memset(&rq, 0, sizeof(rq));
	rq.nodes = o->k;
	rq.required = nreq ? required : NULL;
	rq.nrequired = nreq;
	rq.contiguous = o->contiguous;
	memset(&view, 0, sizeof(view));
	view.candidate = cand;
	out = le_xcalloc((size_t)o->k, sizeof(int));
	rc = loc_tiers_select(&tiers, alloc, &rq, cand, &view, out, NULL, &err);
	if (rc) {
		fprintf(stderr, PROG ": no placement for %d nodes: %s\n", o->k,
			err.text[0] ? err.text : loc_strerror(rc));
	} else {
		hl = le_compress(mo, out, o->k);
		printf("%s\n", hl);
		free(hl);
	}
	loc_alloc_destroy(alloc);
	le_index_free(&ix);
	loc_tiers_fini(&tiers);
	free(weight);
	free(out);
	free(required);
	free(cand);
	free(req);
	free(busy);
	return rc ? 1 : 0;
}

/* ---------------------------------------------------------------------- */
/* --plan                                                                 */
/* ---------------------------------------------------------------------- */

/* The described state: nodes by running job, candidates projected. */
typedef struct plan_state {
	const model_t *mo;
	loc_alloc_t *alloc;
	int k;
	uint8_t *cand;
	uint8_t *cand_now; /* the candidates as of now (PlanHold=released) */
	int **jnodes;     /* running job -> its nodes */
	int *jn;
	int64_t *ends;
	int64_t now, eligible;
	int64_t reference; /* CompactWait: total hops on the idle machine */
} plan_state_t;

static int _plan_place(void *arg, int64_t t, int *out, int *k)
{
	plan_state_t *ps = arg;
	loc_request_t rq = { .nodes = ps->k };
	loc_view_t view = { .candidate = ps->cand, .now = t };
	loc_error_t err;

	*k = ps->k;
	return loc_alloc_select(ps->alloc, &rq, &view, out, &err);
}

/* PlanHold=released: the job on the nodes released since now alone. */
static int _plan_place_released(void *arg, int64_t t, int *out, int *k)
{
	plan_state_t *ps = arg;
	int nn = loc_grid_nnodes(ps->mo->grid);
	int left = loc_plan_narrow_to_released(ps->cand, ps->cand_now, nn);
	int rc = left >= ps->k ? _plan_place(ps, t, out, k) : LOC_ENOFIT;

	loc_plan_unnarrow(ps->cand, ps->cand_now, nn);
	return rc;
}

static int _plan_release(void *arg, int i)
{
	plan_state_t *ps = arg;
	int n = 0;

	for (int q = 0; q < ps->jn[i]; q++) {
		n += !ps->cand[ps->jnodes[i][q]];
		ps->cand[ps->jnodes[i][q]] = 1;
	}
	return n;
}

static int _plan_declines(void *arg, const int *out, int k, int64_t t)
{
	plan_state_t *ps = arg;
	int64_t hops = loc_metrics_total_pair_hops(ps->mo->grid, out, k);

	(void)t;
	return loc_patience_defer(&ps->mo->policy, k, hops, ps->reference,
				  ps->now - ps->eligible);
}

static void _plan_state_free(plan_state_t *ps, int nrunning)
{
	for (int i = 0; i < nrunning; i++)
		free(ps->jnodes[i]);
	free(ps->jnodes);
	free(ps->jn);
	free(ps->ends);
	free(ps->cand);
	free(ps->cand_now);
}

/* Parses an --at-style time for option what: epoch seconds or local
 * YYYY-MM-DDTHH:MM:SS. */
static int64_t _time_arg(const char *what, const char *text)
{
	int64_t t = le_parse_time(text);

	if (t == NO_TIME)
		le_die("%s: bad time '%s'", what, text);
	return t;
}

int le_plan(const model_t *mo, const opts_t *o)
{
	int nn = loc_grid_nnodes(mo->grid), rc;
	plan_state_t ps = { .mo = mo, .k = o->k };
	uint8_t *down;  /* never free (--busy) */
	uint8_t *held;  /* by a running job */
	uint8_t *taken; /* by the --running entry being read */
	int *out;
	loc_plan_request_t req;
	loc_plan_answer_t ans;
	loc_plan_ops_t ops = { .place = _plan_place,
			       .release = _plan_release };
	loc_planner_t *planner;
	name_index_t ix;
	loc_error_t err;
	const char *culprit = NULL;
	int conflict = LOC_NONE;
	char why[512] = "";
	char *hl;

	if (o->k < 1)
		le_die("--plan needs -k K (K >= 1)");
	/* Syntax first, before anything is allocated. */
	for (int i = 0; i < o->nrunning; i++) {
		const char *at = strrchr(o->running[i], '@');

		if (!at || at == o->running[i])
			le_die("--running '%s': expected NODES@END", o->running[i]);
		(void)_time_arg("--running", at + 1);
	}
	ps.now = o->now ? _time_arg("--now", o->now) : (int64_t)time(NULL);
	ps.eligible = o->eligible ? _time_arg("--eligible", o->eligible) :
				    ps.now;
	down = le_xcalloc((size_t)nn, 1);
	held = le_xcalloc((size_t)nn, 1);
	taken = le_xcalloc((size_t)nn, 1);
	out = le_xcalloc((size_t)nn, sizeof(int));
	le_index_build(&ix, &mo->names);
	le_mark_nodes(&ix, o->busy, "--busy", down);
	ps.cand = le_xcalloc((size_t)nn, 1);
	ps.cand_now = le_xcalloc((size_t)nn, 1);
	ps.jnodes = le_xcalloc((size_t)o->nrunning + 1, sizeof(int *));
	ps.jn = le_xcalloc((size_t)o->nrunning + 1, sizeof(int));
	ps.ends = le_xcalloc((size_t)o->nrunning + 1, sizeof(int64_t));
	for (int i = 0; i < o->nrunning && conflict == LOC_NONE; i++) {
		const char *at = strrchr(o->running[i], '@');
		char *expr;

		expr = le_xstrdup(o->running[i]);
		expr[at - o->running[i]] = '\0';
		memset(taken, 0, (size_t)nn);
		le_mark_nodes(&ix, expr, "--running", taken);
		free(expr);
		ps.ends[i] = _time_arg("--running", at + 1);
		ps.jnodes[i] = le_xcalloc((size_t)nn, sizeof(int));
		for (int v = 0; v < nn; v++) {
			if (!taken[v])
				continue;
			if (down[v] || held[v]) {
				conflict = v;
				break;
			}
			held[v] = 1;
			ps.jnodes[i][ps.jn[i]++] = v;
		}
		if (conflict != LOC_NONE)
			culprit = o->running[i];
	}
	if (conflict != LOC_NONE) {
		/* Reported after the cleanup below, so that the sanitizers
		 * see no leak. */
		snprintf(why, sizeof(why), "--running '%s': node %s is also "
			 "--busy or in an earlier job", culprit,
			 mo->names.names[conflict]);
		rc = -1;
		goto done;
	}
	loc_error_clear(&err);
	ps.alloc = loc_alloc_create(mo->grid, &mo->policy, &err);
	planner = ps.alloc ? loc_planner_create(nn, &err) : NULL;
	if (!planner)
		le_die_err(&err);
	if (mo->policy.compact_wait > 0) {
		/* The reference: the job on every node --busy leaves. */
		for (int v = 0; v < nn; v++)
			ps.cand[v] = !down[v];
		if (_plan_place(&ps, ps.now, out, &rc) == 0)
			ps.reference = loc_metrics_total_pair_hops(mo->grid,
								   out, ps.k);
		ops.declines = _plan_declines;
	}
	for (int v = 0; v < nn; v++)
		ps.cand[v] = !down[v] && !held[v];
	req = (loc_plan_request_t){
		.now = ps.now,
		.ends = ps.ends,
		.nrunning = o->nrunning,
		.ncand = 0,
		.need = ps.k,
		.deadline = loc_patience_deadline(&mo->policy, ps.eligible),
		.window = mo->policy.plan_window,
	};
	for (int v = 0; v < nn; v++)
		req.ncand += ps.cand[v];
	memcpy(ps.cand_now, ps.cand, (size_t)nn);
	if (mo->policy.plan_hold == LOC_PLAN_HOLD_RELEASED)
		ops.place_released = _plan_place_released;
	rc = loc_plan_earliest(planner, &req, &ops, &ps, out, &ans, &err);
	if (rc == LOC_ENOFIT && ans.waiting) {
		/* No start to reserve: it takes a compact set when one is
		 * free, or what is free at its deadline. */
		printf("waiting %lld\n", (long long)req.deadline);
		rc = 0;
	} else if (rc) {
		fprintf(stderr, PROG ": no start for %d nodes: %s\n", ps.k,
			err.text[0] ? err.text : loc_strerror(rc));
	} else {
		hl = le_compress(mo, out, ans.k);
		printf("%lld %s%s\n", (long long)ans.start, hl,
		       ans.declined ? " declined" : "");
		free(hl);
	}
	loc_planner_destroy(planner);
	loc_alloc_destroy(ps.alloc);
done:
	_plan_state_free(&ps, o->nrunning);
	le_index_free(&ix);
	free(out);
	free(taken);
	free(held);
	free(down);
	if (why[0])
		le_die("%s", why);
	return rc ? 1 : 0;
}
