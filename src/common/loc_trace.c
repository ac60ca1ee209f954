/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace.c - trace loading (plain or gzip), format detection, skip
 * accounting and string interning for the SWF (loc_trace_swf.c) and
 * sacct (loc_trace_sacct.c) readers; the field readers they share are in
 * loc_trace_fields.c.
 *
 * Written for hostile input: every number is range-checked, every line
 * that does not become a job is counted under a reason, and nothing is
 * read past the buffer (the text need not be NUL-terminated).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "loc_trace_internal.h"

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

/* Refuse inputs beyond this size (decompressed): 4 GiB is no trace. */
#define LOC_TRACE_MAX_BYTES ((size_t)4 << 30)

/* ===================================================================== */
/* Skip reasons                                                          */
/* ===================================================================== */

static const struct {
	const char *name;
	int bad;
	const char *text;
} _skip_info[LOC_SKIP_COUNT] = {
#define LOC__TRACE_SKIP_INFO(id, name, bad, text) [id] = { name, bad, text },
	LOC_TRACE_SKIP_MAP(LOC__TRACE_SKIP_INFO)
#undef LOC__TRACE_SKIP_INFO
};

const char *loc_trace_skip_name(int reason)
{
	if (reason < 0 || reason >= LOC_SKIP_COUNT)
		return "?";
	return _skip_info[reason].name;
}

const char *loc_trace_skip_text(int reason)
{
	if (reason < 0 || reason >= LOC_SKIP_COUNT)
		return "?";
	return _skip_info[reason].text;
}

bool loc_trace_skip_bad(int reason)
{
	return reason >= 0 && reason < LOC_SKIP_COUNT && _skip_info[reason].bad;
}

int loc_trace_skipped_total(const loc_trace_t *trace)
{
	int n = 0;

	for (int i = 0; i < LOC_SKIP_COUNT; i++)
		n += trace->skipped[i];
	return n;
}

void loc_trace_opts_init(loc_trace_opts_t *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->format = LOC_TRACE_AUTO;
	opts->procs_per_node = 1.0;
}

int loc__trace_skip(loc__trace_build_t *b, loc_trace_skip_t reason, int line,
		    const char *detail)
{
	loc_trace_t *t = b->t;

	b->last_record_bad = loc_trace_skip_bad(reason);
	b->last_record_line = line;
	b->last_record_reason = reason;
	if (b->opts->strict && loc_trace_skip_bad(reason))
		return loc_error_set(b->err, LOC_EPARSE, t->path, line,
				     "%s%s%s", loc_trace_skip_text(reason),
				     detail ? ": " : "", detail ? detail : "");
	t->skipped[reason]++;
	t->records++;
	if (!t->skip_first_line[reason])
		t->skip_first_line[reason] = line;
	return 0;
}

/* ===================================================================== */
/* Building blocks                                                       */
/* ===================================================================== */

static uint32_t _hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static int _strtab_grow(loc__strtab_t *tab)
{
	int nslots = tab->nslots ? tab->nslots * 2 : 64;
	int *slot = calloc(nslots, sizeof(int));

	if (!slot)
		return -1;
	for (int i = 0; i < *tab->count; i++) {
		const char *s = (*tab->names)[i];
		uint32_t h = _hash(s, strlen(s)) & (nslots - 1);

		while (slot[h])
			h = (h + 1) & (nslots - 1);
		slot[h] = i + 1;
	}
	free(tab->slot);
	tab->slot = slot;
	tab->nslots = nslots;
	return 0;
}

int loc__strtab_intern(loc__strtab_t *tab, const char *s, size_t len,
		       bool *added)
{
	uint32_t h;
	char *copy;

	if (added)
		*added = false;
	/* Keep the load factor under one half. */
	if ((*tab->count + 1) * 2 > tab->nslots && _strtab_grow(tab))
		return -1;
	h = _hash(s, len) & (tab->nslots - 1);
	while (tab->slot[h]) {
		const char *o = (*tab->names)[tab->slot[h] - 1];

		if (strlen(o) == len && !memcmp(o, s, len))
			return tab->slot[h] - 1;
		h = (h + 1) & (tab->nslots - 1);
	}
	if (*tab->count == tab->cap) {
		int cap = tab->cap ? tab->cap * 2 : 16;
		char **names = realloc(*tab->names, sizeof(char *) * cap);

		if (!names)
			return -1;
		*tab->names = names;
		tab->cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, len);
	copy[len] = '\0';
	(*tab->names)[*tab->count] = copy;
	tab->slot[h] = ++*tab->count;
	if (added)
		*added = true;
	return *tab->count - 1;
}

