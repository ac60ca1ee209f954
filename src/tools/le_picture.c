/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le_picture.c - locality-eval: an ASCII picture of the grid, one symbol
 * per job, at one moment.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "le.h"

/* Symbols for jobs in the picture, reused cyclically. */
static const char _symbols[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* ---------------------------------------------------------------------- */
/* Picture                                                                */
/* ---------------------------------------------------------------------- */

static bool _running_at(const job_t *j, int64_t t)
{
	return j->start != NO_TIME && j->end != NO_TIME && j->start <= t &&
	       t < j->end;
}

/* Picks the moment with the most busy nodes among the jobs' start times
 * (earliest on ties). Returns NO_TIME when no job has times. */
static int64_t _busiest(const jobs_t *jobs)
{
	int64_t best_t = NO_TIME;
	long best = -1;

	for (int i = 0; i < jobs->n; i++) {
		int64_t t = jobs->v[i].start;
		long busy = 0;

		if (t == NO_TIME || jobs->v[i].end == NO_TIME)
			continue;
		for (int x = 0; x < jobs->n; x++)
			if (_running_at(&jobs->v[x], t))
				busy += jobs->v[x].k;
		if (busy > best || (busy == best && t < best_t)) {
			best = busy;
			best_t = t;
		}
	}
	return best_t;
}

static char _symbol(int i)
{
	return _symbols[i % (int)(sizeof(_symbols) - 1)];
}

static void _print_plane(const model_t *mo, const int *owner,
			 const int *fixed, int nfixed)
{
	const loc_shape_t *sh = loc_grid_shape(mo->grid);
	int nd = sh->ndims, rows, cols, npp = sh->nodes_per_point;

	/* The last two dimensions form the picture; the rest are fixed. */
	rows = nd >= 2 ? sh->dims[nd - 2] : 1;
	cols = sh->dims[nd - 1];
	for (int r = 0; r < rows; r++) {
		for (int c = 0; c < cols; c++) {
			loc_coord_t co;
			const int *pn;
			int point, cnt;

			memset(&co, 0, sizeof(co));
			for (int d = 0; d < nfixed; d++)
				co.c[d] = fixed[d];
			if (nd >= 2)
				co.c[nd - 2] = r;
			co.c[nd - 1] = c;
			point = loc_grid_point_at(mo->grid, &co);
			cnt = loc_grid_point_nodes(mo->grid, point, &pn);
			if (c)
				putchar(' ');
			for (int s = 0; s < npp; s++) {
				int o;

				if (s >= cnt) {
					putchar(' ');
					continue;
				}
				o = owner[pn[s]];
				if (o == -1)
					putchar('.');
				else if (o == -2)
					putchar('#');
				else
					putchar(_symbol(o));
			}
		}
		putchar('\n');
	}
}

void le_print_picture(const model_t *mo, const jobs_t *jobs,
			   const char *at)
{
	const loc_shape_t *sh = loc_grid_shape(mo->grid);
	int nn = loc_grid_nnodes(mo->grid), nd = sh->ndims;
	int *owner = le_xcalloc((size_t)nn, sizeof(int));
	bool have_times = false, all;
	int64_t t = NO_TIME;
	int shown = 0, busy = 0;
	char shape[128];

	for (int i = 0; i < jobs->n; i++)
		if (jobs->v[i].start != NO_TIME && jobs->v[i].end != NO_TIME)
			have_times = true;
	all = !have_times || (at && !strcmp(at, "all"));
	if (!all) {
		if (!at || !strcmp(at, "busiest"))
			t = _busiest(jobs);
		else if ((t = le_parse_time(at)) == NO_TIME)
			le_die("--at: bad time '%s' (epoch, YYYY-MM-DDTHH:MM:SS, "
			     "busiest or all)", at);
	}
	for (int i = 0; i < nn; i++)
		owner[i] = -1;
	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];

		if (!all && !_running_at(j, t))
			continue;
		for (int n = 0; n < j->k; n++) {
			int *o = &owner[j->nodes[n]];

			/* -2 marks a node in two jobs: a conflict. */
			*o = *o == -1 ? shown : -2;
		}
		shown++;
	}
	for (int i = 0; i < nn; i++)
		busy += owner[i] != -1;

	printf("grid %s, ", loc_grid_describe(mo->grid, shape, sizeof(shape)));
	if (all) {
		printf("all %d jobs", shown);
	} else {
		time_t tt = (time_t)t;
		struct tm tm;
		char when[32] = "?";

		if (localtime_r(&tt, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		printf("%d jobs running at %s", shown, when);
	}
	printf(" (%d of %d nodes busy; '.' idle, '#' in two jobs)\n", busy, nn);

	if (nd <= 2) {
		_print_plane(mo, owner, NULL, 0);
	} else {
		int fixed[LOC_MAX_DIMS] = { 0 };
		int planes = 1;

		for (int d = 0; d < nd - 2; d++)
			planes *= sh->dims[d];
		for (int p = 0; p < planes; p++) {
			int rest = p;

			for (int d = nd - 3; d >= 0; d--) {
				fixed[d] = rest % sh->dims[d];
				rest /= sh->dims[d];
			}
			printf("plane");
			for (int d = 0; d < nd - 2; d++)
				printf(" %c=%d", 'a' + d, fixed[d]);
			putchar('\n');
			_print_plane(mo, owner, fixed, nd - 2);
		}
	}

	/* Legend: symbol = job (k nodes, average pairwise hops). */
	shown = 0;
	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];

		if (!all && !_running_at(j, t))
			continue;
		printf("%s%c=%s(%d,%.2f)", shown % 6 ? "  " : "",
		       _symbol(shown), j->id, j->k, j->m.avg_pair_hops);
		shown++;
		if (shown % 6 == 0)
			putchar('\n');
	}
	if (shown % 6)
		putchar('\n');
	free(owner);
}
