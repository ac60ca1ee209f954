/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * locality-eval.c - measure the locality of jobs' node sets on the machine
 * model of a locality.conf, from outside Slurm.
 *
 * Reads job records ("jobid nodelist [start end]" lines, or Slurm's
 * jobcomp/filetxt lines with JobId= and NodeList=) and prints each job's
 * metrics (loc_metrics_compute), a summary, optionally JSON and an ASCII
 * picture of the grid. Two more modes serve the integration tests:
 * --predict asks the core's allocator which nodes it would give a job in
 * a described state (the plugin must agree), and --check-overlap proves
 * from jobcomp records that no node was in two jobs at once.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "loc_conf.h"
#include "loc_curve.h"
#include "loc_error.h"
#include "loc_grid.h"
#include "loc_hostlist.h"
#include "loc_metrics.h"
#include "loc_strategy.h"

#define PROG "locality-eval"
#define NO_TIME INT64_MIN

/* Symbols for jobs in the picture, reused cyclically. */
static const char _symbols[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

typedef struct job {
	char *id;
	char **names;     /* node names as read (owned) */
	int k;
	int *nodes;       /* grid node indices, ascending (owned) */
	int64_t start;    /* epoch seconds or NO_TIME */
	int64_t end;
	const char *file; /* borrowed from argv */
	int line;
	loc_metrics_t m;
} job_t;

typedef struct jobs {
	job_t *v;
	int n;
	int cap;
} jobs_t;

typedef struct opts {
	const char *conf_path;
	const char *nodes_expr;
	const char *partition;
	const char *strategy;
	const char *curve;
	const char *at;
	const char *busy;
	const char *required;
	bool jobcomp;
	bool use_name;
	bool json;
	bool picture;
	bool quiet;
	bool predict;
	bool contiguous;
	bool check_overlap;
	int k;
} opts_t;

/* The machine model built from the conf and the node names. */
typedef struct model {
	loc_conf_t *conf;
	loc_hostlist_t names;
	loc_grid_t *grid;
	loc_curve_t *curve;
	loc_policy_t policy;
} model_t;

static void _die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						       noreturn));

static void _die(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void _die_err(const loc_error_t *err)
{
	char buf[LOC_ERROR_TEXT_MAX + LOC_ERROR_FILE_MAX + 32];

	_die("%s", loc_error_format(err, buf, sizeof(buf)));
}

static void *_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		_die("out of memory");
	return p;
}

static char *_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		_die("out of memory");
	return p;
}

static void _usage(FILE *f)
{
	fputs("usage: " PROG " --conf FILE [--nodes EXPR] [--partition NAME]\n"
	      "         [--curve NAME] [--jobcomp [--name]] [--json]\n"
	      "         [--quiet] [--picture [--at TIME|busiest|all]]"
	      " [FILE...]\n"
	      "       " PROG " --conf FILE [--nodes EXPR] --predict -k K\n"
	      "         [--busy EXPR] [--required EXPR] [--contiguous]\n"
	      "         [--strategy NAME] [--curve NAME] [--partition NAME]\n"
	      "       " PROG " --check-overlap [FILE...]\n"
	      "Input lines: 'jobid nodelist [start end]' or jobcomp/filetxt\n"
	      "records (JobId=... NodeList=... StartTime=... EndTime=...).\n"
	      "FILE '-' or none reads standard input. --name labels jobcomp\n"
	      "jobs by their Name= instead of JobId=.\n", f);
}

/* ---------------------------------------------------------------------- */
/* Job records                                                            */
/* ---------------------------------------------------------------------- */

static job_t *_jobs_add(jobs_t *jobs)
{
	if (jobs->n == jobs->cap) {
		int cap = jobs->cap ? 2 * jobs->cap : 64;
		job_t *v = realloc(jobs->v, (size_t)cap * sizeof(*v));

		if (!v)
			_die("out of memory");
		jobs->v = v;
		jobs->cap = cap;
	}
	memset(&jobs->v[jobs->n], 0, sizeof(job_t));
	return &jobs->v[jobs->n++];
}

static void _jobs_free(jobs_t *jobs)
{
	for (int i = 0; i < jobs->n; i++) {
		job_t *j = &jobs->v[i];

		free(j->names); /* a loc_hostlist_t's names: one block */
		free(j->nodes);
		free(j->id);
	}
	free(jobs->v);
	memset(jobs, 0, sizeof(*jobs));
}

