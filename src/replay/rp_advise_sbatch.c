/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_advise_sbatch.c - locality-advise's rows as Slurm job arrays, merged
 * and resumed from OUT/sbatch/ (see rp_advise_sbatch.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rp_advise_sbatch.h"
#include "rp_rowfile.h"
#include "rp_sbatch_cmd.h"

#define PLAN_VERSION 1
#define MAX_PLAN_ARGS 256
#define CMD_MAX 65536

typedef enum sb_mode {
	SB_LOCAL = 0, /* no --sbatch: rows replayed here */
	SB_SUBMIT,    /* --sbatch */
	SB_RESUME,    /* --resume OUT: the merge job */
	SB_RUN_ROW,   /* --run-row OUT P I: one array task */
} sb_mode_t;

/* One run per process: the mode and where its state is, set from the
 * command line before the pipeline starts and read by every batch. */
static struct {
	sb_mode_t mode;
	char self[PATH_MAX];     /* this program, for the jobs to run */
	char out[PATH_MAX];      /* --out, absolute */
	char state[PATH_MAX + 16]; /* OUT/sbatch */
	char sbatch_args[4096];  /* --sbatch-args, added to each sbatch */
	char cwd[PATH_MAX];
	char plan_id[17];
	char *args[MAX_PLAN_ARGS + 2]; /* argv: the program, the plan's args */
	int nargs;
	int batch;               /* batches seen so far by this process */
	int run_batch, run_index; /* --run-row's */
} sb;

static void _die(int code, const char *file, int line, const char *fmt,
		 const char *arg) __attribute__((noreturn));
static void _die(int code, const char *file, int line, const char *fmt,
		 const char *arg)
{
	loc_error_t err = { 0 };

	loc_error_set(&err, LOC_EINVAL, file, line, fmt, arg);
	rp_die_err(code, &err);
}

/* FNV-1a, 64 bits: a plan's identity, and a row's file name. */
static uint64_t _fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The plan id: the working directory and every argument. */
static void _plan_id(void)
{
	uint64_t h = _fnv(0xcbf29ce484222325ULL, sb.cwd, strlen(sb.cwd) + 1);

	for (int i = 1; i < sb.nargs; i++)
		h = _fnv(h, sb.args[i], strlen(sb.args[i]) + 1);
	snprintf(sb.plan_id, sizeof(sb.plan_id), "%016" PRIx64, h);
}

/* ===================================================================== */
/* The plan                                                              */
/* ===================================================================== */

static void _plan_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/plan", sb.state);
}

static void _write_plan(void)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	FILE *f;

	_plan_path(path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		_die(EXIT_RUNTIME, tmp, 0, "cannot write: %s", strerror(errno));
	fprintf(f, "locality-advise-plan %d\ncwd %s\nsbatch-args %s\n",
		PLAN_VERSION, sb.cwd, sb.sbatch_args);
	for (int i = 1; i < sb.nargs; i++)
		fprintf(f, "arg %s\n", sb.args[i]);
	if ((ferror(f) | fclose(f)) || rename(tmp, path))
		_die(EXIT_RUNTIME, path, 0, "cannot write: %s", strerror(errno));
}

/* The text after "key " on line, or NULL when line is not of key. */
static char *_field(char *line, const char *key)
{
	size_t n = strlen(key);

	return strncmp(line, key, n) || line[n] != ' ' ? NULL : line + n + 1;
}

