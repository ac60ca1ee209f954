/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace_sacct.c - the `sacct --parsable2` reader: lines into records,
 * records into jobs.
 *
 * The header line names the columns. Two traps in real exports:
 *  - free-text fields (JobName, Constraints "a|b", SubmitLine "x | y")
 *    may contain the '|' separator itself;
 *  - SubmitLine (and comments) may contain newlines, so one record spans
 *    several physical lines.
 * Records are therefore assembled by counting separators: physical lines
 * are joined until the record holds at least ncols-1 of them. Extra
 * separators are given to the free-text columns; every way of doing so is
 * tried and kept only when the typed columns (ids, times, durations,
 * counts, state) all read back; if the valid ways disagree on a field we
 * use, the record is ambiguous and skipped (loc_trace_sacct_cols.c). A
 * joined record that fails is taken apart again: its first line is
 * counted as truncated and reading resumes on the next line, so one
 * broken line never swallows a good one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loc_hostlist.h"
#include "loc_trace_internal.h"

static bool _has(sacct_t *p, int role)
{
	return p->role[role] >= 0 && p->cl[p->role[role]] > 0;
}

/* Returns the trimmed, NUL-terminated text of role (scratch; valid until
 * the next call), or "" when the column is absent. */
static const char *_get(sacct_t *p, int role)
{
	const char *s;
	size_t l;

	if (p->role[role] < 0)
		return "";
	s = p->cs[p->role[role]];
	l = p->cl[p->role[role]];
	loc__sacct_trim(&s, &l);
	return loc__sacct_cstr(p, s, l);
}

static int64_t _get_int(sacct_t *p, int role)
{
	const char *s = _get(p, role);
	int64_t v = 0;

	/* ReqNodes may read "2-4": the leading number counts */
	while (*s >= '0' && *s <= '9' && v < LOC__TRACE_MAX_PROCS * 16)
		v = v * 10 + (*s++ - '0');
	return v;
}

/* The first of three roles that has a value, as a count (0 if none). */
static int64_t _first_int(sacct_t *p, int a, int b, int c)
{
	if (_has(p, a))
		return _get_int(p, a);
	if (_has(p, b))
		return _get_int(p, b);
	return _has(p, c) ? _get_int(p, c) : 0;
}

static int _status(const char *state)
{
	if (!strncmp(state, "COMPLETED", 9))
		return 1;
	if (!strncmp(state, "CANCELLED", 9))
		return 5;
	if (!strncmp(state, "FAILED", 6) || !strncmp(state, "TIMEOUT", 7) ||
	    !strncmp(state, "NODE_FAIL", 9) ||
	    !strncmp(state, "OUT_OF_MEMORY", 13) ||
	    !strncmp(state, "BOOT_FAIL", 9) || !strncmp(state, "DEADLINE", 8) ||
	    !strncmp(state, "PREEMPTED", 9))
		return 0;
	return -1;
}

