/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le_sacct.c - jobs read from `sacct -P` output (fields separated by '|'),
 * and the placement records the plugins leave in AdminComment or
 * SystemComment (loc_record.h) checked against each job's NodeList.
 *
 * Columns come from a header line (sacct without -n) naming JobID and
 * NodeList, and optionally AdminComment, SystemComment, Start and End;
 * without one they are JobID|NodeList|COMMENT, the third field read for a
 * record. Steps (IDs with a '.') share their job's nodes and are skipped,
 * as are jobs that never ran.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "le.h"

#define MAX_FIELDS 64

/* Splits line at '|' into at most MAX_FIELDS fields; strips the end of
 * line from the last one. Returns how many. */
static int _split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	f[n++] = line;
	for (char *p = line; (p = strchr(p, '|')) && n < MAX_FIELDS; p++) {
		*p = '\0';
		f[n++] = p + 1;
	}
	return n;
}

bool le_sacct_header(char *line, le_sacct_cols_t *cols)
{
	char *f[MAX_FIELDS];
	int n = _split(line, f);

	if (strcasecmp(f[0], "JobID"))
		return false;
	cols->id = 0;
	cols->nodes = cols->comment[0] = cols->comment[1] = -1;
	cols->start = cols->end = -1;
	for (int i = 1; i < n; i++) {
		if (!strcasecmp(f[i], "NodeList"))
			cols->nodes = i;
		else if (!strcasecmp(f[i], "AdminComment"))
			cols->comment[0] = i;
		else if (!strcasecmp(f[i], "SystemComment"))
			cols->comment[1] = i;
		else if (!strcasecmp(f[i], "Start"))
			cols->start = i;
		else if (!strcasecmp(f[i], "End"))
			cols->end = i;
	}
	return true;
}

void le_sacct_default_cols(le_sacct_cols_t *cols)
{
	*cols = (le_sacct_cols_t){ .id = 0, .nodes = 1, .comment = { 2, -1 },
				   .start = -1, .end = -1 };
}

bool le_parse_sacct(char *line, const le_sacct_cols_t *cols, job_t *j,
		    const char *file, int lineno)
{
	char *f[MAX_FIELDS];
	int n = _split(line, f);
	const char *id, *nodes;

	if (cols->nodes < 0)
		le_die("%s:%d: the sacct header names no NodeList column",
		       file, lineno);
	if (n <= cols->nodes)
		le_die("%s:%d: expected a NodeList in field %d of 'JobID|"
		       "NodeList|AdminComment', got %d fields",
		       file, lineno, cols->nodes + 1, n);
	id = f[cols->id];
	nodes = f[cols->nodes];
	if (!*id)
		le_die("%s:%d: sacct line without a JobID", file, lineno);
	if (strchr(id, '.') || le_empty_nodelist(nodes))
		return false;
	j->id = le_xstrdup(id);
	j->start = j->end = NO_TIME;
	if (cols->start >= 0 && cols->start < n)
		j->start = le_parse_time(f[cols->start]);
	if (cols->end >= 0 && cols->end < n)
		j->end = le_parse_time(f[cols->end]);
	for (int c = 0; c < 2 && !j->has_record; c++) {
		int col = cols->comment[c];

		if (col < 0 || col >= n)
			continue;
		j->has_record = loc_record_parse(f[col], &j->record);
		if (j->has_record < 0)
			le_die("%s:%d: job %s: malformed locality record in "
			       "'%s'", file, lineno, id, f[col]);
	}
	le_set_nodes(j, nodes, file, lineno);
	return true;
}

/* A record agrees with the NodeList when it names as many nodes and the
 * same mean hops, to the 3 decimals it is written with. */
static bool _agrees(const job_t *j)
{
	return j->record.nodes == j->k &&
	       fabs(j->record.hops - j->m.avg_pair_hops) < 0.0006;
}

void le_print_records(const jobs_t *jobs)
{
	double hops = 0, ideal = 0, ratio = 0;
	int n = 0, multi = 0, differ = 0;

	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];

		if (j->has_record != 1)
			continue;
		n++;
		if (!_agrees(j)) {
			differ++;
			fprintf(stderr,
				PROG ": %s:%d: job %s: its record says "
				     "nodes=%d hops=%.3f, its NodeList gives "
				     "nodes=%d hops=%.3f\n",
				j->file, j->line, j->id, j->record.nodes,
				j->record.hops, j->k, j->m.avg_pair_hops);
		}
		if (j->record.nodes >= 2 && j->record.ideal > 0) {
			multi++;
			hops += j->record.hops;
			ideal += j->record.ideal;
			ratio += j->record.hops / j->record.ideal;
		}
	}
	if (!n)
		return;
	printf("records: jobs=%d multinode=%d mean_hops=%.3f "
	       "mean_ideal=%.3f x_ideal=%.3f disagree=%d\n",
	       n, multi, multi ? hops / multi : 0, multi ? ideal / multi : 0,
	       multi ? ratio / multi : 0, differ);
}
