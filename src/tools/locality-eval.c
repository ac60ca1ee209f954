/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * locality-eval.c - measure the locality of jobs' node sets on the machine
 * model of a locality.conf, from outside Slurm.
 *
 * Reads job records ("jobid nodelist [start end]" lines, or Slurm's
 * jobcomp/filetxt lines with JobId= and NodeList=) and prints each job's
 * metrics (loc_metrics_compute), a summary, optionally JSON and an ASCII
 * picture of the grid. Three more modes serve the integration tests:
 * --predict asks the core's allocator which nodes it would give a job in
 * a described state, --plan when and where the job could start if the
 * running jobs end when expected (the plugin must agree with both:
 * le_predict.c), and --check-overlap proves from jobcomp records that no
 * node was in two jobs at once, and --ideal prints the most compact
 * set's mean hops for each job size. The parts are listed in le.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"

static void _usage(FILE *f)
{
	fputs("usage: " PROG " --conf FILE [--nodes EXPR] [--partition NAME]\n"
	      "         [--gres LIST] [--curve NAME] [--jobcomp [--name]] [--json]\n"
	      "         [--quiet] [--picture [--at TIME|busiest|all]]"
	      " [FILE...]\n"
	      "       " PROG " --conf FILE [--nodes EXPR] --predict -k K\n"
	      "         [--busy EXPR] [--required EXPR] [--contiguous]\n"
	      "         [--strategy NAME] [--curve NAME] [--partition NAME]\n"
	      "         [--gres LIST] [--node-weight NODES=W]...\n"
	      "       " PROG " --conf FILE [--nodes EXPR] --plan -k K\n"
	      "         [--running NODES@END]... [--busy EXPR] [--now TIME]\n"
	      "         [--eligible TIME] [--strategy NAME] [--curve NAME]\n"
	      "         [--partition NAME] [--gres LIST]\n"
	      "       " PROG " --conf FILE [--nodes EXPR] --ideal [-k K]"
	      " [--jobcomp] [FILE...]\n"
	      "       " PROG " --check-overlap [FILE...]\n"
	      "Input lines: 'jobid nodelist [start end]' or jobcomp/filetxt\n"
	      "records (JobId=... NodeList=... StartTime=... EndTime=...).\n"
	      "FILE '-' or none reads standard input. --name labels jobcomp\n"
	      "jobs by their Name= instead of JobId=.\n", f);
}

/* ---------------------------------------------------------------------- */
/* --check-overlap                                                        */
/* ---------------------------------------------------------------------- */

typedef struct use {
	const char *node;
	const job_t *job;
} use_t;

static int _cmp_use(const void *a, const void *b)
{
	const use_t *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	if (c)
		return c;
	return (x->job->start > y->job->start) -
	       (x->job->start < y->job->start);
}

/* Half-open intervals [start, end): a node freed and reused within the
 * same second is not an overlap (jobcomp has one-second resolution). */
static int _check_overlap(const jobs_t *jobs)
{
	size_t nuse = 0, at = 0;
	use_t *use;
	int bad = 0;

	for (int i = 0; i < jobs->n; i++) {
		const job_t *j = &jobs->v[i];

		if (j->start == NO_TIME || j->end == NO_TIME)
			le_die("%s:%d: job %s has no StartTime/EndTime", j->file,
			     j->line, j->id);
		if (j->end < j->start)
			le_die("%s:%d: job %s ends before it starts", j->file,
			     j->line, j->id);
		nuse += (size_t)j->k;
	}
	use = le_xcalloc(nuse, sizeof(*use));
	for (int i = 0; i < jobs->n; i++)
		for (int n = 0; n < jobs->v[i].k; n++) {
			use[at].node = jobs->v[i].names[n];
			use[at].job = &jobs->v[i];
			at++;
		}
	qsort(use, nuse, sizeof(*use), _cmp_use);
	for (size_t i = 1; i < nuse; i++) {
		/* Compare with every earlier use of the node still open. */
		for (size_t p = i; p-- > 0;) {
			if (strcmp(use[p].node, use[i].node))
				break;
			if (use[p].job->end > use[i].job->start &&
			    use[p].job->start < use[i].job->end) {
				if (bad < 20)
					printf("overlap: node %s in job %s "
					       "[%lld,%lld) and job %s "
					       "[%lld,%lld)\n",
					       use[i].node, use[p].job->id,
					       (long long)use[p].job->start,
					       (long long)use[p].job->end,
					       use[i].job->id,
					       (long long)use[i].job->start,
					       (long long)use[i].job->end);
				bad++;
			}
		}
	}
	if (bad)
		printf("check-overlap: %d overlaps in %d records\n", bad,
		       jobs->n);
	else
		printf("check-overlap: no node in two jobs at once "
		       "(%d records, %zu node uses)\n", jobs->n, nuse);
	free(use);
	return bad ? 1 : 0;
}


