/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_rowfile.h - one replayed row of locality-advise as a file, so that
 * rows replayed by the tasks of a Slurm job array (locality-advise
 * --sbatch) can be merged by another process with the same figures.
 *
 * The file holds the simulator's raw result (rp_run_t: every job's start,
 * end, nodes, reject reason, shadow time and flags, the occupancy
 * snapshots, the counters) and the row's decision figures, not the
 * derived metrics: the reader rebuilds those with rp_row_from_run, the
 * very code a local replay runs, so a merged row is the local row.
 *
 * Text, one record a line, doubles as C99 hex floats (exact):
 *
 *   locality-advise-row 1
 *   plan <16 hex digits: the run's plan id>
 *   name <row name>
 *   failed <LOC_E code, not 0> <text>     (a replay that failed)
 *   run <njobs> <nnodes> <pool> <nsnaps> <ndecision> <started>
 *       <rejected_no_fit> <pf_pairs> <nbackfilled> <deferrals>
 *       <alloc_calls> <events> <decision_count>
 *   job <j> <start> <end> <reject> <first_shadow> <pf> <bf> <node_off>
 *   pool <i> <node> <node> ...            (at most 64 nodes a line)
 *   snap <s> <time> <owner> ...           (one per node)
 *   decision <d> <name> <hops> <mean>
 *   cpu <seconds>
 *   end
 *
 * Anything else, a count that does not match the workload, another plan
 * or another row name is an error naming the file and line.
 */
#ifndef RP_ROWFILE_H
#define RP_ROWFILE_H

#include <stddef.h>

#include "loc_error.h"
#include "rp_report.h"

#define RP_ROWFILE_VERSION 1

/* What a reader checks a row file against. */
typedef struct rp_rowfile_expect {
	const char *plan_id;   /* 16 hex digits */
	const char *name;      /* the row's name */
	int njobs, nnodes, nsnaps, ndecision;
} rp_rowfile_expect_t;

/*
 * Writes path (through path.tmp and a rename, so a reader never sees
 * half a file) for row, replayed: row->run set. With failure_code != 0
 * the file records that the replay failed with failure_text instead.
 * Returns 0 or LOC_EIO with err naming the file.
 */
int rp_rowfile_write(const char *path, const char *plan_id,
		     const rp_row_t *row, int failure_code,
		     const char *failure_text, loc_error_t *err);

/*
 * Reads path into row (row->run, decision_name, decision_mean, cpu_sec;
 * name as ex->name). A recorded failure sets *failure_code and
 * failure_text and leaves row->run NULL. Returns 0, or LOC_EPARSE with
 * err naming path and line, LOC_EIO, LOC_ENOMEM.
 */
int rp_rowfile_read(const char *path, const rp_rowfile_expect_t *ex,
		    rp_row_t *row, int *failure_code, char *failure_text,
		    size_t failure_len, loc_error_t *err);

#endif /* RP_ROWFILE_H */