/* Parses an epoch number or a local "YYYY-MM-DDTHH:MM:SS" time. Returns
 * NO_TIME when text is neither. */
static int64_t _parse_time(const char *text)
{
	struct tm tm;
	char *end;
	long long v;

	if (!text || !*text)
		return NO_TIME;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (!*end && !errno && end != text)
		return v;
	memset(&tm, 0, sizeof(tm));
	end = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return NO_TIME;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

/* A NodeList value that names no node (a job that never ran). */
static bool _empty_nodelist(const char *s)
{
	return !s || !*s || !strcmp(s, "(null)") ||
	       !strcasecmp(s, "None") || !strncmp(s, "None ", 5);
}

static void _set_nodes(job_t *j, const char *expr, const char *file, int line)
{
	loc_hostlist_t hl;
	loc_error_t err;

	loc_error_clear(&err);
	if (loc_hostlist_expand(expr, &hl, &err))
		_die("%s:%d: bad node list '%s': %s", file, line, expr,
		     err.text[0] ? err.text : loc_strerror(err.code));
	j->names = hl.names; /* take ownership */
	j->k = hl.count;
}

/* Parses one jobcomp/filetxt record: blank-separated Key=Value fields.
 * Returns false when the record names no node. */
static bool _parse_jobcomp(char *line, job_t *j, bool use_name,
			   const char *file, int lineno)
{
	const char *id = NULL, *nl = NULL, *st = NULL, *et = NULL;
	const char *name = NULL;

	for (char *tok = strtok(line, " \t\r\n"); tok;
	     tok = strtok(NULL, " \t\r\n")) {
		if (!strncmp(tok, "JobId=", 6))
			id = tok + 6;
		else if (!strncmp(tok, "NodeList=", 9))
			nl = tok + 9;
		else if (!strncmp(tok, "StartTime=", 10))
			st = tok + 10;
		else if (!strncmp(tok, "EndTime=", 8))
			et = tok + 8;
		else if (!strncmp(tok, "Name=", 5))
			name = tok + 5;
	}
	if (!id || !*id)
		_die("%s:%d: jobcomp record without JobId=", file, lineno);
	if (_empty_nodelist(nl))
		return false;
	j->id = _xstrdup(use_name && name && *name ? name : id);
	j->start = _parse_time(st);
	j->end = _parse_time(et);
	_set_nodes(j, nl, file, lineno);
	return true;
}

/* Parses "jobid nodelist [start end]". */
static void _parse_plain(char *line, job_t *j, const char *file, int lineno)
{
	char *f[5];
	int n = 0;

	for (char *tok = strtok(line, " \t\r\n"); tok && n < 5;
	     tok = strtok(NULL, " \t\r\n"))
		f[n++] = tok;
	if (n != 2 && n != 4)
		_die("%s:%d: expected 'jobid nodelist [start end]', "
		     "got %d fields", file, lineno, n);
	j->id = _xstrdup(f[0]);
	j->start = j->end = NO_TIME;
	if (n == 4) {
		j->start = _parse_time(f[2]);
		j->end = _parse_time(f[3]);
		if (j->start == NO_TIME || j->end == NO_TIME)
			_die("%s:%d: bad start/end time '%s %s'", file, lineno,
			     f[2], f[3]);
	}
	_set_nodes(j, f[1], file, lineno);
}

static void _read_file(const char *path, bool force_jobcomp, bool use_name,
		       jobs_t *jobs)
{
	FILE *f = stdin;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	const char *name = path;

	if (strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f)
			_die("%s: %s", path, strerror(errno));
	} else {
		name = "<stdin>";
	}
	while (getline(&line, &cap, f) >= 0) {
		char *p = line;
		job_t *j;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n' || *p == '\r' || *p == '#')
			continue;
		j = _jobs_add(jobs);
		j->file = name;
		j->line = lineno;
		if (force_jobcomp || !strncmp(p, "JobId=", 6)) {
			if (!_parse_jobcomp(p, j, use_name, name, lineno))
				jobs->n--; /* never ran: not a placement */
		} else {
			_parse_plain(p, j, name, lineno);
		}
	}
	if (ferror(f))
		_die("%s: read error", name);
	free(line);
	if (f != stdin)
		fclose(f);
}

/* ---------------------------------------------------------------------- */
/* The machine model                                                      */
/* ---------------------------------------------------------------------- */

