/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_cli.c - the command line of locality-replay and locality-advise:
 * getopt_long's options and what each sets (the help text is
 * rp_cli_help.c, the argument readers rp_cli_args.c, the checks across
 * options rp_cli_check.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "loc_conf.h"
#include "rp_cli.h"
#include "rp_outdir.h"

const char *rp_prog = "locality-replay";

/* The long name of option val (for messages). */
static const char *_opt_name(const struct option *lo, int val)
{
	for (; lo->name; lo++)
		if (lo->val == val)
			return lo->name;
	return "?";
}

bool rp_has_machine(const rp_opts_t *o)
{
	return o->machine.config || o->machine.grid || o->machine.derive;
}

void rp_cli_parse(int argc, char **argv, rp_opts_t *o, rp_mode_t mode)
{
	enum {
		O_GRID = 256,
		O_TORUS,
		O_NPP,
		O_DERIVE,
		O_MNODES,
		O_MACHINES,
		O_SHOW,
		O_FORMAT,
		O_PPN,
		O_SCALE,
		O_SACCT_CPUS,
		O_ROUND,
		O_LIMIT,
		O_ARRIVAL,
		O_JITTER,
		O_JITTER_SEED,
		O_STRICT,
		O_SCHED,
		O_PRIO,
		O_PFMAX,
		O_PF_WITH_JOB,
		O_TURNAROUND,
		O_SET,
		O_LOCLE, O_NODE_WEIGHT,
		O_NOREC,
		O_DECISION,
		O_SNAPS,
		O_SNAPAT,
		O_NOSVG,
		O_PROGRESS,
		O_NOPROGRESS,
		O_GOLDEN,
		O_TOL,
		O_UPDATE,
		O_DRY,
		O_EXPORT,
		O_DROP,
		O_OBJECTIVE,
		O_MAXWAIT,
		O_CURRENT,
		O_VALIDATE,
		O_NOISE,
		O_NOSWEEP,
		O_PLUGIN,
		O_KEY_FIRST, /* + the index in rp_key_options */
	};
	static const struct option fixed[] = {
		{ "config", required_argument, 0, 'c' },
		{ "grid", required_argument, 0, O_GRID },
		{ "torus", required_argument, 0, O_TORUS },
		{ "nodes-per-point", required_argument, 0, O_NPP },
		{ "derive-grid", optional_argument, 0, O_DERIVE },
		{ "machine-nodes", required_argument, 0, O_MNODES },
		{ "machines", required_argument, 0, O_MACHINES },
		{ "node-weight", required_argument, 0, O_NODE_WEIGHT },
		{ "show-config", no_argument, 0, O_SHOW },
		{ "dry-run", no_argument, 0, O_DRY },
		{ "export-jobs", required_argument, 0, O_EXPORT },
		{ "trace", required_argument, 0, 't' },
		{ "format", required_argument, 0, O_FORMAT },
		{ "procs-per-node", required_argument, 0, O_PPN },
		{ "scale-to", required_argument, 0, O_SCALE },
		{ "sacct-cpus", no_argument, 0, O_SACCT_CPUS },
		{ "round", required_argument, 0, O_ROUND },
		{ "limit", required_argument, 0, O_LIMIT },
		{ "arrival-scale", required_argument, 0, O_ARRIVAL },
		{ "arrival-jitter", required_argument, 0, O_JITTER },
		{ "jitter-seed", required_argument, 0, O_JITTER_SEED },
		{ "strict", no_argument, 0, O_STRICT },
		{ "drop-too-large", no_argument, 0, O_DROP },
		{ "objective", required_argument, 0, O_OBJECTIVE },
		{ "max-wait-ratio", required_argument, 0, O_MAXWAIT },
		{ "current", required_argument, 0, O_CURRENT },
		{ "validate", required_argument, 0, O_VALIDATE },
		{ "noise-draws", required_argument, 0, O_NOISE },
		{ "no-sweep", no_argument, 0, O_NOSWEEP },
		{ "plugin", required_argument, 0, O_PLUGIN },
		{ "strategies", required_argument, 0, 's' },
		{ "walltime", required_argument, 0, 'w' },
		{ "sched", required_argument, 0, O_SCHED },
		{ "priority", required_argument, 0, O_PRIO },
		{ "pf-max-nodes", required_argument, 0, O_PFMAX },
		{ "pf-with-job", no_argument, 0, O_PF_WITH_JOB },
		{ "turnaround", required_argument, 0, O_TURNAROUND },
		{ "set", required_argument, 0, O_SET },
		{ "loc-le", no_argument, 0, O_LOCLE },
		{ "no-recorded", no_argument, 0, O_NOREC },
		{ "decision", required_argument, 0, O_DECISION },
		{ "out", required_argument, 0, 'o' },
		{ "snapshots", required_argument, 0, O_SNAPS },
		{ "snapshot-at", required_argument, 0, O_SNAPAT },
		{ "no-svg", no_argument, 0, O_NOSVG },
		{ "threads", required_argument, 0, 'j' },
		{ "quiet", no_argument, 0, 'q' },
		{ "progress", no_argument, 0, O_PROGRESS },
		{ "no-progress", no_argument, 0, O_NOPROGRESS },
		{ "golden", required_argument, 0, O_GOLDEN },
		{ "tolerance", required_argument, 0, O_TOL },
		{ "update-golden", no_argument, 0, O_UPDATE },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
	};
	enum { NFIXED = sizeof(fixed) / sizeof(fixed[0]) };
	/* the fixed options, then one per key option, then the end */
	struct option lo[NFIXED + RP_MAX_KEY_OPTIONS + 1];
	int c, nlo = NFIXED;
	bool advise = mode == RP_MODE_ADVISE;

	memcpy(lo, fixed, sizeof(fixed));
	for (int i = 0; i < rp_nkey_options; i++)
		lo[nlo++] = (struct option){ rp_key_option_name(i),
					     required_argument, 0,
					     O_KEY_FIRST + i };
	lo[nlo] = (struct option){ 0, 0, 0, 0 };

	if (advise)
		rp_prog = "locality-advise";
	memset(o, 0, sizeof(*o));
	o->mode = mode;
	o->max_wait_ratio = 1.05;
	loc_trace_opts_init(&o->topts);
	o->sched = RP_SCHED_EASY;
	o->prio = RP_PRIO_FCFS;
	o->nsnaps = 3;
	o->jitter_seed = 1;
	o->noise_draws = 4;
	o->threads = 2;
	o->progress = -1;
	while ((c = getopt_long(argc, argv, "c:t:s:w:o:j:qhV", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			o->machine.config = optarg;
			break;
		case O_GRID:
			o->machine.grid = optarg;
			break;
		case O_TORUS:
			o->machine.torus = optarg;
			break;
		case O_NPP:
			o->machine.nodes_per_point = (int)rp_int_arg(
				"--nodes-per-point", optarg, 1, 1 << 20);
			break;
		case O_DERIVE:
			o->machine.derive =
				optarg ? (int)rp_int_arg("--derive-grid", optarg,
						       2, 3)
				       : 3;
			break;
		case O_MNODES:
			o->machine_nodes = (int)rp_int_arg("--machine-nodes",
							 optarg, 1, 1 << 24);
			break;
		case O_MACHINES:
			o->machines_file = optarg;
			break;
		case O_NODE_WEIGHT:
			if (o->machine.nnode_weights == RP_MAX_NODE_WEIGHTS)
				rp_usage_error("%s", "too many --node-weight "
						     "options (256 at most)");
			o->machine.node_weights[o->machine.nnode_weights++] =
				optarg;
			break;
		case O_SHOW:
			o->show_config = true;
			break;
		case O_DRY:
			o->dry_run = true;
			break;
		case O_EXPORT:
			o->export_jobs = optarg;
			break;
		case 't':
			o->trace = optarg;
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "auto"))
				o->topts.format = LOC_TRACE_AUTO;
			else if (!strcmp(optarg, "swf"))
				o->topts.format = LOC_TRACE_SWF;
			else if (!strcmp(optarg, "sacct"))
				o->topts.format = LOC_TRACE_SACCT;
			else
				rp_usage_error("--format: '%s' is not auto, "
					       "swf or sacct",
					       optarg);
			break;
		case O_PPN:
			o->topts.procs_per_node =
				rp_real_arg("--procs-per-node", optarg, 1e-6);
			break;
		case O_SCALE:
			o->scale_to = rp_real_arg("--scale-to", optarg, 1);
			break;
		case O_SACCT_CPUS:
			o->topts.sacct_nodes_from_cpus = true;
			break;
		case O_ROUND:
			if (!strcmp(optarg, "pow2"))
				o->round = RP_ROUND_POW2;
			else if (!strcmp(optarg, "box"))
				o->round = RP_ROUND_BOX;
			else if (!strcmp(optarg, "none"))
				o->round = RP_ROUND_NONE;
			else
				rp_usage_error("--round: '%s' is not none, "
					       "pow2 or box",
					       optarg);
			break;
		case O_LIMIT:
			o->limit = (int)rp_int_arg("--limit", optarg, 0, 1 << 30);
			break;
		case O_ARRIVAL:
			o->arrival_scale =
				rp_real_arg("--arrival-scale", optarg, 0.01);
			if (o->arrival_scale > 100)
				rp_usage_error("--arrival-scale: '%s' is above "
					       "100",
					       optarg);
			break;
		case O_JITTER:
			o->arrival_jitter = (int)rp_int_arg("--arrival-jitter",
							  optarg, 0, 86400);
			break;
		case O_JITTER_SEED:
			o->jitter_seed = (uint64_t)rp_int_arg(
				"--jitter-seed", optarg, 1, 2147483647L);
			break;
		case O_STRICT:
			o->topts.strict = true;
			break;
		case O_DROP:
			o->drop_too_large = true;
			break;
		case O_OBJECTIVE:
			if (!advise)
				goto advise_only;
			if (!strcmp(optarg, "hops"))
				o->objective = RP_OBJ_HOPS;
			else if (!strcmp(optarg, "wait"))
				o->objective = RP_OBJ_WAIT;
			else if (!strcmp(optarg, "slowdown"))
				o->objective = RP_OBJ_SLOWDOWN;
			else
				rp_usage_error("--objective: '%s' is not hops, "
					       "wait or slowdown",
					       optarg);
			break;
		case O_MAXWAIT:
			if (!advise)
				goto advise_only;
			o->max_wait_ratio =
				rp_real_arg("--max-wait-ratio", optarg, 1);
			break;
		case O_CURRENT:
			if (!advise)
				goto advise_only;
			o->current = optarg;
			break;
		case O_VALIDATE:
			if (!advise)
				goto advise_only;
			o->validate = rp_real_arg("--validate", optarg, 0);
			if (!(o->validate > 0 && o->validate < 1))
				rp_usage_error("--validate: '%s' is not a fraction "
					       "of the jobs strictly between 0 "
					       "and 1",
					       optarg);
			break;
		case O_NOISE:
			if (!advise)
				goto advise_only;
			o->noise_draws = (int)rp_int_arg("--noise-draws", optarg,
						       0, RP_NOISE_MAX_DRAWS);
			break;
		case O_NOSWEEP:
			if (!advise)
				goto advise_only;
			o->no_sweep = true;
			break;
		case O_PLUGIN:
			if (!strcmp(optarg, "topology"))
				o->topology_site = true;
			else if (strcmp(optarg, "select"))
				rp_usage_error("--plugin: '%s' is not select "
					       "(select/locality) or topology "
					       "(select/cons_tres with "
					       "topology/locality)",
					       optarg);
			break;
		case 's':
			o->strategies = optarg;
			break;
		case 'w':
			o->walltime = optarg;
			break;
		case O_SCHED:
			if (!strcmp(optarg, "fcfs"))
				o->sched = RP_SCHED_FCFS;
			else if (!strcmp(optarg, "easy"))
				o->sched = RP_SCHED_EASY;
			else if (!strcmp(optarg, "conservative"))
				o->sched = RP_SCHED_CONSERVATIVE;
			else
				rp_usage_error("--sched: '%s' is not fcfs, "
					       "easy or conservative",
					       optarg);
			break;
		case O_PRIO:
			if (!strcmp(optarg, "fcfs"))
				o->prio = RP_PRIO_FCFS;
			else if (!strcmp(optarg, "wfp"))
				o->prio = RP_PRIO_WFP;
			else
				rp_usage_error(
					"--priority: '%s' is not fcfs or wfp",
					optarg);
			break;
		case O_PFMAX:
			o->pf_max_nodes = (int)rp_int_arg("--pf-max-nodes",
							optarg, 0, 1 << 24);
			break;
		case O_PF_WITH_JOB:
			o->pf_with_job = true;
			break;
		case O_TURNAROUND:
			o->turnaround = rp_int_arg("--turnaround", optarg, 0,
						 86400);
			break;
		case O_SET:
			rp_set_arg(o, optarg);
			break;
		case O_LOCLE:
			o->loc_le = true;
			break;
		case O_NOREC:
			o->no_recorded = true;
			break;
		case O_DECISION:
			o->decision = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case O_SNAPS:
			o->nsnaps = (int)rp_int_arg("--snapshots", optarg, 0,
						  MAX_SNAPS);
			break;
		case O_SNAPAT:
			o->snap_at = optarg;
			break;
		case O_NOSVG:
			o->no_svg = true;
			break;
		case 'j':
			o->threads = (int)rp_int_arg("--threads", optarg, 1, 64);
			break;
		case 'q':
			o->quiet = true;
			break;
		case O_PROGRESS:
			o->progress = 1;
			break;
		case O_NOPROGRESS:
			o->progress = 0;
			break;
		case O_GOLDEN:
			o->golden = optarg;
			break;
		case O_TOL:
			o->tolerance = rp_real_arg("--tolerance", optarg, 0);
			break;
		case O_UPDATE:
			o->update_golden = true;
			break;
		case 'h':
			rp_cli_help(mode);
			exit(0);
		case 'V':
			printf("%s %s\n", PROG, PACKAGE_VERSION);
			exit(0);
		default:
			if (c >= O_KEY_FIRST && c < O_KEY_FIRST + rp_nkey_options) {
				char opt[40];

				snprintf(opt, sizeof(opt), "--%s",
					 _opt_name(lo, c));
				rp_key_arg(o, opt,
					 rp_key_options[c - O_KEY_FIRST].key,
					 optarg);
				break;
			}
			fprintf(stderr, "Try '%s --help'.\n", PROG);
			exit(EXIT_USAGE);
		}
		/* the replay's comparison and export modes are not advice */
		if (advise && (c == O_GOLDEN || c == O_UPDATE || c == O_TOL ||
			       c == O_EXPORT || c == O_DRY || c == O_SHOW ||
			       c == O_DECISION || c == O_SNAPS ||
			       c == O_SNAPAT || c == O_NOREC)) {
			fprintf(stderr, "%s: --%s is an option of "
					"locality-replay only\n"
					"Try '%s --help'.\n",
				PROG, _opt_name(lo, c), PROG);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		rp_usage_error("unexpected argument '%s'", argv[optind]);
	rp_cli_check(o);
	if (advise)
		o->no_svg = true; /* no per-row pictures: tradeoff.svg */
	return;
advise_only:
	fprintf(stderr, "%s: --%s is an option of locality-advise\n", PROG,
		_opt_name(lo, c));
	exit(EXIT_USAGE);
}
