/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_machine.c - the replay's machine model: one locality.conf parser for
 * the plugin and the harness (loc_conf_*), node names from the trace.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_hostlist.h"
#include "loc_tiers.h"
#include "rp_machine.h"

int rp_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *x = a, *y = b;
			size_t lx, ly;

			while (*x == '0' && isdigit((unsigned char)x[1]))
				x++;
			while (*y == '0' && isdigit((unsigned char)y[1]))
				y++;
			for (lx = 0; isdigit((unsigned char)x[lx]); lx++)
				;
			for (ly = 0; isdigit((unsigned char)y[ly]); ly++)
				;
			if (lx != ly)
				return lx < ly ? -1 : 1;
			for (size_t i = 0; i < lx; i++)
				if (x[i] != y[i])
					return x[i] < y[i] ? -1 : 1;
			a = x + lx;
			b = y + ly;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return 0;
}

static int _cmp_names(const void *x, const void *y)
{
	int c = rp_natural_cmp(*(char *const *)x, *(char *const *)y);

	/* "n01" and "n1" compare equal naturally: fall back to bytes */
	return c ? c : strcmp(*(char *const *)x, *(char *const *)y);
}

/* Best a >= b >= c with a*b*c == m (c = 1 for 2-D). Returns a/c, or 0
 * when m has no such factorisation (never: 1 always divides). */
static double _best_factors(int m, int ndims, int *dims)
{
	double best = 0;

	if (ndims == 2) {
		for (int b = 1; (long long)b * b <= m; b++)
			if (m % b == 0) {
				double r = (double)(m / b) / b;

				if (!best || r < best) {
					best = r;
					dims[0] = m / b;
					dims[1] = b;
				}
			}
		return best;
	}
	for (int c = 1; (long long)c * c * c <= m; c++) {
		if (m % c)
			continue;
		for (int b = c; (long long)b * b <= m / c; b++) {
			int a;
			double r;

			if ((m / c) % b)
				continue;
			a = m / c / b;
			r = (double)a / c;
			if (!best || r < best) {
				best = r;
				dims[0] = a;
				dims[1] = b;
				dims[2] = c;
			}
		}
	}
	return best;
}

int rp_derive_shape(int n, int ndims, int *dims)
{
	double limit = 2.0, best = 0;
	int best_m = 0, tmp[3], top;

	if (n < 1)
		return 0;
	if (ndims != 2)
		ndims = 3;
	top = n + n / 10;
	for (int m = n; m <= top; m++) {
		double r = _best_factors(m, ndims, tmp);

		if (r <= limit) {
			_best_factors(m, ndims, dims);
			return m;
		}
		if (!best || r < best) {
			best = r;
			best_m = m;
		}
	}
	_best_factors(best_m, ndims, dims);
	return best_m;
}

/*
 * A config that names its nodes (NodeName lines) is the site's list of
 * nodes: a trace naming any other node was exported from another cluster
 * or the config is out of date, and the recorded placements cannot be
 * read. Returns 0, or LOC_ENOENT with err naming the trace line of the
 * first job that uses an unknown node.
 */
static int _check_trace_names(const loc_conf_t *conf, const loc_trace_t *trace,
			      loc_error_t *err)
{
	char **known;
	int nknown = 0, cap = 0, rc = 0;

	for (int i = 0; i < conf->nnodes_lines; i++)
		cap += conf->nodes[i].count;
	known = malloc(sizeof(char *) * (cap + 1));
	if (!known)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
	for (int i = 0; i < conf->nnodes_lines; i++)
		for (int k = 0; k < conf->nodes[i].count; k++)
			known[nknown++] = conf->nodes[i].names[k];
	qsort(known, nknown, sizeof(char *), _cmp_names);
	for (int i = 0; i < trace->nnode_names && !rc; i++) {
		const char *key = trace->node_names[i];
		int line = 0;
		const char *id = NULL;

		if (bsearch(&key, known, nknown, sizeof(char *), _cmp_names))
			continue;
		/* the first job (in file order) that names it */
		for (int j = 0; j < trace->njobs && !line; j++)
			for (int k = 0; k < trace->jobs[j].nrec; k++)
				if (trace->jobs[j].rec_nodes[k] == i) {
					line = trace->jobs[j].line;
					id = trace->jobs[j].id;
					break;
				}
		rc = loc_error_set(err, LOC_ENOENT, trace->path, line,
				   "%s%s%sNodeList names '%s', a node %s does not "
				   "name",
				   id ? "job " : "", id ? id : "", id ? ": " : "",
				   key, conf->path);
	}
	free(known);
	return rc;
}

