/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_pack_swap.c - pack's last step: swap a chosen node for a free one
 * near the set while that lowers the total pairwise hops.
 *
 * Each pool node keeps its sum of hops to the set, so a swap of u for v
 * gains sum(u) - sum(v) + hops(u, v), and after a swap every sum moves by
 * hops(., v) - hops(., u): O(pool) per swap instead of O(pool * k).
 * hops(u, v) is at most the machine's diameter, which rules out most
 * pairs at once: only chosen nodes whose sum is within a diameter of the
 * least outside sum can gain, and only outside nodes within a diameter
 * of the largest chosen sum.
 */
#include <stdlib.h>
#include <string.h>

#include "loc_ctx.h"
#include "st_pack.h"

#define PACK_SWAP_PASSES 8     /* exact mode: swaps per decision */
#define PACK_SWAP_SIDE 256     /* bounded mode: candidates of each side */
#define PACK_SWAP_FAILS 32     /* ... pairs that do not gain, per round */
#define PACK_SWAP_TAIL 16      /* ... rounds gaining under 2^-16 end it */

/* sum[i] for every pool node: hops to the set s->best[0..k). */
static void _sums(loc__pack_t *s, int nl, int k)
{
	loc__pack_f_build(s, s->best, k);
	for (int i = 0; i < nl; i++)
		s->sum[i] = loc__pack_f_sum(s, s->pool_c + (size_t)i * s->nd);
}

/* After pool position pu left the set and pv joined it. */
static void _move_sums(loc__pack_t *s, int nl, int pu, int pv)
{
	for (int i = 0; i < nl; i++)
		s->sum[i] += loc__pack_pool_hops(s, i, pv) -
			     loc__pack_pool_hops(s, i, pu);
}

/* The least sum of a pool node outside the set (INT64_MAX if none). */
static int64_t _min_out(const loc__pack_t *s, int nl)
{
	int64_t m = INT64_MAX;

	for (int i = 0; i < nl; i++)
		if (!s->in[s->pool[i]] && s->sum[i] < m)
			m = s->sum[i];
	return m;
}

/*
 * Up to PACK_SWAP_PASSES swaps, each the first that gains in the order
 * (position in s->best, pool position): the rule pack has always had,
 * kept exactly where the whole search is affordable.
 */
static int64_t _swap_first(loc__pack_t *s, int nl, int k, int64_t total)
{
	for (int pass = 0; pass < PACK_SWAP_PASSES; pass++) {
		int64_t min_out = _min_out(s, nl);
		bool moved = false;

		for (int a = 0; a < k && !moved; a++) {
			int pu = s->idx[s->best[a]];
			int64_t su = s->sum[pu];

			/* Any gain needs sum(v) < su + hops(u, v). */
			if (su + s->diameter <= min_out)
				continue;
			for (int i = 0; i < nl; i++) {
				int64_t gain;

				if (s->in[s->pool[i]])
					continue;
				gain = su - s->sum[i] +
				       loc__pack_pool_hops(s, pu, i);
				if (gain > 0) {
					s->in[s->best[a]] = 0;
					s->in[s->pool[i]] = 1;
					s->best[a] = s->pool[i];
					_move_sums(s, nl, pu, i);
					total -= gain;
					moved = true;
					break;
				}
			}
		}
		if (!moved)
			break;
	}
	return total;
}

static inline bool _key_before(const loc__pack_key_t *a,
			       const loc__pack_key_t *b)
{
	return a->sum < b->sum || (a->sum == b->sum && a->pos < b->pos);
}

static void _key_swap(loc__pack_key_t *a, loc__pack_key_t *b)
{
	loc__pack_key_t t = *a;

	*a = *b;
	*b = t;
}

/* Moves the b least keys of a[0..n) (distinct) to a[0..b), in no
 * particular order: quickselect with median-of-three pivots. */
