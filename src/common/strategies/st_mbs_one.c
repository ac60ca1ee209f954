/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mbs_one.c - one-node requests of the Multiple Buddy Strategy (seed
 * 001, Lo et al., sec. 3.3) without building the free block records.
 *
 * With one node per point, k = 1 asks for one level-0 block: the first
 * record of that level, i.e. the first wholly free point in canonical
 * order whose level-1 parent is not wholly free (or that is an initial
 * block by itself). With several nodes per point it asks for one single
 * node: the first free node, in (canonical rank, node) order, on a point
 * that is not wholly free. Either is found by scanning canonical ranks
 * until it turns up, which on a fragmented machine is almost at once;
 * when there is none (every free point lies in a larger free block, or
 * every point is wholly free or busy) the request must break a larger
 * block and the general path serves it.
 */
#include "loc_ctx.h"
#include "loc_free_map.h"
#include "st_mbs.h"

/* Whether the point at canonical rank r is wholly free. */
static bool _full(const loc__ctx_t *ctx, const mbs_state_t *s, int r)
{
	const int *nodes;
	int n = loc_grid_point_nodes(ctx->grid, s->canon_point[r], &nodes);

	if (n != s->npp)
		return false;
	for (int i = 0; i < n; i++)
		if (!ctx->free[nodes[i]])
			return false;
	return true;
}

/* The node of the point at canonical rank r (one node per point). */
static int _node_at(const loc__ctx_t *ctx, const mbs_state_t *s, int r)
{
	const int *nodes;

	loc_grid_point_nodes(ctx->grid, s->canon_point[r], &nodes);
	return nodes[0];
}

/* One node per point: the first level-0 record. */
static bool _first_point(loc__ctx_t *ctx, const mbs_state_t *s, int *node)
{
	for (int i = 0; i < s->ninit; i++) {
		int base = s->init_rank[i], size = s->pow[s->init_level[i]];

		if (s->init_level[i] == 0) {
			if (_full(ctx, s, base)) {
				*node = _node_at(ctx, s, base);
				return true;
			}
			continue;
		}
		/* Buddies of a level-1 block are branch consecutive ranks. */
		for (int g = base; g < base + size; g += s->branch) {
			int first = -1, nfull = 0;

			for (int r = g; r < g + s->branch; r++)
				if (_full(ctx, s, r)) {
					nfull++;
					if (first < 0)
						first = r;
				}
			if (nfull && nfull < s->branch) {
				*node = _node_at(ctx, s, first);
				return true;
			}
		}
	}
	return false;
}

/* Several nodes per point: the first single-node record. */
static bool _first_fragment(loc__ctx_t *ctx, const mbs_state_t *s,
			    int *node)
{
	for (int r = 0; r < s->npoints; r++) {
		const int *nodes;
		int n = loc_grid_point_nodes(ctx->grid, s->canon_point[r],
					     &nodes);
		int first = -1, nfree = 0;

		for (int i = 0; i < n; i++)
			if (ctx->free[nodes[i]]) {
				nfree++;
				if (first < 0)
					first = nodes[i];
			}
		if (nfree && (n != s->npp || nfree < n)) {
			*node = first;
			return true;
		}
	}
	return false;
}

bool loc__mbs_one(loc__ctx_t *ctx, const mbs_state_t *s, int *node)
{
	/* Unused here, but asking keeps the allocator's free map on its
	 * O(changes) update path for the next decision. */
	(void)loc__rank_bits(ctx);
	return s->npp == 1 ? _first_point(ctx, s, node) :
			     _first_fragment(ctx, s, node);
}
