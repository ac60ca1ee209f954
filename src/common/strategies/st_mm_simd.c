/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm_simd.c - the Manhattan Median family's vector paths (seed 003,
 * Bender et al., WADS 2005), chosen at run time by st->simd: the walk
 * over the padded copy sixteen offsets a step with AVX-512, eight with
 * AVX2 (and the L1 star that ranks centres, a walk too), and the
 * pairwise total of a small walked set with AVX2. At k = 8 mm walks
 * from every candidate centre (most of a half-free machine's points)
 * and sums each set: these two loops were most of its decision.
 */
#include "loc_bits.h"
#include "st_mm.h"

#if MM_VECTORS
#include <immintrin.h>

/* The lanes' running total of f, in four shifted adds. */
__attribute__((target("avx512f"))) static inline __m512i
_mm_running16(__m512i f)
{
	const __m512i zero = _mm512_setzero_si512();
	__m512i sum = _mm512_add_epi32(f, _mm512_alignr_epi32(f, zero, 15));

	sum = _mm512_add_epi32(sum, _mm512_alignr_epi32(sum, zero, 14));
	sum = _mm512_add_epi32(sum, _mm512_alignr_epi32(sum, zero, 12));
	return _mm512_add_epi32(sum, _mm512_alignr_epi32(sum, zero, 8));
}

/* What each lane takes when need nodes are left before the step: its
 * count, up to what the lanes before it leave. */
__attribute__((target("avx512f"))) static inline __m512i
_mm_takes16(__m512i f, int need)
{
	return _mm512_min_epi32(
		f, _mm512_max_epi32(
			   _mm512_sub_epi32(_mm512_set1_epi32(need),
					    _mm512_sub_epi32(_mm_running16(f), f)),
			   _mm512_setzero_si512()));
}

/*
 * The padded walk of st_mm_walk.c, sixteen offsets a step: gather their
 * free counts (a 4-byte read from each byte: the copy has MM_PAD_SLACK
 * bytes after its end), take from each what k leaves after the lanes
 * before, and compress the points that gave nodes into ent_off and
 * ent_take (MM_WALK_SLACK entries past nnodes). Stops after the step
 * that reaches k or before the last partial step; returns the next
 * offset, the caller walks on from there.
 */
__attribute__((target("avx512f,avx512bw")))
int loc__mm_walk_avx512(loc__mm_t *st, const uint8_t *at,
			loc__mm_walked_t *w)
{
	const int *delta = st->pad_delta;
	const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
					       10, 11, 12, 13, 14, 15);
	const __m512i byte = _mm512_set1_epi32(0xff);
	int need = w->need, n = w->n, last = w->last, i = 0;

	for (; i + 16 <= st->noff && need; i += 16) {
		__m512i f = _mm512_and_si512(
			_mm512_i32gather_epi32(_mm512_loadu_si512(delta + i),
					       at, 1),
			byte);
		__m512i take = f;
		__mmask16 got;
		int all;

		/* Sixteen busy points (much of a walk out of a busy
		 * region) cost the gather only. */
		if (!_mm512_test_epi32_mask(f, f))
			continue;
		/* A step short of k takes all it finds: no running total. */
		all = _mm512_reduce_add_epi32(f);
		if (all >= need)
			take = _mm_takes16(f, need);
		got = _mm512_test_epi32_mask(take, take);
		_mm512_storeu_si512(
			st->ent_off + n,
			_mm512_maskz_compress_epi32(
				got,
				_mm512_add_epi32(lane, _mm512_set1_epi32(i))));
		_mm512_storeu_si512(st->ent_take + n,
				    _mm512_maskz_compress_epi32(got, take));
		n += __builtin_popcount(got);
		last = got ? i + 31 - __builtin_clz(got) : last;
		need = all < need ? need - all : 0;
	}
	w->need = need;
	w->n = n;
	w->last = last;
	return i;
}

/*
 * The L1 star of st_mm_rank.c, sixteen offsets a step as the walk above:
 * adds take times L1 length per lane, and after each step gives up once
 * the nodes still needed, at least the step's last length away, bring
 * the star past bound. Returns -1 with *star decided (the star, or a
 * value > bound), else the next offset, *need and *star to go on from.
 */
