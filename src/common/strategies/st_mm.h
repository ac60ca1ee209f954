/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * st_mm.h - what the files of the Manhattan Median family (mm, mm_inc,
 * genalg; seed 003, Bender, Bunde, Demaine, Fekete, Leung, Meijer,
 * Phillips, WADS 2005) share: the per-allocator state with its offset and
 * axis tables, and the steps of a decision. Not installed, not used by
 * drivers.
 *
 *   st_mm.c       entry points, state set-up, the search over centres
 *   st_mm_walk.c  grid offsets by L1 length and the nearest-node walk
 *   st_mm_cost.c  the total pairwise hops of a walked set, per axis
 *   st_mm_simd.c  the walk and small sets' pairwise hops in vectors
 *   st_mm_rank.c  candidate centres, ranking and pruning them
 *   st_mm_inc.c   mm_inc's local improvement by swaps
 */
#ifndef LOC_ST_MM_H
#define LOC_ST_MM_H

#include "st_one.h"
#include "loc_simd.h"
#include "loc_ctx.h"
#include "st_shells.h"

#define MM_OUT (-(1 << 28))        /* axis table: off a mesh edge */
#define MM_MAX_OFFSETS (1L << 23)  /* offset table limit (about 100 MB) */
#define MM_PAD_MAX 32              /* padded copy: at most this many bytes
				    * per point (3D mesh 27, 4D torus 16) */
#define MM_PAD_RUNS 3              /* a padded row: wrap, copy, wrap */
#define MM_PAD_SLACK 3             /* bytes after the copy: 4-byte gathers */
#define MM_WALK_SLACK 16           /* ent_* entries past nnodes: a vector
				    * step stores sixteen */
#define MM_VECTOR_PAIRS 16         /* vector pair sums: two of eight */
#define MM_STAR_HIST 4096          /* L1 stars below this are ranked by
				    * counting */
#define MM_FEW_POINTS 4            /* up to this many: pairs one by one,
				    * cheaper than setting vectors up */

#if defined(__x86_64__) && defined(__GNUC__)
#define MM_VECTORS 1
#else
#define MM_VECTORS 0
#endif

