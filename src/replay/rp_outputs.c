/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_outputs.c - the standard outputs of a replay (summary.json, ROW.csv,
 * occupancy and distribution pictures, rejected.csv) and its stderr
 * timings (part of rp_run.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rp_run.h"

static void _options_json(const rp_opts_t *o, const loc_trace_t *t, char *buf,
			  size_t len)
{
	snprintf(buf, len,
		 "{\"sched\": \"%s\", \"priority\": \"%s\", "
		 "\"procs_per_node\": %.6f, "
		 "\"round\": \"%s\", \"limit\": %d, "
		 "\"arrival_scale\": %g, \"arrival_jitter_s\": %d, "
		 "\"jitter_seed\": %llu, \"loc_le\": %s, "
		 "\"pf_max_nodes\": %d, \"pf_with_job\": %s, "
		 "\"turnaround_s\": %lld, "
		 "\"strict\": %s}",
		 rp_sched_name(o->sched),
		 o->prio == RP_PRIO_WFP ? "wfp" : "fcfs", t->procs_per_node,
		 o->round == RP_ROUND_POW2  ? "pow2"
		 : o->round == RP_ROUND_BOX ? "box"
					    : "none",
		 o->limit, o->arrival_scale > 0 ? o->arrival_scale : 1,
		 o->arrival_jitter, (unsigned long long)o->jitter_seed,
		 o->loc_le ? "true" : "false", o->pf_max_nodes,
		 o->pf_with_job ? "true" : "false", (long long)o->turnaround, o->topts.strict ? "true" : "false");
}

/* Jobs a row could not run: reported, never lost. */
static int _write_rejected(const char *dir, const rp_input_t *in,
			   rp_row_t *const *rows, int nrows, loc_error_t *err)
{
	const rp_workload_t *w = in->w;
	char path[4096];
	FILE *f = NULL;

	for (int r = 0; r < nrows; r++) {
		const rp_run_t *run = rows[r]->run;

		for (int j = 0; run && j < w->njobs; j++) {
			if (run->reject[j] == RP_OK)
				continue;
			if (!f) {
				snprintf(path, sizeof(path), "%s/rejected.csv",
					 dir);
				f = fopen(path, "w");
				if (!f)
					return loc_error_set(
						err, LOC_EIO, path, 0,
						"cannot write: %s",
						strerror(errno));
				fprintf(f, "row,job_id,submit,requested_nodes,"
					   "reason\n");
			}
			fprintf(f, "%s,%s,%lld,%d,%s\n", rows[r]->name,
				in->trace->jobs[w->jobs[j].trace_index].id,
				(long long)w->jobs[j].submit, w->jobs[j].nodes,
				rp_reject_name(run->reject[j]));
		}
	}
	if (f && fclose(f))
		return loc_error_set(err, LOC_EIO, path, 0, "write failed");
	return 0;
}

int rp_write_outputs(const char *dir, const rp_opts_t *o, const rp_input_t *in,
		     rp_row_t *const *rows, int nrows,
		     const rp_output_opts_t *what, loc_error_t *err)
{
	const rp_workload_t *w = in->w;
	rp_report_ctx_t rctx;
	char path[4096], optjson[512];
	const char *base = strrchr(o->trace, '/');

	_options_json(o, in->trace, optjson, sizeof(optjson));
	rctx.trace = in->trace;
	rctx.w = w;
	rctx.m = in->m;
	rctx.trace_name = base ? base + 1 : o->trace;
	rctx.options = optjson;
	rctx.turnaround = o->turnaround;
	if (o->sched != RP_SCHED_EASY)
		rctx.sched = rp_sched_name(o->sched);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (rp_write_summary(path, &rctx, rows, nrows, err))
		return err->code;
	for (int r = 0; r < nrows; r++) {
		if (what->per_row_csv) {
			snprintf(path, sizeof(path), "%s/%s.csv", dir,
				 rows[r]->file);
			if (rp_write_csv(path, &rctx, rows[r], err))
				return err->code;
		}
		for (int s = 0; what->pictures && s < rows[r]->nsnaps; s++) {
			snprintf(path, sizeof(path), "%s/occupancy-%s-%d.svg",
				 dir, rows[r]->file, s + 1);
			if (rp_svg_occupancy(path, in->m, rows[r], s,
					     w->jobs[0].submit, err))
				return err->code;
		}
	}
	if (what->pictures && rp_svg_distributions(dir, rows, nrows, err))
		return err->code;
	return _write_rejected(dir, in, rows, nrows, err);
}

void rp_print_timings(const rp_rowset_t *set, rp_row_t *const *rows,
		      int nrows, double elapsed_sec)
{
	for (int r = 0; r < nrows; r++) {
		const rp_row_t *row = rows[r];

		if (row->sum.rejected_no_fit || row->sum.rejected_too_large)
			fprintf(stderr,
				"%s: %s: %d jobs larger than the machine, %d "
				"with no placement on an empty machine (see "
				"rejected.csv)\n",
				PROG, row->name, row->sum.rejected_too_large,
				row->sum.rejected_no_fit);
		if (!row->recorded)
			fprintf(stderr,
				"%s: %s: %d jobs in %.2f s (%lld allocator "
				"calls)\n",
				PROG, row->name, row->sum.jobs, row->cpu_sec,
				(long long)row->run->alloc_calls);
	}
	fprintf(stderr, "%s: total %.2f s with %d threads\n", PROG,
		elapsed_sec, set->threads_used);
}
