/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_sweep.c - the pruned sweep of CompactWait, CompactTolerance,
 * CompactClaims, PlanHold and PlanWindow around the best rows (see
 * rp_advise_sweep.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_advise_sbatch.h"
#include "rp_advise_sweep.h"

/* The steps of the descent, in order. */
enum { STEP_CW, STEP_CT, STEP_CC, STEP_HOLD, STEP_PW, STEP_COUNT };

static const double sweep_ct[] = { 0.1, 0.2, 0.35 };
static const int sweep_cc[] = { 0, 16 };

static int _cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The q-quantile (nearest rank) of the sorted v[n], n >= 1. */
static int64_t _quantile(const int64_t *v, int n, double q)
{
	int i = (int)ceil(q * n) - 1;

	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* Two significant digits, at least 10 s: values a site would write. */
static int64_t _round2(int64_t v)
{
	int64_t unit = 1;

	if (v < 10)
		return 10;
	while (v / unit >= 100)
		unit *= 10;
	return (v + unit / 2) / unit * unit;
}

/* 0, then each quantile q of run[n], rounded and capped, once each. */
static int _values(int64_t *out, const int64_t *run, int n, const double *q,
		   int nq, int64_t cap)
{
	int k = 0;

	out[k++] = 0;
	for (int i = 0; i < nq && n > 0; i++) {
		int64_t v = _round2(_quantile(run, n, q[i]));
		bool seen = false;

		if (cap > 0 && v > cap)
			v = cap;
		for (int j = 0; j < k; j++)
			seen |= out[j] == v;
		if (!seen && k < RP_SWEEP_MAX_VALUES)
			out[k++] = v;
	}
	return k;
}

void rp_sweep_values(rp_sweep_t *sw, const rp_workload_t *w)
{
	static const double cw_q[] = { 0.10, 0.25, 0.50 };
	static const double pw_q[] = { 0.10, 0.25 };
	int64_t *run = malloc(sizeof(int64_t) * (w->njobs ? w->njobs : 1));
	int64_t *req = malloc(sizeof(int64_t) * (w->njobs ? w->njobs : 1));
	int n = 0;

	sw->ncw = sw->npw = 0;
	sw->cap = 0;
	if (!run || !req) {
		/* no memory for the quantiles: sweep nothing */
		free(run);
		free(req);
		return;
	}
	for (int i = 0; i < w->njobs; i++) {
		run[n] = w->jobs[i].runtime;
		req[n++] = w->jobs[i].request;
	}
	qsort(run, n, sizeof(*run), _cmp_i64);
	qsort(req, n, sizeof(*req), _cmp_i64);
	if (n) {
		sw->cap = _quantile(req, n, 0.5);
		sw->ncw = _values(sw->cw, run, n, cw_q, 3, sw->cap);
		sw->npw = _values(sw->pw, run, n, pw_q, 2, sw->cap);
	}
	free(run);
	free(req);
}

/*
 * The rows one step tries around the kept spec base (whose policy is
 * pol): base with one key changed to each value it does not have yet.
 * Returns the count written to out.
 */
static int _step_specs(const rp_sweep_t *sw, int step, const rp_spec_t *base,
		       const loc_policy_t *pol, rp_spec_t *out)
{
	int n = 0;

	switch (step) {
	case STEP_CW:
		for (int i = 0; i < sw->ncw; i++)
			if (sw->cw[i] != pol->compact_wait) {
				out[n] = *base;
				out[n].keys.values.policy.compact_wait = sw->cw[i];
				loc_conf_overrides_mark(&out[n++].keys,
							LOC_KEY_COMPACT_WAIT);
			}
		break;
	case STEP_CT:
		/* without a wait the tolerance judges nothing */
		for (int i = 0; pol->compact_wait > 0 && i < 3; i++)
			if (fabs(sweep_ct[i] - pol->compact_tolerance) > 1e-9) {
				out[n] = *base;
				out[n].keys.values.policy.compact_tolerance =
					sweep_ct[i];
				loc_conf_overrides_mark(&out[n++].keys,
							LOC_KEY_COMPACT_TOL);
			}
		break;
	case STEP_CC:
		/* claims are made only by jobs that wait */
		for (int i = 0; pol->compact_wait > 0 && i < 2; i++)
			if (sweep_cc[i] != pol->compact_claims) {
				out[n] = *base;
				out[n].keys.values.policy.compact_claims =
					sweep_cc[i];
				loc_conf_overrides_mark(&out[n++].keys,
							LOC_KEY_COMPACT_CLAIMS);
			}
		break;
	case STEP_HOLD:
		for (int h = 0; h < LOC_PLAN_HOLD_COUNT; h++)
			if (h != (int)pol->plan_hold) {
				out[n] = *base;
				out[n].keys.values.policy.plan_hold =
					(loc_plan_hold_t)h;
				loc_conf_overrides_mark(&out[n++].keys,
							LOC_KEY_PLAN_HOLD);
			}
		break;
	default:
		for (int i = 0; i < sw->npw; i++)
			if (sw->pw[i] != pol->plan_window) {
				out[n] = *base;
				out[n].keys.values.policy.plan_window = sw->pw[i];
				loc_conf_overrides_mark(&out[n++].keys,
							LOC_KEY_PLAN_WINDOW);
			}
	}
	return n;
}

/* The index of the row of spec sp in set, or -1. */
static int _find(const rp_rowset_t *set, const rp_spec_t *sp)
{
	char name[96];

	rp_spec_name(sp, name, sizeof(name));
	for (int r = 0; r < set->nrows; r++)
		if (!strcmp(set->rows[r].name, name))
			return r;
	return -1;
}

/* Forgets the rows from first on (replayed or not). */
static void _drop_rows(rp_rowset_t *set, int first)
{
	for (int r = first; r < set->nrows; r++) {
		rp_row_free(&set->rows[r]);
		memset(&set->rows[r], 0, sizeof(set->rows[r]));
	}
	set->nrows = first;
}

/*
 * Adds and replays the n specs of tries. A row the replay cannot run
 * (its invariant check fails) is dropped and counted in sw, not fatal:
 * the advice stands on the rows that ran. Returns 0 or the LOC_E* code
 * of anything else (memory).
 */
static int _replay_tries(rp_sweep_t *sw, rp_rowset_t *set,
			 const rp_spec_t *tries, int n, const rp_opts_t *o,
			 const rp_input_t *in, loc_error_t *err)
{
	int first = set->nrows, rc;

	for (int i = 0; i < n; i++)
		if (rp_rowset_add(set, &tries[i], NULL) == -2)
			sw->full++;
	if (set->nrows == first)
		return 0;
	rc = rp_advise_run_rows(set, first, o, in, err);
	if (!rc)
		return 0;
	if (rc == LOC_ENOMEM)
		return rc;
	/* one row broke the batch: replay them one by one, keep the good */
	_drop_rows(set, first);
	for (int i = 0; i < n; i++) {
		loc_error_t one = { 0 };
		int r = rp_rowset_add(set, &tries[i], NULL);

		if (r < 0)
			continue;
		rc = rp_advise_run_rows(set, r, o, in, &one);
		if (rc == LOC_ENOMEM) {
			*err = one;
			return rc;
		}
		if (rc) {
			if (!sw->dropped++)
				snprintf(sw->dropped_why,
					 sizeof(sw->dropped_why), "%s",
					 one.text);
			_drop_rows(set, r);
		}
	}
	return 0;
}

int rp_advise_sweep(rp_sweep_t *sw, rp_advice_t *adv, rp_rowset_t *set,
		    int current_row, const rp_opts_t *o, const rp_input_t *in,
		    loc_error_t *err)
{
	const loc_conf_t *conf = in->m->conf;
	rp_opts_t quiet = *o;
	int kept[RP_SWEEP_SEEDS], before = set->nrows, rc;

	memset(sw, 0, sizeof(*sw));
	rp_sweep_values(sw, in->w);
	/* one progress bar for the main replay is enough: steps are short */
	quiet.progress = 0;
	for (int r = 0; r < adv->nrows && sw->nseeds < RP_SWEEP_SEEDS; r++)
		if (adv->rows[r].rank > 0) {
			kept[sw->nseeds] = (int)(adv->rows[r].spec - set->specs);
			snprintf(sw->seed[sw->nseeds], sizeof(sw->seed[0]), "%s",
				 adv->rows[r].row->name);
			sw->nseeds++;
		}
	/* cons_tres windows the running jobs' ends itself (30 s, doubling):
	 * topology/locality cannot honour a PlanWindow. */
	sw->window_key = !o->topology_site;
	/* select/locality makes no claims. */
	sw->claims_key = o->topology_site;
	for (int step = 0; step < STEP_COUNT; step++) {
		rp_spec_t tries[RP_SWEEP_SEEDS * RP_SWEEP_MAX_VALUES];
		int ntries[RP_SWEEP_SEEDS], n = 0, first = set->nrows;

		if ((!sw->window_key && step == STEP_PW) ||
		    (!sw->claims_key && step == STEP_CC))
			continue;

		for (int s = 0; s < sw->nseeds; s++) {
			loc_policy_t pol;

			rp_spec_policy(&set->specs[kept[s]], o, conf, &pol);
			ntries[s] = _step_specs(sw, step, &set->specs[kept[s]],
						&pol, tries + n);
			n += ntries[s];
		}
		rc = _replay_tries(sw, set, tries, n, &quiet, in, err);
		if (rc)
			return rc;
		if (set->nrows == first)
			continue;
		rc = rp_advise_rank(adv, set, current_row, o->objective,
				    o->max_wait_ratio, in->m->nnodes,
				    o->loc_le);
		if (rc)
			return loc_error_set(err, rc, NULL, 0,
					     "cannot rank the rows");
		/* keep each descent's best by the advice's own ranking: the
		 * first row in rank order that is the kept one or its tries */
		for (int s = 0, at = 0; s < sw->nseeds; at += ntries[s++]) {
			int members[RP_SWEEP_MAX_VALUES + 1], nm = 0;
			bool found = false;

			members[nm++] = kept[s];
			for (int i = 0; i < ntries[s]; i++) {
				int r = _find(set, &tries[at + i]);

				if (r >= 0)
					members[nm++] = r;
			}
			for (int r = 0; r < adv->nrows && !found; r++) {
				const rp_spec_t *sp = adv->rows[r].spec;

				for (int m = 0; sp && m < nm && !found; m++)
					if (sp == &set->specs[members[m]]) {
						kept[s] = members[m];
						found = true;
					}
			}
		}
	}
	for (int s = 0; s < sw->nseeds; s++)
		snprintf(sw->kept[s], sizeof(sw->kept[0]), "%s",
			 set->rows[kept[s]].name);
	sw->added = set->nrows - before;
	return 0;
}

/* "a,b,c" of n values into buf. */
static void _list(char *buf, size_t len, const int64_t *v, int n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%lld",
				       i ? "," : "", (long long)v[i]);
}

void rp_sweep_print(FILE *f, const rp_sweep_t *sw)
{
	char cw[128], pw[128];

	if (!sw->nseeds) {
		fprintf(f, "\nsweep: no candidate row to sweep around\n");
		return;
	}
	_list(cw, sizeof(cw), sw->cw, sw->ncw);
	_list(pw, sizeof(pw), sw->pw, sw->npw);
	fprintf(f,
		"\nsweep: %d row%s added around %s%s%s, one key at a time "
		"(coordinate descent), keeping the best by the ranking after "
		"each step:\n"
		"  CompactWait %s s (0 and the 10th/25th/50th percentiles of "
		"run times, 2 significant digits, capped by the median "
		"requested limit %lld s);\n"
		"  CompactTolerance 0.1,0.2,0.35 when that CompactWait > 0%s",
		sw->added, sw->added == 1 ? "" : "s", sw->seed[0],
		sw->nseeds > 1 ? " and " : "", sw->nseeds > 1 ? sw->seed[1] : "",
		cw, (long long)sw->cap,
		sw->claims_key ? "; CompactClaims 0,16 when it is > 0" : "");
	fputs("; PlanHold placement,released", f);
	if (sw->window_key)
		fprintf(f, "; PlanWindow %s s (0 and the 10th/25th percentiles "
			   "of run times)\n",
			pw);
	else
		fputs("; not PlanWindow (--plugin topology: cons_tres's "
		      "backfill windows the running jobs' ends itself)\n",
		      f);
	for (int s = 0; s < sw->nseeds; s++)
		fprintf(f, "  kept from %s: %s\n", sw->seed[s], sw->kept[s]);
	if (sw->dropped)
		fprintf(f, "  %d row%s dropped: the replay's invariant check "
			"failed (%s)\n",
			sw->dropped, sw->dropped == 1 ? "" : "s",
			sw->dropped_why);
	if (sw->full)
		fprintf(f, "  %d row%s not tried: at most %d rows\n", sw->full,
			sw->full == 1 ? "" : "s", MAX_ROWS);
}
