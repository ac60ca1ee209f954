/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_cli_check.c - the checks of a parsed command line that look at
 * several options together, shared by locality-replay and
 * locality-advise (rp_cli_parse() calls rp_cli_check()).
 */
#include <stdlib.h>
#include <string.h>

#include "rp_cli.h"
#include "rp_outdir.h"

/*
 * --plugin topology: topology/locality places with SL (sl) or without
 * (none); PF and AdjEst are select/locality's, so a --walltime list that
 * names another mode would replay what the plugin does not do.
 */
static void _check_topology_modes(const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (!copy)
		rp_usage_error("%s", "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, "none") && strcmp(tok, "sl"))
			rp_usage_error("--plugin topology: topology/locality "
				       "uses walltime modes none and sl only "
				       "(PF and AdjEst are select/locality's), "
				       "not '%s'",
				       tok);
	free(copy);
}

void rp_cli_check(rp_opts_t *o)
{
	if (!o->trace)
		rp_usage_error("%s", "--trace FILE is required");
	if (!rp_has_machine(o) && (!o->export_jobs || o->show_config))
		rp_usage_error("%s", "a machine is required: --config FILE, "
				     "--grid DIMS or --derive-grid");
	if (!rp_has_machine(o) && o->round == RP_ROUND_BOX)
		rp_usage_error("%s", "--round box needs a machine: --config "
				     "FILE, --grid DIMS or --derive-grid");
	if (!!o->machine.config + !!o->machine.grid + !!o->machine.derive > 1)
		rp_usage_error(
			"%s",
			"give only one of --config, --grid and --derive-grid");
	if (o->machine.nnode_weights && !rp_has_machine(o))
		rp_usage_error("%s", "--node-weight needs a machine: --config "
				     "FILE, --grid DIMS or --derive-grid");
	if (!o->show_config && !o->dry_run && !o->export_jobs) {
		loc_error_t err = { 0 };

		if (!o->out)
			rp_usage_error("%s", "--out DIR is required");
		/* A mistyped --out fails now, not after reading the trace
		 * and the run. */
		if (rp_outdir_check(o->out, &err))
			rp_die_err(EXIT_RUNTIME, &err);
	}
	if (o->update_golden && !o->golden)
		rp_usage_error("%s", "--update-golden needs --golden FILE");
	if (o->topology_site && o->walltime)
		_check_topology_modes(o->walltime);
}
