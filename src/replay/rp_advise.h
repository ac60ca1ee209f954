/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise.h - locality-advise: ranks the rows of one replay by a stated
 * objective against the site's current placement, and reports the
 * ranking (table, ranking.csv, tradeoff.svg) and the locality.conf lines
 * of the best row.
 *
 * Every job counted: rows are compared on the same jobs, the ones the
 * current placement ran. A row that did not run all of them (a strategy
 * that refuses some sizes, as box does) is shown with the count it
 * missed but never ranked nor recommended: its lower wait would come
 * from the jobs it never ran. Its figures are over the current's jobs it
 * did run.
 *
 * The rule: a row is within the wait limit when its mean wait is at most
 * max_wait_ratio times the current row's. Rows within the limit rank
 * first, by the objective (mean hops, mean wait or mean bounded
 * slowdown, lowest first), then by mean hops, mean wait and name; rows
 * over the limit follow in the same order. Rows that missed jobs come
 * next, unranked, in the same order; the recorded row (the trace's own
 * placement) last, unranked: it is not a configuration.
 */
#ifndef RP_ADVISE_H
#define RP_ADVISE_H

#include <stdbool.h>
#include <stdio.h>

#include "loc_conf.h"
#include "rp_cli.h"
#include "rp_report.h"
#include "rp_run.h"

typedef struct rp_advice_row {
	const rp_row_t *row;     /* borrowed */
	const rp_spec_t *spec;   /* borrowed; NULL for the recorded row */
	bool current;
	bool candidate;          /* a configuration that ran every job the
				  * current placement ran */
	bool within_limit;
	int served;              /* jobs the row ran (of the whole workload) */
	int not_served;          /* jobs the current ran and this row did not */
	rp_summary_t compared;   /* figures over the current's jobs this row
				  * ran (all of them for a candidate) */
	double score;            /* the objective's figure, from compared */
	int rank;                /* 1 = best; 0 = not ranked (not a
				  * candidate, or recorded) */
} rp_advice_row_t;

typedef struct rp_advice {
	rp_advice_row_t rows[MAX_ROWS + 1]; /* ranked rows first, by rank */
	int nrows;
	int current;             /* index in rows */
	int compared_jobs;       /* jobs the current ran: the common basis */
	int best;                /* index of rank 1 within the limit, or -1 */
	rp_objective_t objective;
	double max_wait_ratio;
	double wait_limit_s;
} rp_advice_t;

/* The objective's name ("hops", "wait", "slowdown"). */
const char *rp_objective_name(rp_objective_t obj);

/* The objective's figure of a summary: mean hops, mean wait (s) or mean
 * bounded slowdown. Lower is better. */
double rp_advise_score(const rp_summary_t *s, rp_objective_t obj);

/*
 * Ranks the rows of set (the recorded one included when present) with
 * current_row the index of the current placement among
 * rp_rowset_all()'s rows, on a machine of nnodes (loc_le: loss of
 * capacity's rule, as the replay's). Returns 0, LOC_EINVAL or LOC_ENOMEM.
 */
int rp_advise_rank(rp_advice_t *adv, rp_rowset_t *set, int current_row,
		   rp_objective_t obj, double max_wait_ratio, int nnodes,
		   bool loc_le);

/*
 * Writes into buf the locality.conf lines that select row: Strategy=,
 * Curve=, WalltimeAware= and, for the walltime modes that read them,
 * SLTolerance= and AdjEstWindow=, with the values the replay used
 * (options o over conf). Returns buf.
 */
const char *rp_advise_conf_lines(const rp_advice_row_t *row,
				 const rp_opts_t *o, const loc_conf_t *conf,
				 char *buf, size_t len);

/* Prints the ranked table and the advice (the conf lines to paste). */
void rp_advise_print(FILE *f, const rp_advice_t *adv, const rp_opts_t *o,
		     const rp_input_t *in);

/* ranking.csv: rank,row,current,within_wait_limit,jobs,mean_hops,
 * mean_wait_s,mean_bsd,utilization,hops_vs_current,wait_vs_current,
 * served,not_served,hops_x_ideal; jobs is how many jobs the figures are
 * over. Returns 0 or LOC_EIO with err naming path. */
int rp_advise_write_csv(const char *path, const rp_advice_t *adv,
			loc_error_t *err);

/* tradeoff.svg: mean wait (x) against mean hops (y), one point per row,
 * the wait limit as a dashed line, current and best marked. Returns 0 or
 * LOC_EIO with err naming path. */
int rp_advise_write_svg(const char *path, const rp_advice_t *adv,
			loc_error_t *err);

#endif /* RP_ADVISE_H */