static void _select_least(loc__pack_key_t *a, int n, int b)
{
	int lo = 0, hi = n - 1;

	while (hi > lo) {
		int mid = lo + (hi - lo) / 2, i = lo, j = hi;
		loc__pack_key_t pivot;

		if (_key_before(&a[mid], &a[lo]))
			_key_swap(&a[mid], &a[lo]);
		if (_key_before(&a[hi], &a[lo]))
			_key_swap(&a[hi], &a[lo]);
		if (_key_before(&a[hi], &a[mid]))
			_key_swap(&a[hi], &a[mid]);
		pivot = a[mid];
		while (i <= j) {
			while (_key_before(&a[i], &pivot))
				i++;
			while (_key_before(&pivot, &a[j]))
				j--;
			if (i <= j)
				_key_swap(&a[i++], &a[j--]);
		}
		if (b - 1 <= j)
			hi = j;
		else if (b - 1 >= i)
			lo = i;
		else
			break;
	}
}

/* Sorts a[0..n) (distinct keys): quicksort, insertion sort below 16. */
static void _sort_keys(loc__pack_key_t *a, int n)
{
	while (n > 16) {
		int mid = n / 2, i = 0, j = n - 1;
		loc__pack_key_t pivot;

		if (_key_before(&a[mid], &a[0]))
			_key_swap(&a[mid], &a[0]);
		if (_key_before(&a[n - 1], &a[0]))
			_key_swap(&a[n - 1], &a[0]);
		if (_key_before(&a[n - 1], &a[mid]))
			_key_swap(&a[n - 1], &a[mid]);
		pivot = a[mid];
		while (i <= j) {
			while (_key_before(&a[i], &pivot))
				i++;
			while (_key_before(&pivot, &a[j]))
				j--;
			if (i <= j)
				_key_swap(&a[i++], &a[j--]);
		}
		/* Recurse into the smaller part, loop on the larger. */
		if (j + 1 < n - i) {
			_sort_keys(a, j + 1);
			a += i;
			n -= i;
		} else {
			_sort_keys(a + i, n - i);
			n = j + 1;
		}
	}
	for (int i = 1; i < n; i++) {
		loc__pack_key_t x = a[i];
		int j = i;

		for (; j > 0 && _key_before(&x, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* Keeps the side least keys of a[0..n) and sorts them; returns how
 * many are left. */
static int _trim_sort(loc__pack_key_t *a, int n, int side)
{
	if (n > side) {
		_select_least(a, n, side);
		n = side;
	}
	_sort_keys(a, n);
	return n;
}

/* Bounded mode reads sums from the set's per-axis tables s->f, kept
 * current at O(sum of axis lengths) per swap, unless the axes are
 * longer than the pool (a long ring): then every pool sum moves. */
static void _f_move(loc__pack_t *s, int pu, int pv)
{
	const int *cu = s->pool_c + (size_t)pu * s->nd;
	const int *cv = s->pool_c + (size_t)pv * s->nd;

	for (int d = 0; d < s->nd; d++) {
		int64_t *f = s->f + s->f_at[d];
		const int *h = s->hop + s->hop_at[d];

		for (int x = 0; x < s->len[d]; x++)
			f[x] += h[x - cv[d]] - h[x - cu[d]];
	}
}

static inline int64_t _cur(const loc__pack_t *s, bool by_axis, int i)
{
	return by_axis ? loc__pack_f_sum(s, s->pool_c + (size_t)i * s->nd) :
			 s->sum[i];
}

static void _apply(loc__pack_t *s, int nl, bool by_axis, int pu, int pv)
{
	s->in[s->pool[pu]] = 0;
	s->in[s->pool[pv]] = 1;
	s->pin[pu] = 0;
	s->pin[pv] = 1;
	if (by_axis)
		_f_move(s, pu, pv);
	else
		_move_sums(s, nl, pu, pv);
}

/*
 * Bounded swaps, in rounds. A round lists the chosen nodes that could
 * gain (sum above the least outside sum minus the diameter), farthest
 * from the set first, and the outside ones that could (sum below the
 * largest chosen sum plus the diameter), nearest first, at most
 * PACK_SWAP_SIDE each, and swaps the i-th of one for the i-th of the
 * other where that still gains (each gain exact, from the current sums):
 * the set moves many nodes per round towards its better side. A round
 * that swaps nothing tries every listed pair (the hops between the two
 * can make a pair gain) and applies the best. Stops when nothing gains,
 * when a round gains less than a 2^-PACK_SWAP_TAIL share of the total
 * (the last rounds of a long run gain little), or after about `work`
 * units.
 */
static int64_t _swap_bulk(loc__pack_t *s, int nl, int k, int64_t total,
			  long work)
{
	uint8_t *pin = s->pin;
	loc__pack_key_t *u = s->keys, *v = s->keys + k;
	long axes = 0, spent = 0;
	bool by_axis;

	for (int d = 0; d < s->nd; d++)
		axes += s->len[d];
	by_axis = axes <= nl;
	for (int i = 0; i < nl; i++)
		pin[i] = s->in[s->pool[i]];
	while (spent < work) {
		int64_t max_in = INT64_MIN, min_out = INT64_MAX, gain = 0;
		int64_t lo_u, hi_v, before = total;
		int nu = 0, nv = 0, done = 0, bu = -1, bv = -1, fails = 0;

		for (int i = 0; i < nl; i++) {
			int64_t x = by_axis ? _cur(s, true, i) : s->sum[i];

			s->sum[i] = x;
			if (pin[i])
				max_in = x > max_in ? x : max_in;
			else
				min_out = x < min_out ? x : min_out;
		}
		/* A gain needs sum(u) - sum(v) + hops(u, v) > 0. */
		if (min_out == INT64_MAX || max_in - min_out + s->diameter <= 0)
			break;
		lo_u = min_out - s->diameter;
		hi_v = max_in + s->diameter;
		for (int i = 0; i < nl; i++) {
			loc__pack_key_t *key;

			if (pin[i] ? s->sum[i] <= lo_u : s->sum[i] >= hi_v)
				continue;
			key = pin[i] ? &u[nu++] : &v[nv++];
			key->sum = pin[i] ? -s->sum[i] : s->sum[i];
			key->pos = i;
		}
		nu = _trim_sort(u, nu, PACK_SWAP_SIDE);
		nv = _trim_sort(v, nv, PACK_SWAP_SIDE);
		spent += (long)nl * (s->nd + 1);
		for (int i = 0; i < nu && i < nv; i++) {
			int64_t g = _cur(s, by_axis, u[i].pos) -
				    _cur(s, by_axis, v[i].pos) +
				    loc__pack_pool_hops(s, u[i].pos, v[i].pos);

			if (g <= 0) {
				if (++fails > PACK_SWAP_FAILS)
					break;
				continue;
			}
			_apply(s, nl, by_axis, u[i].pos, v[i].pos);
			total -= g;
			done++;
		}
		spent += (long)done * (by_axis ? axes : nl) + nu + nv;
		if (!done) {
			for (int a = 0; a < nu; a++)
				for (int b = 0; b < nv; b++) {
					int64_t g = s->sum[u[a].pos] -
						    s->sum[v[b].pos] +
						    loc__pack_pool_hops(
							    s, u[a].pos, v[b].pos);

					if (g > gain) {
						gain = g;
						bu = u[a].pos;
						bv = v[b].pos;
					}
				}
			spent += (long)nu * nv;
			if (gain <= 0)
				break;
			_apply(s, nl, by_axis, bu, bv);
			total -= gain;
		}
		if (before - total < total >> PACK_SWAP_TAIL)
			break;
	}
	for (int i = 0, j = 0; i < nl && j < k; i++)
		if (pin[i])
			s->best[j++] = s->pool[i];
	return total;
}

int64_t loc__pack_swap(loc__pack_t *s, const loc__ctx_t *ctx, int64_t total,
		       int m, bool exact, long work)
{
	int k = ctx->k, nl;

	if (k < 2)
		return total;
	/* Candidates: the free nodes nearest the centre; the set grew
	 * from its first m, so every chosen node is among them. The whole
	 * search looks k further, as pack always did. */
	nl = loc__pack_pool(s, ctx, s->best[0], m + k);
	for (int j = 0; j < k; j++)
		if (s->imark[s->best[j]] != s->stamp)
			return total; /* cannot happen; nothing to swap with */
	_sums(s, nl, k);
	if (exact)
		return _swap_first(s, nl, k, total);
	return _swap_bulk(s, nl, k, total, work);
}
