/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_paging.c - Paging(indexing, page size) (seed 001, Lo et al.,
 * "Non-contiguous processor allocation algorithms for mesh-connected
 * multicomputers", sec. 3.2).
 *
 * The grid is cut into pages of side 2^paging_size in every dimension
 * (pages at the far edges may be smaller). Pages are ordered once, at
 * allocator creation, by the indexing scheme:
 *   rowmajor  row-major over page coordinates (dimension 0 slowest),
 *   snake     boustrophedon: a dimension runs backwards when the sum of
 *             the slower page coordinates is odd, so consecutive pages
 *             touch,
 *   shuffled  the paper's shuffled row-major indexing: the bits of the
 *             page coordinates interleaved (dimension 0's bit first at
 *             each level), i.e. Z order; on page grids that are not
 *             powers of two the pages keep the order of their keys.
 * The paper's shuffled scheme is this fixed bit shuffle, not a random
 * permutation ("consecutive blocks will always be allocated adjacently"),
 * so policy->seed is not used here.
 *
 * The paper allocates only entirely free pages, taken from the free page
 * list in index order until they hold at least k processors; the excess of
 * the last page is internal fragmentation. Here:
 *   1. Pages all of whose nodes are candidates are taken in index order,
 *      whole, while they fit; the last one contributes only the nodes
 *      still needed, first in row-major order (point order, then node
 *      number). The core must return exactly k nodes, so the rest of that
 *      page stays free instead of being wasted; later paging calls see
 *      the page as partly used and skip it until it empties.
 *   2. Deviation, for liveness: when the entirely free pages hold fewer
 *      than k nodes (the paper's job would wait), the free nodes of the
 *      partly used pages are added in page index order (row-major inside
 *      each page), so paging never refuses a job the candidates can hold
 *      (candidate maps cut by partitions or down nodes need not align
 *      with pages). Such a placement is offered with cost 1 instead of 0.
 */
#include <stdlib.h>

#include "loc_bits.h"
#include "loc_ctx.h"
#include "loc_offer.h"
#include "loc_strategy_ops.h"

typedef struct paging {
	int npages;
	int *page_start; /* [npages + 1]: page i's nodes are */
	int *page_nodes; /* page_nodes[page_start[i] .. page_start[i+1]) */
	bool single;     /* every page holds exactly one node */
	bool node_order; /* single, and page i is node i (Paging(0) in
			  * row-major order: the rows of the grid) */
} paging_t;

typedef struct page_key {
	uint64_t key;
	int page;
} page_key_t;

static int _cmp_key(const void *x, const void *y)
{
	const page_key_t *a = x, *b = y;

	return (a->key > b->key) - (a->key < b->key);
}

static void _paging_fini(void *state)
{
	paging_t *pg = state;

	if (!pg)
		return;
	free(pg->page_start);
	free(pg->page_nodes);
	free(pg);
}

/* Fills rank[page] (row-major page id) with each page's index position. */
static void _index_pages(const int *pd, int nd, loc_paging_index_t index,
			 int npages, int *rank, page_key_t *keys)
{
	int bits = 0;

	for (int d = 0; d < nd; d++)
		while ((1 << bits) < pd[d])
			bits++;
	for (int id = 0; id < npages; id++) {
		int pc[LOC_MAX_DIMS], rest = id, pos = 0, parity = 0;
		uint64_t key = 0;

		for (int d = nd - 1; d >= 0; d--) {
			pc[d] = rest % pd[d];
			rest /= pd[d];
		}
		switch (index) {
		case LOC_PAGING_SNAKE:
			for (int d = 0; d < nd; d++) {
				int i = parity ? pd[d] - 1 - pc[d] : pc[d];

				pos = pos * pd[d] + i;
				parity ^= pc[d] & 1;
			}
			rank[id] = pos;
			break;
		case LOC_PAGING_SHUFFLED:
			for (int b = bits - 1; b >= 0; b--)
				for (int d = 0; d < nd; d++)
					key = (key << 1) | ((pc[d] >> b) & 1);
			keys[id].key = key;
			keys[id].page = id;
			break;
		default:
			rank[id] = id;
		}
	}
	if (index == LOC_PAGING_SHUFFLED) {
		qsort(keys, npages, sizeof(*keys), _cmp_key);
		for (int i = 0; i < npages; i++)
			rank[keys[i].page] = i;
	}
}

static int _paging_init(const loc_grid_t *grid, const loc_curve_t *curve,
			const loc_policy_t *policy, void **state,
			loc_error_t *err)
{
	const loc_shape_t *s = loc_grid_shape(grid);
	int nd = s->ndims, np = loc_grid_npoints(grid);
	int nn = loc_grid_nnodes(grid), ps = policy->paging_size;
	int side, pd[LOC_MAX_DIMS], npages = 1, *rank = NULL, *fill = NULL;
	page_key_t *keys = NULL;
	paging_t *pg;

	(void)curve;
	if (ps < 0)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "paging size %d is negative", ps);
	if ((int)policy->paging_index < 0 ||
	    policy->paging_index >= LOC_PAGING_COUNT)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "unknown paging index %d",
				     policy->paging_index);
	side = 1 << (ps < 30 ? ps : 30);
	for (int d = 0; d < nd; d++) {
		pd[d] = (int)(((int64_t)s->dims[d] + side - 1) / side);
		npages *= pd[d];
	}
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		goto nomem;
	pg->npages = npages;
	pg->page_start = calloc((size_t)npages + 1, sizeof(int));
	pg->page_nodes = malloc(sizeof(int) * (nn ? nn : 1));
	rank = malloc(sizeof(int) * npages);
	fill = malloc(sizeof(int) * npages);
	keys = malloc(sizeof(*keys) * npages);
	if (!pg->page_start || !pg->page_nodes || !rank || !fill || !keys)
		goto nomem;
	_index_pages(pd, nd, policy->paging_index, npages, rank, keys);

	/* Bucket the nodes by page position; visiting points in row-major
	 * order keeps each page's nodes in row-major order. */
	for (int pass = 0; pass < 2; pass++) {
		for (int p = 0; p < np; p++) {
			loc_coord_t c;
			const int *nodes;
			int cnt = loc_grid_point_nodes(grid, p, &nodes), id = 0;

			if (!cnt)
				continue;
			loc_grid_point_coord(grid, p, &c);
			for (int d = 0; d < nd; d++)
				id = id * pd[d] + c.c[d] / side;
			if (pass == 0) {
				pg->page_start[rank[id] + 1] += cnt;
				continue;
			}
			for (int i = 0; i < cnt; i++)
				pg->page_nodes[fill[rank[id]]++] = nodes[i];
		}
		if (pass == 0) {
			for (int i = 0; i < npages; i++)
				pg->page_start[i + 1] += pg->page_start[i];
			for (int i = 0; i < npages; i++)
				fill[i] = pg->page_start[i];
		}
	}
	pg->single = true;
	for (int i = 0; i < npages; i++)
		if (pg->page_start[i + 1] - pg->page_start[i] != 1)
			pg->single = false;
	pg->node_order = pg->single;
	for (int i = 0; i < npages && pg->node_order; i++)
		pg->node_order = pg->page_nodes[i] == i;
	free(rank);
	free(fill);
	free(keys);
	*state = pg;
	return 0;
nomem:
	free(rank);
	free(fill);
	free(keys);
	_paging_fini(pg);
	return loc_error_set(err, LOC_ENOMEM, NULL, 0,
			     "out of memory building %d pages", npages);
}

