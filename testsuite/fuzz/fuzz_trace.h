/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_trace.h - the body shared by fuzz_swf.c and fuzz_sacct.c: parse
 * arbitrary bytes with loc_trace_parse() as one format, then check what
 * loc_trace.h promises:
 *  - every record is a job or counted under one skip reason, with the
 *    first line it happened on; physical lines add up;
 *  - every job is usable by the simulator: id set and unique, nodes and
 *    procs >= 1, runtime >= 0, indices into the name tables in range,
 *    recorded nodes distinct, jobs in file order;
 *  - strict mode fails exactly when the lenient parse counted a bad
 *    line, on the first such line, and otherwise gives the same trace.
 * The options (processors per node, sacct nodes from CPUs) follow the
 * input length so that each input has one fixed meaning.
 */
#ifndef LOC_FUZZ_TRACE_H
#define LOC_FUZZ_TRACE_H

#include "fuzz_util.h"
#include "loc_trace.h"

static int _fuzz_idcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void _fuzz_check_trace(const loc_trace_t *t, loc_trace_format_t fmt,
			      int max_lines)
{
	int bad = 0, prev_line = 0;
	const char **ids;

	FUZZ_CHECK(t->format == fmt, "format %d", (int)t->format);
	FUZZ_CHECK(t->njobs >= 0 && t->njobs <= t->records, "njobs %d",
		   t->njobs);
	FUZZ_CHECK(t->records == t->njobs + loc_trace_skipped_total(t),
		   "records %d != jobs %d + skipped %d", t->records, t->njobs,
		   loc_trace_skipped_total(t));
	FUZZ_CHECK(t->lines <= max_lines, "%d lines counted in %d", t->lines,
		   max_lines);
	if (fmt == LOC_TRACE_SWF)
		FUZZ_CHECK(t->lines == t->comment_lines + t->records,
			   "SWF lines %d != comments %d + records %d",
			   t->lines, t->comment_lines, t->records);
	else
		FUZZ_CHECK(t->lines >= t->comment_lines + t->records,
			   "sacct lines %d < comments %d + records %d",
			   t->lines, t->comment_lines, t->records);
	for (int r = 0; r < LOC_SKIP_COUNT; r++) {
		FUZZ_CHECK((t->skipped[r] > 0) == (t->skip_first_line[r] > 0),
			   "reason %s: %d skipped, first line %d",
			   loc_trace_skip_name(r), t->skipped[r],
			   t->skip_first_line[r]);
		FUZZ_CHECK(t->skip_first_line[r] <= t->lines,
			   "reason %s on line %d of %d",
			   loc_trace_skip_name(r), t->skip_first_line[r],
			   t->lines);
		bad += loc_trace_skip_bad(r) ? t->skipped[r] : 0;
	}
	(void)bad;
	FUZZ_CHECK(t->no_request + t->over_request <= t->njobs,
		   "request counts");
	ids = malloc(sizeof(*ids) * (t->njobs ? t->njobs : 1));
	FUZZ_CHECK(ids, "out of memory");
	for (int i = 0; i < t->njobs; i++) {
		const loc_trace_job_t *j = &t->jobs[i];

		FUZZ_CHECK(memchr(j->id, '\0', sizeof(j->id)) && j->id[0],
			   "job %d id", i);
		FUZZ_CHECK(j->line > prev_line && j->line <= t->lines,
			   "job %s on line %d after %d", j->id, j->line,
			   prev_line);
		prev_line = j->line;
		FUZZ_CHECK(j->nodes >= 1 && j->procs >= 1,
			   "job %s: %d nodes %lld procs", j->id, j->nodes,
			   (long long)j->procs);
		FUZZ_CHECK(j->runtime >= 0 && j->submit >= 0,
			   "job %s: runtime %lld submit %lld", j->id,
			   (long long)j->runtime, (long long)j->submit);
		FUZZ_CHECK(j->requested == LOC_TRACE_UNKNOWN ||
				   j->requested >= 0,
			   "job %s: request %lld", j->id,
			   (long long)j->requested);
		FUZZ_CHECK(j->partition >= -1 && j->partition < t->npartitions,
			   "job %s: partition %d of %d", j->id, j->partition,
			   t->npartitions);
		FUZZ_CHECK(j->nrec >= 0 && (!j->nrec || j->rec_nodes),
			   "job %s: nrec %d", j->id, j->nrec);
		for (int k = 0; k < j->nrec; k++) {
			FUZZ_CHECK(j->rec_nodes[k] >= 0 &&
					   j->rec_nodes[k] < t->nnode_names,
				   "job %s: node index %d of %d", j->id,
				   j->rec_nodes[k], t->nnode_names);
			for (int q = 0; q < k; q++)
				FUZZ_CHECK(j->rec_nodes[q] != j->rec_nodes[k],
					   "job %s: node %s twice", j->id,
					   t->node_names[j->rec_nodes[k]]);
		}
		ids[i] = j->id;
	}
	qsort(ids, t->njobs, sizeof(*ids), _fuzz_idcmp);
	for (int i = 1; i < t->njobs; i++)
		FUZZ_CHECK(strcmp(ids[i - 1], ids[i]), "job id %s twice",
			   ids[i]);
	free(ids);
	for (int i = 0; i < t->nnode_names; i++)
		FUZZ_CHECK(t->node_names[i], "node name %d", i);
	for (int i = 0; i < t->npartitions; i++)
		FUZZ_CHECK(t->partitions[i], "partition %d", i);
}

