/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime.c - walltime-aware allocation (seed 004: Tang, Lan, Desai,
 * Buettner, Yu, "Reducing fragmentation on torus-connected
 * supercomputers", IPDPS 2011): the SL score of Algorithm 1, the partner
 * choice and idle neighbour region of PF (Algorithm 2), soft holds for
 * PF partners inside Slurm, and AdjEst (sec. III-C, IV-C).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loc_metrics.h"
#include "loc_walltime.h"

/* ------------------------------------------------------------------ */
/* SL                                                                  */
/* ------------------------------------------------------------------ */

static int64_t _abs64(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * Algorithm 1 compares the candidate's neighbouring running jobs with the
 * scheduled job; here every busy node next to the placement (sharing a
 * point or one hop away) counts once, and the score is the mean end-time
 * gap. Uses a temporary mark array; on ENOMEM it reports "no score" (-1),
 * which only costs the tie-break.
 */
double loc_sl_score(const loc_grid_t *grid, const loc_view_t *view,
		    int64_t expected_end, const int *nodes, int k)
{
	int n, np, cnt = 0;
	uint8_t *mark, *seen_point;
	double sum = 0;

	if (!grid || !view || !view->busy_until || !nodes || k < 1 ||
	    expected_end <= 0)
		return -1;
	n = loc_grid_nnodes(grid);
	np = loc_grid_npoints(grid);
	mark = calloc((size_t)n + np, 1);
	if (!mark)
		return -1;
	seen_point = mark + n;
	for (int i = 0; i < k; i++) {
		if (nodes[i] < 0 || nodes[i] >= n) {
			free(mark);
			return -1;
		}
		mark[nodes[i]] = 1;
	}
	for (int i = 0; i < k; i++) {
		int p = loc_grid_node_point(grid, nodes[i]);
		int pts[1 + 2 * LOC_MAX_DIMS], npts;

		pts[0] = p;
		npts = 1 + loc_grid_point_neighbors(grid, p, pts + 1);
		for (int j = 0; j < npts; j++) {
			const int *at;
			int m;

			if (seen_point[pts[j]])
				continue;
			seen_point[pts[j]] = 1;
			m = loc_grid_point_nodes(grid, pts[j], &at);
			for (int t = 0; t < m; t++) {
				int u = at[t];

				if (mark[u] || view->busy_until[u] <= view->now)
					continue;
				sum += (double)_abs64(view->busy_until[u],
						      expected_end);
				cnt++;
			}
		}
	}
	free(mark);
	return cnt ? sum / cnt : -1;
}

/* ------------------------------------------------------------------ */
/* PF                                                                  */
/* ------------------------------------------------------------------ */

int loc_pf_pick_partner(const loc_pf_job_t *queue, int n, int self, int nodes,
			int64_t walltime)
{
	int best = -1;
	int64_t best_d = 0;

	for (int i = 0; queue && i < n; i++) {
		int64_t d;

		if (i == self || queue[i].nodes != nodes)
			continue;
		d = _abs64(queue[i].walltime, walltime);
		if (best < 0 || d < best_d) {
			best = i;
			best_d = d;
		}
	}
	return best;
}

/*
 * Runs the allocator's own strategy on the candidates within hop radius
 * r of the placement, r = 1, 2, ...: at r = 1 every candidate touches the
 * placement, but such a region is a thin shell around it; a larger radius
 * lets the strategy build a compact region beside it (the "idle neighbour
 * partition" of seed 004). Radii run up to the placement's own extent
 * (its bounding-box side sum) plus one, and the touching result with the
 * least total pairwise hops wins (smallest radius on ties).
 */
int loc_pf_neighbor_region(loc_alloc_t *alloc, const loc_view_t *view,
			   const int *placed, int k, int *out,
			   loc_error_t *err)
{
	const loc_grid_t *g;
	int n, np, head = 0, tail = 0, maxd = 0, rc = LOC_ENOFIT;
	uint8_t *in_placed = NULL, *tmp = NULL;
	int *dist = NULL, *queue = NULL, *within = NULL, *region = NULL;
	int64_t best_cost = -1;

	if (!alloc || !view || !view->candidate || !placed || !out || k < 1)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "PF region needs an allocator, a view, "
				     "a placement and k >= 1");
	g = loc_alloc_grid(alloc);
	n = loc_grid_nnodes(g);
	np = loc_grid_npoints(g);
	in_placed = calloc(n, 1);
	tmp = malloc(n);
	dist = malloc(sizeof(int) * np);
	queue = malloc(sizeof(int) * np);
	within = calloc((size_t)np + 1, sizeof(int));
	region = malloc(sizeof(int) * k);
	if (!in_placed || !tmp || !dist || !queue || !within || !region) {
		rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
				   "out of memory finding a PF region");
		goto out;
	}
	for (int p = 0; p < np; p++)
		dist[p] = -1;
	for (int i = 0; i < k; i++) {
		int v = placed[i], p;

		if (v < 0 || v >= n) {
			rc = loc_error_set(err, LOC_EINVAL, NULL, 0,
					   "placed node %d does not exist", v);
			goto out;
		}
		in_placed[v] = 1;
		p = loc_grid_node_point(g, v);
		if (dist[p] < 0) {
			dist[p] = 0;
			queue[tail++] = p;
		}
	}
	while (head < tail) {
		int p = queue[head++], nb[2 * LOC_MAX_DIMS];
		int m = loc_grid_point_neighbors(g, p, nb);

		for (int i = 0; i < m; i++)
			if (dist[nb[i]] < 0) {
				dist[nb[i]] = dist[p] + 1;
				if (dist[nb[i]] > maxd)
					maxd = dist[nb[i]];
				queue[tail++] = nb[i];
			}
	}
	/* within[r] = idle candidates at distance <= r. */
	for (int v = 0; v < n; v++) {
		int d = dist[loc_grid_node_point(g, v)];

		if (view->candidate[v] && !in_placed[v] && d >= 0)
			within[d]++;
	}
	for (int d = 1; d <= maxd; d++)
		within[d] += within[d - 1];
	if (within[maxd < 1 ? 0 : 1] == 0) {
		rc = loc_error_set(err, LOC_ENOFIT, NULL, 0,
				   "no idle candidate next to the placement");
		goto out;
	}
	{
		loc_metrics_t pm;
		int rmax;

		if (loc_metrics_compute(g, NULL, placed, k, &pm)) {
			rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
					   "out of memory finding a PF region");
			goto out;
		}
		rmax = pm.bbox_side_sum + 1;
		if (rmax > maxd)
			rmax = maxd < 1 ? 1 : maxd;
		for (int r = 1; r <= rmax; r++) {
			loc_request_t req = { .nodes = k };
			loc_view_t sub = *view;
			int w = within[r < maxd ? r : maxd];
			bool touches = false;
			int64_t cost;

			if (w < k || (r > 1 && w == within[r - 1]))
				continue;
			for (int v = 0; v < n; v++) {
				int d = dist[loc_grid_node_point(g, v)];

				tmp[v] = view->candidate[v] && !in_placed[v] &&
					 d >= 0 && d <= r;
			}
			sub.candidate = tmp;
			rc = loc_alloc_select(alloc, &req, &sub, region, err);
			if (rc && rc != LOC_ENOFIT)
				goto out;
			if (rc)
				continue;
			for (int i = 0; i < k && !touches; i++)
				touches = dist[loc_grid_node_point(g, region[i])] <= 1;
			cost = loc_metrics_total_pair_hops(g, region, k);
			if (touches && cost >= 0 &&
			    (best_cost < 0 || cost < best_cost)) {
				best_cost = cost;
				memcpy(out, region, sizeof(int) * k);
			}
		}
	}
	if (best_cost >= 0) {
		rc = 0;
		loc_error_clear(err);
		goto out;
	}
	rc = loc_error_set(err, LOC_ENOFIT, NULL, 0,
			   "no idle region of %d nodes touches the placement",
			   k);
