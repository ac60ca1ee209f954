/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_sweep.h - locality-advise's pruned sweep of CompactWait,
 * CompactTolerance, CompactClaims, PlanHold and PlanWindow.
 *
 * The full product of four keys over every strategy x walltime row would
 * be thousands of replays. Instead the sweep starts from the best
 * RP_SWEEP_SEEDS candidate rows of the first ranking and moves one key
 * at a time (coordinate descent), keeping after each step the best row
 * by the advice's own ranking (wait limit, objective, every job counted):
 *
 *   1. CompactWait: 0 and the 10th, 25th and 50th percentiles of the
 *      jobs' run times, each rounded to two significant digits (at least
 *      10 s) and capped by the median requested limit (a job waits at
 *      most about as long as it would run);
 *   2. CompactTolerance 0.1, 0.2, 0.35, only when the kept CompactWait
 *      is above 0 (the tolerance judges nothing otherwise);
 *   3. CompactClaims 0 and 16, only for a topology/locality site
 *      (--plugin topology: select/locality makes no claims) and when the
 *      kept CompactWait is above 0;
 *   4. PlanHold placement and released;
 *   5. PlanWindow 0 and the 10th and 25th percentiles of the run times,
 *      rounded and capped alike; not for a topology/locality site
 *      (cons_tres's backfill windows the running jobs' ends itself).
 *
 * A value equal to the one the kept row already has is not replayed
 * again: at most 4 + 3 + 1 + 3 = 11 rows per seed for select/locality,
 * 4 + 3 + 2 + 1 = 10 for topology/locality, 22 in all (8 per seed when
 * locality.conf leaves the keys at their defaults).
 */
#ifndef RP_ADVISE_SWEEP_H
#define RP_ADVISE_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "rp_advise.h"
#include "rp_run.h"

#define RP_SWEEP_SEEDS 2
#define RP_SWEEP_MAX_VALUES 4

typedef struct rp_sweep {
	int nseeds;
	char seed[RP_SWEEP_SEEDS][96];  /* the rows swept around */
	char kept[RP_SWEEP_SEEDS][96];  /* the best row of each descent */
	int added;                      /* rows the sweep replayed */
	int64_t cw[RP_SWEEP_MAX_VALUES];  /* CompactWait values, s */
	int ncw;
	int64_t pw[RP_SWEEP_MAX_VALUES];  /* PlanWindow values, s */
	int npw;
	int64_t cap;                    /* the median requested limit, s */
	int full;                       /* rows not added: the set was full */
	bool window_key;                /* PlanWindow swept too */
	bool claims_key;                /* CompactClaims swept too */
	int dropped;                    /* rows whose replay failed its check */
	char dropped_why[256];          /* the first such failure */
} rp_sweep_t;

/*
 * The CompactWait and PlanWindow values of the workload w's jobs, by the
 * rule above, into sw (cw, pw, cap).
 */
void rp_sweep_values(rp_sweep_t *sw, const rp_workload_t *w);

/*
 * Runs the sweep on set, whose rows adv ranks (rp_advise_rank with
 * current_row), adding and replaying rows, and ranks again after each
 * step: adv holds the final ranking on return. Returns 0 or a LOC_E*
 * code with err filled.
 */
int rp_advise_sweep(rp_sweep_t *sw, rp_advice_t *adv, rp_rowset_t *set,
		    int current_row, const rp_opts_t *o, const rp_input_t *in,
		    loc_error_t *err);

/* The advice's lines on the sweep: how many rows it added, the rule. */
void rp_sweep_print(FILE *f, const rp_sweep_t *sw);

#endif /* RP_ADVISE_SWEEP_H */
