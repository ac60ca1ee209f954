/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_describe.c - loc_conf_describe(): a parsed locality.conf as one
 * paragraph, for the plugin's start-up log and `locality-replay
 * --show-config`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "loc_conf_internal.h"

/* ===================================================================== */
/* Internal functions                                                    */
/* ===================================================================== */

/* The summary being written: buf[0..o) of len bytes, cut at the end. */
typedef struct desc {
	char *buf;
	size_t len, o;
} desc_t;

static void _d(desc_t *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void _d(desc_t *d, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (d->o + 1 >= d->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(d->buf + d->o, d->len - d->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		d->o += (size_t)n < d->len - d->o ? (size_t)n :
						      d->len - d->o - 1;
}

/* Whether the policies a and b give key def the same value (== for reals,
 * so 0 and -0 are one value, as they are to the allocator). */
static bool _same(const conf_key_def_t *def, const loc_policy_t *a,
		  const loc_policy_t *b)
{
	const char *fa = (const char *)a + def->off;
	const char *fb = (const char *)b + def->off;

	if (def->type == KT_REAL) {
		double x, y;

		memcpy(&x, fa, sizeof(x));
		memcpy(&y, fb, sizeof(y));
		return x == y;
	}
	return !memcmp(fa, fb, def->size);
}

/* Writes "Key=value" for the keys of home; for the policy keys, those of
 * pol that differ from base (all when base is NULL). Returns how many. */
static int _d_keys(desc_t *d, const loc_conf_t *conf, conf_key_home_t home,
		   const loc_policy_t *pol, const loc_policy_t *base)
{
	int n = 0;

	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		const conf_key_def_t *def = loc__conf_key_def(k);
		char val[64];

		if (def->home != home)
			continue;
		if (base && _same(def, pol, base))
			continue;
		_d(d, "%s%s=%s", n++ ? " " : "", def->info.name,
		   loc__conf_format(conf, pol, k, val, sizeof(val)));
	}
	return n;
}

/* Writes "Key=value" for the policy keys of a GresName line. Returns how
 * many. */
static int _d_gres_keys(desc_t *d, const loc_conf_t *conf,
			const loc_conf_gres_t *gr)
{
	int n = 0;

	for (int k = 0; k < LOC_KEY_COUNT; k++) {
		char val[64];

		if (!(gr->keys & (1u << k)))
			continue;
		_d(d, "%s%s=%s", n++ ? " " : "", loc__conf_key_def(k)->info.name,
		   loc__conf_format(conf, &gr->policies[conf->npartitions], k,
				    val, sizeof(val)));
	}
	return n;
}

/* ===================================================================== */
/* External functions                                                    */
/* ===================================================================== */

const char *loc_conf_describe(const loc_conf_t *conf, char *buf, int len)
{
	desc_t d = { .buf = buf, .len = len > 0 ? (size_t)len : 0 };
	const loc_shape_t *sh;
	long long placed = 0;
	char b1[64];

	if (!buf || len <= 0)
		return buf;
	buf[0] = '\0';
	if (!conf)
		return buf;
	sh = &conf->shape;
	_d(&d, "%s: Dimensions=%s Torus=", conf->path[0] ? conf->path :
				"locality.conf",
	   loc__conf_shape_str(sh, b1, sizeof(b1)));
	for (int i = 0; i < sh->ndims; i++)
		_d(&d, "%s%s", i ? "," : "", sh->torus[i] ? "yes" : "no");
	_d(&d, " NodesPerPoint=%d (%lld points, room for %lld nodes); ",
	   sh->nodes_per_point, loc__conf_npoints(sh),
	   loc__conf_npoints(sh) * sh->nodes_per_point);
	_d_keys(&d, conf, KH_POLICY, &conf->policy, NULL);
	_d(&d, " ");
	_d_keys(&d, conf, KH_CONF, &conf->policy, NULL);
	for (int i = 0; i < conf->nnodes_lines; i++)
		placed += conf->nodes[i].count;
	_d(&d, "; %d NodeName line%s placing %lld node%s",
	   conf->nnodes_lines, conf->nnodes_lines == 1 ? "" : "s", placed,
	   placed == 1 ? "" : "s");
	if (conf->nnodes_lines)
		_d(&d, ", the rest filling free points in row-major order");
	else
		_d(&d, " (all nodes fill points in row-major order)");
	for (int i = 0; i < conf->npartitions; i++) {
		_d(&d, "%s%s (", i ? ", " : "; partition overrides: ",
		   conf->partitions[i].name);
		if (!_d_keys(&d, conf, KH_POLICY, &conf->partitions[i].policy,
			     &conf->policy))
			_d(&d, "none");
		_d(&d, ")");
	}
	for (int i = 0; i < conf->ngres; i++) {
		_d(&d, "%s%s (", i ? ", " : "; GRES overrides: ",
		   conf->gres[i].name);
		if (!_d_gres_keys(&d, conf, &conf->gres[i]))
			_d(&d, "none");
		_d(&d, ")");
	}
	_d(&d, ".");
	return buf;
}
