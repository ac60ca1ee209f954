/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_alloc.c - invariants every strategy must keep, checked through
 * the public allocator API on thousands of random fragmented states:
 * exactly k distinct candidates, determinism, required nodes honoured,
 * contiguous results connected, clear refusals. The offers strategies
 * make to it are tested in test_loc_offer.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "loc_test_util.h"
#include "loc_strategy.h"

typedef struct shape_case {
	int ndims;
	int dims[3];
	bool torus;
	int npp;
} shape_case_t;

static const shape_case_t shapes[] = {
	{ 1, { 17 }, false, 1 },    { 1, { 16 }, true, 1 },
	{ 2, { 5, 7 }, false, 1 },  { 2, { 8, 8 }, true, 1 },
	{ 2, { 6, 4 }, true, 2 },   { 2, { 12, 10 }, false, 1 },
	{ 3, { 3, 4, 5 }, false, 1 }, { 3, { 4, 4, 4 }, true, 1 },
	{ 3, { 5, 4, 4 }, true, 2 },
};

#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

static loc_grid_t *make_grid(const shape_case_t *sc)
{
	return tu_grid(sc->ndims, sc->dims, sc->torus, sc->npp);
}

static loc_alloc_t *make_alloc(const loc_grid_t *g, int strategy)
{
	loc_policy_t pol;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&pol);
	pol.strategy = strategy;
	a = loc_alloc_create(g, &pol, &err);
	if (!a)
		fail_msg("cannot create %s allocator: %s",
			 loc_strategy_kind_name(strategy), err.text);
	return a;
}

/*
 * A strategy's answer is a function of the question alone, whatever the
 * allocator was asked before: strategies that keep state between
 * decisions (indexes, memos of their last answers, free maps updated by
 * changes) must answer a question asked after many others exactly as a
 * fresh allocator does. Twenty questions forward, then backward, span
 * more than a memo's slots; each answer is compared with a fresh one.
 * Questions come in pairs on one map, with two sizes; loc_alloc_forget()
 * comes midway.
 */
#define HISTORY_QUESTIONS 20

static void test_answers_do_not_depend_on_earlier_questions(void **state)
{
	(void)state;
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
		int compared = 0;

		for (int sc = 0; sc < NSHAPES; sc++) {
			loc_grid_t *g = make_grid(&shapes[sc]);
			loc_alloc_t *a = make_alloc(g, s);
			int n = loc_grid_nnodes(g);
			uint8_t *cand = malloc((size_t)n * HISTORY_QUESTIONS);
			int *out = malloc(sizeof(int) * n);
			int *fresh_out = malloc(sizeof(int) * n);
			int k[HISTORY_QUESTIONS];

			for (int q = 0; q < HISTORY_QUESTIONS; q++) {
				uint64_t rs = q * 7919 + sc * 104729 + s;
				int nfree;

				/* pairs share a map, with sizes of their own */
				if (q % 2)
					memcpy(cand + (size_t)q * n,
					       cand + (size_t)(q - 1) * n, n);
				else
					tu_fragmented(cand + (size_t)q * n, n,
						      0.2 + 0.6 * (q % 5) / 5.0,
						      q + 31 * sc + 7 * s);
				nfree = tu_count(cand + (size_t)q * n, n);
				k[q] = nfree ? 1 + tu_below(&rs, nfree) : 1;
			}
			for (int pass = 0; pass < 2 * HISTORY_QUESTIONS;
			     pass++) {
				int q = pass < HISTORY_QUESTIONS ?
						pass :
						2 * HISTORY_QUESTIONS - 1 - pass;
				loc_request_t req = { .nodes = k[q] };
				loc_view_t view = {
					.candidate = cand + (size_t)q * n
				};
				loc_alloc_t *fresh = make_alloc(g, s);
				int rc;

				/* midway, the answers kept are dropped */
				if (pass == HISTORY_QUESTIONS + 5)
					loc_alloc_forget(a);
				rc = loc_alloc_select(a, &req, &view, out, NULL);

				assert_int_equal(loc_alloc_select(fresh, &req,
								  &view,
								  fresh_out,
								  NULL),
						 rc);
				if (!rc) {
					if (memcmp(out, fresh_out,
						   sizeof(int) * k[q]))
						fail_msg("%s on shape %d: "
							 "question %d asked "
							 "at %d differs from "
							 "a fresh answer",
							 loc_strategy_kind_name(
								 s),
							 sc, q, pass);
					compared++;
				}
				loc_alloc_destroy(fresh);
			}
			free(cand);
			free(out);
			free(fresh_out);
			loc_alloc_destroy(a);
			loc_grid_destroy(g);
		}
		assert_true(compared > 0);
	}
}

/* Returns the number of connected components of nodes on the grid. */
static int components(const loc_grid_t *g, const int *nodes, int k)
{
	loc_metrics_t m;

	assert_int_equal(loc_metrics_compute(g, NULL, nodes, k, &m), 0);
	return m.components;
}

/* Every strategy, every shape, many random states and sizes: a valid,
 * deterministic answer whenever enough candidates are free. */
