/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_main.c - locality-replay: replays a job trace through allocation
 * strategies side by side, on the same core the select/locality plugin
 * runs, and reports wait, slowdown, utilisation, loss of capacity and
 * locality per strategy.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "loc_trace.h"
#include "rp_cli.h"
#include "rp_export.h"
#include "rp_json.h"
#include "rp_machine.h"
#include "rp_report.h"
#include "rp_sim.h"

/* One row to simulate. */
typedef struct spec {
	loc_strategy_kind_t strategy;
	int curve; /* -1 = the config's */
	rp_wmode_t wmode;
} spec_t;

/* ===================================================================== */
/* Progress bar                                                          */
/* ===================================================================== */

typedef struct progress {
	pthread_mutex_t lock;
	bool on;
	int nrows;
	int *done, *total;
	int rows_done;
	const char *current;
	struct timespec last;
} progress_t;

typedef struct pctx {
	progress_t *p;
	int row;
	const char *name;
} pctx_t;

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void _progress_draw(progress_t *p, bool force)
{
	struct timespec ts;
	double sum = 0, frac;
	int width = 30, fill;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!force && (ts.tv_sec - p->last.tv_sec) * 1000 +
				      (ts.tv_nsec - p->last.tv_nsec) / 1000000 <
			      100)
		return;
	p->last = ts;
	for (int r = 0; r < p->nrows; r++)
		sum += p->total[r] ? (double)p->done[r] / p->total[r] : 0;
	frac = p->nrows ? sum / p->nrows : 1;
	fill = (int)(frac * width);
	fprintf(stderr, "\r[");
	for (int i = 0; i < width; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %3d%%  rows %d/%d  %-24.24s", (int)(frac * 100),
		p->rows_done, p->nrows, p->current ? p->current : "");
	fflush(stderr);
}

static void _progress_cb(void *ctx, int done, int total)
{
	pctx_t *c = ctx;
	progress_t *p = c->p;

	pthread_mutex_lock(&p->lock);
	p->done[c->row] = done;
	p->total[c->row] = total;
	p->current = c->name;
	_progress_draw(p, false);
	pthread_mutex_unlock(&p->lock);
}

/* ===================================================================== */
/* Rows                                                                  */
/* ===================================================================== */

typedef struct job_ctx {
	const rp_opts_t *o;
	const loc_conf_t *conf;
	const rp_machine_t *m;
	const rp_workload_t *w;
	spec_t *specs;
	rp_row_t *rows;
	int nrows;
	int64_t *snaps;
	int nsnaps;
	loc_strategy_kind_t *dec;
	int ndec;
	pthread_mutex_t lock;
	int next;
	int failed;
	loc_error_t err;
	progress_t *prog;
} job_ctx_t;

static void _policy_for(const job_ctx_t *c, const spec_t *sp, loc_policy_t *pol)
{
	*pol = c->conf->policy;
	pol->strategy = sp->strategy;
	if (sp->curve >= 0)
		pol->curve = (loc_curve_kind_t)sp->curve;
	else if (c->o->curve)
		pol->curve =
			(loc_curve_kind_t)loc_curve_kind_parse(c->o->curve);
	pol->walltime = rp_wmode_policy(sp->wmode);
	if (c->o->sl_tolerance >= 0)
		pol->sl_tolerance = c->o->sl_tolerance;
	if (c->o->compact_wait >= 0)
		pol->compact_wait = c->o->compact_wait;
	if (c->o->compact_tolerance >= 0)
		pol->compact_tolerance = c->o->compact_tolerance;
}