/* Reads the plan of sb.state into sb (cwd, sbatch args, args). */
static void _read_plan(const char *argv0)
{
	char path[PATH_MAX + 32], *buf = NULL, *v;
	size_t cap = 0;
	ssize_t n;
	int line = 0;
	FILE *f;

	_plan_path(path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		_die(EXIT_INPUT, path, 0, "cannot read the plan: %s",
		     strerror(errno));
	sb.args[sb.nargs++] = strdup(argv0);
	while ((n = getline(&buf, &cap, f)) >= 0) {
		line++;
		if (n > 0 && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		if (line == 1) {
			char want[64];

			snprintf(want, sizeof(want), "locality-advise-plan %d",
				 PLAN_VERSION);
			if (strcmp(buf, want))
				_die(EXIT_INPUT, path, line, "%s",
				     "not a locality-advise plan of this "
				     "version");
		} else if ((v = _field(buf, "cwd"))) {
			snprintf(sb.cwd, sizeof(sb.cwd), "%s", v);
		} else if ((v = _field(buf, "sbatch-args"))) {
			snprintf(sb.sbatch_args, sizeof(sb.sbatch_args), "%s", v);
		} else if ((v = _field(buf, "arg")) &&
			   sb.nargs < MAX_PLAN_ARGS + 1) {
			sb.args[sb.nargs++] = strdup(v);
		} else {
			_die(EXIT_INPUT, path, line, "%s",
			     "not a plan line (cwd, sbatch-args or arg)");
		}
	}
	free(buf);
	fclose(f);
	if (line == 0 || !sb.cwd[0])
		_die(EXIT_INPUT, path, line, "%s", "the plan has no cwd line");
	sb.args[sb.nargs] = NULL;
	_plan_id();
}

/* OUT as an absolute path (it exists); sets sb.out and sb.state. */
static void _set_out(const char *out)
{
	if (!realpath(out, sb.out))
		_die(EXIT_INPUT, out, 0, "no such directory: %s",
		     strerror(errno));
	snprintf(sb.state, sizeof(sb.state), "%s/sbatch", sb.out);
}

void rp_sbatch_args(int *argc, char ***argv)
{
	char **av = *argv;
	int n = 1;
	bool submit = false;
	const char *resume = NULL, *run_row = NULL;

	sb.args[0] = av[0];
	for (int i = 1; i < *argc; i++) {
		const char *a = av[i];

		if (!strcmp(a, "--sbatch")) {
			submit = true;
		} else if (!strcmp(a, "--sbatch-args") && i + 1 < *argc) {
			snprintf(sb.sbatch_args, sizeof(sb.sbatch_args), "%s",
				 av[++i]);
			if (strchr(sb.sbatch_args, '\n'))
				rp_usage_error("%s", "--sbatch-args: one line");
		} else if (!strcmp(a, "--resume") && i + 1 < *argc) {
			resume = av[++i];
		} else if (!strcmp(a, "--run-row") && i + 3 < *argc) {
			run_row = av[++i];
			sb.run_batch = (int)rp_real_arg("--run-row", av[++i], 0);
			sb.run_index = (int)rp_real_arg("--run-row", av[++i], 0);
		} else if (!strcmp(a, "--sbatch-args") ||
			   !strcmp(a, "--resume") || !strcmp(a, "--run-row")) {
			rp_usage_error("%s needs its value", a);
		} else {
			if (strchr(a, '\n'))
				rp_usage_error("%s", "--sbatch: an argument "
						     "holds a newline");
			av[n++] = av[i];
		}
	}
	if (submit + !!resume + !!run_row > 1)
		rp_usage_error("%s", "give only one of --sbatch, --resume and "
				     "--run-row");
	if (sb.sbatch_args[0] && !submit)
		rp_usage_error("%s", "--sbatch-args goes with --sbatch");
	if (submit || resume || run_row) {
		ssize_t len = readlink("/proc/self/exe", sb.self,
				       sizeof(sb.self) - 1);

		if (len <= 0)
			_die(EXIT_RUNTIME, "/proc/self/exe", 0,
			     "cannot find this program: %s", strerror(errno));
		sb.self[len] = '\0';
	}
	if (submit) {
		sb.mode = SB_SUBMIT;
		*argc = n;
		av[n] = NULL;
		for (int i = 1; i < n && i <= MAX_PLAN_ARGS; i++)
			sb.args[i] = av[i];
		sb.nargs = n <= MAX_PLAN_ARGS ? n : MAX_PLAN_ARGS + 1;
		if (!getcwd(sb.cwd, sizeof(sb.cwd)))
			_die(EXIT_RUNTIME, ".", 0, "getcwd: %s",
			     strerror(errno));
		return;
	}
	if (!resume && !run_row)
		return;
	if (n > 1)
		rp_usage_error("%s", "--resume and --run-row take no other "
				     "option: the plan has them");
	sb.mode = resume ? SB_RESUME : SB_RUN_ROW;
	_set_out(resume ? resume : run_row);
	sb.nargs = 0;
	_read_plan(av[0]);
	if (chdir(sb.cwd))
		_die(EXIT_INPUT, sb.cwd, 0, "cannot enter the plan's "
		     "directory: %s", strerror(errno));
	*argc = sb.nargs;
	*argv = sb.args;
}

/* mkdir that accepts an existing directory. */
static void _mkdir(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST)
		_die(EXIT_RUNTIME, path, 0, "cannot make the directory: %s",
		     strerror(errno));
}

void rp_sbatch_begin(const rp_opts_t *o)
{
	char path[PATH_MAX + 32], old_id[17];

	if (sb.mode != SB_SUBMIT)
		return;
	_mkdir(o->out);
	_set_out(o->out);
	_mkdir(sb.state);
	snprintf(path, sizeof(path), "%s/rows", sb.state);
	_mkdir(path);
	snprintf(path, sizeof(path), "%s/log", sb.state);
	_mkdir(path);
	_plan_id();
	_plan_path(path, sizeof(path));
	if (access(path, F_OK)) {
		_write_plan();
		return;
	}
	/* an earlier --sbatch of this OUT: resume it if it is this run */
	snprintf(old_id, sizeof(old_id), "%s", sb.plan_id);
	{
		char *keep[MAX_PLAN_ARGS + 2], cwd[PATH_MAX], extra[4096];
		int nkeep = sb.nargs;

		memcpy(keep, sb.args, sizeof(keep));
		memcpy(cwd, sb.cwd, sizeof(cwd));
		memcpy(extra, sb.sbatch_args, sizeof(extra));
		sb.nargs = 0;
		_read_plan(sb.args[0]);
		if (strcmp(old_id, sb.plan_id))
			_die(EXIT_INPUT, path, 0, "%s",
			     "the plan of another run (other arguments or "
			     "directory): remove it or use another --out");
		/* the plan's copies were read only to compare its id */
		for (int i = 0; i < sb.nargs; i++)
			free(sb.args[i]);
		memcpy(sb.args, keep, sizeof(keep));
		memcpy(sb.cwd, cwd, sizeof(cwd));
		memcpy(sb.sbatch_args, extra, sizeof(extra));
		sb.nargs = nkeep;
		/* this --sbatch-args for the jobs submitted from now on */
		_write_plan();
	}
}

/* ===================================================================== */
/* Rows                                                                  */
/* ===================================================================== */

/* OUT/sbatch/rows/<hash of the row name>.row */
static void _row_path(const char *name, char *buf, size_t len)
{
	uint64_t h = _fnv(0xcbf29ce484222325ULL, name, strlen(name));

	snprintf(buf, len, "%s/rows/%016" PRIx64 ".row", sb.state, h);
}

static int _ndecision(const rp_opts_t *o)
{
	char copy[1024], *list[64];

	if (!o->decision)
		return 0;
	snprintf(copy, sizeof(copy), "%s", o->decision);
	return rp_split(copy, list, 64);
}

/*
 * Loads row r of set from its file and rebuilds its figures as a replay
 * does (rp_row_from_run). A file that cannot be used is fatal (exit 2,
 * naming file and line). A recorded failure sets *code and text.
 */
static void _load_row(rp_rowset_t *set, int r, const rp_opts_t *o,
		      const rp_input_t *in, int *code, char *text,
		      size_t len)
{
	rp_row_t *row = &set->rows[r];
	rp_rowfile_expect_t ex = {
		.plan_id = sb.plan_id, .name = row->name,
		.njobs = in->w->njobs, .nnodes = in->m->nnodes,
		.nsnaps = set->nsnaps, .ndecision = _ndecision(o),
	};
	char path[PATH_MAX + 64];
	loc_error_t err = { 0 };
	loc_policy_t pol;
	loc_alloc_t *alloc;
	int rc;

	_row_path(row->name, path, sizeof(path));
	rc = rp_rowfile_read(path, &ex, row, code, text, len, &err);
	if (rc)
		rp_die_err(rc == LOC_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT, &err);
	if (*code)
		return;
	/* well formed is not enough: the run must be one a replay could
	 * give (nodes held once at a time, runtimes and counts exact) */
	rc = rp_run_check(in->w, row->run, false, &err);
	if (rc) {
		/* err.text is rewritten by the call that quotes it */
		char why[LOC_ERROR_TEXT_MAX];

		snprintf(why, sizeof(why), "%s", err.text);
		loc_error_set(&err, LOC_EPARSE, path, 0,
			      "not a replay of row %s: %s", row->name, why);
		rp_die_err(EXIT_INPUT, &err);
	}
	rp_spec_policy(&set->specs[r], o, in->m->conf, &pol);
	alloc = loc_alloc_create(in->m->grid, &pol, &err);
	if (!alloc)
		rp_die_err(EXIT_RUNTIME, &err);
	rc = rp_row_from_run(row, in->w, in->m, loc_alloc_curve(alloc),
			     o->loc_le);
	loc_alloc_destroy(alloc);
	if (rc) {
		/* as rp_threads.c words it for a replay */
		*code = rc;
		snprintf(text, len, "row %s: metrics failed: %s", row->name,
			 loc_strerror(rc));
	}
}

/* "sbatch --parsable NAME OUTPUT [--sbatch-args]" into cmd. */
static void _sbatch_head(char *cmd, size_t len, const char *name,
			 const char *log)
{
	char path[PATH_MAX + 64];

	snprintf(cmd, len, "sbatch --parsable --job-name=%s --output=", name);
	snprintf(path, sizeof(path), "%s/log/%s", sb.state, log);
	rp_sh_quote(cmd, len, path);
	if (sb.sbatch_args[0]) {
		/* the user's sbatch options, split by the shell as typed */
		rp_str_cat(cmd, len, " ");
		rp_str_cat(cmd, len, sb.sbatch_args);
	}
}

/* Submits the missing rows of batch as an array, then the merge job
 * that continues the run once they are done; exits. */
static void _submit(int batch, const int *missing, int nmissing)
{
	char *cmd = malloc(CMD_MAX), wrap[PATH_MAX * 3], list[4096] = "";
	long array, merge;

	if (!cmd) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		exit(EXIT_RUNTIME);
	}
	/* the indexes as ranges: 0-3,7,9-10 */
	for (int i = 0; i < nmissing;) {
		int j = i;
		char item[32];

		while (j + 1 < nmissing && missing[j + 1] == missing[j] + 1)
			j++;
		if (j > i)
			snprintf(item, sizeof(item), "%s%d-%d", i ? "," : "",
				 missing[i], missing[j]);
		else
			snprintf(item, sizeof(item), "%s%d", i ? "," : "",
				 missing[i]);
		rp_str_cat(list, sizeof(list), item);
		i = j + 1;
	}
	wrap[0] = '\0';
	rp_str_cat(wrap, sizeof(wrap), "exec ");
	rp_sh_quote(wrap, sizeof(wrap), sb.self);
	rp_str_cat(wrap, sizeof(wrap), " --run-row ");
	rp_sh_quote(wrap, sizeof(wrap), sb.out);
	snprintf(wrap + strlen(wrap), sizeof(wrap) - strlen(wrap),
		 " %d \"$SLURM_ARRAY_TASK_ID\"", batch);
	_sbatch_head(cmd, CMD_MAX, "locality-advise-rows", "rows-%A_%a.out");
	rp_str_cat(cmd, CMD_MAX, " --array=");
	rp_str_cat(cmd, CMD_MAX, list);
	rp_str_cat(cmd, CMD_MAX, " --wrap=");
	rp_sh_quote(cmd, CMD_MAX, wrap);
	array = rp_sbatch_submit(cmd);

	wrap[0] = '\0';
	rp_str_cat(wrap, sizeof(wrap), "exec ");
	rp_sh_quote(wrap, sizeof(wrap), sb.self);
	rp_str_cat(wrap, sizeof(wrap), " --resume ");
	rp_sh_quote(wrap, sizeof(wrap), sb.out);
	_sbatch_head(cmd, CMD_MAX, "locality-advise-merge", "merge-%j.out");
	snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd),
		 " --dependency=afterok:%ld --wrap=", array);
	rp_sh_quote(cmd, CMD_MAX, wrap);
	merge = rp_sbatch_submit(cmd);
	free(cmd);
	fprintf(stderr, "%s: batch %d: %d row%s submitted as job array %ld "
		"(tasks %s); job %ld merges them and continues\n",
		PROG, batch, nmissing, nmissing == 1 ? "" : "s", array, list,
		merge);
	exit(0);
}