static void test_every_strategy_returns_k_distinct_candidates(void **state)
{
	(void)state;
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
		int placed = 0, nofit = 0;

		for (int sc = 0; sc < NSHAPES; sc++) {
			loc_grid_t *g = make_grid(&shapes[sc]);
			loc_alloc_t *a = make_alloc(g, s);
			int n = loc_grid_nnodes(g);
			uint8_t *cand = malloc(n);
			int *out = malloc(sizeof(int) * n);
			int *again = malloc(sizeof(int) * n);

			for (int trial = 0; trial < 60; trial++) {
				uint64_t rs = trial * 7919 + sc * 104729 + s;
				int nfree, k, rc;
				loc_request_t req = { 0 };
				loc_view_t view = { .candidate = cand };

				tu_fragmented(cand, n, 0.2 + 0.6 * (trial % 5) / 5.0,
					      trial + 31 * sc);
				nfree = tu_count(cand, n);
				k = 1 + tu_below(&rs, nfree + 2);
				req.nodes = k;
				rc = loc_alloc_select(a, &req, &view, out, NULL);
				if (k > nfree) {
					assert_int_equal(rc, LOC_ENOFIT);
					continue;
				}
				if (rc == LOC_ENOFIT) {
					/* Only box and mbs-like shape
					 * constraints may refuse when enough
					 * nodes are free. */
					assert_int_equal(s, LOC_STRATEGY_BOX);
					nofit++;
					continue;
				}
				assert_int_equal(rc, 0);
				tu_assert_placement(cand, n, out, k);
				assert_int_equal(loc_alloc_select(a, &req, &view,
								  again, NULL),
						 0);
				assert_memory_equal(out, again, sizeof(int) * k);
				placed++;
			}
			free(cand);
			free(out);
			free(again);
			loc_alloc_destroy(a);
			loc_grid_destroy(g);
		}
		/* Every strategy but box places whenever enough nodes are
		 * free; box refuses fragmented states with no free box (its
		 * own test checks those refusals against brute force), yet
		 * must place some. */
		if (s == LOC_STRATEGY_BOX)
			assert_true(placed > 0);
		else
			assert_int_equal(nofit, 0);
	}
}

/* Required nodes are always part of the answer, and a required node that
 * is not a candidate is a refusal, not a silent substitution. */
