/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_size.h - how many nodes a request needs: the core's answer for both
 * plugins, which size a job's set from the CPUs its candidate nodes hold
 * (select/locality from the nodes' CPU counts, topology/locality from
 * what select/cons_tres says each node can give the job).
 */
#ifndef LOC_SIZE_H
#define LOC_SIZE_H

#include <stdint.h>

/*
 * The fewest of amounts[0..n) whose sum reaches need, largest first (no
 * other choice of that many sums to more); 0 when need is 0, n + 1 when
 * all of them fall short. Reorders amounts (largest first) unless they
 * are all equal. O(n) when they are alike, O(n log n) otherwise.
 */
int loc_fewest_covering(uint32_t *amounts, int n, uint64_t need);

#endif /* LOC_SIZE_H */