/* --run-row: replays row r of set alone, writes its file, exits. */
static void _run_one(rp_rowset_t *set, int r, const rp_opts_t *o,
		     const rp_input_t *in)
{
	rp_rowset_t *one = rp_rowset_create();
	char path[PATH_MAX + 64];
	loc_error_t err = { 0 };
	int rc;

	_row_path(set->rows[r].name, path, sizeof(path));
	if (!access(path, F_OK)) {
		fprintf(stderr, "%s: row %s: already replayed (%s)\n", PROG,
			set->rows[r].name, path);
		exit(0);
	}
	if (!one) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		exit(EXIT_RUNTIME);
	}
	if (rp_rowset_add(one, &set->specs[r], NULL) != 0)
		_die(EXIT_RUNTIME, NULL, 0, "%s", "cannot add the row");
	memcpy(one->snaps, set->snaps, sizeof(one->snaps));
	one->nsnaps = set->nsnaps;
	rc = rp_rowset_run(one, o, in, &err);
	if (rc == LOC_ENOMEM)
		rp_die_err(EXIT_RUNTIME, &err);
	/* a replay that fails its checks is a result too: the merge drops
	 * the row as a local sweep would */
	if (rp_rowfile_write(path, sb.plan_id, &one->rows[0], rc, err.text,
			     &err))
		rp_die_err(EXIT_RUNTIME, &err);
	fprintf(stderr, "%s: row %s: %s, %s\n", PROG, set->rows[r].name,
		rc ? "failed" : "replayed", path);
	rp_rowset_free(one);
	exit(0);
}