/* Turns a resolved record into a job, or a skip. */
static int _record(sacct_t *p)
{
	loc__trace_build_t *b = p->b;
	loc_trace_t *t = b->t;
	char id[LOC_TRACE_ID_MAX], state[32];
	int64_t submit, start, end, req = LOC_TRACE_UNKNOWN, procs, v;
	int nodes = 0, jid;
	loc_hostlist_t hl = { 0 };
	bool added;
	loc_trace_job_t *j;
	const char *s;
	loc_error_t herr;

	s = _get(p, R_JOBID);
	if (!s)
		return LOC_ENOMEM;
	if (!*s)
		return loc__trace_skip(b, LOC_SKIP_TRUNCATED, p->line,
				       "empty JobID");
	if (strlen(s) >= sizeof(id))
		return loc__trace_skip(b, LOC_SKIP_RANGE, p->line, "JobID");
	snprintf(id, sizeof(id), "%s", s);
	if (strchr(id, '.'))
		return loc__trace_skip(b, LOC_SKIP_STEP, p->line, NULL);
	snprintf(state, sizeof(state), "%s", _get(p, R_STATE));

	if (loc_trace_parse_time(_get(p, R_SUBMIT), &submit) ||
	    submit == LOC_TRACE_UNKNOWN)
		return loc__trace_skip(b, LOC_SKIP_BAD_TIME, p->line, "Submit");
	if (loc_trace_parse_time(_get(p, R_START), &start))
		return loc__trace_skip(b, LOC_SKIP_BAD_TIME, p->line, "Start");
	if (loc_trace_parse_time(_get(p, R_END), &end))
		return loc__trace_skip(b, LOC_SKIP_BAD_TIME, p->line, "End");
	if (start == LOC_TRACE_UNKNOWN || !strncmp(state, "PENDING", 7))
		return loc__trace_skip(b, LOC_SKIP_NOT_STARTED, p->line, NULL);
	if (end == LOC_TRACE_UNKNOWN || !strncmp(state, "RUNNING", 7))
		return loc__trace_skip(b, LOC_SKIP_NOT_ENDED, p->line, NULL);
	if (submit < 0 || end < start)
		return loc__trace_skip(b, LOC_SKIP_NEGATIVE_TIME, p->line,
				       "End before Start");
	if (p->role[R_TIMELIMIT] >= 0 && _has(p, R_TIMELIMIT)) {
		if (loc_trace_parse_duration(_get(p, R_TIMELIMIT), &req))
			return loc__trace_skip(b, LOC_SKIP_BAD_TIME, p->line,
					       "Timelimit");
	} else if (_has(p, R_TIMELIMITRAW)) {
		s = _get(p, R_TIMELIMITRAW);
		if (!loc__parse_int(s, strlen(s), &v) && v > 0 &&
		    v < LOC__TRACE_MAX_TIME / 60)
			req = v * 60;
	}
	if (req == 0)
		req = LOC_TRACE_UNKNOWN;

	procs = _first_int(p, R_NCPUS, R_ALLOCCPUS, R_REQCPUS);
	if (procs > LOC__TRACE_MAX_PROCS)
		return loc__trace_skip(b, LOC_SKIP_RANGE, p->line, "CPU count");

	s = _get(p, R_NODELIST);
	if (*s && strcasecmp(s, "None assigned") && strcasecmp(s, "None") &&
	    strcasecmp(s, "(null)")) {
		if (loc_hostlist_expand(s, &hl, &herr))
			return loc__trace_skip(b, LOC_SKIP_BAD_NODELIST,
					       p->line, herr.text);
	}
	if (b->opts->sacct_nodes_from_cpus && procs > 0) {
		nodes = loc__trace_nodes(procs, b->opts->procs_per_node);
	} else {
		int64_t n = hl.count ? hl.count :
				       _first_int(p, R_ALLOCNODES, R_NNODES,
						  R_REQNODES);

		if (n > LOC__TRACE_MAX_NODES) {
			loc_hostlist_free(&hl);
			return loc__trace_skip(b, LOC_SKIP_RANGE, p->line,
					       "node count");
		}
		nodes = (int)n;
	}
	if (nodes < 1) {
		loc_hostlist_free(&hl);
		return loc__trace_skip(b, LOC_SKIP_NO_SIZE, p->line, NULL);
	}
	jid = loc__strtab_intern(&b->id_tab, id, strlen(id), &added);
	if (jid < 0) {
		loc_hostlist_free(&hl);
		return LOC_ENOMEM;
	}
	if (!added) {
		loc_hostlist_free(&hl);
		return loc__trace_skip(b, LOC_SKIP_DUPLICATE, p->line, id);
	}

	j = loc__trace_add_job(b, p->line);
	if (!j) {
		loc_hostlist_free(&hl);
		return LOC_ENOMEM;
	}
	memcpy(j->id, id, sizeof(id));
	j->submit = submit;
	j->start = start;
	j->runtime = end - start;
	j->requested = req;
	j->procs = procs > 0 ? procs : nodes;
	j->nodes = nodes;
	j->status = _status(state);
	s = _get(p, R_UID);
	if (*s && !loc__parse_int(s, strlen(s), &v) && v >= 0 &&
	    v < UINT32_MAX) {
		j->user = (uint32_t)v;
	} else {
		s = _get(p, R_USER);
		v = loc__strtab_intern(&b->user_tab, s, strlen(s), NULL);
		if (v < 0) {
			loc_hostlist_free(&hl);
			return LOC_ENOMEM;
		}
		j->user = (uint32_t)v;
	}
	if (_has(p, R_PARTITION)) {
		s = _get(p, R_PARTITION);
		j->partition =
			loc__strtab_intern(&b->part_tab, s, strlen(s), NULL);
	}
	if (hl.count) {
		j->rec_nodes = malloc(sizeof(int) * hl.count);
		if (!j->rec_nodes) {
			loc_hostlist_free(&hl);
			return LOC_ENOMEM;
		}
		for (int i = 0; i < hl.count; i++) {
			int k = loc__strtab_intern(&b->node_tab, hl.names[i],
						   strlen(hl.names[i]), NULL);
			bool dup = false;

			if (k < 0) {
				loc_hostlist_free(&hl);
				return LOC_ENOMEM;
			}
			for (int q = 0; q < j->nrec && !dup; q++)
				dup = j->rec_nodes[q] == k;
			if (!dup)
				j->rec_nodes[j->nrec++] = k;
		}
		j->nodes = b->opts->sacct_nodes_from_cpus ? nodes : j->nrec;
	}
	loc_hostlist_free(&hl);
	if (j->requested == LOC_TRACE_UNKNOWN)
		t->no_request++;
	else if (j->runtime > j->requested)
		t->over_request++;
	return 0;
}

