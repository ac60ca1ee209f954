/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_strategy_paging.c - the curve-order placements that are not
 * a fit: paging (hand-built pages, shared points), random (uniform,
 * seeded, dependent only on the map) and contiguous mode (the tightest
 * connected window, else a box, with required nodes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "loc_test_util.h"
#include "loc_test_curve.h"

static void _expect_paging(const loc_grid_t *g, loc_paging_index_t idx,
			   int size, const uint8_t *cand, int k,
			   const int *want)
{
	cfg_t c = {
		.strategy = LOC_STRATEGY_PAGING,
		.paging_index = idx,
		.paging_size = size,
	};
	loc_alloc_t *a = tu_alloc_full(g, &c, LOC_CURVE_HILBERT, 1);
	int out[64], sorted[64];

	memcpy(sorted, want, sizeof(int) * k);
	qsort(sorted, k, sizeof(int), tu_cmp_int);
	assert_int_equal(tu_select(a, cand, k, out), 0);
	assert_memory_equal(out, sorted, sizeof(int) * k);
	loc_alloc_destroy(a);
}

/*
 * Paging by hand. 4x4 mesh, node = 4 * row + col, pages 2x2 (size 1):
 * P0 = {0,1,4,5}, P1 = {2,3,6,7}, P2 = {8,9,12,13}, P3 = {10,11,14,15}.
 * Node 0 busy, k = 6. Rowmajor: P1 whole, then the first two of P2 in
 * row-major order (8, 9). Snake (P0 P1 P3 P2): P1, then 10, 11.
 */
static void test_paging_hand_examples(void **state)
{
	int d44[2] = { 4, 4 }, d55[2] = { 5, 5 };
	loc_grid_t *g = tu_grid(2, d44, false, 1);
	loc_grid_t *g5 = tu_grid(2, d55, false, 1);
	uint8_t cand[25];
	const int rm[6] = { 2, 3, 6, 7, 8, 9 }, sn[6] = { 2, 3, 6, 7, 10, 11 };
	/* Shuffled row-major (Z order) with 1x1 pages: (0,0) (0,1) (1,0)
	 * (1,1) (0,2): nodes 0, 1, 4, 5, 2. */
	const int sh[5] = { 0, 1, 4, 5, 2 };
	/* 5x5, 2x2 pages: P(0,0) = {0,1,5,6}, P(0,1) = {2,3,7,8}: k = 6
	 * takes P(0,0) and 2, 3. The edge page P(0,2) = {4,9} is a whole
	 * page of two nodes: with P(0,0) and P(0,1) touched it comes first. */
	const int e6[6] = { 0, 1, 5, 6, 2, 3 }, edge[2] = { 4, 9 };
	/* One busy node in every page: no whole page; the free nodes of the
	 * partly used pages in page order: P0's 1, 4, 5. */
	const int part[3] = { 1, 4, 5 };

	(void)state;
	memset(cand, 1, 16);
	cand[0] = 0;
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 1, cand, 6, rm);
	_expect_paging(g, LOC_PAGING_SNAKE, 1, cand, 6, sn);
	memset(cand, 1, 16);
	_expect_paging(g, LOC_PAGING_SHUFFLED, 0, cand, 5, sh);
	memset(cand, 1, 25);
	_expect_paging(g5, LOC_PAGING_ROWMAJOR, 1, cand, 6, e6);
	cand[0] = cand[2] = 0;
	_expect_paging(g5, LOC_PAGING_ROWMAJOR, 1, cand, 2, edge);
	memset(cand, 1, 16);
	cand[0] = cand[2] = cand[8] = cand[10] = 0;
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 1, cand, 3, part);
	loc_grid_destroy(g);
	loc_grid_destroy(g5);
}

/* Paging with two nodes per point and 1x1 pages: a point with one busy
 * node is not a whole page, so the next whole point comes first. */
static void test_paging_shared_points(void **state)
{
	int dims[1] = { 4 };
	loc_grid_t *g = tu_grid(1, dims, false, 2);
	uint8_t cand[8] = { 0, 1, 1, 1, 1, 1, 1, 1 };
	const int want[3] = { 2, 3, 4 }, spill[7] = { 1, 2, 3, 4, 5, 6, 7 };

	(void)state;
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 0, cand, 3, want);
	_expect_paging(g, LOC_PAGING_ROWMAJOR, 0, cand, 7, spill);
	loc_grid_destroy(g);
}