loc_trace_job_t *loc__trace_add_job(loc__trace_build_t *b, int line)
{
	loc_trace_t *t = b->t;
	loc_trace_job_t *j;

	if (t->njobs == b->cap_jobs) {
		int cap = b->cap_jobs ? b->cap_jobs * 2 : 1024;
		loc_trace_job_t *jobs = realloc(t->jobs, sizeof(*jobs) * cap);

		if (!jobs)
			return NULL;
		t->jobs = jobs;
		b->cap_jobs = cap;
	}
	j = &t->jobs[t->njobs++];
	memset(j, 0, sizeof(*j));
	j->line = line;
	j->start = LOC_TRACE_UNKNOWN;
	j->requested = LOC_TRACE_UNKNOWN;
	j->partition = -1;
	j->status = -1;
	t->records++;
	b->last_record_bad = false;
	b->last_record_line = line;
	return j;
}

/* ===================================================================== */
/* Loading                                                               */
/* ===================================================================== */

static void _build_free(loc__trace_build_t *b)
{
	for (int i = 0; i < b->nids; i++)
		free(b->ids[i]);
	free(b->ids);
	for (int i = 0; i < b->nusers; i++)
		free(b->users[i]);
	free(b->users);
	free(b->node_tab.slot);
	free(b->part_tab.slot);
	free(b->id_tab.slot);
	free(b->user_tab.slot);
}

static loc_trace_format_t _detect(const char *text, size_t len)
{
	size_t i = 0;

	/* the first non-blank line decides */
	while (i < len && (text[i] == '\n' || text[i] == '\r' ||
			   text[i] == ' ' || text[i] == '\t'))
		i++;
	{
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - text - i) : len - i;

		for (size_t k = i; k + 5 <= i + l; k++)
			if (!strncasecmp(text + k, "JobID", 5) &&
			    memchr(text + i, '|', l))
				return LOC_TRACE_SACCT;
	}
	return LOC_TRACE_SWF;
}

/*
 * True when the text does not end with a newline and its last line holds
 * more than blanks or a comment: the writer stopped in mid-line.
 */
static bool _ends_mid_line(const char *text, size_t len)
{
	size_t i = len;

	if (!len || text[len - 1] == '\n')
		return false;
	while (i > 0 && text[i - 1] != '\n')
		i--;
	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
			   text[i] == '\r'))
		i++;
	return i < len && text[i] != ';' && text[i] != '#';
}

