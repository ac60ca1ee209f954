/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace_swf.c - the Standard Workload Format reader (Parallel
 * Workloads Archive, D. Feitelson), with MetaCentrum's extension: three
 * more fields, {node index per cpu} queue nodespec, giving a recorded
 * placement per job.
 *
 * Every number is range-checked; a line that does not become a job is
 * counted under one reason.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loc_trace_internal.h"

/* ===================================================================== */
/* Standard Workload Format                                              */
/* ===================================================================== */

#define SWF_FIELDS 18

/* Reads "; Key: 123 ..." header comments we use. */
static void _swf_header(loc_trace_t *t, const char *s, size_t len)
{
	static const char *const keys[] = { "MaxNodes", "MaxProcs",
					    "UnixStartTime" };
	int64_t *dst[] = { &t->max_nodes, &t->max_procs, &t->unix_start };
	size_t i = 0;

	while (i < len && (s[i] == ';' || s[i] == ' ' || s[i] == '\t'))
		i++;
	for (int k = 0; k < 3; k++) {
		size_t kl = strlen(keys[k]);
		int64_t v = 0;
		int digits = 0;
		size_t p = i + kl;

		if (len - i < kl + 1 || strncasecmp(s + i, keys[k], kl))
			continue;
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p >= len || s[p] != ':')
			continue;
		p++;
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		/* the leading integer: "400 (48 interactive, ...)" */
		while (p < len && s[p] >= '0' && s[p] <= '9' &&
		       v < LOC__TRACE_MAX_TIME) {
			v = v * 10 + (s[p++] - '0');
			digits++;
		}
		if (digits && v < LOC__TRACE_MAX_TIME)
			*dst[k] = v;
	}
}

/* Reads one numeric SWF field: an integer or a decimal ("9.00"). */
static int _swf_number(const char *s, size_t len, double *out)
{
	char buf[64], *end;

	if (len == 0 || len >= sizeof(buf))
		return len >= sizeof(buf) ? LOC_ERANGE : LOC_EPARSE;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!strchr("0123456789+-.eE", buf[i]))
			return LOC_EPARSE;
	errno = 0;
	*out = strtod(buf, &end);
	if (*end)
		return LOC_EPARSE;
	if (errno == ERANGE || !isfinite(*out) || fabs(*out) > 1e15)
		return LOC_ERANGE;
	return 0;
}

/* Parses "{1241,1241,1130}" into distinct node indices, interned. */
static int _swf_nodelist(loc__trace_build_t *b, loc_trace_job_t *j,
			 const char *s, size_t len)
{
	int count = 0, *idx;
	size_t i;

	if (len < 2 || s[0] != '{' || s[len - 1] != '}')
		return LOC_EPARSE;
	for (i = 1; i < len - 1; i++)
		count += s[i] == ',';
	idx = malloc(sizeof(int) * (count + 1));
	if (!idx)
		return LOC_ENOMEM;
	j->rec_nodes = idx;
	j->nrec = 0;
	if (len == 2)
		return 0;
	i = 1;
	while (i < len - 1) {
		size_t e = i;
		int64_t v;
		int id;

		while (e < len - 1 && s[e] != ',')
			e++;
		if (loc__parse_int(s + i, e - i, &v) || v < 0 ||
		    v > LOC__TRACE_MAX_NODES)
			return LOC_EPARSE;
		{
			char name[24];
			int n = snprintf(name, sizeof(name), "%lld",
					 (long long)v);

			id = loc__strtab_intern(&b->node_tab, name, n, NULL);
		}
		if (id < 0)
			return LOC_ENOMEM;
		/* cpus of one node repeat its index: keep it once */
		{
			int seen = 0;

			for (int k = 0; k < j->nrec && !seen; k++)
				seen = idx[k] == id;
			if (!seen)
				idx[j->nrec++] = id;
		}
		i = e + 1;
	}
	return 0;
}