void rp_machine_destroy(rp_machine_t *m)
{
	if (!m)
		return;
	loc_conf_destroy(m->conf);
	loc_grid_destroy(m->grid);
	for (int i = 0; m->names && i < m->nnodes; i++)
		free(m->names[i]);
	free(m->names);
	free(m->trace_node);
	free(m->weight);
	free(m);
}

/* The node named name: one of the nset sorted names, or on a machine
 * without names the index it spells. Returns -1 when there is none. */
static int _node_of(const rp_machine_t *m, int nset, const char *name)
{
	char **at = bsearch(&name, m->names, nset, sizeof(char *), _cmp_names);
	char *end;
	long v;

	if (at)
		return (int)(at - m->names);
	if (m->named || !isdigit((unsigned char)name[0]))
		return -1;
	errno = 0;
	v = strtol(name, &end, 10);
	return *end || errno || v >= m->nnodes ? -1 : (int)v;
}

/*
 * m->weight from --node-weight NODES=W: NODES a hostlist expression of
 * the machine's nodes (or node indices on an unnamed grid), W as
 * slurm.conf's Weight= (0 to 2^32-1). Unnamed nodes weigh 1, Slurm's
 * default; a node named twice takes the later weight.
 */
static int _weights(rp_machine_t *m, int nset, const rp_machine_opts_t *o,
		    loc_error_t *err)
{
	m->weight = malloc(sizeof(uint64_t) * m->nnodes);
	if (!m->weight)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
	for (int i = 0; i < m->nnodes; i++)
		m->weight[i] = 1;
	for (int i = 0; i < o->nnode_weights; i++) {
		const char *spec = o->node_weights[i];
		loc_hostlist_t hl;
		uint64_t w;
		int rc = loc_tiers_parse_weight(spec, &hl, &w, err);

		if (rc) {
			char text[LOC_ERROR_TEXT_MAX + 16];

			snprintf(text, sizeof(text), "--node-weight: %s",
				 err->text);
			return loc_error_set(err, rc, NULL, 0, "%s", text);
		}
		for (int k = 0; k < hl.count; k++) {
			int v = _node_of(m, nset, hl.names[k]);

			if (v < 0) {
				loc_error_set(err, LOC_ENOENT, NULL, 0,
					      "--node-weight '%s': '%s' is "
					      "not a node of the machine",
					      spec, hl.names[k]);
				loc_hostlist_free(&hl);
				return LOC_ENOENT;
			}
			m->weight[v] = w;
		}
		loc_hostlist_free(&hl);
	}
	return 0;
}

/* Makes the conf text for --grid / --derive-grid. */
static loc_conf_t *_conf_for(const rp_machine_opts_t *o, int *nnodes,
			     loc_error_t *err)
{
	char text[256];
	int dims[3];

	if (o->grid) {
		snprintf(text, sizeof(text),
			 "Dimensions=%.64s Torus=%.64s NodesPerPoint=%d\n",
			 o->grid, o->torus ? o->torus : "no",
			 o->nodes_per_point > 0 ? o->nodes_per_point : 1);
		*nnodes = 0;
		return loc_conf_parse(text, "--grid", err);
	}
	if (o->derive_nodes < 1)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "cannot derive a grid: the trace gives no "
				     "machine size (MaxNodes/MaxProcs); use "
				     "--config or --grid"),
		       NULL;
	rp_derive_shape(o->derive_nodes, o->derive, dims);
	if (o->derive == 2)
		snprintf(text, sizeof(text), "Dimensions=%dx%d Torus=yes\n",
			 dims[0], dims[1]);
	else
		snprintf(text, sizeof(text), "Dimensions=%dx%dx%d Torus=yes\n",
			 dims[0], dims[1], dims[2]);
	*nnodes = o->derive_nodes;
	return loc_conf_parse(text, "--derive-grid", err);
}

