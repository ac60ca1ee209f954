/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_run.c - the input, rows, threaded replay and standard outputs that
 * locality-replay and locality-advise share (see rp_run.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rp_export.h"
#include "rp_run.h"

double rp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ===================================================================== */
/* Input                                                                 */
/* ===================================================================== */

void rp_input_free(rp_input_t *in)
{
	rp_workload_destroy(in->w);
	rp_machine_destroy(in->m);
	loc_trace_destroy(in->trace);
	memset(in, 0, sizeof(*in));
}

/* The node count --derive-grid sizes the torus for. */
static int _derive_nodes(const rp_opts_t *o, const loc_trace_t *trace,
			 loc_error_t *err)
{
	int n = o->machine_nodes;

	if (!n && o->scale_to > 0)
		n = (int)o->scale_to;
	if (!n && o->machines_file) {
		n = rp_machines_total(o->machines_file);
		if (n < 0)
			return loc_error_set(err, LOC_EPARSE, o->machines_file,
					     0,
					     "not a machine list (id name "
					     "nodes cpus ...)");
	}
	if (!n && trace->max_procs > 0)
		n = (int)ceil((double)trace->max_procs / trace->procs_per_node -
			      1e-9);
	if (!n && trace->max_nodes > 0)
		n = (int)trace->max_nodes;
	if (!n && trace->nnode_names)
		n = trace->nnode_names;
	for (int i = 0; !n && i < trace->njobs; i++)
		if (trace->jobs[i].nodes > n)
			n = trace->jobs[i].nodes;
	return n;
}

rp_workload_t *rp_input_workload(const rp_opts_t *o, const rp_input_t *in,
				 int jitter_s, uint64_t seed, loc_error_t *err)
{
	rp_workload_opts_t wo = { 0 };

	wo.round = o->round;
	wo.limit = o->limit;
	wo.arrival_scale = o->arrival_scale;
	wo.arrival_jitter = jitter_s;
	wo.jitter_seed = seed;
	wo.machine_nodes = in->m ? in->m->nnodes : 0;
	wo.shape = in->m ? loc_grid_shape(in->m->grid) : NULL;
	return rp_workload_create(in->trace, &wo, err);
}

int rp_input_load(rp_opts_t *o, rp_input_t *in, loc_error_t *err)
{
	loc_trace_t *trace;
	int rc;

	memset(in, 0, sizeof(*in));
	trace = loc_trace_load(o->trace, &o->topts, err);
	if (!trace)
		return err->code ? err->code : LOC_EINVAL;
	in->trace = trace;
	if (o->scale_to > 0) {
		double base = trace->max_procs > 0   ? (double)trace->max_procs
			      : trace->max_nodes > 0 ? (double)trace->max_nodes
						     : 0;

		for (int i = 0; base <= 0 && i < trace->njobs; i++)
			if (trace->jobs[i].procs > base)
				base = (double)trace->jobs[i].procs;
		if (base <= 0 || loc_trace_scale(trace, base / o->scale_to)) {
			rc = loc_error_set(err, LOC_EINVAL, o->trace, 0,
					   "--scale-to: cannot scale: no "
					   "processor counts");
			goto fail;
		}
	}
	if (o->machine.derive) {
		rc = _derive_nodes(o, trace, err);
		if (rc < 0)
			goto fail;
		o->machine.derive_nodes = rc;
	}
	if (rp_has_machine(o)) {
		in->m = rp_machine_create(&o->machine, trace, err);
		if (!in->m) {
			rc = err->code ? err->code : LOC_EINVAL;
			goto fail;
		}
		/* Traces name no GRES: say so rather than seem to apply
		 * the lines. */
		if (in->m->conf->ngres)
			fprintf(stderr,
				"%s:%d: note: GresName lines apply to no job in a replay (a trace does not say which jobs asked for GRES)\n",
				in->m->conf->path, in->m->conf->gres[0].line);
	}
	in->w = rp_input_workload(o, in, o->arrival_jitter, o->jitter_seed,
				  err);
	if (!in->w) {
		rc = err->code ? err->code : LOC_ENOMEM;
		goto fail;
	}
	return 0;
fail:
	rp_input_free(in);
	return rc;
}

int rp_input_check(const rp_opts_t *o, const rp_input_t *in,
		   loc_error_t *err)
{
	const loc_trace_t *t = in->trace;
	const rp_workload_t *w = in->w;
	const rp_job_t *big = NULL;

	if (w->njobs == 0) {
		if (t->lines == 0)
			return loc_error_set(err, LOC_ENOENT, t->path, 1,
					     "the file is empty: no job to "
					     "replay");
		return loc_error_set(err, LOC_ENOENT, t->path, t->lines,
				     "no job to replay: %d lines, %d "
				     "records, none a finished job (%d "
				     "skipped)",
				     t->lines, t->records,
				     loc_trace_skipped_total(t));
	}
	if (!w->too_large || o->drop_too_large)
		return 0;
	for (int i = 0; i < w->njobs; i++)
		if (w->jobs[i].reject == RP_REJECT_TOO_LARGE &&
		    (!big || w->jobs[i].nodes > big->nodes ||
		     (w->jobs[i].nodes == big->nodes &&
		      w->jobs[i].trace_index < big->trace_index)))
			big = &w->jobs[i];
	return loc_error_set(err, LOC_ERANGE, t->path,
			     t->jobs[big->trace_index].line,
			     "job %s needs %d nodes, the machine (%s) has %d "
			     "(%d job%s too large; --drop-too-large replays "
			     "without them)",
			     t->jobs[big->trace_index].id, big->nodes,
			     in->m->conf->path[0] ? in->m->conf->path : "--grid",
			     in->m->nnodes, w->too_large,
			     w->too_large > 1 ? "s" : "");
}

void rp_print_workload(const loc_trace_t *t, const rp_workload_t *w)
{
	rp_trace_report(stderr, t);
	fprintf(stderr,
		"%s: workload: %d jobs, offered load %.2f; %d larger than the "
		"machine, %d without a walltime request (estimate = "
		"runtime), %d cut at their request, %d rounded up\n",
		PROG, w->njobs, w->offered_load, w->too_large, w->no_request,
		w->truncated, w->rounded);
}

/* ===================================================================== */
/* Rows                                                                  */
/* ===================================================================== */

rp_rowset_t *rp_rowset_create(void)
{
	return calloc(1, sizeof(rp_rowset_t));
}

void rp_rowset_free(rp_rowset_t *set)
{
	if (!set)
		return;
	if (set->have_recorded)
		rp_row_free(&set->recorded);
	for (int r = 0; r < set->nrows; r++)
		rp_row_free(&set->rows[r]);
	free(set);
}

bool rp_spec_has_overrides(const rp_spec_t *sp)
{
	return sp->keys.set != 0;
}

/* The tags of a row's own keys in its name, in name order: goldens and
 * docs hold these names. Other keys are tagged with their own names. */
static const struct {
	loc_conf_key_t key;
	const char *tag;
} _row_tags[] = {
	{ LOC_KEY_COMPACT_WAIT, "cw" },
	{ LOC_KEY_COMPACT_TOL, "ct" },
	{ LOC_KEY_PLAN_WINDOW, "pw" },
	{ LOC_KEY_PLAN_HOLD, "hold" },
};
#define NROW_TAGS (sizeof(_row_tags) / sizeof(_row_tags[0]))

/* Appends " tag=value" for key when sp sets it; returns the new end. */
static size_t _name_key(const rp_spec_t *sp, int key, const char *tag,
			char *buf, size_t len, size_t at)
{
	char val[64];

	if (at >= len || !loc_conf_overrides_has(&sp->keys, key) ||
	    !loc_conf_overrides_value(&sp->keys, key, val, sizeof(val)))
		return at;
	return at + (size_t)snprintf(buf + at, len - at, " %s=%s", tag, val);
}

void rp_spec_name(const rp_spec_t *sp, char *buf, size_t len)
{
	size_t at;

	at = (size_t)snprintf(buf, len, "%s%s%s%s%s",
			      loc_strategy_kind_name(sp->strategy),
			      sp->curve >= 0 ? "/" : "",
			      sp->curve >= 0 ? loc_curve_kind_name(sp->curve)
					     : "",
			      sp->wmode != RP_W_NONE ? "+" : "",
			      sp->wmode != RP_W_NONE ? rp_wmode_name(sp->wmode)
						     : "");
	/* only the set keys: rows without any keep their old names */
	for (size_t t = 0; t < NROW_TAGS; t++)
		at = _name_key(sp, _row_tags[t].key, _row_tags[t].tag, buf,
			       len, at);
	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		bool tagged = false;

		for (size_t t = 0; t < NROW_TAGS; t++)
			tagged |= _row_tags[t].key == (loc_conf_key_t)k;
		if (!tagged)
			at = _name_key(sp, k, loc_conf_key_info(k)->name, buf,
				       len, at);
	}
}

