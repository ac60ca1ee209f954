/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_conf.c - locality.conf: loc_conf_parse_mem() on arbitrary bytes.
 *
 * slurmctld reads this file at start and on every `scontrol reconfigure`,
 * so any byte sequence must give a configuration or an error naming a
 * line, never a crash or a leak. On success the result must be usable:
 * a valid shape, partition lookups that find each partition, NodeName
 * lines whose names match their count, and a description that fits.
 */
#include "fuzz_util.h"
#include "loc_conf.h"

/* Whether the GRES gres is the one named by arg (a job that asks for
 * one GRES). */
static bool _asks_exactly(const char *gres, void *arg)
{
	return !strcmp(gres, (const char *)arg);
}

/* The index of the first GresName line naming gres. */
static int _first_gres(const loc_conf_t *c, const char *gres)
{
	int g = 0;

	while (g < c->ngres && strcmp(c->gres[g].name, gres))
		g++;
	return g;
}

/* Checks what loc_conf.h promises about a parsed configuration. */
static void _check_conf(const loc_conf_t *c)
{
	const loc_shape_t *sh = &c->shape;
	long long points = 1;
	char desc[1024];

	FUZZ_CHECK(sh->ndims >= 1 && sh->ndims <= LOC_MAX_DIMS, "ndims %d",
		   sh->ndims);
	for (int d = 0; d < sh->ndims; d++) {
		FUZZ_CHECK(sh->dims[d] >= 1, "dims[%d] = %d", d, sh->dims[d]);
		points *= sh->dims[d];
	}
	FUZZ_CHECK(points >= 1 && points <= (1LL << 26), "points %lld",
		   points);
	FUZZ_CHECK(sh->nodes_per_point >= 1, "npp %d", sh->nodes_per_point);
	FUZZ_CHECK(c->nnodes_lines >= 0 && c->npartitions >= 0, "counts");
	for (int i = 0; i < c->nnodes_lines; i++) {
		const loc_conf_nodes_t *nl = &c->nodes[i];

		FUZZ_CHECK(nl->hostlist && nl->count >= 1, "NodeName line %d",
			   nl->line);
		for (int k = 0; k < nl->count; k++)
			FUZZ_CHECK(nl->names[k] && nl->names[k][0],
				   "empty name %d", k);
		for (int d = 0; d < sh->ndims; d++)
			FUZZ_CHECK(nl->start.c[d] >= 0 &&
					   nl->start.c[d] < sh->dims[d],
				   "Coords outside the grid");
	}
	for (int i = 0; i < c->npartitions; i++) {
		const loc_conf_partition_t *p = &c->partitions[i];

		FUZZ_CHECK(loc_conf_policy(c, p->name) == &p->policy,
			   "partition '%s' not found", p->name);
	}
	FUZZ_CHECK(loc_conf_policy(c, NULL) == &c->policy, "global policy");
	/* A GRES line's policy is its own, over each partition's. */
	for (int g = 0; g < c->ngres; g++) {
		const loc_conf_gres_t *gr = &c->gres[g];

		FUZZ_CHECK(gr->name && gr->name[0] && gr->policies,
			   "GresName line %d", gr->line);
		FUZZ_CHECK(loc_conf_job_policy(c, NULL, _asks_exactly,
					       gr->name) ==
				   &c->gres[_first_gres(c, gr->name)]
					    .policies[c->npartitions],
			   "GresName=%s not found", gr->name);
	}
	FUZZ_CHECK(loc_conf_job_policy(c, NULL, NULL, NULL) == &c->policy,
		   "a job without GRES");
	loc_conf_describe(c, desc, sizeof(desc));
	FUZZ_CHECK(strlen(desc) < sizeof(desc), "describe overflow");
	/* A tiny buffer must be cut, not overrun. */
	loc_conf_describe(c, desc, 8);
	FUZZ_CHECK(strlen(desc) < 8, "describe ignores len");
}

/*
 * A final newline must not change the meaning: the same file saved by an
 * editor that adds one parses the same way (same error line and text).
 * Only for text without one: after a newline it would add a blank line,
 * which a trailing '\' may legitimately continue onto.
 */
static void _check_newline(const uint8_t *data, size_t size,
			   const loc_conf_t *c, const loc_error_t *err)
{
	char *copy = malloc(size + 1);
	loc_error_t err2;
	loc_conf_t *c2;

	FUZZ_CHECK(copy, "out of memory");
	memcpy(copy, data, size);
	copy[size] = '\n';
	c2 = loc_conf_parse_mem(copy, size + 1, "fuzz.conf", &err2);
	free(copy);
	FUZZ_CHECK(!c == !c2, "a final newline turns %s into %s: %s",
		   c ? "success" : "failure", c2 ? "success" : "failure",
		   c ? err2.text : err->text);
	if (!c)
		FUZZ_CHECK(err->line == err2.line &&
				   !strcmp(err->text, err2.text),
			   "final newline: line %d '%s' became line %d '%s'",
			   err->line, err->text, err2.line, err2.text);
	else
		FUZZ_CHECK(c2->nnodes_lines == c->nnodes_lines &&
				   c2->npartitions == c->npartitions &&
				   !memcmp(&c2->shape, &c->shape,
					   sizeof(c->shape)),
			   "a final newline changes the configuration");
	loc_conf_destroy(c2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	loc_error_t err;
	loc_conf_t *c;

	c = loc_conf_parse_mem((const char *)data, size, "fuzz.conf", &err);
	if (!size || data[size - 1] != '\n')
		_check_newline(data, size, c, &err);
	if (!c) {
		fuzz_check_error(&err, err.code);
		FUZZ_CHECK(!strcmp(err.file, "fuzz.conf") || err.code ==
			   LOC_ENOMEM, "error names file '%s'", err.file);
		return 0;
	}
	FUZZ_CHECK(err.code == LOC_OK, "success with err.code %d", err.code);
	_check_conf(c);
	loc_conf_destroy(c);
	return 0;
}
