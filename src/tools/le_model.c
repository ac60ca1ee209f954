/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le_model.c - locality-eval: errors, the machine model, node names.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "le.h"

void le_die(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void le_die_err(const loc_error_t *err)
{
	char buf[LOC_ERROR_TEXT_MAX + LOC_ERROR_FILE_MAX + 32];

	le_die("%s", loc_error_format(err, buf, sizeof(buf)));
}

void *le_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		le_die("out of memory");
	return p;
}

char *le_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		le_die("out of memory");
	return p;
}

/* ---------------------------------------------------------------------- */
/* The machine model                                                      */
/* ---------------------------------------------------------------------- */

/* Whether the comma-separated list arg names gres (--gres). */
static bool _asks_gres(const char *gres, void *arg)
{
	const char *s = arg;
	size_t n = strlen(gres);

	while (s && *s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len == n && !strncmp(s, gres, n))
			return true;
		s = end ? end + 1 : NULL;
	}
	return false;
}

void le_model_load(model_t *mo, const opts_t *o)
{
	loc_error_t err;
	const loc_policy_t *pol;

	memset(mo, 0, sizeof(*mo));
	loc_error_clear(&err);
	mo->conf = loc_conf_load(o->conf_path, &err);
	if (!mo->conf)
		le_die_err(&err);

	if (o->nodes_expr) {
		if (loc_hostlist_expand(o->nodes_expr, &mo->names, &err))
			le_die("--nodes '%s': %s", o->nodes_expr,
			     err.text[0] ? err.text : loc_strerror(err.code));
	} else {
		/* The nodes named in the conf, in file order: borrowed
		 * from the conf, which outlives them (le_model_free()), so
		 * the array is the only allocation, as loc_hostlist_free()
		 * expects. */
		int total = 0, at = 0;

		for (int i = 0; i < mo->conf->nnodes_lines; i++)
			total += mo->conf->nodes[i].count;
		if (!total)
			le_die("%s: no NodeName lines: give the node names "
			     "with --nodes", o->conf_path);
		mo->names.names = le_xcalloc((size_t)total, sizeof(char *));
		mo->names.count = total;
		for (int i = 0; i < mo->conf->nnodes_lines; i++)
			for (int n = 0; n < mo->conf->nodes[i].count; n++)
				mo->names.names[at++] =
					mo->conf->nodes[i].names[n];
	}

	mo->grid = loc_conf_build_grid(mo->conf,
				       (const char *const *)mo->names.names,
				       mo->names.count, &err);
	if (!mo->grid)
		le_die_err(&err);

	pol = loc_conf_job_policy(mo->conf, o->partition,
				  o->gres ? _asks_gres : NULL, (void *)o->gres);
	mo->policy = *pol;
	if (o->strategy) {
		int s = loc_strategy_kind_parse(o->strategy);

		if (s < 0)
			le_die("--strategy: unknown strategy '%s'", o->strategy);
		mo->policy.strategy = (loc_strategy_kind_t)s;
	}
	if (o->curve) {
		int c = loc_curve_kind_parse(o->curve);

		if (c < 0)
			le_die("--curve: unknown curve '%s'", o->curve);
		mo->policy.curve = (loc_curve_kind_t)c;
	}
	mo->curve = loc_curve_create(mo->grid, mo->policy.curve, &err);
	if (!mo->curve)
		le_die_err(&err);
}

void le_model_free(model_t *mo)
{
	loc_curve_destroy(mo->curve);
	loc_grid_destroy(mo->grid);
	loc_hostlist_free(&mo->names);
	loc_conf_destroy(mo->conf);
	memset(mo, 0, sizeof(*mo));
}

static int _cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}


void le_index_build(name_index_t *ix, const loc_hostlist_t *names)
{
	ix->n = names->count;
	ix->sorted = le_xcalloc((size_t)ix->n, sizeof(char *));
	ix->node = le_xcalloc((size_t)ix->n, sizeof(int));
	for (int i = 0; i < ix->n; i++)
		ix->sorted[i] = names->names[i];
	qsort(ix->sorted, (size_t)ix->n, sizeof(char *), _cmp_str);
	for (int i = 1; i < ix->n; i++)
		if (!strcmp(ix->sorted[i - 1], ix->sorted[i]))
			le_die("node '%s' listed twice in the node names",
			     ix->sorted[i]);
	/* Map back: position in sorted order -> driver index. */
	for (int i = 0; i < ix->n; i++) {
		char **hit = bsearch(&names->names[i], ix->sorted,
				     (size_t)ix->n, sizeof(char *), _cmp_str);

		ix->node[hit - ix->sorted] = i;
	}
}

int le_index_find(const name_index_t *ix, const char *name)
{
	char **hit = bsearch(&name, ix->sorted, (size_t)ix->n,
			     sizeof(char *), _cmp_str);

	return hit ? ix->node[hit - ix->sorted] : LOC_NONE;
}

void le_index_free(name_index_t *ix)
{
	free(ix->sorted);
	free(ix->node);
	memset(ix, 0, sizeof(*ix));
}

/* Expands expr into a 0/1 mark per node; unknown names are fatal. */
void le_mark_nodes(const name_index_t *ix, const char *expr,
			const char *what, uint8_t *mark)
{
	loc_hostlist_t hl;
	loc_error_t err;

	if (!expr || !*expr)
		return;
	loc_error_clear(&err);
	if (loc_hostlist_expand(expr, &hl, &err))
		le_die("%s '%s': %s", what, expr,
		     err.text[0] ? err.text : loc_strerror(err.code));
	for (int i = 0; i < hl.count; i++) {
		int n = le_index_find(ix, hl.names[i]);

		if (n == LOC_NONE)
			le_die("%s: unknown node '%s'", what, hl.names[i]);
		mark[n] = 1;
	}
	loc_hostlist_free(&hl);
}

/* Writes the compressed hostlist of nodes[0..k-1] (driver order). */
char *le_compress(const model_t *mo, const int *nodes, int k)
{
	const char **names = le_xcalloc((size_t)k, sizeof(char *));
	size_t len = 256;
	char *buf = NULL;
	int need;

	for (int i = 0; i < k; i++)
		names[i] = mo->names.names[nodes[i]];
	for (;;) {
		free(buf);
		buf = le_xcalloc(len, 1);
		need = loc_hostlist_compress(names, k, buf, len);
		if (need < 0)
			le_die("cannot compress a node list: %s",
			     loc_strerror(need));
		if ((size_t)need < len)
			break;
		len = (size_t)need + 1;
	}
	free(names);
	return buf;
}