__attribute__((target("avx512f,avx512bw")))
int loc__mm_star_avx512(const loc__mm_t *st, const uint8_t *at,
			int64_t bound, int *need, int64_t *star)
{
	const int *delta = st->pad_delta, *l1 = st->off_l1;
	const __m512i byte = _mm512_set1_epi32(0xff);
	int left = *need, i = 0;
	int64_t sum_l1 = *star, lb;

	for (; i + 16 <= st->noff; i += 16) {
		__m512i f = _mm512_and_si512(
			_mm512_i32gather_epi32(_mm512_loadu_si512(delta + i),
					       at, 1),
			byte);
		__m512i len = _mm512_loadu_si512(l1 + i);
		int all = _mm512_reduce_add_epi32(f);

		/* A step short of k takes all it finds: its sums need not
		 * wait for the step before, so steps overlap. */
		if (all < left) {
			sum_l1 += _mm512_reduce_add_epi32(
				_mm512_mullo_epi32(f, len));
			left -= all;
			lb = sum_l1 + (int64_t)left * l1[i + 15];
			if (lb > bound) {
				*star = lb;
				return -1;
			}
			continue;
		}
		*star = sum_l1 + _mm512_reduce_add_epi32(_mm512_mullo_epi32(
					 _mm_takes16(f, left), len));
		return -1;
	}
	*need = left;
	*star = sum_l1;
	return i;
}

/* The lanes' running total of f (eight lanes): three shifts, each a
 * half swap and a byte align across the two halves. */
__attribute__((target("avx2"))) static inline __m256i
_mm_running8(__m256i f)
{
	__m256i low = _mm256_permute2x128_si256(f, f, 0x08); /* 0, f.lo */
	__m256i sum = _mm256_add_epi32(f, _mm256_alignr_epi8(f, low, 12));

	low = _mm256_permute2x128_si256(sum, sum, 0x08);
	sum = _mm256_add_epi32(sum, _mm256_alignr_epi8(sum, low, 8));
	return _mm256_add_epi32(sum, _mm256_permute2x128_si256(sum, sum,
								0x08));
}

/* _mm_takes16() for eight lanes. */
__attribute__((target("avx2"))) static inline __m256i
_mm_takes8(__m256i f, int need)
{
	return _mm256_min_epi32(
		f, _mm256_max_epi32(
			   _mm256_sub_epi32(_mm256_set1_epi32(need),
					    _mm256_sub_epi32(_mm_running8(f), f)),
			   _mm256_setzero_si256()));
}

/* The sum of the eight lanes. */
__attribute__((target("avx2"))) static inline int _mm_sum8(__m256i v)
{
	__m128i s = _mm_add_epi32(_mm256_castsi256_si128(v),
				  _mm256_extracti128_si256(v, 1));

	s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
	s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
	return _mm_cvtsi128_si32(s);
}

/* Eight free counts of the padded copy from at, offsets i to i + 7. */
__attribute__((target("avx2"))) static inline __m256i
_mm_gather8(const loc__mm_t *st, const uint8_t *at, int i)
{
	return _mm256_and_si256(
		_mm256_i32gather_epi32(
			(const int *)at,
			_mm256_loadu_si256((const __m256i *)(st->pad_delta + i)),
			1),
		_mm256_set1_epi32(0xff));
}

/*
 * loc__mm_walk_avx512() eight offsets a step, for CPUs with AVX2 only:
 * the points that gave nodes are packed to the front by a permute from
 * loc__byte_ones, there being no compress.
 */
__attribute__((target("avx2,popcnt")))
int loc__mm_walk_avx2(loc__mm_t *st, const uint8_t *at, loc__mm_walked_t *w)
{
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const __m256i zero = _mm256_setzero_si256();
	int need = w->need, n = w->n, last = w->last, i = 0;

	for (; i + 8 <= st->noff && need; i += 8) {
		__m256i f = _mm_gather8(st, at, i), take = f, pack;
		int got, all;

		if (_mm256_testz_si256(f, f))
			continue;
		/* A step short of k takes all it finds: no running total. */
		all = _mm_sum8(f);
		if (all >= need)
			take = _mm_takes8(f, need);
		got = _mm256_movemask_ps(
			_mm256_castsi256_ps(_mm256_cmpgt_epi32(take, zero)));
		pack = _mm256_cvtepu8_epi32(
			_mm_loadl_epi64((const __m128i *)loc__byte_ones[got]));
		_mm256_storeu_si256(
			(__m256i *)(st->ent_off + n),
			_mm256_permutevar8x32_epi32(
				_mm256_add_epi32(lane, _mm256_set1_epi32(i)),
				pack));
		_mm256_storeu_si256((__m256i *)(st->ent_take + n),
				    _mm256_permutevar8x32_epi32(take, pack));
		n += __builtin_popcount(got);
		last = got ? i + 31 - __builtin_clz(got) : last;
		need = all < need ? need - all : 0;
	}
	w->need = need;
	w->n = n;
	w->last = last;
	return i;
}