/* Returns the first line a bad reason was counted on, 0 when none. */
static int _fuzz_first_bad(const loc_trace_t *t)
{
	int first = 0;

	for (int r = 0; r < LOC_SKIP_COUNT; r++)
		if (loc_trace_skip_bad(r) && t->skipped[r] &&
		    (!first || t->skip_first_line[r] < first))
			first = t->skip_first_line[r];
	return first;
}

static void _fuzz_trace(const uint8_t *data, size_t size,
			loc_trace_format_t fmt)
{
	static const double ppn[4] = { 1.0, 4.0, 0.5, 24.0 };
	loc_trace_opts_t opts;
	loc_trace_t *t, *s;
	loc_error_t err, serr;
	int max_lines = 1, first_bad;

	loc_trace_opts_init(&opts);
	opts.format = fmt;
	opts.procs_per_node = ppn[size % 4];
	opts.sacct_nodes_from_cpus = (size / 4) % 2;
	for (size_t i = 0; i < size; i++)
		max_lines += data[i] == '\n';

	loc_error_clear(&err);
	t = loc_trace_parse((const char *)data, size, "fuzz.trace", &opts,
			    &err);
	opts.strict = true;
	loc_error_clear(&serr);
	s = loc_trace_parse((const char *)data, size, "fuzz.trace", &opts,
			    &serr);
	if (!t) {
		/* Lenient SWF reading cannot fail; sacct fails on a header
		 * without the columns it needs, and strict fails too. */
		fuzz_check_error(&err, err.code);
		FUZZ_CHECK(fmt == LOC_TRACE_SACCT || err.code == LOC_ENOMEM,
			   "lenient SWF failed: %s", err.text);
		FUZZ_CHECK(!s, "strict read what lenient refused");
		fuzz_check_error(&serr, serr.code);
		return;
	}
	_fuzz_check_trace(t, fmt, max_lines);
	first_bad = _fuzz_first_bad(t);
	if (first_bad) {
		FUZZ_CHECK(!s, "strict accepted a bad line (line %d)",
			   first_bad);
		fuzz_check_error(&serr, serr.code);
		FUZZ_CHECK(serr.code == LOC_EPARSE, "strict code %d",
			   serr.code);
		FUZZ_CHECK(serr.line == first_bad,
			   "strict failed on line %d, first bad line is %d: %s",
			   serr.line, first_bad, serr.text);
		FUZZ_CHECK(!strcmp(serr.file, "fuzz.trace"), "file '%s'",
			   serr.file);
	} else {
		FUZZ_CHECK(s, "strict failed without a bad line: line %d: %s",
			   serr.line, serr.text);
		FUZZ_CHECK(s->njobs == t->njobs && s->records == t->records &&
				   !memcmp(s->skipped, t->skipped,
					   sizeof(t->skipped)),
			   "strict and lenient differ");
		for (int i = 0; i < t->njobs; i++)
			FUZZ_CHECK(!strcmp(s->jobs[i].id, t->jobs[i].id) &&
					   s->jobs[i].nodes == t->jobs[i].nodes,
				   "job %d differs", i);
	}
	if (!loc_trace_scale(t, 2.0))
		for (int i = 0; i < t->njobs; i++)
			FUZZ_CHECK(t->jobs[i].nodes >= 1 &&
					   t->jobs[i].nodes ==
						   (t->jobs[i].procs + 1) / 2,
				   "scaled job %s: %d nodes for %lld procs",
				   t->jobs[i].id, t->jobs[i].nodes,
				   (long long)t->jobs[i].procs);
	loc_trace_destroy(s);
	loc_trace_destroy(t);
}

#endif /* LOC_FUZZ_TRACE_H */
