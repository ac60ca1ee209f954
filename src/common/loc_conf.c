/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf.c - the locality.conf reader: bytes to logical lines to
 * Key=Value tokens, the checks that need the whole file, and the parse,
 * load, destroy and policy entry points.
 *
 * The format is described in loc_conf.h and doc/locality.conf.5. The parser
 * reads a whole file into memory, joins continued lines, splits them into
 * Key=Value tokens (remembering each token's physical line for messages),
 * applies them (loc_conf_keys.c), and checks what depends on the whole file
 * (Dimensions may come after the lines that need it) in a final pass.
 * Nothing is guessed: every doubt is an error naming file, line and the
 * offending text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_conf_internal.h"
#include "loc_hostlist.h"

#define CONF_LINE_MAX 65536          /* bytes in one physical line */
#define CONF_LOGICAL_MAX (1 << 20)   /* bytes in one continued line */
#define CONF_FILE_MAX (64 << 20)     /* bytes in one file */

/* ===================================================================== */
/* Helpers shared with loc_conf_keys.c                                   */
/* ===================================================================== */

int loc__conf_perr(conf_parser_t *p, int line, const char *fmt, ...)
{
	char text[LOC_ERROR_TEXT_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(text))
		text[sizeof(text) - 2] = '+';
	return loc_error_set(p->err, LOC_EPARSE, p->name, line, "%s", text);
}

int loc__conf_nomem(conf_parser_t *p)
{
	return loc_error_set(p->err, LOC_ENOMEM, p->name, 0, "out of memory");
}

/* The pointer is read and written with memcpy so that any element type
 * can share this helper. */
int loc__conf_grow(void *arrp, int *cap, int n, size_t sz)
{
	void *arr, *t;
	int ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 16;
	while (ncap <= n)
		ncap *= 2;
	memcpy(&arr, arrp, sizeof(arr));
	t = realloc(arr, sz * ncap);
	if (!t)
		return -1;
	memcpy(arrp, &t, sizeof(t));
	*cap = ncap;
	return 0;
}

/* Returns the length of the valid UTF-8 sequence at s (n bytes left), or
 * 0 when it is malformed (overlong, surrogate, beyond U+10FFFF, cut). */
static int _utf8_len(const unsigned char *s, size_t n)
{
	unsigned cp;
	int len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* ===================================================================== */
/* Internal functions: lines                                             */
/* ===================================================================== */

/* Appends a physical line's content s[0..n) to the logical line. */
static int _append(conf_parser_t *p, const char *s, size_t n, int line)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return loc__conf_perr(p, line,
					      "control character 0x%02x at column %zu",
					      c, i + 1);
		if (c >= 0x80)
			return loc__conf_perr(p, line,
					      "non-ASCII byte 0x%02x at column %zu (only comments may hold UTF-8)",
					      c, i + 1);
	}
	if (p->llen + n + 2 > CONF_LOGICAL_MAX)
		return loc__conf_perr(p, line,
				      "continued line is longer than %d bytes",
				      CONF_LOGICAL_MAX);
	if (p->llen + n + 2 > p->lcap) {
		size_t cap = p->lcap ? p->lcap : 256;
		char *t;

		while (cap < p->llen + n + 2)
			cap *= 2;
		t = realloc(p->lbuf, cap);
		if (!t)
			return loc__conf_nomem(p);
		p->lbuf = t;
		p->lcap = cap;
	}
	if (loc__conf_grow(&p->seg, &p->segcap, p->nseg, sizeof(*p->seg)))
		return loc__conf_nomem(p);
	p->seg[p->nseg].off = p->llen;
	p->seg[p->nseg++].line = line;
	memcpy(p->lbuf + p->llen, s, n);
	p->llen += n;
	p->lbuf[p->llen++] = ' ';
	p->lbuf[p->llen] = '\0';
	return 0;
}

