/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_report.h - what locality-replay reports: per-job metrics, per-row
 * summaries (wait, bounded slowdown, utilisation, makespan, loss of
 * capacity, locality distributions), the side-by-side table,
 * summary.json, one CSV per row and SVG pictures.
 *
 * Every number is printed with a fixed format and nothing depends on the
 * clock, so identical inputs give byte-identical outputs.
 */
#ifndef RP_REPORT_H
#define RP_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "loc_curve.h"
#include "loc_metrics.h"
#include "rp_machine.h"
#include "rp_sim.h"

#define RP_BSD_BOUND_SEC 10 /* bounded slowdown: runtimes under 10 s count as 10 s */

/* One job of a row. */
typedef struct rp_rowjob {
	int trace_index;
	int64_t submit, start, end;
	int req_nodes;
	int nnodes;
	const int *nodes;   /* borrowed (run pool or the row's own) */
	loc_metrics_t m;
	double ideal_hops;  /* its size's ideal mean pairwise hops
			     * (loc_ideal.h; 0 below 2 nodes or unset) */
} rp_rowjob_t;

/* mean, median (nearest rank), 95th percentile (nearest rank) and the
 * runtime-weighted mean of one per-job figure */
typedef struct rp_stat {
	double mean, median, p95, rw_mean, max;
} rp_stat_t;

typedef struct rp_summary {
	int jobs;
	int rejected_too_large, rejected_no_fit;
	double mean_wait_s, median_wait_s, p95_wait_s, max_wait_s;
	double mean_bsd;
	double utilization;
	/* mean hops of the multi-node jobs over the mean of their sizes'
	 * ideals (1 = every job as compact as the idle machine allows);
	 * 0 when there is none or the ideals are not set */
	double hops_x_ideal;
	int64_t makespan_s;
	double loss_of_capacity;
	rp_stat_t hops;       /* average pairwise hops per job */
	rp_stat_t total_hops; /* total pairwise hops per job (seed 003) */
	rp_stat_t span;       /* linear span on the curve */
	rp_stat_t bbox;       /* bounding box volume (points) */
	rp_stat_t dispersal;
	rp_stat_t components;
	int pf_pairs;         /* regions PF chose for a partner */
	int pf_took;          /* ... partners that started on theirs */
	int backfilled;
} rp_summary_t;

typedef struct rp_row {
	char name[96];        /* row name: "firstfit", "box+sl", "recorded" */
	char file[96];        /* the name made safe for a file name */
	bool recorded;
	rp_rowjob_t *jobs;
	int njobs;
	int *own_nodes;       /* recorded rows: node storage (owned) */
	rp_run_t *run;        /* simulated rows (owned) */
	loc_curve_t *curve;   /* recorded rows: curve for spans (owned) */
	rp_summary_t sum;
	/* snapshots: owner[s][node] = row job index or -1 (owned) */
	int nsnaps;
	int64_t *snap_time;
	int **snap_owner;
	/* decision allocators (seed 003): mean total pair hops each */
	int ndecision;
	char (*decision_name)[48];
	double *decision_mean;
	double cpu_sec;       /* time the replay took (stderr only) */
} rp_row_t;

void rp_row_free(rp_row_t *row);

/*
 * Fills row from a finished simulation (row->run, taken over by the row)
 * of workload w on machine m with curve (borrowed, for spans): per-job
 * metrics and the summary. Returns 0 or a LOC_E* code.
 */
int rp_row_from_run(rp_row_t *row, const rp_workload_t *w,
		    const rp_machine_t *m, const loc_curve_t *curve,
		    bool loc_le);

/*
 * Fills row with the trace's recorded placement (jobs of w that carry a
 * node list), on machine m; snap_times as for the simulated rows.
 * Returns 0 or a LOC_E* code.
 */
int rp_row_recorded(rp_row_t *row, const loc_trace_t *trace,
		    const rp_workload_t *w, const rp_machine_t *m,
		    loc_curve_kind_t curve, const int64_t *snap_times,
		    int nsnaps, bool loc_le, loc_error_t *err);

/*
 * Sets each job's ideal_hops and each row's sum.hops_x_ideal from the
 * ideal placement of its size on machine m (loc_ideal.h; each size is
 * computed once for all rows). Returns 0 or a LOC_E* code with err filled.
 */
