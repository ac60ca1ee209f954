/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_offer.c - the offers a strategy makes to the allocator: each is
 * checked (k distinct free nodes, whatever the strategy), then kept among
 * the cheapest (one without SL, up to LOC_MAX_OFFERS with it) for
 * loc_alloc.c to choose from.
 */
#include <math.h>
#include <string.h>

#include "loc_alloc_internal.h"
#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_offer.h"

/* Starts a fresh stamp generation; clears the array on wrap (one byte per
 * node keeps the marks in cache; a wrap every 255 offers is cheap). */
static uint8_t _next_stamp(loc_alloc_t *a)
{
	if (++a->stamp == 0) {
		memset(a->seen, 0, a->nnodes);
		a->stamp = 1;
	}
	return a->stamp;
}

static bool _offer_before(double cost, int seq, const loc_offer_t *o)
{
	return cost < o->cost || (cost == o->cost && seq < o->seq);
}

/* Answers of at least n / OFFER_BITS_RATIO nodes are checked through
 * their node bitmap: below that, a pass over every node's bytes costs
 * more than the per-node checks it saves. */
#define OFFER_BITS_RATIO 16

/*
 * Validation is one pass over the offer, O(k): every node in range, free
 * and not seen before in this offer. The flags are or-ed and tested once,
 * so the loop has no data-dependent branch. Large offers only stamp their
 * nodes; then one vector pass over the stamps and the free bytes counts
 * the stamped free nodes (k exactly when all are free and distinct) into
 * the node bitmap, which is also the answer in node order should the
 * offer win.
 */
/* The bitmap check's pass, once the offer's k nodes are stamped: k
 * stamped free nodes, else the offer is not k distinct free nodes. */
static int _count_marks(loc_alloc_t *a, int k, uint8_t stamp, int seq)
{
	if (loc__bits_of_marks(a->seen, stamp, a->free, a->nnodes,
			       a->sortbits, loc__simd_level()) != k)
		return LOC_EINVAL;
	a->bits_seq = seq;
	return 0;
}

static int _check_offer(loc_alloc_t *a, const int *nodes, int k, int seq)
{
	const uint8_t *fr = a->free;
	uint8_t *seen = a->seen, stamp = _next_stamp(a);
	unsigned int n = (unsigned int)a->nnodes, bad = 0;

	a->bits_seq = -1;
	if ((int64_t)k * OFFER_BITS_RATIO >= n) {
		for (int i = 0; i < k; i++) {
			if ((unsigned int)nodes[i] >= n)
				return LOC_EINVAL;
			seen[nodes[i]] = stamp;
		}
		return _count_marks(a, k, stamp, seq);
	}
	for (int i = 0; i < k; i++) {
		unsigned int v = (unsigned int)nodes[i];

		if (v >= n)
			return LOC_EINVAL;
		bad |= (fr[v] ^ 1u) | (unsigned int)(seen[v] == stamp);
		seen[v] = stamp;
	}
	return bad ? LOC_EINVAL : 0;
}

/* Keeps offer seq of cost among the best (nodes: its k nodes, or NULL
 * when only its node bitmap, one kept, will be read). */
static int _keep_offer(loc_alloc_t *a, const int *nodes, int k, int seq,
		       double cost)
{
	int pos;

	if (isnan(cost))
		return LOC_EINVAL;
	if (a->noffers == a->keep &&
	    !_offer_before(cost, seq, &a->offer[a->keep - 1]))
		return 0;
	/* Insert in (cost, seq) order; the buffer of the dropped last offer
	 * is recycled. */
	pos = a->noffers < a->keep ? a->noffers : a->keep - 1;
	{
		int *buf = a->offer[pos].nodes;

		while (pos > 0 &&
		       _offer_before(cost, seq, &a->offer[pos - 1])) {
			a->offer[pos] = a->offer[pos - 1];
			pos--;
		}
		a->offer[pos].nodes = buf;
	}
	a->offer[pos].cost = cost;
	a->offer[pos].seq = seq;
	if (a->keep == 1 && a->bits_seq == seq) {
		/* The answer will be listed from these marks: keep them
		 * (a pointer swap) rather than copy k nodes that would
		 * not be read. */
		uint64_t *t = a->keptbits;

		a->keptbits = a->sortbits;
		a->sortbits = t;
		a->kept_seq = seq;
	} else {
		memcpy(a->offer[pos].nodes, nodes, sizeof(int) * k);
	}
	if (a->noffers < a->keep)
		a->noffers++;
	return 0;
}

int loc__offer(loc__ctx_t *ctx, const int *nodes, double cost)
{
	loc_alloc_t *a = ctx->alloc;
	int seq = a->nseq++, k = ctx->k;

	/* k in a local: the checks' byte stores could alias ctx->k. */
	if (_check_offer(a, nodes, k, seq))
		return LOC_EINVAL;
	/* Contiguous requests with required nodes: only offers that
	 * contain all of them count. */
	if (a->nmust) {
		int must_hit = 0;

		for (int i = 0; i < k; i++)
			must_hit += a->must[nodes[i]];
		if (must_hit != a->nmust)
			return 0;
	}
	return _keep_offer(a, nodes, k, seq, cost);
}