/* Paging(0) in row-major order is the first k free nodes in node order,
 * walked for small k and listed from a bitmap for large k: both against
 * that definition, on grids whose node counts are and are not multiples
 * of 64, at every density. */
static void test_paging_zero_is_first_free_nodes(void **state)
{
	int shapes[][3] = { { 8, 8, 1 }, { 10, 10, 1 }, { 7, 9, 5 },
			    { 32, 32, 1 } };
	uint64_t s = 11;
	int large = 0;

	(void)state;
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
		int nd = shapes[sh][2] > 1 ? 3 : 2;
		loc_grid_t *g = tu_grid(nd, shapes[sh], sh % 2, 1);
		int n = loc_grid_nnodes(g);
		cfg_t c = { .strategy = LOC_STRATEGY_PAGING,
			    .paging_index = LOC_PAGING_ROWMAJOR };
		loc_alloc_t *a = tu_alloc_full(g, &c, LOC_CURVE_HILBERT, 1);
		uint8_t cand[1024];
		int out[1024], want[1024];

		for (int trial = 0; trial < 200; trial++) {
			int dens = tu_below(&s, 101), nfree = 0, k;

			for (int v = 0; v < n; v++) {
				cand[v] = tu_below(&s, 100) < dens;
				if (cand[v])
					want[nfree++] = v;
			}
			if (!nfree)
				continue;
			k = 1 + tu_below(&s, nfree);
			large += (int64_t)k * 8 >= n;
			assert_int_equal(tu_select(a, cand, k, out), 0);
			assert_memory_equal(out, want, sizeof(int) * k);
		}
		loc_alloc_destroy(a);
		loc_grid_destroy(g);
	}
	assert_true(large >= 200);
}

static void test_paging_rejects_negative_size(void **state)
{
	int dims[1] = { 4 };
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_policy_t p;
	loc_error_t err;

	(void)state;
	loc_policy_init(&p);
	p.strategy = LOC_STRATEGY_PAGING;
	p.paging_size = -1;
	assert_null(loc_alloc_create(g, &p, &err));
	loc_grid_destroy(g);
}

/* Random: each free node about equally often over many seeds, busy ones
 * never; the same seed and state give the same answer. */
static void test_random_is_uniform_and_seeded(void **state)
{
	int dims[2] = { 4, 4 }, count[16] = { 0 }, out[3], again[3];
	loc_grid_t *g = tu_grid(2, dims, false, 1);
	uint8_t cand[16] = { 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1 };
	const int seeds = 3000;
	bool differ = false;
	int first[3];

	(void)state;
	for (int sd = 0; sd < seeds; sd++) {
		cfg_t c = { .strategy = LOC_STRATEGY_RANDOM };
		loc_alloc_t *a = tu_alloc_full(g, &c, LOC_CURVE_SNAKE, sd + 1);

		assert_int_equal(tu_select(a, cand, 3, out), 0);
		tu_assert_placement(cand, 16, out, 3);
		assert_int_equal(tu_select(a, cand, 3, again), 0);
		assert_memory_equal(out, again, sizeof(out));
		if (!sd)
			memcpy(first, out, sizeof(first));
		else if (memcmp(first, out, sizeof(first)))
			differ = true;
		for (int i = 0; i < 3; i++)
			count[out[i]]++;
		loc_alloc_destroy(a);
	}
	assert_true(differ);
	/* 10 free nodes, 3 picks: 900 expected each, sd about 25. */
	for (int v = 0; v < 16; v++) {
		if (!cand[v]) {
			assert_int_equal(count[v], 0);
			continue;
		}
		assert_in_range(count[v], 780, 1020);
	}
	loc_grid_destroy(g);
}

/*
 * Random on a machine large enough for each way of drawing (rejection
 * when at least an eighth of the nodes are free and k <= 64, the sparse
 * shuffle otherwise, the dense one past k = 64): the answer depends only
 * on the map (the allocator hashes it incrementally, so loads of other
 * maps in between must not matter), a map one node away (in the nodes
 * past the last block of eight) draws anew, and over many seeds every
 * free node is drawn about equally often.
 */
