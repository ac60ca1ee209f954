/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_bench.c - time per placement decision of every strategy.
 *
 * For 256 nodes (16x16 torus), 4,096 (16x16x16) and 32,768 (32x32x32)
 * and k = 1, 8, 64, 512, 4096 (k at most half the machine), builds a
 * half-busy fragmented state by replaying random allocations and releases
 * through the allocator itself, then times loc_alloc_select() for each
 * strategy (Hilbert curve): the median over many calls, and its ratio to
 * freelist measured in the same run; with --p99 also the 99th percentile
 * (the slowest call when there are fewer than 100). Prints figures; never
 * fails on time.
 *
 * The state is built with `random` by default: busy nodes scattered
 * uniformly, the hardest free set for the curve strategies (no long run
 * of free ranks). --state names another strategy to build it with, as a
 * machine run by that strategy would look (firstfit: free intervals).
 *
 *   loc_bench [--quick] [--p99] [--strategies a,b,...] [--state STRATEGY]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "loc_strategy.h"

#define NSIZES 3
#define NKS 5
#define MAX_SAMPLES 4001

static const int _ks[NKS] = { 1, 8, 64, 512, 4096 };

typedef struct bench_size {
	int ndims;
	int dims[3];
} bench_size_t;

static const bench_size_t _sizes[NSIZES] = {
	{ 2, { 16, 16, 1 } },
	{ 3, { 16, 16, 16 } },
	{ 3, { 32, 32, 32 } },
};

/* A measured cell: median seconds, or < 0 when the strategy cannot
 * place (-1) or failed otherwise (-2); p99 seconds. */
typedef struct bench_cell {
	double sec;
	double p99;
} bench_cell_t;

static loc_grid_t *_make_grid(const bench_size_t *sz)
{
	loc_shape_t shape = { .ndims = sz->ndims, .nodes_per_point = 1 };
	loc_error_t err;
	loc_grid_t *g;
	int n = 1;

	for (int d = 0; d < sz->ndims; d++) {
		shape.dims[d] = sz->dims[d];
		shape.torus[d] = true;
		n *= sz->dims[d];
	}
	g = loc_grid_create(&shape, n, &err);
	if (!g)
		fprintf(stderr, "loc_bench: %s\n", err.text);
	return g;
}

/*
 * Replays random jobs through alloc until about half the nodes are busy:
 * rounds of filling to ~60% with jobs of log-uniform size (1 to n/16) and
 * releasing random jobs down to ~40%, then filling to exactly 50%. Returns the
 * busy count, or -1 when alloc cannot place a job.
 */
static int _replay(loc_alloc_t *alloc, int n, uint8_t *cand, uint64_t seed)
{
	int *owner = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
	int *job_size = malloc(sizeof(int) * n), njobs = 0, busy = 0, rc = 0;
	loc_view_t view = { .candidate = cand };
	uint64_t s = seed | 1;

	if (!owner || !out || !job_size) {
		rc = -1;
		goto done;
	}
	memset(cand, 1, n);
	for (int round = 0; round < 5 && rc == 0; round++) {
		int fill = round < 4 ? 60 : 50;

		while (busy * 100 < fill * n && busy < n) {
			int maxlog = 0, size;
			loc_request_t req = { 0 };

			while ((2 << maxlog) <= n / 16)
				maxlog++;
			size = 1 << (int)(bench_rand(&s) % (maxlog + 1));
			size += (int)(bench_rand(&s) % size);
			/* The last round stops at exactly half busy. */
			if (round == 4 && size > n / 2 - busy)
				size = n / 2 - busy;
			if (size > n - busy)
				size = n - busy;
			req.nodes = size;
			if (loc_alloc_select(alloc, &req, &view, out, NULL)) {
				rc = -1;
				break;
			}
			for (int i = 0; i < size; i++) {
				cand[out[i]] = 0;
				owner[out[i]] = njobs;
			}
			job_size[njobs++] = size;
			busy += size;
		}
		if (round == 4 || rc)
			break;
		while (busy * 100 > 40 * n) {
			int j = (int)(bench_rand(&s) % njobs);

			if (!job_size[j])
				continue;
			for (int v = 0; v < n; v++)
				if (!cand[v] && owner[v] == j)
					cand[v] = 1;
			busy -= job_size[j];
			job_size[j] = 0;
		}
	}
done:
	free(owner);
	free(out);
	free(job_size);
	return rc ? -1 : busy;
}