/* Replays one row. Returns 0 or a LOC_E* code with err filled. */
static int _one_row(job_ctx_t *c, int r, loc_error_t *err)
{
	const spec_t *sp = &c->specs[r];
	rp_row_t *row = &c->rows[r];
	loc_policy_t pol;
	loc_alloc_t *alloc, **dec = NULL;
	rp_sim_opts_t so;
	pctx_t pc = { .p = c->prog, .row = r, .name = row->name };
	double t0 = _now();
	int rc = 0;

	_policy_for(c, sp, &pol);
	alloc = loc_alloc_create(c->m->grid, &pol, err);
	if (!alloc)
		return err->code ? err->code : LOC_EINVAL;
	if (c->ndec) {
		dec = calloc(c->ndec, sizeof(*dec));
		row->decision_name =
			calloc(c->ndec, sizeof(*row->decision_name));
		row->decision_mean = calloc(c->ndec, sizeof(double));
		if (!dec || !row->decision_name || !row->decision_mean) {
			rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
					   "out of memory");
			goto out;
		}
		row->ndecision = c->ndec;
		for (int d = 0; d < c->ndec; d++) {
			loc_policy_t dp = pol;

			dp.strategy = c->dec[d];
			dp.walltime = LOC_WALLTIME_NONE;
			snprintf(row->decision_name[d], 48, "%s",
				 loc_strategy_kind_name(c->dec[d]));
			dec[d] = loc_alloc_create(c->m->grid, &dp, err);
			if (!dec[d]) {
				rc = err->code ? err->code : LOC_EINVAL;
				goto out;
			}
		}
	}
	rp_sim_opts_init(&so);
	so.sched = c->o->sched;
	so.prio = c->o->prio;
	so.wmode = sp->wmode;
	so.pf_max_nodes = c->o->pf_max_nodes;
	so.adjest_window = c->o->adjest_window ? c->o->adjest_window
					       : c->conf->adjest_window;
	so.snap_times = c->snaps;
	so.nsnaps = c->nsnaps;
	so.decision = dec;
	so.ndecision = c->ndec;
	if (c->prog->on) {
		so.progress = _progress_cb;
		so.progress_ctx = &pc;
	}
	row->run = rp_sim_run(c->w, alloc, &so, err);
	if (!row->run) {
		rc = err->code ? err->code : LOC_EINVAL;
		goto out;
	}
	/* every replay is checked: no node in two jobs, start >= submit,
	 * exact node counts, EASY never delays the head's reservation */
	rc = rp_run_check(c->w, row->run,
			  c->o->sched == RP_SCHED_EASY &&
				  c->o->prio == RP_PRIO_FCFS,
			  err);
	if (rc) {
		char text[LOC_ERROR_TEXT_MAX];

		snprintf(text, sizeof(text), "%s", err->text);
		loc_error_set(err, rc, NULL, 0,
			      "row %s: simulator invariant broken: %s",
			      row->name, text);
		goto out;
	}
	for (int d = 0; d < c->ndec; d++)
		row->decision_mean[d] =
			row->run->decision_count
				? row->run->decision_hops[d] /
					  row->run->decision_count
				: 0;
	rc = rp_row_from_run(row, c->w, c->m, loc_alloc_curve(alloc),
			     c->o->loc_le);
	if (rc)
		loc_error_set(err, rc, NULL, 0, "row %s: metrics failed: %s",
			      row->name, loc_strerror(rc));
	row->cpu_sec = _now() - t0;
out:
	for (int d = 0; dec && d < c->ndec; d++)
		loc_alloc_destroy(dec[d]);
	free(dec);
	loc_alloc_destroy(alloc);
	return rc;
}

static void *_worker(void *arg)
{
	job_ctx_t *c = arg;

	for (;;) {
		int r, rc;
		loc_error_t err = { 0 };

		pthread_mutex_lock(&c->lock);
		r = c->failed ? c->nrows : c->next++;
		pthread_mutex_unlock(&c->lock);
		if (r >= c->nrows)
			return NULL;
		rc = _one_row(c, r, &err);
		pthread_mutex_lock(&c->lock);
		if (rc && !c->failed) {
			c->failed = rc;
			c->err = err;
			if (!err.text[0])
				loc_error_set(&c->err, rc, NULL, 0,
					      "row %s: %s", c->rows[r].name,
					      loc_strerror(rc));
		}
		pthread_mutex_unlock(&c->lock);
		pthread_mutex_lock(&c->prog->lock);
		c->prog->rows_done++;
		if (c->prog->on)
			_progress_draw(c->prog, true);
		pthread_mutex_unlock(&c->prog->lock);
	}
}

/* ===================================================================== */
/* main                                                                  */
/* ===================================================================== */

static void _trace_report(const loc_trace_t *t, const rp_workload_t *w)
{
	rp_trace_report(stderr, t);
	fprintf(stderr,
		"%s: workload: %d jobs, offered load %.2f; %d larger than the "
		"machine (reported in rejected.csv), %d without a walltime "
		"request (estimate = runtime), %d cut at their request, %d "
		"rounded up\n",
		PROG, w->njobs, w->offered_load, w->too_large, w->no_request,
		w->truncated, w->rounded);
}