/* 1 when every node of page i is free (no early exit: pages are small and
 * the answer is close to random on a busy machine). */
static unsigned int _page_all_free(const uint8_t *fr, const paging_t *pg,
				   int i)
{
	unsigned int all = 1;

	for (int j = pg->page_start[i]; j < pg->page_start[i + 1]; j++)
		all &= fr[pg->page_nodes[j]];
	return all;
}

static int _paging_select(loc__ctx_t *ctx)
{
	const paging_t *pg = ctx->state;
	const uint8_t *fr = ctx->free;
	int *pick = ctx->scratch, n = 0, k = ctx->k;
	/* Where a bitmap may follow the pick: an even int, for its
	 * alignment. */
	int at = k + (k & 1);

	if (!pg)
		return LOC_EINVAL;
	if (pg->node_order && (int64_t)k * 8 >= ctx->nfree &&
	    at + 2 * LOC__BITS_WORDS(ctx->nnodes) <= 4 * ctx->nnodes) {
		/* The first k free nodes in node order: listed from a
		 * bitmap of the free bytes, 64 nodes a step, once the walk
		 * below would cover an eighth of the machine or more (about
		 * k nnodes / nfree nodes; at 32,768 nodes half free, k=4096:
		 * the walk took 6.5 of 11.7 us), and the scratch holds the
		 * bitmap (not on tiny machines). */
		uint64_t *bits = (uint64_t *)(ctx->scratch + at);

		loc__bits_of_marks(fr, 1, fr, ctx->nnodes, bits,
				   loc__simd_level());
		n = loc__bits_ones(bits, 0, ctx->nnodes, pick, k);
		return n < k ? LOC_ENOFIT : loc__offer(ctx, pick, 0.0);
	}
	if (pg->single) {
		/* One node per page: the whole pages are the free nodes, in
		 * page order, and no page is partly used. Without a branch
		 * per page: pick[n] is overwritten until a free node stays. */
		const int *pn = pg->page_nodes;

		for (int i = 0; i < pg->npages && n < k; i++) {
			pick[n] = pn[i];
			n += fr[pn[i]];
		}
		return n < k ? LOC_ENOFIT : loc__offer(ctx, pick, 0.0);
	}
	/* 1. Entirely free pages, whole, in index order. */
	for (int i = 0; i < pg->npages && n < k; i++) {
		if (!_page_all_free(fr, pg, i))
			continue;
		for (int j = pg->page_start[i];
		     j < pg->page_start[i + 1] && n < k; j++)
			pick[n++] = pg->page_nodes[j];
	}
	if (n == k)
		return loc__offer(ctx, pick, 0.0);
	/* 2. Not enough whole pages: add the free nodes of the partly used
	 * ones (pass 1 took every whole page). */
	for (int i = 0; i < pg->npages && n < k; i++) {
		if (_page_all_free(fr, pg, i))
			continue;
		for (int j = pg->page_start[i];
		     j < pg->page_start[i + 1] && n < k; j++)
			if (fr[pg->page_nodes[j]])
				pick[n++] = pg->page_nodes[j];
	}
	if (n < k)
		return LOC_ENOFIT;
	return loc__offer(ctx, pick, 1.0);
}

const loc__strategy_ops_t loc__st_paging = {
	.name = "paging",
	.select = _paging_select,
	.init = _paging_init,
	.fini = _paging_fini,
};
