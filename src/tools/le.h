/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le.h - locality-eval's parts: the machine model and node names
 * (le_model.c), job records and their reports (le_jobs.c), the picture
 * (le_picture.c), the core's answers for a described state (le_predict.c),
 * the ideal of each job size (le_ideal.c) and the command line
 * (locality-eval.c). Private to the program.
 */
#ifndef LE_H
#define LE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "loc_conf.h"
#include "loc_curve.h"
#include "loc_error.h"
#include "loc_grid.h"
#include "loc_hostlist.h"
#include "loc_patience.h"
#include "loc_plan.h"
#include "loc_record.h"
#include "loc_metrics.h"
#include "loc_strategy.h"
#include "loc_tiers.h"

#define PROG "locality-eval"
#define NO_TIME INT64_MIN

typedef struct job {
	char *id;
	char **names;     /* node names as read (owned) */
	int k;
	int *nodes;       /* grid node indices, ascending (owned) */
	int64_t start;    /* epoch seconds or NO_TIME */
	int64_t end;
	const char *file; /* borrowed from argv */
	int line;
	loc_metrics_t m;
	int has_record;      /* 1: record holds its placement record */
	loc_record_t record;
} job_t;

typedef struct jobs {
	job_t *v;
	int n;
	int cap;
} jobs_t;

typedef struct opts {
	const char *conf_path;
	const char *nodes_expr;
	const char *partition;
	const char *gres;     /* --gres: the GRES the job asks for, a,b */
	const char *strategy;
	const char *curve;
	const char *at;
	const char *busy;
	const char *required;
	bool jobcomp;
	bool use_name;
	bool json;
	bool picture;
	bool quiet;
	bool predict;
	bool contiguous;
	bool check_overlap;
	bool plan;
	bool ideal;
	int k;
	const char **running; /* --plan: "NODES@END" (argv strings) */
	int nrunning;
	const char *now;      /* --plan: the time of the question */
	const char *eligible; /* --plan: when the job's CompactWait began */
	const char **weights; /* --predict: "NODES=W" (argv strings) */
	int nweights;
} opts_t;

/* The machine model built from the conf and the node names. */
typedef struct model {
	loc_conf_t *conf;
	loc_hostlist_t names;
	loc_grid_t *grid;
	loc_curve_t *curve;
	loc_policy_t policy;
} model_t;

/* Name -> node index by binary search over a sorted copy of the names. */
typedef struct name_index {
	char **sorted;  /* borrowed strings */
	int *node;      /* node index of sorted[i] */
	int n;
} name_index_t;

typedef struct summary {
	int jobs;
	int multinode;        /* jobs with k >= 2: the pairwise figures */
	double mean_hops;
	double median_hops;
	double p95_hops;
	double max_hops;
	double mean_components;
	double mean_span;
	double mean_bbox;
	double mean_nodes;
} summary_t;

/* le_model.c: errors end the program (exit 1) with one line on stderr. */
void le_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void le_die_err(const loc_error_t *err) __attribute__((noreturn));
void *le_xcalloc(size_t n, size_t size);
char *le_xstrdup(const char *s);
/* The machine model of --conf (and --nodes, --strategy, --curve). */
void le_model_load(model_t *mo, const opts_t *o);
void le_model_free(model_t *mo);
/* Node names to indices; unknown or twice-listed names are fatal. */
void le_index_build(name_index_t *ix, const loc_hostlist_t *names);
/* Returns the node index of name, or LOC_NONE. */
int le_index_find(const name_index_t *ix, const char *name);
void le_index_free(name_index_t *ix);
/* Sets mark[n] for each node of hostlist expr (what names the option). */
void le_mark_nodes(const name_index_t *ix, const char *expr,
		   const char *what, uint8_t *mark);
/* Returns the compressed hostlist of nodes[0..k) (malloc'd). */
char *le_compress(const model_t *mo, const int *nodes, int k);

/* le_jobs.c: job records. */
/* Parses an epoch number or a local "YYYY-MM-DDTHH:MM:SS" time; NO_TIME
 * when it is neither. */
int64_t le_parse_time(const char *text);
void le_read_file(const char *path, bool force_jobcomp, bool use_name,
		  jobs_t *jobs);
void le_jobs_free(jobs_t *jobs);
/* Resolves every job's names to sorted node indices and its metrics. */
void le_resolve_jobs(const model_t *mo, const name_index_t *ix,
		     jobs_t *jobs);
void le_summarise(const jobs_t *jobs, summary_t *s);
/* A NodeList value that names no node (a job that never ran). */
bool le_empty_nodelist(const char *s);
/* j's node names from hostlist expr; a bad one is fatal. */
void le_set_nodes(job_t *j, const char *expr, const char *file, int line);

/* le_sacct.c: `sacct -P` lines and the placement records of AdminComment
 * or SystemComment (loc_record.h). Column indexes, -1 when absent;
 * comment[] the columns read for a record, in turn. */
typedef struct le_sacct_cols {
	int id, nodes, comment[2], start, end;
} le_sacct_cols_t;
/* JobID|NodeList|AdminComment, the columns without a header line. */
void le_sacct_default_cols(le_sacct_cols_t *cols);
/* Returns true when line is a header (its first field JobID) and sets
 * cols from it; line is cut up either way. */
bool le_sacct_header(char *line, le_sacct_cols_t *cols);
/* Fills j from one line; returns false for a step or a job that never
 * ran. Errors end the program naming file and line. */
bool le_parse_sacct(char *line, const le_sacct_cols_t *cols, job_t *j,
		    const char *file, int lineno);
/* "records: ..." when any job has a record: their mean hops, ideal and
 * ratio, and how many disagree with their NodeList (each named on
 * stderr). */
void le_print_records(const jobs_t *jobs);
void le_print_jobs(const model_t *mo, const jobs_t *jobs);
void le_print_summary(const summary_t *s);
void le_print_json(const model_t *mo, const jobs_t *jobs,
		   const summary_t *s);

/* le_picture.c: an ASCII picture of the grid at one moment (--at). */
void le_print_picture(const model_t *mo, const jobs_t *jobs, const char *at);

/* le_predict.c: the core's answers for a described state. Return the
 * program's exit status. */
int le_predict(const model_t *mo, const opts_t *o);
int le_plan(const model_t *mo, const opts_t *o);

/* le_ideal.c: "K HOPS" per job size (jobs' sizes and -k), ascending: the
 * least mean pairwise hops of K nodes on the idle machine. Returns 0. */
int le_print_ideal(const model_t *mo, const opts_t *o, const jobs_t *jobs);

#endif /* LE_H */
