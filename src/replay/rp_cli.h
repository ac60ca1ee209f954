/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_cli.h - locality-replay's command line: options, help and the small
 * argument readers main uses.
 */
#ifndef RP_CLI_H
#define RP_CLI_H

#include <stdbool.h>

#include "loc_conf.h"
#include "loc_error.h"
#include "loc_trace.h"
#include "rp_machine.h"
#include "rp_sim.h"

/* The program's name in messages: "locality-replay" or
 * "locality-advise" (set by rp_cli_parse). */
extern const char *rp_prog;
#define PROG rp_prog

/* Which program parses its command line. */
typedef enum rp_mode {
	RP_MODE_REPLAY = 0, /* locality-replay */
	RP_MODE_ADVISE,     /* locality-advise */
} rp_mode_t;

/* What locality-advise minimises (see rp_advise.h). */
typedef enum rp_objective {
	RP_OBJ_HOPS = 0,
	RP_OBJ_WAIT,
	RP_OBJ_SLOWDOWN,
} rp_objective_t;

/* Exit statuses (also in the man page). */
enum {
	EXIT_USAGE = 1,   /* bad command line */
	EXIT_INPUT = 2,   /* trace, config or golden file cannot be used */
	EXIT_DRIFT = 3,   /* regression: a figure drifted */
	EXIT_RUNTIME = 4, /* simulation or output failure */
};

#define MAX_ROWS 256
#define MAX_SNAPS 64

/* --noise-draws' upper bound (locality-advise) */
#define RP_NOISE_MAX_DRAWS 16

typedef struct rp_opts {
	rp_machine_opts_t machine;
	const char *machines_file;
	const char *trace;
	loc_trace_opts_t topts;
	double scale_to;
	int machine_nodes;
	rp_round_t round;
	int limit;
	double arrival_scale;  /* --arrival-scale: submit gaps divided by it
				* (0: unset, as 1) */
	int arrival_jitter;    /* --arrival-jitter: seconds (0: none) */
	uint64_t jitter_seed;  /* --jitter-seed: the draw (default 1) */
	char *strategies, *walltime, *decision;
	/* locality.conf keys for every row, over the config's: the key
	 * options (--compact-wait ...) and --set KEY=VALUE */
	loc_conf_overrides_t keys;
	rp_sched_t sched;
	rp_prio_t prio;
	int pf_max_nodes;
	bool pf_with_job;      /* PF starts the partner with its job (seed 004) */
	int64_t turnaround;    /* seconds a node stays busy after its job */
	bool loc_le;
	bool no_recorded;
	const char *out;
	int nsnaps;
	char *snap_at;
	bool no_svg;
	int threads;
	bool quiet;
	int progress;          /* -1 auto, 0 off, 1 on */
	const char *golden;
	double tolerance;
	bool update_golden;
	bool show_config;
	bool dry_run;
	const char *export_jobs; /* --export-jobs FILE ("-": stdout) */
	bool drop_too_large;   /* replay without jobs larger than the machine */
	/* locality-advise */
	rp_mode_t mode;
	rp_objective_t objective;
	double max_wait_ratio;   /* mean wait at most this x the current's */
	const char *current;     /* STRATEGY[/CURVE][+MODE] or "recorded" */
	double validate;         /* --validate F: fit on the first F of the
				  * jobs, check on the rest (0 = off) */
	bool no_sweep;           /* no CompactWait/... sweep around the best */
	int noise_draws;         /* --noise-draws: jittered replays of the
				  * top rows (and --validate's held-out
				  * ones); 0 = none */
	bool topology_site;      /* --plugin topology: rows topology/locality
				  * honours (walltime none or sl, no
				  * PlanWindow);
				  * its backfill under --sched conservative */
} rp_opts_t;

/* A locality.conf key with a long option of its own: the option is the
 * key's name in lower case with dashes (CompactWait: --compact-wait)
 * unless name says otherwise; its help is the key's Doc. */
typedef struct rp_key_option {
	loc_conf_key_t key;
	const char *metavar; /* the value in --help: S, X, NAME ... */
	const char *name;    /* NULL: from the key's name */
} rp_key_option_t;

/* The key options, in --help order (rp_cli_help.c); at most
 * RP_MAX_KEY_OPTIONS. */
#define RP_MAX_KEY_OPTIONS 16
extern const rp_key_option_t rp_key_options[];
extern const int rp_nkey_options;

/* The long option of rp_key_options[i], without the dashes. */
const char *rp_key_option_name(int i);

/* Parses the command line of program mode into o; prints help or an
 * error and exits on --help, --version and bad usage. */
void rp_cli_parse(int argc, char **argv, rp_opts_t *o, rp_mode_t mode);

/* Prints the --help text of program mode on stdout. */
void rp_cli_help(rp_mode_t mode);

/* rp_cli_check.c: the checks across options, after parsing; exits with
 * EXIT_USAGE (or EXIT_RUNTIME for an --out that cannot be made) on the
 * first that fails. */
void rp_cli_check(rp_opts_t *o);

/* Returns true when o names a machine (--config, --grid, --derive-grid);
 * only --export-jobs can do without one. */
bool rp_has_machine(const rp_opts_t *o);

/* rp_cli_args.c: one option's argument; each exits on a bad one. */

/* Prints "locality-replay: FMT" (one %s for arg) and a hint; exits 1. */
void rp_usage_error(const char *fmt, const char *arg)
	__attribute__((noreturn));

/* Prints err as "locality-replay: file:line: text" and exits with code. */
void rp_die_err(int code, const loc_error_t *err) __attribute__((noreturn));

/* Reads an integer in min..max for option opt, or exits 1. */
long rp_int_arg(const char *opt, const char *s, long min, long max);

/* Prints "PROG: OPT: WHY" (one line) and exits 1. */
void rp_bad_option(const char *opt, const char *why) __attribute__((noreturn));

/* A value for a locality.conf key, read by locality.conf's own parser:
 * the option and the file accept the same values and say the same of a
 * bad one. */
void rp_key_arg(rp_opts_t *o, const char *opt, int key, const char *s);

/* --set KEY=VALUE: the policy keys but Strategy and WalltimeAware, and
 * the keys with options of their own. */
void rp_set_arg(rp_opts_t *o, const char *arg);

/* Reads a real number >= min for option opt, or exits 1. */
double rp_real_arg(const char *opt, const char *s, double min);

/* Splits a comma list in place into at most max items. Returns the
 * count. */
int rp_split(char *s, char **out, int max);

/* Reads a MetaCentrum/Alea machine list (id name nodes cpus ... lines).
 * Returns the node total, or -1. */
int rp_machines_total(const char *path);

#endif /* RP_CLI_H */