static void test_required_nodes_are_honoured(void **state)
{
	(void)state;
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++) {
		const shape_case_t sc = { 2, { 8, 8 }, true, 1 };
		loc_grid_t *g = make_grid(&sc);
		loc_alloc_t *a = make_alloc(g, s);
		int n = loc_grid_nnodes(g), out[64], req_nodes[3];
		uint8_t cand[64];

		for (int trial = 0; trial < 40; trial++) {
			uint64_t rs = trial + 1;
			loc_request_t req = { .required = req_nodes, .nrequired = 3 };
			loc_view_t view = { .candidate = cand };
			int nfound = 0;

			tu_fragmented(cand, n, 0.5, trial);
			for (int v = 0; v < n && nfound < 3; v++)
				if (cand[(v * 13 + trial) % n])
					req_nodes[nfound++] = (v * 13 + trial) % n;
			assert_int_equal(nfound, 3);
			req.nodes = 3 + tu_below(&rs, tu_count(cand, n) - 3 + 1);
			assert_int_equal(loc_alloc_select(a, &req, &view, out, NULL), 0);
			tu_assert_placement(cand, n, out, req.nodes);
			for (int i = 0; i < 3; i++) {
				bool found = false;

				for (int j = 0; j < req.nodes; j++)
					found |= out[j] == req_nodes[i];
				assert_true(found);
			}
			/* Make one required node busy: must refuse. */
			cand[req_nodes[1]] = 0;
			assert_int_equal(loc_alloc_select(a, &req, &view, out, NULL),
					 LOC_ENOFIT);
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
}

/* With required nodes, the rest grows around them: on an empty 1-D mesh
 * the answer is the k nodes nearest to the pinned one. */
static void test_required_completion_grows_around_pinned_node(void **state)
{
	const int dims[1] = { 20 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_FREELIST);
	uint8_t cand[20];
	int out[5], pinned = 10;
	loc_request_t req = { .nodes = 5, .required = &pinned, .nrequired = 1 };
	loc_view_t view = { .candidate = cand };

	(void)state;
	memset(cand, 1, sizeof(cand));
	assert_int_equal(loc_alloc_select(a, &req, &view, out, NULL), 0);
	/* Distances 0,1,1,2,2 around node 10: 8..12. */
	for (int i = 0; i < 5; i++)
		assert_int_equal(out[i], 8 + i);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* Contiguous requests get one connected piece whatever the strategy, and
 * a refusal when no connected interval or box exists. */
static void test_contiguous_results_are_connected(void **state)
{
	(void)state;
	for (int s = 0; s < LOC_STRATEGY_COUNT; s += 3) {
		for (int sc = 0; sc < NSHAPES; sc++) {
			loc_grid_t *g = make_grid(&shapes[sc]);
			loc_alloc_t *a = make_alloc(g, s);
			int n = loc_grid_nnodes(g);
			uint8_t *cand = malloc(n);
			int *out = malloc(sizeof(int) * n), ok = 0;

			for (int trial = 0; trial < 30; trial++) {
				loc_request_t req = { .contiguous = true };
				loc_view_t view = { .candidate = cand };
				int rc;

				tu_fragmented(cand, n, 0.4, trial * 3 + sc);
				req.nodes = 1 + trial % 6;
				rc = loc_alloc_select(a, &req, &view, out, NULL);
				if (rc == LOC_ENOFIT)
					continue;
				assert_int_equal(rc, 0);
				tu_assert_placement(cand, n, out, req.nodes);
				assert_int_equal(components(g, out, req.nodes), 1);
				ok++;
			}
			/* A 40%-busy state always has small connected
			 * pieces somewhere. */
			assert_true(ok > 0);
			free(cand);
			free(out);
			loc_alloc_destroy(a);
			loc_grid_destroy(g);
		}
	}
}

static void test_contiguous_refuses_checkerboard(void **state)
{
	const int dims[2] = { 6, 6 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_BESTFIT);
	uint8_t cand[36];
	int out[36];
	loc_request_t req = { .nodes = 2, .contiguous = true };
	loc_view_t view = { .candidate = cand };

	(void)state;
	for (int v = 0; v < 36; v++)
		cand[v] = ((v / 6) + (v % 6)) % 2;
	/* 18 free nodes, none adjacent to another. */
	assert_int_equal(loc_alloc_select(a, &req, &view, out, NULL),
			 LOC_ENOFIT);
	req.contiguous = false;
	assert_int_equal(loc_alloc_select(a, &req, &view, out, NULL), 0);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

static void test_malformed_requests_are_rejected(void **state)
{
	const int dims[2] = { 4, 4 };
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	loc_alloc_t *a = make_alloc(g, LOC_STRATEGY_FREELIST);
	uint8_t cand[16];
	int out[16], twice[2] = { 3, 3 }, bogus = 99;
	loc_view_t view = { .candidate = cand };
	loc_request_t req = { .nodes = 0 };
	loc_error_t err;

	(void)state;
	memset(cand, 1, sizeof(cand));
	assert_int_equal(loc_alloc_select(a, &req, &view, out, &err), LOC_EINVAL);
	req.nodes = 17;
	assert_int_equal(loc_alloc_select(a, &req, &view, out, &err), LOC_ENOFIT);
	assert_non_null(strstr(err.text, "17"));
	req.nodes = 2;
	req.required = twice;
	req.nrequired = 2;
	assert_int_equal(loc_alloc_select(a, &req, &view, out, &err), LOC_EINVAL);
	req.required = &bogus;
	req.nrequired = 1;
	assert_int_equal(loc_alloc_select(a, &req, &view, out, &err), LOC_EINVAL);
	req.nrequired = 3;
	assert_int_equal(loc_alloc_select(a, &req, &view, out, &err), LOC_ENOFIT);
	view.candidate = NULL;
	req.nrequired = 0;
	assert_int_equal(loc_alloc_select(a, &req, &view, out, &err), LOC_EINVAL);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

static void test_names_round_trip(void **state)
{
	(void)state;
	for (int s = 0; s < LOC_STRATEGY_COUNT; s++)
		assert_int_equal(loc_strategy_kind_parse(loc_strategy_kind_name(s)), s);
	for (int m = 0; m < LOC_WALLTIME_COUNT; m++)
		assert_int_equal(loc_walltime_mode_parse(loc_walltime_mode_name(m)), m);
	for (int p = 0; p < LOC_PAGING_COUNT; p++)
		assert_int_equal(loc_paging_index_parse(loc_paging_index_name(p)), p);
	assert_int_equal(loc_strategy_kind_parse("MM_Inc"), LOC_STRATEGY_MM_INC);
	assert_int_equal(loc_strategy_kind_parse("nosuch"), -1);
	assert_int_equal(loc_strategy_kind_parse(NULL), -1);
}

static void test_bad_policy_is_rejected(void **state)
{
	const int dims[1] = { 4 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_policy_t pol;
	loc_error_t err;

	(void)state;
	loc_policy_init(&pol);
	pol.strategy = LOC_STRATEGY_COUNT;
	assert_null(loc_alloc_create(g, &pol, &err));
	assert_int_equal(err.code, LOC_EINVAL);
	loc_policy_init(&pol);
	pol.sl_tolerance = -1;
	assert_null(loc_alloc_create(g, &pol, &err));
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_strategy_returns_k_distinct_candidates),
		cmocka_unit_test(test_answers_do_not_depend_on_earlier_questions),
		cmocka_unit_test(test_required_nodes_are_honoured),
		cmocka_unit_test(test_required_completion_grows_around_pinned_node),
		cmocka_unit_test(test_contiguous_results_are_connected),
		cmocka_unit_test(test_contiguous_refuses_checkerboard),
		cmocka_unit_test(test_malformed_requests_are_rejected),
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_bad_policy_is_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
