/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_main.c - locality-advise: replays a site's trace through
 * every strategy and walltime mode on the replay's own pipeline
 * (rp_run.h), ranks the rows against the site's current placement and
 * prints the locality.conf lines of the best one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rp_advise.h"
#include "rp_advise_sbatch.h"
#include "rp_advise_sweep.h"
#include "rp_advise_noise.h"
#include "rp_advise_validate.h"
#include "rp_cli.h"
#include "rp_outdir.h"
#include "rp_run.h"

/* select/linear with one NodeName line: best fit among runs of
 * consecutive free node numbers (bench/live-bench.sh's linear model). */
#define RP_DEFAULT_CURRENT "bestfit/rowmajor"
/* Every mode a site can configure (actrun needs the actual runtimes). */
#define RP_ADVISE_MODES "none,sl,pf,combo,adjest"
/* the modes topology/locality places with (--plugin topology) */
#define RP_ADVISE_TOPOLOGY_MODES "none,sl"

static void _fail(rp_outdir_t *od, int code, const loc_error_t *err)
	__attribute__((noreturn));
static void _fail(rp_outdir_t *od, int code, const loc_error_t *err)
{
	rp_outdir_abort(od);
	rp_die_err(code, err);
}

/* Reads --current STRATEGY[/CURVE][+MODE]; bad names are usage errors. */
static void _parse_current(const char *text, rp_spec_t *sp)
{
	char buf[128], *plus, *slash;
	int kind;

	snprintf(buf, sizeof(buf), "%s", text);
	*sp = (rp_spec_t)RP_SPEC_UNSET;
	plus = strchr(buf, '+');
	if (plus) {
		*plus = '\0';
		sp->wmode = rp_wmode_parse(plus + 1);
		if ((int)sp->wmode < 0 || sp->wmode == RP_W_ACTRUN)
			rp_usage_error("--current: '%s' is not none, sl, pf, "
				       "combo or adjest",
				       plus + 1);
	}
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		sp->curve = loc_curve_kind_parse(slash + 1);
		if (sp->curve < 0)
			rp_usage_error("--current: unknown curve '%s'",
				       slash + 1);
	}
	kind = loc_strategy_kind_parse(buf);
	if (kind < 0)
		rp_usage_error("--current: unknown strategy '%s' (or "
			       "'recorded')",
			       buf);
	sp->strategy = kind;
}

/* The candidate strategies: --strategies, or every one the core has. */
static void _candidates(const rp_opts_t *o, char *buf, size_t len)
{
	size_t at = 0;

	if (o->strategies) {
		snprintf(buf, len, "%s", o->strategies);
		return;
	}
	buf[0] = '\0';
	for (int k = 0; k < LOC_STRATEGY_COUNT && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? "," : "",
				       loc_strategy_kind_name(k));
}

/*
 * --plugin topology: every row starts from the config's PlanWindow (with
 * --set and the key options), which topology/locality cannot honour
 * (cons_tres windows the running jobs' ends itself); a row that sets one
 * is refused here, before any replay.
 */
static void _check_topology_keys(const rp_opts_t *o, const loc_conf_t *conf)
{
	loc_policy_t pol = conf->policy;
	char window[32];

	loc_conf_overrides_apply(&o->keys, NULL, &pol);
	snprintf(window, sizeof(window), "%lld", (long long)pol.plan_window);
	if (pol.plan_window != 0)
		rp_usage_error("--plugin topology: PlanWindow=%s, but "
			       "topology/locality cannot use PlanWindow: "
			       "cons_tres windows the running jobs' ends "
			       "itself (0 only)",
			       window);
}

/* The sweep's lines of the advice, or that there was none. */
static void _print_sweep(FILE *f, const rp_opts_t *o, const rp_sweep_t *sw)
{
	if (o->no_sweep)
		fprintf(f, "\nsweep: none (--no-sweep)\n");
	else
		rp_sweep_print(f, sw);
}

