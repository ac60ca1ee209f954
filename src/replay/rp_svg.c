/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_svg.c - SVG pictures written by hand (no library): the grid's
 * occupancy at chosen times, coloured by job, and the distribution of
 * each per-job figure (empirical CDF, one line per row).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rp_report.h"

/* Row colours for the distribution plots (colour-blind friendly set). */
static const char *const _palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00",
	"#56b4e9", "#000000", "#f0e442", "#8c564b", "#7f7f7f",
};
#define NPALETTE (int)(sizeof(_palette) / sizeof(_palette[0]))

const char *rp_svg_colour(int i)
{
	return _palette[(i < 0 ? -i : i) % NPALETTE];
}

FILE *rp_svg_open(const char *path, int width, int height, int font_size,
		  loc_error_t *err)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		loc_error_set(err, LOC_EIO, path, 0, "cannot write: %s",
			      strerror(errno));
		return NULL;
	}
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" font-family=\"sans-serif\" "
		"font-size=\"%d\">\n",
		width, height, font_size);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
		width, height);
	return f;
}

int rp_svg_close(FILE *f, const char *path, loc_error_t *err)
{
	fprintf(f, "</svg>\n");
	if (ferror(f) | fclose(f))
		return loc_error_set(err, LOC_EIO, path, 0, "write failed");
	return 0;
}

void rp_svg_frame(FILE *f, const rp_svg_frame_t *fr)
{
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#888\"/>\n",
		fr->left, fr->top, fr->width, fr->height);
	for (int i = 0; i <= 4; i++) {
		double x = fr->left + fr->width * i / 4.0;
		double y = fr->top + fr->height - fr->height * i / 4.0;

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#eee\"/>\n",
			x, fr->top, x, fr->top + fr->height);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#eee\"/>\n",
			fr->left, y, fr->left + fr->width, y);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"middle\">%.4g</text>\n",
			x, fr->top + fr->height + 14,
			fr->xlo + (fr->xhi - fr->xlo) * i / 4.0);
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%.*f</text>\n",
			fr->left - 4, y + 4, fr->ydigits,
			fr->ylo + (fr->yhi - fr->ylo) * i / 4.0);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
		fr->left + fr->width / 2, fr->top + fr->height + 32);
	rp_svg_esc(f, fr->xlabel);
	fprintf(f, "</text>\n");
	if (fr->ylabel) {
		fprintf(f,
			"<text transform=\"translate(%d,%d) rotate(-90)\" "
			"text-anchor=\"middle\">",
			14, fr->top + fr->height / 2);
		rp_svg_esc(f, fr->ylabel);
		fprintf(f, "</text>\n");
	}
}

void rp_svg_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

/* ===================================================================== */
/* Occupancy                                                             */
/* ===================================================================== */

