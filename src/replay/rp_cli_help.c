/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_cli_help.c - the --help texts of locality-replay and locality-advise
 * (one getopt table in rp_cli.c serves both), and the locality.conf keys
 * that have options of their own: their names and help come from the
 * key table (loc_conf_key_table.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rp_cli.h"

/* ===================================================================== */
/* The key options                                                       */
/* ===================================================================== */

const rp_key_option_t rp_key_options[] = {
	{ LOC_KEY_CURVE, "NAME", NULL },
	{ LOC_KEY_SLTOL, "X", NULL },
	/* AdjEst is one word: --adjest-window, as scripts spell it */
	{ LOC_KEY_ADJEST, "N", "adjest-window" },
	{ LOC_KEY_PFHOLD, "S", NULL },
	{ LOC_KEY_COMPACT_WAIT, "S", NULL },
	{ LOC_KEY_COMPACT_TOL, "X", NULL },
	{ LOC_KEY_COMPACT_CLAIMS, "N", NULL },
	{ LOC_KEY_PLAN_WINDOW, "S", NULL },
	{ LOC_KEY_PLAN_HOLD, "H", NULL },
};
const int rp_nkey_options =
	(int)(sizeof(rp_key_options) / sizeof(rp_key_options[0]));
_Static_assert(sizeof(rp_key_options) / sizeof(rp_key_options[0]) <=
		       RP_MAX_KEY_OPTIONS,
	       "more key options than rp_cli_parse makes room for");

/* "CompactWait" -> "compact-wait", "SLTolerance" -> "sl-tolerance": a
 * dash before each word, a word starting at a capital that follows a
 * small letter or that a small letter follows. */
static void _dashed(const char *key, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; key[i] && o + 2 < len; i++) {
		unsigned char c = (unsigned char)key[i];
		unsigned char prev = i ? (unsigned char)key[i - 1] : 0;
		unsigned char next = (unsigned char)key[i + 1];

		if (i && isupper(c) &&
		    (islower(prev) || (isupper(prev) && islower(next))))
			buf[o++] = '-';
		buf[o++] = (char)tolower(c);
	}
	buf[o] = '\0';
}

const char *rp_key_option_name(int i)
{
	static char names[RP_MAX_KEY_OPTIONS][32];

	if (i < 0 || i >= rp_nkey_options)
		return "?";
	if (rp_key_options[i].name)
		return rp_key_options[i].name;
	if (!names[i][0])
		_dashed(loc_conf_key_info(rp_key_options[i].key)->name,
			names[i], sizeof(names[i]));
	return names[i];
}

/* Prints text from column 26 (after opt, or on its own line when opt
 * is longer), wrapped at column 79 like the hand-written lines. */
static void _option_line(const char *opt, const char *text)
{
	int col = printf("      %s", opt);
	bool first = true;

	if (col < 26)
		col += printf("%*s", 26 - col, "");
	else
		col += printf("  ");
	for (const char *w = text; *w;) {
		int n = (int)strcspn(w, " ");

		if (!first && col + 1 + n > 79)
			col = printf("\n%26s", "") - 1;
		else if (!first)
			col += printf(" ");
		col += printf("%.*s", n, w);
		first = false;
		w += n;
		w += strspn(w, " ");
	}
	printf("\n");
}

/* The key options and --set, with their keys' Doc lines. */
static void _help_key_options(void)
{
	printf("locality.conf keys, for every row over the config's "
	       "(locality.conf(5)):\n");
	for (int i = 0; i < rp_nkey_options; i++) {
		const loc_conf_key_info_t *info =
			loc_conf_key_info(rp_key_options[i].key);
		char opt[64], text[256];

		snprintf(opt, sizeof(opt), "--%s %s", rp_key_option_name(i),
			 rp_key_options[i].metavar);
		snprintf(text, sizeof(text), "%s: %s", info->name, info->doc);
		_option_line(opt, text);
	}
	_option_line("--set KEY=VALUE", "any policy key but Strategy and "
		     "WalltimeAware (--strategies, --walltime), or a key "
		     "above; repeatable");
}

/* "--curve NAME, --sl-tolerance X, ..." for locality-advise's list of
 * the replay's options, wrapped at column 79. */
