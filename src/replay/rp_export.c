/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_export.c - locality-replay --export-jobs: the workload a replay would
 * run, written as a table other tools (testsuite/slurm/workload.sh) read
 * instead of parsing traces again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rp_export.h"

void rp_trace_report(FILE *f, const loc_trace_t *t)
{
	fprintf(f, "%s: %s: %d lines, %d records, %d jobs", PROG, t->path,
		t->lines, t->records, t->njobs);
	if (loc_trace_skipped_total(t)) {
		fprintf(f, "; skipped:");
		for (int i = 0; i < LOC_SKIP_COUNT; i++)
			if (t->skipped[i])
				fprintf(f, " %s %d (first at line %d)",
					loc_trace_skip_name(i), t->skipped[i],
					t->skip_first_line[i]);
	}
	fprintf(f, "\n");
}

int rp_export_jobs(const rp_opts_t *o, const loc_trace_t *t,
		   const rp_workload_t *w, loc_error_t *err)
{
	bool out = !strcmp(o->export_jobs, "-");
	FILE *f = out ? stdout : fopen(o->export_jobs, "w");
	int64_t t0 = w->njobs ? w->jobs[0].submit : 0;
	int n = 0, rc = 0;

	if (!f)
		return loc_error_set(err, LOC_EIO, o->export_jobs, 0,
				     "cannot write: %s", strerror(errno));
	fprintf(f, "# format %s\n",
		t->format == LOC_TRACE_SACCT ? "sacct" : "swf");
	fprintf(f, "# id submit runtime requested nodes procs\n");
	for (int i = 0; i < w->njobs; i++) {
		const rp_job_t *j = &w->jobs[i];
		const loc_trace_job_t *tj = &t->jobs[j->trace_index];
		int64_t req = tj->requested == LOC_TRACE_UNKNOWN ||
					      tj->requested <= 0
				      ? -1
				      : tj->requested;

		if (j->reject == RP_REJECT_TOO_LARGE)
			continue;
		fprintf(f, "%s %lld %lld %lld %d %lld\n", tj->id,
			(long long)(j->submit - t0), (long long)tj->runtime,
			(long long)req, j->nodes, (long long)tj->procs);
		n++;
	}
	if (fflush(f) || ferror(f))
		rc = loc_error_set(err, LOC_EIO, o->export_jobs, 0,
				   "write failed: %s", strerror(errno));
	if (!out && fclose(f) && !rc)
		rc = loc_error_set(err, LOC_EIO, o->export_jobs, 0,
				   "write failed: %s", strerror(errno));
	if (rc || o->quiet)
		return rc;
	rp_trace_report(stderr, t);
	fprintf(stderr,
		"%s: exported %d jobs to %s; %d larger than the machine left "
		"out, %d rounded up, %d ran past their request (a replay cuts "
		"them there)\n",
		PROG, n, out ? "stdout" : o->export_jobs, w->too_large,
		w->rounded, w->truncated);
	return 0;
}