static int _swf_line(loc__trace_build_t *b, const char *s, size_t len, int line)
{
	loc_trace_t *t = b->t;
	const char *fs[SWF_FIELDS + 3];
	size_t fl[SWF_FIELDS + 3];
	double f[SWF_FIELDS];
	int nf = 0, rc;
	size_t i = 0;
	loc_trace_job_t *j;
	int64_t procs;
	bool added;
	int id;

	while (i < len) {
		size_t e;

		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		e = i;
		while (e < len && s[e] != ' ' && s[e] != '\t')
			e++;
		if (nf == SWF_FIELDS + 3)
			return loc__trace_skip(b, LOC_SKIP_BAD_NUMBER, line,
					       "more than 21 fields");
		fs[nf] = s + i;
		fl[nf++] = e - i;
		i = e;
	}
	if (nf < SWF_FIELDS)
		return loc__trace_skip(b, LOC_SKIP_TRUNCATED, line, NULL);
	for (int k = 0; k < SWF_FIELDS; k++) {
		rc = _swf_number(fs[k], fl[k], &f[k]);
		if (rc)
			return loc__trace_skip(b,
					       rc == LOC_ERANGE
						       ? LOC_SKIP_RANGE
						       : LOC_SKIP_BAD_NUMBER,
					       line, NULL);
	}
	/* field numbers below are SWF's, 1-based */
	if (f[1] < 0)
		return loc__trace_skip(b, LOC_SKIP_NEGATIVE_TIME, line,
				       "negative submit time");
	if (f[1] > LOC__TRACE_MAX_TIME || f[2] > LOC__TRACE_MAX_TIME ||
	    f[3] > LOC__TRACE_MAX_TIME || f[8] > LOC__TRACE_MAX_TIME)
		return loc__trace_skip(b, LOC_SKIP_RANGE, line, "time");
	if (f[3] < 0)
		return loc__trace_skip(b, LOC_SKIP_NOT_STARTED, line, NULL);
	/*
	 * Cancelled (status 5) with no run time and no processors allocated:
	 * cancelled while queued (CEA-Curie, LLNL-Atlas/Thunder write these
	 * as runtime 0, not -1). Replayed, each would queue for nodes it
	 * never held.
	 */
	if (f[3] == 0 && f[4] <= 0 && f[10] == 5)
		return loc__trace_skip(b, LOC_SKIP_NOT_STARTED, line, NULL);
	procs = f[4] > 0 ? (int64_t)f[4] : f[7] > 0 ? (int64_t)f[7] : 0;
	if (procs < 1)
		return loc__trace_skip(b, LOC_SKIP_NO_SIZE, line, NULL);
	if (procs > LOC__TRACE_MAX_PROCS ||
	    loc__trace_nodes(procs, b->opts->procs_per_node) < 0)
		return loc__trace_skip(b, LOC_SKIP_RANGE, line,
				       "processor count");
	if (fl[0] >= LOC_TRACE_ID_MAX)
		return loc__trace_skip(b, LOC_SKIP_RANGE, line, "job number");
	id = loc__strtab_intern(&b->id_tab, fs[0], fl[0], &added);
	if (id < 0)
		return LOC_ENOMEM;
	if (!added)
		return loc__trace_skip(b, LOC_SKIP_DUPLICATE, line, NULL);

	j = loc__trace_add_job(b, line);
	if (!j)
		return LOC_ENOMEM;
	memcpy(j->id, fs[0], fl[0]);
	j->id[fl[0]] = '\0';
	j->submit = (int64_t)f[1];
	j->start = f[2] >= 0 ? j->submit + (int64_t)f[2] : LOC_TRACE_UNKNOWN;
	j->runtime = (int64_t)f[3];
	j->procs = procs;
	j->nodes = loc__trace_nodes(procs, b->opts->procs_per_node);
	j->requested = f[8] > 0 ? (int64_t)f[8] : LOC_TRACE_UNKNOWN;
	/* fuzz_swf: a status beyond int ("1e15") was an undefined cast */
	j->status = fabs(f[10]) < 1e9 ? (int)f[10] : -1;
	j->user = f[11] >= 0 && f[11] < 4e9 ? (uint32_t)f[11] : UINT32_MAX;
	if (nf > SWF_FIELDS + 1) {
		/* MetaCentrum: the queue name is field 20 */
		j->partition =
			loc__strtab_intern(&b->part_tab, fs[SWF_FIELDS + 1],
					   fl[SWF_FIELDS + 1], NULL);
	} else if (f[15] >= 0) {
		char name[24];
		int n = snprintf(name, sizeof(name), "%lld", (long long)f[15]);

		j->partition = loc__strtab_intern(&b->part_tab, name, n, NULL);
	}
	if (nf > SWF_FIELDS && fs[SWF_FIELDS][0] == '{') {
		rc = _swf_nodelist(b, j, fs[SWF_FIELDS], fl[SWF_FIELDS]);
		if (rc == LOC_ENOMEM)
			return rc;
		if (rc) {
			free(j->rec_nodes);
			t->njobs--;
			t->records--;
			return loc__trace_skip(b, LOC_SKIP_BAD_NODELIST, line,
					       NULL);
		}
		if (j->nrec == 0) {
			free(j->rec_nodes);
			j->rec_nodes = NULL;
		}
	}
	if (j->requested == LOC_TRACE_UNKNOWN)
		t->no_request++;
	else if (j->runtime > j->requested)
		t->over_request++;
	return 0;
}

int loc__trace_parse_swf(loc__trace_build_t *b, const char *text, size_t len)
{
	loc_trace_t *t = b->t;
	size_t pos = 0;
	int line = 0, rc;

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos, k = 0;

		pos += l + (nl ? 1 : 0);
		line++;
		t->lines++;
		if (l && s[l - 1] == '\r')
			l--;
		if (memchr(s, '\0', l)) {
			rc = loc__trace_skip(b, LOC_SKIP_BAD_BYTES, line, NULL);
			if (rc)
				return rc;
			continue;
		}
		while (k < l && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k == l || s[k] == ';' || s[k] == '#') {
			t->comment_lines++;
			if (k < l && s[k] == ';')
				_swf_header(t, s + k, l - k);
			continue;
		}
		rc = _swf_line(b, s, l, line);
		if (rc)
			return rc;
	}
	return 0;
}
