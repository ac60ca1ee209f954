/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_noise.h - how far the advice's figures move when the history
 * moves by a second: the top rows and the current replayed again with
 * every submit shifted by up to --arrival-jitter seconds (1 by default),
 * a few draws (--noise-draws).
 *
 * A replay of a busy queue is chaotic: which job backfills where turns
 * on the exact second each came, and the whole schedule after it with
 * it. On 42,000 jobs of LLNL-Thunder the current placement's mean wait
 * ranged 687-1,058 s over five such draws, and the ten best rows, within
 * 2.5% of each other in one replay, each moved by 5% or more. A ranking
 * finer than that noise is not a ranking: the advice says which rows
 * the noise cannot tell from rank 1, and the range of each claim.
 *
 * Each draw replays the rows on the jittered workload and compares them
 * on the jobs the draw's current ran, as the ranking does; the ratios
 * (hops_x, wait_x, the objective's) are to the current's in the same
 * draw. The ranking itself is the unjittered replay's, unchanged.
 */
#ifndef RP_ADVISE_NOISE_H
#define RP_ADVISE_NOISE_H

#include <stdbool.h>
#include <stdio.h>

#include "rp_advise.h"

#define RP_NOISE_TOP 5         /* ranked rows within the limit redrawn */
/* RP_NOISE_MAX_DRAWS, --noise-draws' bound: rp_cli.h */
#define RP_NOISE_JITTER_S 1    /* the jitter when --arrival-jitter is 0 */

/* The figures drawn for each row, as multiples of the current's. */
enum { RP_NOISE_HOPS_X = 0, RP_NOISE_WAIT_X, RP_NOISE_SCORE_X,
       RP_NOISE_FIGS };

typedef struct rp_noise_row {
	const rp_advice_row_t *a; /* borrowed from the advice */
	/* [figure][0] the ranked replay's, [figure][1..draws] the draws' */
	double v[RP_NOISE_FIGS][RP_NOISE_MAX_DRAWS + 1];
	double lo[RP_NOISE_FIGS], median[RP_NOISE_FIGS], hi[RP_NOISE_FIGS];
	int over_limit;           /* replays whose wait_x passed the limit */
	bool tied;                /* its objective range meets rank 1's */
} rp_noise_row_t;

typedef struct rp_noise {
	int draws;                /* 0: not drawn (see why) */
	int jitter_s;
	const char *why;          /* when draws is 0 */
	int nrows;
	rp_noise_row_t rows[RP_NOISE_TOP];
} rp_noise_t;

/*
 * One draw: the current (cur) and the rows specs[0..n) replayed on in's
 * workload with every submit moved by up to jitter_s seconds (seed),
 * over the same number of jobs as in->w->njobs (the fitted ones during
 * a fit), each summarised into out_cur and out[0..n) over the jobs the
 * draw's current ran that basis flags (by trace index; NULL: all of
 * them). A spec may repeat the current's. Returns 0 or a LOC_E* code.
 */
int rp_noise_draw(const rp_opts_t *o, const rp_input_t *in, int jitter_s,
		  uint64_t seed, const rp_spec_t *cur,
		  const rp_spec_t *const *specs, int n, const uint8_t *basis,
		  rp_summary_t *out_cur, rp_summary_t *out,
		  loc_error_t *err);

/* Least, median and greatest of x[0..n) (n >= 1). */
void rp_noise_fold(const double *x, int n, double *lo, double *median,
		   double *hi);

/*
 * Draws o->noise_draws more replays of the advice's best RP_NOISE_TOP
 * ranked rows within the wait limit and of the current, on in's workload
 * with every submit jittered (seeds o->jitter_seed + 1 ...). No draw when
 * o->noise_draws is 0, no row is ranked within the limit, or the current
 * is the trace's recorded placement (nz->why says which). Returns 0 or a
 * LOC_E* code with err filled.
 */
int rp_advise_noise(rp_noise_t *nz, const rp_advice_t *adv,
		    const rp_opts_t *o, const rp_input_t *in,
		    loc_error_t *err);

/* The noise table and its "noise:" lines, after the advice. */
void rp_advise_noise_print(FILE *f, const rp_noise_t *nz,
			   const rp_advice_t *adv);

#endif /* RP_ADVISE_NOISE_H */
