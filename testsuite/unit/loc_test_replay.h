/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_replay.h - helpers shared by the unit tests of locality-replay's
 * simulator and traces (test_replay_sim.c, test_replay_real.c,
 * test_replay_trace_swf.c, test_replay_trace_sacct.c,
 * test_replay_trace_samples.c, test_replay_pf.c): a replay set-up of trace,
 * machine and workload (from SWF text for hand-made queues), an allocator
 * for it, a replay checked by rp_run_check, a job's start and index by
 * trace id, a parsed trace's record and line accounting, and whether the
 * real traces are there. Header-only (static functions), like
 * loc_test_util.h; include after <cmocka.h>.
 */
#ifndef LOC_TEST_REPLAY_H
#define LOC_TEST_REPLAY_H

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "loc_conf.h"
#include "loc_strategy.h"
#include "loc_trace.h"
#include "rp_machine.h"
#include "rp_sim.h"

#ifndef RP_TRACE_DIR
#define RP_TRACE_DIR "../shared/traces"
#endif

/* A replay set-up: trace text (SWF) or file, machine, workload. */
typedef struct setup {
	loc_trace_t *trace;
	rp_machine_t *m;
	rp_workload_t *w;
} setup_t;

static inline void _setup(setup_t *s, loc_trace_t *trace, const char *grid,
			  const char *torus, rp_round_t round, int limit)
{
	rp_machine_opts_t mo = { .grid = grid, .torus = torus };
	rp_workload_opts_t wo = { .round = round, .limit = limit };
	loc_error_t err;

	s->trace = trace;
	assert_non_null(s->trace);
	s->m = rp_machine_create(&mo, s->trace, &err);
	assert_non_null(s->m);
	wo.machine_nodes = s->m->nnodes;
	s->w = rp_workload_create(s->trace, &wo, &err);
	assert_non_null(s->w);
}

/* A set-up of a hand-made SWF queue on a mesh `grid`, no rounding. */
static inline void _setup_text(setup_t *s, const char *swf, const char *grid)
{
	loc_error_t err;

	_setup(s, loc_trace_parse(swf, strlen(swf), "hand.swf", NULL, &err),
	       grid, "no", RP_ROUND_NONE, 0);
}

static inline void _teardown(setup_t *s)
{
	rp_workload_destroy(s->w);
	rp_machine_destroy(s->m);
	loc_trace_destroy(s->trace);
}

static inline loc_alloc_t *_alloc(const setup_t *s, loc_strategy_kind_t kind,
				  rp_wmode_t mode)
{
	loc_policy_t pol = s->m->conf->policy;
	loc_error_t err;
	loc_alloc_t *a;

	pol.strategy = kind;
	pol.walltime = rp_wmode_policy(mode);
	a = loc_alloc_create(s->m->grid, &pol, &err);
	assert_non_null(a);
	return a;
}

/* A replay with options o, checked (rp_run_check()). */
static inline rp_run_t *_run_with(const setup_t *s, loc_alloc_t *a,
				  const rp_sim_opts_t *o)
{
	loc_error_t err;
	rp_run_t *run = rp_sim_run(s->w, a, o, &err);

	if (!run)
		fail_msg("replay failed: %s", err.text);
	assert_int_equal(
		rp_run_check(s->w, run,
			     o->sched == RP_SCHED_EASY &&
				     o->prio == RP_PRIO_FCFS,
			     &err),
		0);
	return run;
}

/* The simulator's default options but these three. */
static inline rp_sim_opts_t _opts(rp_sched_t sched, rp_prio_t prio,
				  rp_wmode_t mode)
{
	rp_sim_opts_t o;

	rp_sim_opts_init(&o);
	o.sched = sched;
	o.prio = prio;
	o.wmode = mode;
	return o;
}

static inline rp_run_t *_run(const setup_t *s, loc_alloc_t *a,
			     rp_sched_t sched, rp_prio_t prio,
			     rp_wmode_t mode)
{
	rp_sim_opts_t o = _opts(sched, prio, mode);

	return _run_with(s, a, &o);
}

/* The workload index of the job with trace id `id`, or -1. */
static inline int _index_of(const setup_t *s, const char *id)
{
	for (int j = 0; j < s->w->njobs; j++)
		if (!strcmp(s->trace->jobs[s->w->jobs[j].trace_index].id, id))
			return j;
	return -1;
}

/* Start time of the job with trace id `id` in run. */
static inline int64_t _start_of(const setup_t *s, const rp_run_t *run,
				const char *id)
{
	int j = _index_of(s, id);

	if (j < 0)
		fail_msg("no job %s", id);
	return j < 0 ? -2 : run->start[j];
}

/* Every record is a job or a skip; every line is a comment or a record
 * (single-line formats). */
static inline void _assert_accounting(const loc_trace_t *t,
				      bool one_line_records)
{
	assert_int_equal(t->njobs + loc_trace_skipped_total(t), t->records);
	if (one_line_records)
		assert_int_equal(t->comment_lines + t->records, t->lines);
	else
		assert_true(t->comment_lines + t->records <= t->lines);
}

/* Whether the real traces are there (tests skip, saying so, when not). */
static inline bool _have_traces(void)
{
	if (access(RP_TRACE_DIR "/README.md", R_OK) == 0)
		return true;
	print_message(
		"SKIP: %s is absent; real-trace tests need ../shared/traces\n",
		RP_TRACE_DIR);
	return false;
}

#endif /* LOC_TEST_REPLAY_H */