static void test_random_large_is_uniform_and_state_only(void **state)
{
	enum { N = 61 * 33, SEEDS = 400 }; /* N % 8 = 5: a tail */
	int dims[2] = { 61, 33 };
	loc_grid_t *g = tu_grid(2, dims, true, 1);
	static uint8_t maps[3][N];
	static int count[N];
	static int out[300], again[300], fresh[300], near[300];
	/* busy fraction, k: rejection (small, large k), sparse, dense */
	const struct { double busy; int k; } cases[] = {
		{ 0.50, 3 }, { 0.50, 100 }, { 0.95, 3 }, { 0.50, 300 },
	};

	(void)state;
	for (int c = 0; c < 4; c++) {
		int k = cases[c].k, nfree, same = 0;
		long total = 0;

		tu_fragmented(maps[0], N, cases[c].busy, 11 + c);
		tu_fragmented(maps[1], N, 0.3, 99 + c);
		memcpy(maps[2], maps[0], N);
		maps[2][N - 1] ^= 1; /* differs in the tail node only */
		nfree = tu_count(maps[0], N);
		memset(count, 0, sizeof(count));
		for (int sd = 0; sd < SEEDS; sd++) {
			cfg_t cf = { .strategy = LOC_STRATEGY_RANDOM };
			loc_alloc_t *a = tu_alloc_full(g, &cf, LOC_CURVE_SNAKE,
						       sd + 1);
			loc_alloc_t *b = tu_alloc_full(g, &cf, LOC_CURVE_SNAKE,
						       sd + 1);

			assert_int_equal(tu_select(a, maps[0], k, out), 0);
			tu_assert_placement(maps[0], N, out, k);
			/* Other maps in between, then the first again. */
			assert_int_equal(tu_select(a, maps[1], k, again), 0);
			assert_int_equal(tu_select(a, maps[2], k, near), 0);
			same += !memcmp(out, near, sizeof(int) * k);
			assert_int_equal(tu_select(a, maps[0], k, again), 0);
			assert_memory_equal(out, again, sizeof(int) * k);
			/* A fresh allocator, straight to the map. */
			assert_int_equal(tu_select(b, maps[0], k, fresh), 0);
			assert_memory_equal(out, fresh, sizeof(int) * k);
			for (int i = 0; i < k; i++)
				count[out[i]]++;
			loc_alloc_destroy(a);
			loc_alloc_destroy(b);
		}
		assert_true(same < SEEDS / 20);
		/* Each free node: SEEDS k / nfree expected; a chi-square
		 * over the free nodes stays near nfree - 1 times 1 - k /
		 * nfree (k drawn without replacement each time), within
		 * four sd, sqrt(2 / (nfree - 1)), of that. */
		{
			double expect = (double)SEEDS * k / nfree, chi = 0;

			for (int v = 0; v < N; v++) {
				if (!maps[0][v]) {
					assert_int_equal(count[v], 0);
					continue;
				}
				chi += (count[v] - expect) * (count[v] - expect) /
				       expect;
				total += count[v];
			}
			assert_int_equal(total, (long)SEEDS * k);
			chi /= (nfree - 1) * (1 - (double)k / nfree);
			assert_true(fabs(chi - 1) < 4 * sqrt(2.0 / (nfree - 1)));
		}
	}
	loc_grid_destroy(g);
}

/* Length and start (*istart) of the free interval holding the free
 * ranks w..w+k-1 (mod n on a ring). */
static int _interval_around(const loc_curve_t *cv, const uint8_t *cand,
			    int n, bool ring, int w, int k, int *istart)
{
	int lo = w, hi = w + k - 1;

	if (tu_count(cand, n) == n) {
		*istart = 0;
		return n;
	}
	while ((ring || lo > 0) &&
	       cand[loc_curve_node(cv, ((lo - 1) % n + n) % n)])
		lo--;
	while ((ring || hi < n - 1) && cand[loc_curve_node(cv, (hi + 1) % n)])
		hi++;
	*istart = (lo % n + n) % n;
	return hi - lo + 1;
}

/* Whether ranks w..w+k-1 (mod n) are free, connected and hold the nmust
 * required nodes; fills nodes. */
