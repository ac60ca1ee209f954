/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_size.h - how many nodes a request needs: the core's answer for both
 * plugins, which size a job's set from the CPUs its candidate nodes hold
 * (select/locality from the nodes' CPU counts, topology/locality from
 * what select/cons_tres says each node can give the job).
 */
#ifndef LOC_SIZE_H
#define LOC_SIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_grid.h"

/*
 * The fewest of amounts[0..n) whose sum reaches need, largest first (no
 * other choice of that many sums to more); 0 when need is 0, n + 1 when
 * all of them fall short. Reorders amounts (largest first) unless they
 * are all equal. O(n) when they are alike, O(n log n) otherwise.
 */
int loc_fewest_covering(uint32_t *amounts, int n, uint64_t need);

/*
 * For a set of exactly k nodes that must hold need between them: any k
 * candidates that each hold at least ceil(need / k) do. A strategy that
 * places k nodes without looking at their amounts may pick small ones
 * and fall short where k larger ones would not (two kinds of node in one
 * partition); narrowed to the candidates that hold an even share, any
 * set it picks covers need. Sets aside, in aside[] and out of cand[],
 * the candidates of cand[0..n) (amounts[] indexed alike) that hold less;
 * returns how many candidates are left. Returns -1, setting nothing
 * aside, when none holds less (narrowing would change nothing) or fewer
 * than k would be left. k < 1 or need 0: -1.
 */
int loc_narrow_to_even_share(uint8_t *cand, uint8_t *aside,
			     const uint32_t *amounts, int n, uint64_t need,
			     int k);

/* Puts back the candidates loc_narrow_to_even_share() set aside. */
void loc_unnarrow(uint8_t *cand, uint8_t *aside, int n);

/*
 * One node fewer: of the n nodes in nodes[] (amounts[] alike) that hold
 * need between them, the node whose removal leaves n - 1 that still hold
 * it with the fewest total pairwise hops (on ties, the one holding less).
 * A strategy that places n nodes by hops alone, asked for one more than
 * the fewest that could hold need, may return a set of which one node
 * can go (two kinds of node: two large and one small where one of each
 * would do). Returns its index in nodes[] and the others' total pairwise
 * hops in *hops; LOC_ENOFIT when every node is needed (or n < 2 or they
 * fall short); LOC_EINVAL, LOC_ENOMEM. O(n * ndims + sum of dims)
 * (loc_metrics_node_hop_sums()).
 */
int loc_drop_one(const loc_grid_t *grid, const int *nodes,
		 const uint32_t *amounts, int n, uint64_t need, int64_t *hops);

/*
 * Whether k nodes, total pairwise hops `hops`, are to be taken rather
 * than the strategy's set of more nodes (k of an even share, or k left
 * after loc_drop_one()): only when within (1 + tolerance) of the ideal
 * for k (the most compact set on the idle machine, `ideal`; negative:
 * unknown, never). The nodes that hold a share may lie apart (on two
 * kinds of node in alternate rows, no square of four), and fewer nodes
 * do not pay for hops: a job would get a less compact set than the one
 * node more, which CompactWait, its reference never below the ideal,
 * would decline; within the tolerance it never does.
 */
bool loc_fewer_nodes_compact(int64_t hops, int64_t ideal, double tolerance);

#endif /* LOC_SIZE_H */