/* loc__mm_star_avx512() eight offsets a step, for CPUs with AVX2 only. */
__attribute__((target("avx2")))
int loc__mm_star_avx2(const loc__mm_t *st, const uint8_t *at, int64_t bound,
		      int *need, int64_t *star)
{
	const int *l1 = st->off_l1;
	int left = *need, i = 0;
	int64_t sum_l1 = *star, lb;

	for (; i + 8 <= st->noff; i += 8) {
		__m256i f = _mm_gather8(st, at, i);
		__m256i len = _mm256_loadu_si256((const __m256i *)(l1 + i));
		int all = _mm_sum8(f);

		if (all < left) {
			sum_l1 += _mm_sum8(_mm256_mullo_epi32(f, len));
			left -= all;
			lb = sum_l1 + (int64_t)left * l1[i + 7];
			if (lb > bound) {
				*star = lb;
				return -1;
			}
			continue;
		}
		*star = sum_l1 +
			_mm_sum8(_mm256_mullo_epi32(_mm_takes8(f, left), len));
		return -1;
	}
	*need = left;
	*star = sum_l1;
	return i;
}

/* Hops between coordinates x and xe on a ring of ring positions (a mesh
 * axis passes a ring past any delta, so the min keeps the delta). */
__attribute__((target("avx2"))) static inline __m256i
_mm_hops8(__m256i x, __m256i xe, __m256i ring)
{
	__m256i h = _mm256_abs_epi32(_mm256_sub_epi32(x, xe));

	return _mm256_min_epi32(h, _mm256_sub_epi32(ring, h));
}

/*
 * Pairwise hops of up to MM_VECTOR_PAIRS walked points: each point
 * against the points before it, eight a vector, the later lanes weighted
 * 0. Sums in 32 bits: st->pairs32 says the total fits.
 */
__attribute__((target("avx2")))
int64_t loc__mm_walk_cost_avx2(const loc__mm_t *st)
{
	/* Lanes past nent are computed and weighted 0: zeros keep them
	 * defined. */
	int32_t x[LOC_MAX_DIMS][MM_VECTOR_PAIRS] __attribute__((aligned(32))) = {
		{ 0 }
	};
	int32_t t[MM_VECTOR_PAIRS] __attribute__((aligned(32))) = { 0 };
	__m256i xv[LOC_MAX_DIMS][2], tv[2], lane[2], ring[LOC_MAX_DIMS];
	__m256i acc = _mm256_setzero_si256();
	const int nd = st->nd, nent = st->nent;
	int32_t sum[8];
	int64_t total = 0;

	for (int e = 0; e < nent; e++) {
		const int *u = st->off + (size_t)st->ent_off[e] * nd;

		t[e] = st->ent_take[e];
		for (int d = 0; d < nd; d++)
			x[d][e] = u[d];
	}
	for (int v = 0; v < 2; v++) {
		tv[v] = _mm256_load_si256((const __m256i *)(t + 8 * v));
		lane[v] = _mm256_setr_epi32(8 * v, 8 * v + 1, 8 * v + 2,
					    8 * v + 3, 8 * v + 4, 8 * v + 5,
					    8 * v + 6, 8 * v + 7);
		for (int d = 0; d < nd; d++)
			xv[d][v] = _mm256_load_si256(
				(const __m256i *)(x[d] + 8 * v));
	}
	for (int d = 0; d < nd; d++)
		ring[d] = _mm256_set1_epi32(st->torus[d] ? st->len[d] :
							   2 * st->len[d]);
	for (int e = 1; e < nent; e++) {
		__m256i te = _mm256_set1_epi32(t[e]);
		__m256i before = _mm256_set1_epi32(e);

		for (int v = 0; 8 * v < e; v++) {
			__m256i h = _mm256_setzero_si256(), w;

			for (int d = 0; d < nd; d++)
				h = _mm256_add_epi32(
					h, _mm_hops8(xv[d][v],
						     _mm256_set1_epi32(x[d][e]),
						     ring[d]));
			w = _mm256_and_si256(tv[v],
					     _mm256_cmpgt_epi32(before, lane[v]));
			acc = _mm256_add_epi32(
				acc, _mm256_mullo_epi32(
					     h, _mm256_mullo_epi32(w, te)));
		}
	}
	_mm256_storeu_si256((__m256i *)sum, acc);
	for (int i = 0; i < 8; i++)
		total += sum[i];
	return total;
}
#endif /* MM_VECTORS */
