/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_threads.c - the rows of a replay on worker threads, each row one
 * simulation checked against its invariants, with a progress bar on
 * stderr (part of rp_run.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rp_run.h"

/* ===================================================================== */
/* Progress bar                                                          */
/* ===================================================================== */

typedef struct progress {
	pthread_mutex_t lock;
	bool on;
	int nrows;
	int *done, *total;
	int rows_done;
	const char *current;
	struct timespec last;
} progress_t;

typedef struct pctx {
	progress_t *p;
	int row;
	const char *name;
} pctx_t;

static void _progress_draw(progress_t *p, bool force)
{
	struct timespec ts;
	double sum = 0, frac;
	int width = 30, fill;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!force && (ts.tv_sec - p->last.tv_sec) * 1000 +
				      (ts.tv_nsec - p->last.tv_nsec) / 1000000 <
			      100)
		return;
	p->last = ts;
	for (int r = 0; r < p->nrows; r++)
		sum += p->total[r] ? (double)p->done[r] / p->total[r] : 0;
	frac = p->nrows ? sum / p->nrows : 1;
	fill = (int)(frac * width);
	fprintf(stderr, "\r[");
	for (int i = 0; i < width; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %3d%%  rows %d/%d  %-24.24s", (int)(frac * 100),
		p->rows_done, p->nrows, p->current ? p->current : "");
	fflush(stderr);
}

static void _progress_cb(void *ctx, int done, int total)
{
	pctx_t *c = ctx;
	progress_t *p = c->p;

	pthread_mutex_lock(&p->lock);
	p->done[c->row] = done;
	p->total[c->row] = total;
	p->current = c->name;
	_progress_draw(p, false);
	pthread_mutex_unlock(&p->lock);
}

/* ===================================================================== */
/* Rows                                                                  */
/* ===================================================================== */

typedef struct job_ctx {
	const rp_opts_t *o;
	const rp_input_t *in;
	rp_rowset_t *set;
	loc_strategy_kind_t *dec;
	int ndec;
	pthread_mutex_t lock;
	int next;
	int first;     /* the first row this run replays */
	int failed;
	loc_error_t err;
	progress_t *prog;
} job_ctx_t;

/* Replays one row. Returns 0 or a LOC_E* code with err filled. */
static int _one_row(job_ctx_t *c, int r, loc_error_t *err)
{
	const rp_spec_t *sp = &c->set->specs[r];
	rp_row_t *row = &c->set->rows[r];
	const rp_machine_t *m = c->in->m;
	loc_policy_t pol;
	loc_conf_t conf; /* the keys outside the policy, for this row */
	loc_alloc_t *alloc, **dec = NULL;
	rp_sim_opts_t so;
	pctx_t pc = { .p = c->prog, .row = r - c->first, .name = row->name };
	double t0 = rp_now();
	int rc = 0;

	rp_spec_policy(sp, c->o, c->in->m->conf, &pol);
	alloc = loc_alloc_create(m->grid, &pol, err);
	if (!alloc)
		return err->code ? err->code : LOC_EINVAL;
	if (c->ndec) {
		dec = calloc(c->ndec, sizeof(*dec));
		row->decision_name =
			calloc(c->ndec, sizeof(*row->decision_name));
		row->decision_mean = calloc(c->ndec, sizeof(double));
		if (!dec || !row->decision_name || !row->decision_mean) {
			rc = loc_error_set(err, LOC_ENOMEM, NULL, 0,
					   "out of memory");
			goto out;
		}
		row->ndecision = c->ndec;
		for (int d = 0; d < c->ndec; d++) {
			loc_policy_t dp = pol;

			dp.strategy = c->dec[d];
			dp.walltime = LOC_WALLTIME_NONE;
			snprintf(row->decision_name[d], 48, "%s",
				 loc_strategy_kind_name(c->dec[d]));
			dec[d] = loc_alloc_create(m->grid, &dp, err);
			if (!dec[d]) {
				rc = err->code ? err->code : LOC_EINVAL;
				goto out;
			}
		}
	}
	rp_sim_opts_init(&so);
	so.sched = c->o->sched;
	so.prio = c->o->prio;
	so.wmode = sp->wmode;
	so.pf_max_nodes = c->o->pf_max_nodes;
	so.turnaround = c->o->turnaround;
	so.plan_declined = c->o->topology_site;
	so.claims = c->o->topology_site;
	rp_spec_conf(sp, c->o, m->conf, &conf);
	so.adjest_window = conf.adjest_window;
	so.pf_hold = conf.pf_hold_sec;
	so.pf_with_job = c->o->pf_with_job;
	so.snap_times = c->set->snaps;
	so.nsnaps = c->set->nsnaps;
	so.decision = dec;
	so.ndecision = c->ndec;
	so.node_weight = m->weight;
	if (c->prog->on) {
		so.progress = _progress_cb;
		so.progress_ctx = &pc;
	}
	row->run = rp_sim_run(c->in->w, alloc, &so, err);
	if (!row->run) {
		rc = err->code ? err->code : LOC_EINVAL;
		goto out;
	}
	/* every replay is checked: no node in two jobs, start >= submit,
	 * exact node counts, EASY never delays the head's reservation (but
	 * with PlanWindow every pass plans afresh on windows that move as
	 * jobs end, as under cons_tres: a later pass may plan it later) */
	rc = rp_run_check(c->in->w, row->run,
			  c->o->sched == RP_SCHED_EASY &&
				  c->o->prio == RP_PRIO_FCFS &&
				  loc_alloc_policy(alloc)->plan_window == 0,
			  err);
	if (rc) {
		char text[LOC_ERROR_TEXT_MAX];

		snprintf(text, sizeof(text), "%s", err->text);
		loc_error_set(err, rc, NULL, 0,
			      "row %s: simulator invariant broken: %s",
			      row->name, text);
		goto out;
	}
	for (int d = 0; d < c->ndec; d++)
		row->decision_mean[d] =
			row->run->decision_count
				? row->run->decision_hops[d] /
					  row->run->decision_count
				: 0;
	rc = rp_row_from_run(row, c->in->w, m, loc_alloc_curve(alloc),
			     c->o->loc_le);
	if (rc)
		loc_error_set(err, rc, NULL, 0, "row %s: metrics failed: %s",
			      row->name, loc_strerror(rc));
	row->cpu_sec = rp_now() - t0;
out:
	for (int d = 0; dec && d < c->ndec; d++)
		loc_alloc_destroy(dec[d]);
	free(dec);
	loc_alloc_destroy(alloc);
	return rc;
}