int rp_svg_occupancy(const char *path, const rp_machine_t *m,
		     const rp_row_t *row, int snap, int64_t t0,
		     loc_error_t *err)
{
	const loc_shape_t *sh = loc_grid_shape(m->grid);
	int panels = 1, rows, cols, pcols, prows, cs, busy = 0, njobs = 0;
	int npp = sh->nodes_per_point, margin = 10, title = 34, gap;
	const int *owner = row->snap_owner[snap];
	int *seen;
	FILE *f;

	switch (sh->ndims) {
	case 1:
		rows = 1;
		cols = sh->dims[0];
		break;
	case 2:
		rows = sh->dims[0];
		cols = sh->dims[1];
		break;
	case 3:
		panels = sh->dims[0];
		rows = sh->dims[1];
		cols = sh->dims[2];
		break;
	default:
		panels = sh->dims[0] * sh->dims[1];
		rows = sh->dims[2];
		cols = sh->dims[3];
		break;
	}
	pcols = (int)ceil(sqrt((double)panels));
	if (pcols < 1)
		pcols = 1;
	prows = (panels + pcols - 1) / pcols;
	cs = 1200 / (pcols * cols);
	if (cs > 24)
		cs = 24;
	if (cs < 3)
		cs = 3;
	gap = panels > 1 ? cs + 4 : 0;
	seen = calloc(row->njobs + 1, sizeof(int));
	if (!seen)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
	for (int v = 0; v < m->nnodes; v++) {
		if (owner[v] < 0)
			continue;
		busy++;
		if (!seen[owner[v]]++)
			njobs++;
	}
	free(seen);
	{
		int width = 2 * margin + pcols * cols * cs + (pcols - 1) * gap;
		int height =
			title + margin + prows * rows * cs + (prows - 1) * gap;

		if (width < 420)
			width = 420;
		f = rp_svg_open(path, width, height, 12, err);
		if (!f)
			return err->code;
	}
	fprintf(f, "<text x=\"%d\" y=\"16\">", margin);
	rp_svg_esc(f, row->name);
	fprintf(f, " at t=%lld s: %d of %d nodes busy, %d jobs</text>\n",
		(long long)(row->snap_time[snap] - t0), busy, m->nnodes, njobs);
	fprintf(f,
		"<text x=\"%d\" y=\"29\" font-size=\"10\" fill=\"#555\">grid ",
		margin);
	{
		char desc[128];

		rp_svg_esc(f, loc_grid_describe(m->grid, desc, sizeof(desc)));
	}
	fprintf(f, "%s; colour = job, grey = idle</text>\n",
		panels > 1 ? "; one panel per plane of the first dimension"
			   : "");
	for (int p = 0; p < loc_grid_npoints(m->grid); p++) {
		const int *nodes;
		int nn = loc_grid_point_nodes(m->grid, p, &nodes), panel, r, c;
		loc_coord_t co;
		double x0, y0;

		loc_grid_point_coord(m->grid, p, &co);
		switch (sh->ndims) {
		case 1:
			panel = 0;
			r = 0;
			c = co.c[0];
			break;
		case 2:
			panel = 0;
			r = co.c[0];
			c = co.c[1];
			break;
		case 3:
			panel = co.c[0];
			r = co.c[1];
			c = co.c[2];
			break;
		default:
			panel = co.c[0] * sh->dims[1] + co.c[1];
			r = co.c[2];
			c = co.c[3];
			break;
		}
		x0 = margin + (panel % pcols) * (cols * cs + gap) + c * cs;
		y0 = title + (panel / pcols) * (rows * cs + gap) + r * cs;
		if (nn == 0) {
			fprintf(f,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
				"height=\"%d\" fill=\"white\" stroke=\"#ccc\" "
				"stroke-width=\"0.5\"/>\n",
				x0, y0, cs, cs);
			continue;
		}
		for (int q = 0; q < nn; q++) {
			double w = (double)cs / npp;
			int o = owner[nodes[q]];

			fprintf(f,
				"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
				"height=\"%d\" ",
				x0 + q * w, y0, w, cs);
			if (o < 0)
				fprintf(f, "fill=\"#e4e4e4\"");
			else
				fprintf(f, "fill=\"hsl(%.1f,65%%,%d%%)\"",
					fmod(o * 137.508, 360.0),
					45 + (o % 3) * 10);
			fprintf(f,
				" stroke=\"white\" stroke-width=\"0.5\"/>\n");
		}
	}
	return rp_svg_close(f, path, err);
}

/* ===================================================================== */
/* Distributions                                                         */
/* ===================================================================== */

enum { F_WAIT, F_BSD, F_HOPS, F_SPAN, F_BBOX, F_DISP, F_COMP, F_COUNT };

static const char *const _fig_name[F_COUNT] = {
	"wait_s",      "bsd",	    "pairwise_hops", "span",
	"bbox_volume", "dispersal", "components",
};

static double _figure(const rp_rowjob_t *j, int fig)
{
	int64_t run = j->end - j->start, wait = j->start - j->submit;

	switch (fig) {
	case F_WAIT:
		return (double)wait;
	case F_BSD:
		return fmax(1.0, (double)(wait + run) /
					 (double)(run > RP_BSD_BOUND_SEC
							  ? run
							  : RP_BSD_BOUND_SEC));
	case F_HOPS:
		return j->m.avg_pair_hops;
	case F_SPAN:
		return j->m.linear_span;
	case F_BBOX:
		return (double)j->m.bbox_volume;
	case F_DISP:
		return j->m.dispersal;
	default:
		return j->m.components;
	}
}

