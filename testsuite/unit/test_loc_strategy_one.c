/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_one.c - the one-node (k = 1) short paths of the
 * geometric strategies give exactly what their general search gives:
 * on random fragmented states of 1-4 dimensional meshes and tori, 1 and 2
 * nodes per point, row-major and shuffled node numbering, partly filled
 * grids, with and without SL alternatives (busy_until set, so the
 * alternative chosen shows), the same node from an allocator with the
 * short path as from one without. The internal switch loc__fast_one
 * (st_one.h) selects the path.
 *
 * box's short path keeps an index between decisions (st_box_index.c):
 * one allocator is driven through long sequences of candidate maps,
 * mostly a few nodes flipping as on a running machine, and each answer
 * is compared with the full pass (loc__box_one_indexed off) and, now and
 * then, with the general search.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "loc_test_util.h"
#include "loc_strategy.h"

/* Internal: the short paths' switch and box's index switch (st_one.h). */
extern bool loc__fast_one;
extern bool loc__box_one_indexed;

typedef struct shape_case {
	int ndims;
	int dims[4];
	bool torus;
} shape_case_t;

static const shape_case_t shapes[] = {
	{ 1, { 17 }, true },       { 1, { 12 }, false },
	{ 2, { 6, 7 }, true },     { 2, { 8, 5 }, false },
	{ 3, { 4, 5, 3 }, true },  { 3, { 4, 4, 4 }, false },
	{ 4, { 3, 2, 4, 3 }, true }, { 2, { 1, 9 }, true },
};

#define NSHAPES (int)(sizeof(shapes) / sizeof(shapes[0]))

/* A grid of the shape with npp nodes per point: row-major (shuffle 0),
 * or points dealt to nodes in a random order, and with fewer nodes than
 * places when partial. */
static loc_grid_t *make_grid(const shape_case_t *sc, int npp, bool shuffle,
			     bool partial, uint64_t *rng)
{
	int np = 1, n;

	for (int d = 0; d < sc->ndims; d++)
		np *= sc->dims[d];
	n = np * npp - (partial ? 1 + tu_below(rng, np * npp / 2) : 0);
	return tu_grid_dealt(sc->ndims, sc->dims, sc->torus, npp, n, shuffle,
			     rng);
}

static loc_alloc_t *make_alloc(const loc_grid_t *g, loc_strategy_kind_t kind,
			       bool sl)
{
	loc_policy_t pol;
	loc_error_t err;
	loc_alloc_t *a;

	loc_policy_init(&pol);
	pol.strategy = kind;
	if (sl) {
		pol.walltime = LOC_WALLTIME_SL;
		pol.sl_tolerance = 0.25;
	}
	a = loc_alloc_create(g, &pol, &err);
	if (!a)
		fail_msg("cannot create %s allocator: %s",
			 loc_strategy_kind_name(kind), err.text);
	return a;
}

/* The node a one-node request gets; asserts success. */
static int place_one(loc_alloc_t *a, const uint8_t *cand,
		     const int64_t *until)
{
	loc_view_t view = { .candidate = cand, .busy_until = until,
			    .now = 1000 };
	loc_request_t req = { .nodes = 1, .expected_end = until ? 1500 : 0 };
	loc_error_t err;
	int out = -1;

	if (loc_alloc_select(a, &req, &view, &out, &err))
		fail_msg("k=1 failed: %s", err.text);
	assert_true(cand[out]);
	return out;
}

/*
 * Runs kind with the short path (*fast true) and without on the same
 * states, one allocator each kept across decisions, and counts the
 * decisions compared.
 */
