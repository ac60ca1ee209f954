/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_run.h - one replay from command line to outputs, shared by
 * locality-replay and locality-advise: the input (trace, machine,
 * workload) and its checks, the rows (strategy x curve x walltime mode,
 * plus the trace's recorded placement), the threaded replay with its
 * progress bar, and the standard outputs (summary.json, ROW.csv, SVG
 * pictures, rejected.csv).
 */
#ifndef RP_RUN_H
#define RP_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_error.h"
#include "loc_trace.h"
#include "rp_cli.h"
#include "rp_machine.h"
#include "rp_report.h"
#include "rp_sim.h"

/* What a replay reads: all owned. */
typedef struct rp_input {
	loc_trace_t *trace;
	rp_machine_t *m;   /* NULL when the options name no machine */
	rp_workload_t *w;
} rp_input_t;

/*
 * Loads o->trace, applies --scale-to, builds the machine (when o names
 * one; o->machine.derive_nodes is filled for --derive-grid) and the
 * workload. Returns 0, or a LOC_E* code with err filled (file and line
 * when there is one); in is then empty.
 */
int rp_input_load(rp_opts_t *o, rp_input_t *in, loc_error_t *err);
void rp_input_free(rp_input_t *in);

/* The workload of in's trace and machine under o's options, with its
 * arrival jitter (--arrival-jitter) jitter_s and seed instead of o's:
 * rp_input_load's, and locality-advise --validate's draws. NULL on
 * ENOMEM; free with rp_workload_destroy. */
rp_workload_t *rp_input_workload(const rp_opts_t *o, const rp_input_t *in,
				 int jitter_s, uint64_t seed,
				 loc_error_t *err);

/*
 * Checks that the workload can be replayed as asked: at least one job,
 * and no job larger than the machine unless o->drop_too_large. Returns 0,
 * or LOC_ENOENT / LOC_ERANGE with err naming the trace and a line.
 */
int rp_input_check(const rp_opts_t *o, const rp_input_t *in,
		   loc_error_t *err);

/*
 * One simulated row. Its own key values (keys) let locality-advise
 * compare values of CompactWait, CompactTolerance, PlanWindow and
 * PlanHold row by row; a key the row does not set falls back to the
 * command line's (--compact-wait, --set ...), then to locality.conf.
 */
typedef struct rp_spec {
	loc_strategy_kind_t strategy;
	int curve;          /* -1 = the config's (or --curve) */
	rp_wmode_t wmode;
	loc_conf_overrides_t keys; /* the row's own; none set = none */
} rp_spec_t;

/* A spec with every field "the config's": strategy 0, no walltime mode. */
#define RP_SPEC_UNSET { .curve = -1, .wmode = RP_W_NONE }

/* The policy a row is replayed with: locality.conf's, under the options
 * of o (--curve, --sl-tolerance, --compact-wait ...), under the row's own
 * strategy, curve, mode and keys. */
void rp_spec_policy(const rp_spec_t *sp, const rp_opts_t *o,
		    const loc_conf_t *conf, loc_policy_t *pol);

/* As rp_spec_policy for the keys outside the policy (AdjEstWindow ...):
 * out is a shallow copy of conf (its lines stay conf's: do not free). */
void rp_spec_conf(const rp_spec_t *sp, const rp_opts_t *o,
		  const loc_conf_t *conf, loc_conf_t *out);

/* Whether the spec sets any key of its own. */
bool rp_spec_has_overrides(const rp_spec_t *sp);

/* The rows of one replay. */
typedef struct rp_rowset {
	rp_spec_t specs[MAX_ROWS];
	rp_row_t rows[MAX_ROWS];
	int nrows;
	rp_row_t recorded;  /* valid when have_recorded */
	bool have_recorded;
	int64_t snaps[MAX_SNAPS + 1];
	int nsnaps;
	int threads_used;
} rp_rowset_t;

/* Returns a zeroed row set (free with rp_rowset_free), or NULL. */
rp_rowset_t *rp_rowset_create(void);
void rp_rowset_free(rp_rowset_t *set);

/* The row name of a spec: "mm", "bestfit/rowmajor", "box+sl", and with
 * overrides "pack+sl cw=60 ct=0.1 pw=30 hold=released" (only the set
 * ones). Rows with different overrides have different names. */
void rp_spec_name(const rp_spec_t *sp, char *buf, size_t len);

/*
 * Adds one row. Returns its index, or -1 when a row of that name exists
 * (the existing index is then *dup when dup is not NULL), or -2 when the
 * set is full.
 */
int rp_rowset_add(rp_rowset_t *set, const rp_spec_t *sp, int *dup);

/*
 * Adds every strategy[/curve] of the comma list strategies with every
 * mode of the comma list modes (each list is modified). Unknown names and
 * duplicate rows are usage errors (exit 1).
 */
void rp_rowset_add_lists(rp_rowset_t *set, char *strategies, char *modes);

/* Snapshot times from o (--snapshots, --snapshot-at, --no-svg). Bad
 * times are usage errors (exit 1). */
void rp_rowset_snapshots(rp_rowset_t *set, const rp_opts_t *o,
			 const rp_workload_t *w);

/* Adds the recorded row when the trace has node lists and o allows.
 * Returns 0 or a LOC_E* code with err filled. */
int rp_rowset_recorded(rp_rowset_t *set, const rp_opts_t *o,
		       const rp_input_t *in, loc_error_t *err);

/* Replays every row on o->threads threads, with the progress bar of
 * o->progress, then sets every row's (the recorded one's too) ratio to
 * the ideal (rp_rows_set_ideal). Returns 0 or the first row's LOC_E* code
 * with err filled. */
int rp_rowset_run(rp_rowset_t *set, const rp_opts_t *o, const rp_input_t *in,
		  loc_error_t *err);

/* As rp_rowset_run, for the rows from first on (the earlier ones keep
 * their figures): locality-advise's sweep adds rows after a replay. */
int rp_rowset_run_from(rp_rowset_t *set, int first, const rp_opts_t *o,
		       const rp_input_t *in, loc_error_t *err);

/* Fills rows with the recorded row (if any) then every simulated row.
 * Returns the count. rows must hold MAX_ROWS + 1. */
int rp_rowset_all(rp_rowset_t *set, rp_row_t **rows);

/* What rp_write_outputs writes beside summary.json and rejected.csv. */
typedef struct rp_output_opts {
	bool per_row_csv;   /* ROW.csv */
	bool pictures;      /* occupancy-ROW-I.svg, dist-FIGURE.svg */
} rp_output_opts_t;

/*
 * Writes the replay's outputs into dir. Returns 0 or LOC_EIO / LOC_ENOMEM
 * with err naming the file.
 */
int rp_write_outputs(const char *dir, const rp_opts_t *o, const rp_input_t *in,
		     rp_row_t *const *rows, int nrows,
		     const rp_output_opts_t *what, loc_error_t *err);

/* Prints the stderr lines after a replay (rejected counts, timings). */
void rp_print_timings(const rp_rowset_t *set, rp_row_t *const *rows,
		      int nrows, double elapsed_sec);

/* Prints the trace's reading report and the workload's on stderr. */
void rp_print_workload(const loc_trace_t *t, const rp_workload_t *w);

/* Seconds on the monotonic clock. */
double rp_now(void);

#endif /* RP_RUN_H */
