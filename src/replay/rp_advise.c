/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise.c - ranking, table, ranking.csv, tradeoff.svg and the
 * locality.conf lines of locality-advise (see rp_advise.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
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

double rp_advise_score(const rp_summary_t *s, rp_objective_t obj)
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

/* Where a row sorts: candidates, then rows that missed jobs, then the
 * recorded placement. */
static int _group(const rp_advice_row_t *a)
{
	return a->candidate ? 0 : a->spec ? 1 : 2;
}

/* qsort order: candidates first; within the limit first; then the
 * objective, mean hops, mean wait, name (a total order: names differ) */
static int _cmp_rank(const void *a, const void *b)
{
	const rp_advice_row_t *x = a, *y = b;
	const rp_summary_t *sx = &x->compared, *sy = &y->compared;

	if (_group(x) != _group(y))
		return _group(x) - _group(y);
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

/*
 * The jobs the current placement ran, by trace index (the key every row
 * shares): a calloc'd array of *len flags, or NULL.
 */
static uint8_t *_current_jobs(rp_row_t *const *rows, int n, const rp_row_t *cur,
			      int *len)
{
	int top = 0;
	uint8_t *ran;

	for (int r = 0; r < n; r++)
		for (int i = 0; i < rows[r]->njobs; i++)
			if (rows[r]->jobs[i].trace_index >= top)
				top = rows[r]->jobs[i].trace_index + 1;
	ran = calloc((size_t)top + 1, 1);
	if (!ran)
		return NULL;
	for (int i = 0; i < cur->njobs; i++)
		ran[cur->jobs[i].trace_index] = 1;
	*len = top;
	return ran;
}

int rp_advise_rank(rp_advice_t *adv, rp_rowset_t *set, int current_row,
		   rp_objective_t obj, double max_wait_ratio, int nnodes,
		   bool loc_le)
{
	rp_row_t *rows[MAX_ROWS + 1];
	int n = rp_rowset_all(set, rows), rank = 0, len = 0;
	const rp_row_t *cur;
	uint8_t *cur_ran;

	if (current_row < 0 || current_row >= n || max_wait_ratio < 1)
		return LOC_EINVAL;
	memset(adv, 0, sizeof(*adv));
	cur = rows[current_row];
	cur_ran = _current_jobs(rows, n, cur, &len);
	if (!cur_ran)
		return LOC_ENOMEM;
	adv->objective = obj;
	adv->max_wait_ratio = max_wait_ratio;
	adv->compared_jobs = cur->njobs;
	for (int r = 0; r < n; r++) {
		rp_advice_row_t *a = &adv->rows[r];
		int sim = r - (set->have_recorded ? 1 : 0), both = 0;

		a->row = rows[r];
		a->spec = rows[r]->recorded ? NULL : &set->specs[sim];
		a->current = r == current_row;
		a->served = rows[r]->njobs;
		for (int i = 0; i < rows[r]->njobs; i++)
			both += cur_ran[rows[r]->jobs[i].trace_index];
		a->not_served = cur->njobs - both;
		a->candidate = a->spec && a->not_served == 0;
		/* the same jobs for every row: the current's */
		a->compared = rows[r]->sum;
		if (rp_summary_compute(rows[r], cur_ran, nnodes, loc_le,
				       &a->compared)) {
			free(cur_ran);
			return LOC_ENOMEM;
		}
		a->score = rp_advise_score(&a->compared, obj);
	}
	free(cur_ran);
	adv->wait_limit_s =
		adv->rows[current_row].compared.mean_wait_s * max_wait_ratio;
	for (int r = 0; r < n; r++) {
		rp_advice_row_t *a = &adv->rows[r];

		/* the current row meets its own limit whatever rounding */
		a->within_limit = a->current ||
				  a->compared.mean_wait_s <= adv->wait_limit_s;
	}
	adv->nrows = n;
	qsort(adv->rows, n, sizeof(adv->rows[0]), _cmp_rank);
	adv->best = -1;
	for (int r = 0; r < n; r++) {
		if (adv->rows[r].current)
			adv->current = r;
		if (!adv->rows[r].candidate)
			continue;
		adv->rows[r].rank = ++rank;
		if (rank == 1 && adv->rows[r].within_limit)
			adv->best = r;
	}
	return 0;
}

/*
 * Appends the CompactWait, CompactTolerance, PlanWindow and PlanHold lines
 * the row was replayed with: its own override, else the global option,
 * else locality.conf (rp_spec_policy, as the replay). A key is printed
 * when the row sets it or its value is not the built-in default, so the
 * lines are complete whatever the site's locality.conf says today.
 * CompactTolerance goes with any CompactWait > 0: it is what the wait
 * judges by. Returns the new end of buf.
 */
static size_t _policy_lines(char *buf, size_t len, size_t at,
			    const rp_spec_t *sp, const rp_opts_t *o,
			    const loc_conf_t *conf)
{
	static const loc_conf_key_t keys[] = {
		LOC_KEY_COMPACT_WAIT, LOC_KEY_COMPACT_TOL,
		LOC_KEY_COMPACT_CLAIMS, LOC_KEY_PLAN_WINDOW,
		LOC_KEY_PLAN_HOLD,
	};
	loc_policy_t def, pol;

	rp_spec_policy(sp, o, conf, &pol);
	loc_policy_init(&def);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		loc_conf_key_t k = keys[i];
		char val[64];
		bool show;

		loc_conf_policy_key_value(&pol, k, val, sizeof(val));
		show = loc_conf_overrides_has(&sp->keys, k) ||
		       !loc_conf_policy_key_equal(&pol, &def, k) ||
		       (k == LOC_KEY_COMPACT_TOL && pol.compact_wait > 0);
		if (show && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s=%s\n",
					       loc_conf_key_info(k)->name, val);
	}
	return at;
}

const char *rp_advise_conf_lines(const rp_advice_row_t *row,
				 const rp_opts_t *o, const loc_conf_t *conf,
				 char *buf, size_t len)
{
	const rp_spec_t *sp = row->spec;
	loc_policy_t pol;
	loc_conf_t keys; /* the keys outside the policy the row ran with */
	loc_walltime_mode_t mode;
	size_t at;

	if (!sp) {
		snprintf(buf, len, "# the recorded placement has no "
				   "locality.conf lines\n");
		return buf;
	}
	rp_spec_policy(sp, o, conf, &pol);
	rp_spec_conf(sp, o, conf, &keys);
	mode = rp_wmode_policy(sp->wmode);
	at = (size_t)snprintf(buf, len, "Strategy=%s\nCurve=%s\nWalltimeAware=%s\n",
			      loc_strategy_kind_name(sp->strategy),
			      loc_curve_kind_name(pol.curve),
			      loc_walltime_mode_name(mode));
	/* the keys the replayed mode read, with the values it used */
	if (at < len && loc_policy_sl(&pol))
		at += (size_t)snprintf(buf + at, len - at, "SLTolerance=%g\n",
				       pol.sl_tolerance);
	if (at < len && mode == LOC_WALLTIME_ADJEST)
		at += (size_t)snprintf(buf + at, len - at, "AdjEstWindow=%d\n",
				       keys.adjest_window);
	_policy_lines(buf, len, at, sp, o, conf);
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

/* Whether a row pairs jobs (paired filling: pf, combo, adjest). */
static bool _pairs(const rp_advice_row_t *a)
{
	return a->spec &&
	       (a->spec->wmode == RP_W_PF || a->spec->wmode == RP_W_COMBO ||
		a->spec->wmode == RP_W_ADJEST);
}

/* The note of a row: current, best, why it is not ranked, over the
 * limit. */
static void _note(char *buf, size_t len, const rp_advice_t *adv, int r)
{
	const rp_advice_row_t *a = &adv->rows[r];
	size_t at = 0;

	buf[0] = '\0';
#define NOTE(...)                                                           \
	do {                                                                \
		if (at < len)                                               \
			at += (size_t)snprintf(buf + at, len - at, "%s",    \
					       at ? ", " : "");             \
		if (at < len)                                               \
			at += (size_t)snprintf(buf + at, len - at,          \
					       __VA_ARGS__);                \
	} while (0)
	if (a->current)
		NOTE("current");
	if (r == adv->best)
		NOTE("best");
	if (!a->spec)
		NOTE("the trace's own placement");
	else if (!a->candidate)
		NOTE("did not run %d of the current's jobs: never recommended",
		     a->not_served);
	if (a->spec && !a->within_limit)
		NOTE("over the wait limit");
#undef NOTE
}

void rp_advise_print(FILE *f, const rp_advice_t *adv, const rp_opts_t *o,
		     const rp_input_t *in)
{
	const rp_advice_row_t *cur = &adv->rows[adv->current];
	const rp_summary_t *cs = &cur->compared;
	const char *base = strrchr(o->trace, '/');
	char desc[256], conf_lines[512];
	int wname = 8, missing = 0;

	for (int r = 0; r < adv->nrows; r++) {
		int l = (int)strlen(adv->rows[r].row->name);

		if (l > wname)
			wname = l;
		if (adv->rows[r].spec && !adv->rows[r].candidate)
			missing++;
	}
	fprintf(f, "trace %s: %d jobs; machine %s (%d nodes)\n",
		base ? base + 1 : o->trace, in->w->njobs,
		loc_grid_describe(in->m->grid, desc, sizeof(desc)),
		in->m->nnodes);
	if (o->turnaround)
		fprintf(f, "nodes free %lld s after their job ends "
			   "(--turnaround)\n",
			(long long)o->turnaround);
	if (o->sched != RP_SCHED_EASY)
		fprintf(f, "scheduling: %s (--sched)\n",
			rp_sched_name(o->sched));
	fprintf(f,
		"current placement: %s (ran %d of %d jobs; mean hops %.3f, "
		"mean wait %.1f s)\n",
		cur->row->name, adv->compared_jobs, in->w->njobs,
		cs->hops.mean, cs->mean_wait_s);
	if (missing)
		fprintf(f,
			"every row is compared on those %d jobs; %d row%s "
			"that did not run them all %s shown but never "
			"recommended\n",
			adv->compared_jobs, missing, missing == 1 ? "" : "s",
			missing == 1 ? "is" : "are");
	else
		fprintf(f,
			"every row is compared on those %d jobs; every candidate "
			"ran them all\n",
			adv->compared_jobs);
	fprintf(f,
		"objective: lowest mean %s among rows whose mean wait is at "
		"most %.3g x the current's (%.1f s)\n",
		adv->objective == RP_OBJ_HOPS	? "hops"
		: adv->objective == RP_OBJ_WAIT ? "wait"
						: "bounded slowdown",
		adv->max_wait_ratio, adv->wait_limit_s);
	fprintf(f, "%4s  %-*s %7s %7s %10s %8s %6s %7s %8s %8s  %s\n", "rank",
		wname, "row", "served", "hops", "wait_s", "bsd", "util",
		"x_ideal", "hops_x", "wait_x", "note");
	for (int r = 0; r < adv->nrows; r++) {
		const rp_advice_row_t *a = &adv->rows[r];
		const rp_summary_t *s = &a->compared;
		char rank[16], hx[16], wx[16], note[160];

		if (a->rank)
			snprintf(rank, sizeof(rank), "%d", a->rank);
		else
			snprintf(rank, sizeof(rank), "-");
		_ratio(hx, sizeof(hx), s->hops.mean, cs->hops.mean);
		_ratio(wx, sizeof(wx), s->mean_wait_s, cs->mean_wait_s);
		_note(note, sizeof(note), adv, r);
		fprintf(f,
			"%4s  %-*s %7d %7.3f %10.1f %8.2f %6.3f %7.3f %8s "
			"%8s%s%s\n",
			rank, wname, a->row->name, a->served, s->hops.mean,
			s->mean_wait_s, s->mean_bsd, s->utilization,
			s->hops_x_ideal, hx, wx, note[0] ? "  " : "", note);
	}
	if (adv->best < 0) {
		fprintf(f, "\nno row that runs every job meets the wait "
			   "limit: keep the current placement, or raise "
			   "--max-wait-ratio\n");
		return;
	}
	fprintf(f, "\nlocality.conf lines for %s (it ran all %d jobs%s):\n",
		adv->rows[adv->best].row->name, adv->compared_jobs,
		adv->rows[adv->best].current ? "; the current placement" : "");
	fputs(rp_advise_conf_lines(&adv->rows[adv->best], o, in->m->conf,
				   conf_lines, sizeof(conf_lines)),
	      f);
	/* comments, so the block can be pasted whole */
	if (o->topology_site) {
		fprintf(f, "# in slurm.conf: SelectType=select/cons_tres and "
			   "TopologyPlugin=topology/locality (Slurm "
			   "24.11/26.05);\n"
			   "# every row here (--plugin topology) has walltime "
			   "mode none or sl and PlanWindow 0, which it "
			   "honours\n");
		return;
	}
	if (_pairs(&adv->rows[adv->best]))
		fprintf(f, "# PF (pf, combo, adjest): not seen to win live "
			   "(2026-12-07: pack+pf waited 0.86-1.13x pack's at "
			   "the same hops; doc/performance.md, \"Paired "
			   "filling, live\")\n");
	fprintf(f,
		"# select/linear-style sites: SelectType=select/locality in "
		"slurm.conf\n"
		"# cons_tres sites (Slurm 24.11/26.05): the same locality.conf "
		"keys with SelectType=select/cons_tres and "
		"TopologyPlugin=topology/locality\n"
		"# (topology/locality places with WalltimeAware none or sl "
		"and reads PlanWindow but cannot use it: there the row's "
		"figures hold only with those modes and 0)\n");
}

int rp_advise_write_csv(const char *path, const rp_advice_t *adv,
			loc_error_t *err)
{
	const rp_summary_t *cur = &adv->rows[adv->current].compared;
	FILE *f = fopen(path, "w");

	if (!f)
		return loc_error_set(err, LOC_EIO, path, 0, "cannot write: %s",
				     strerror(errno));
	fprintf(f, "rank,row,current,within_wait_limit,jobs,mean_hops,"
		   "mean_wait_s,mean_bsd,utilization,hops_vs_current,"
		   "wait_vs_current,served,not_served,hops_x_ideal\n");
	for (int r = 0; r < adv->nrows; r++) {
		const rp_advice_row_t *a = &adv->rows[r];
		const rp_summary_t *s = &a->compared;

		fprintf(f,
			"%d,%s,%d,%d,%d,%.6f,%.3f,%.6f,%.6f,%.6f,%.6f,%d,%d,"
			"%.6f\n",
			a->rank, a->row->name, a->current, a->within_limit,
			s->jobs, s->hops.mean, s->mean_wait_s, s->mean_bsd,
			s->utilization,
			cur->hops.mean > 0 ? s->hops.mean / cur->hops.mean : 0,
			cur->mean_wait_s > 0 ? s->mean_wait_s / cur->mean_wait_s
					     : 0,
			a->served, a->not_served, s->hops_x_ideal);
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
		const rp_summary_t *s = &adv->rows[r].compared;

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
		double x = RP_SVG_X(&fr, a->compared.mean_wait_s);
		double y = RP_SVG_Y(&fr, a->compared.hops.mean);
		const char *col = a->current	    ? "#000000"
				  : r == adv->best  ? "#009e73"
				  : !a->spec	    ? "#cc79a7"
				  : !a->candidate   ? "#e69f00"
				  : a->within_limit ? "#0072b2"
						    : "#999999";
		int big = a->current || r == adv->best || !a->spec;

		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\">"
			"<title>",
			x, y, big ? 5 : 3, col);
		rp_svg_esc(f, a->row->name);
		fprintf(f, ": %.3f hops, %.1f s, ran %d jobs",
			a->compared.hops.mean, a->compared.mean_wait_s,
			a->served);
		if (a->spec && !a->candidate)
			fprintf(f, ", not %d of the current's", a->not_served);
		fprintf(f, "</title></circle>\n");
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
			{ "#e69f00", "missed jobs (never advised)" },
			{ "#cc79a7", "recorded (not a candidate)" },
		};

		for (int k = 0; k < (int)(sizeof(key) / sizeof(key[0])); k++) {
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
