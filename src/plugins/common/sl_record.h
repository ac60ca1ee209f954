/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_record.h - each job's placement written into the job field that
 * locality.conf's RecordPlacement names, AdminComment by default
 * (loc_record.h has the text and why that field), by
 * both plugins: select/locality when a job begins, topology/locality when
 * eval_nodes chooses a set outside backfill's tests.
 */
#ifndef LOC_SL_RECORD_H
#define LOC_SL_RECORD_H

#include "sl_machine.h"

/*
 * Records that job runs on the k grid nodes nodes[] (any order), placed
 * by its policy (sl_machine_job_policy()), unless RecordPlacement=none.
 * The ideal for k is computed on first use of each size and kept with
 * the machine.
 */
void sl_record_placement(sl_machine_t *m, job_record_t *job, const int *nodes,
			 int k);

/* The same for the nodes of job->node_bitmap. */
void sl_record_job(sl_machine_t *m, job_record_t *job);

/* The least total pairwise hops of k nodes on the idle machine, from the
 * same table (each size computed once); -1 when the core cannot say.
 * Also the bar of fewer nodes than the core's set: an even share or a
 * spared node (loc_fewer_nodes_compact()). */
int64_t sl_ideal_total_hops(sl_machine_t *m, int k);

#endif /* LOC_SL_RECORD_H */