/* Splits the logical line into Key=Value tokens. */
static int _tokenize(conf_parser_t *p)
{
	char *b = p->lbuf;
	size_t i = 0;
	int si = 0;

	p->ntok = 0;
	while (i < p->llen) {
		size_t start;
		char *eq;
		int key, line;

		while (i < p->llen && (b[i] == ' ' || b[i] == '\t'))
			i++;
		if (i == p->llen)
			break;
		start = i;
		while (i < p->llen && b[i] != ' ' && b[i] != '\t')
			i++;
		b[i++] = '\0';
		while (si + 1 < p->nseg && p->seg[si + 1].off <= start)
			si++;
		line = p->seg[si].line;
		eq = strchr(b + start, '=');
		if (!eq)
			return loc__conf_perr(p, line,
					      "expected Key=Value, found '%.64s'",
					      b + start);
		*eq = '\0';
		if (eq == b + start)
			return loc__conf_perr(p, line,
					      "missing key before '=%.64s'",
					      eq + 1);
		key = loc__conf_key(b + start);
		if (key < 0)
			return loc__conf_perr(p, line, "unknown key '%.64s'",
					      b + start);
		if (!eq[1])
			return loc__conf_perr(p, line, "%s: empty value",
					      loc_conf_keys()[key]);
		if (loc__conf_grow(&p->tok, &p->tokcap, p->ntok,
				   sizeof(*p->tok)))
			return loc__conf_nomem(p);
		p->tok[p->ntok].key = key;
		p->tok[p->ntok].val = eq + 1;
		p->tok[p->ntok++].line = line;
	}
	return 0;
}

/* Applies one logical line. */
static int _logical(conf_parser_t *p)
{
	int rc = _tokenize(p);

	p->llen = 0;
	p->nseg = 0;
	if (rc || !p->ntok)
		return rc;
	if (p->tok[0].key == LOC_KEY_NODENAME)
		return loc__conf_nodename(p);
	if (p->tok[0].key == LOC_KEY_PARTITION)
		return loc__conf_partition(p);
	if (p->tok[0].key == LOC_KEY_GRES)
		return loc__conf_gres(p);
	for (int i = 0; i < p->ntok; i++) {
		const conf_tok_t *t = &p->tok[i];

		if (t->key == LOC_KEY_NODENAME || t->key == LOC_KEY_PARTITION ||
		    t->key == LOC_KEY_GRES)
			return loc__conf_perr(p, t->line,
					      "%s must be the first key on its line",
					      loc_conf_keys()[t->key]);
		rc = loc__conf_global_key(p, t);
		if (rc)
			return rc;
	}
	return 0;
}

/* Splits buf into physical lines, strips comments, joins continuations. */
static int _lines(conf_parser_t *p, const char *buf, size_t len)
{
	size_t pos = 0;
	int line = 0, rc;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		const char *hash, *nul;
		bool cont;

		line++;
		pos += n + 1;
		if (n > CONF_LINE_MAX)
			return loc__conf_perr(p, line,
					      "line is longer than %d bytes",
					      CONF_LINE_MAX);
		nul = memchr(s, '\0', n);
		if (nul)
			return loc__conf_perr(p, line,
					      "NUL byte at column %zu",
					      (size_t)(nul - s) + 1);
		for (size_t i = 0; i < n;) {
			int l = _utf8_len((const unsigned char *)s + i, n - i);

			if (!l)
				return loc__conf_perr(p, line,
						      "invalid UTF-8 byte 0x%02x at column %zu",
						      (unsigned char)s[i],
						      i + 1);
			i += l;
		}
		if (n && s[n - 1] == '\r')
			n--;
		hash = memchr(s, '#', n);
		if (hash)
			n = hash - s;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		cont = n && s[n - 1] == '\\';
		if (cont)
			n--;
		rc = _append(p, s, n, line);
		if (rc)
			return rc;
		if (cont) {
			if (pos >= len)
				return loc__conf_perr(p, line,
						      "'\\' continues the last line past the end of the file");
			continue;
		}
		rc = _logical(p);
		if (rc)
			return rc;
	}
	return 0;
}

