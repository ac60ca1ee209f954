/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_machine.h - the machine a replay runs on: locality.conf (the file
 * the plugin reads), a shape given on the command line, or one derived
 * from the trace's size, plus the node names the grid is built from.
 */
#ifndef RP_MACHINE_H
#define RP_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "loc_conf.h"
#include "loc_error.h"
#include "loc_grid.h"
#include "loc_trace.h"

#define RP_MAX_NODE_WEIGHTS 256

typedef struct rp_machine_opts {
	const char *config;   /* locality.conf path, or NULL */
	const char *grid;     /* "16x16" (instead of a file), or NULL */
	const char *torus;    /* with grid: "yes", "no" or "yes,no,..." */
	int nodes_per_point;  /* with grid (0 = 1) */
	int derive;           /* 0, or derive a torus of 2 or 3 dimensions */
	int derive_nodes;     /* machine size for derive */
	/* --node-weight NODES=W, as slurm.conf's Weight= (borrowed) */
	const char *node_weights[RP_MAX_NODE_WEIGHTS];
	int nnode_weights;
} rp_machine_opts_t;

typedef struct rp_machine {
	loc_conf_t *conf;     /* owned */
	loc_grid_t *grid;     /* owned */
	char **names;         /* node names in grid order (owned) */
	int nnodes;
	bool named;           /* names come from the trace or the conf;
			       * false: they are the indices */
	int *trace_node;      /* trace node name index -> node, or -1 */
	int ntrace;
	uint64_t *weight;     /* per node, Slurm's Weight (default 1), or
			       * NULL when no --node-weight was given */
} rp_machine_t;

/*
 * Builds the machine for trace (borrowed). Returns it (free with
 * rp_machine_destroy) or NULL with err filled (bad conf, more named nodes
 * than the grid holds, ...).
 */
rp_machine_t *rp_machine_create(const rp_machine_opts_t *opts,
				const loc_trace_t *trace, loc_error_t *err);
void rp_machine_destroy(rp_machine_t *m);

/*
 * The most cubic (ndims = 3) or square (2) torus shape for n nodes: the
 * first size from n up to n + n/10 whose sides differ by at most a factor
 * of 2, else the best ratio in that range. Sides are
 * written in descending order to dims. Returns the number of points
 * (>= n), or 0 when n < 1.
 */
int rp_derive_shape(int n, int ndims, int *dims);

/* Compares names in natural order ("n2" < "n10"). */
int rp_natural_cmp(const char *a, const char *b);

#endif /* RP_MACHINE_H */
