/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_export.h - locality-replay --export-jobs: the jobs a replay would
 * run, as a plain table, and the trace summary --dry-run prints too.
 */
#ifndef RP_EXPORT_H
#define RP_EXPORT_H

#include <stdio.h>

#include "loc_error.h"
#include "loc_trace.h"
#include "rp_cli.h"
#include "rp_sim.h"

/* Prints "locality-replay: PATH: L lines, R records, J jobs; skipped: ..."
 * (every skip reason with its count and first line) to f. */
void rp_trace_report(FILE *f, const loc_trace_t *t);

/*
 * Writes to o->export_jobs ("-": stdout) a '#' header naming the columns,
 * then one line per job of w the replay would run, in submit order:
 *   id submit runtime requested nodes procs
 * submit in seconds since w's first submit; runtime as recorded (the
 * replay cuts it at the request); requested -1 when unknown; nodes after
 * every sizing option; procs as recorded. Jobs larger than the machine
 * are left out.
 * Unless o->quiet, reports the trace and the counts on stderr. Returns 0,
 * or LOC_EIO with err filled.
 */
int rp_export_jobs(const rp_opts_t *o, const loc_trace_t *t,
		   const rp_workload_t *w, loc_error_t *err);

#endif /* RP_EXPORT_H */
