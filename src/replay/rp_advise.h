/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise.h - locality-advise: ranks the rows of one replay by a stated
 * objective against the site's current placement, and reports the
 * ranking (table, ranking.csv, tradeoff.svg) and the locality.conf lines
 * of the best row.
 *
 * The rule: a row is within the wait limit when its mean wait is at most
 * max_wait_ratio times the current row's. Rows within the limit rank
 * first, by the objective (mean hops, mean wait or mean bounded
 * slowdown, lowest first), then by mean hops, mean wait and name; rows
 * over the limit follow in the same order. The recorded row (the trace's
 * own placement) is shown but never ranked: it is not a configuration.
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
	bool within_limit;
	double score;            /* the objective's figure */
	int rank;                /* 1 = best; 0 = not ranked (recorded) */
} rp_advice_row_t;

typedef struct rp_advice {
	rp_advice_row_t rows[MAX_ROWS + 1]; /* ranked rows first, by rank */
	int nrows;
	int current;             /* index in rows */
	int best;                /* index of rank 1 within the limit, or -1 */
	rp_objective_t objective;
	double max_wait_ratio;
	double wait_limit_s;
} rp_advice_t;

/* The objective's name ("hops", "wait", "slowdown"). */
const char *rp_objective_name(rp_objective_t obj);

/*
 * Ranks the rows of set (the recorded one included when present) with
 * current_row the index of the current placement among
 * rp_rowset_all()'s rows. Returns 0 or LOC_EINVAL.
 */
int rp_advise_rank(rp_advice_t *adv, rp_rowset_t *set, int current_row,
		   rp_objective_t obj, double max_wait_ratio);

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
 * mean_wait_s,mean_bsd,utilization,hops_vs_current,wait_vs_current.
 * Returns 0 or LOC_EIO with err naming path. */
int rp_advise_write_csv(const char *path, const rp_advice_t *adv,
			loc_error_t *err);

/* tradeoff.svg: mean wait (x) against mean hops (y), one point per row,
 * the wait limit as a dashed line, current and best marked. Returns 0 or
 * LOC_EIO with err naming path. */
int rp_advise_write_svg(const char *path, const rp_advice_t *adv,
			loc_error_t *err);

#endif /* RP_ADVISE_H */