static void _model_load(model_t *mo, const opts_t *o)
{
	loc_error_t err;
	const loc_policy_t *pol;

	memset(mo, 0, sizeof(*mo));
	loc_error_clear(&err);
	mo->conf = loc_conf_load(o->conf_path, &err);
	if (!mo->conf)
		_die_err(&err);

	if (o->nodes_expr) {
		if (loc_hostlist_expand(o->nodes_expr, &mo->names, &err))
			_die("--nodes '%s': %s", o->nodes_expr,
			     err.text[0] ? err.text : loc_strerror(err.code));
	} else {
		/* The nodes named in the conf, in file order: borrowed
		 * from the conf, which outlives them (_model_free()), so
		 * the array is the only allocation, as loc_hostlist_free()
		 * expects. */
		int total = 0, at = 0;

		for (int i = 0; i < mo->conf->nnodes_lines; i++)
			total += mo->conf->nodes[i].count;
		if (!total)
			_die("%s: no NodeName lines: give the node names "
			     "with --nodes", o->conf_path);
		mo->names.names = _xcalloc((size_t)total, sizeof(char *));
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
		_die_err(&err);

	pol = loc_conf_policy(mo->conf, o->partition);
	mo->policy = *pol;
	if (o->strategy) {
		int s = loc_strategy_kind_parse(o->strategy);

		if (s < 0)
			_die("--strategy: unknown strategy '%s'", o->strategy);
		mo->policy.strategy = (loc_strategy_kind_t)s;
	}
	if (o->curve) {
		int c = loc_curve_kind_parse(o->curve);

		if (c < 0)
			_die("--curve: unknown curve '%s'", o->curve);
		mo->policy.curve = (loc_curve_kind_t)c;
	}
	mo->curve = loc_curve_create(mo->grid, mo->policy.curve, &err);
	if (!mo->curve)
		_die_err(&err);
}

static void _model_free(model_t *mo)
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

static int _cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Name -> node index by binary search over a sorted copy of the names. */
typedef struct name_index {
	char **sorted;  /* borrowed strings */
	int *node;      /* node index of sorted[i] */
	int n;
} name_index_t;

static void _index_build(name_index_t *ix, const loc_hostlist_t *names)
{
	ix->n = names->count;
	ix->sorted = _xcalloc((size_t)ix->n, sizeof(char *));
	ix->node = _xcalloc((size_t)ix->n, sizeof(int));
	for (int i = 0; i < ix->n; i++)
		ix->sorted[i] = names->names[i];
	qsort(ix->sorted, (size_t)ix->n, sizeof(char *), _cmp_str);
	for (int i = 1; i < ix->n; i++)
		if (!strcmp(ix->sorted[i - 1], ix->sorted[i]))
			_die("node '%s' listed twice in the node names",
			     ix->sorted[i]);
	/* Map back: position in sorted order -> driver index. */
	for (int i = 0; i < ix->n; i++) {
		char **hit = bsearch(&names->names[i], ix->sorted,
				     (size_t)ix->n, sizeof(char *), _cmp_str);

		ix->node[hit - ix->sorted] = i;
	}
}

static int _index_find(const name_index_t *ix, const char *name)
{
	char **hit = bsearch(&name, ix->sorted, (size_t)ix->n,
			     sizeof(char *), _cmp_str);

	return hit ? ix->node[hit - ix->sorted] : LOC_NONE;
}

static void _index_free(name_index_t *ix)
{
	free(ix->sorted);
	free(ix->node);
	memset(ix, 0, sizeof(*ix));
}

/* Expands expr into a 0/1 mark per node; unknown names are fatal. */
static void _mark_nodes(const name_index_t *ix, const char *expr,
			const char *what, uint8_t *mark)
{
	loc_hostlist_t hl;
	loc_error_t err;

	if (!expr || !*expr)
		return;
	loc_error_clear(&err);
	if (loc_hostlist_expand(expr, &hl, &err))
		_die("%s '%s': %s", what, expr,
		     err.text[0] ? err.text : loc_strerror(err.code));
	for (int i = 0; i < hl.count; i++) {
		int n = _index_find(ix, hl.names[i]);

		if (n == LOC_NONE)
			_die("%s: unknown node '%s'", what, hl.names[i]);
		mark[n] = 1;
	}
	loc_hostlist_free(&hl);
}

/* Writes the compressed hostlist of nodes[0..k-1] (driver order). */
static char *_compress(const model_t *mo, const int *nodes, int k)
{
	const char **names = _xcalloc((size_t)k, sizeof(char *));
	size_t len = 256;
	char *buf = NULL;
	int need;

	for (int i = 0; i < k; i++)
		names[i] = mo->names.names[nodes[i]];
	for (;;) {
		free(buf);
		buf = _xcalloc(len, 1);
		need = loc_hostlist_compress(names, k, buf, len);
		if (need < 0)
			_die("cannot compress a node list: %s",
			     loc_strerror(need));
		if ((size_t)need < len)
			break;
		len = (size_t)need + 1;
	}
	free(names);
	return buf;
}

/*
 * Checks that every name of job j is a known node, listed once, before
 * anything is allocated for it (so an exit on bad input frees all).
 * seen[] is all zero on entry and on return.
 */
static void _check_job_names(const name_index_t *ix, const job_t *j,
			     uint8_t *seen)
{
	const char *bad = NULL;
	int n, twice = 0;

	for (n = 0; n < j->k && !bad; n++) {
		int node = _index_find(ix, j->names[n]);

		if (node == LOC_NONE)
			bad = j->names[n];
		else if (seen[node])
			bad = j->names[n], twice = 1;
		else
			seen[node] = 1;
	}
	for (int m = 0; m < n; m++) {
		int node = _index_find(ix, j->names[m]);

		if (node != LOC_NONE)
			seen[node] = 0;
	}
	if (!bad)
		return;
	free(seen);
	if (twice)
		_die("%s:%d: job %s: node '%s' listed twice", j->file, j->line,
		     j->id, bad);
	_die("%s:%d: job %s: unknown node '%s'", j->file, j->line, j->id,
	     bad);
}

/* Resolves every job's names to sorted node indices and computes metrics. */
static void _resolve_jobs(const model_t *mo, const name_index_t *ix,
			  jobs_t *jobs)
{
	int nn = loc_grid_nnodes(mo->grid);
	uint8_t *seen = _xcalloc((size_t)nn, 1);

	for (int i = 0; i < jobs->n; i++) {
		job_t *j = &jobs->v[i];
		int rc;

		_check_job_names(ix, j, seen);
		j->nodes = _xcalloc((size_t)j->k, sizeof(int));
		for (int n = 0; n < j->k; n++)
			j->nodes[n] = _index_find(ix, j->names[n]);
		qsort(j->nodes, (size_t)j->k, sizeof(int), _cmp_int);
		rc = loc_metrics_compute(mo->grid, mo->curve, j->nodes, j->k,
					 &j->m);
		if (rc)
			_die("%s:%d: job %s: metrics failed: %s", j->file,
			     j->line, j->id, loc_strerror(rc));
	}
	free(seen);
}

/* ---------------------------------------------------------------------- */
/* Reports                                                                */
/* ---------------------------------------------------------------------- */

typedef struct summary {
	int jobs;
	int multinode;        /* jobs with k >= 2: the pairwise figures */
	double mean_hops;
	double median_hops;
	double p95_hops;
	double max_hops;
	double mean_components;
	double mean_span;
	double mean_bbox;
	double mean_nodes;
} summary_t;

static void _summarise(const jobs_t *jobs, summary_t *s)
{
	double *h = _xcalloc((size_t)jobs->n, sizeof(double));
	double comp = 0, span = 0, bbox = 0, k = 0, sum = 0;
	int m = 0;

	memset(s, 0, sizeof(*s));
	s->jobs = jobs->n;
	for (int i = 0; i < jobs->n; i++) {
		const loc_metrics_t *x = &jobs->v[i].m;

		comp += x->components;
		span += x->linear_span;
		bbox += (double)x->bbox_volume;
		k += x->nodes;
		if (x->nodes >= 2) {
			h[m++] = x->avg_pair_hops;
			sum += x->avg_pair_hops;
		}
	}
	s->multinode = m;
	if (jobs->n) {
		s->mean_components = comp / jobs->n;
		s->mean_span = span / jobs->n;
		s->mean_bbox = bbox / jobs->n;
		s->mean_nodes = k / jobs->n;
	}
	if (m) {
		int r = (95 * m + 99) / 100; /* nearest rank, 1-based */

		qsort(h, (size_t)m, sizeof(double), _cmp_double);
		s->mean_hops = sum / m;
		s->median_hops = m % 2 ? h[m / 2]
				       : (h[m / 2 - 1] + h[m / 2]) / 2;
		s->p95_hops = h[(r < 1 ? 1 : r) - 1];
		s->max_hops = h[m - 1];
	}
	free(h);
}

static void _json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void _print_jobs(const model_t *mo, const jobs_t *jobs)
{
	printf("%-10s %4s %8s %5s %5s %5s  %s\n", "job", "k", "avg_hops",
	       "span", "bbox", "comps", "nodes");
	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];
		char *hl = _compress(mo, j->nodes, j->k);

		printf("%-10s %4d %8.3f %5d %5lld %5d  %s\n", j->id, j->k,
		       j->m.avg_pair_hops, j->m.linear_span,
		       (long long)j->m.bbox_volume, j->m.components, hl);
		free(hl);
	}
}