typedef struct loc__mm {
	int nd, npoints, nnodes;
	int len[LOC_MAX_DIMS];
	bool torus[LOC_MAX_DIMS];
	int pstride[LOC_MAX_DIMS];
	int lo[LOC_MAX_DIMS];    /* least offset per dimension */
	int range[LOC_MAX_DIMS]; /* offsets per dimension */
	int *coord;              /* [npoints * nd] */
	int *tab;                /* per axis [L + range - 1]: at c + u, the
				  * point stride part of coordinate c + lo + u,
				  * or MM_OUT */
	int tab_at[LOC_MAX_DIMS];
	int noff, maxrad;
	int *off;                /* [noff * nd] sorted offsets, as u = o - lo */
	int *off_l1;             /* [noff] their L1 length */
	int *rad_end;            /* [maxrad + 1] first offset longer than r */
	int max_centers;         /* policy: 0 default, -1 all, else a cap */
	int npp;                 /* nodes per point */
	bool rowmajor;           /* node v at point v / npp (k = 1 scan) */
	loc__shells_t *sh;
	int *point_free;         /* [npoints + 1] free nodes per point; the
				  * last entry stays 0 (off a mesh edge) */
	uint8_t *pf8;            /* the same in bytes, the padded copy's
				  * source (NULL without it) */
	uint8_t *pad;            /* pf8 padded by every offset's reach, the
				  * wrap copied on a torus, 0 off a mesh:
				  * a walked point is one add from its
				  * centre's (NULL when too large) */
	size_t pad_size;
	int pad_stride[LOC_MAX_DIMS];
	int *pad_delta;          /* [noff] the sorted offsets in pad */
	int pad_run[MM_PAD_RUNS][3]; /* a padded row's runs: from, to, the
				  * first's coordinate or -1 (zeros) */
	int pad_nruns;
	uint8_t *axis_has;       /* [nd * maxlen] coordinate holds a free node */
	int maxlen, maxrange;
	int *cand;               /* [npoints] candidate centres */
	int *eval;               /* [npoints] centres to evaluate, best first */
	loc__shell_rank_t *rank; /* [npoints] */
	uint32_t *star_hist;     /* [MM_STAR_HIST] stars counted */
	int star_hist_len;       /* stars below this are counted (tests
				  * lower it) */
	int *ent_pt;             /* [nnodes] one walk's points, */
	int *ent_off, *ent_take; /* [nnodes + MM_WALK_SLACK] their offsets
				  * and nodes taken */
	int nent, radius;
	int walk_centre;         /* the last walk's centre */
	bool walk_pts;           /* ent_pt filled for it (on demand) */
	int64_t *hist;           /* [maxrange] per-axis counts */
	int64_t *whist;          /* [(2 nd + 1) maxrange] the same, every
				  * axis, in two copies after a pad */
	int *nodes;              /* [nnodes] the set being offered */
	int *thin;               /* [npoints] one candidate per block */
	uint32_t *block_seen;    /* [npoints] stamps */
	uint32_t bstamp;
	int *hop;                /* per axis [2L - 1]: hops of delta + L - 1 */
	bool pairs32;            /* any 16 walked points' pairwise total
				  * fits 32 bits (vector pair sums) */
	loc_simd_t simd;         /* vectors the walk and the pair sums may
				  * use (tests lower it) */
	int hop_at[LOC_MAX_DIMS];
	/* mm_inc */
	uint32_t *mark;          /* [nnodes] stamps: node chosen */
	uint32_t stamp;
	int *inc_node, *inc_pt;  /* [nnodes] chosen nodes and free ones near */
	int *inc_c;              /* [nnodes * nd] their coordinates */
	int *inc_x;              /* [nnodes * nd] row_at[d] + coordinate */
	int row_at[LOC_MAX_DIMS]; /* axis d's part of a per-axis row */
	int *inc_row;            /* [3 * nd * maxlen] per-axis rows: hop
				  * changes of a swap, hops from two nodes */
	uint8_t *inc_in;         /* [nnodes] 1 = currently chosen */
	int64_t *inc_d;          /* [nnodes] hops to the chosen set */
	int *inc_u, *inc_v;      /* [nnodes] filtered swap candidates */
	int64_t *phi;            /* [nd * maxlen] per-axis hops to the set */
	int64_t *pre;            /* [2 * (2 * maxlen + 1)] prefix sums */
	struct loc__memo *memo;  /* the search's last answers (st_memo.h);
				  * NULL: each one searched afresh */
} loc__mm_t;

/* Sets tab[d] to the axis tables seen from point. */
static inline void loc__mm_tabs(const loc__mm_t *st, int point,
				 const int **tab)
{
	for (int d = 0; d < st->nd; d++)
		tab[d] = st->tab + st->tab_at[d] +
			 st->coord[(size_t)point * st->nd + d];
}

/* The point at offset i from the one tab was set for, or < 0. */
static inline int loc__mm_off_point(const loc__mm_t *st, const int **tab,
				    int i, const int nd)
{
	const int *o = st->off + (size_t)i * nd;
	int pt = tab[0][o[0]];

	for (int d = 1; d < nd; d++)
		pt += tab[d][o[d]];
	return pt;
}

/* ---- st_mm_walk.c --------------------------------------------------- */

/*
 * Lists every offset that can separate two points, sorted by L1 length
 * (then squared length), with st->rad_end. Needs st->nd, len and torus.
 * Returns 0, LOC_ERANGE (more than MM_MAX_OFFSETS) or LOC_ENOMEM.
 */
int loc__mm_build_offsets(loc__mm_t *st);

/* Builds the per-axis point and hop tables (after the offsets).
 * Returns 0 or LOC_ENOMEM. */
int loc__mm_build_tables(loc__mm_t *st);

/* Sizes the padded copy and lists the offsets in it, when it fits
 * MM_PAD_MAX (else leaves st->pad NULL). Returns 0 or LOC_ENOMEM. */
int loc__mm_build_pad(loc__mm_t *st);

/* Fills the padded copy from st->pf8. Returns nothing. */
void loc__mm_fill_pad(loc__mm_t *st);

/* The index of point in the padded copy: walked points lie at it plus
 * pad_delta[i]. */
