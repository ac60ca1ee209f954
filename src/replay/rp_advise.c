/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise.c - ranking, table, ranking.csv, tradeoff.svg and the
 * locality.conf lines of locality-advise (see rp_advise.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_advise.h"

const char *rp_objective_name(rp_objective_t obj)
{
	switch (obj) {
	case RP_OBJ_WAIT:
		return "wait";
	case RP_OBJ_SLOWDOWN:
		return "slowdown";
	default:
		return "hops";
	}
}

static double _score(const rp_summary_t *s, rp_objective_t obj)
{
	switch (obj) {
	case RP_OBJ_WAIT:
		return s->mean_wait_s;
	case RP_OBJ_SLOWDOWN:
		return s->mean_bsd;
	default:
		return s->hops.mean;
	}
}

/* qsort order: ranked rows first; within the limit first; then the
 * objective, mean hops, mean wait, name (a total order: names differ) */
static int _cmp_rank(const void *a, const void *b)
{
	const rp_advice_row_t *x = a, *y = b;
	const rp_summary_t *sx = &x->row->sum, *sy = &y->row->sum;

	if (!x->spec != !y->spec)
		return x->spec ? -1 : 1;
	if (x->within_limit != y->within_limit)
		return x->within_limit ? -1 : 1;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	if (sx->hops.mean != sy->hops.mean)
		return sx->hops.mean < sy->hops.mean ? -1 : 1;
	if (sx->mean_wait_s != sy->mean_wait_s)
		return sx->mean_wait_s < sy->mean_wait_s ? -1 : 1;
	return strcmp(x->row->name, y->row->name);
}

int rp_advise_rank(rp_advice_t *adv, rp_rowset_t *set, int current_row,
		   rp_objective_t obj, double max_wait_ratio)
{
	rp_row_t *rows[MAX_ROWS + 1];
	int n = rp_rowset_all(set, rows), rank = 0;
	const rp_row_t *cur;

	if (current_row < 0 || current_row >= n || max_wait_ratio < 1)
		return LOC_EINVAL;
	memset(adv, 0, sizeof(*adv));
	cur = rows[current_row];
	adv->objective = obj;
	adv->max_wait_ratio = max_wait_ratio;
	adv->wait_limit_s = cur->sum.mean_wait_s * max_wait_ratio;
	for (int r = 0; r < n; r++) {
		rp_advice_row_t *a = &adv->rows[r];
		int sim = r - (set->have_recorded ? 1 : 0);

		a->row = rows[r];
		a->spec = rows[r]->recorded ? NULL : &set->specs[sim];
		a->current = r == current_row;
		/* the current row meets its own limit whatever rounding */
		a->within_limit = a->current ||
				  rows[r]->sum.mean_wait_s <= adv->wait_limit_s;
		a->score = _score(&rows[r]->sum, obj);
	}
	adv->nrows = n;
	qsort(adv->rows, n, sizeof(adv->rows[0]), _cmp_rank);
	adv->best = -1;
	for (int r = 0; r < n; r++) {
		if (adv->rows[r].current)
			adv->current = r;
		if (!adv->rows[r].spec)
			continue;
		adv->rows[r].rank = ++rank;
		if (rank == 1 && adv->rows[r].within_limit)
			adv->best = r;
	}
	return 0;
}

const char *rp_advise_conf_lines(const rp_advice_row_t *row,
				 const rp_opts_t *o, const loc_conf_t *conf,
				 char *buf, size_t len)
{
	const rp_spec_t *sp = row->spec;
	loc_curve_kind_t curve = conf->policy.curve;
	loc_walltime_mode_t mode;
	size_t at;

	if (!sp) {
		snprintf(buf, len, "# the recorded placement has no "
				   "locality.conf lines\n");
		return buf;
	}
	if (sp->curve >= 0)
		curve = (loc_curve_kind_t)sp->curve;
	else if (o->curve)
		curve = (loc_curve_kind_t)loc_curve_kind_parse(o->curve);
	mode = rp_wmode_policy(sp->wmode);
	at = (size_t)snprintf(buf, len, "Strategy=%s\nCurve=%s\nWalltimeAware=%s\n",
			      loc_strategy_kind_name(sp->strategy),
			      loc_curve_kind_name(curve),
			      loc_walltime_mode_name(mode));
	/* the keys the replayed mode read, with the values it used */
	if (at < len && (mode == LOC_WALLTIME_SL || mode == LOC_WALLTIME_COMBO ||
			 mode == LOC_WALLTIME_ADJEST))
		at += (size_t)snprintf(buf + at, len - at, "SLTolerance=%g\n",
				       o->sl_tolerance >= 0
					       ? o->sl_tolerance
					       : conf->policy.sl_tolerance);
	if (at < len && mode == LOC_WALLTIME_ADJEST)
		at += (size_t)snprintf(buf + at, len - at, "AdjEstWindow=%d\n",
				       o->adjest_window ? o->adjest_window
							: conf->adjest_window);
	/* CompactWait, when the rows were replayed with it */
	{
		int64_t cw = o->compact_wait >= 0 ? o->compact_wait
						  : conf->policy.compact_wait;
		double ct = o->compact_tolerance >= 0
				    ? o->compact_tolerance
				    : conf->policy.compact_tolerance;

		if (at < len && cw > 0)
			snprintf(buf + at, len - at,
				 "CompactWait=%lld\nCompactTolerance=%g\n",
				 (long long)cw, ct);
	}
	return buf;
}

/* x the current row's value, or "-" when the current's is 0 */
static void _ratio(char *buf, size_t len, double v, double cur)
{
	if (cur > 0)
		snprintf(buf, len, "%.3f", v / cur);
	else
		snprintf(buf, len, "-");
}

void rp_advise_print(FILE *f, const rp_advice_t *adv, const rp_opts_t *o,
		     const rp_input_t *in)
{
	const rp_advice_row_t *cur = &adv->rows[adv->current];
	const char *base = strrchr(o->trace, '/');
	char desc[256], conf_lines[512];
	int wname = 8;

	for (int r = 0; r < adv->nrows; r++) {
		int l = (int)strlen(adv->rows[r].row->name);

		if (l > wname)
			wname = l;
	}
	fprintf(f, "trace %s: %d jobs; machine %s (%d nodes)\n",
		base ? base + 1 : o->trace, in->w->njobs,
		loc_grid_describe(in->m->grid, desc, sizeof(desc)),
		in->m->nnodes);
	fprintf(f,
		"current placement: %s (mean hops %.3f, mean wait %.1f s)\n",
		cur->row->name, cur->row->sum.hops.mean,
		cur->row->sum.mean_wait_s);
	fprintf(f,
		"objective: lowest mean %s among rows whose mean wait is at "
		"most %.3g x the current's (%.1f s)\n",
		adv->objective == RP_OBJ_HOPS	? "hops"
		: adv->objective == RP_OBJ_WAIT ? "wait"
						: "bounded slowdown",
		adv->max_wait_ratio, adv->wait_limit_s);
	fprintf(f, "%4s  %-*s %7s %10s %8s %6s %8s %8s  %s\n", "rank", wname,
		"row", "hops", "wait_s", "bsd", "util", "hops_x", "wait_x",
		"note");
	for (int r = 0; r < adv->nrows; r++) {
		const rp_advice_row_t *a = &adv->rows[r];
		const rp_summary_t *s = &a->row->sum;
		char rank[16], hx[16], wx[16], note[64];

		if (a->rank)
			snprintf(rank, sizeof(rank), "%d", a->rank);
		else
			snprintf(rank, sizeof(rank), "-");
		_ratio(hx, sizeof(hx), s->hops.mean, cur->row->sum.hops.mean);
		_ratio(wx, sizeof(wx), s->mean_wait_s,
		       cur->row->sum.mean_wait_s);
		snprintf(note, sizeof(note), "%s%s%s%s%s",
			 a->current ? "current" : "",
			 a->current && r == adv->best ? ", " : "",
			 r == adv->best ? "best" : "",
			 !a->spec ? "the trace's own placement" : "",
			 a->spec && !a->within_limit ? "over the wait limit"
						     : "");
		fprintf(f, "%4s  %-*s %7.3f %10.1f %8.2f %6.3f %8s %8s%s%s\n",
			rank, wname, a->row->name, s->hops.mean, s->mean_wait_s,
			s->mean_bsd, s->utilization, hx, wx, note[0] ? "  " : "",
			note);
	}
	if (adv->best < 0) {
		fprintf(f, "\nno row meets the wait limit: keep the current "
			   "placement, or raise --max-wait-ratio\n");
		return;
	}
	fprintf(f, "\nlocality.conf lines for %s%s:\n",
		adv->rows[adv->best].row->name,
		adv->rows[adv->best].current ? " (the current placement)" : "");
	fputs(rp_advise_conf_lines(&adv->rows[adv->best], o, in->m->conf,
				   conf_lines, sizeof(conf_lines)),
	      f);
}

int rp_advise_write_csv(const char *path, const rp_advice_t *adv,
			loc_error_t *err)
{
	const rp_summary_t *cur = &adv->rows[adv->current].row->sum;
	FILE *f = fopen(path, "w");

	if (!f)
		return loc_error_set(err, LOC_EIO, path, 0, "cannot write: %s",
				     strerror(errno));
	fprintf(f, "rank,row,current,within_wait_limit,jobs,mean_hops,"
		   "mean_wait_s,mean_bsd,utilization,hops_vs_current,"
		   "wait_vs_current\n");
	for (int r = 0; r < adv->nrows; r++) {
		const rp_advice_row_t *a = &adv->rows[r];
		const rp_summary_t *s = &a->row->sum;

		fprintf(f, "%d,%s,%d,%d,%d,%.6f,%.3f,%.6f,%.6f,%.6f,%.6f\n",
			a->rank, a->row->name, a->current, a->within_limit,
			s->jobs, s->hops.mean, s->mean_wait_s, s->mean_bsd,
			s->utilization,
			cur->hops.mean > 0 ? s->hops.mean / cur->hops.mean : 0,
			cur->mean_wait_s > 0 ? s->mean_wait_s / cur->mean_wait_s
					     : 0);
	}
	if (ferror(f) | fclose(f))
		return loc_error_set(err, LOC_EIO, path, 0, "write failed");
	return 0;
}

/* A range with a margin, never empty. */
static void _range(double lo, double hi, double *a, double *b)
{
	double pad = (hi - lo) * 0.08;

	if (!(pad > 0))
		pad = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
	*a = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
	*b = hi + pad;
}

int rp_advise_write_svg(const char *path, const rp_advice_t *adv,
			loc_error_t *err)
{
	const int W = 760, H = 520, L = 70, R = 200, T = 40, B = 50;
	rp_svg_frame_t fr = {
		.left = L, .top = T, .width = W - L - R, .height = H - T - B,
		.ydigits = 2, .xlabel = "mean wait (s)",
		.ylabel = "mean pairwise hops",
	};
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	FILE *f;

	for (int r = 0; r < adv->nrows; r++) {
		const rp_summary_t *s = &adv->rows[r].row->sum;

		xlo = fmin(xlo, s->mean_wait_s);
		xhi = fmax(xhi, s->mean_wait_s);
		ylo = fmin(ylo, s->hops.mean);
		yhi = fmax(yhi, s->hops.mean);
	}
	xhi = fmax(xhi, adv->wait_limit_s);
	_range(xlo, xhi, &fr.xlo, &fr.xhi);
	_range(ylo, yhi, &fr.ylo, &fr.yhi);
	f = rp_svg_open(path, W, H, 11, err);
	if (!f)
		return err->code;
	fprintf(f,
		"<text x=\"%d\" y=\"20\" font-size=\"13\">Mean hops against "
		"mean wait, one point per row (objective: %s, wait limit "
		"%.3g x current)</text>\n",
		L, rp_objective_name(adv->objective), adv->max_wait_ratio);
	rp_svg_frame(f, &fr);
	/* the wait limit: rows right of it are over */
	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		"stroke=\"#d55e00\" stroke-dasharray=\"5 3\"/>\n"
		"<text x=\"%.1f\" y=\"%d\" fill=\"#d55e00\">wait limit</text>\n",
		RP_SVG_X(&fr, adv->wait_limit_s), T,
		RP_SVG_X(&fr, adv->wait_limit_s), T + fr.height,
		RP_SVG_X(&fr, adv->wait_limit_s) + 3, T + 12);
	for (int r = 0; r < adv->nrows; r++) {
		const rp_advice_row_t *a = &adv->rows[r];
		double x = RP_SVG_X(&fr, a->row->sum.mean_wait_s);
		double y = RP_SVG_Y(&fr, a->row->sum.hops.mean);
		const char *col = a->current	    ? "#000000"
				  : r == adv->best  ? "#009e73"
				  : !a->spec	    ? "#cc79a7"
				  : a->within_limit ? "#0072b2"
						    : "#999999";
		int big = a->current || r == adv->best || !a->spec;

		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\">"
			"<title>",
			x, y, big ? 5 : 3, col);
		rp_svg_esc(f, a->row->name);
		fprintf(f, ": %.3f hops, %.1f s</title></circle>\n",
			a->row->sum.hops.mean, a->row->sum.mean_wait_s);
		/* name the rows that matter and the first few ranks */
		if (big || (a->rank && a->rank <= 5)) {
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">",
				x + 6, y - 4, col);
			rp_svg_esc(f, a->row->name);
			fprintf(f, "</text>\n");
		}
	}
	{
		static const char *const key[][2] = {
			{ "#000000", "current" },
			{ "#009e73", "best" },
			{ "#0072b2", "within the wait limit" },
			{ "#999999", "over the wait limit" },
			{ "#cc79a7", "recorded (not a candidate)" },
		};

		for (int k = 0; k < 5; k++) {
			fprintf(f,
				"<circle cx=\"%d\" cy=\"%d\" r=\"4\" "
				"fill=\"%s\"/>\n<text x=\"%d\" y=\"%d\">%s"
				"</text>\n",
				L + fr.width + 16, T + 10 + 18 * k, key[k][0],
				L + fr.width + 26, T + 14 + 18 * k, key[k][1]);
		}
	}
	return rp_svg_close(f, path, err);
}
