/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_main.c - locality-replay: replays a job trace through allocation
 * strategies side by side, on the same core the select/locality plugin
 * runs, and reports wait, slowdown, utilisation, loss of capacity and
 * locality per strategy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rp_cli.h"
#include "rp_export.h"
#include "rp_json.h"
#include "rp_outdir.h"
#include "rp_run.h"

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

/* Removes the partial output, prints err and exits with code. */
static void _fail(rp_outdir_t *od, int code, const loc_error_t *err)
	__attribute__((noreturn));
static void _fail(rp_outdir_t *od, int code, const loc_error_t *err)
{
	rp_outdir_abort(od);
	rp_die_err(code, err);
}

int main(int argc, char **argv)
{
	rp_opts_t o;
	loc_error_t err = { 0 };
	rp_input_t in;
	rp_rowset_t *set;
	rp_row_t *rowp[MAX_ROWS + 1];
	rp_outdir_t od = { 0 };
	rp_output_opts_t what = { .per_row_csv = true };
	char path[4096];
	int nrows, rc = 0;
	double t_start = rp_now();

	rp_cli_parse(argc, argv, &o, RP_MODE_REPLAY);
	if (rp_input_load(&o, &in, &err))
		rp_die_err(err.code == LOC_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT,
			   &err);
	if (o.show_config) {
		char buf[2048];

		printf("%s\n", loc_conf_describe(in.m->conf, buf, sizeof(buf)));
		printf("machine: %s, %d nodes%s\n",
		       loc_grid_describe(in.m->grid, buf, sizeof(buf)),
		       in.m->nnodes,
		       in.m->named ? " (named from the trace/config)" : "");
		rp_input_free(&in);
		return 0;
	}
	/* --export-jobs and --dry-run report the workload as read,
	 * jobs larger than the machine included (they are counted) */
	if (o.export_jobs && rp_export_jobs(&o, in.trace, in.w, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	else if (!o.export_jobs && (!o.quiet || o.dry_run))
		rp_print_workload(in.trace, in.w);
	if (o.dry_run || o.export_jobs) {
		rp_input_free(&in);
		return 0;
	}
	if (rp_input_check(&o, &in, &err))
		rp_die_err(EXIT_INPUT, &err);

	/* rows */
	set = rp_rowset_create();
	if (!set) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return EXIT_RUNTIME;
	}
	{
		const loc_policy_t *pol = &in.m->conf->policy;
		char def[64], mode[16];

		/* Without --strategies and --walltime, the configuration's
		 * own policy; under --plugin topology its walltime mode as
		 * topology/locality places it (SL or none). */
		snprintf(def, sizeof(def), "%s",
			 loc_strategy_kind_name(pol->strategy));
		snprintf(mode, sizeof(mode), "%s",
			 !o.topology_site ? loc_walltime_mode_name(pol->walltime) :
			 loc_policy_sl(pol) ? "sl" : "none");
		rp_rowset_add_lists(set, o.strategies ? o.strategies : def,
				    o.walltime ? o.walltime : mode);
	}
	rp_rowset_snapshots(set, &o, in.w);
	if (rp_rowset_recorded(set, &o, &in, &err))
		rp_die_err(EXIT_INPUT, &err);
	if (rp_rowset_run(set, &o, &in, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	nrows = rp_rowset_all(set, rowp);

	/* outputs: complete or not at all */
	what.pictures = !o.no_svg;
	if (rp_outdir_open(&od, o.out, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	if (rp_write_outputs(od.tmp, &o, &in, rowp, nrows, &what, &err))
		_fail(&od, EXIT_RUNTIME, &err);
	if (rp_outdir_commit(&od, &err))
		rp_die_err(EXIT_RUNTIME, &err);
	if (!o.quiet) {
		rp_report_ctx_t rctx = { .trace = in.trace, .w = in.w,
					 .m = in.m,
					 .turnaround = o.turnaround };
		const char *base = strrchr(o.trace, '/');

		rctx.trace_name = base ? base + 1 : o.trace;
		if (o.sched != RP_SCHED_EASY)
			rctx.sched = rp_sched_name(o.sched);
		rp_print_table(stdout, &rctx, rowp, nrows);
		rp_print_timings(set, rowp, nrows, rp_now() - t_start);
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

	rp_rowset_free(set);
	rp_input_free(&in);
	return rc;
}
