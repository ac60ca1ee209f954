/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_rowfile.c - a replayed row as a versioned text file (rp_rowfile.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_rowfile.h"

#define POOL_PER_LINE 64

/* ===================================================================== */
/* Writing                                                               */
/* ===================================================================== */

static void _write_run(FILE *f, const rp_row_t *row)
{
	const rp_run_t *run = row->run;
	int pool = run->node_off[run->njobs];

	fprintf(f,
		"run %d %d %d %d %d %d %d %d %d %d %" PRId64 " %" PRId64
		" %" PRId64 "\n",
		run->njobs, run->nnodes, pool, run->nsnaps, row->ndecision,
		run->started, run->rejected_no_fit, run->pf_pairs,
		run->nbackfilled, run->deferrals, run->alloc_calls, run->events,
		run->decision_count);
	for (int j = 0; j < run->njobs; j++)
		fprintf(f, "job %d %" PRId64 " %" PRId64 " %d %" PRId64
			   " %d %d %d\n",
			j, run->start[j], run->end[j], (int)run->reject[j],
			run->first_shadow[j], run->pf_partner[j] ? 1 : 0,
			run->backfilled[j] ? 1 : 0, run->node_off[j]);
	for (int i = 0; i < pool; i += POOL_PER_LINE) {
		fprintf(f, "pool %d", i);
		for (int k = i; k < pool && k < i + POOL_PER_LINE; k++)
			fprintf(f, " %d", run->pool[k]);
		fputc('\n', f);
	}
	for (int s = 0; s < run->nsnaps; s++) {
		fprintf(f, "snap %d %" PRId64, s, run->snap_time[s]);
		for (int v = 0; v < run->nnodes; v++)
			fprintf(f, " %d", run->snap_owner[s][v]);
		fputc('\n', f);
	}
	for (int d = 0; d < row->ndecision; d++)
		fprintf(f, "decision %d %s %a %a\n", d, row->decision_name[d],
			run->decision_hops[d], row->decision_mean[d]);
	fprintf(f, "cpu %a\n", row->cpu_sec);
}

int rp_rowfile_write(const char *path, const char *plan_id,
		     const rp_row_t *row, int failure_code,
		     const char *failure_text, loc_error_t *err)
{
	char tmp[4096 + 8];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return loc_error_set(err, LOC_EIO, tmp, 0, "cannot write: %s",
				     strerror(errno));
	fprintf(f, "locality-advise-row %d\nplan %s\nname %s\n",
		RP_ROWFILE_VERSION, plan_id, row->name);
	if (failure_code) {
		char text[LOC_ERROR_TEXT_MAX];

		/* one line: the text is an error message */
		snprintf(text, sizeof(text), "%s", failure_text);
		for (char *c = text; *c; c++)
			if (*c == '\n')
				*c = ' ';
		fprintf(f, "failed %d %s\n", failure_code, text);
	} else {
		_write_run(f, row);
	}
	fprintf(f, "end\n");
	if (ferror(f) | fclose(f)) {
		remove(tmp);
		return loc_error_set(err, LOC_EIO, tmp, 0, "write failed");
	}
	if (rename(tmp, path))
		return loc_error_set(err, LOC_EIO, path, 0, "cannot rename %s: %s",
				     tmp, strerror(errno));
	return 0;
}

/* ===================================================================== */
/* Reading                                                               */
/* ===================================================================== */

typedef struct reader {
	FILE *f;
	const char *path;
	int line;
	char *buf;
	size_t cap;
	char *at;       /* the next token of the current line */
	loc_error_t *err;
} reader_t;

static int _bad(reader_t *rd, const char *what)
{
	return loc_error_set(rd->err, LOC_EPARSE, rd->path, rd->line,
			     "not a row file of this run: %s", what);
}

/* Reads the next line, which must start with the word key (NULL: any). */
static int _line(reader_t *rd, const char *key)
{
	size_t klen = key ? strlen(key) : 0;
	ssize_t n;

	n = getline(&rd->buf, &rd->cap, rd->f);
	rd->line++;
	if (n < 0) {
		char what[96];

		snprintf(what, sizeof(what), "ends before '%s'",
			 key ? key : "end");
		return _bad(rd, what);
	}
	if (n > 0 && rd->buf[n - 1] == '\n')
		rd->buf[n - 1] = '\0';
	if (key && (strncmp(rd->buf, key, klen) ||
		    (rd->buf[klen] != ' ' && rd->buf[klen] != '\0'))) {
		char what[96];

		snprintf(what, sizeof(what), "expected '%s'", key);
		return _bad(rd, what);
	}
	rd->at = rd->buf + klen;
	return 0;
}

/* The next integer of the line, within [lo, hi]. */
static int _i64(reader_t *rd, int64_t lo, int64_t hi, int64_t *v)
{
	char *end;
	long long x;

	if (*rd->at != ' ')
		return _bad(rd, "a number is missing");
	errno = 0;
	x = strtoll(rd->at + 1, &end, 10);
	if (end == rd->at + 1 || errno || x < lo || x > hi ||
	    (*end != ' ' && *end != '\0'))
		return _bad(rd, "a number is malformed or out of range");
	rd->at = end;
	*v = x;
	return 0;
}

static int _int(reader_t *rd, int64_t lo, int64_t hi, int *v)
{
	int64_t x;
	int rc = _i64(rd, lo, hi, &x);

	*v = (int)x;
	return rc;
}

/* The next number must be exactly want (an index or a count). */
static int _expect(reader_t *rd, int64_t want, const char *what)
{
	int64_t x;

	if (_i64(rd, INT64_MIN, INT64_MAX, &x))
		return LOC_EPARSE;
	if (x != want) {
		char text[160];

		snprintf(text, sizeof(text), "%s is %lld, expected %lld", what,
			 (long long)x, (long long)want);
		return _bad(rd, text);
	}
	return 0;
}

static int _double(reader_t *rd, double *v)
{
	char *end;

	if (*rd->at != ' ')
		return _bad(rd, "a number is missing");
	*v = strtod(rd->at + 1, &end);
	if (end == rd->at + 1 || (*end != ' ' && *end != '\0'))
		return _bad(rd, "a number is malformed");
	rd->at = end;
	return 0;
}

static int _eol(reader_t *rd)
{
	return *rd->at ? _bad(rd, "extra text at the end of the line") : 0;
}

static int _read_jobs(reader_t *rd, rp_run_t *run, int pool)
{
	for (int j = 0; j < run->njobs; j++) {
		int reject, pf, bf;

		if (_line(rd, "job") || _expect(rd, j, "the job index") ||
		    _i64(rd, -1, INT64_MAX, &run->start[j]) ||
		    _i64(rd, -1, INT64_MAX, &run->end[j]) ||
		    _int(rd, 0, RP_REJECT_COUNT - 1, &reject) ||
		    _i64(rd, INT64_MIN, INT64_MAX, &run->first_shadow[j]) ||
		    _int(rd, 0, 1, &pf) || _int(rd, 0, 1, &bf) ||
		    _int(rd, 0, pool, &run->node_off[j]) || _eol(rd))
			return LOC_EPARSE;
		if (j && run->node_off[j] < run->node_off[j - 1])
			return _bad(rd, "node offsets must ascend");
		run->reject[j] = (rp_reject_t)reject;
		run->pf_partner[j] = pf;
		run->backfilled[j] = bf;
	}
	run->node_off[run->njobs] = pool;
	for (int i = 0; i < pool; i += POOL_PER_LINE) {
		if (_line(rd, "pool") || _expect(rd, i, "the pool index"))
			return LOC_EPARSE;
		for (int k = i; k < pool && k < i + POOL_PER_LINE; k++)
			if (_int(rd, 0, run->nnodes - 1, &run->pool[k]))
				return LOC_EPARSE;
		if (_eol(rd))
			return LOC_EPARSE;
	}
	return 0;
}

static int _read_rest(reader_t *rd, const rp_rowfile_expect_t *ex,
		      rp_row_t *row, rp_run_t *run)
{
	for (int s = 0; s < ex->nsnaps; s++) {
		if (_line(rd, "snap") || _expect(rd, s, "the snapshot index") ||
		    _i64(rd, INT64_MIN, INT64_MAX, &run->snap_time[s]))
			return LOC_EPARSE;
		for (int v = 0; v < ex->nnodes; v++)
			if (_int(rd, -1, ex->njobs - 1, &run->snap_owner[s][v]))
				return LOC_EPARSE;
		if (_eol(rd))
			return LOC_EPARSE;
	}
	if (ex->ndecision) {
		row->decision_name =
			calloc(ex->ndecision, sizeof(*row->decision_name));
		row->decision_mean = calloc(ex->ndecision, sizeof(double));
		if (!row->decision_name || !row->decision_mean)
			return loc_error_set(rd->err, LOC_ENOMEM, NULL, 0,
					     "out of memory");
		row->ndecision = ex->ndecision;
	}
	for (int d = 0; d < ex->ndecision; d++) {
		char *name, *sp;

		if (_line(rd, "decision") ||
		    _expect(rd, d, "the decision index"))
			return LOC_EPARSE;
		name = rd->at + 1;
		sp = strchr(name, ' ');
		if (*rd->at != ' ' || !sp || sp == name ||
		    sp - name >= (ptrdiff_t)sizeof(row->decision_name[0]))
			return _bad(rd, "a decision strategy name is missing");
		snprintf(row->decision_name[d], sizeof(row->decision_name[0]),
			 "%.*s", (int)(sp - name), name);
		rd->at = sp;
		if (_double(rd, &run->decision_hops[d]) ||
		    _double(rd, &row->decision_mean[d]) || _eol(rd))
			return LOC_EPARSE;
	}
	if (_line(rd, "cpu") || _double(rd, &row->cpu_sec) || _eol(rd))
		return LOC_EPARSE;
	return 0;
}

/* The "run" line onwards: the replay's result. */
static int _read_run(reader_t *rd, const rp_rowfile_expect_t *ex,
		     rp_row_t *row)
{
	int pool, rc;
	int64_t counters[8];
	rp_run_t *run;

	/* the counts first: the file must be of this workload and options */
	if (_expect(rd, ex->njobs, "the job count") ||
	    _expect(rd, ex->nnodes, "the node count") ||
	    _int(rd, 0, INT32_MAX, &pool) ||
	    _expect(rd, ex->nsnaps, "the snapshot count") ||
	    _expect(rd, ex->ndecision, "the decision count"))
		return LOC_EPARSE;
	for (int i = 0; i < 8; i++)
		if (_i64(rd, 0, INT64_MAX, &counters[i]))
			return LOC_EPARSE;
	if (_eol(rd))
		return LOC_EPARSE;
	run = rp_run_alloc(ex->njobs, ex->nnodes, ex->nsnaps, ex->ndecision,
			   pool);
	if (!run)
		return loc_error_set(rd->err, LOC_ENOMEM, NULL, 0,
				     "out of memory");
	row->run = run;
	run->started = (int)counters[0];
	run->rejected_no_fit = (int)counters[1];
	run->pf_pairs = (int)counters[2];
	run->nbackfilled = (int)counters[3];
	run->deferrals = (int)counters[4];
	run->alloc_calls = counters[5];
	run->events = counters[6];
	run->decision_count = counters[7];
	rc = _read_jobs(rd, run, pool);
	return rc ? rc : _read_rest(rd, ex, row, run);
}

int rp_rowfile_read(const char *path, const rp_rowfile_expect_t *ex,
		    rp_row_t *row, int *failure_code, char *failure_text,
		    size_t failure_len, loc_error_t *err)
{
	reader_t rd = { .path = path, .err = err };
	int rc;

	*failure_code = 0;
	rd.f = fopen(path, "r");
	if (!rd.f)
		return loc_error_set(err, LOC_EIO, path, 0, "cannot read: %s",
				     strerror(errno));
	if ((rc = _line(&rd, "locality-advise-row")) ||
	    (rc = _expect(&rd, RP_ROWFILE_VERSION, "the format version")) ||
	    (rc = _eol(&rd)) || (rc = _line(&rd, "plan")))
		goto out;
	if (*rd.at != ' ' || strcmp(rd.at + 1, ex->plan_id)) {
		rc = _bad(&rd, "written for another plan (other arguments)");
		goto out;
	}
	if ((rc = _line(&rd, "name")))
		goto out;
	if (strcmp(rd.at + (*rd.at == ' '), ex->name)) {
		rc = _bad(&rd, "the row name differs");
		goto out;
	}
	/* then the failure or the result */
	if ((rc = _line(&rd, NULL)))
		goto out;
	if (!strncmp(rd.buf, "failed ", 7)) {
		char *end;
		long code = strtol(rd.buf + 7, &end, 10);

		if (end == rd.buf + 7 || code == 0 || *end != ' ') {
			rc = _bad(&rd, "a failure without a code");
			goto out;
		}
		*failure_code = (int)code;
		snprintf(failure_text, failure_len, "%s", end + 1);
	} else if (!strncmp(rd.buf, "run ", 4)) {
		rd.at = rd.buf + 3;
		if ((rc = _read_run(&rd, ex, row)))
			goto out;
	} else {
		rc = _bad(&rd, "expected 'run' or 'failed'");
		goto out;
	}
	rc = _line(&rd, "end");
	if (!rc && getline(&rd.buf, &rd.cap, rd.f) >= 0) {
		rd.line++;
		rc = _bad(&rd, "text after 'end'");
	}
out:
	free(rd.buf);
	fclose(rd.f);
	if (rc) {
		rp_run_destroy(row->run);
		row->run = NULL;
	}
	return rc;
}