rp_machine_t *rp_machine_create(const rp_machine_opts_t *o,
				const loc_trace_t *trace, loc_error_t *err)
{
	rp_machine_t *m = calloc(1, sizeof(*m));
	const loc_shape_t *sh;
	long long capacity = 1;
	int nnodes = 0, nset = 0, cap;
	char **set = NULL;

	if (!m)
		goto nomem;
	if (o->config)
		m->conf = loc_conf_load(o->config, err);
	else if (o->grid || o->derive)
		m->conf = _conf_for(o, &nnodes, err);
	else
		loc_error_set(
			err, LOC_EINVAL, NULL, 0,
			"no machine: give --config, --grid or --derive-grid");
	if (!m->conf)
		goto fail;
	sh = &m->conf->shape;
	for (int d = 0; d < sh->ndims; d++)
		capacity *= sh->dims[d];
	capacity *= sh->nodes_per_point;
	if (capacity > (1 << 24)) {
		loc_error_set(err, LOC_ERANGE, m->conf->path, 0,
			      "a grid of %lld nodes is too large to replay",
			      capacity);
		goto fail;
	}
	if (!nnodes)
		nnodes = (int)capacity;

	if (m->conf->nnodes_lines > 0 &&
	    _check_trace_names(m->conf, trace, err))
		goto fail;

	/* The names: the trace's and the conf's, in natural order. */
	cap = trace->nnode_names;
	for (int i = 0; i < m->conf->nnodes_lines; i++)
		cap += m->conf->nodes[i].count;
	set = malloc(sizeof(char *) * (cap + 1));
	if (!set)
		goto nomem;
	for (int i = 0; i < trace->nnode_names; i++)
		set[nset++] = trace->node_names[i];
	for (int i = 0; i < m->conf->nnodes_lines; i++)
		for (int k = 0; k < m->conf->nodes[i].count; k++)
			set[nset++] = m->conf->nodes[i].names[k];
	qsort(set, nset, sizeof(char *), _cmp_names);
	{
		int u = 0;

		for (int i = 0; i < nset; i++)
			if (!u || strcmp(set[u - 1], set[i]))
				set[u++] = set[i];
		nset = u;
	}
	if (nset > nnodes && m->conf->nnodes_lines == 0 &&
	    trace->nnode_names > nnodes) {
		/* names are numbered in order of first appearance: the
		 * first job naming number nnodes runs off the grid */
		for (int j = 0; j < trace->njobs; j++)
			for (int k = 0; k < trace->jobs[j].nrec; k++)
				if (trace->jobs[j].rec_nodes[k] >= nnodes) {
					loc_error_set(
						err, LOC_ERANGE, trace->path,
						trace->jobs[j].line,
						"job %s: NodeList names '%s', "
						"distinct node number %d of "
						"the trace; the grid (%s) "
						"holds %d nodes",
						trace->jobs[j].id,
						trace->node_names
							[trace->jobs[j]
								 .rec_nodes[k]],
						trace->jobs[j].rec_nodes[k] + 1,
						m->conf->path, nnodes);
					goto fail;
				}
	}
	if (nset > nnodes) {
		loc_error_set(err, LOC_ERANGE, m->conf->path, 0,
			      "the trace and the config name %d nodes, the "
			      "grid holds %d",
			      nset, nnodes);
		goto fail;
	}
	m->named = nset > 0;
	m->nnodes = nnodes;
	m->names = calloc(nnodes, sizeof(char *));
	if (!m->names)
		goto nomem;
	for (int i = 0; i < nnodes; i++) {
		char buf[32];

		if (i < nset) {
			m->names[i] = strdup(set[i]);
		} else {
			/* unnamed nodes: indices, or "~i" beside real names */
			snprintf(buf, sizeof(buf), m->named ? "~%d" : "%d", i);
			m->names[i] = strdup(buf);
		}
		if (!m->names[i])
			goto nomem;
	}
	m->grid = loc_conf_build_grid(m->conf, (const char *const *)m->names,
				      nnodes, err);
	if (!m->grid)
		goto fail;

	/* trace node index -> grid node: names[0..nset) are sorted */
	m->ntrace = trace->nnode_names;
	m->trace_node = malloc(sizeof(int) * (m->ntrace + 1));
	if (!m->trace_node)
		goto nomem;
	for (int i = 0; i < m->ntrace; i++) {
		const char *key = trace->node_names[i];
		char **at = bsearch(&key, m->names, nset, sizeof(char *),
				    _cmp_names);

		m->trace_node[i] = at ? (int)(at - m->names) : -1;
	}
	if (o->nnode_weights && _weights(m, nset, o, err))
		goto fail;
	free(set);
	return m;
nomem:
	loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
fail:
	free(set);
	rp_machine_destroy(m);
	return NULL;
}