int rp_rows_set_ideal(rp_row_t *const *rows, int nrows,
		      const rp_machine_t *m, loc_error_t *err);

/*
 * Summarises the jobs of row whose keep[trace_index] is set (keep NULL:
 * every job) into s: wait, slowdown, utilisation, makespan, loss of
 * capacity, the locality figures and hops_x_ideal; s's other fields
 * (rejected counts, PF pairs) are left as they were. Returns 0 or
 * LOC_ENOMEM.
 */
int rp_summary_compute(const rp_row_t *row, const uint8_t *keep, int nnodes,
		       bool le, rp_summary_t *s);

/*
 * Loss of capacity, seed 004 eq. (1): scheduling events t_1..t_m are the
 * distinct submit, start and end times; between t_i and t_{i+1} the idle
 * node count n_i counts when a job is waiting whose size is smaller than
 * n_i (le: smaller or equal); the sum of n_i (t_{i+1} - t_i) is divided
 * by N (t_m - t_1). Returns LoC in [0, 1], or -1 on ENOMEM.
 */
double rp_loss_of_capacity(int nnodes, int n, const int64_t *submit,
			   const int64_t *start, const int64_t *end,
			   const int *size, bool le);

/* Nearest-rank quantile q in (0,1] of the n sorted values. */
double rp_quantile(const double *sorted, int n, double q);

/* Outputs. Each returns 0 or LOC_EIO with err naming the file. */
typedef struct rp_report_ctx {
	const loc_trace_t *trace;
	const rp_workload_t *w;
	const rp_machine_t *m;
	const char *trace_name;  /* as shown (basename) */
	const char *options;     /* JSON object text of the options */
	int64_t turnaround;      /* --turnaround: shown when not 0 */
	const char *sched;       /* --sched: shown when not EASY (NULL) */
} rp_report_ctx_t;

int rp_write_summary(const char *path, const rp_report_ctx_t *ctx,
		     rp_row_t *const *rows, int nrows, loc_error_t *err);
int rp_write_csv(const char *path, const rp_report_ctx_t *ctx,
		 const rp_row_t *row, loc_error_t *err);
void rp_print_table(FILE *f, const rp_report_ctx_t *ctx,
		    rp_row_t *const *rows, int nrows);

/* SVG pictures (rp_svg.c), written by hand. */

/* Opens path and writes the <svg> header and a white background. Returns
 * the file, or NULL with err naming path. */
FILE *rp_svg_open(const char *path, int width, int height, int font_size,
		  loc_error_t *err);
/* Writes </svg> and closes f. Returns 0 or LOC_EIO with err naming path. */
int rp_svg_close(FILE *f, const char *path, loc_error_t *err);
/* Writes s with <, > and & escaped. */
void rp_svg_esc(FILE *f, const char *s);
/* Colour i of the colour-blind friendly palette (wraps around). */
const char *rp_svg_colour(int i);

/* A plot area: box, 4x4 grid, tick values and axis labels. */
typedef struct rp_svg_frame {
	int left, top, width, height;  /* plot area in pixels */
	double xlo, xhi, ylo, yhi;     /* data range shown */
	int ydigits;                   /* decimals of the y tick values */
	const char *xlabel;
	const char *ylabel;            /* may be NULL */
} rp_svg_frame_t;
void rp_svg_frame(FILE *f, const rp_svg_frame_t *fr);
/* x or y in data units -> pixels inside fr */
#define RP_SVG_X(fr, x) \
	((fr)->left + (fr)->width * ((x) - (fr)->xlo) / ((fr)->xhi - (fr)->xlo))
#define RP_SVG_Y(fr, y)                           \
	((fr)->top + (fr)->height -                \
	 (fr)->height * ((y) - (fr)->ylo) / ((fr)->yhi - (fr)->ylo))

/* Occupancy of row's snapshot snap, coloured by job; t0 is shown as
 * time 0. */
int rp_svg_occupancy(const char *path, const rp_machine_t *m,
		     const rp_row_t *row, int snap, int64_t t0,
		     loc_error_t *err);
/* Empirical CDF of each per-job figure, one line per row: writes
 * dir/dist-<figure>.svg. */
int rp_svg_distributions(const char *dir, rp_row_t *const *rows, int nrows,
			 loc_error_t *err);

#endif /* RP_REPORT_H */
