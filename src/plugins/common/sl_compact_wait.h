/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_compact_wait.h - the Slurm side of CompactWait that both plugins
 * share (sl_compact_wait.c): when a job's wait began, the nodes its
 * reference is made on, and the reference itself, cached per machine.
 * The rule is the core's (loc_patience.h); select/locality's sl_compact.c
 * and topology/locality's tl_compact.c supply the placement and decide.
 */
#ifndef LOC_SL_COMPACT_WAIT_H
#define LOC_SL_COMPACT_WAIT_H

#include "sl_machine.h"

/*
 * When job's wait for a compact set began (loc_patience_began()), judged
 * at now: the first time it could start. Kept where select plugins keep
 * the start of a --switches wait, the job's wait4switch_start (0: not
 * begun), which slurmctld leaves to select and topology plugins. A start
 * before the job's begin_time is ignored: a requeue moves begin_time past
 * it, so a requeued job waits afresh under either plugin (select/
 * locality's select_p_job_begin() also clears it). A restarted slurmctld
 * does not save it: the wait begins again.
 * The last offer and the restarts are kept by job id in the plugin.
 * offered_now: the placement judged is one the job could take now.
 */
int64_t sl_compact_wait_began(const loc_policy_t *policy,
			      job_record_t *job, int64_t now,
			      bool offered_now);

/*
 * set[] (grid nodes, ncore entries, written whole) = the nodes a job's
 * CompactWait reference is made on: those of its partition, inside its
 * reservation if it has one, whose state allows them (sl_node_usable(),
 * idle or not), that are not --exclude'd, that hold its memory
 * (sl_node_holds_job_mem()), that were configured with the GRES it asks
 * of each node (sl_gres_node_serves()) and whose active features satisfy
 * its constraint. Whatever an evaluation offers does not count: backfill
 * offers only the nodes free in the job's window, and a reference made
 * on those would excuse any placement. The job must have a partition.
 *
 * Returns false, set[] then unusable, when the job's constraint is one
 * only slurmctld evaluates: one with counts, brackets, parentheses,
 * changeable features, or both '&' and '|'. A reference made without it
 * could be a set the job can never have.
 */
bool sl_compact_wait_reference_set(const sl_machine_t *m, job_record_t *job,
				   uint8_t *set);

/*
 * How the calling plugin places k nodes on set[] (in tiers, already set
 * from the set's weights or cleared): 0 with out[0..k) filled, or a
 * LOC_E* code. arg is the caller's.
 */
typedef int (*sl_reference_place_f)(void *arg, uint8_t *set,
				      loc_tiers_t *tiers, int k, int *out);

/*
 * The CompactWait reference: total pairwise hops of k nodes placed by
 * place() on m->ref.set (filled by the caller, with m->ref.weight for its
 * nodes) all idle, or 0 when there is none. Cached in m->refs by what it
 * depends on (the allocator, k, the nodes and their weights), so a
 * reconfigure starts afresh. Uses m->ref's tiers and out[] alone.
 */
int64_t sl_compact_wait_reference(sl_machine_t *m, const void *alloc,
				  const loc_policy_t *policy, int k,
				  sl_reference_place_f place, void *arg);

#endif /* LOC_SL_COMPACT_WAIT_H */