void rp_spec_policy(const rp_spec_t *sp, const rp_opts_t *o,
		    const loc_conf_t *conf, loc_policy_t *pol)
{
	*pol = conf->policy;
	loc_conf_overrides_apply(&o->keys, NULL, pol);
	pol->strategy = sp->strategy;
	if (sp->curve >= 0)
		pol->curve = (loc_curve_kind_t)sp->curve;
	pol->walltime = rp_wmode_policy(sp->wmode);
	/* the row's own values win: locality-advise sweeps them per row */
	loc_conf_overrides_apply(&sp->keys, NULL, pol);
}

void rp_spec_conf(const rp_spec_t *sp, const rp_opts_t *o,
		  const loc_conf_t *conf, loc_conf_t *out)
{
	*out = *conf;
	loc_conf_overrides_apply(&o->keys, out, NULL);
	loc_conf_overrides_apply(&sp->keys, out, NULL);
}

int rp_rowset_add(rp_rowset_t *set, const rp_spec_t *sp, int *dup)
{
	char name[96];

	rp_spec_name(sp, name, sizeof(name));
	for (int q = 0; q < set->nrows; q++)
		if (!strcmp(set->rows[q].name, name)) {
			if (dup)
				*dup = q;
			return -1;
		}
	if (set->nrows == MAX_ROWS)
		return -2;
	set->specs[set->nrows] = *sp;
	snprintf(set->rows[set->nrows].name, sizeof(set->rows[0].name), "%s",
		 name);
	return set->nrows++;
}