static void _print_summary(const summary_t *s)
{
	printf("summary: jobs=%d multinode=%d mean_avg_hops=%.3f "
	       "median_avg_hops=%.3f p95_avg_hops=%.3f max_avg_hops=%.3f "
	       "mean_components=%.3f mean_span=%.2f mean_bbox=%.2f\n",
	       s->jobs, s->multinode, s->mean_hops, s->median_hops,
	       s->p95_hops, s->max_hops, s->mean_components, s->mean_span,
	       s->mean_bbox);
}

static void _print_json(const model_t *mo, const jobs_t *jobs,
			const summary_t *s)
{
	char shape[128];

	printf("{\"grid\":");
	_json_str(stdout, loc_grid_describe(mo->grid, shape, sizeof(shape)));
	printf(",\"curve\":\"%s\",\"jobs\":%d,\"multinode_jobs\":%d,"
	       "\"mean_avg_hops\":%.6f,\"median_avg_hops\":%.6f,"
	       "\"p95_avg_hops\":%.6f,\"max_avg_hops\":%.6f,"
	       "\"mean_components\":%.6f,\"mean_span\":%.6f,"
	       "\"mean_bbox\":%.6f,\"mean_nodes\":%.6f,\"per_job\":[",
	       loc_curve_kind_name(mo->policy.curve), s->jobs, s->multinode,
	       s->mean_hops, s->median_hops, s->p95_hops, s->max_hops,
	       s->mean_components, s->mean_span, s->mean_bbox, s->mean_nodes);
	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];
		char *hl = _compress(mo, j->nodes, j->k);

		printf("%s{\"id\":", i ? "," : "");
		_json_str(stdout, j->id);
		printf(",\"k\":%d,\"avg_hops\":%.6f,\"span\":%d,\"bbox\":%lld,"
		       "\"components\":%d,\"nodes\":", j->k,
		       j->m.avg_pair_hops, j->m.linear_span,
		       (long long)j->m.bbox_volume, j->m.components);
		_json_str(stdout, hl);
		putchar('}');
		free(hl);
	}
	printf("]}\n");
}