static void *_worker(void *arg)
{
	job_ctx_t *c = arg;

	for (;;) {
		int r, rc;
		loc_error_t err = { 0 };

		pthread_mutex_lock(&c->lock);
		r = c->failed ? c->set->nrows : c->next++;
		pthread_mutex_unlock(&c->lock);
		if (r >= c->set->nrows)
			return NULL;
		rc = _one_row(c, r, &err);
		pthread_mutex_lock(&c->lock);
		if (rc && !c->failed) {
			c->failed = rc;
			c->err = err;
			if (!err.text[0])
				loc_error_set(&c->err, rc, NULL, 0,
					      "row %s: %s",
					      c->set->rows[r].name,
					      loc_strerror(rc));
		}
		pthread_mutex_unlock(&c->lock);
		pthread_mutex_lock(&c->prog->lock);
		c->prog->rows_done++;
		if (c->prog->on)
			_progress_draw(c->prog, true);
		pthread_mutex_unlock(&c->prog->lock);
	}
}

/* The --decision strategies; unknown names are usage errors. */
static int _decisions(const rp_opts_t *o, loc_strategy_kind_t *dec, int max)
{
	char *list[64], copy[1024];
	int n;

	if (!o->decision)
		return 0;
	snprintf(copy, sizeof(copy), "%s", o->decision);
	n = rp_split(copy, list, max < 64 ? max : 64);
	for (int d = 0; d < n; d++) {
		int kind = loc_strategy_kind_parse(list[d]);

		if (kind < 0)
			rp_usage_error("--decision: unknown strategy '%s'",
				       list[d]);
		dec[d] = kind;
	}
	return n;
}

int rp_rowset_run(rp_rowset_t *set, const rp_opts_t *o, const rp_input_t *in,
		  loc_error_t *err)
{
	return rp_rowset_run_from(set, 0, o, in, err);
}

int rp_rowset_run_from(rp_rowset_t *set, int first, const rp_opts_t *o,
		       const rp_input_t *in, loc_error_t *err)
{
	loc_strategy_kind_t dec[64];
	job_ctx_t c;
	progress_t prog;
	pthread_t th[64];
	int nth, done[MAX_ROWS + 1] = { 0 }, total[MAX_ROWS + 1] = { 0 };

	memset(&prog, 0, sizeof(prog));
	pthread_mutex_init(&prog.lock, NULL);
	prog.on = o->progress == 1 || (o->progress < 0 && !o->quiet && isatty(2));
	prog.nrows = set->nrows - first;
	prog.done = done;
	prog.total = total;
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.in = in;
	c.set = set;
	c.dec = dec;
	c.ndec = _decisions(o, dec, 64);
	c.prog = &prog;
	c.first = c.next = first;
	pthread_mutex_init(&c.lock, NULL);
	nth = o->threads < set->nrows - first ? o->threads
					       : set->nrows - first;
	for (int i = 0; i < nth; i++)
		if (pthread_create(&th[i], NULL, _worker, &c)) {
			nth = i;
			break;
		}
	if (!nth)
		_worker(&c);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (prog.on)
		fprintf(stderr, "\r%*s\r", 80, "");
	pthread_mutex_destroy(&c.lock);
	pthread_mutex_destroy(&prog.lock);
	set->threads_used = nth ? nth : 1;
	if (c.failed) {
		if (err)
			*err = c.err;
		return c.failed;
	}
	/* every row's distance from the ideal, each size computed once */
	{
		rp_row_t *rows[MAX_ROWS + 1];
		int n = rp_rowset_all(set, rows);

		return rp_rows_set_ideal(rows, n, in->m, err);
	}
}