/* Builds the state with `first`, or else the first strategy in a fixed
 * order that can place jobs. */
static int _build_state(const loc_grid_t *g, uint8_t *cand, uint64_t seed,
			loc_strategy_kind_t first, const char **used)
{
	const loc_strategy_kind_t order[] = {
		first, LOC_STRATEGY_RANDOM, LOC_STRATEGY_FREELIST,
		LOC_STRATEGY_FIRSTFIT, LOC_STRATEGY_MC1X1, LOC_STRATEGY_GENALG,
	};
	int n = loc_grid_nnodes(g);

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		loc_policy_t pol;
		loc_alloc_t *a;
		int busy;

		loc_policy_init(&pol);
		pol.strategy = order[i];
		pol.seed = seed;
		a = loc_alloc_create(g, &pol, NULL);
		if (!a)
			continue;
		busy = _replay(a, n, cand, seed);
		loc_alloc_destroy(a);
		if (busy >= 0) {
			*used = loc_strategy_kind_name(order[i]);
			return busy;
		}
	}
	return -1;
}

/* Median seconds per decision, -1 for no fit, -2 for another failure;
 * *p99 gets the 99th percentile (of the samples taken: the largest when
 * there are fewer than 100). */
static double _time_strategy(const loc_grid_t *g, loc_strategy_kind_t kind,
			     const uint8_t *cand, int k, double target,
			     double *samples, int *out, double *p99)
{
	loc_view_t view = { .candidate = cand };
	loc_request_t req = { .nodes = k };
	loc_policy_t pol;
	loc_alloc_t *a;
	double t0, spent = 0;
	int n = 0, rc;

	loc_policy_init(&pol);
	pol.strategy = kind;
	pol.curve = LOC_CURVE_HILBERT;
	a = loc_alloc_create(g, &pol, NULL);
	if (!a)
		return -2;
	/* The first call warms caches and says whether it can place. */
	t0 = bench_now();
	rc = loc_alloc_select(a, &req, &view, out, NULL);
	samples[n++] = bench_now() - t0;
	if (rc) {
		loc_alloc_destroy(a);
		return rc == LOC_ENOFIT ? -1 : -2;
	}
	/* A call slower than the whole budget is timed once. */
	if (samples[0] > target) {
		loc_alloc_destroy(a);
		*p99 = samples[0];
		return samples[0];
	}
	n = 0;
	while (n < MAX_SAMPLES && (spent < target || n < 5)) {
		double t;

		/* The same question every time: time the search, not pack's
		 * memo of its last answers. */
		loc_alloc_forget(a);
		t0 = bench_now();
		loc_alloc_select(a, &req, &view, out, NULL);
		t = bench_now() - t0;
		samples[n++] = t;
		spent += t;
	}
	loc_alloc_destroy(a);
	qsort(samples, n, sizeof(double), bench_cmp_double);
	*p99 = samples[(n * 99 + 99) / 100 - 1];
	return samples[n / 2];
}

static void _usage(FILE *f)
{
	fprintf(f, "usage: loc_bench [--quick] [--p99] [--strategies a,b,...]"
		   " [--state STRATEGY]\n"
		   "Prints the median time per placement decision of each strategy\n"
		   "and its ratio to freelist, on half-busy fragmented tori;\n"
		   "--p99 adds the 99th percentile in brackets; --state builds the\n"
		   "state with STRATEGY (default random: busy nodes scattered).\n");
}