int rp_advise_run_rows(rp_rowset_t *set, int first, const rp_opts_t *o,
		       const rp_input_t *in, loc_error_t *err)
{
	int batch = sb.batch++, missing[MAX_ROWS], nmissing = 0;
	int fail_code = 0;
	char fail_text[LOC_ERROR_TEXT_MAX] = "";

	if (sb.mode == SB_LOCAL)
		return rp_rowset_run_from(set, first, o, in, err);
	if (sb.mode == SB_RUN_ROW && batch == sb.run_batch) {
		if (sb.run_index < 0 || first + sb.run_index >= set->nrows)
			_die(EXIT_USAGE, NULL, 0, "--run-row: no such row in "
			     "this batch (%s)", sb.out);
		_run_one(set, first + sb.run_index, o, in);
	}
	for (int r = first; r < set->nrows; r++) {
		char path[PATH_MAX + 64];

		_row_path(set->rows[r].name, path, sizeof(path));
		if (access(path, F_OK))
			missing[nmissing++] = r - first;
	}
	if (nmissing) {
		if (sb.mode == SB_RUN_ROW)
			_die(EXIT_RUNTIME, sb.out, 0, "--run-row: an earlier "
			     "batch is not complete in %s/sbatch/rows",
			     sb.out);
		_submit(batch, missing, nmissing);
	}
	for (int r = first; r < set->nrows; r++) {
		int code;
		char text[LOC_ERROR_TEXT_MAX];

		_load_row(set, r, o, in, &code, text, sizeof(text));
		if (code && !fail_code) {
			fail_code = code;
			snprintf(fail_text, sizeof(fail_text), "%s", text);
		}
	}
	set->threads_used = 1;
	if (fail_code)
		return loc_error_set(err, fail_code, NULL, 0, "%s", fail_text);
	{
		rp_row_t *rows[MAX_ROWS + 1];
		int n = rp_rowset_all(set, rows);

		return rp_rows_set_ideal(rows, n, in->m, err);
	}
}