/* ---------------------------------------------------------------------- */
/* main                                                                   */
/* ---------------------------------------------------------------------- */

enum {
	OPT_JOBCOMP = 256, OPT_JSON, OPT_PICTURE, OPT_AT, OPT_PREDICT,
	OPT_STRATEGY, OPT_CURVE, OPT_BUSY, OPT_REQUIRED, OPT_CONTIGUOUS,
	OPT_CHECK_OVERLAP, OPT_PARTITION, OPT_NAME, OPT_PLAN, OPT_RUNNING,
	OPT_NOW, OPT_ELIGIBLE, OPT_NODE_WEIGHT, OPT_IDEAL, OPT_GRES,
};

static const struct option _longopts[] = {
	{ "conf", required_argument, NULL, 'c' },
	{ "nodes", required_argument, NULL, 'n' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "jobcomp", no_argument, NULL, OPT_JOBCOMP },
	{ "name", no_argument, NULL, OPT_NAME },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "picture", no_argument, NULL, OPT_PICTURE },
	{ "at", required_argument, NULL, OPT_AT },
	{ "predict", no_argument, NULL, OPT_PREDICT },
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "curve", required_argument, NULL, OPT_CURVE },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "gres", required_argument, NULL, OPT_GRES },
	{ "busy", required_argument, NULL, OPT_BUSY },
	{ "required", required_argument, NULL, OPT_REQUIRED },
	{ "contiguous", no_argument, NULL, OPT_CONTIGUOUS },
	{ "check-overlap", no_argument, NULL, OPT_CHECK_OVERLAP },
	{ "plan", no_argument, NULL, OPT_PLAN },
	{ "running", required_argument, NULL, OPT_RUNNING },
	{ "now", required_argument, NULL, OPT_NOW },
	{ "eligible", required_argument, NULL, OPT_ELIGIBLE },
	{ "node-weight", required_argument, NULL, OPT_NODE_WEIGHT },
	{ "ideal", no_argument, NULL, OPT_IDEAL },
	{ NULL, 0, NULL, 0 },
};

static int _parse_k(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > INT_MAX)
		le_die("-k: bad node count '%s'", s);
	return (int)v;
}

/* Appends a repeatable option's argument to (*v)[0..*n). */
static void _append(const char ***v, int *n, const char *arg)
{
	const char **grown = realloc(*v, sizeof(char *) * (*n + 1));

	if (!grown)
		le_die("out of memory");
	grown[(*n)++] = arg;
	*v = grown;
}

