/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_validate.h - locality-advise --validate F: are the advice's
 * predictions borne out on history it did not see?
 *
 * The advice is fitted on the first F of the workload's jobs by submit
 * time (the ranking exactly as locality-advise --limit K gives it, K =
 * floor(F x jobs)). Its recommended row and the current placement are
 * then replayed on the whole workload and measured on the held-out jobs
 * alone (those submitted after the first K, that the current ran): the
 * queue and the machine at the split are as busy as the history made
 * them under that row, not idle, as a replay of the held-out jobs alone
 * would start (its first days would show too little wait). The
 * predicted figures are the fitted advice's for that row: mean hops and
 * mean wait, and their ratios to the current placement's, which are the
 * advice's claims (what its hops_x and wait_x columns promise).
 *
 * The same replay, measured on windows of the fitted jobs as long as
 * the held-out part, shows how much the figures move from one period to
 * the next of the site's own history: a held-out figure inside that
 * spread differs from the prediction no more than fitted periods differ
 * from each other; outside it, the held-out period is unlike any fitted
 * one (on Sandia-Ross, pack's hops_x over 3,000-job windows of the
 * fitted months ranged 0.567-0.613 around the 0.575 predicted; the
 * held-out month gave 0.614).
 *
 * And the replay's own noise: the held-out figures again with every
 * submit moved by up to a second (a few draws), as the history could as
 * well have been recorded. A busy period's figures can move far under
 * that (on a backed-up month of LLNL-Thunder one row's held-out hops_x
 * ranged 0.49-0.72 under shifts of a few seconds, its fitted figures
 * not at all): a prediction inside that range is as close as a replay
 * of that period can tell.
 */
#ifndef RP_ADVISE_VALIDATE_H
#define RP_ADVISE_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rp_advise.h"
#include "rp_advise_noise.h"

/* The figures checked, in table order. */
enum {
	RP_VAL_HOPS = 0, /* the advised row's mean hops */
	RP_VAL_WAIT,     /* its mean wait (s) */
	RP_VAL_HOPS_X,   /* its mean hops over the current's: a claim */
	RP_VAL_WAIT_X,   /* its mean wait over the current's: a claim */
	RP_VAL_CUR_HOPS, /* the current's mean hops */
	RP_VAL_CUR_WAIT, /* the current's mean wait (s) */
	RP_VAL_COUNT
};

/* The targets: hops within 5%, wait within 15%. */
#define RP_VAL_HOPS_TARGET 0.05
#define RP_VAL_WAIT_TARGET 0.15

typedef struct rp_validation {
	int fit_jobs;          /* K: the first K jobs by submit */
	int total_jobs;        /* the workload's */
	int64_t first_submit;  /* the workload's first submit */
	int64_t split_submit;  /* the first held-out job's submit */
	int64_t last_submit;   /* the last job's submit */
	char row[96];          /* the advised row (the current when none) */
	char current[96];
	bool advised;          /* false: no row met the wait limit, the
				* advice was to keep the current */
	int held_jobs;         /* held-out jobs the current ran: the basis */
	int not_served;        /* of those, the advised row did not run */
	double predicted[RP_VAL_COUNT];
	double replayed[RP_VAL_COUNT];
	/* The same whole-workload replay measured on the fitted jobs (those
	 * the current ran): where it differs from predicted, the fit's own
	 * replay ended differently (its queue drained at the split). */
	double fitted[RP_VAL_COUNT];
	/* The spread a held-out period shows with no error in the model:
	 * each figure's least and greatest value over windows of
	 * window_jobs fitted jobs (the held-out count), one every
	 * window_step jobs by submit; windows is 0 when fewer jobs were
	 * fitted than held out. */
	int windows, window_jobs, window_step;
	double window_min[RP_VAL_COUNT];
	double window_max[RP_VAL_COUNT];
	/* The replay's noise: each figure's least and greatest value on the
	 * held-out jobs over the replay above and noise_draws more
	 * (--noise-draws), with every submit moved by up to noise_jitter_s
	 * seconds (seeds --jitter-seed + 1 ...), over the held-out jobs each
	 * draw's current ran; noise_draws is 0 with --noise-draws 0 or when
	 * the current is the trace's recorded placement (nothing to
	 * replay). */
	int noise_draws, noise_jitter_s;
	double noise_min[RP_VAL_COUNT];
	double noise_max[RP_VAL_COUNT];
	double noise_median[RP_VAL_COUNT];
	/* The claims' medians over the fit's own draws (the advice's noise
	 * table, rank 1), against noise_median: rank 1 won on one replay,
	 * which can be a lucky one (its figure biased low); the medians
	 * are not chosen by the ranking. have_fit_median is false without
	 * those draws. */
	bool have_fit_median;
	double fit_median[RP_VAL_COUNT];
} rp_validation_t;

/* The number of jobs fitted on for fraction f of njobs (floor). */
int rp_validate_split(double f, int njobs);

/*
 * Replays the advised row of fit (its rank 1 within the wait limit, or
 * the current when there is none) and the current placement on the
 * whole workload of in (in->w->njobs must be the whole count) and fills
 * v, fit_jobs being the K fit was ranked on; fit_noise (or NULL) is the
 * fit's noise table, whose rank 1 gives the fitted medians. Returns 0,
 * or a LOC_E* code with err filled (LOC_ENOENT: no held-out job the
 * current ran).
 */
int rp_validate_run(rp_validation_t *v, const rp_advice_t *fit,
		    const rp_noise_t *fit_noise, const rp_opts_t *o,
		    rp_input_t *in, int fit_jobs, loc_error_t *err);

/* The relative error of the medians of claim i: NAN without them. */
double rp_validate_median_error(const rp_validation_t *v, int i);

/* The relative error of figure i: (replayed - predicted) / predicted,
 * NAN when the prediction is 0. */
double rp_validate_rel_error(const rp_validation_t *v, int i);

/* Prints the table and the machine-readable "validate:" lines. */
void rp_validate_print(FILE *f, const rp_validation_t *v);

/* validation.csv: figure,row,claim,predicted,replayed,rel_error,target,
 * within_target,noise_min,noise_max, one line per figure. Returns 0 or
 * LOC_EIO. */
int rp_validate_write_csv(const char *path, const rp_validation_t *v,
			  loc_error_t *err);

#endif /* RP_ADVISE_VALIDATE_H */