/* ---------------------------------------------------------------------- */
/* Picture                                                                */
/* ---------------------------------------------------------------------- */

static bool _running_at(const job_t *j, int64_t t)
{
	return j->start != NO_TIME && j->end != NO_TIME && j->start <= t &&
	       t < j->end;
}

/* Picks the moment with the most busy nodes among the jobs' start times
 * (earliest on ties). Returns NO_TIME when no job has times. */
static int64_t _busiest(const jobs_t *jobs)
{
	int64_t best_t = NO_TIME;
	long best = -1;

	for (int i = 0; i < jobs->n; i++) {
		int64_t t = jobs->v[i].start;
		long busy = 0;

		if (t == NO_TIME || jobs->v[i].end == NO_TIME)
			continue;
		for (int x = 0; x < jobs->n; x++)
			if (_running_at(&jobs->v[x], t))
				busy += jobs->v[x].k;
		if (busy > best || (busy == best && t < best_t)) {
			best = busy;
			best_t = t;
		}
	}
	return best_t;
}

static char _symbol(int i)
{
	return _symbols[i % (int)(sizeof(_symbols) - 1)];
}

static void _print_plane(const model_t *mo, const int *owner,
			 const int *fixed, int nfixed)
{
	const loc_shape_t *sh = loc_grid_shape(mo->grid);
	int nd = sh->ndims, rows, cols, npp = sh->nodes_per_point;

	/* The last two dimensions form the picture; the rest are fixed. */
	rows = nd >= 2 ? sh->dims[nd - 2] : 1;
	cols = sh->dims[nd - 1];
	for (int r = 0; r < rows; r++) {
		for (int c = 0; c < cols; c++) {
			loc_coord_t co;
			const int *pn;
			int point, cnt;

			memset(&co, 0, sizeof(co));
			for (int d = 0; d < nfixed; d++)
				co.c[d] = fixed[d];
			if (nd >= 2)
				co.c[nd - 2] = r;
			co.c[nd - 1] = c;
			point = loc_grid_point_at(mo->grid, &co);
			cnt = loc_grid_point_nodes(mo->grid, point, &pn);
			if (c)
				putchar(' ');
			for (int s = 0; s < npp; s++) {
				int o;

				if (s >= cnt) {
					putchar(' ');
					continue;
				}
				o = owner[pn[s]];
				if (o == -1)
					putchar('.');
				else if (o == -2)
					putchar('#');
				else
					putchar(_symbol(o));
			}
		}
		putchar('\n');
	}
}