static int _cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Number of sorted values <= x. */
static int _upper(const double *v, int n, double x)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int _plot(const char *path, int fig, rp_row_t *const *rows, int nrows,
		 double **vals, loc_error_t *err)
{
	const int W = 640, H = 400, L = 60, R = 170, T = 30, B = 45;
	const int pw = W - L - R, ph = H - T - B, steps = 240;
	double lo = INFINITY, hi = -INFINITY;
	FILE *f;

	for (int r = 0; r < nrows; r++) {
		int n = rows[r]->njobs;

		if (!n)
			continue;
		if (vals[r][0] < lo)
			lo = vals[r][0];
		/* clip the long tail at the 99th percentile */
		if (rp_quantile(vals[r], n, 0.99) > hi)
			hi = rp_quantile(vals[r], n, 0.99);
	}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	if (hi <= lo)
		hi = lo + 1;
	f = rp_svg_open(path, W, H, 11, err);
	if (!f)
		return err->code;
	fprintf(f,
		"<text x=\"%d\" y=\"18\" font-size=\"13\">Distribution of %s "
		"per job (CDF, x clipped at the 99th percentile)</text>\n",
		L, _fig_name[fig]);
	{
		rp_svg_frame_t fr = {
			.left = L, .top = T, .width = pw, .height = ph,
			.xlo = lo, .xhi = hi, .ylo = 0, .yhi = 1,
			.ydigits = 2, .xlabel = _fig_name[fig],
		};

		rp_svg_frame(f, &fr);
	}
	for (int r = 0; r < nrows; r++) {
		int n = rows[r]->njobs;
		const char *col = rp_svg_colour(r);

		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" "
			"fill=\"%s\"/>\n",
			L + pw + 10, T + 8 + 16 * r, col);
		fprintf(f, "<text x=\"%d\" y=\"%d\">", L + pw + 26,
			T + 12 + 16 * r);
		rp_svg_esc(f, rows[r]->name);
		fprintf(f, "</text>\n");
		if (!n)
			continue;
		fprintf(f,
			"<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1.5\"%s points=\"",
			col, r >= NPALETTE ? " stroke-dasharray=\"4 2\"" : "");
		for (int i = 0; i <= steps; i++) {
			double x = lo + (hi - lo) * i / steps;
			double y = (double)_upper(vals[r], n, x) / n;

			fprintf(f, "%s%.1f,%.1f", i ? " " : "",
				L + pw * (double)i / steps, T + ph - ph * y);
		}
		fprintf(f, "\"/>\n");
	}
	return rp_svg_close(f, path, err);
}

int rp_svg_distributions(const char *dir, rp_row_t *const *rows, int nrows,
			 loc_error_t *err)
{
	double **vals = calloc(nrows + 1, sizeof(double *));
	int rc = 0;

	if (!vals)
		return loc_error_set(err, LOC_ENOMEM, NULL, 0, "out of memory");
	for (int r = 0; r < nrows; r++) {
		vals[r] = malloc(sizeof(double) * (rows[r]->njobs + 1));
		if (!vals[r]) {
			rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
					   "out of memory");
			goto out;
		}
	}
	for (int fig = 0; fig < F_COUNT && !rc; fig++) {
		char path[4096];

		for (int r = 0; r < nrows; r++) {
			for (int i = 0; i < rows[r]->njobs; i++)
				vals[r][i] = _figure(&rows[r]->jobs[i], fig);
			qsort(vals[r], rows[r]->njobs, sizeof(double), _cmp_d);
		}
		snprintf(path, sizeof(path), "%s/dist-%s.svg", dir,
			 _fig_name[fig]);
		rc = _plot(path, fig, rows, nrows, vals, err);
	}
out:
	for (int r = 0; r < nrows; r++)
		free(vals[r]);
	free(vals);
	return rc;
}
