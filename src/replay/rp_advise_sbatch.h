/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_sbatch.h - locality-advise --sbatch: the rows replayed as a
 * Slurm job array on the cluster being advised, merged into the same
 * advice.txt, ranking.csv, tradeoff.svg and summary.json as a run on one
 * machine.
 *
 * The state lives in OUT/sbatch/ (OUT is --out): plan (the arguments and
 * the working directory), rows/ (one rp_rowfile.h file per replayed row)
 * and log/ (the jobs' output).
 *
 * The advice replays rows in phases: the candidate rows, then one batch
 * per step of the sweep, each batch chosen from the ranking of all the
 * rows before it. Every process of a run (the --sbatch one, each array
 * task, each merge job) runs the same deterministic pipeline, passing
 * every batch of rows through rp_advise_run_rows, which loads the rows
 * whose files exist. The first batch with rows missing is where the
 * process acts:
 *
 *   --sbatch, --resume OUT  submits the missing rows as an array whose
 *                           task I runs "--run-row OUT P I", and a merge
 *                           job (afterok) running "--resume OUT", then
 *                           exits; with no row missing it writes the
 *                           outputs, as a local run would;
 *   --run-row OUT P I       replays row I of batch P (when its file does
 *                           not exist yet), writes its file and exits.
 *
 * So a run is resumable from any point: rows with files are never
 * replayed again, and "locality-advise --resume OUT" continues it.
 */
#ifndef RP_ADVISE_SBATCH_H
#define RP_ADVISE_SBATCH_H

#include "loc_error.h"
#include "rp_cli.h"
#include "rp_run.h"

/*
 * Takes --sbatch, --sbatch-args TEXT, --resume OUT and --run-row OUT P I
 * out of argv (before rp_cli_parse). With --resume or --run-row, argv
 * becomes the plan's arguments and the process moves into the plan's
 * working directory. Errors exit (1: usage, 2: an unreadable plan).
 */
void rp_sbatch_args(int *argc, char ***argv);

/*
 * After the options are parsed: with --sbatch, makes OUT/sbatch/ and
 * writes its plan (or checks that an existing one has the same
 * arguments: exit 2 when not). Nothing without --sbatch.
 */
void rp_sbatch_begin(const rp_opts_t *o);

/*
 * Replays rows first .. set->nrows - 1 of set as rp_rowset_run_from
 * does, or under --sbatch, --resume or --run-row loads them from their
 * files, submits the missing ones or replays the one asked for (those
 * last two exit the process). Returns 0 or a LOC_E* code with err
 * filled, as rp_rowset_run_from.
 */
int rp_advise_run_rows(rp_rowset_t *set, int first, const rp_opts_t *o,
		       const rp_input_t *in, loc_error_t *err);

#endif /* RP_ADVISE_SBATCH_H */
