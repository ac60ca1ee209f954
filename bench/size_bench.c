/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * size_bench.c - what sizing a set to a job's CPUs costs as k grows
 * (loc_size.h): loc_drop_one() (a node spared from a set that covers,
 * each node's hops to the set by per-axis histograms) beside
 * loc_metrics_total_pair_hops() (the same histograms, one total), on a
 * 32x32x32 torus (32,768 nodes) and a 48x48x16 one (36,864), for k = 3,
 * 9, 65, 513 and 4,097 nodes scattered over the machine, of two kinds (8
 * and 4 CPUs) and a need that only small nodes can be spared from. The
 * median over many calls, and its ratio to the total measured in the
 * same run. Prints figures; never fails on time.
 *
 *   size_bench [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "loc_metrics.h"
#include "loc_size.h"

#define NKS 5
#define MAX_SAMPLES 2001

static const int _ks[NKS] = { 3, 9, 65, 513, 4097 };

/* k distinct nodes spread over n (a stride coprime with n, from a seeded
 * start), every other one of 8 CPUs. */
static void _scatter(int n, int k, uint64_t *seed, int *nodes,
		     uint32_t *cpus)
{
	int start = (int)(bench_rand(seed) % (uint64_t)n), stride = 7919;

	for (int i = 0; i < k; i++) {
		nodes[i] = (int)(((int64_t)start + (int64_t)i * stride) % n);
		cpus[i] = i % 2 ? 8 : 4;
	}
}

/* Median seconds of fn over calls filling about target seconds. which:
 * 0 loc_drop_one, 1 the total. */
static double _median(const loc_grid_t *g, const int *nodes,
		      const uint32_t *cpus, int k, uint64_t need, int which,
		      double target, double *samples)
{
	double spent = 0;
	int m = 0;
	int64_t hops;

	while (m < MAX_SAMPLES && (spent < target || m < 5)) {
		double t0 = bench_now(), dt;
		int64_t r = which ? loc_metrics_total_pair_hops(g, nodes, k) :
				    loc_drop_one(g, nodes, cpus, k, need, &hops);

		dt = bench_now() - t0;
		if (r < 0 && r != LOC_ENOFIT)
			return -2;
		samples[m++] = dt;
		spent += dt;
	}
	qsort(samples, (size_t)m, sizeof(*samples), bench_cmp_double);
	return samples[m / 2];
}

int main(int argc, char **argv)
{
	static const int shapes[2][3] = { { 32, 32, 32 }, { 48, 48, 16 } };
	double target = 0.2, *samples = malloc(sizeof(double) * MAX_SAMPLES);
	int *nodes = malloc(sizeof(int) * 4097);
	uint32_t *cpus = malloc(sizeof(uint32_t) * 4097);
	uint64_t seed = 20261208;

	if (!samples || !nodes || !cpus)
		return 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			target = 0.01;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: size_bench [--quick]\n");
			return 0;
		} else {
			fprintf(stderr, "usage: size_bench [--quick]\n");
			return 2;
		}
	}
	printf("Median time per call (clock_gettime monotonic): loc_drop_one and the\n"
	       "total pairwise hops of the same k nodes, %s.\n",
	       target < 0.1 ? "--quick" : "full run");
	for (int si = 0; si < 2; si++) {
		loc_shape_t shape = { .ndims = 3, .nodes_per_point = 1 };
		loc_error_t err;
		loc_grid_t *g;
		int n = 1;

		for (int d = 0; d < 3; d++) {
			shape.dims[d] = shapes[si][d];
			shape.torus[d] = true;
			n *= shape.dims[d];
		}
		g = loc_grid_create(&shape, n, &err);
		if (!g) {
			fprintf(stderr, "size_bench: %s\n", err.text);
			return 1;
		}
		printf("\n== %d nodes (%dx%dx%d torus) ==\n", n, shapes[si][0],
		       shapes[si][1], shapes[si][2]);
		printf("%-7s | %-12s | %-12s | %s\n", "k", "loc_drop_one",
		       "total hops", "ratio");
		for (int ki = 0; ki < NKS; ki++) {
			int k = _ks[ki];
			uint64_t sum = 0;
			double drop, total;
			char a[32], b[32];

			_scatter(n, k, &seed, nodes, cpus);
			for (int i = 0; i < k; i++)
				sum += cpus[i];
			/* Only a 4-CPU node can go. */
			drop = _median(g, nodes, cpus, k, sum - 4, 0, target,
				       samples);
			total = _median(g, nodes, cpus, k, sum - 4, 1, target,
					samples);
			bench_fmt_time(a, sizeof(a), drop);
			bench_fmt_time(b, sizeof(b), total);
			printf("%-7d | %-12s | %-12s | x%.1f\n", k, a, b,
			       total > 0 ? drop / total : 0);
		}
		loc_grid_destroy(g);
	}
	free(samples);
	free(nodes);
	free(cpus);
	return 0;
}
