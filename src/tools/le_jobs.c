/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le_jobs.c - locality-eval: job records (plain or jobcomp lines), their
 * node indices and metrics, and the per-job, summary and JSON reports.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "le.h"

/* ---------------------------------------------------------------------- */
/* Job records                                                            */
/* ---------------------------------------------------------------------- */

static job_t *_jobs_add(jobs_t *jobs)
{
	if (jobs->n == jobs->cap) {
		int cap = jobs->cap ? 2 * jobs->cap : 64;
		job_t *v = realloc(jobs->v, (size_t)cap * sizeof(*v));

		if (!v)
			le_die("out of memory");
		jobs->v = v;
		jobs->cap = cap;
	}
	memset(&jobs->v[jobs->n], 0, sizeof(job_t));
	return &jobs->v[jobs->n++];
}

void le_jobs_free(jobs_t *jobs)
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
int64_t le_parse_time(const char *text)
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

bool le_empty_nodelist(const char *s)
{
	return !s || !*s || !strcmp(s, "(null)") ||
	       !strcasecmp(s, "None") || !strncmp(s, "None ", 5);
}

void le_set_nodes(job_t *j, const char *expr, const char *file, int line)
{
	loc_hostlist_t hl;
	loc_error_t err;

	loc_error_clear(&err);
	if (loc_hostlist_expand(expr, &hl, &err))
		le_die("%s:%d: bad node list '%s': %s", file, line, expr,
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
		le_die("%s:%d: jobcomp record without JobId=", file, lineno);
	if (le_empty_nodelist(nl))
		return false;
	j->id = le_xstrdup(use_name && name && *name ? name : id);
	j->start = le_parse_time(st);
	j->end = le_parse_time(et);
	le_set_nodes(j, nl, file, lineno);
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
		le_die("%s:%d: expected 'jobid nodelist [start end]', "
		     "got %d fields", file, lineno, n);
	j->id = le_xstrdup(f[0]);
	j->start = j->end = NO_TIME;
	if (n == 4) {
		j->start = le_parse_time(f[2]);
		j->end = le_parse_time(f[3]);
		if (j->start == NO_TIME || j->end == NO_TIME)
			le_die("%s:%d: bad start/end time '%s %s'", file, lineno,
			     f[2], f[3]);
	}
	le_set_nodes(j, f[1], file, lineno);
}

void le_read_file(const char *path, bool force_jobcomp, bool use_name,
		       jobs_t *jobs)
{
	FILE *f = stdin;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	const char *name = path;
	le_sacct_cols_t cols;
	bool sacct_seen = false;

	if (strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f)
			le_die("%s: %s", path, strerror(errno));
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
		/* sacct -P output: its first line may name the columns. */
		if (!force_jobcomp && strchr(p, '|') && !sacct_seen) {
			char *copy = le_xstrdup(p);
			bool header = le_sacct_header(copy, &cols);

			free(copy);
			sacct_seen = true;
			if (header)
				continue;
			le_sacct_default_cols(&cols);
		}
		j = _jobs_add(jobs);
		j->file = name;
		j->line = lineno;
		if (!force_jobcomp && strchr(p, '|')) {
			if (!le_parse_sacct(p, &cols, j, name, lineno))
				jobs->n--; /* a step, or never ran */
		} else if (force_jobcomp || !strncmp(p, "JobId=", 6)) {
			if (!_parse_jobcomp(p, j, use_name, name, lineno))
				jobs->n--; /* never ran: not a placement */
		} else {
			_parse_plain(p, j, name, lineno);
		}
	}
	if (ferror(f))
		le_die("%s: read error", name);
	free(line);
	if (f != stdin)
		fclose(f);
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
		int node = le_index_find(ix, j->names[n]);

		if (node == LOC_NONE)
			bad = j->names[n];
		else if (seen[node])
			bad = j->names[n], twice = 1;
		else
			seen[node] = 1;
	}
	for (int m = 0; m < n; m++) {
		int node = le_index_find(ix, j->names[m]);

		if (node != LOC_NONE)
			seen[node] = 0;
	}
	if (!bad)
		return;
	free(seen);
	if (twice)
		le_die("%s:%d: job %s: node '%s' listed twice", j->file, j->line,
		     j->id, bad);
	le_die("%s:%d: job %s: unknown node '%s'", j->file, j->line, j->id,
	     bad);
}

/* Resolves every job's names to sorted node indices and computes metrics. */
void le_resolve_jobs(const model_t *mo, const name_index_t *ix,
			  jobs_t *jobs)
{
	int nn = loc_grid_nnodes(mo->grid);
	uint8_t *seen = le_xcalloc((size_t)nn, 1);

	for (int i = 0; i < jobs->n; i++) {
		job_t *j = &jobs->v[i];
		int rc;

		_check_job_names(ix, j, seen);
		j->nodes = le_xcalloc((size_t)j->k, sizeof(int));
		for (int n = 0; n < j->k; n++)
			j->nodes[n] = le_index_find(ix, j->names[n]);
		qsort(j->nodes, (size_t)j->k, sizeof(int), _cmp_int);
		rc = loc_metrics_compute(mo->grid, mo->curve, j->nodes, j->k,
					 &j->m);
		if (rc)
			le_die("%s:%d: job %s: metrics failed: %s", j->file,
			     j->line, j->id, loc_strerror(rc));
	}
	free(seen);
}


/* ---------------------------------------------------------------------- */
/* Reports                                                                */
/* ---------------------------------------------------------------------- */


void le_summarise(const jobs_t *jobs, summary_t *s)
{
	double *h = le_xcalloc((size_t)jobs->n, sizeof(double));
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

void le_print_jobs(const model_t *mo, const jobs_t *jobs)
{
	printf("%-10s %4s %8s %5s %5s %5s  %s\n", "job", "k", "avg_hops",
	       "span", "bbox", "comps", "nodes");
	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];
		char *hl = le_compress(mo, j->nodes, j->k);

		printf("%-10s %4d %8.3f %5d %5lld %5d  %s\n", j->id, j->k,
		       j->m.avg_pair_hops, j->m.linear_span,
		       (long long)j->m.bbox_volume, j->m.components, hl);
		free(hl);
	}
}

void le_print_summary(const summary_t *s)
{
	printf("summary: jobs=%d multinode=%d mean_avg_hops=%.3f "
	       "median_avg_hops=%.3f p95_avg_hops=%.3f max_avg_hops=%.3f "
	       "mean_components=%.3f mean_span=%.2f mean_bbox=%.2f\n",
	       s->jobs, s->multinode, s->mean_hops, s->median_hops,
	       s->p95_hops, s->max_hops, s->mean_components, s->mean_span,
	       s->mean_bbox);
}

void le_print_json(const model_t *mo, const jobs_t *jobs,
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
		char *hl = le_compress(mo, j->nodes, j->k);

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
