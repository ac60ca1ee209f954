/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_noise.c - the advice's top rows under jittered submit times
 * (see rp_advise_noise.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_advise_noise.h"

static double _ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* a row's three ratios to the current's */
static void _ratios(double *out, const rp_summary_t *s,
		    const rp_summary_t *cur, rp_objective_t obj)
{
	out[RP_NOISE_HOPS_X] = _ratio(s->hops.mean, cur->hops.mean);
	out[RP_NOISE_WAIT_X] = _ratio(s->mean_wait_s, cur->mean_wait_s);
	out[RP_NOISE_SCORE_X] = _ratio(rp_advise_score(s, obj), rp_advise_score(cur, obj));
}

int rp_noise_draw(const rp_opts_t *o, const rp_input_t *in, int jitter_s,
		  uint64_t seed, const rp_spec_t *cur,
		  const rp_spec_t *const *specs, int n, const uint8_t *basis,
		  rp_summary_t *out_cur, rp_summary_t *out, loc_error_t *err)
{
	rp_opts_t quiet = *o; /* the ranked replay's bar only */
	rp_input_t jin = *in;
	rp_rowset_t *set;
	uint8_t *ran;
	int idx[RP_NOISE_TOP], cur_idx, rc = LOC_ENOMEM;
	const rp_row_t *crow;

	if (n > RP_NOISE_TOP)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "rp_noise_draw: %d rows, at most %d", n,
				     RP_NOISE_TOP);
	quiet.progress = 0;
	set = rp_rowset_create();
	ran = calloc((size_t)in->trace->njobs + 1, 1);
	jin.w = rp_input_workload(o, in, jitter_s, seed, err);
	if (!set || !jin.w || !ran)
		goto nomem;
	/* the same count as the unjittered workload: the fitted jobs during
	 * a fit (--limit cuts the jittered order, which may swap a job at
	 * the edge) */
	if (jin.w->njobs > in->w->njobs)
		jin.w->njobs = in->w->njobs;
	cur_idx = rp_rowset_add(set, cur, NULL);
	for (int r = 0; r < n; r++) {
		int dup = -1, k = rp_rowset_add(set, specs[r], &dup);

		idx[r] = k >= 0 ? k : dup; /* the current may be among them */
	}
	if ((rc = rp_rowset_run(set, &quiet, &jin, err)) != 0)
		goto out;
	crow = &set->rows[cur_idx];
	for (int i = 0; i < crow->njobs; i++) {
		int t = crow->jobs[i].trace_index;

		ran[t] = basis ? basis[t] : 1;
	}
	*out_cur = crow->sum;
	if (rp_summary_compute(crow, ran, in->m->nnodes, o->loc_le, out_cur))
		goto nomem;
	for (int r = 0; r < n; r++) {
		out[r] = set->rows[idx[r]].sum;
		if (rp_summary_compute(&set->rows[idx[r]], ran, in->m->nnodes,
				       o->loc_le, &out[r]))
			goto nomem;
	}
	rc = 0;
	goto out;
nomem:
	rc = loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
out:
	free(ran);
	rp_workload_destroy(jin.w);
	rp_rowset_free(set);
	return rc;
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void rp_noise_fold(const double *x, int n, double *lo, double *median,
		   double *hi)
{
	double s[RP_NOISE_MAX_DRAWS + 1];

	memcpy(s, x, (size_t)n * sizeof(s[0]));
	qsort(s, (size_t)n, sizeof(s[0]), _cmp_double);
	*lo = s[0];
	*hi = s[n - 1];
	*median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* One draw of the advice's rows: fills v[.][d]. */
static int _draw(rp_noise_t *nz, const rp_advice_t *adv, const rp_opts_t *o,
		 const rp_input_t *in, int d, uint64_t seed, loc_error_t *err)
{
	const rp_spec_t *specs[RP_NOISE_TOP];
	rp_summary_t cs, s[RP_NOISE_TOP];
	int rc;

	for (int r = 0; r < nz->nrows; r++)
		specs[r] = nz->rows[r].a->spec;
	rc = rp_noise_draw(o, in, nz->jitter_s, seed,
			   adv->rows[adv->current].spec, specs, nz->nrows,
			   NULL, &cs, s, err);
	for (int r = 0; !rc && r < nz->nrows; r++) {
		double x[RP_NOISE_FIGS];

		_ratios(x, &s[r], &cs, adv->objective);
		for (int k = 0; k < RP_NOISE_FIGS; k++)
			nz->rows[r].v[k][d] = x[k];
	}
	return rc;
}

/* each figure's range over the n replays, and the draws over the limit */
static void _fold(rp_noise_row_t *nr, int n, double limit)
{
	for (int k = 0; k < RP_NOISE_FIGS; k++)
		rp_noise_fold(nr->v[k], n, &nr->lo[k], &nr->median[k],
			      &nr->hi[k]);
	nr->over_limit = 0;
	for (int d = 0; d < n; d++)
		nr->over_limit += nr->v[RP_NOISE_WAIT_X][d] > limit;
}

int rp_advise_noise(rp_noise_t *nz, const rp_advice_t *adv,
		    const rp_opts_t *o, const rp_input_t *in,
		    loc_error_t *err)
{
	const rp_advice_row_t *cur = &adv->rows[adv->current];
	int rc = 0;

	memset(nz, 0, sizeof(*nz));
	nz->jitter_s = o->arrival_jitter > 0 ? o->arrival_jitter
					     : RP_NOISE_JITTER_S;
	if (o->noise_draws <= 0)
		nz->why = "--noise-draws 0";
	else if (!cur->spec)
		nz->why = "the current placement is the trace's recorded one";
	else if (adv->best < 0)
		nz->why = "no row is ranked within the wait limit";
	if (nz->why)
		return 0;
	for (int r = 0; r < adv->nrows && nz->nrows < RP_NOISE_TOP; r++) {
		const rp_advice_row_t *a = &adv->rows[r];
		double x[RP_NOISE_FIGS];

		if (!a->rank || !a->within_limit)
			continue;
		nz->rows[nz->nrows].a = a;
		_ratios(x, &a->compared, &cur->compared, adv->objective);
		for (int k = 0; k < RP_NOISE_FIGS; k++)
			nz->rows[nz->nrows].v[k][0] = x[k];
		nz->nrows++;
	}
	for (int d = 1; !rc && d <= o->noise_draws; d++)
		rc = _draw(nz, adv, o, in, d, o->jitter_seed + (uint64_t)d,
			   err);
	if (rc)
		return rc;
	nz->draws = o->noise_draws;
	for (int r = 0; r < nz->nrows; r++)
		_fold(&nz->rows[r], nz->draws + 1, adv->max_wait_ratio);
	/* rank 1 is the first row; a row ties when the noise cannot order
	 * the two: their objective ranges meet */
	for (int r = 1; r < nz->nrows; r++)
		nz->rows[r].tied =
			nz->rows[r].lo[RP_NOISE_SCORE_X] <=
			nz->rows[0].hi[RP_NOISE_SCORE_X];
	return 0;
}

static const char *const _fig_name[RP_NOISE_FIGS] = {
	[RP_NOISE_HOPS_X] = "hops_x",
	[RP_NOISE_WAIT_X] = "wait_x",
	[RP_NOISE_SCORE_X] = "objective_x",
};

void rp_advise_noise_print(FILE *f, const rp_noise_t *nz,
			   const rp_advice_t *adv)
{
	int wname = 8, tied = 0;

	if (!nz->draws) {
		fprintf(f, "\nthe replay's noise: not drawn (%s)\n",
			nz->why ? nz->why : "no draw");
		fprintf(f, "noise: draws=0\n");
		return;
	}
	for (int r = 0; r < nz->nrows; r++) {
		int l = (int)strlen(nz->rows[r].a->row->name);

		if (l > wname)
			wname = l;
		tied += nz->rows[r].tied;
	}
	fprintf(f,
		"\nthe replay's noise: the top %d row%s and the current again "
		"with every submit moved\nby up to %d s (%d draws); each "
		"claim's value in the ranked replay, then its\nleast-greatest "
		"and median over that replay and the draws (ratios to the "
		"current's\nin the same draw):\n",
		nz->nrows, nz->nrows == 1 ? "" : "s", nz->jitter_s, nz->draws);
	fprintf(f, "%4s  %-*s %-27s %-27s  %s\n", "rank", wname, "row",
		"hops_x", "wait_x", "note");
	for (int r = 0; r < nz->nrows; r++) {
		const rp_noise_row_t *nr = &nz->rows[r];
		char cell[2][64], note[96] = "";

		for (int k = 0; k < 2; k++)
			snprintf(cell[k], sizeof(cell[k]),
				 "%.3f (%.3f-%.3f, %.3f)", nr->v[k][0],
				 nr->lo[k], nr->hi[k], nr->median[k]);
		if (nr->tied)
			snprintf(note, sizeof(note),
				 "within rank 1's noise");
		if (nr->over_limit)
			snprintf(note + strlen(note),
				 sizeof(note) - strlen(note),
				 "%sover the wait limit in %d of %d",
				 note[0] ? ", " : "", nr->over_limit,
				 nz->draws + 1);
		fprintf(f, "%4d  %-*s %-27s %-27s  %s\n", nr->a->rank, wname,
			nr->a->row->name, cell[0], cell[1], note);
	}
	if (tied)
		fprintf(f,
			"%d of the next %d rows cannot be told from rank 1 "
			"by this history: their %s\nranges meet. Any of them "
			"is as good a choice; their claims hold only within "
			"those\nranges.\n",
			tied, nz->nrows - 1,
			rp_objective_name(adv->objective));
	else if (nz->nrows > 1)
		fprintf(f, "no other row's %s range meets rank 1's: the "
			   "noise does not change the pick.\n",
			rp_objective_name(adv->objective));
	fprintf(f, "noise: draws=%d jitter_s=%d rows=%d tied=%d\n",
		nz->draws, nz->jitter_s, nz->nrows, tied);
	for (int r = 0; r < nz->nrows; r++) {
		const rp_noise_row_t *nr = &nz->rows[r];

		fprintf(f, "noise: rank=%d row=%s", nr->a->rank,
			nr->a->row->name);
		for (int k = 0; k < RP_NOISE_FIGS; k++)
			fprintf(f, " %s=%.6f %s_min=%.6f %s_median=%.6f "
				   "%s_max=%.6f",
				_fig_name[k], nr->v[k][0], _fig_name[k],
				nr->lo[k], _fig_name[k], nr->median[k],
				_fig_name[k], nr->hi[k]);
		fprintf(f, " over_limit=%d tied=%d\n", nr->over_limit,
			nr->tied);
	}
}