/* Stamps order[r] for the ranks r = ranks[i] (ranks NULL: i) with i in
 * [from, to); false on a rank out of range. */
static bool _stamp_ranks(const int *order, const int *ranks, int from,
			 int to, unsigned int n, uint8_t *seen, uint8_t stamp)
{
	if (!ranks) {
		for (int i = from; i < to; i++)
			seen[order[i]] = stamp;
		return true;
	}
	for (int i = from; i < to; i++) {
		if ((unsigned int)ranks[i] >= n)
			return false;
		seen[order[ranks[i]]] = stamp;
	}
	return true;
}

/* dst[j] = order[src[j]] for j < cnt; nonzero on a rank out of range
 * (which reads node 0). */
static inline unsigned int _map_run(const int *order, const int *src,
				    int cnt, unsigned int n, int *dst)
{
	unsigned int bad = 0;

	for (int j = 0; j < cnt; j++) {
		unsigned int r = (unsigned int)src[j];

		bad |= r >= n;
		dst[j] = order[r < n ? r : 0];
	}
	return bad;
}

/* Writes order[ranks[(start + j) mod len]] (ranks NULL: the rank itself)
 * for j < k into buf, without a division per node; false on a rank out
 * of range. */
static bool _map_ranks(const int *order, const int *ranks, int len,
		       int start, int k, unsigned int n, int *buf)
{
	int a = len - start < k ? len - start : k;

	if (!ranks) {
		memcpy(buf, order + start, sizeof(int) * a);
		memcpy(buf + a, order, sizeof(int) * (k - a));
		return true;
	}
	return !(_map_run(order, ranks + start, a, n, buf) |
		 _map_run(order, ranks, k - a, n, buf + a));
}

/*
 * As mapping the ranks into buf and offering those nodes; when the offer
 * takes the bitmap check and is the one kept (no SL, no required nodes),
 * the nodes are stamped straight from the ranks and never listed: the
 * answer comes from the bitmap.
 */
int loc__offer_ranks(loc__ctx_t *ctx, const int *ranks, int len, int start,
		     int *buf, double cost)
{
	loc_alloc_t *a = ctx->alloc;
	const int *order = loc_curve_order(a->curve);
	int k = ctx->k, seq, a_end;
	unsigned int n = (unsigned int)a->nnodes;
	uint8_t stamp;

	if (start < 0 || start >= len || k > len || (unsigned int)len > n ||
	    (!ranks && (unsigned int)len != n))
		return LOC_EINVAL;
	if (a->keep != 1 || a->nmust || (int64_t)k * OFFER_BITS_RATIO < n) {
		if (!_map_ranks(order, ranks, len, start, k, n, buf))
			return LOC_EINVAL;
		return loc__offer(ctx, buf, cost);
	}
	seq = a->nseq++;
	stamp = _next_stamp(a);
	a->bits_seq = -1;
	a_end = len - start < k ? len : start + k;
	if (!_stamp_ranks(order, ranks, start, a_end, n, a->seen, stamp) ||
	    !_stamp_ranks(order, ranks, 0, k - (a_end - start), n, a->seen,
			  stamp) ||
	    _count_marks(a, k, stamp, seq))
		return LOC_EINVAL;
	return _keep_offer(a, NULL, k, seq, cost);
}

int loc__offer_window(loc__ctx_t *ctx, const int *ranks, int len, int start,
		      int *buf, double cost)
{
	loc_alloc_t *a = ctx->alloc;
	const uint16_t *rank16 = loc_curve_ranks16(a->curve);
	loc_simd_t level = loc__simd_level();
	int n = a->nnodes, k = ctx->k, last, lo, hi, width, seq;

	/* The pass needs vectors to beat the stamps, and 16-bit ranks. */
	if (a->keep != 1 || a->nmust || (int64_t)k * OFFER_BITS_RATIO < n ||
	    !rank16 || level < LOC_SIMD_AVX2 || start < 0 || start >= len ||
	    k < 1 || k > len || len > n || (!ranks && len != n))
		return loc__offer_ranks(ctx, ranks, len, start, buf, cost);
	last = len - start <= k - 1 ? start + k - 1 - len : start + k - 1;
	lo = ranks ? ranks[start] : start;
	hi = ranks ? ranks[last] : last;
	if (lo < 0 || lo >= n || hi < 0 || hi >= n)
		return LOC_EINVAL;
	width = hi >= lo ? hi - lo + 1 : hi - lo + 1 + n;
	seq = a->nseq++;
	/* The pass overwrites the marks of the offer that wrote them last. */
	a->bits_seq = -1;
	if (loc__bits_of_rank_range(rank16, lo, width, a->free, n,
				    a->sortbits, level) != k)
		return LOC_EINVAL;
	a->bits_seq = seq;
	return _keep_offer(a, NULL, k, seq, cost);
}

double loc__offer_bound(const loc__ctx_t *ctx)
{
	const loc_alloc_t *a = ctx->alloc;

	if (a->noffers < a->keep)
		return INFINITY;
	if (a->keep == 1)
		return a->offer[0].cost;
	/* SL keeps near-ties, so anything under the worst kept may count. */
	return a->offer[a->keep - 1].cost;
}