static void _sacct_free(sacct_t *p)
{
	for (int i = 0; p->names && i < p->ncols; i++)
		free(p->names[i]);
	free(p->names);
	free(p->type);
	free(p->text_idx);
	free(p->extra);
	free(p->cs);
	free(p->cl);
	free(p->fs);
	free(p->fl);
	free(p->scratch);
}

/* A physical line: start offset, length without "\r\n", separators. */
typedef struct pline {
	size_t off, len;
	int seps;
	bool nul;
} pline_t;

static pline_t _next_line(const char *text, size_t len, size_t pos)
{
	pline_t l = { .off = pos };
	const char *nl = memchr(text + pos, '\n', len - pos);

	l.len = nl ? (size_t)(nl - text - pos) : len - pos;
	if (memchr(text + pos, '\0', l.len))
		l.nul = true;
	if (l.len && text[pos + l.len - 1] == '\r')
		l.len--;
	for (size_t i = 0; i < l.len; i++)
		l.seps += text[pos + i] == '|';
	return l;
}

static size_t _after(const char *text, size_t len, const pline_t *l)
{
	size_t end = l->off + l->len;

	if (end < len && text[end] == '\r')
		end++;
	return end < len ? end + 1 : len;
}

/* Copies nlines physical lines from pos into *rec, joined with '\n'
 * (line ends and CRs dropped). Returns 0 or LOC_ENOMEM. */
static int _join(const char *text, size_t len, size_t pos, int nlines,
		 char **rec, size_t *cap, size_t *rlen)
{
	size_t q = pos;

	*rlen = 0;
	for (int k = 0; k < nlines; k++) {
		pline_t l = _next_line(text, len, q);

		if (*rlen + l.len + 2 > *cap) {
			size_t nc = (*rlen + l.len + 2) * 2;
			char *nr = realloc(*rec, nc);

			if (!nr)
				return LOC_ENOMEM;
			*rec = nr;
			*cap = nc;
		}
		if (k)
			(*rec)[(*rlen)++] = '\n';
		memcpy(*rec + *rlen, text + l.off, l.len);
		*rlen += l.len;
		q = _after(text, len, &l);
	}
	return 0;
}

/*
 * A record can be complete (enough separators) before its last line when
 * a multi-line value that is the last column holds a '|'. After a record
 * reads, the following lines are taken into it while each one has fewer
 * separators than a record, does not start like a record (its first field
 * is not valid for the first column), and the longer record still reads.
 * On return p holds the resolution of the kept lines. Returns 0 or
 * LOC_ENOMEM.
 */
static int _extend(sacct_t *p, const char *text, size_t len, size_t pos,
		   int *nlines, size_t *end_pos, char **rec, size_t *cap,
		   int need)
{
	bool tried = false;
	size_t rlen;
	int rc;

	if (p->type[p->ncols - 1] != COL_MLTEXT)
		return 0;
	while (*end_pos < len && *nlines < SACCT_MAX_CONT) {
		pline_t l = _next_line(text, len, *end_pos);
		size_t f0 = 0;

		if (l.len == 0 || l.nul || l.seps >= need)
			break;
		while (f0 < l.len && text[l.off + f0] != '|')
			f0++;
		if (p->type[0] > COL_MLTEXT &&
		    loc__sacct_valid(p, p->type[0], text + l.off, f0))
			break;
		rc = _join(text, len, pos, *nlines + 1, rec, cap, &rlen);
		if (rc)
			return rc;
		tried = true;
		rc = loc__sacct_resolve(p, *rec, rlen);
		if (rc < 0)
			return rc;
		if (rc)
			break;
		(*nlines)++;
		*end_pos = _after(text, len, &l);
	}
	if (!tried)
		return 0;
	/* put back the resolution of the kept lines (the rc of a record
	 * that read once cannot change) */
	rc = _join(text, len, pos, *nlines, rec, cap, &rlen);
	if (rc)
		return rc;
	rc = loc__sacct_resolve(p, *rec, rlen);
	return rc < 0 ? rc : 0;
}