static bool _window_ok(const loc_grid_t *g, const loc_curve_t *cv,
		       const uint8_t *cand, int k, const uint8_t *must,
		       int nmust, int w, int *nodes)
{
	int n = loc_grid_nnodes(g), held = 0;

	for (int j = 0; j < k; j++) {
		nodes[j] = loc_curve_node(cv, (w + j) % n);
		if (!cand[nodes[j]])
			return false;
		held += must ? must[nodes[j]] : 0;
	}
	return held == nmust && tu_connected(g, nodes, k);
}

/*
 * The window contiguous mode must pick: among k consecutive free ranks
 * (wrapping when all dimensions are tori) that are connected and hold the
 * required nodes, the least leftover of the enclosing free interval, then
 * the lowest interval start, then the window nearest that start. Fills
 * want (ascending) and returns true, or false when there is none.
 */
static bool _expected_window(const loc_grid_t *g, const loc_curve_t *cv,
			     const uint8_t *cand, int k, const uint8_t *must,
			     int nmust, int *want)
{
	int n = loc_grid_nnodes(g), bw = -1, nodes[256];
	int64_t best = INT64_MAX;
	bool ring = tu_all_torus(g);

	for (int w = 0; w < (ring ? n : n - k + 1); w++) {
		int istart, len;
		int64_t key;

		if (ring && k == n && w)
			break;
		if (!_window_ok(g, cv, cand, k, must, nmust, w, nodes))
			continue;
		len = _interval_around(cv, cand, n, ring, w, k, &istart);
		key = ((int64_t)(len - k) * n + istart) * n +
		      (w - istart + n) % n;
		if (key < best) {
			best = key;
			bw = w;
		}
	}
	if (bw < 0)
		return false;
	_window_ok(g, cv, cand, k, must, nmust, bw, want);
	qsort(want, k, sizeof(int), tu_cmp_int);
	return true;
}

/* Checks one contiguous call against _expected_window(); when there is
 * no window the answer is a connected set from the box fallback holding
 * the required nodes, or ENOFIT. Returns 1 when a window was expected. */
static int _check_contiguous(loc_alloc_t *a, const uint8_t *cand, int k,
			     const int *req, int nreq)
{
	const loc_grid_t *g = loc_alloc_grid(a);
	int n = loc_grid_nnodes(g), out[256], want[256], rc;
	uint8_t must[256] = { 0 };

	for (int i = 0; i < nreq; i++)
		must[req[i]] = 1;
	rc = tu_select_req(a, cand, k, true, req, nreq, out);
	if (_expected_window(g, loc_alloc_curve(a), cand, k, must, nreq,
			     want)) {
		assert_int_equal(rc, 0);
		assert_memory_equal(out, want, sizeof(int) * k);
		return 1;
	}
	if (rc == LOC_ENOFIT)
		return 0;
	assert_int_equal(rc, 0);
	tu_assert_placement(cand, n, out, k);
	assert_true(tu_connected(g, out, k));
	for (int i = 0; i < nreq; i++)
		assert_non_null(
			bsearch(&req[i], out, k, sizeof(int), tu_cmp_int));
	return 0;
}

/* Contiguous mode on fragmented states of every shape and curve. */
static void test_contiguous_picks_tightest_connected_window(void **state)
{
	uint64_t s = 31337;
	int found = 0;

	(void)state;
	for (int gi = 0; gi < 4 * NSHAPES; gi++) {
		loc_grid_t *g = tu_grid_at(tu_shapes, gi);
		int n = loc_grid_nnodes(g);

		for (int cvk = 0; cvk < LOC_CURVE_COUNT; cvk++) {
			loc_alloc_t *a = tu_alloc(g, LOC_STRATEGY_FREELIST,
						  cvk);

			for (int st = 0; st < 20; st++) {
				uint8_t cand[256];
				int nf, k;

				tu_fragmented(cand, n, 0.15 + 0.03 * st,
					      s + st);
				nf = tu_count(cand, n);
				k = 1 + tu_below(&s, 1 + nf / 2);
				if (nf)
					found += _check_contiguous(a, cand, k,
								   NULL, 0);
			}
			loc_alloc_destroy(a);
		}
		loc_grid_destroy(g);
	}
	assert_true(found > 600);
}

/* A checkerboard has no two adjacent free nodes: no window and no box
 * of 2. Rowmajor ranks 2..5 of a 4x4 mesh are free but split over two
 * rows without touching: no connected window of 4, while 2 fits. */