static int compare_paths(loc_strategy_kind_t kind, bool *fast)
{
	uint64_t rng = 0x5eed0001u + (uint64_t)kind;
	int compared = 0;

	for (int si = 0; si < NSHAPES; si++)
		for (int variant = 0; variant < 8; variant++) {
			int npp = 1 + (variant & 1);
			bool shuffle = variant & 2, partial = variant & 4;
			loc_grid_t *g = make_grid(&shapes[si], npp, shuffle,
						  partial, &rng);
			int n = loc_grid_nnodes(g);
			uint8_t *cand = malloc(n);
			int64_t *until = malloc(sizeof(int64_t) * n);

			assert_non_null(cand);
			assert_non_null(until);
			for (int sl = 0; sl < 2; sl++) {
				loc_alloc_t *fa = make_alloc(g, kind, sl);
				loc_alloc_t *ga = make_alloc(g, kind, sl);

				for (int t = 0; t < 30; t++) {
					double busy = tu_below(&rng, 100) / 100.0;
					int want, got;

					tu_fragmented(cand, n, busy,
						      tu_rand(&rng));
					if (!tu_count(cand, n))
						cand[tu_below(&rng, n)] = 1;
					for (int v = 0; v < n; v++)
						until[v] = 1000 +
							   tu_below(&rng, 1000);
					*fast = false;
					want = place_one(ga, cand,
							 sl ? until : NULL);
					*fast = true;
					got = place_one(fa, cand,
							sl ? until : NULL);
					if (want != got)
						fail_msg("%s shape %d variant %d sl %d trial %d: short path %d, search %d",
							 loc_strategy_kind_name(kind),
							 si, variant, sl, t, got,
							 want);
					compared++;
				}
				loc_alloc_destroy(fa);
				loc_alloc_destroy(ga);
			}
			free(cand);
			free(until);
			loc_grid_destroy(g);
		}
	return compared;
}

