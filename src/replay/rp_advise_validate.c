/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_validate.c - locality-advise --validate: the advised row
 * and the current placement replayed on the held-out jobs, against what
 * the fitted advice predicted (see rp_advise_validate.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_advise_validate.h"

static const struct {
	const char *name;
	bool claim;    /* a figure the advice promises (its x columns) */
	bool wait;     /* a wait figure: the wait target */
} _fig[RP_VAL_COUNT] = {
	[RP_VAL_HOPS] = { "mean_hops", false, false },
	[RP_VAL_WAIT] = { "mean_wait_s", false, true },
	[RP_VAL_HOPS_X] = { "hops_x", true, false },
	[RP_VAL_WAIT_X] = { "wait_x", true, true },
	[RP_VAL_CUR_HOPS] = { "current_mean_hops", false, false },
	[RP_VAL_CUR_WAIT] = { "current_mean_wait_s", false, true },
};

int rp_validate_split(double f, int njobs)
{
	return (int)floor(f * (double)njobs);
}

static double _ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* predicted or replayed figures from the advised and current summaries */
static void _figures(double *out, const rp_summary_t *row,
		     const rp_summary_t *cur)
{
	out[RP_VAL_HOPS] = row->hops.mean;
	out[RP_VAL_WAIT] = row->mean_wait_s;
	out[RP_VAL_HOPS_X] = _ratio(row->hops.mean, cur->hops.mean);
	out[RP_VAL_WAIT_X] = _ratio(row->mean_wait_s, cur->mean_wait_s);
	out[RP_VAL_CUR_HOPS] = cur->hops.mean;
	out[RP_VAL_CUR_WAIT] = cur->mean_wait_s;
}

/* figures over the jobs of w->jobs[lo..hi) that the current ran, in
 * the whole-workload replay of the advised row and the current; mask is
 * scratch of the trace's size. 0 or LOC_ENOMEM. */
static int _figures_over(double *out, const rp_row_t *rrow,
			 const rp_row_t *crow, const rp_workload_t *w, int lo,
			 int hi, const uint8_t *ran, uint8_t *mask,
			 size_t mask_len, int nnodes, bool loc_le)
{
	rp_summary_t rs = rrow->sum, cs = crow->sum;

	memset(mask, 0, mask_len);
	for (int i = lo; i < hi; i++) {
		int t = w->jobs[i].trace_index;

		mask[t] = ran[t];
	}
	if (rp_summary_compute(rrow, mask, nnodes, loc_le, &rs) ||
	    rp_summary_compute(crow, mask, nnodes, loc_le, &cs))
		return LOC_ENOMEM;
	_figures(out, &rs, &cs);
	return 0;
}

/* v->fitted, and the windows of held-out length over the fitted jobs
 * (rp_validation_t); mask is reused as scratch. */
static int _spread(rp_validation_t *v, const rp_row_t *rrow,
		   const rp_row_t *crow, const rp_workload_t *w, int fit_jobs,
		   const uint8_t *ran, uint8_t *mask, size_t mask_len,
		   int nnodes, bool loc_le, loc_error_t *err)
{
	double fig[RP_VAL_COUNT];

	if (_figures_over(v->fitted, rrow, crow, w, 0, fit_jobs, ran, mask,
			  mask_len, nnodes, loc_le))
		goto nomem;
	v->window_jobs = w->njobs - fit_jobs;
	/* four windows per held-out length: the spread of periods that
	 * start anywhere, not only on multiples of it */
	v->window_step = v->window_jobs / 4 > 0 ? v->window_jobs / 4 : 1;
	for (int lo = 0; lo + v->window_jobs <= fit_jobs;
	     lo += v->window_step) {
		if (_figures_over(fig, rrow, crow, w, lo, lo + v->window_jobs,
				  ran, mask, mask_len, nnodes, loc_le))
			goto nomem;
		for (int i = 0; i < RP_VAL_COUNT; i++) {
			if (!v->windows || fig[i] < v->window_min[i])
				v->window_min[i] = fig[i];
			if (!v->windows || fig[i] > v->window_max[i])
				v->window_max[i] = fig[i];
		}
		v->windows++;
	}
	return 0;
nomem:
	return loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
}

/* One noise draw: the advised and the current row on the workload
 * jittered with seed, their figures over the held-out jobs (in_held,
 * by trace index) the draw's current ran, into fig. */
static int _noise_draw(double *fig, const rp_validation_t *v,
		       const rp_advice_row_t *adv, const rp_advice_row_t *cur,
		       const rp_opts_t *o, const rp_input_t *in,
		       const uint8_t *in_held, uint64_t seed, loc_error_t *err)
{
	const rp_spec_t *spec = adv->spec;
	rp_summary_t rs, cs;
	int rc;

	rc = rp_noise_draw(o, in, v->noise_jitter_s, seed, cur->spec, &spec,
			   adv != cur && adv->spec ? 1 : 0, in_held, &cs, &rs,
			   err);
	if (!rc)
		_figures(fig, adv != cur && adv->spec ? &rs : &cs, &cs);
	return rc;
}

/* least, median and greatest of figure i over the n values in x[.][i]
 * (a figure without a ratio is NAN throughout) */
static void _fold(rp_validation_t *v, double (*x)[RP_VAL_COUNT], int n,
		  int i)
{
	double s[RP_NOISE_MAX_DRAWS + 1];

	for (int d = 0; d < n; d++)
		s[d] = x[d][i];
	rp_noise_fold(s, n, &v->noise_min[i], &v->noise_median[i],
		      &v->noise_max[i]);
}

/* v->noise_*: --noise-draws draws after the replay above. */
static int _noise(rp_validation_t *v, const rp_advice_row_t *adv,
		  const rp_advice_row_t *cur, const rp_opts_t *o,
		  const rp_input_t *in, int fit_jobs, loc_error_t *err)
{
	uint8_t *in_held = calloc((size_t)in->trace->njobs + 1, 1);
	double x[RP_NOISE_MAX_DRAWS + 1][RP_VAL_COUNT];
	int rc = 0;

	memcpy(x[0], v->replayed, sizeof(x[0]));
	v->noise_jitter_s = o->arrival_jitter > 0 ? o->arrival_jitter
						  : RP_NOISE_JITTER_S;
	if (!in_held) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (int i = fit_jobs; i < in->w->njobs; i++)
		in_held[in->w->jobs[i].trace_index] = 1;
	for (int d = 1; !rc && d <= o->noise_draws; d++)
		rc = _noise_draw(x[d], v, adv, cur, o, in, in_held,
				 o->jitter_seed + (uint64_t)d, err);
	if (!rc && o->noise_draws > 0) {
		v->noise_draws = o->noise_draws;
		for (int i = 0; i < RP_VAL_COUNT; i++)
			_fold(v, x, v->noise_draws + 1, i);
	}
out:
	free(in_held);
	return rc;
}

int rp_validate_run(rp_validation_t *v, const rp_advice_t *fit,
		    const rp_noise_t *fit_noise, const rp_opts_t *o,
		    rp_input_t *in, int fit_jobs, loc_error_t *err)
{
	const rp_advice_row_t *cur = &fit->rows[fit->current];
	const rp_advice_row_t *adv =
		fit->best >= 0 ? &fit->rows[fit->best] : cur;
	const rp_workload_t *w = in->w;
	rp_rowset_t *set = rp_rowset_create();
	rp_row_t *rrow, *crow;
	rp_summary_t rs, cs;
	uint8_t *held = NULL, *ran = NULL;
	int rc = LOC_ENOMEM, adv_row = -1, cur_row = -1;

	memset(v, 0, sizeof(*v));
	v->fit_jobs = fit_jobs;
	v->total_jobs = w->njobs;
	v->first_submit = w->jobs[0].submit;
	v->split_submit = w->jobs[fit_jobs].submit;
	v->last_submit = w->jobs[w->njobs - 1].submit;
	v->advised = fit->best >= 0 && !adv->current;
	snprintf(v->row, sizeof(v->row), "%s", adv->row->name);
	snprintf(v->current, sizeof(v->current), "%s", cur->row->name);
	_figures(v->predicted, &adv->compared, &cur->compared);
	held = calloc((size_t)in->trace->njobs + 1, 1);
	ran = calloc((size_t)in->trace->njobs + 1, 1);
	if (!set || !held || !ran) {
		loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* the rows: the advised one and the current (once when the same) */
	if (cur->spec)
		cur_row = rp_rowset_add(set, cur->spec, NULL);
	else if ((rc = rp_rowset_recorded(set, o, in, err)) != 0)
		goto out;
	if (adv->spec && adv != cur)
		adv_row = rp_rowset_add(set, adv->spec, NULL);
	if ((rc = rp_rowset_run(set, o, in, err)) != 0)
		goto out;
	crow = cur->spec ? &set->rows[cur_row] : &set->recorded;
	rrow = adv_row >= 0 ? &set->rows[adv_row] : crow;
	/* the basis: held-out jobs the current ran */
	for (int i = 0; i < crow->njobs; i++)
		ran[crow->jobs[i].trace_index] = 1;
	for (int i = fit_jobs; i < w->njobs; i++) {
		int t = w->jobs[i].trace_index;

		held[t] = ran[t];
		v->held_jobs += ran[t];
	}
	if (!v->held_jobs) {
		rc = loc_error_set(err, LOC_ENOENT, in->trace->path, 0,
				   "--validate: the current placement ran "
				   "none of the %d held-out jobs",
				   w->njobs - fit_jobs);
		goto out;
	}
	v->not_served = v->held_jobs;
	for (int i = 0; i < rrow->njobs; i++)
		v->not_served -= held[rrow->jobs[i].trace_index];
	rs = rrow->sum;
	cs = crow->sum;
	if (rp_summary_compute(rrow, held, in->m->nnodes, o->loc_le, &rs) ||
	    rp_summary_compute(crow, held, in->m->nnodes, o->loc_le, &cs)) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	_figures(v->replayed, &rs, &cs);
	if (cur->spec &&
	    (rc = _noise(v, adv, cur, o, in, fit_jobs, err)) != 0)
		goto out;
	/* the fit's own draws of the same row: rank 1 of its noise table */
	if (v->noise_draws && fit_noise && fit_noise->draws &&
	    fit_noise->nrows && fit->best >= 0 &&
	    fit_noise->rows[0].a == &fit->rows[fit->best]) {
		const rp_noise_row_t *nr = &fit_noise->rows[0];

		v->have_fit_median = true;
		for (int i = 0; i < RP_VAL_COUNT; i++)
			v->fit_median[i] = NAN;
		v->fit_median[RP_VAL_HOPS_X] = nr->median[RP_NOISE_HOPS_X];
		v->fit_median[RP_VAL_WAIT_X] = nr->median[RP_NOISE_WAIT_X];
	}
	/* held is free now: the windows' scratch */
	rc = _spread(v, rrow, crow, w, fit_jobs, ran, held,
		     (size_t)in->trace->njobs + 1, in->m->nnodes, o->loc_le,
		     err);
out:
	free(held);
	free(ran);
	rp_rowset_free(set);
	return rc;
}

double rp_validate_rel_error(const rp_validation_t *v, int i)
{
	if (!(v->predicted[i] != 0) || isnan(v->replayed[i]))
		return NAN;
	return (v->replayed[i] - v->predicted[i]) / v->predicted[i];
}

double rp_validate_median_error(const rp_validation_t *v, int i)
{
	if (!v->have_fit_median || !(v->fit_median[i] != 0) ||
	    isnan(v->noise_median[i]))
		return NAN;
	return (v->noise_median[i] - v->fit_median[i]) / v->fit_median[i];
}

static double _target(int i)
{
	return _fig[i].wait ? RP_VAL_WAIT_TARGET : RP_VAL_HOPS_TARGET;
}

/* "yes", "no" or "-" (no relative error) */
static const char *_met_e(double e, int i)
{
	return isnan(e) ? "-" : fabs(e) <= _target(i) ? "yes" : "no";
}

static const char *_met(const rp_validation_t *v, int i)
{
	return _met_e(rp_validate_rel_error(v, i), i);
}

/* " hops_x LO-HI, wait_x LO-HI": each claim's range */
static void _print_ranges(FILE *f, const double *lo, const double *hi)
{
	for (int i = 0, n = 0; i < RP_VAL_COUNT; i++)
		if (_fig[i].claim)
			fprintf(f, "%s %s %.3f-%.3f", n++ ? "," : "",
				_fig[i].name, lo[i], hi[i]);
}

/* The claims' spread over the fitted history, under the table. */
static void _print_spread(FILE *f, const rp_validation_t *v)
{
	fprintf(f, "\nthe same replay on the %d fitted jobs:", v->fit_jobs);
	for (int i = 0, n = 0; i < RP_VAL_COUNT; i++)
		if (_fig[i].claim)
			fprintf(f, "%s %s %.3f (predicted %.3f)", n++ ? "," : "",
				_fig[i].name, v->fitted[i], v->predicted[i]);
	fprintf(f, "\n");
	if (!v->windows) {
		fprintf(f, "fewer jobs fitted than held out: no window of %d "
			   "fitted jobs to compare with\n",
			v->window_jobs);
		return;
	}
	fprintf(f, "over %d windows of %d fitted jobs (one every %d):",
		v->windows, v->window_jobs, v->window_step);
	_print_ranges(f, v->window_min, v->window_max);
	fprintf(f, "\n(how much a period of the fitted history differs from "
		   "another under the same\nmodel: a held-out figure inside "
		   "that range is within the history's own spread)\n");
}

/* The replay's noise, under the spread. */
static void _print_noise(FILE *f, const rp_validation_t *v)
{
	if (!v->noise_draws) {
		fprintf(f, "no noise draws: %s\n",
			v->noise_jitter_s ? "--noise-draws 0"
					  : "the current placement is the "
					    "trace's recorded one");
		return;
	}
	fprintf(f, "the held-out replay again with every submit moved by up "
		   "to %d s (%d draws):",
		v->noise_jitter_s, v->noise_draws);
	_print_ranges(f, v->noise_min, v->noise_max);
	fprintf(f, "\n(the replay's own noise: a prediction inside that "
		   "range is as close as a replay\nof the held-out period "
		   "can tell)\n");
	if (!v->have_fit_median)
		return;
	fprintf(f, "medians over the draws, fitted -> held out (rank 1 won "
		   "on one replay, which\ncan be a lucky one; the medians "
		   "are not chosen by the ranking):");
	for (int i = 0, n = 0; i < RP_VAL_COUNT; i++) {
		double e = rp_validate_median_error(v, i);

		if (!_fig[i].claim)
			continue;
		fprintf(f, "%s %s %.3f -> %.3f", n++ ? "," : "", _fig[i].name,
			v->fit_median[i], v->noise_median[i]);
		if (!isnan(e))
			fprintf(f, " (%+.1f%%, %s)", 100 * e,
				!strcmp(_met_e(e, i), "yes") ? "within target"
							     : "misses target");
	}
	fprintf(f, "\n");
}

void rp_validate_print(FILE *f, const rp_validation_t *v)
{
	const double day = 86400.0;

	fprintf(f,
		"\nvalidation: fitted on the first %d of %d jobs (submitted "
		"in days 0-%.1f of the trace);\n"
		"held out the %d after (days %.1f-%.1f), replayed with the "
		"whole trace before them\n"
		"(the queue warm at the split) and measured on the %d of them "
		"the current ran\n",
		v->fit_jobs, v->total_jobs,
		(double)(v->split_submit - v->first_submit) / day,
		v->total_jobs - v->fit_jobs,
		(double)(v->split_submit - v->first_submit) / day,
		(double)(v->last_submit - v->first_submit) / day, v->held_jobs);
	if (!v->advised)
		fprintf(f, "the advice was to keep the current placement: "
			   "its figures are checked alone\n");
	if (v->not_served)
		fprintf(f, "%s did not run %d of those jobs: its figures are "
			   "over the ones it ran\n",
			v->row, v->not_served);
	fprintf(f, "%-20s %-20s %12s %12s %9s %7s  %s\n", "figure", "row",
		"predicted", "replayed", "rel_err", "target", "note");
	for (int i = 0; i < RP_VAL_COUNT; i++) {
		double e = rp_validate_rel_error(v, i);
		char err[32];

		if (isnan(e))
			snprintf(err, sizeof(err), "-");
		else
			snprintf(err, sizeof(err), "%+.1f%%", 100 * e);
		fprintf(f, "%-20s %-20s %12.3f %12.3f %9s %6.0f%%  %s%s\n",
			_fig[i].name, i >= RP_VAL_CUR_HOPS ? v->current : v->row,
			v->predicted[i], v->replayed[i], err,
			100 * _target(i),
			_fig[i].claim ? "the advice's claim, " : "",
			!strcmp(_met(v, i), "yes") ? "within target"
			: !strcmp(_met(v, i), "no") ? "misses target"
						     : "no ratio");
	}
	_print_spread(f, v);
	_print_noise(f, v);
	fprintf(f, "validate: row=%s current=%s advised=%d fit_jobs=%d "
		   "held_out_jobs=%d compared_jobs=%d not_served=%d\n",
		v->row, v->current, v->advised, v->fit_jobs,
		v->total_jobs - v->fit_jobs, v->held_jobs, v->not_served);
	for (int i = 0; i < RP_VAL_COUNT; i++)
		if (_fig[i].claim)
			fprintf(f, "validate: spread figure=%s fitted=%.6f "
				   "windows=%d window_jobs=%d window_step=%d "
				   "min=%.6f max=%.6f\n",
				_fig[i].name, v->fitted[i], v->windows,
				v->window_jobs, v->window_step,
				v->windows ? v->window_min[i] : NAN,
				v->windows ? v->window_max[i] : NAN);
	for (int i = 0; i < RP_VAL_COUNT; i++)
		if (_fig[i].claim)
			fprintf(f, "validate: noise figure=%s draws=%d "
				   "jitter_s=%d min=%.6f max=%.6f median=%.6f "
				   "fitted_median=%.6f median_rel_error=%.6f "
				   "median_within_target=%s\n",
				_fig[i].name, v->noise_draws,
				v->noise_jitter_s,
				v->noise_draws ? v->noise_min[i] : NAN,
				v->noise_draws ? v->noise_max[i] : NAN,
				v->noise_draws ? v->noise_median[i] : NAN,
				v->have_fit_median ? v->fit_median[i] : NAN,
				rp_validate_median_error(v, i),
				_met_e(rp_validate_median_error(v, i), i));
	for (int i = 0; i < RP_VAL_COUNT; i++)
		fprintf(f, "validate: figure=%s claim=%d predicted=%.6f "
			   "replayed=%.6f rel_error=%.6f target=%.2f "
			   "within_target=%s\n",
			_fig[i].name, _fig[i].claim, v->predicted[i],
			v->replayed[i], rp_validate_rel_error(v, i),
			_target(i), _met(v, i));
}

int rp_validate_write_csv(const char *path, const rp_validation_t *v,
			  loc_error_t *err)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return loc_error_set(err, LOC_EIO, path, 0, "cannot write: %s",
				     strerror(errno));
	fprintf(f, "figure,row,claim,predicted,replayed,rel_error,target,"
		   "within_target,noise_min,noise_max,noise_median,"
		   "fitted_median\n");
	for (int i = 0; i < RP_VAL_COUNT; i++) {
		double e = rp_validate_rel_error(v, i);

		fprintf(f, "%s,%s,%d,%.6f,%.6f,", _fig[i].name,
			i >= RP_VAL_CUR_HOPS ? v->current : v->row,
			_fig[i].claim, v->predicted[i], v->replayed[i]);
		if (isnan(e))
			fprintf(f, ",");
		else
			fprintf(f, "%.6f,", e);
		fprintf(f, "%.2f,%s,", _target(i), _met(v, i));
		if (v->noise_draws)
			fprintf(f, "%.6f,%.6f,%.6f,", v->noise_min[i],
				v->noise_max[i], v->noise_median[i]);
		else
			fprintf(f, ",,,");
		if (v->have_fit_median && !isnan(v->fit_median[i]))
			fprintf(f, "%.6f\n", v->fit_median[i]);
		else
			fprintf(f, "\n");
	}
	if (ferror(f) | fclose(f))
		return loc_error_set(err, LOC_EIO, path, 0, "write failed");
	return 0;
}