static void _print_picture(const model_t *mo, const jobs_t *jobs,
			   const char *at)
{
	const loc_shape_t *sh = loc_grid_shape(mo->grid);
	int nn = loc_grid_nnodes(mo->grid), nd = sh->ndims;
	int *owner = _xcalloc((size_t)nn, sizeof(int));
	bool have_times = false, all;
	int64_t t = NO_TIME;
	int shown = 0, busy = 0;
	char shape[128];

	for (int i = 0; i < jobs->n; i++)
		if (jobs->v[i].start != NO_TIME && jobs->v[i].end != NO_TIME)
			have_times = true;
	all = !have_times || (at && !strcmp(at, "all"));
	if (!all) {
		if (!at || !strcmp(at, "busiest"))
			t = _busiest(jobs);
		else if ((t = _parse_time(at)) == NO_TIME)
			_die("--at: bad time '%s' (epoch, YYYY-MM-DDTHH:MM:SS, "
			     "busiest or all)", at);
	}
	for (int i = 0; i < nn; i++)
		owner[i] = -1;
	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];

		if (!all && !_running_at(j, t))
			continue;
		for (int n = 0; n < j->k; n++) {
			int *o = &owner[j->nodes[n]];

			/* -2 marks a node in two jobs: a conflict. */
			*o = *o == -1 ? shown : -2;
		}
		shown++;
	}
	for (int i = 0; i < nn; i++)
		busy += owner[i] != -1;

	printf("grid %s, ", loc_grid_describe(mo->grid, shape, sizeof(shape)));
	if (all) {
		printf("all %d jobs", shown);
	} else {
		time_t tt = (time_t)t;
		struct tm tm;
		char when[32] = "?";

		if (localtime_r(&tt, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		printf("%d jobs running at %s", shown, when);
	}
	printf(" (%d of %d nodes busy; '.' idle, '#' in two jobs)\n", busy, nn);

	if (nd <= 2) {
		_print_plane(mo, owner, NULL, 0);
	} else {
		int fixed[LOC_MAX_DIMS] = { 0 };
		int planes = 1;

		for (int d = 0; d < nd - 2; d++)
			planes *= sh->dims[d];
		for (int p = 0; p < planes; p++) {
			int rest = p;

			for (int d = nd - 3; d >= 0; d--) {
				fixed[d] = rest % sh->dims[d];
				rest /= sh->dims[d];
			}
			printf("plane");
			for (int d = 0; d < nd - 2; d++)
				printf(" %c=%d", 'a' + d, fixed[d]);
			putchar('\n');
			_print_plane(mo, owner, fixed, nd - 2);
		}
	}

	/* Legend: symbol = job (k nodes, average pairwise hops). */
	shown = 0;
	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];

		if (!all && !_running_at(j, t))
			continue;
		printf("%s%c=%s(%d,%.2f)", shown % 6 ? "  " : "",
		       _symbol(shown), j->id, j->k, j->m.avg_pair_hops);
		shown++;
		if (shown % 6 == 0)
			putchar('\n');
	}
	if (shown % 6)
		putchar('\n');
	free(owner);
}

/* ---------------------------------------------------------------------- */
/* --predict                                                              */
/* ---------------------------------------------------------------------- */