void rp_rowset_add_lists(rp_rowset_t *set, char *strategies, char *modes)
{
	char *items[MAX_ROWS], *mlist[RP_W_COUNT * 4];
	int nitems = rp_split(strategies, items, MAX_ROWS);
	int nmodes = rp_split(modes, mlist, RP_W_COUNT * 4);

	for (int i = 0; i < nitems; i++) {
		char *slash = strchr(items[i], '/');
		rp_spec_t sp = RP_SPEC_UNSET;
		int kind;

		if (slash) {
			*slash = '\0';
			sp.curve = loc_curve_kind_parse(slash + 1);
			if (sp.curve < 0)
				rp_usage_error(
					"--strategies: unknown curve '%s'",
					slash + 1);
		}
		kind = loc_strategy_kind_parse(items[i]);
		if (kind < 0)
			rp_usage_error("--strategies: unknown strategy '%s'",
				       items[i]);
		sp.strategy = kind;
		for (int k = 0; k < nmodes; k++) {
			int mode = rp_wmode_parse(mlist[k]), r;

			if (mode < 0)
				rp_usage_error(
					"--walltime: '%s' is not none, sl, pf, "
					"combo, adjest or actrun",
					mlist[k]);
			sp.wmode = mode;
			r = rp_rowset_add(set, &sp, NULL);
			if (r == -2)
				rp_usage_error("%s",
					       "too many rows (at most 256)");
			if (r == -1) {
				char name[96];

				rp_spec_name(&sp, name, sizeof(name));
				rp_usage_error("row '%s' given twice", name);
			}
		}
	}
	if (!set->nrows)
		rp_usage_error("%s", "--strategies and --walltime give no row "
				     "to replay");
}

void rp_rowset_snapshots(rp_rowset_t *set, const rp_opts_t *o,
			 const rp_workload_t *w)
{
	if (o->no_svg) {
		set->nsnaps = 0;
	} else if (o->snap_at) {
		char *list[MAX_SNAPS];
		int n = rp_split(o->snap_at, list, MAX_SNAPS);

		for (int i = 0; i < n; i++)
			set->snaps[i] = w->jobs[0].submit +
					(int64_t)rp_real_arg("--snapshot-at",
							     list[i], 0);
		set->nsnaps = n;
		for (int i = 1; i < n; i++)
			if (set->snaps[i] < set->snaps[i - 1])
				rp_usage_error(
					"%s",
					"--snapshot-at: times must ascend");
	} else {
		int64_t a = w->jobs[0].submit, b = w->jobs[w->njobs - 1].submit;

		for (int i = 0; i < o->nsnaps; i++)
			set->snaps[i] = a + (b - a) * (i + 1) / (o->nsnaps + 1);
		set->nsnaps = o->nsnaps;
	}
}

int rp_rowset_recorded(rp_rowset_t *set, const rp_opts_t *o,
		       const rp_input_t *in, loc_error_t *err)
{
	const rp_spec_t unset = RP_SPEC_UNSET;
	loc_policy_t pol;
	loc_curve_kind_t curve;

	if (o->no_recorded || in->trace->nnode_names <= 0)
		return 0;
	rp_spec_policy(&unset, o, in->m->conf, &pol);
	curve = pol.curve; /* --curve's, else the config's */
	memset(&set->recorded, 0, sizeof(set->recorded));
	if (rp_row_recorded(&set->recorded, in->trace, in->w, in->m, curve,
			    set->snaps, set->nsnaps, o->loc_le, err))
		return err->code ? err->code : LOC_EINVAL;
	set->have_recorded = true;
	return 0;
}

int rp_rowset_all(rp_rowset_t *set, rp_row_t **rows)
{
	int n = 0;

	if (set->have_recorded)
		rows[n++] = &set->recorded;
	for (int r = 0; r < set->nrows; r++)
		rows[n++] = &set->rows[r];
	return n;
}