static inline size_t loc__mm_pad_at(const loc__mm_t *st, int point)
{
	const int *c = st->coord + (size_t)point * st->nd;
	size_t at = 0;

	for (int d = 0; d < st->nd; d++)
		at += (size_t)c[d] * st->pad_stride[d];
	return at;
}

/*
 * Walks the offsets from point until k free nodes (st->point_free) are
 * found, recording the points used (st->ent_*, st->nent) and the last L1
 * radius (st->radius). Returns nothing.
 */
void loc__mm_walk(loc__mm_t *st, int point, int k);

/* Returns an order-independent fingerprint of the walked set. */
uint64_t loc__mm_walk_hash(loc__mm_t *st);

/* Writes the walked set's nodes (lowest free nodes of each point) to
 * st->nodes. Returns nothing. */
void loc__mm_walk_nodes(const loc__ctx_t *ctx, loc__mm_t *st);

/* A walk's progress: nodes still needed, points recorded, the last
 * offset that gave nodes. */
typedef struct loc__mm_walked {
	int need, n, last;
} loc__mm_walked_t;

/* ---- st_mm_simd.c --------------------------------------------------- */

#if MM_VECTORS
/* Walks the padded copy seen from at (a centre's place in it) sixteen
 * offsets a step from offset 0, updating w; returns the next offset.
 * Needs LOC_SIMD_AVX512. */
int loc__mm_walk_avx512(loc__mm_t *st, const uint8_t *at,
			loc__mm_walked_t *w);

/* Walks the L1 star of st_mm_rank.c from at as loc__mm_walk_avx512()
 * walks, from *need and *star. Returns -1 when *star is decided (the
 * star, or a value > bound), else the next offset. Needs
 * LOC_SIMD_AVX512. */
int loc__mm_star_avx512(const loc__mm_t *st, const uint8_t *at,
			int64_t bound, int *need, int64_t *star);

/* The same two eight offsets a step. Need LOC_SIMD_AVX2. */
int loc__mm_walk_avx2(loc__mm_t *st, const uint8_t *at, loc__mm_walked_t *w);
int loc__mm_star_avx2(const loc__mm_t *st, const uint8_t *at, int64_t bound,
		      int *need, int64_t *star);

/* Returns loc__mm_walk_cost() for at most MM_VECTOR_PAIRS points when
 * st->pairs32. Needs LOC_SIMD_AVX2. */
int64_t loc__mm_walk_cost_avx2(const loc__mm_t *st);
#endif

/* ---- st_mm_cost.c --------------------------------------------------- */

/* Returns the sum over pairs of min(delta, L - delta) for the counts
 * h[0..w) at linear positions (L = 0: a mesh axis, plain delta). */
int64_t loc__mm_axis_pairs(const int64_t *h, int w, int L);

/* Returns the total pairwise hops of the set the last walk found. */
int64_t loc__mm_walk_cost(loc__mm_t *st);


/* ---- st_mm_rank.c --------------------------------------------------- */

/* Loads st->point_free and lists the candidate centres (genalg: points
 * holding a free node; mm: crossings of the axis lines through them) in
 * point order in st->cand. Returns their count. */
int loc__mm_candidates(loc__ctx_t *ctx, loc__mm_t *st, bool genalg);

/* Returns the L1 star of point (hops from it to its k nearest free
 * nodes) when that is at most bound, else some value > bound. */
int64_t loc__mm_star(const loc__mm_t *st, int point, int k, int64_t bound);

/* Fills st->eval with the m candidates (at most ncand) with the least L1
 * star for k nodes, best first (ties: candidate order). Returns how
 * many. */
int loc__mm_rank_star(loc__mm_t *st, int k, int ncand, int m);

/* Fills st->eval with the centres to evaluate, best first. Returns how
 * many. */
int loc__mm_rank(loc__ctx_t *ctx, loc__mm_t *st, int ncand);

/* ---- st_mm_inc.c ---------------------------------------------------- */

/* Improves the set the last walk from centre found (of total cost) by
 * swaps, writing it to st->nodes. Returns its total pairwise hops. */
int64_t loc__mm_improve(loc__ctx_t *ctx, loc__mm_t *st, int centre,
			int64_t cost);

#endif /* LOC_ST_MM_H */