loc_trace_t *loc_trace_parse(const char *text, size_t len, const char *name,
			     const loc_trace_opts_t *opts, loc_error_t *err)
{
	loc_trace_opts_t defaults;
	loc__trace_build_t b;
	loc_trace_t *t;
	int rc;

	if (!opts) {
		loc_trace_opts_init(&defaults);
		opts = &defaults;
	}
	if (!text && len)
		return loc_error_set(err, LOC_EINVAL, name, 0, "no text"), NULL;
	if (!(opts->procs_per_node >= 0) || !isfinite(opts->procs_per_node))
		return loc_error_set(err, LOC_EINVAL, name, 0,
				     "bad processors-per-node %g",
				     opts->procs_per_node),
		       NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(name ? name : ""))) {
		free(t);
		loc_error_set(err, LOC_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	t->max_nodes = t->max_procs = t->unix_start = -1;
	t->procs_per_node = opts->procs_per_node > 0 ? opts->procs_per_node : 1;
	memset(&b, 0, sizeof(b));
	b.t = t;
	b.opts = opts;
	b.err = err;
	b.node_tab.names = &t->node_names;
	b.node_tab.count = &t->nnode_names;
	b.part_tab.names = &t->partitions;
	b.part_tab.count = &t->npartitions;
	b.id_tab.names = &b.ids;
	b.id_tab.count = &b.nids;
	b.user_tab.names = &b.users;
	b.user_tab.count = &b.nusers;

	t->format = opts->format;
	if (t->format == LOC_TRACE_AUTO)
		t->format = _detect(text ? text : "", len);
	if (t->format == LOC_TRACE_SACCT)
		rc = loc__trace_parse_sacct(&b, text ? text : "", len);
	else
		rc = loc__trace_parse_swf(&b, text ? text : "", len);
	/* A malformed last record on an unterminated last line is a file
	 * cut short (a copy or an export that stopped): never a job to skip
	 * quietly, strict or not. */
	if (!rc && b.last_record_bad && _ends_mid_line(text, len))
		rc = loc_error_set(err, LOC_EPARSE, t->path,
				   b.last_record_line,
				   "the file ends in the middle of a record "
				   "(truncated?): %s",
				   loc_trace_skip_text(b.last_record_reason));
	_build_free(&b);
	if (rc) {
		if (rc == LOC_ENOMEM)
			loc_error_set(err, rc, t->path, 0, "out of memory");
		loc_trace_destroy(t);
		return NULL;
	}
	return t;
}

/* Reads the whole file (decompressing .gz) into a malloc'd buffer. */
static int _read_all(const char *path, char **out, size_t *outlen,
		     loc_error_t *err)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
#ifdef HAVE_ZLIB
	gzFile f;
#else
	FILE *f;
	unsigned char magic[2];
#endif

	if (!buf)
		return loc_error_set(err, LOC_ENOMEM, path, 0, "out of memory");
#ifdef HAVE_ZLIB
	f = gzopen(path, "rb");
#else
	f = fopen(path, "rb");
#endif
	if (!f) {
		free(buf);
		return loc_error_set(err, LOC_EIO, path, 0, "cannot open: %s",
				     strerror(errno));
	}
#ifndef HAVE_ZLIB
	if (fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f &&
	    magic[1] == 0x8b) {
		fclose(f);
		free(buf);
		return loc_error_set(
			err, LOC_EIO, path, 0,
			"gzip input needs zlib (rebuild with zlib)");
	}
	rewind(f);
#endif
	for (;;) {
		long n;

		if (cap - len < (1 << 15)) {
			char *nb;

			if (cap >= LOC_TRACE_MAX_BYTES) {
				free(buf);
#ifdef HAVE_ZLIB
				gzclose(f);
#else
				fclose(f);
#endif
				return loc_error_set(err, LOC_ERANGE, path, 0,
						     "larger than 4 GiB");
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
#ifdef HAVE_ZLIB
				gzclose(f);
#else
				fclose(f);
#endif
				return loc_error_set(err, LOC_ENOMEM, path, 0,
						     "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
#ifdef HAVE_ZLIB
		n = gzread(f, buf + len, (unsigned)(cap - len));
		if (n < 0) {
			int zerr;
			const char *msg = gzerror(f, &zerr);

			loc_error_set(err, LOC_EIO, path, 0, "read error: %s",
				      msg);
			free(buf);
			gzclose(f);
			return LOC_EIO;
		}
#else
		n = (long)fread(buf + len, 1, cap - len, f);
		if (n == 0 && ferror(f)) {
			free(buf);
			fclose(f);
			return loc_error_set(err, LOC_EIO, path, 0,
					     "read error");
		}
#endif
		if (n == 0)
			break;
		len += n;
	}
#ifdef HAVE_ZLIB
	{
		/* gzread gives what it could and flags a stream that stops
		 * early with Z_BUF_ERROR: a truncated .gz file */
		int zerr;

		gzerror(f, &zerr);
		if (zerr == Z_BUF_ERROR) {
			int line = 1;

			for (size_t i = 0; i < len; i++)
				line += buf[i] == '\n';
			free(buf);
			gzclose(f);
			return loc_error_set(err, LOC_EIO, path, line,
					     "the gzip stream ends early "
					     "(truncated file)");
		}
	}
	gzclose(f);
#else
	fclose(f);
#endif
	*out = buf;
	*outlen = len;
	return 0;
}

loc_trace_t *loc_trace_load(const char *path, const loc_trace_opts_t *opts,
			    loc_error_t *err)
{
	char *buf = NULL;
	size_t len = 0;
	loc_trace_t *t;

	if (!path)
		return loc_error_set(err, LOC_EINVAL, NULL, 0, "no trace path"),
		       NULL;
	if (_read_all(path, &buf, &len, err))
		return NULL;
	t = loc_trace_parse(buf, len, path, opts, err);
	free(buf);
	return t;
}

void loc_trace_destroy(loc_trace_t *trace)
{
	if (!trace)
		return;
	for (int i = 0; i < trace->njobs; i++)
		free(trace->jobs[i].rec_nodes);
	free(trace->jobs);
	for (int i = 0; i < trace->nnode_names; i++)
		free(trace->node_names[i]);
	free(trace->node_names);
	for (int i = 0; i < trace->npartitions; i++)
		free(trace->partitions[i]);
	free(trace->partitions);
	free(trace->path);
	free(trace);
}

int loc_trace_scale(loc_trace_t *trace, double procs_per_node)
{
	if (!trace || !(procs_per_node > 0) || !isfinite(procs_per_node))
		return LOC_EINVAL;
	for (int i = 0; i < trace->njobs; i++)
		if (loc__trace_nodes(trace->jobs[i].procs, procs_per_node) < 0)
			return LOC_ERANGE;
	for (int i = 0; i < trace->njobs; i++)
		trace->jobs[i].nodes =
			loc__trace_nodes(trace->jobs[i].procs, procs_per_node);
	trace->procs_per_node = procs_per_node;
	return 0;
}
