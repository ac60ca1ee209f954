/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_loc_offer.c - the offers a strategy makes to the allocator: a byte
 * per node or a range of ranks read back as a node bitmap at every vector
 * level this CPU runs; offers of nodes, of ranks and of windows of free
 * ranks checked alike, bad ones refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "loc_test_util.h"
#include "loc_alloc_internal.h"
#include "loc_ctx.h"
#include "loc_offer.h"
#include "loc_bits.h"
#include "loc_test_simd.h"

/* Bit v set exactly where byte v holds the mark and the node is free,
 * and their count, on sizes around the 64-byte step, with bytes one off
 * the mark and marks at the signed-compare edges. */
static void test_marks_read_back_at_every_level(void **state)
{
	enum { MAXN = 4200 };
	static uint8_t marks[MAXN], fr[MAXN];
	static uint64_t bits[LOC__BITS_WORDS(MAXN)];
	static const uint8_t near[] = { 0, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff };
	uint64_t s = 3;
	int checked = 0;

	(void)state;
	for (int round = 0; round < 300; round++) {
		int n = round < 140 ? 1 + round : 1 + tu_below(&s, MAXN);
		uint8_t mark = near[tu_below(&s, 7)];
		int want = 0;

		for (int v = 0; v < n; v++) {
			marks[v] = tu_below(&s, 3) ? mark :
				   (uint8_t)(mark + (tu_below(&s, 2) ? 1 : -1));
			fr[v] = tu_below(&s, 5) != 0;
			want += marks[v] == mark && fr[v];
		}
		for (int lv = LOC_SIMD_NONE; lv <= (int)loc__simd_level();
		     lv++) {
			memset(bits, 0xa5, sizeof(bits));
			assert_int_equal(loc__bits_of_marks(marks, mark, fr, n,
							    bits,
							    (loc_simd_t)lv),
					 want);
			for (int v = 0; v < 64 * ((n + 63) / 64); v++)
				assert_int_equal(
					(bits[v >> 6] >> (v & 63)) & 1,
					v < n && marks[v] == mark && fr[v]);
			assert_true(bits[LOC__BITS_WORDS(n) - 1] == 0);
			checked++;
		}
	}
	assert_true(checked >= 300);
}

/*
 * Bit v set exactly where node v is free and its rank lies in the len
 * ranks from lo, wrapping past n, and their count: sizes around the
 * 64-node step; ranges of one rank, of every rank, ending at n, wrapping
 * by one; and 65,536 nodes, where ranks fill 16 bits. Below AVX2 the pass
 * is refused (-1), having written nothing.
 */
static void test_rank_ranges_read_back_at_every_level(void **state)
{
	enum { MAXN = 65536 };
	static uint16_t rank[MAXN];
	static uint8_t fr[MAXN];
	static uint64_t bits[LOC__BITS_WORDS(MAXN)];
	uint64_t s = 5;
	int checked = 0;

	(void)state;
	for (int round = 0; round < 420; round++) {
		int n = round < 140 ? 1 + round :
			round < 400 ? 1 + tu_below(&s, 4200) :
				      MAXN - (round % 2) * tu_below(&s, 64);
		/* Round 400: every rank of 65,536 from 0, whose length
		 * does not fit in 16 bits. */
		int lo = round == 400 ? 0 : tu_below(&s, n), len, want = 0;

		switch (round % 5) {
		case 0:
			len = n;
			break;
		case 1:
			len = n - lo;
			break;
		case 2:
			len = lo ? n - lo + 1 : 1;
			break;
		default:
			len = 1 + tu_below(&s, n);
		}
		for (int v = 0; v < n; v++) {
			int j = tu_below(&s, v + 1);

			rank[v] = rank[j];
			rank[j] = (uint16_t)v;
		}
		for (int v = 0; v < n; v++) {
			fr[v] = tu_below(&s, 4) != 0;
			want += fr[v] && (rank[v] - lo + n) % n < len;
		}
		for (int lv = LOC_SIMD_NONE; lv <= (int)loc__simd_level();
		     lv++) {
			memset(bits, 0xa5, sizeof(bits));
			if (lv < LOC_SIMD_AVX2) {
				assert_int_equal(
					loc__bits_of_rank_range(
						rank, lo, len, fr, n, bits,
						(loc_simd_t)lv),
					-1);
				assert_true(bits[0] == 0xa5a5a5a5a5a5a5a5ULL);
				continue;
			}
			assert_int_equal(loc__bits_of_rank_range(
						 rank, lo, len, fr, n, bits,
						 (loc_simd_t)lv),
					 want);
			for (int v = 0; v < 64 * ((n + 63) / 64); v++)
				assert_int_equal(
					(bits[v >> 6] >> (v & 63)) & 1,
					v < n && fr[v] &&
						(rank[v] - lo + n) % n < len);
			assert_true(bits[LOC__BITS_WORDS(n) - 1] == 0);
			checked++;
		}
	}
	assert_true(checked >= 420 || loc__simd_level() < LOC_SIMD_AVX2);
}

