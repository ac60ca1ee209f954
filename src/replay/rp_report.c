/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_report.c - per-job metrics, row summaries and loss of capacity
 * (seed 004 eq. 1); rp_report_write.c writes them out.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loc_ideal.h"
#include "rp_report.h"

void rp_row_free(rp_row_t *row)
{
	if (!row)
		return;
	free(row->jobs);
	free(row->own_nodes);
	rp_run_destroy(row->run);
	loc_curve_destroy(row->curve);
	for (int i = 0; row->snap_owner && i < row->nsnaps; i++)
		free(row->snap_owner[i]);
	free(row->snap_owner);
	free(row->snap_time);
	free(row->decision_name);
	free(row->decision_mean);
	memset(row, 0, sizeof(*row));
}

/* ===================================================================== */
/* Statistics                                                            */
/* ===================================================================== */

double rp_quantile(const double *sorted, int n, double q)
{
	long k;

	if (n < 1)
		return 0;
	k = (long)ceil(q * n - 1e-9) - 1;
	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	return sorted[k];
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Fills st from n values and runtimes (weights). vals is sorted in place. */
static void _stat(rp_stat_t *st, double *vals, const double *weight, int n)
{
	double sum = 0, wsum = 0, wv = 0;

	memset(st, 0, sizeof(*st));
	if (n < 1)
		return;
	for (int i = 0; i < n; i++) {
		sum += vals[i];
		wsum += weight[i];
		wv += weight[i] * vals[i];
	}
	st->mean = sum / n;
	st->rw_mean = wsum > 0 ? wv / wsum : st->mean;
	qsort(vals, n, sizeof(double), _cmp_double);
	st->median = rp_quantile(vals, n, 0.5);
	st->p95 = rp_quantile(vals, n, 0.95);
	st->max = vals[n - 1];
}

/* Fenwick tree over job sizes 1..n: counts of waiting jobs. */
static void _fw_add(int *fw, int n, int i, int d)
{
	for (; i <= n; i += i & -i)
		fw[i] += d;
}

static int _fw_sum(const int *fw, int i)
{
	int s = 0;

	for (; i > 0; i -= i & -i)
		s += fw[i];
	return s;
}

typedef struct lev {
	int64_t t;
	int kind; /* 0 submit, 1 start, 2 end */
	int size; /* nodes */
} lev_t;

static int _cmp_lev(const void *a, const void *b)
{
	const lev_t *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->kind - y->kind;
}

double rp_loss_of_capacity(int nnodes, int n, const int64_t *submit,
			   const int64_t *start, const int64_t *end,
			   const int *size, bool le)
{
	lev_t *ev;
	int *fw, m = 0, top = nnodes + 1;
	int64_t busy = 0, t1, tm;
	double lost = 0;

	if (n == 0 || nnodes < 1)
		return 0;
	ev = malloc(sizeof(lev_t) * (3 * (size_t)n));
	fw = calloc(nnodes + 2, sizeof(int));
	if (!ev || !fw) {
		free(ev);
		free(fw);
		return -1;
	}
	for (int j = 0; j < n; j++) {
		ev[m++] = (lev_t){ submit[j], 0, size[j] };
		ev[m++] = (lev_t){ start[j], 1, size[j] };
		ev[m++] = (lev_t){ end[j], 2, size[j] };
	}
	qsort(ev, m, sizeof(lev_t), _cmp_lev);
	t1 = ev[0].t;
	tm = ev[m - 1].t;
	for (int i = 0; i < m;) {
		int64_t t = ev[i].t, idle;
		int waiting_small;

		/* apply every event at t, then look at [t, next) */
		for (; i < m && ev[i].t == t; i++) {
			int s = ev[i].size < 1	   ? 1
				: ev[i].size > top ? top
						   : ev[i].size;

			if (ev[i].kind == 0) {
				_fw_add(fw, top, s, 1);
			} else if (ev[i].kind == 1) {
				_fw_add(fw, top, s, -1);
				busy += ev[i].size;
			} else {
				busy -= ev[i].size;
			}
		}
		if (i == m)
			break;
		idle = nnodes - busy;
		if (idle <= 0)
			continue;
		/* delta_i: a waiting job smaller than the idle count */
		waiting_small = _fw_sum(
			fw, (int)(le ? (idle < top ? idle : top)
				     : (idle - 1 < top ? idle - 1 : top)));
		if (waiting_small > 0)
			lost += (double)idle * (double)(ev[i].t - t);
	}
	free(ev);
	free(fw);
	return tm > t1 ? lost / ((double)nnodes * (double)(tm - t1)) : 0;
}

/* ===================================================================== */
/* Rows                                                                  */
/* ===================================================================== */

/* Hops over the ideal: the mean of the multi-node jobs' hops over the
 * mean of their sizes' ideals, as bench/live_report.py's x_ideal (a ratio
 * of means, so that large jobs weigh by their hops). */
static double _hops_x_ideal(const rp_row_t *row, const uint8_t *keep)
{
	double hops = 0, ideal = 0;

	for (int i = 0; i < row->njobs; i++) {
		const rp_rowjob_t *j = &row->jobs[i];

		if (j->nnodes < 2 || (keep && !keep[j->trace_index]))
			continue;
		hops += j->m.avg_pair_hops;
		ideal += j->ideal_hops;
	}
	return ideal > 0 ? hops / ideal : 0;
}

/* Computes row->sum from row->jobs. Returns 0 or LOC_ENOMEM. */
static int _summarize(rp_row_t *row, int nnodes, bool le)
{
	rp_summary_t *s = &row->sum;
	int n = row->njobs;
	size_t nn = n ? n : 1;
	double *v = calloc(nn, sizeof(double)), *w = calloc(nn, sizeof(double));
	int64_t *sub = calloc(nn, sizeof(int64_t)),
		*st = calloc(nn, sizeof(int64_t));
	int64_t *en = calloc(nn, sizeof(int64_t)), t1 = INT64_MAX,
		tm = INT64_MIN;
	int *sz = calloc(nn, sizeof(int));
	double bsd = 0, area = 0;
	int rc = 0;

	if (!v || !w || !sub || !st || !en || !sz) {
		rc = LOC_ENOMEM;
		goto out;
	}
	s->jobs = n;
	for (int i = 0; i < n; i++) {
		const rp_rowjob_t *j = &row->jobs[i];
		int64_t run = j->end - j->start, wait = j->start - j->submit;

		w[i] = (double)run;
		sub[i] = j->submit;
		st[i] = j->start;
		en[i] = j->end;
		sz[i] = j->nnodes;
		bsd += fmax(1.0, (double)(wait + run) /
					 (double)(run > RP_BSD_BOUND_SEC
							  ? run
							  : RP_BSD_BOUND_SEC));
		area += (double)j->nnodes * (double)run;
		if (j->submit < t1)
			t1 = j->submit;
		if (j->end > tm)
			tm = j->end;
	}
	s->mean_bsd = n ? bsd / n : 0;
	s->hops_x_ideal = _hops_x_ideal(row, NULL);
	s->makespan_s = n ? tm - t1 : 0;
	s->utilization = n && tm > t1 ? area / ((double)nnodes * (tm - t1)) : 0;
	s->loss_of_capacity =
		rp_loss_of_capacity(nnodes, n, sub, st, en, sz, le);
	if (s->loss_of_capacity < 0) {
		rc = LOC_ENOMEM;
		goto out;
	}
	{
		rp_stat_t ws;

		for (int i = 0; i < n; i++)
			v[i] = (double)(row->jobs[i].start -
					row->jobs[i].submit);
		_stat(&ws, v, w, n);
		s->mean_wait_s = ws.mean;
		s->median_wait_s = ws.median;
		s->p95_wait_s = ws.p95;
		s->max_wait_s = ws.max;
	}
#define RP_STAT(field, expr)                                      \
	do {                                                      \
		for (int i = 0; i < n; i++) {                     \
			const loc_metrics_t *m = &row->jobs[i].m; \
			v[i] = (double)(expr);                    \
		}                                                 \
		_stat(&s->field, v, w, n);                        \
	} while (0)
	RP_STAT(hops, m->avg_pair_hops);
	RP_STAT(total_hops, m->total_pair_hops);
	RP_STAT(span, m->linear_span);
	RP_STAT(bbox, m->bbox_volume);
	RP_STAT(dispersal, m->dispersal);
	RP_STAT(components, m->components);
#undef RP_STAT
out:
	free(v);
	free(w);
	free(sub);
	free(st);
	free(en);
	free(sz);
	return rc;
}

int rp_summary_compute(const rp_row_t *row, const uint8_t *keep, int nnodes,
		       bool le, rp_summary_t *s)
{
	rp_rowjob_t *kept = malloc(sizeof(rp_rowjob_t) * (row->njobs + 1));
	rp_row_t sub;
	int rc;

	if (!kept)
		return LOC_ENOMEM;
	sub = *row;
	sub.jobs = kept;
	sub.njobs = 0;
	for (int i = 0; i < row->njobs; i++)
		if (!keep || keep[row->jobs[i].trace_index])
			kept[sub.njobs++] = row->jobs[i];
	sub.sum = *s;
	rc = _summarize(&sub, nnodes, le);
	*s = sub.sum;
	free(kept);
	return rc;
}

int rp_rows_set_ideal(rp_row_t *const *rows, int nrows,
		      const rp_machine_t *m, loc_error_t *err)
{
	loc_ideal_t *ideal = loc_ideal_create(m->grid, &m->conf->policy, err);

	if (!ideal)
		return err ? err->code : LOC_ENOMEM;
	for (int r = 0; r < nrows; r++) {
		rp_row_t *row = rows[r];

		for (int i = 0; i < row->njobs; i++) {
			rp_rowjob_t *j = &row->jobs[i];
			double h = loc_ideal_avg_pair_hops(ideal, j->nnodes,
							   err);

			if (h < 0) {
				loc_ideal_destroy(ideal);
				return (int)h;
			}
			j->ideal_hops = h;
		}
		row->sum.hops_x_ideal = _hops_x_ideal(row, NULL);
	}
	loc_ideal_destroy(ideal);
	return 0;
}

static void _file_name(rp_row_t *row)
{
	size_t i;

	for (i = 0; row->name[i] && i + 1 < sizeof(row->file); i++) {
		char c = row->name[i];

		row->file[i] = (c == '/' || c == '\\' || c == ' ' || c == ':')
				       ? '-'
				       : c;
	}
	row->file[i] = '\0';
}

int rp_row_from_run(rp_row_t *row, const rp_workload_t *w,
		    const rp_machine_t *m, const loc_curve_t *curve,
		    bool loc_le)
{
	rp_run_t *run = row->run;
	int *map = malloc(sizeof(int) * (w->njobs + 1)), n = 0, rc;

	_file_name(row);
	row->jobs = calloc(w->njobs + 1, sizeof(rp_rowjob_t));
	if (!map || !row->jobs) {
		free(map);
		return LOC_ENOMEM;
	}
	for (int j = 0; j < w->njobs; j++) {
		rp_rowjob_t *rj = &row->jobs[n];

		map[j] = -1;
		if (run->reject[j] != RP_OK || run->start[j] < 0)
			continue;
		rj->trace_index = w->jobs[j].trace_index;
		rj->submit = w->jobs[j].submit;
		rj->start = run->start[j];
		rj->end = run->end[j];
		rj->req_nodes = w->jobs[j].nodes;
		rj->nnodes = w->jobs[j].nodes;
		rj->nodes = run->pool + run->node_off[j];
		rc = loc_metrics_compute(m->grid, curve, rj->nodes, rj->nnodes,
					 &rj->m);
		if (rc) {
			free(map);
			return rc;
		}
		map[j] = n++;
	}
	row->njobs = n;
	for (int j = 0; j < w->njobs; j++) {
		if (run->reject[j] == RP_REJECT_TOO_LARGE)
			row->sum.rejected_too_large++;
		else if (run->reject[j] == RP_REJECT_NO_FIT)
			row->sum.rejected_no_fit++;
		row->sum.pf_took += run->pf_partner[j];
	}
	row->sum.pf_pairs = run->pf_pairs;
	row->sum.backfilled = run->nbackfilled;
	/* snapshots: workload job -> row job */
	row->nsnaps = run->nsnaps;
	row->snap_time = calloc(run->nsnaps + 1, sizeof(int64_t));
	row->snap_owner = calloc(run->nsnaps + 1, sizeof(int *));
	if (!row->snap_time || !row->snap_owner) {
		free(map);
		return LOC_ENOMEM;
	}
	for (int s = 0; s < run->nsnaps; s++) {
		row->snap_time[s] = run->snap_time[s];
		row->snap_owner[s] = malloc(sizeof(int) * m->nnodes);
		if (!row->snap_owner[s]) {
			free(map);
			return LOC_ENOMEM;
		}
		for (int v = 0; v < m->nnodes; v++) {
			int j = run->snap_owner[s][v];

			row->snap_owner[s][v] = j < 0 ? -1 : map[j];
		}
	}
	free(map);
	return _summarize(row, m->nnodes, loc_le);
}

static int _cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int rp_row_recorded(rp_row_t *row, const loc_trace_t *trace,
		    const rp_workload_t *w, const rp_machine_t *m,
		    loc_curve_kind_t curve, const int64_t *snap_times,
		    int nsnaps, bool loc_le, loc_error_t *err)
{
	int64_t total = 0;
	int n = 0, rc;

	snprintf(row->name, sizeof(row->name), "recorded");
	_file_name(row);
	row->recorded = true;
	row->curve = loc_curve_create(m->grid, curve, err);
	if (!row->curve)
		return err ? err->code : LOC_EINVAL;
	for (int j = 0; j < w->njobs; j++) {
		const loc_trace_job_t *tj =
			&trace->jobs[w->jobs[j].trace_index];

		if (tj->nrec > 0 && tj->start != LOC_TRACE_UNKNOWN)
			total += tj->nrec;
	}
	row->jobs = calloc(w->njobs + 1, sizeof(rp_rowjob_t));
	row->own_nodes = malloc(sizeof(int) * (total + 1));
	if (!row->jobs || !row->own_nodes)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
	total = 0;
	for (int j = 0; j < w->njobs; j++) {
		const loc_trace_job_t *tj =
			&trace->jobs[w->jobs[j].trace_index];
		rp_rowjob_t *rj = &row->jobs[n];
		int *dst = row->own_nodes + total, k = 0;

		if (tj->nrec < 1 || tj->start == LOC_TRACE_UNKNOWN)
			continue;
		for (int i = 0; i < tj->nrec; i++) {
			int v = m->trace_node[tj->rec_nodes[i]];

			if (v < 0)
				return loc_error_set(
					err, LOC_ENOENT, trace->path, tj->line,
					"node %s is not on the machine",
					trace->node_names[tj->rec_nodes[i]]);
			dst[k++] = v;
		}
		qsort(dst, k, sizeof(int), _cmp_int);
		rj->trace_index = w->jobs[j].trace_index;
		rj->submit = tj->submit;
		rj->start = tj->start;
		rj->end = tj->start + tj->runtime;
		rj->req_nodes = tj->nodes;
		rj->nnodes = k;
		rj->nodes = dst;
		rc = loc_metrics_compute(m->grid, row->curve, dst, k, &rj->m);
		if (rc)
			return loc_error_set(err, rc, trace->path, tj->line,
					     "metrics of job %s failed",
					     tj->id);
		total += k;
		n++;
	}
	row->njobs = n;
	/* snapshots from the recorded intervals (the last job wins where a
	 * non-exclusive trace shares nodes) */
	row->nsnaps = nsnaps;
	row->snap_time = calloc(nsnaps + 1, sizeof(int64_t));
	row->snap_owner = calloc(nsnaps + 1, sizeof(int *));
	if (!row->snap_time || !row->snap_owner)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
	for (int s = 0; s < nsnaps; s++) {
		row->snap_time[s] = snap_times[s];
		row->snap_owner[s] = malloc(sizeof(int) * m->nnodes);
		if (!row->snap_owner[s])
			return loc_error_set(err, LOC_ENOMEM, NULL, 0,
					     "out of memory");
		for (int v = 0; v < m->nnodes; v++)
			row->snap_owner[s][v] = -1;
		for (int i = 0; i < n; i++) {
			const rp_rowjob_t *rj = &row->jobs[i];

			if (rj->start <= snap_times[s] &&
			    snap_times[s] < rj->end)
				for (int q = 0; q < rj->nnodes; q++)
					row->snap_owner[s][rj->nodes[q]] = i;
		}
	}
	rc = _summarize(row, m->nnodes, loc_le);
	if (rc)
		return loc_error_set(err, rc, NULL, 0, "out of memory");
	return 0;
}