/* The checks that need the whole file. */
static int _finish(conf_parser_t *p)
{
	loc_conf_t *c = p->conf;
	loc_shape_t *sh = &c->shape;
	long long npoints;
	const char *dims;
	char b1[64], b2[64];

	if (!p->set_line[LOC_KEY_DIMENSIONS])
		return loc__conf_perr(p, 0,
				      "missing required key Dimensions (e.g. Dimensions=8x8x4)");
	dims = loc__conf_shape_str(sh, b1, sizeof(b1));
	if (p->ntorus > 1 && p->ntorus != sh->ndims)
		return loc__conf_perr(p, p->set_line[LOC_KEY_TORUS],
				      "Torus: %d values but Dimensions=%s has %d dimensions (give one value or one per dimension)",
				      p->ntorus, dims, sh->ndims);
	for (int d = 0; d < sh->ndims; d++)
		sh->torus[d] = p->ntorus == 1 ? p->torus[0] :
			       p->ntorus ? p->torus[d] : false;
	npoints = loc__conf_npoints(sh);
	for (int i = 0; i < c->nnodes_lines; i++) {
		const loc_conf_nodes_t *nl = &c->nodes[i];
		long long first, last;

		if (p->ncoords[i] != sh->ndims)
			return loc__conf_perr(p, nl->line,
					      "Coords: %d values but Dimensions=%s has %d dimensions",
					      p->ncoords[i], dims, sh->ndims);
		for (int d = 0; d < sh->ndims; d++)
			if (nl->start.c[d] >= sh->dims[d])
				return loc__conf_perr(p, nl->line,
						      "Coords: %d is outside dimension %d (0-%d) of Dimensions=%s",
						      nl->start.c[d], d,
						      sh->dims[d] - 1, dims);
		first = loc__conf_point(sh, &nl->start);
		last = first + (nl->count - 1) / sh->nodes_per_point;
		if (last >= npoints) {
			loc__conf_coord_str(sh->ndims, &nl->start, b2,
					    sizeof(b2));
			return loc__conf_perr(p, nl->line,
					      "NodeName: %d nodes from Coords=%s run off the end of the %s grid (node '%.64s' is the first that does not fit)",
					      nl->count, b2, dims,
					      nl->names[(npoints - first) *
							sh->nodes_per_point]);
		}
	}
	for (int i = 0; i < c->npartitions; i++) {
		c->partitions[i].policy = c->policy;
		for (int k = 0; k < LOC_KEY_COUNT; k++)
			if (p->pmask[i] & (1u << k))
				loc__conf_policy_copy(&c->partitions[i].policy,
						      &p->povr[i], k);
	}
	/* Each GresName line over every partition's policy and the global
	 * one, made once so that a job's policy is a lookup. */
	for (int g = 0; g < c->ngres; g++) {
		loc_conf_gres_t *gr = &c->gres[g];

		gr->policies = calloc(c->npartitions + 1,
				      sizeof(*gr->policies));
		if (!gr->policies)
			return loc__conf_nomem(p);
		for (int i = 0; i <= c->npartitions; i++) {
			gr->policies[i] = i < c->npartitions ?
						  c->partitions[i].policy :
						  c->policy;
			for (int k = 0; k < LOC_KEY_COUNT; k++)
				if (gr->keys & (1u << k))
					loc__conf_policy_copy(&gr->policies[i],
							      &p->govr[g], k);
		}
	}
	return 0;
}

/* ===================================================================== */
/* External functions                                                    */
/* ===================================================================== */