out:
	free(in_placed);
	free(tmp);
	free(dist);
	free(queue);
	free(within);
	free(region);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Holds                                                               */
/* ------------------------------------------------------------------ */

typedef struct loc_hold {
	uint32_t partner_id;
	uint32_t priority;
	int64_t expires;
	int *nodes;
	int k;
} loc_hold_t;

struct loc_holds {
	int nnodes;
	loc_hold_t *hold;
	int n, cap;
};

loc_holds_t *loc_holds_create(int nnodes)
{
	loc_holds_t *h;

	if (nnodes < 0)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (h)
		h->nnodes = nnodes;
	return h;
}

void loc_holds_destroy(loc_holds_t *holds)
{
	if (!holds)
		return;
	for (int i = 0; i < holds->n; i++)
		free(holds->hold[i].nodes);
	free(holds->hold);
	free(holds);
}

static int _hold_find(const loc_holds_t *holds, uint32_t partner_id)
{
	for (int i = 0; i < holds->n; i++)
		if (holds->hold[i].partner_id == partner_id)
			return i;
	return -1;
}

static void _hold_remove(loc_holds_t *holds, int i)
{
	free(holds->hold[i].nodes);
	memmove(holds->hold + i, holds->hold + i + 1,
		sizeof(loc_hold_t) * (holds->n - i - 1));
	holds->n--;
}

