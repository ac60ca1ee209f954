/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_machine.c - what select/locality parses when slurmctld starts,
 * restarts or reconfigures.
 *
 * The plugin saves no state of its own (select_p_state_save/restore do
 * nothing; the ledger is rebuilt from slurmctld's job list), so there is
 * no saved-state unpack to fuzz. What it does parse on every (re)start is
 * locality.conf, laid over slurmctld's node table: sl_machine_load() runs
 * loc_conf_load(), loc_conf_build_grid() with the node names and
 * loc_alloc_create() for the global policy and each partition's. This
 * target runs the same sequence without Slurm, then places one job on the
 * empty machine as job_test would: every strategy but box (boxes only)
 * must place any k nodes when k nodes are free.
 *
 * Input: the first line is the node list as a hostlist expression (the
 * node names slurm.conf defines, in order); the rest is locality.conf.
 * When the first line does not expand, the whole input is locality.conf
 * and the nodes are n[001-064], the local test cluster.
 *
 * Limits of this harness (not of the code): at most 4096 nodes and 65536
 * grid points, so that one input stays fast; bigger grids are covered by
 * fuzz_conf (parsing) and the unit tests.
 */
#include <stdbool.h>

#include "fuzz_util.h"
#include "loc_conf.h"
#include "loc_hostlist.h"
#include "loc_strategy.h"

#define NODES_MAX 4096
#define POINTS_MAX 65536

/* Checks the grid loc_conf_build_grid() made against the file. */
static void _check_grid(const loc_conf_t *conf, const loc_grid_t *g,
			const loc_hostlist_t *nodes)
{
	FUZZ_CHECK(loc_grid_selfcheck(g) == 0, "grid selfcheck");
	FUZZ_CHECK(loc_grid_nnodes(g) == nodes->count, "%d nodes of %d",
		   loc_grid_nnodes(g), nodes->count);
	/* The first name of a NodeName line sits at its Coords. */
	for (int l = 0; l < conf->nnodes_lines; l++) {
		const loc_conf_nodes_t *nl = &conf->nodes[l];
		loc_coord_t c;
		int node = -1;

		for (int i = 0; i < nodes->count && node < 0; i++)
			if (!strcmp(nodes->names[i], nl->names[0]))
				node = i;
		FUZZ_CHECK(node >= 0, "placed node '%s' not in the list",
			   nl->names[0]);
		loc_grid_node_coord(g, node, &c);
		for (int d = 0; d < conf->shape.ndims; d++)
			FUZZ_CHECK(c.c[d] == nl->start.c[d],
				   "node '%s' dim %d at %d, Coords say %d",
				   nl->names[0], d, c.c[d], nl->start.c[d]);
	}
}

/* Places one job of k nodes on the empty machine, as job_test would. */
static void _place(loc_alloc_t *a, int nnodes, int k)
{
	uint8_t *cand = malloc(nnodes);
	int *out = malloc(sizeof(int) * nnodes);
	loc_request_t req = { .nodes = k };
	loc_view_t view = { .now = 1000 };
	loc_error_t err;
	int rc;

	FUZZ_CHECK(cand && out, "out of memory");
	memset(cand, 1, nnodes);
	view.candidate = cand;
	rc = loc_alloc_select(a, &req, &view, out, &err);
	/* Box gives only boxes (locality.conf.5): a machine may have no
	 * box of k nodes. Every other strategy places any k <= free. */
	if (rc == LOC_ENOFIT &&
	    loc_alloc_policy(a)->strategy == LOC_STRATEGY_BOX) {
		fuzz_check_error(&err, rc);
		free(cand);
		free(out);
		return;
	}
	FUZZ_CHECK(rc == 0, "%d of %d free nodes do not fit: %s", k, nnodes,
		   err.text);
	for (int i = 0; i < k; i++) {
		FUZZ_CHECK(out[i] >= 0 && out[i] < nnodes, "node %d", out[i]);
		FUZZ_CHECK(!i || out[i - 1] < out[i], "not ascending");
	}
	free(cand);
	free(out);
}

static void _machine(const char *conf_text, size_t conf_len,
		     const loc_hostlist_t *nodes, unsigned k_seed)
{
	loc_conf_t *conf;
	loc_grid_t *grid;
	loc_error_t err;
	long long points = 1;

	conf = loc_conf_parse_mem(conf_text, conf_len, "locality.conf", &err);
	if (!conf)
		return; /* fuzz_conf checks the errors */
	for (int d = 0; d < conf->shape.ndims; d++)
		points *= conf->shape.dims[d];
	if (points > POINTS_MAX) {
		loc_conf_destroy(conf);
		return;
	}
	grid = loc_conf_build_grid(conf, (const char *const *)nodes->names,
				   nodes->count, &err);
	if (!grid) {
		fuzz_check_error(&err, err.code);
		FUZZ_CHECK(!strcmp(err.file, "locality.conf"),
			   "error names '%s'", err.file);
		loc_conf_destroy(conf);
		return;
	}
	_check_grid(conf, grid, nodes);
	for (int p = -1; p < conf->npartitions; p++) {
		const loc_policy_t *pol = p < 0 ? &conf->policy :
						  &conf->partitions[p].policy;
		loc_alloc_t *a = loc_alloc_create(grid, pol, &err);
		int k;

		if (!a) {
			fuzz_check_error(&err, err.code);
			continue;
		}
		k = 1 + (int)(k_seed % (unsigned)nodes->count);
		_place(a, nodes->count, k);
		loc_alloc_destroy(a);
	}
	loc_grid_destroy(grid);
	loc_conf_destroy(conf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const uint8_t *nl = memchr(data, '\n', size);
	loc_hostlist_t nodes = { 0 };
	loc_error_t err;
	size_t skip = 0;
	unsigned k_seed = 0;
	char *first;

	if (size > 8192)
		return 0;
	for (size_t i = 0; i < size; i++)
		k_seed = k_seed * 31 + data[i];
	first = fuzz_cstr(data, nl ? (size_t)(nl - data) : size);
	if (first && strchr(first, '=') == NULL &&
	    !loc_hostlist_expand(first, &nodes, &err) &&
	    nodes.count <= NODES_MAX) {
		skip = nl ? (size_t)(nl - data) + 1 : size;
	} else {
		loc_hostlist_free(&nodes);
		if (loc_hostlist_expand("n[001-064]", &nodes, &err))
			abort();
	}
	free(first);
	_machine(text + skip, size - skip, &nodes, k_seed);
	loc_hostlist_free(&nodes);
	return 0;
}