static void _options_json(const rp_opts_t *o, const loc_trace_t *t, char *buf,
			  size_t len)
{
	snprintf(buf, len,
		 "{\"sched\": \"%s\", \"priority\": \"%s\", "
		 "\"procs_per_node\": %.6f, "
		 "\"round\": \"%s\", \"limit\": %d, \"loc_le\": %s, "
		 "\"pf_max_nodes\": %d, \"strict\": %s}",
		 o->sched == RP_SCHED_EASY ? "easy" : "fcfs",
		 o->prio == RP_PRIO_WFP ? "wfp" : "fcfs", t->procs_per_node,
		 o->round == RP_ROUND_POW2  ? "pow2"
		 : o->round == RP_ROUND_BOX ? "box"
					    : "none",
		 o->limit, o->loc_le ? "true" : "false", o->pf_max_nodes,
		 o->topts.strict ? "true" : "false");
}

static int _copy_file(const char *from, const char *to, loc_error_t *err)
{
	FILE *a = fopen(from, "rb"), *b;
	char buf[1 << 14];
	size_t n;
	int rc = 0;

	if (!a)
		return loc_error_set(err, LOC_EIO, from, 0, "cannot read: %s",
				     strerror(errno));
	b = fopen(to, "wb");
	if (!b) {
		fclose(a);
		return loc_error_set(err, LOC_EIO, to, 0, "cannot write: %s",
				     strerror(errno));
	}
	while ((n = fread(buf, 1, sizeof(buf), a)) > 0)
		if (fwrite(buf, 1, n, b) != n)
			rc = loc_error_set(err, LOC_EIO, to, 0, "write failed");
	fclose(a);
	if (fclose(b) && !rc)
		rc = loc_error_set(err, LOC_EIO, to, 0, "write failed");
	return rc;
}