static int _predict(const model_t *mo, const opts_t *o)
{
	int nn = loc_grid_nnodes(mo->grid), nreq = 0, rc;
	uint8_t *busy = _xcalloc((size_t)nn, 1);
	uint8_t *req = _xcalloc((size_t)nn, 1);
	uint8_t *cand = _xcalloc((size_t)nn, 1);
	int *required = _xcalloc((size_t)nn, sizeof(int));
	int *out;
	name_index_t ix;
	loc_alloc_t *alloc;
	loc_request_t rq;
	loc_view_t view;
	loc_error_t err;
	char *hl;

	if (o->k < 1)
		_die("--predict needs -k K (K >= 1)");
	_index_build(&ix, &mo->names);
	_mark_nodes(&ix, o->busy, "--busy", busy);
	_mark_nodes(&ix, o->required, "--required", req);
	for (int i = 0; i < nn; i++) {
		cand[i] = !busy[i];
		if (req[i])
			required[nreq++] = i;
	}
	loc_error_clear(&err);
	alloc = loc_alloc_create(mo->grid, &mo->policy, &err);
	if (!alloc)
		_die_err(&err);
	memset(&rq, 0, sizeof(rq));
	rq.nodes = o->k;
	rq.required = nreq ? required : NULL;
	rq.nrequired = nreq;
	rq.contiguous = o->contiguous;
	memset(&view, 0, sizeof(view));
	view.candidate = cand;
	out = _xcalloc((size_t)o->k, sizeof(int));
	rc = loc_alloc_select(alloc, &rq, &view, out, &err);
	if (rc) {
		fprintf(stderr, PROG ": no placement for %d nodes: %s\n", o->k,
			err.text[0] ? err.text : loc_strerror(rc));
	} else {
		hl = _compress(mo, out, o->k);
		printf("%s\n", hl);
		free(hl);
	}
	loc_alloc_destroy(alloc);
	_index_free(&ix);
	free(out);
	free(required);
	free(cand);
	free(req);
	free(busy);
	return rc ? 1 : 0;
}

/* ---------------------------------------------------------------------- */
/* --check-overlap                                                        */
/* ---------------------------------------------------------------------- */

typedef struct use {
	const char *node;
	const job_t *job;
} use_t;

static int _cmp_use(const void *a, const void *b)
{
	const use_t *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	if (c)
		return c;
	return (x->job->start > y->job->start) -
	       (x->job->start < y->job->start);
}

/* Half-open intervals [start, end): a node freed and reused within the
 * same second is not an overlap (jobcomp has one-second resolution). */
static int _check_overlap(const jobs_t *jobs)
{
	size_t nuse = 0, at = 0;
	use_t *use;
	int bad = 0;

	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];

		if (j->start == NO_TIME || j->end == NO_TIME)
			_die("%s:%d: job %s has no StartTime/EndTime", j->file,
			     j->line, j->id);
		if (j->end < j->start)
			_die("%s:%d: job %s ends before it starts", j->file,
			     j->line, j->id);
		nuse += (size_t)j->k;
	}
	use = _xcalloc(nuse, sizeof(*use));
	for (int i = 0; i < jobs->n; i++)
		for (int n = 0; n < jobs->v[i].k; n++) {
			use[at].node = jobs->v[i].names[n];
			use[at].job = &jobs->v[i];
			at++;
		}
	qsort(use, nuse, sizeof(*use), _cmp_use);
	for (size_t i = 1; i < nuse; i++) {
		/* Compare with every earlier use of the node still open. */
		for (size_t p = i; p-- > 0;) {
			if (strcmp(use[p].node, use[i].node))
				break;
			if (use[p].job->end > use[i].job->start &&
			    use[p].job->start < use[i].job->end) {
				if (bad < 20)
					printf("overlap: node %s in job %s "
					       "[%lld,%lld) and job %s "
					       "[%lld,%lld)\n",
					       use[i].node, use[p].job->id,
					       (long long)use[p].job->start,
					       (long long)use[p].job->end,
					       use[i].job->id,
					       (long long)use[i].job->start,
					       (long long)use[i].job->end);
				bad++;
			}
		}
	}
	if (bad)
		printf("check-overlap: %d overlaps in %d records\n", bad,
		       jobs->n);
	else
		printf("check-overlap: no node in two jobs at once "
		       "(%d records, %zu node uses)\n", jobs->n, nuse);
	free(use);
	return bad ? 1 : 0;
}

