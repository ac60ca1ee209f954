/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_report_write.c - the replay's outputs from summarized rows:
 * summary.json, the per-row CSV and the side-by-side table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rp_report.h"

/* ===================================================================== */
/* summary.json                                                          */
/* ===================================================================== */

static void _json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Fixed float format: identical inputs, identical bytes. */
static void _num(FILE *f, double x)
{
	if (!isfinite(x))
		x = 0;
	fprintf(f, "%.6f", x);
}

/* One more number field of a strategy's object: the comma ending the
 * field before it, then "key": value. */
static void _num_field(FILE *f, const char *key, double x)
{
	fprintf(f, ",\n      \"%s\": ", key);
	_num(f, x);
}

static void _stat_json(FILE *f, const char *name, const rp_stat_t *st,
		       bool last)
{
	fprintf(f, "      \"mean_%s\": ", name);
	_num(f, st->mean);
	fprintf(f, ",\n      \"median_%s\": ", name);
	_num(f, st->median);
	fprintf(f, ",\n      \"p95_%s\": ", name);
	_num(f, st->p95);
	fprintf(f, ",\n      \"rw_mean_%s\": ", name);
	_num(f, st->rw_mean);
	fprintf(f, ",\n      \"max_%s\": ", name);
	_num(f, st->max);
	fprintf(f, "%s\n", last ? "" : ",");
}

static const char *_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int rp_write_summary(const char *path, const rp_report_ctx_t *ctx,
		     rp_row_t *const *rows, int nrows, loc_error_t *err)
{
	FILE *f = fopen(path, "w");
	const loc_trace_t *t = ctx->trace;
	const rp_workload_t *w = ctx->w;
	char desc[256];
	bool first = true;

	if (!f)
		return loc_error_set(err, LOC_EIO, path, 0, "cannot write: %s",
				     strerror(errno));
	fprintf(f, "{\n  \"tool\": \"locality-replay\",\n  \"trace\": {\n");
	fprintf(f, "    \"file\": ");
	_json_str(f, ctx->trace_name ? ctx->trace_name : _base(t->path));
	fprintf(f, ",\n    \"format\": \"%s\",\n",
		t->format == LOC_TRACE_SACCT ? "sacct" : "swf");
	fprintf(f, "    \"lines\": %d,\n    \"records\": %d,\n", t->lines,
		t->records);
	fprintf(f, "    \"jobs\": %d,\n    \"skipped\": {", t->njobs);
	for (int i = 0; i < LOC_SKIP_COUNT; i++) {
		if (!t->skipped[i])
			continue;
		fprintf(f, "%s\n      \"%s\": %d", first ? "" : ",",
			loc_trace_skip_name(i), t->skipped[i]);
		first = false;
	}
	fprintf(f, "%s},\n", first ? "" : "\n    ");
	fprintf(f, "    \"max_nodes\": %lld,\n    \"max_procs\": %lld,\n",
		(long long)t->max_nodes, (long long)t->max_procs);
	fprintf(f, "    \"procs_per_node\": ");
	_num(f, t->procs_per_node);
	fprintf(f, "\n  },\n  \"workload\": {\n");
	fprintf(f, "    \"jobs\": %d,\n    \"too_large\": %d,\n", w->njobs,
		w->too_large);
	fprintf(f, "    \"no_request\": %d,\n    \"truncated\": %d,\n",
		w->no_request, w->truncated);
	fprintf(f, "    \"rounded\": %d,\n    \"offered_load\": ", w->rounded);
	_num(f, w->offered_load);
	fprintf(f, "\n  },\n");
	fprintf(f, "  \"machine\": {\n    \"shape\": ");
	_json_str(f, loc_grid_describe(ctx->m->grid, desc, sizeof(desc)));
	fprintf(f, ",\n    \"nodes\": %d,\n    \"named\": %s\n  },\n",
		ctx->m->nnodes, ctx->m->named ? "true" : "false");
	fprintf(f, "  \"options\": %s,\n", ctx->options ? ctx->options : "{}");
	fprintf(f, "  \"strategies\": {");
	for (int r = 0; r < nrows; r++) {
		const rp_row_t *row = rows[r];
		const rp_summary_t *s = &row->sum;

		fprintf(f, "%s\n    ", r ? "," : "");
		_json_str(f, row->name);
		fprintf(f, ": {\n      \"jobs\": %d,\n", s->jobs);
		fprintf(f, "      \"rejected_too_large\": %d,\n",
			s->rejected_too_large);
		fprintf(f, "      \"rejected_no_fit\": %d",
			s->rejected_no_fit);
		_num_field(f, "mean_wait_s", s->mean_wait_s);
		_num_field(f, "median_wait_s", s->median_wait_s);
		_num_field(f, "p95_wait_s", s->p95_wait_s);
		_num_field(f, "max_wait_s", s->max_wait_s);
		_num_field(f, "mean_bsd", s->mean_bsd);
		_num_field(f, "utilization", s->utilization);
		_num_field(f, "hops_x_ideal", s->hops_x_ideal);
		fprintf(f, ",\n      \"makespan_s\": %lld",
			(long long)s->makespan_s);
		_num_field(f, "loss_of_capacity", s->loss_of_capacity);
		fprintf(f,
			",\n      \"pf_pairs\": %d,\n      \"pf_took\": %d,"
			"\n      \"backfilled\": %d,\n",
			s->pf_pairs, s->pf_took, s->backfilled);
		if (row->ndecision) {
			fprintf(f,
				"      \"decision_mean_total_pair_hops\": {");
			for (int d = 0; d < row->ndecision; d++) {
				fprintf(f, "%s\n        ", d ? "," : "");
				_json_str(f, row->decision_name[d]);
				fprintf(f, ": ");
				_num(f, row->decision_mean[d]);
			}
			fprintf(f, "\n      },\n");
		}
		_stat_json(f, "pairwise_hops", &s->hops, false);
		_stat_json(f, "total_pair_hops", &s->total_hops, false);
		_stat_json(f, "span", &s->span, false);
		_stat_json(f, "bbox_volume", &s->bbox, false);
		_stat_json(f, "dispersal", &s->dispersal, false);
		_stat_json(f, "components", &s->components, true);
		fprintf(f, "    }");
	}
	fprintf(f, "%s}\n}\n", nrows ? "\n  " : "");
	if (fclose(f))
		return loc_error_set(err, LOC_EIO, path, 0, "write failed: %s",
				     strerror(errno));
	return 0;
}