loc_conf_t *loc_conf_parse_mem(const char *buf, size_t len, const char *name,
			       loc_error_t *err)
{
	conf_parser_t p = { .err = err, .name = name ? name : "" };
	int rc;

	loc_error_clear(err);
	if (!buf && len) {
		loc_error_set(err, LOC_EINVAL, p.name, 0, "no text to parse");
		return NULL;
	}
	p.conf = calloc(1, sizeof(*p.conf));
	if (!p.conf || !(p.conf->path = strdup(p.name))) {
		loc__conf_nomem(&p);
		free(p.conf);
		return NULL;
	}
	loc__conf_defaults(p.conf);
	rc = _lines(&p, buf ? buf : "", len);
	if (!rc)
		rc = _finish(&p);
	free(p.lbuf);
	free(p.seg);
	free(p.tok);
	free(p.ncoords);
	free(p.pmask);
	free(p.povr);
	free(p.govr);
	if (rc) {
		loc_conf_destroy(p.conf);
		return NULL;
	}
	return p.conf;
}

loc_conf_t *loc_conf_parse(const char *text, const char *name,
			   loc_error_t *err)
{
	if (!text) {
		loc_error_set(err, LOC_EINVAL, name, 0, "no text to parse");
		return NULL;
	}
	return loc_conf_parse_mem(text, strlen(text), name, err);
}

loc_conf_t *loc_conf_load(const char *path, loc_error_t *err)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	loc_conf_t *conf;
	FILE *f;

	if (!path) {
		loc_error_set(err, LOC_EINVAL, NULL, 0, "no file name");
		return NULL;
	}
	f = fopen(path, "rb");
	if (!f) {
		loc_error_set(err, LOC_EIO, path, 0, "cannot open: %s",
			      strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got, want;

		if (len == cap) {
			char *t;

			cap = cap ? 2 * cap : 65536;
			t = realloc(buf, cap);
			if (!t) {
				loc_error_set(err, LOC_ENOMEM, path, 0,
					      "out of memory reading the file");
				goto fail;
			}
			buf = t;
		}
		want = cap - len;
		got = fread(buf + len, 1, want, f);
		len += got;
		if (len > CONF_FILE_MAX) {
			loc_error_set(err, LOC_ERANGE, path, 0,
				      "file is larger than %d MiB",
				      CONF_FILE_MAX >> 20);
			goto fail;
		}
		if (got < want) {
			if (ferror(f)) {
				loc_error_set(err, LOC_EIO, path, 0,
					      "cannot read: %s",
					      strerror(errno));
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	conf = loc_conf_parse_mem(buf, len, path, err);
	free(buf);
	return conf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

void loc_conf_destroy(loc_conf_t *conf)
{
	if (!conf)
		return;
	for (int i = 0; i < conf->nnodes_lines; i++) {
		loc_hostlist_t hl = { conf->nodes[i].names,
				      conf->nodes[i].count };

		loc_hostlist_free(&hl);
		free(conf->nodes[i].hostlist);
	}
	for (int i = 0; i < conf->npartitions; i++)
		free(conf->partitions[i].name);
	for (int i = 0; i < conf->ngres; i++) {
		free(conf->gres[i].name);
		free(conf->gres[i].policies);
	}
	free(conf->nodes);
	free(conf->partitions);
	free(conf->gres);
	free(conf->path);
	free(conf);
}

/* The index of partition name's line, or npartitions when it has none. */
static int _partition_index(const loc_conf_t *conf, const char *name)
{
	int i = 0;

	while (name && i < conf->npartitions &&
	       strcmp(conf->partitions[i].name, name))
		i++;
	return name ? i : conf->npartitions;
}

const loc_policy_t *loc_conf_policy(const loc_conf_t *conf, const char *name)
{
	int i;

	if (!conf)
		return NULL;
	i = _partition_index(conf, name);
	return i < conf->npartitions ? &conf->partitions[i].policy :
				       &conf->policy;
}

const loc_policy_t *loc_conf_job_policy(const loc_conf_t *conf,
					const char *part,
					loc_conf_asks_gres_fn asks, void *arg)
{
	if (!conf)
		return NULL;
	for (int g = 0; asks && g < conf->ngres; g++)
		if (asks(conf->gres[g].name, arg))
			return &conf->gres[g].policies[_partition_index(conf,
									part)];
	return loc_conf_policy(conf, part);
}