int loc__trace_parse_sacct(loc__trace_build_t *b, const char *text, size_t len)
{
	loc_trace_t *t = b->t;
	sacct_t p = { .b = b };
	size_t pos = 0;
	int line = 0, rc = 0, need, slack;
	char *rec = NULL;
	size_t cap_rec = 0;

	/* header: the first non-blank line */
	while (pos < len) {
		pline_t l = _next_line(text, len, pos);

		line++;
		t->lines++;
		pos = _after(text, len, &l);
		if (l.len == 0) {
			t->comment_lines++;
			continue;
		}
		t->comment_lines++;
		rc = loc__sacct_header(&p, text + l.off, l.len);
		if (rc)
			goto out;
		break;
	}
	if (p.ncols == 0) {
		rc = loc_error_set(b->err, LOC_EPARSE, t->path, line,
				   "no sacct header line");
		goto out;
	}
	if (p.role[R_JOBID] < 0 || p.role[R_SUBMIT] < 0 ||
	    p.role[R_START] < 0 || p.role[R_END] < 0) {
		rc = loc_error_set(
			b->err, LOC_EPARSE, t->path,
			1, "sacct header lacks %s (need JobID, Submit, Start, End)",
			p.role[R_JOBID] < 0    ? "JobID"
			: p.role[R_SUBMIT] < 0 ? "Submit"
			: p.role[R_START] < 0  ? "Start"
					       : "End");
		goto out;
	}
	need = p.ncols - 1;
	slack = need / 2 < SACCT_MAX_EXTRA ? need / 2 : SACCT_MAX_EXTRA;

	while (pos < len) {
		pline_t first = _next_line(text, len, pos);
		size_t end_pos = _after(text, len, &first), rlen, first_end = 0;
		int seps = first.seps, nlines = 1, first_line = line + 1;
		int first_rc = 0, first_nlines = 0, first_fail = 0;
		bool nul = first.nul;

		if (first.len == 0 && !nul) {
			line++;
			t->lines++;
			t->comment_lines++;
			pos = end_pos;
			continue;
		}
		/* Join continuation lines until the record holds enough
		 * separators. A '|' inside a multi-line value can complete the
		 * count too early: when the record does not read, up to
		 * `slack` more separators' worth of lines are tried before
		 * giving up (few enough never to swallow a whole record). */
		for (;;) {
			while (seps < need && end_pos < len &&
			       nlines < SACCT_MAX_CONT) {
				pline_t l = _next_line(text, len, end_pos);

				seps += l.seps;
				nul |= l.nul;
				nlines++;
				end_pos = _after(text, len, &l);
			}
			rc = _join(text, len, pos, nlines, &rec, &cap_rec,
				   &rlen);
			if (rc)
				goto out;
			if (nul) {
				rc = LOC_SKIP_BAD_BYTES + 1;
			} else if (seps < need) {
				rc = LOC_SKIP_TRUNCATED + 1;
			} else {
				p.line = first_line;
				rc = loc__sacct_resolve(&p, rec, rlen);
				if (rc < 0)
					goto out;
			}
			if (rc == 0)
				break;
			if (!first_rc) {
				first_rc = rc;
				first_nlines = nlines;
				first_end = end_pos;
				first_fail = p.fail_col;
			}
			if (nul || seps < need || end_pos >= len ||
			    nlines >= SACCT_MAX_CONT)
				break;
			{
				pline_t l = _next_line(text, len, end_pos);

				if (seps + l.seps - need > slack)
					break;
				seps += l.seps;
				nul |= l.nul;
				nlines++;
				end_pos = _after(text, len, &l);
			}
		}
		if (rc) {
			rc = first_rc;
			nlines = first_nlines;
			end_pos = first_end;
			p.fail_col = first_fail;
		}
		if (rc == 0) {
			rc = _extend(&p, text, len, pos, &nlines, &end_pos,
				     &rec, &cap_rec, need);
			if (rc)
				goto out;
			line += nlines;
			t->lines += nlines;
			pos = end_pos;
			rc = _record(&p);
			if (rc)
				goto out;
			continue;
		}
		if (nlines > 1 && !(nul && first.nul)) {
			/* A joined record that does not read: the first line
			 * alone was broken; resume on the next one. */
			rc = loc__trace_skip(b,
					     first.nul ? LOC_SKIP_BAD_BYTES
						       : LOC_SKIP_TRUNCATED,
					     first_line, "record cut short");
			line++;
			t->lines++;
			pos = _after(text, len, &first);
			if (rc)
				goto out;
			continue;
		}
		{
			char detail[96] = "";

			if (rc - 1 == LOC_SKIP_BAD_TIME ||
			    rc - 1 == LOC_SKIP_BAD_NUMBER)
				snprintf(detail, sizeof(detail), "column %s",
					 p.names[p.fail_col]);
			rc = loc__trace_skip(b, (loc_trace_skip_t)(rc - 1),
					     first_line,
					     detail[0] ? detail : NULL);
		}
		line += nlines;
		t->lines += nlines;
		pos = end_pos;
		if (rc)
			goto out;
	}
out:
	free(rec);
	_sacct_free(&p);
	return rc;
}