static void test_contiguous_refuses_disconnected(void **state)
{
	int d66[2] = { 6, 6 }, d44[2] = { 4, 4 }, out[4];
	loc_grid_t *g6 = tu_grid(2, d66, false, 1);
	loc_grid_t *g4 = tu_grid(2, d44, false, 1);
	loc_alloc_t *a6 = tu_alloc(g6, LOC_STRATEGY_SPAN, LOC_CURVE_SNAKE);
	loc_alloc_t *a4 = tu_alloc(g4, LOC_STRATEGY_BESTFIT,
				   LOC_CURVE_ROWMAJOR);
	uint8_t cand[36] = { 0 };
	const int two[2] = { 2, 3 };

	(void)state;
	for (int v = 0; v < 36; v++)
		cand[v] = (v / 6 + v % 6) % 2;
	assert_int_equal(tu_select_req(a6, cand, 2, true, NULL, 0, out),
			 LOC_ENOFIT);
	assert_int_equal(tu_select_req(a6, cand, 1, true, NULL, 0, out), 0);
	memset(cand, 0, sizeof(cand));
	cand[2] = cand[3] = cand[4] = cand[5] = 1;
	assert_int_equal(tu_select_req(a4, cand, 4, true, NULL, 0, out),
			 LOC_ENOFIT);
	assert_int_equal(tu_select_req(a4, cand, 2, true, NULL, 0, out), 0);
	assert_memory_equal(out, two, sizeof(two));
	loc_alloc_destroy(a6);
	loc_alloc_destroy(a4);
	loc_grid_destroy(g6);
	loc_grid_destroy(g4);
}

/* Required nodes in contiguous mode: the window must hold them. */
static void test_contiguous_honours_required(void **state)
{
	int dims[1] = { 16 }, d2[2] = { 5, 6 }, out[16], checked = 0;
	loc_grid_t *g = tu_grid(1, dims, false, 1);
	loc_alloc_t *a = tu_alloc(g, LOC_STRATEGY_FIRSTFIT, LOC_CURVE_ROWMAJOR);
	uint8_t cand[30];
	const int r9[1] = { 9 }, apart[2] = { 3, 12 }, busy[1] = { 5 };
	const int want[4] = { 6, 7, 8, 9 };
	uint64_t s = 5;

	(void)state;
	memset(cand, 1, 16);
	assert_int_equal(tu_select_req(a, cand, 4, true, r9, 1, out), 0);
	assert_memory_equal(out, want, sizeof(want));
	/* Two required nodes too far apart for any window (or box) of 4. */
	assert_int_equal(tu_select_req(a, cand, 4, true, apart, 2, out),
			 LOC_ENOFIT);
	cand[5] = 0;
	assert_int_equal(tu_select_req(a, cand, 4, true, busy, 1, out),
			 LOC_ENOFIT);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);

	/* Random states and required nodes on a 2-D torus. */
	g = tu_grid(2, d2, true, 1);
	a = tu_alloc(g, LOC_STRATEGY_BESTFIT, LOC_CURVE_SNAKE);
	for (int st = 0; st < 300; st++) {
		int req[2], nreq, fr[30], m, k;

		tu_fragmented(cand, 30, 0.3, s + st);
		m = tu_free_ranks(loc_alloc_curve(a), cand, 30, fr);
		if (m < 2)
			continue;
		k = 1 + tu_below(&s, m);
		nreq = 1 + tu_below(&s, k < 2 ? 1 : 2);
		for (int i = 0; i < 2; i++)
			req[i] = loc_curve_node(loc_alloc_curve(a),
						fr[tu_below(&s, m)]);
		if (nreq == 2 && req[1] == req[0])
			nreq = 1;
		checked += _check_contiguous(a, cand, k, req, nreq);
	}
	assert_true(checked > 50);
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paging_hand_examples),
		cmocka_unit_test(test_paging_shared_points),
		cmocka_unit_test(test_paging_zero_is_first_free_nodes),
		cmocka_unit_test(test_paging_rejects_negative_size),
		cmocka_unit_test(test_random_is_uniform_and_seeded),
		cmocka_unit_test(test_random_large_is_uniform_and_state_only),
		cmocka_unit_test(
			test_contiguous_picks_tightest_connected_window),
		cmocka_unit_test(test_contiguous_refuses_disconnected),
		cmocka_unit_test(test_contiguous_honours_required),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
