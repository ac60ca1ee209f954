/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_util.c - helpers shared by the benchmarks (see bench_util.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "loc_strategy.h"

uint64_t bench_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bench_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

void bench_fmt_time(char *buf, size_t len, double sec)
{
	if (sec == -1)
		snprintf(buf, len, "n/a (no fit)");
	else if (sec < 0)
		snprintf(buf, len, "error");
	else if (sec < 1e-3)
		snprintf(buf, len, "%.1f us", sec * 1e6);
	else if (sec < 1)
		snprintf(buf, len, "%.2f ms", sec * 1e3);
	else
		snprintf(buf, len, "%.2f s", sec);
}

int bench_parse_strategies(const char *prog, const char *list, bool *want)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (!copy)
		return -1;
	for (int i = 0; i < LOC_STRATEGY_COUNT; i++)
		want[i] = false;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int kind = loc_strategy_kind_parse(tok);

		if (kind < 0) {
			fprintf(stderr, "%s: unknown strategy '%s'\n", prog,
				tok);
			free(copy);
			return -1;
		}
		want[kind] = true;
	}
	free(copy);
	return 0;
}