/* A hold of k = 0 nodes is no hold: it only drops the job's old one.
 * Nodes outside 0..nnodes-1 are refused with LOC_EINVAL. */
int loc_holds_add(loc_holds_t *holds, uint32_t partner_id,
		  uint32_t partner_priority, const int *nodes, int k,
		  int64_t expires)
{
	int i, *copy;

	if (!holds || k < 0 || (k && !nodes))
		return LOC_EINVAL;
	for (int j = 0; j < k; j++)
		if (nodes[j] < 0 || nodes[j] >= holds->nnodes)
			return LOC_EINVAL;
	i = _hold_find(holds, partner_id);
	if (!k) {
		if (i >= 0)
			_hold_remove(holds, i);
		return 0;
	}
	copy = malloc(sizeof(int) * k);
	if (!copy)
		return LOC_ENOMEM;
	memcpy(copy, nodes, sizeof(int) * k);
	if (i < 0) {
		if (holds->n == holds->cap) {
			int cap = holds->cap ? 2 * holds->cap : 8;
			loc_hold_t *grown = realloc(holds->hold,
						    sizeof(loc_hold_t) * cap);

			if (!grown) {
				free(copy);
				return LOC_ENOMEM;
			}
			holds->hold = grown;
			holds->cap = cap;
		}
		i = holds->n++;
	} else {
		free(holds->hold[i].nodes);
	}
	holds->hold[i].partner_id = partner_id;
	holds->hold[i].priority = partner_priority;
	holds->hold[i].expires = expires;
	holds->hold[i].nodes = copy;
	holds->hold[i].k = k;
	return 0;
}

int loc_holds_release(loc_holds_t *holds, uint32_t partner_id)
{
	int i;

	if (!holds)
		return LOC_EINVAL;
	i = _hold_find(holds, partner_id);
	if (i < 0)
		return LOC_ENOENT;
	_hold_remove(holds, i);
	return 0;
}

int loc_holds_expire(loc_holds_t *holds, int64_t now)
{
	int dropped = 0;

	for (int i = 0; holds && i < holds->n;) {
		if (holds->hold[i].expires <= now) {
			_hold_remove(holds, i);
			dropped++;
		} else {
			i++;
		}
	}
	return dropped;
}

int loc_holds_filter(const loc_holds_t *holds, uint32_t job_id,
		     uint32_t job_priority, int64_t now, const uint8_t *in,
		     uint8_t *out)
{
	int cleared = 0, own = -1;

	if (!holds || !in || !out)
		return 0;
	if (out != in)
		memcpy(out, in, holds->nnodes);
	for (int i = 0; i < holds->n; i++) {
		const loc_hold_t *h = &holds->hold[i];

		if (h->partner_id == job_id) {
			own = i;
			continue;
		}
		/* Expired, or the job outranks the partner: ignored. */
		if (h->expires <= now || job_priority > h->priority)
			continue;
		for (int j = 0; j < h->k; j++)
			if (out[h->nodes[j]]) {
				out[h->nodes[j]] = 0;
				cleared++;
			}
	}
	/* The job's own region stays open to it even where another hold
	 * overlaps it. */
	if (own >= 0 && holds->hold[own].expires > now) {
		const loc_hold_t *h = &holds->hold[own];

		for (int j = 0; j < h->k; j++)
			if (in[h->nodes[j]] && !out[h->nodes[j]]) {
				out[h->nodes[j]] = in[h->nodes[j]];
				cleared--;
			}
	}
	return cleared;
}

int loc_holds_count(const loc_holds_t *holds, int *nodes_held)
{
	int total = 0;

	for (int i = 0; holds && i < holds->n; i++)
		total += holds->hold[i].k;
	if (nodes_held)
		*nodes_held = total;
	return holds ? holds->n : 0;
}

