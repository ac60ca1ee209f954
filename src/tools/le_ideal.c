/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le_ideal.c - locality-eval --ideal: for each job size, the mean pairwise
 * hops of the most compact set of that many nodes on the idle machine
 * (loc_ideal.h), the denominator of every "x ideal" figure the live
 * benchmark and the demo print.
 */
#include <stdlib.h>

#include "le.h"
#include "loc_ideal.h"

static int _cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int le_print_ideal(const model_t *mo, const opts_t *o, const jobs_t *jobs)
{
	int n = 0, *sizes = le_xcalloc((size_t)jobs->n + 1, sizeof(int));
	loc_error_t err;
	loc_ideal_t *ideal = loc_ideal_create(mo->grid, &mo->policy, &err);

	if (!ideal)
		le_die("--ideal: %s", err.text);
	if (o->k)
		sizes[n++] = o->k;
	for (int i = 0; i < jobs->n; i++)
		sizes[n++] = jobs->v[i].k;
	qsort(sizes, (size_t)n, sizeof(int), _cmp_int);
	for (int i = 0; i < n; i++) {
		double h;

		/* Each size once; a single node has no pairs. */
		if (sizes[i] < 2 || (i && sizes[i] == sizes[i - 1]))
			continue;
		h = loc_ideal_avg_pair_hops(ideal, sizes[i], &err);
		if (h < 0)
			le_die("--ideal: %d nodes: %s", sizes[i],
			       err.text[0] ? err.text : "no such size here");
		printf("%d %.6f\n", sizes[i], h);
	}
	loc_ideal_destroy(ideal);
	free(sizes);
	return 0;
}