static void test_mm_family_one_node_matches_search(void **state)
{
	static const loc_strategy_kind_t kinds[] = {
		LOC_STRATEGY_MM, LOC_STRATEGY_MM_INC, LOC_STRATEGY_GENALG,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		print_message("%s: %d one-node decisions identical\n",
			      loc_strategy_kind_name(kinds[i]),
			      compare_paths(kinds[i], &loc__fast_one));
	loc__fast_one = true;
}

static void test_mc1x1_one_node_matches_search(void **state)
{
	(void)state;
	print_message("mc1x1: %d one-node decisions identical\n",
		      compare_paths(LOC_STRATEGY_MC1X1, &loc__fast_one));
	loc__fast_one = true;
}

static void test_box_one_node_matches_search(void **state)
{
	(void)state;
	print_message("box: %d one-node decisions identical\n",
		      compare_paths(LOC_STRATEGY_BOX, &loc__fast_one));
	loc__fast_one = true;
}

/* Grids for the box index: lengths 1 and 2, meshes and tori, and four
 * dimensions (only the first three longer than 1 have dominoes). */
static const shape_case_t index_shapes[] = {
	{ 1, { 1 }, true },          { 1, { 2 }, true },
	{ 1, { 2 }, false },         { 1, { 9 }, true },
	{ 1, { 7 }, false },         { 2, { 2, 5 }, true },
	{ 2, { 3, 2 }, false },      { 2, { 1, 6 }, false },
	{ 2, { 5, 4 }, true },       { 3, { 2, 1, 3 }, true },
	{ 3, { 4, 3, 2 }, false },   { 3, { 3, 3, 3 }, true },
	{ 4, { 2, 3, 1, 3 }, true }, { 4, { 3, 2, 2, 3 }, false },
};

#define NINDEX_SHAPES (int)(sizeof(index_shapes) / sizeof(index_shapes[0]))

/* The next candidate map of a machine that mostly changes a little. */
static void next_map(uint8_t *cand, int n, uint64_t *rng)
{
	int r = tu_below(rng, 100), m;

	if (r < 60) { /* a few nodes start or end */
		for (m = 1 + tu_below(rng, 3); m > 0; m--)
			cand[tu_below(rng, n)] ^= 1;
	} else if (r < 70) { /* the same map again */
	} else if (r < 78) { /* a block of consecutive nodes */
		int len = 1 + tu_below(rng, n), at = tu_below(rng, n);
		uint8_t to = tu_below(rng, 2);

		for (int i = 0; i < len; i++)
			cand[(at + i) % n] = to;
	} else if (r < 86) { /* about the rebuild threshold */
		for (m = n / 16 + tu_below(rng, n / 6 + 1); m > 0; m--)
			cand[tu_below(rng, n)] ^= 1;
	} else if (r < 94) { /* a new state */
		tu_fragmented(cand, n, tu_below(rng, 100) / 100.0,
			      tu_rand(rng));
	} else { /* all candidates, or a single one */
		memset(cand, r & 1, n);
	}
	if (!tu_count(cand, n))
		cand[tu_below(rng, n)] = 1;
}

static void test_box_index_follows_changing_maps(void **state)
{
	uint64_t rng = 0x5eed0b0cu;
	int compared = 0, searched = 0;

	(void)state;
	for (int si = 0; si < NINDEX_SHAPES; si++)
		for (int variant = 0; variant < 12; variant++) {
			const shape_case_t *sc = &index_shapes[si];
			int npp = 1 + variant % 3, places = npp;
			bool shuffle = variant / 3 & 1, partial;
			loc_grid_t *g;
			uint8_t *cand;
			int64_t *until;
			int n;

			for (int d = 0; d < sc->ndims; d++)
				places *= sc->dims[d];
			/* A partial grid keeps at least one node. */
			partial = variant / 6 && places >= 2;
			g = make_grid(sc, npp, shuffle, partial, &rng);
			n = loc_grid_nnodes(g);
			cand = malloc(n);
			until = malloc(sizeof(int64_t) * n);
			assert_non_null(cand);
			assert_non_null(until);
			for (int sl = 0; sl < 2; sl++) {
				loc_alloc_t *ia = make_alloc(g, LOC_STRATEGY_BOX,
							     sl);
				loc_alloc_t *ra = make_alloc(g, LOC_STRATEGY_BOX,
							     sl);
				const int64_t *u = sl ? until : NULL;

				tu_fragmented(cand, n, 0.5, tu_rand(&rng));
				for (int t = 0; t < 400; t++) {
					int want, got;

					next_map(cand, n, &rng);
					for (int v = 0; v < n; v++)
						until[v] = 1000 +
							   tu_below(&rng, 1000);
					loc__box_one_indexed = false;
					want = place_one(ra, cand, u);
					loc__box_one_indexed = true;
					got = place_one(ia, cand, u);
					if (want != got)
						fail_msg("box index shape %d variant %d sl %d step %d: index %d, full pass %d",
							 si, variant, sl, t, got,
							 want);
					compared++;
					if (t % 16)
						continue;
					loc__fast_one = false;
					want = place_one(ra, cand, u);
					loc__fast_one = true;
					if (want != got)
						fail_msg("box index shape %d variant %d sl %d step %d: index %d, search %d",
							 si, variant, sl, t, got,
							 want);
					searched++;
				}
				loc_alloc_destroy(ia);
				loc_alloc_destroy(ra);
			}
			free(cand);
			free(until);
			loc_grid_destroy(g);
		}
	print_message("box index: %d one-node decisions as the full pass, %d as the search\n",
		      compared, searched);
}

static void test_mbs_one_node_matches_search(void **state)
{
	(void)state;
	print_message("mbs: %d one-node decisions identical\n",
		      compare_paths(LOC_STRATEGY_MBS, &loc__fast_one));
	loc__fast_one = true;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mm_family_one_node_matches_search),
		cmocka_unit_test(test_mc1x1_one_node_matches_search),
		cmocka_unit_test(test_mbs_one_node_matches_search),
		cmocka_unit_test(test_box_one_node_matches_search),
		cmocka_unit_test(test_box_index_follows_changing_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