static void _list_key_options(void)
{
	int col = 0;

	for (int i = 0; i <= rp_nkey_options; i++) {
		char opt[64];

		if (i < rp_nkey_options)
			snprintf(opt, sizeof(opt), "--%s %s%s",
				 rp_key_option_name(i),
				 rp_key_options[i].metavar, ",");
		else
			snprintf(opt, sizeof(opt), "--set KEY=VALUE");
		if (col && col + 1 + (int)strlen(opt) > 79) {
			printf("\n");
			col = 0;
		}
		col += printf("%s%s", col ? " " : "  ", opt);
	}
	printf("\n");
}

/* ===================================================================== */
/* The texts                                                             */
/* ===================================================================== */

static void _help_advise(void)
{
	printf("Usage: %s --trace FILE (--config FILE | --grid DIMS | "
	       "--derive-grid[=D])\n"
	       "       [--objective hops|wait|slowdown] [--max-wait-ratio X]\n"
	       "       [--current STRATEGY[/CURVE][+MODE] | recorded] --out "
	       "DIR [OPTIONS]\n\n"
	       "Replays a site's trace through every strategy and walltime "
	       "mode (the\n"
	       "replay of locality-replay), ranks them by an objective and "
	       "prints the\n"
	       "locality.conf lines of the best. Rows are compared on the "
	       "jobs the\n"
	       "current placement ran; a row that did not run them all is "
	       "listed with\n"
	       "the count but never recommended.\n\n"
	       "Advice:\n"
	       "      --objective O       hops (default): lowest mean hops "
	       "among rows whose\n"
	       "                          mean wait is at most the ratio x "
	       "the current's;\n"
	       "                          wait or slowdown: lowest mean wait "
	       "or bounded\n"
	       "                          slowdown, under the same wait "
	       "limit\n"
	       "      --max-wait-ratio X  the wait limit (default 1.05: 5%% "
	       "above current)\n"
	       "      --current ROW       the site's placement today "
	       "(default bestfit/rowmajor,\n"
	       "                          select/linear's model; "
	       "freelist/rowmajor for a\n"
	       "                          slurm.conf with a NodeName line per "
	       "node; recorded:\n"
	       "                          the trace's NodeList and waits)\n"
	       "      --validate F        fit on the first F (0 < F < 1) of "
	       "the jobs by\n"
	       "                          submit time, then replay the rest "
	       "with the advised\n"
	       "                          and the current row: predicted "
	       "against replayed\n"
	       "      --noise-draws N     replay the top 5 rows and the "
	       "current N more times\n"
	       "                          (0-16, default 4) with every submit "
	       "moved by up to 1 s\n"
	       "                          (or --arrival-jitter S): how far "
	       "each claim moves\n"
	       "      --no-sweep          no sweep of CompactWait, "
	       "CompactTolerance, PlanHold\n"
	       "                          and PlanWindow around the best two "
	       "rows\n"
	       "      --plugin select|topology\n"
	       "                          the site's plugin: select/locality "
	       "(default), or\n"
	       "                          select/cons_tres with "
	       "topology/locality: then only\n"
	       "                          rows it honours (walltime mode "
	       "none or sl, PlanWindow 0),\n"
	       "                          replayed with its claims "
	       "(CompactClaims)\n"
	       "      --sbatch            replay the rows as Slurm job arrays "
	       "(sbatch on PATH),\n"
	       "                          merged by dependent jobs into "
	       "OUT; state in OUT/sbatch\n"
	       "      --sbatch-args TEXT  more sbatch options for those jobs "
	       "(split by sh)\n"
	       "      --resume OUT        continue an --sbatch run: rows with "
	       "files are kept\n"
	       "  -s, --strategies LIST   candidates strategy[/curve],... "
	       "(default: all)\n"
	       "  -w, --walltime LIST     candidate modes (default "
	       "none,sl,pf,combo,adjest)\n"
	       "Machine, trace and scheduling options are locality-replay's:\n"
	       "  -c, --config FILE, --grid DIMS, --torus LIST, "
	       "--nodes-per-point N,\n"
	       "  --derive-grid[=D], --machine-nodes N, -t, --trace FILE, "
	       "--format F,\n"
	       "  --procs-per-node X, --scale-to N, --sacct-cpus, --round R, "
	       "--limit N,\n"
	       "  --arrival-scale F, --arrival-jitter S, --jitter-seed N, "
	       "--strict,\n"
	       "  --drop-too-large, --sched S, --priority P,\n"
	       "  --pf-max-nodes N, --pf-with-job, --turnaround S, --loc-le, "
	       "and the\n  locality.conf keys:\n",
	       PROG);
	_list_key_options();
	printf("Output:\n"
	       "  -o, --out DIR           advice.txt, ranking.csv, "
	       "tradeoff.svg, summary.json,\n"
	       "                          rejected.csv\n"
	       "  -j, --threads N         rows replayed in parallel (default "
	       "2)\n"
	       "  -q, --quiet             no table on stdout\n"
	       "      --progress, --no-progress  progress bar (default: when "
	       "stderr is a tty)\n"
	       "  -h, --help              this text;  -V, --version\n\n"
	       "Exit status: 0 success, 1 usage, 2 bad input, 4 simulation or "
	       "output\n"
	       "failure.\n");
}