int main(int argc, char **argv)
{
	bool want[LOC_STRATEGY_COUNT], show_p99 = false;
	double target = 0.2, *samples = malloc(sizeof(double) * MAX_SAMPLES);
	int width = 20, state_kind = LOC_STRATEGY_RANDOM;
	int *out = malloc(sizeof(int) * 32768);

	if (!samples || !out)
		return 1;
	for (int i = 0; i < LOC_STRATEGY_COUNT; i++)
		want[i] = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			target = 0.01;
		} else if (!strcmp(argv[i], "--p99")) {
			show_p99 = true;
			width = 30;
		} else if (!strcmp(argv[i], "--strategies") && i + 1 < argc) {
			if (bench_parse_strategies("loc_bench", argv[++i], want))
				return 2;
		} else if (!strncmp(argv[i], "--strategies=", 13)) {
			if (bench_parse_strategies("loc_bench", argv[i] + 13, want))
				return 2;
		} else if (!strcmp(argv[i], "--state") && i + 1 < argc) {
			state_kind = loc_strategy_kind_parse(argv[++i]);
			if (state_kind < 0) {
				fprintf(stderr, "loc_bench: unknown strategy '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			_usage(stdout);
			return 0;
		} else {
			_usage(stderr);
			return 2;
		}
	}
	printf("Median time per decision (clock_gettime monotonic)%s and ratio to freelist;\n"
	       "curve hilbert, half-busy fragmented torus, %s.\n",
	       show_p99 ? ", (99th percentile)," : "",
	       target < 0.1 ? "--quick" : "full run");
	for (int si = 0; si < NSIZES; si++) {
		const bench_size_t *sz = &_sizes[si];
		bench_cell_t cell[LOC_STRATEGY_COUNT][NKS];
		loc_grid_t *g = _make_grid(sz);
		const char *used = "?";
		uint8_t *cand;
		int n, busy;
		char desc[128];

		if (!g)
			return 1;
		n = loc_grid_nnodes(g);
		cand = malloc(n);
		if (!cand)
			return 1;
		busy = _build_state(g, cand, 12345 + si, state_kind, &used);
		if (busy < 0) {
			printf("\n%d nodes: no strategy could build a state\n", n);
			loc_grid_destroy(g);
			free(cand);
			continue;
		}
		loc_grid_describe(g, desc, sizeof(desc));
		printf("\n== %d nodes (%s), %.1f%% busy, state replayed with %s ==\n",
		       n, desc, 100.0 * busy / n, used);
		printf("%-11s", "strategy");
		for (int ki = 0; ki < NKS; ki++) {
			char h[32];

			if (_ks[ki] > n / 2)
				continue;
			snprintf(h, sizeof(h), "k=%d", _ks[ki]);
			printf(" | %-*s", width, h);
		}
		printf("\n");
		for (int s = 0; s < LOC_STRATEGY_COUNT; s++)
			for (int ki = 0; ki < NKS; ki++)
				cell[s][ki].sec = -3;
		/* freelist first: every ratio needs it. */
		for (int ki = 0; ki < NKS; ki++)
			if (_ks[ki] <= n / 2)
				cell[LOC_STRATEGY_FREELIST][ki].sec =
					_time_strategy(g, LOC_STRATEGY_FREELIST,
						       cand, _ks[ki], target,
						       samples, out,
						       &cell[LOC_STRATEGY_FREELIST][ki].p99);
		for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
			if (!want[s])
				continue;
			printf("%-11s", loc_strategy_kind_name(s));
			for (int ki = 0; ki < NKS; ki++) {
				double t, base;
				char tb[32], pb[40], rb[32];
				char c[sizeof(tb) + sizeof(pb) + sizeof(rb)];

				if (_ks[ki] > n / 2)
					continue;
				if (s != LOC_STRATEGY_FREELIST)
					cell[s][ki].sec = _time_strategy(
						g, s, cand, _ks[ki], target,
						samples, out, &cell[s][ki].p99);
				t = cell[s][ki].sec;
				base = cell[LOC_STRATEGY_FREELIST][ki].sec;
				bench_fmt_time(tb, sizeof(tb), t);
				pb[0] = '\0';
				if (show_p99 && t >= 0) {
					char q[32];

					bench_fmt_time(q, sizeof(q), cell[s][ki].p99);
					snprintf(pb, sizeof(pb), " (%s)", q);
				}
				if (t >= 0 && base > 0)
					snprintf(rb, sizeof(rb),
						 t / base < 100 ? "x%.1f" :
								  "x%.0f",
						 t / base);
				else
					rb[0] = '\0';
				snprintf(c, sizeof(c), "%s%s %s", tb, pb, rb);
				printf(" | %-*s", width, c);
				fflush(stdout);
			}
			printf("\n");
		}
		free(cand);
		loc_grid_destroy(g);
	}
	free(samples);
	free(out);
	return 0;
}
