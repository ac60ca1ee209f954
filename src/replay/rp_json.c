/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_json.c - a small recursive-descent JSON reader and the tolerant
 * comparison used by regression mode.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_json.h"

#define RJ_MAX_DEPTH 64

typedef struct jp {
	const char *s;
	size_t len, pos;
	const char *name;
	loc_error_t *err;
	int failed;
} jp_t;

static int _line(const jp_t *p)
{
	int line = 1;

	for (size_t i = 0; i < p->pos && i < p->len; i++)
		line += p->s[i] == '\n';
	return line;
}

static int _fail(jp_t *p, const char *what)
{
	if (!p->failed)
		loc_error_set(p->err, LOC_EPARSE, p->name, _line(p), "JSON: %s",
			      what);
	p->failed = 1;
	return -1;
}

static void _ws(jp_t *p)
{
	while (p->pos < p->len &&
	       (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
		p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static int _value(jp_t *p, rp_json_t *v, int depth);

static int _string(jp_t *p, char **out)
{
	size_t cap = 16, n = 0;
	char *buf;

	if (p->pos >= p->len || p->s[p->pos] != '"')
		return _fail(p, "expected a string");
	p->pos++;
	buf = malloc(cap);
	if (!buf)
		return _fail(p, "out of memory");
	for (;;) {
		char c;

		if (p->pos >= p->len) {
			free(buf);
			return _fail(p, "unterminated string");
		}
		c = p->s[p->pos++];
		if (c == '"')
			break;
		if (c == '\\') {
			if (p->pos >= p->len) {
				free(buf);
				return _fail(p, "bad escape");
			}
			c = p->s[p->pos++];
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u': {
				unsigned v = 0;

				for (int i = 0; i < 4; i++) {
					char h = p->pos < p->len
							 ? p->s[p->pos++]
							 : 0;

					v <<= 4;
					if (h >= '0' && h <= '9')
						v |= h - '0';
					else if (h >= 'a' && h <= 'f')
						v |= h - 'a' + 10;
					else if (h >= 'A' && h <= 'F')
						v |= h - 'A' + 10;
					else {
						free(buf);
						return _fail(p,
							     "bad \\u escape");
					}
				}
				/* our own files only escape control bytes */
				c = v < 0x80 ? (char)v : '?';
				break;
			}
			default:
				break; /* \" \\ \/ */
			}
		}
		if (n + 2 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return _fail(p, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static int _push(jp_t *p, rp_json_t *v, int *cap)
{
	if (v->n == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		rp_json_t *items = realloc(v->items, sizeof(*items) * nc);

		if (!items)
			return _fail(p, "out of memory");
		v->items = items;
		if (v->type == RJ_OBJ) {
			char **keys = realloc(v->keys, sizeof(char *) * nc);

			if (!keys)
				return _fail(p, "out of memory");
			v->keys = keys;
		}
		*cap = nc;
	}
	memset(&v->items[v->n], 0, sizeof(rp_json_t));
	if (v->type == RJ_OBJ)
		v->keys[v->n] = NULL;
	v->n++;
	return 0;
}

static int _compound(jp_t *p, rp_json_t *v, int depth, bool obj)
{
	int cap = 0;
	char close = obj ? '}' : ']';

	v->type = obj ? RJ_OBJ : RJ_ARR;
	p->pos++;
	_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		_ws(p);
		if (obj) {
			if (_string(p, &key))
				return -1;
			_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				return _fail(p, "expected ':'");
			}
			p->pos++;
		}
		if (_push(p, v, &cap)) {
			free(key);
			return -1;
		}
		if (obj)
			v->keys[v->n - 1] = key;
		if (_value(p, &v->items[v->n - 1], depth + 1))
			return -1;
		_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			return 0;
		}
		return _fail(p, obj ? "expected ',' or '}'"
				    : "expected ',' or ']'");
	}
}

static int _value(jp_t *p, rp_json_t *v, int depth)
{
	char c;

	if (depth > RJ_MAX_DEPTH)
		return _fail(p, "nested too deeply");
	_ws(p);
	if (p->pos >= p->len)
		return _fail(p, "unexpected end");
	c = p->s[p->pos];
	if (c == '{' || c == '[')
		return _compound(p, v, depth, c == '{');
	if (c == '"') {
		v->type = RJ_STR;
		return _string(p, &v->str);
	}
	if (p->len - p->pos >= 4 && !strncmp(p->s + p->pos, "true", 4)) {
		v->type = RJ_BOOL;
		v->b = true;
		p->pos += 4;
		return 0;
	}
	if (p->len - p->pos >= 5 && !strncmp(p->s + p->pos, "false", 5)) {
		v->type = RJ_BOOL;
		p->pos += 5;
		return 0;
	}
	if (p->len - p->pos >= 4 && !strncmp(p->s + p->pos, "null", 4)) {
		v->type = RJ_NULL;
		p->pos += 4;
		return 0;
	}
	{
		char buf[64], *end;
		size_t n = 0;

		while (p->pos + n < p->len && n < sizeof(buf) - 1 &&
		       strchr("0123456789+-.eE", p->s[p->pos + n]) &&
		       p->s[p->pos + n])
			n++;
		if (!n)
			return _fail(p, "unexpected character");
		memcpy(buf, p->s + p->pos, n);
		buf[n] = '\0';
		v->type = RJ_NUM;
		v->num = strtod(buf, &end);
		if (*end || !isfinite(v->num))
			return _fail(p, "bad number");
		p->pos += n;
	}
	return 0;
}

static void _free_in(rp_json_t *v)
{
	free(v->str);
	for (int i = 0; i < v->n; i++) {
		_free_in(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
}

void rp_json_free(rp_json_t *v)
{
	if (!v)
		return;
	_free_in(v);
	free(v);
}

rp_json_t *rp_json_parse(const char *text, size_t len, const char *name,
			 loc_error_t *err)
{
	jp_t p = { .s = text, .len = len, .name = name, .err = err };
	rp_json_t *v = calloc(1, sizeof(*v));

	if (!v) {
		loc_error_set(err, LOC_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	if (_value(&p, v, 0) == 0) {
		_ws(&p);
		if (p.pos != p.len)
			_fail(&p, "trailing text after the value");
	}
	if (p.failed) {
		rp_json_free(v);
		return NULL;
	}
	return v;
}

rp_json_t *rp_json_load(const char *path, loc_error_t *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	rp_json_t *v;

	if (!f) {
		loc_error_set(err, LOC_EIO, path, 0, "cannot open: %s",
			      strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb;

			cap = cap ? cap * 2 : 1 << 14;
			if (cap > ((size_t)1 << 30) ||
			    !(nb = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				loc_error_set(err, LOC_ENOMEM, path, 0,
					      "too large or out of memory");
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	v = rp_json_parse(buf, len, path, err);
	free(buf);
	return v;
}

const rp_json_t *rp_json_get(const rp_json_t *obj, const char *key)
{
	if (!obj || obj->type != RJ_OBJ)
		return NULL;
	for (int i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

static const char *const _type_names[] = { "null",   "boolean", "number",
					   "string", "array",	"object" };

typedef struct cmp_out {
	FILE *f;
	int left; /* lines still to print */
} cmp_out_t;

/* The stream for one more difference line, or NULL once the limit is
 * reached (differences are still counted). */
static FILE *_line_out(cmp_out_t *o)
{
	if (!o->f || o->left <= 0)
		return NULL;
	o->left--;
	return o->f;
}

static int _cmp(const rp_json_t *g, const rp_json_t *n, double tol,
		cmp_out_t *co, char *path, size_t plen)
{
	int diffs = 0;
	FILE *out;

	if (g->type != n->type) {
		if ((out = _line_out(co)))
			fprintf(out, "  %s: golden is a %s, now a %s\n", path,
				_type_names[g->type], _type_names[n->type]);
		return 1;
	}
	switch (g->type) {
	case RJ_NULL:
		return 0;
	case RJ_BOOL:
		if (g->b != n->b) {
			if ((out = _line_out(co)))
				fprintf(out, "  %s: golden %s, now %s\n", path,
					g->b ? "true" : "false",
					n->b ? "true" : "false");
			return 1;
		}
		return 0;
	case RJ_STR:
		if (strcmp(g->str, n->str)) {
			if ((out = _line_out(co)))
				fprintf(out,
					"  %s: golden \"%s\", now \"%s\"\n",
					path, g->str, n->str);
			return 1;
		}
		return 0;
	case RJ_NUM: {
		double d = fabs(g->num - n->num);
		double mag = fmax(fabs(g->num), fabs(n->num));

		if (d <= 1e-9 || d <= tol * mag)
			return 0;
		if ((out = _line_out(co))) {
			fprintf(out, "  %s: golden %.6f, now %.6f", path,
				g->num, n->num);
			if (g->num != 0)
				fprintf(out, " (%+.2f%%)",
					100.0 * (n->num - g->num) /
						fabs(g->num));
			fprintf(out, ", tolerance %g%%\n", 100.0 * tol);
		}
		return 1;
	}
	case RJ_ARR:
		if (g->n != n->n) {
			if ((out = _line_out(co)))
				fprintf(out,
					"  %s: golden has %d items, now %d\n",
					path, g->n, n->n);
			return 1;
		}
		for (int i = 0; i < g->n; i++) {
			size_t l = strlen(path);

			snprintf(path + l, plen - l, "[%d]", i);
			diffs += _cmp(&g->items[i], &n->items[i], tol, co, path,
				      plen);
			path[l] = '\0';
		}
		return diffs;
	case RJ_OBJ:
		for (int i = 0; i < g->n; i++) {
			const rp_json_t *m = rp_json_get(n, g->keys[i]);
			size_t l = strlen(path);

			snprintf(path + l, plen - l, "%s%s", l ? "." : "",
				 g->keys[i]);
			if (!m) {
				if ((out = _line_out(co)))
					fprintf(out,
						"  %s: in the golden summary, "
						"missing now\n",
						path);
				diffs++;
			} else {
				diffs += _cmp(&g->items[i], m, tol, co, path,
					      plen);
			}
			path[l] = '\0';
		}
		return diffs;
	}
	return 0;
}

int rp_json_compare(const rp_json_t *golden, const rp_json_t *now,
		    double rel_tol, FILE *out, int max_lines)
{
	char path[1024] = "";
	cmp_out_t co = { .f = out,
			 .left = max_lines > 0 ? max_lines : 1 << 30 };
	int n = _cmp(golden, now, rel_tol, &co, path, sizeof(path));

	if (out && max_lines > 0 && n > max_lines)
		fprintf(out, "  ... and %d more\n", n - max_lines);
	return n;
}