int main(int argc, char **argv)
{
	opts_t o;
	model_t mo;
	jobs_t jobs;
	int c, rc = 0;

	memset(&o, 0, sizeof(o));
	memset(&jobs, 0, sizeof(jobs));
	while ((c = getopt_long(argc, argv, "c:n:k:qh", _longopts,
				NULL)) != -1) {
		switch (c) {
		case 'c': o.conf_path = optarg; break;
		case 'n': o.nodes_expr = optarg; break;
		case 'k': o.k = _parse_k(optarg); break;
		case 'q': o.quiet = true; break;
		case 'h': _usage(stdout); return 0;
		case OPT_JOBCOMP: o.jobcomp = true; break;
		case OPT_NAME: o.use_name = true; break;
		case OPT_JSON: o.json = true; break;
		case OPT_PICTURE: o.picture = true; break;
		case OPT_AT: o.at = optarg; break;
		case OPT_PREDICT: o.predict = true; break;
		case OPT_STRATEGY: o.strategy = optarg; break;
		case OPT_CURVE: o.curve = optarg; break;
		case OPT_PARTITION: o.partition = optarg; break;
		case OPT_GRES: o.gres = optarg; break;
		case OPT_BUSY: o.busy = optarg; break;
		case OPT_REQUIRED: o.required = optarg; break;
		case OPT_CONTIGUOUS: o.contiguous = true; break;
		case OPT_CHECK_OVERLAP: o.check_overlap = true; break;
		case OPT_PLAN: o.plan = true; break;
		case OPT_IDEAL: o.ideal = true; break;
		case OPT_RUNNING:
			_append(&o.running, &o.nrunning, optarg);
			break;
		case OPT_NOW: o.now = optarg; break;
		case OPT_ELIGIBLE: o.eligible = optarg; break;
		case OPT_NODE_WEIGHT:
			_append(&o.weights, &o.nweights, optarg);
			break;
		default: _usage(stderr); return 2;
		}
	}

	if (o.nweights && !o.predict)
		le_die("--node-weight goes with --predict");
	if (o.ideal && (o.predict || o.plan || o.check_overlap))
		le_die("--ideal is a mode of its own: give one");
	if (o.ideal && o.k && optind >= argc) {
		/* One size, no job records to read. */
		if (!o.conf_path)
			le_die("--ideal needs --conf FILE");
		le_model_load(&mo, &o);
		rc = le_print_ideal(&mo, &o, &jobs);
		le_model_free(&mo);
		return rc;
	}
	if (o.predict || o.plan) {
		const char *mode = o.plan ? "--plan" : "--predict";

		if (o.predict && o.plan)
			le_die("--predict and --plan are two modes: give one");
		if (optind < argc)
			le_die("%s takes no input files", mode);
		if (!o.conf_path)
			le_die("%s needs --conf FILE", mode);
		if (o.nrunning && !o.plan)
			le_die("--running is for --plan");
		le_model_load(&mo, &o);
		rc = o.plan ? le_plan(&mo, &o) : le_predict(&mo, &o);
		le_model_free(&mo);
		free(o.running);
		free(o.weights);
		return rc;
	}

	if (optind >= argc)
		le_read_file("-", o.jobcomp, o.use_name, &jobs);
	for (int i = optind; i < argc; i++)
		le_read_file(argv[i], o.jobcomp, o.use_name, &jobs);

	if (o.check_overlap) {
		rc = _check_overlap(&jobs);
		le_jobs_free(&jobs);
		return rc;
	}

	if (!o.conf_path)
		le_die("--conf FILE is required (the machine model)");
	le_model_load(&mo, &o);
	if (o.ideal) {
		rc = le_print_ideal(&mo, &o, &jobs);
		le_model_free(&mo);
		le_jobs_free(&jobs);
		return rc;
	}
	{
		name_index_t ix;
		summary_t s;

		le_index_build(&ix, &mo.names);
		le_resolve_jobs(&mo, &ix, &jobs);
		le_index_free(&ix);
		le_summarise(&jobs, &s);
		if (o.json) {
			le_print_json(&mo, &jobs, &s);
		} else {
			if (!o.quiet)
				le_print_jobs(&mo, &jobs);
			le_print_summary(&s);
			le_print_records(&jobs);
		}
		if (o.picture)
			le_print_picture(&mo, &jobs, o.at);
	}
	le_model_free(&mo);
	le_jobs_free(&jobs);
	return 0;
}