/* ------------------------------------------------------------------ */
/* AdjEst                                                              */
/* ------------------------------------------------------------------ */

typedef struct adj_user {
	uint32_t user;
	bool used;
	int count; /* accuracies recorded, up to window */
	int next;  /* ring slot for the next one */
	double *acc;
} adj_user_t;

struct loc_adjest {
	int window;
	adj_user_t *slot; /* open addressing, linear probing */
	size_t cap;       /* power of two */
	size_t n;
};

static size_t _adj_hash(uint32_t user, size_t cap)
{
	uint64_t h = (uint64_t)user * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static adj_user_t *_adj_find(const loc_adjest_t *adj, uint32_t user)
{
	size_t i = _adj_hash(user, adj->cap);

	while (adj->slot[i].used) {
		if (adj->slot[i].user == user)
			return &adj->slot[i];
		i = (i + 1) & (adj->cap - 1);
	}
	return NULL;
}

loc_adjest_t *loc_adjest_create(int window)
{
	loc_adjest_t *adj;

	if (window < 1)
		return NULL;
	adj = calloc(1, sizeof(*adj));
	if (!adj)
		return NULL;
	adj->window = window;
	adj->cap = 16;
	adj->slot = calloc(adj->cap, sizeof(adj_user_t));
	if (!adj->slot) {
		free(adj);
		return NULL;
	}
	return adj;
}

void loc_adjest_destroy(loc_adjest_t *adj)
{
	if (!adj)
		return;
	for (size_t i = 0; i < adj->cap; i++)
		free(adj->slot[i].acc);
	free(adj->slot);
	free(adj);
}

/* Doubles the table when it is half full. */
static int _adj_grow(loc_adjest_t *adj)
{
	size_t cap = adj->cap * 2;
	adj_user_t *slot = calloc(cap, sizeof(adj_user_t));

	if (!slot)
		return LOC_ENOMEM;
	for (size_t i = 0; i < adj->cap; i++) {
		size_t j;

		if (!adj->slot[i].used)
			continue;
		j = _adj_hash(adj->slot[i].user, cap);
		while (slot[j].used)
			j = (j + 1) & (cap - 1);
		slot[j] = adj->slot[i];
	}
	free(adj->slot);
	adj->slot = slot;
	adj->cap = cap;
	return 0;
}

/* Accuracy is capped at 1: a job that overran its request (killed at the
 * limit, or a grace period) says its request was right, not short. A
 * request <= 0 or a negative runtime is refused with LOC_EINVAL. */
int loc_adjest_record(loc_adjest_t *adj, uint32_t user, int64_t requested,
		      int64_t actual)
{
	adj_user_t *u;
	double a;

	if (!adj || requested <= 0 || actual < 0)
		return LOC_EINVAL;
	a = (double)actual / (double)requested;
	if (a > 1)
		a = 1;
	u = _adj_find(adj, user);
	if (!u) {
		size_t i;
		double *acc;

		if (2 * (adj->n + 1) > adj->cap && _adj_grow(adj))
			return LOC_ENOMEM;
		acc = malloc(sizeof(double) * adj->window);
		if (!acc)
			return LOC_ENOMEM;
		i = _adj_hash(user, adj->cap);
		while (adj->slot[i].used)
			i = (i + 1) & (adj->cap - 1);
		u = &adj->slot[i];
		u->used = true;
		u->user = user;
		u->count = 0;
		u->next = 0;
		u->acc = acc;
		adj->n++;
	}
	u->acc[u->next] = a;
	u->next = (u->next + 1) % adj->window;
	if (u->count < adj->window)
		u->count++;
	return 0;
}

int64_t loc_adjest_estimate(const loc_adjest_t *adj, uint32_t user,
			    int64_t requested)
{
	const adj_user_t *u;
	int64_t est, floor;
	double sum = 0;

	if (!adj || requested <= 0)
		return requested;
	u = _adj_find(adj, user);
	if (!u || !u->count)
		return requested;
	for (int i = 0; i < u->count; i++)
		sum += u->acc[i];
	est = (int64_t)llround((double)requested * (sum / u->count));
	floor = requested < LOC_ADJEST_MIN_RUNTIME_SEC ?
			requested :
			LOC_ADJEST_MIN_RUNTIME_SEC;
	if (est < floor)
		est = floor;
	if (est > requested)
		est = requested;
	return est;
}