int main(int argc, char **argv)
{
	rp_opts_t o;
	loc_error_t err = { 0 };
	loc_trace_t *trace;
	rp_machine_t *m;
	rp_workload_t *w;
	rp_workload_opts_t wo = { 0 };
	job_ctx_t c;
	progress_t prog;
	char *items[MAX_ROWS], *modes[RP_W_COUNT * 4], *decs[64];
	int nitems, nmodes, ndecs = 0, nrows = 0, rc = 0;
	rp_row_t *rowp[MAX_ROWS + 1];
	rp_row_t recorded;
	bool have_recorded = false;
	char path[4096], optjson[512];
	rp_report_ctx_t rctx;
	pthread_t th[64];
	int nth;
	double t_start = _now();

	rp_cli_parse(argc, argv, &o);

	/* the trace */
	trace = loc_trace_load(o.trace, &o.topts, &err);
	if (!trace)
		rp_die_err(EXIT_INPUT, &err);
	if (o.scale_to > 0) {
		double base = trace->max_procs > 0   ? (double)trace->max_procs
			      : trace->max_nodes > 0 ? (double)trace->max_nodes
						     : 0;

		if (base <= 0) {
			for (int i = 0; i < trace->njobs; i++)
				if (trace->jobs[i].procs > base)
					base = (double)trace->jobs[i].procs;
		}
		if (base <= 0 || loc_trace_scale(trace, base / o.scale_to)) {
			fprintf(stderr, "%s: --scale-to: cannot scale %s\n",
				PROG, o.trace);
			return EXIT_INPUT;
		}
	}

	/* the machine (--export-jobs can do without one) */
	if (o.machine.derive) {
		int n = o.machine_nodes;

		if (!n && o.scale_to > 0)
			n = (int)o.scale_to;
		if (!n && o.machines_file) {
			n = rp_machines_total(o.machines_file);
			if (n < 0) {
				fprintf(stderr,
					"%s: %s: not a machine list (id name "
					"nodes cpus ...)\n",
					PROG, o.machines_file);
				return EXIT_INPUT;
			}
		}
		if (!n && trace->max_procs > 0)
			n = (int)ceil((double)trace->max_procs /
					      trace->procs_per_node -
				      1e-9);
		if (!n && trace->max_nodes > 0)
			n = (int)trace->max_nodes;
		if (!n && trace->nnode_names)
			n = trace->nnode_names;
		for (int i = 0; !n && i < trace->njobs; i++)
			if (trace->jobs[i].nodes > n)
				n = trace->jobs[i].nodes;
		o.machine.derive_nodes = n;
	}
	m = rp_has_machine(&o) ? rp_machine_create(&o.machine, trace, &err)
			       : NULL;
	if (!m && rp_has_machine(&o))
		rp_die_err(EXIT_INPUT, &err);
	if (o.show_config) {
		char buf[2048];

		printf("%s\n", loc_conf_describe(m->conf, buf, sizeof(buf)));
		printf("machine: %s, %d nodes%s\n",
		       loc_grid_describe(m->grid, buf, sizeof(buf)), m->nnodes,
		       m->named ? " (named from the trace/config)" : "");
		rp_machine_destroy(m);
		loc_trace_destroy(trace);
		return 0;
	}

	/* the workload */
	wo.round = o.round;
	wo.limit = o.limit;
	wo.machine_nodes = m ? m->nnodes : 0;
	wo.shape = m ? loc_grid_shape(m->grid) : NULL;
	w = rp_workload_create(trace, &wo, &err);
	if (!w)
		rp_die_err(EXIT_RUNTIME, &err);
	if (o.export_jobs && rp_export_jobs(&o, trace, w, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	else if (!o.export_jobs && (!o.quiet || o.dry_run))
		_trace_report(trace, w);
	if (o.dry_run || o.export_jobs) {
		rp_workload_destroy(w);
		rp_machine_destroy(m);
		loc_trace_destroy(trace);
		return 0;
	}
	if (w->njobs == 0) {
		fprintf(stderr, "%s: %s: no job to replay\n", PROG, o.trace);
		return EXIT_INPUT;
	}

	/* rows */
	memset(&c, 0, sizeof(c));
	c.specs = calloc(MAX_ROWS, sizeof(spec_t));
	c.rows = calloc(MAX_ROWS, sizeof(rp_row_t));
	if (!c.specs || !c.rows) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return EXIT_RUNTIME;
	}
	if (o.strategies) {
		nitems = rp_split(o.strategies, items, MAX_ROWS);
	} else {
		static char def[64];

		snprintf(def, sizeof(def), "%s",
			 loc_strategy_kind_name(m->conf->policy.strategy));
		items[0] = def;
		nitems = 1;
	}
	if (o.walltime) {
		nmodes = rp_split(o.walltime, modes, RP_W_COUNT * 4);
	} else {
		static char none[] = "none";

		modes[0] = none;
		nmodes = 1;
	}
	if (o.curve && loc_curve_kind_parse(o.curve) < 0)
		rp_usage_error("--curve: unknown curve '%s'", o.curve);
	for (int i = 0; i < nitems; i++) {
		char *slash = strchr(items[i], '/');
		int kind, curve = -1;

		if (slash) {
			*slash = '\0';
			curve = loc_curve_kind_parse(slash + 1);
			if (curve < 0)
				rp_usage_error(
					"--strategies: unknown curve '%s'",
					slash + 1);
		}
		kind = loc_strategy_kind_parse(items[i]);
		if (kind < 0)
			rp_usage_error("--strategies: unknown strategy '%s'",
				       items[i]);
		for (int k = 0; k < nmodes; k++) {
			int mode = rp_wmode_parse(modes[k]);
			rp_row_t *row = &c.rows[nrows];

			if (mode < 0)
				rp_usage_error(
					"--walltime: '%s' is not none, sl, pf, "
					"combo, adjest or actrun",
					modes[k]);
			if (nrows == MAX_ROWS)
				rp_usage_error("%s",
					       "too many rows (at most 256)");
			c.specs[nrows].strategy = kind;
			c.specs[nrows].curve = curve;
			c.specs[nrows].wmode = mode;
			snprintf(row->name, sizeof(row->name), "%s%s%s%s%s",
				 loc_strategy_kind_name(kind),
				 curve >= 0 ? "/" : "",
				 curve >= 0 ? loc_curve_kind_name(curve) : "",
				 mode != RP_W_NONE ? "+" : "",
				 mode != RP_W_NONE ? rp_wmode_name(mode) : "");
			for (int q = 0; q < nrows; q++)
				if (!strcmp(c.rows[q].name, row->name))
					rp_usage_error("row '%s' given twice",
						       row->name);
			nrows++;
		}
	}
	if (o.decision) {
		ndecs = rp_split(o.decision, decs, 64);
		c.dec = calloc(ndecs + 1, sizeof(*c.dec));
		for (int d = 0; d < ndecs; d++) {
			int kind = loc_strategy_kind_parse(decs[d]);

			if (kind < 0)
				rp_usage_error(
					"--decision: unknown strategy '%s'",
					decs[d]);
			c.dec[d] = kind;
		}
	}

	/* snapshot times */
	c.snaps = calloc(MAX_SNAPS + 1, sizeof(int64_t));
	if (o.no_svg) {
		c.nsnaps = 0;
	} else if (o.snap_at) {
		char *list[MAX_SNAPS];
		int n = rp_split(o.snap_at, list, MAX_SNAPS);

		for (int i = 0; i < n; i++)
			c.snaps[i] = w->jobs[0].submit +
				     (int64_t)rp_real_arg("--snapshot-at",
							  list[i], 0);
		c.nsnaps = n;
		for (int i = 1; i < n; i++)
			if (c.snaps[i] < c.snaps[i - 1])
				rp_usage_error(
					"%s",
					"--snapshot-at: times must ascend");
	} else {
		int64_t a = w->jobs[0].submit, b = w->jobs[w->njobs - 1].submit;

		for (int i = 0; i < o.nsnaps; i++)
			c.snaps[i] = a + (b - a) * (i + 1) / (o.nsnaps + 1);
		c.nsnaps = o.nsnaps;
	}

	/* the recorded placement */
	if (!o.no_recorded && trace->nnode_names > 0) {
		loc_curve_kind_t rc_curve =
			o.curve ? (loc_curve_kind_t)loc_curve_kind_parse(
					  o.curve)
				: m->conf->policy.curve;

		memset(&recorded, 0, sizeof(recorded));
		if (rp_row_recorded(&recorded, trace, w, m, rc_curve, c.snaps,
				    c.nsnaps, o.loc_le, &err))
			rp_die_err(EXIT_INPUT, &err);
		have_recorded = true;
	}

	/* run */
	memset(&prog, 0, sizeof(prog));
	pthread_mutex_init(&prog.lock, NULL);
	prog.on = o.progress == 1 || (o.progress < 0 && !o.quiet && isatty(2));
	prog.nrows = nrows;
	prog.done = calloc(nrows + 1, sizeof(int));
	prog.total = calloc(nrows + 1, sizeof(int));
	c.o = &o;
	c.conf = m->conf;
	c.m = m;
	c.w = w;
	c.nrows = nrows;
	c.ndec = ndecs;
	c.prog = &prog;
	pthread_mutex_init(&c.lock, NULL);
	nth = o.threads < nrows ? o.threads : nrows;
	for (int i = 0; i < nth; i++)
		if (pthread_create(&th[i], NULL, _worker, &c)) {
			nth = i;
			break;
		}
	if (!nth)
		_worker(&c);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (prog.on)
		fprintf(stderr, "\r%*s\r", 80, "");
	if (c.failed)
		rp_die_err(EXIT_RUNTIME, &c.err);

	/* outputs */
	{
		int n = 0;

		if (have_recorded)
			rowp[n++] = &recorded;
		for (int r = 0; r < nrows; r++)
			rowp[n++] = &c.rows[r];
		nrows = n;
	}
	if (mkdir(o.out, 0777) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: cannot create: %s\n", PROG, o.out,
			strerror(errno));
		return EXIT_RUNTIME;
	}
	_options_json(&o, trace, optjson, sizeof(optjson));
	{
		const char *base = strrchr(o.trace, '/');

		rctx.trace = trace;
		rctx.w = w;
		rctx.m = m;
		rctx.trace_name = base ? base + 1 : o.trace;
		rctx.options = optjson;
	}
	snprintf(path, sizeof(path), "%s/summary.json", o.out);
	if (rp_write_summary(path, &rctx, rowp, nrows, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	for (int r = 0; r < nrows; r++) {
		snprintf(path, sizeof(path), "%s/%s.csv", o.out, rowp[r]->file);
		if (rp_write_csv(path, &rctx, rowp[r], &err))
			rp_die_err(EXIT_RUNTIME, &err);
		for (int s = 0; s < rowp[r]->nsnaps; s++) {
			snprintf(path, sizeof(path), "%s/occupancy-%s-%d.svg",
				 o.out, rowp[r]->file, s + 1);
			if (rp_svg_occupancy(path, m, rowp[r], s,
					     w->jobs[0].submit, &err))
				rp_die_err(EXIT_RUNTIME, &err);
		}
	}
	if (!o.no_svg) {
		if (rp_svg_distributions(o.out, rowp, nrows, &err))
			rp_die_err(EXIT_RUNTIME, &err);
	}
	/* rejected jobs: reported, never lost */
	{
		FILE *f = NULL;

		for (int r = 0; r < nrows; r++) {
			const rp_run_t *run = rowp[r]->run;

			for (int j = 0; run && j < w->njobs; j++) {
				if (run->reject[j] == RP_OK)
					continue;
				if (!f) {
					snprintf(path, sizeof(path),
						 "%s/rejected.csv", o.out);
					f = fopen(path, "w");
					if (!f) {
						fprintf(stderr,
							"%s: %s: cannot "
							"write\n",
							PROG, path);
						return EXIT_RUNTIME;
					}
					fprintf(f, "row,job_id,submit,"
						   "requested_nodes,reason\n");
				}
				fprintf(f, "%s,%s,%lld,%d,%s\n", rowp[r]->name,
					trace->jobs[w->jobs[j].trace_index].id,
					(long long)w->jobs[j].submit,
					w->jobs[j].nodes,
					rp_reject_name(run->reject[j]));
			}
		}
		if (f)
			fclose(f);
	}
	if (!o.quiet) {
		rp_print_table(stdout, &rctx, rowp, nrows);
		for (int r = 0; r < nrows; r++) {
			const rp_row_t *row = rowp[r];

			if (row->sum.rejected_no_fit ||
			    row->sum.rejected_too_large)
				fprintf(stderr,
					"%s: %s: %d jobs larger than the "
					"machine, %d with no placement on an "
					"empty machine (see rejected.csv)\n",
					PROG, row->name,
					row->sum.rejected_too_large,
					row->sum.rejected_no_fit);
			if (!row->recorded)
				fprintf(stderr,
					"%s: %s: %d jobs in %.2f s (%lld "
					"allocator calls)\n",
					PROG, row->name, row->sum.jobs,
					row->cpu_sec,
					(long long)row->run->alloc_calls);
		}
		fprintf(stderr, "%s: total %.2f s with %d threads\n", PROG,
			_now() - t_start, nth ? nth : 1);
	}

	/* regression */
	if (o.golden) {
		snprintf(path, sizeof(path), "%s/summary.json", o.out);
		if (o.update_golden) {
			if (_copy_file(path, o.golden, &err))
				rp_die_err(EXIT_RUNTIME, &err);
			if (!o.quiet)
				fprintf(stderr,
					"%s: golden summary written to %s\n",
					PROG, o.golden);
		} else {
			rp_json_t *g = rp_json_load(o.golden, &err), *now;
			int nd;

			if (!g)
				rp_die_err(EXIT_INPUT, &err);
			now = rp_json_load(path, &err);
			if (!now)
				rp_die_err(EXIT_RUNTIME, &err);
			nd = rp_json_compare(g, now, o.tolerance, NULL, 0);
			if (nd) {
				fprintf(stderr,
					"%s: regression: %d figure%s drifted "
					"from %s beyond the tolerance of "
					"%g%%:\n",
					PROG, nd, nd > 1 ? "s" : "", o.golden,
					100.0 * o.tolerance);
				rp_json_compare(g, now, o.tolerance, stderr,
						40);
				rc = EXIT_DRIFT;
			} else if (!o.quiet) {
				fprintf(stderr,
					"%s: regression: matches %s (tolerance "
					"%g%%)\n",
					PROG, o.golden, 100.0 * o.tolerance);
			}
			rp_json_free(g);
			rp_json_free(now);
		}
	}

	if (have_recorded)
		rp_row_free(&recorded);
	for (int r = 0; r < c.nrows; r++)
		rp_row_free(&c.rows[r]);
	free(c.rows);
	free(c.specs);
	free(c.snaps);
	free(c.dec);
	free(prog.done);
	free(prog.total);
	rp_workload_destroy(w);
	rp_machine_destroy(m);
	loc_trace_destroy(trace);
	return rc;
}
