/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_weights.c - node weights in locality-replay's simulator:
 * on a hand-made queue the light tier is used first (NodeWeight=tiers),
 * weights are ignored with NodeWeight=ignore, and --node-weight's
 * hostile specs are refused with a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "loc_conf.h"
#include "loc_trace.h"
#include "rp_machine.h"
#include "rp_sim.h"

#include "loc_test_replay.h"

/* A line of 8 nodes, the first four of Weight=100: jobs 1 and 2 (two
 * nodes each) take the light nodes 4-7, job 3 (three nodes) finds no
 * light node free and takes the heavy 0-2; without weights, freelist
 * takes 0-1, 2-3 and 4-6. */
static const char _weights_swf[] =
	"1 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"3 0 -1 100 3 -1 -1 3 100 -1 1 1 -1 -1 -1 -1 -1 -1\n";

/* The first node of each of the three jobs, with the given weights. */
static void _weighted_firsts(const char *weights, loc_node_weight_t rule,
			     int firsts[3])
{
	rp_machine_opts_t mo = { .grid = "8", .torus = "no" };
	rp_workload_opts_t wo = { 0 };
	loc_policy_t pol;
	rp_sim_opts_t o;
	loc_error_t err;
	setup_t s;
	loc_alloc_t *a;
	rp_run_t *run;

	if (weights) {
		mo.node_weights[0] = weights;
		mo.nnode_weights = 1;
	}
	s.trace = loc_trace_parse(_weights_swf, strlen(_weights_swf),
				  "hand.swf", NULL, &err);
	assert_non_null(s.trace);
	s.m = rp_machine_create(&mo, s.trace, &err);
	assert_non_null(s.m);
	assert_true(!weights || s.m->weight);
	wo.machine_nodes = s.m->nnodes;
	s.w = rp_workload_create(s.trace, &wo, &err);
	assert_non_null(s.w);
	pol = s.m->conf->policy;
	pol.strategy = LOC_STRATEGY_FREELIST;
	pol.node_weight = rule;
	a = loc_alloc_create(s.m->grid, &pol, &err);
	assert_non_null(a);
	rp_sim_opts_init(&o);
	o.node_weight = s.m->weight;
	run = rp_sim_run(s.w, a, &o, &err);
	assert_non_null(run);
	assert_int_equal(rp_run_check(s.w, run, true, &err), 0);
	for (int j = 0; j < 3; j++) {
		assert_int_equal(run->start[j], 0);
		firsts[j] = run->pool[run->node_off[j]];
	}
	rp_run_destroy(run);
	loc_alloc_destroy(a);
	_teardown(&s);
}

static void test_node_weights_use_the_light_tier_first(void **state)
{
	int f[3];

	(void)state;
	_weighted_firsts("[0-3]=100", LOC_NODE_WEIGHT_TIERS, f);
	assert_int_equal(f[0], 4);
	assert_int_equal(f[1], 6);
	assert_int_equal(f[2], 0);
	_weighted_firsts(NULL, LOC_NODE_WEIGHT_TIERS, f);
	assert_int_equal(f[0], 0);
	assert_int_equal(f[1], 2);
	assert_int_equal(f[2], 4);
	/* NodeWeight=ignore: locality alone */
	_weighted_firsts("[0-3]=100", LOC_NODE_WEIGHT_IGNORE, f);
	assert_int_equal(f[0], 0);
	assert_int_equal(f[1], 2);
	assert_int_equal(f[2], 4);
}

/* --node-weight's hostile input: each is refused with a message. */
static void test_node_weight_specs_are_checked(void **state)
{
	static const char *bad[] = { "[0-3]", "=5", "[0-3]=", "[0-3]=x",
				     "[0-3]=-1", "[0-3]=4294967296",
				     "[0-8]=2", "n1=2", "[3-1]=2",
				     "[0-3]=1e3" };
	rp_machine_opts_t mo = { .grid = "8", .torus = "no" };
	loc_error_t err;
	loc_trace_t *trace;
	rp_machine_t *m;

	(void)state;
	trace = loc_trace_parse(_weights_swf, strlen(_weights_swf), "hand.swf",
				NULL, &err);
	assert_non_null(trace);
	mo.nnode_weights = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mo.node_weights[0] = bad[i];
		m = rp_machine_create(&mo, trace, &err);
		if (m)
			fail_msg("--node-weight '%s' was taken", bad[i]);
		assert_true(err.code < 0 && err.text[0]);
	}
	/* a later spec overrides an earlier one; others weigh 1 */
	mo.node_weights[0] = "[0-3]=100";
	mo.node_weights[1] = "3=4294967295";
	mo.nnode_weights = 2;
	m = rp_machine_create(&mo, trace, &err);
	assert_non_null(m);
	assert_true(m->weight[0] == 100 && m->weight[2] == 100);
	assert_true(m->weight[3] == 4294967295u && m->weight[4] == 1);
	rp_machine_destroy(m);
	loc_trace_destroy(trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_weights_use_the_light_tier_first),
		cmocka_unit_test(test_node_weight_specs_are_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