/* ---------------------------------------------------------------------- */
/* main                                                                   */
/* ---------------------------------------------------------------------- */

enum {
	OPT_JOBCOMP = 256, OPT_JSON, OPT_PICTURE, OPT_AT, OPT_PREDICT,
	OPT_STRATEGY, OPT_CURVE, OPT_BUSY, OPT_REQUIRED, OPT_CONTIGUOUS,
	OPT_CHECK_OVERLAP, OPT_PARTITION, OPT_NAME,
};

static const struct option _longopts[] = {
	{ "conf", required_argument, NULL, 'c' },
	{ "nodes", required_argument, NULL, 'n' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "jobcomp", no_argument, NULL, OPT_JOBCOMP },
	{ "name", no_argument, NULL, OPT_NAME },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "picture", no_argument, NULL, OPT_PICTURE },
	{ "at", required_argument, NULL, OPT_AT },
	{ "predict", no_argument, NULL, OPT_PREDICT },
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "curve", required_argument, NULL, OPT_CURVE },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "busy", required_argument, NULL, OPT_BUSY },
	{ "required", required_argument, NULL, OPT_REQUIRED },
	{ "contiguous", no_argument, NULL, OPT_CONTIGUOUS },
	{ "check-overlap", no_argument, NULL, OPT_CHECK_OVERLAP },
	{ NULL, 0, NULL, 0 },
};

static int _parse_k(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > INT_MAX)
		_die("-k: bad node count '%s'", s);
	return (int)v;
}

int main(int argc, char **argv)
{
	opts_t o;
	model_t mo;
	jobs_t jobs;
	int c, rc = 0;

	memset(&o, 0, sizeof(o));
	memset(&jobs, 0, sizeof(jobs));
	while ((c = getopt_long(argc, argv, "c:n:k:qh", _longopts,
				NULL)) != -1) {
		switch (c) {
		case 'c': o.conf_path = optarg; break;
		case 'n': o.nodes_expr = optarg; break;
		case 'k': o.k = _parse_k(optarg); break;
		case 'q': o.quiet = true; break;
		case 'h': _usage(stdout); return 0;
		case OPT_JOBCOMP: o.jobcomp = true; break;
		case OPT_NAME: o.use_name = true; break;
		case OPT_JSON: o.json = true; break;
		case OPT_PICTURE: o.picture = true; break;
		case OPT_AT: o.at = optarg; break;
		case OPT_PREDICT: o.predict = true; break;
		case OPT_STRATEGY: o.strategy = optarg; break;
		case OPT_CURVE: o.curve = optarg; break;
		case OPT_PARTITION: o.partition = optarg; break;
		case OPT_BUSY: o.busy = optarg; break;
		case OPT_REQUIRED: o.required = optarg; break;
		case OPT_CONTIGUOUS: o.contiguous = true; break;
		case OPT_CHECK_OVERLAP: o.check_overlap = true; break;
		default: _usage(stderr); return 2;
		}
	}

	if (o.predict) {
		if (optind < argc)
			_die("--predict takes no input files");
		if (!o.conf_path)
			_die("--predict needs --conf FILE");
		_model_load(&mo, &o);
		rc = _predict(&mo, &o);
		_model_free(&mo);
		return rc;
	}

	if (optind >= argc)
		_read_file("-", o.jobcomp, o.use_name, &jobs);
	for (int i = optind; i < argc; i++)
		_read_file(argv[i], o.jobcomp, o.use_name, &jobs);

	if (o.check_overlap) {
		rc = _check_overlap(&jobs);
		_jobs_free(&jobs);
		return rc;
	}

	if (!o.conf_path)
		_die("--conf FILE is required (the machine model)");
	_model_load(&mo, &o);
	{
		name_index_t ix;
		summary_t s;

		_index_build(&ix, &mo.names);
		_resolve_jobs(&mo, &ix, &jobs);
		_index_free(&ix);
		_summarise(&jobs, &s);
		if (o.json) {
			_print_json(&mo, &jobs, &s);
		} else {
			if (!o.quiet)
				_print_jobs(&mo, &jobs);
			_print_summary(&s);
		}
		if (o.picture)
			_print_picture(&mo, &jobs, o.at);
	}
	_model_free(&mo);
	_jobs_free(&jobs);
	return 0;
}
