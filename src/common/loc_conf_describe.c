/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_conf_describe.c - loc_conf_describe(): a parsed locality.conf as one
 * paragraph, for the plugin's start-up log and `locality-replay
 * --show-config`.
 */
#include <stdarg.h>
#include <stdio.h>

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

/* Writes the policy keys of pol that differ from base (all when NULL). */
static int _d_policy(desc_t *d, const loc_policy_t *pol,
		     const loc_policy_t *base)
{
	int n = 0;

#define D_FIELD(field, fmt, ...)                                  \
	do {                                                      \
		if (!base || pol->field != base->field)           \
			_d(d, "%s" fmt, n++ ? " " : "", __VA_ARGS__); \
	} while (0)
	D_FIELD(strategy, "Strategy=%s", loc_strategy_kind_name(pol->strategy));
	D_FIELD(curve, "Curve=%s", loc_curve_kind_name(pol->curve));
	D_FIELD(walltime, "WalltimeAware=%s",
		loc_walltime_mode_name(pol->walltime));
	D_FIELD(sl_tolerance, "SLTolerance=%g", pol->sl_tolerance);
	D_FIELD(paging_size, "PagingSize=%d", pol->paging_size);
	D_FIELD(paging_index, "PagingIndex=%s",
		loc_paging_index_name(pol->paging_index));
	D_FIELD(mm_max_centers, "MMMaxCenters=%d", pol->mm_max_centers);
	D_FIELD(seed, "Seed=%llu", (unsigned long long)pol->seed);
	D_FIELD(node_weight, "NodeWeight=%s",
		loc_node_weight_name(pol->node_weight));
	D_FIELD(pack_tolerance, "PackTolerance=%g", pol->pack_tolerance);
	D_FIELD(compact_wait, "CompactWait=%lld",
		(long long)pol->compact_wait);
	D_FIELD(compact_tolerance, "CompactTolerance=%g",
		pol->compact_tolerance);
	D_FIELD(plan_window, "PlanWindow=%lld", (long long)pol->plan_window);
	D_FIELD(plan_hold, "PlanHold=%s", loc_plan_hold_name(pol->plan_hold));
#undef D_FIELD
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
	_d_policy(&d, &conf->policy, NULL);
	_d(&d, " PFHoldTime=%d AdjEstWindow=%d", conf->pf_hold_sec,
	   conf->adjest_window);
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
		if (!_d_policy(&d, &conf->partitions[i].policy, &conf->policy))
			_d(&d, "none");
		_d(&d, ")");
	}
	_d(&d, ".");
	return buf;
}
