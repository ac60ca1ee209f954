/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_util.h - what the benchmarks (loc_bench, plan_bench) share: a
 * seeded generator, the clock, time formatting and the --strategies list.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* xorshift64: the next value of the sequence whose state is *s (!= 0). */
uint64_t bench_rand(uint64_t *s);

/* Seconds on the monotonic clock. */
double bench_now(void);

/* qsort comparator for doubles, ascending. */
int bench_cmp_double(const void *x, const void *y);

/* Writes sec as "12.3 us", "4.56 ms" or "1.23 s" ("n/a (no fit)" for -1,
 * "error" for other negative values). */
void bench_fmt_time(char *buf, size_t len, double sec);

/*
 * Sets want[kind] for each strategy named in the comma-separated list
 * (the others false). Returns 0, or -1 after a message on stderr naming
 * prog and the unknown strategy.
 */
int bench_parse_strategies(const char *prog, const char *list, bool *want);

#endif /* BENCH_UTIL_H */