/* ===================================================================== */
/* CSV and table                                                         */
/* ===================================================================== */

int rp_write_csv(const char *path, const rp_report_ctx_t *ctx,
		 const rp_row_t *row, loc_error_t *err)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return loc_error_set(err, LOC_EIO, path, 0, "cannot write: %s",
				     strerror(errno));
	fprintf(f,
		"job_id,submit,start,end,requested_nodes,nodes,"
		"mean_pairwise_hops,span,bbox_volume,dispersal,components\n");
	for (int i = 0; i < row->njobs; i++) {
		const rp_rowjob_t *j = &row->jobs[i];

		fprintf(f, "%s,%lld,%lld,%lld,%d,",
			ctx->trace->jobs[j->trace_index].id,
			(long long)j->submit, (long long)j->start,
			(long long)j->end, j->req_nodes);
		for (int q = 0; q < j->nnodes; q++) {
			if (q)
				fputc(';', f);
			fputs(ctx->m->names[j->nodes[q]], f);
		}
		fprintf(f, ",%.6f,%d,%lld,%.6f,%d\n", j->m.avg_pair_hops,
			j->m.linear_span, (long long)j->m.bbox_volume,
			j->m.dispersal, j->m.components);
	}
	if (fclose(f))
		return loc_error_set(err, LOC_EIO, path, 0, "write failed: %s",
				     strerror(errno));
	return 0;
}

void rp_print_table(FILE *f, const rp_report_ctx_t *ctx, rp_row_t *const *rows,
		    int nrows)
{
	int wname = 8;
	char desc[256];

	for (int r = 0; r < nrows; r++) {
		int l = (int)strlen(rows[r]->name);

		if (l > wname)
			wname = l;
	}
	fprintf(f, "trace %s: %d jobs replayed of %d read; machine %s (%d nodes)\n",
		ctx->trace_name ? ctx->trace_name : _base(ctx->trace->path),
		ctx->w->njobs, ctx->trace->njobs,
		loc_grid_describe(ctx->m->grid, desc, sizeof(desc)),
		ctx->m->nnodes);
	if (ctx->turnaround)
		fprintf(f, "nodes free %lld s after their job ends "
			   "(--turnaround)\n",
			(long long)ctx->turnaround);
	if (ctx->sched)
		fprintf(f, "scheduling: %s (--sched)\n", ctx->sched);
	fprintf(f,
		"%-*s %7s %10s %8s %6s %11s %6s %7s %7s %7s %7s %8s %9s %6s "
		"%6s %7s\n",
		wname, "row", "jobs", "wait_s", "bsd", "util", "makespan_s",
		"LoC", "hops", "hops50", "hops95", "hopsRW", "span", "bbox",
		"disp", "comps", "x_ideal");
	for (int r = 0; r < nrows; r++) {
		const rp_summary_t *s = &rows[r]->sum;

		fprintf(f,
			"%-*s %7d %10.1f %8.2f %6.3f %11lld %6.3f %7.2f %7.2f "
			"%7.2f %7.2f %8.1f %9.1f %6.3f %6.2f %7.3f\n",
			wname, rows[r]->name, s->jobs, s->mean_wait_s,
			s->mean_bsd, s->utilization, (long long)s->makespan_s,
			s->loss_of_capacity, s->hops.mean, s->hops.median,
			s->hops.p95, s->hops.rw_mean, s->span.mean,
			s->bbox.mean, s->dispersal.mean, s->components.mean,
			s->hops_x_ideal);
	}
}