static void _help_replay(void)
{
	printf("Usage: %s --trace FILE (--config FILE | --grid DIMS | "
	       "--derive-grid[=D])\n"
	       "       [--strategies LIST] [--walltime LIST] [--sched "
	       "fcfs|easy]\n"
	       "       [--priority fcfs|wfp] --out DIR [OPTIONS]\n"
	       "   or: %s --trace FILE --export-jobs FILE [TRACE OPTIONS]\n\n"
	       "Replays a job trace through allocation strategies side by side "
	       "on the\n"
	       "select/locality core and reports wait, bounded slowdown, "
	       "utilisation,\n"
	       "makespan, loss of capacity and locality per strategy.\n\n"
	       "Machine:\n"
	       "  -c, --config FILE       locality.conf (the file the plugin "
	       "reads)\n"
	       "      --grid DIMS         a shape instead of a file, e.g. "
	       "16x16 or 5x4x4\n"
	       "      --torus LIST        with --grid: yes, no (default) or "
	       "one per dimension\n"
	       "      --nodes-per-point N with --grid: nodes sharing one grid "
	       "point\n"
	       "      --derive-grid[=D]   a torus of D = 3 (default) or 2 "
	       "dimensions sized for\n"
	       "                          the trace (MaxProcs / "
	       "procs-per-node, or MaxNodes)\n"
	       "      --machine-nodes N   the size --derive-grid uses\n"
	       "      --machines FILE     MetaCentrum machine list; its node "
	       "total sizes\n"
	       "                          --derive-grid\n"
	       "      --node-weight NODES=W  slurm.conf's Weight= of NODES "
	       "(a hostlist;\n"
	       "                          indices on an unnamed grid; "
	       "repeatable; others\n"
	       "                          weigh 1): jobs use the lightest "
	       "nodes first\n"
	       "                          (NodeWeight=tiers, "
	       "locality.conf(5))\n"
	       "      --show-config       print the machine and exit\n"
	       "Trace:\n"
	       "  -t, --trace FILE        .swf, .swf.gz or sacct --parsable2 "
	       "export\n"
	       "      --format F          auto (default), swf or sacct\n"
	       "      --procs-per-node X  nodes = ceil(processors / X) (SWF; "
	       "default 1)\n"
	       "      --scale-to N        procs-per-node = MaxProcs / N: N "
	       "allocation units\n"
	       "      --sacct-cpus        sacct: size jobs by CPUs / "
	       "procs-per-node\n"
	       "      --round R           round node counts up: none "
	       "(default), pow2, or box\n"
	       "                          (the next size that fills a box of "
	       "the grid)\n"
	       "      --limit N           replay only the first N jobs by "
	       "submit time\n"
	       "      --arrival-scale F   divide each job's time since the "
	       "first submit by F\n"
	       "                          (F > 1: the same jobs arrive F "
	       "times as densely)\n"
	       "      --arrival-jitter S  move each job's submit by a "
	       "whole number of seconds\n"
	       "                          in [-S, S] (0-86400), drawn "
	       "from --jitter-seed N\n"
	       "                          (default 1) and the job's place "
	       "in the trace: how\n"
	       "                          much a replay's figures move "
	       "when the history does\n"
	       "      --strict            the first malformed trace line is "
	       "fatal\n"
	       "      --drop-too-large    replay without jobs larger than the "
	       "machine\n"
	       "                          (listed in rejected.csv; default: an "
	       "error)\n"
	       "      --dry-run           read the trace, report the workload "
	       "(offered\n"
	       "                          load, rejected sizes) and exit\n"
	       "      --export-jobs FILE  write the jobs the replay would run "
	       "('-': stdout):\n"
	       "                          id submit runtime requested nodes "
	       "procs, and exit;\n"
	       "                          no machine needed (--round box needs "
	       "one; with one,\n"
	       "                          jobs larger than it are left out)\n"
	       "Scheduling:\n"
	       "  -s, --strategies LIST   strategy[/curve],... (default: the "
	       "config's)\n"
	       "  -w, --walltime LIST     none,sl,pf,combo,adjest,actrun "
	       "(default: the\n"
	       "                          config's; under --plugin topology "
	       "sl or none, as\n"
	       "                          topology/locality places it); every "
	       "strategy runs\n"
	       "                          with every mode\n"
	       "      --sched S           fcfs, easy (EASY backfilling, "
	       "default) or\n"
	       "                          conservative (a reservation for "
	       "every job, as\n"
	       "                          Slurm's sched/backfill plans)\n"
	       "      --plugin P          select (default) or topology: the "
	       "plugin modelled.\n"
	       "                          A job that declines the set it "
	       "could take now\n"
	       "                          (CompactWait) holds nothing under "
	       "select; under\n"
	       "                          topology --sched conservative "
	       "plans it at its first\n"
	       "                          compact set, and with "
	       "CompactClaims > 0 it claims a\n"
	       "                          region the other jobs keep off "
	       "while it waits\n"
	       "      --priority P        fcfs (default) or wfp: "
	       "(wait/requested)^3 x nodes\n"
	       "      --pf-max-nodes N    PF only for jobs of at most N nodes "
	       "(0 = any)\n"
	       "      --pf-with-job       PF starts the partner with its job, "
	       "as seed 004\n"
	       "                          does (default: its region is held "
	       "PFHoldTime\n"
	       "                          seconds and it starts at its turn, "
	       "as under\n"
	       "                          select/locality)\n"
	       "      --turnaround S      a node is free S seconds after its "
	       "job ends (epilog,\n"
	       "                          completing, the scheduler's next "
	       "pass; default 0)\n"
	       "      --loc-le            loss of capacity also counts a "
	       "waiting job of\n"
	       "                          exactly the idle node count\n"
	       "      --no-recorded       no row for the trace's recorded "
	       "placement\n"
	       "      --decision LIST     seed 003 decision strategies: at "
	       "each placement,\n"
	       "                          also ask these where they would "
	       "place the job\n",
	       PROG, PROG);
	_help_key_options();
	printf("Output:\n"
	       "  -o, --out DIR           summary.json, ROW.csv, "
	       "occupancy-ROW-I.svg,\n"
	       "                          dist-FIGURE.svg, rejected.csv\n"
	       "      --snapshots N       occupancy pictures at N times "
	       "(default 3)\n"
	       "      --snapshot-at LIST  ... at these seconds after the first "
	       "submit\n"
	       "      --no-svg            no pictures\n"
	       "  -j, --threads N         rows replayed in parallel (default "
	       "2)\n"
	       "  -q, --quiet             no table, no timings\n"
	       "      --progress, --no-progress  progress bar (default: when "
	       "stderr is a tty)\n"
	       "Regression:\n"
	       "      --golden FILE       compare summary.json with FILE; exit "
	       "3 on drift\n"
	       "      --tolerance X       relative tolerance (default 0: "
	       "exact)\n"
	       "      --update-golden     write summary.json to FILE instead\n"
	       "  -h, --help              this text;  -V, --version\n\n"
	       "Exit status: 0 success, 1 usage, 2 bad input, 3 regression "
	       "drift,\n"
	       "4 simulation or output failure.\n");
}

void rp_cli_help(rp_mode_t mode)
{
	if (mode == RP_MODE_ADVISE)
		_help_advise();
	else
		_help_replay();
}