int main(int argc, char **argv)
{
	rp_opts_t o;
	loc_error_t err = { 0 };
	rp_input_t in;
	rp_rowset_t *set;
	rp_advice_t *adv;
	rp_outdir_t od = { 0 };
	rp_output_opts_t what = { 0 };
	rp_row_t *rows[MAX_ROWS + 1];
	char strategies[1024], modes[256], path[4096 + 32];
	const char *current = NULL;
	int current_row = -1, nrows, all_jobs, fit_jobs;
	rp_validation_t *val = NULL;
	rp_sweep_t sweep = { 0 };
	rp_noise_t noise;
	double t_start = rp_now();

	rp_sbatch_args(&argc, &argv);
	rp_cli_parse(argc, argv, &o, RP_MODE_ADVISE);
	rp_sbatch_begin(&o);
	current = o.current ? o.current : RP_DEFAULT_CURRENT;
	if (o.walltime && strstr(o.walltime, "actrun"))
		rp_usage_error("%s", "--walltime: actrun uses the actual "
				     "runtimes, no site can configure it");
	if (o.topology_site) {
		if (!o.walltime) /* rp_cli_check() checked a given list */
			o.walltime = RP_ADVISE_TOPOLOGY_MODES;
	}
	if (rp_input_load(&o, &in, &err))
		rp_die_err(err.code == LOC_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT,
			   &err);
	if (o.topology_site)
		_check_topology_keys(&o, in.m->conf);
	if (!o.quiet)
		rp_print_workload(in.trace, in.w);
	if (rp_input_check(&o, &in, &err))
		rp_die_err(EXIT_INPUT, &err);
	/* --validate: the advice is fitted on the first fit_jobs alone, as
	 * --limit fit_jobs would give it */
	all_jobs = fit_jobs = in.w->njobs;
	if (o.validate > 0) {
		fit_jobs = rp_validate_split(o.validate, all_jobs);
		if (fit_jobs < 1 || fit_jobs >= all_jobs) {
			loc_error_set(&err, LOC_ERANGE, in.trace->path, 0,
				      "--validate %g: %d of the %d jobs to "
				      "fit on, %d held out: both must be "
				      "at least 1",
				      o.validate, fit_jobs, all_jobs,
				      all_jobs - fit_jobs);
			rp_die_err(EXIT_INPUT, &err);
		}
		in.w->njobs = fit_jobs;
	}

	/* rows: the candidates, the current placement, the recorded one */
	set = rp_rowset_create();
	adv = calloc(1, sizeof(*adv));
	if (!set || !adv) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return EXIT_RUNTIME;
	}
	_candidates(&o, strategies, sizeof(strategies));
	snprintf(modes, sizeof(modes), "%s",
		 o.walltime ? o.walltime : RP_ADVISE_MODES);
	rp_rowset_add_lists(set, strategies, modes);
	if (strcmp(current, "recorded")) {
		rp_spec_t sp;
		int dup = -1, r;

		_parse_current(current, &sp);
		r = rp_rowset_add(set, &sp, &dup);
		if (r == -2)
			rp_usage_error("%s", "too many rows (at most 256)");
		current_row = r >= 0 ? r : dup;
	} else if (in.trace->nnode_names <= 0) {
		loc_error_set(&err, LOC_EINVAL, in.trace->path, 0,
			      "--current recorded: the trace records no node "
			      "lists");
		rp_die_err(EXIT_INPUT, &err);
	}
	rp_rowset_snapshots(set, &o, in.w);
	if (rp_rowset_recorded(set, &o, &in, &err))
		rp_die_err(EXIT_INPUT, &err);
	/* rows of rp_rowset_all: the recorded row comes first */
	if (current_row < 0)
		current_row = 0;
	else if (set->have_recorded)
		current_row++;
	if (!o.quiet)
		fprintf(stderr, "%s: replaying %d rows on %d threads\n", PROG,
			set->nrows, o.threads < set->nrows ? o.threads
							   : set->nrows);
	/* here, or as a Slurm job array under --sbatch */
	if (rp_advise_run_rows(set, 0, &o, &in, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	nrows = rp_rowset_all(set, rows);
	if (rp_advise_rank(adv, set, current_row, o.objective,
			   o.max_wait_ratio, in.m->nnodes, o.loc_le)) {
		fprintf(stderr, "%s: cannot rank the rows\n", PROG);
		return EXIT_RUNTIME;
	}
	/* the pruned sweep of the policy keys around the best rows */
	if (!o.no_sweep) {
		int before = set->nrows;

		if (rp_advise_sweep(&sweep, adv, set, current_row, &o, &in,
				    &err))
			rp_die_err(EXIT_RUNTIME, &err);
		if (!o.quiet)
			fprintf(stderr, "%s: the sweep replayed %d more rows\n",
				PROG, set->nrows - before);
		nrows = rp_rowset_all(set, rows);
	}
	/* the replay's noise around the top rows, on the fitted jobs */
	if (!o.quiet && o.noise_draws > 0)
		fprintf(stderr, "%s: %d noise draws of the top rows\n", PROG,
			o.noise_draws);
	if (rp_advise_noise(&noise, adv, &o, &in, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	if (o.validate > 0) {
		in.w->njobs = all_jobs;
		val = calloc(1, sizeof(*val));
		if (!val) {
			fprintf(stderr, "%s: out of memory\n", PROG);
			return EXIT_RUNTIME;
		}
		if (!o.quiet)
			fprintf(stderr, "%s: replaying the advised and the "
					"current row on all %d jobs\n",
				PROG, all_jobs);
		if (rp_validate_run(val, adv, &noise, &o, &in, fit_jobs,
				    &err))
			rp_die_err(err.code == LOC_ENOENT ? EXIT_INPUT
							  : EXIT_RUNTIME,
				   &err);
		/* the fitted advice's outputs describe the fitted jobs */
		in.w->njobs = fit_jobs;
	}

	/* outputs: complete or not at all */
	if (rp_outdir_open(&od, o.out, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	if (rp_write_outputs(od.tmp, &o, &in, rows, nrows, &what, &err))
		_fail(&od, EXIT_RUNTIME, &err);
	snprintf(path, sizeof(path), "%s/ranking.csv", od.tmp);
	if (rp_advise_write_csv(path, adv, &err))
		_fail(&od, EXIT_RUNTIME, &err);
	snprintf(path, sizeof(path), "%s/tradeoff.svg", od.tmp);
	if (rp_advise_write_svg(path, adv, &err))
		_fail(&od, EXIT_RUNTIME, &err);
	snprintf(path, sizeof(path), "%s/validation.csv", od.tmp);
	if (val && rp_validate_write_csv(path, val, &err))
		_fail(&od, EXIT_RUNTIME, &err);
	snprintf(path, sizeof(path), "%s/advice.txt", od.tmp);
	{
		FILE *f = fopen(path, "w");

		if (!f) {
			loc_error_set(&err, LOC_EIO, path, 0, "cannot write");
			_fail(&od, EXIT_RUNTIME, &err);
		}
		rp_advise_print(f, adv, &o, &in);
		_print_sweep(f, &o, &sweep);
		rp_advise_noise_print(f, &noise, adv);
		if (val)
			rp_validate_print(f, val);
		if (ferror(f) | fclose(f)) {
			loc_error_set(&err, LOC_EIO, path, 0, "write failed");
			_fail(&od, EXIT_RUNTIME, &err);
		}
	}
	if (rp_outdir_commit(&od, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	if (!o.quiet) {
		rp_advise_print(stdout, adv, &o, &in);
		_print_sweep(stdout, &o, &sweep);
		rp_advise_noise_print(stdout, &noise, adv);
		if (val)
			rp_validate_print(stdout, val);
		fprintf(stderr, "%s: %d rows in %.2f s with %d threads; "
				"outputs in %s\n",
			PROG, set->nrows, rp_now() - t_start,
			set->threads_used, o.out);
	}
	free(val);
	free(adv);
	rp_rowset_free(set);
	rp_input_free(&in);
	return 0;
}