/*
 * A strategy's offer is refused unless it is k distinct free nodes in
 * range: small offers are checked node by node, large ones (k >= n/16)
 * through their marks' count; both paths, each fault alone. The map is
 * the one the last select loaded.
 */
/* A freelist allocator on a 32x32 torus (*g), to offer to by hand. */
static loc_alloc_t *_offer_target(loc_grid_t **g)
{
	int dims[2] = { 32, 32 };
	loc_policy_t pol;
	loc_alloc_t *a;

	*g = tu_grid(2, dims, true, 1);
	loc_policy_init(&pol);
	pol.strategy = LOC_STRATEGY_FREELIST;
	a = loc_alloc_create(*g, &pol, NULL);
	assert_non_null(a);
	return a;
}

/* Loads the candidate map cand into a (one select), for ctx's offers. */
static void _load_map(loc_alloc_t *a, uint8_t *cand, loc__ctx_t *ctx)
{
	loc_view_t view = { .candidate = cand };
	loc_request_t req = { .nodes = 10 };
	int out[10];

	assert_int_equal(loc_alloc_select(a, &req, &view, out, NULL), 0);
	ctx->alloc = a;
}

static void test_bad_offers_are_refused(void **state)
{
	int n = 1024, nodes[300];
	uint8_t cand[1024];
	loc_grid_t *g;
	loc_alloc_t *a = _offer_target(&g);
	loc__ctx_t ctx = { 0 };
	int nfree = 0, busy = -1, free_nodes[1024];
	uint64_t s = 12;

	(void)state;
	for (int v = 0; v < n; v++) {
		cand[v] = tu_below(&s, 2);
		if (cand[v])
			free_nodes[nfree++] = v;
		else
			busy = v;
	}
	assert_true(nfree > 300 && busy >= 0);
	_load_map(a, cand, &ctx);
	for (int k = 20; k <= 300; k += 280) {
		ctx.k = k;
		/* Free nodes from the back, out of order. */
		for (int i = 0; i < k; i++)
			nodes[i] = free_nodes[nfree - 1 - i];
		assert_int_equal(loc__offer(&ctx, nodes, 1.0), 0);
		for (int fault = 0; fault < 4; fault++) {
			int at = tu_below(&s, k), keep = nodes[at];
			static const int far[4] = { 0, 0, 1024, -1 };

			nodes[at] = fault == 0 ? busy :
				    fault == 1 ? nodes[(at + 1) % k] : far[fault];
			assert_int_equal(loc__offer(&ctx, nodes, 1.0),
					 LOC_EINVAL);
			nodes[at] = keep;
		}
		assert_int_equal(loc__offer(&ctx, nodes, 1.0), 0);
	}
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/*
 * Loads into a (for ctx's offers) a map of 1,024 ranks, those below 100
 * and from 700 on free, random between (seed s). Writes its free ranks,
 * ascending, to franks and a busy one to *busy; returns how many are
 * free.
 */
static int _rank_map(loc_alloc_t *a, uint64_t s, loc__ctx_t *ctx,
		     int *franks, int *busy)
{
	const int *order = loc_curve_order(loc_alloc_curve(a));
	uint8_t cand[1024];
	int nfree = 0;

	*busy = -1;
	for (int r = 0; r < 1024; r++)
		cand[order[r]] = r < 100 || r >= 700 || tu_below(&s, 2);
	for (int r = 0; r < 1024; r++) {
		if (cand[order[r]])
			franks[nfree++] = r;
		else
			*busy = r;
	}
	assert_true(nfree > 500 && *busy >= 0);
	_load_map(a, cand, ctx);
	return nfree;
}

/*
 * Offers by rank (loc__offer_ranks()) are checked as offers by node, on
 * both paths (k = 20 listed and checked node by node, k = 300 stamped
 * straight from the ranks): a ring of free ranks from the back with its
 * wrap, and the ranks themselves (NULL) over a stretch of free ranks that
 * wraps, are taken; a busy node's rank, a repeated or out-of-range rank,
 * and a start or length out of range are refused.
 */
static void test_offers_by_rank_are_checked_alike(void **state)
{
	int n = 1024;
	loc_grid_t *g;
	loc_alloc_t *a = _offer_target(&g);
	loc__ctx_t ctx = { 0 };
	int busy, franks[1024], buf[1024];
	int nfree = _rank_map(a, 13, &ctx, franks, &busy);
	uint64_t s = 13;

	(void)state;
	for (int k = 20; k <= 300; k += 280) {
		/* Starts k - 5 from the end: the ring wraps. */
		int start = nfree - k + 5;

		ctx.k = k;
		assert_int_equal(loc__offer_ranks(&ctx, franks, nfree, start,
						  buf, 1.0), 0);
		assert_int_equal(loc__offer_ranks(&ctx, NULL, n, n - k + 5,
						  buf, 1.0), 0);
		/* The ranks themselves from 200 hold busy ones. */
		assert_int_equal(loc__offer_ranks(&ctx, NULL, n, 200, buf,
						  1.0), LOC_EINVAL);
		for (int fault = 0; fault < 4; fault++) {
			/* In the wrapped part, then in the first. */
			int at = fault % 2 ? tu_below(&s, 5) :
					     start + tu_below(&s, k - 5);
			int keep = franks[at];
			static const int bad[4] = { 0, 0, 1024, -1 };

			franks[at] = fault == 0 ? busy :
				     fault == 1 ? franks[(at + 1) % nfree] :
						  bad[fault];
			assert_int_equal(loc__offer_ranks(&ctx, franks, nfree,
							  start, buf, 1.0),
					 LOC_EINVAL);
			franks[at] = keep;
		}
		assert_int_equal(loc__offer_ranks(&ctx, franks, nfree, nfree,
						  buf, 1.0), LOC_EINVAL);
		assert_int_equal(loc__offer_ranks(&ctx, franks, nfree, -1,
						  buf, 1.0), LOC_EINVAL);
		assert_int_equal(loc__offer_ranks(&ctx, franks, k - 1, 0,
						  buf, 1.0), LOC_EINVAL);
		assert_int_equal(loc__offer_ranks(&ctx, franks, n + 1, 0,
						  buf, 1.0), LOC_EINVAL);
		assert_int_equal(loc__offer_ranks(&ctx, NULL, n - 1, 0, buf,
						  1.0), LOC_EINVAL);
		assert_int_equal(loc__offer_ranks(&ctx, franks, nfree, start,
						  buf, 1.0), 0);
	}
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

/* The offer just made, which must have been kept: its node bitmap for a
 * large one (k >= n/16), else its nodes, into out. */
static void _kept(const loc_alloc_t *a, int k, int n, void *out)
{
	assert_int_equal(a->offer[0].seq, a->nseq - 1);
	if (k * 16 < n) {
		memcpy(out, a->offer[0].nodes, sizeof(int) * k);
		return;
	}
	assert_int_equal(a->kept_seq, a->nseq - 1);
	memcpy(out, a->keptbits, sizeof(uint64_t) * LOC__BITS_WORDS(n));
}

/*
 * Windows of consecutive free ranks (loc__offer_window()) are taken as
 * the same offers by rank (loc__offer_ranks()), on both paths (k = 20 as
 * a list, k = 300 through one pass over the nodes' ranks where the CPU
 * has AVX2): a ring of free ranks from the back, wrapping by five and by
 * one, and from the middle; a stretch of ranks (NULL) that wraps; the
 * first k free ranks alone. Refused: a stretch over busy ranks, a rank
 * or a start or length out of range, and in one pass a list that skips a
 * free rank inside the window.
 */
static void test_offers_by_window_match_offers_by_rank(void **state)
{
	enum { N = 1024 };
	/* Room for k = 300 nodes or N bits. */
	static uint64_t want[N / 2], got[N / 2];
	loc_grid_t *g;
	loc_alloc_t *a = _offer_target(&g);
	loc__ctx_t ctx = { 0 };
	int busy, franks[N], skip[N], buf[N];
	int nfree = _rank_map(a, 14, &ctx, franks, &busy);
	double cost = -1.0; /* below the select's: each offer is kept */

	(void)state;
	for (int k = 20; k <= 300; k += 280) {
		const struct {
			const int *ranks;
			int len, start;
		} ok[] = {
			{ franks, nfree, nfree - k + 5 },
			{ franks, nfree, nfree - k + 1 },
			{ franks, nfree, 37 },
			{ NULL, N, N - k + 5 },
			{ franks, k, 0 },
		};

		ctx.k = k;
		for (int c = 0; c < 5; c++) {
			/* Each costs less than the last: each is kept. */
			assert_int_equal(loc__offer_ranks(&ctx, ok[c].ranks,
							  ok[c].len,
							  ok[c].start, buf,
							  cost--),
					 0);
			_kept(a, k, N, want);
			assert_int_equal(loc__offer_window(&ctx, ok[c].ranks,
							   ok[c].len,
							   ok[c].start, buf,
							   cost--),
					 0);
			_kept(a, k, N, got);
			assert_memory_equal(got, want,
					    k * 16 < N ?
						    sizeof(int) * k :
						    sizeof(uint64_t) *
							    LOC__BITS_WORDS(N));
		}
		/* franks without franks[60]: the range of a window over it
		 * holds k + 1 free ranks. Listed, it is k free nodes. */
		memcpy(skip, franks, sizeof(int) * 60);
		memcpy(skip + 60, franks + 61, sizeof(int) * (nfree - 61));
		assert_int_equal(loc__offer_window(&ctx, skip, nfree - 1, 50,
						   buf, cost--),
				 k == 300 && loc__simd_level() >= LOC_SIMD_AVX2 ?
					 LOC_EINVAL :
					 0);
		assert_int_equal(loc__offer_window(&ctx, NULL, N, 200, buf,
						   cost--),
				 LOC_EINVAL);
		for (int c = 0; c < 4; c++) {
			int at = c < 2 ? 40 : 40 + k - 1, keep = franks[at];

			franks[at] = c % 2 ? N : -1;
			assert_int_equal(loc__offer_window(&ctx, franks, nfree,
							   40, buf, cost--),
					 LOC_EINVAL);
			franks[at] = keep;
		}
		assert_int_equal(loc__offer_window(&ctx, franks, nfree, nfree,
						   buf, cost--),
				 LOC_EINVAL);
		assert_int_equal(loc__offer_window(&ctx, franks, nfree, -1,
						   buf, cost--),
				 LOC_EINVAL);
		assert_int_equal(loc__offer_window(&ctx, franks, k - 1, 0,
						   buf, cost--),
				 LOC_EINVAL);
		assert_int_equal(loc__offer_window(&ctx, NULL, N - 1, 0, buf,
						   cost--),
				 LOC_EINVAL);
	}
	loc_alloc_destroy(a);
	loc_grid_destroy(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks_read_back_at_every_level),
		cmocka_unit_test(test_rank_ranges_read_back_at_every_level),
		cmocka_unit_test(test_bad_offers_are_refused),
		cmocka_unit_test(test_offers_by_rank_are_checked_alike),
		cmocka_unit_test(test_offers_by_window_match_offers_by_rank),
	};

	tu_simd_report("test_loc_offer");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
