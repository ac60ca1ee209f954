/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_test_conf.h - helpers shared by the unit tests of locality.conf
 * (test_loc_conf.c, test_loc_conf_grid.c, test_loc_conf_errors.c): a parse
 * that must succeed, a temporary file, and the good file that sets every
 * key. Header-only (static functions), like loc_test_util.h; include after
 * <cmocka.h>.
 */
#ifndef LOC_TEST_CONF_H
#define LOC_TEST_CONF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loc_conf.h"

/* Parses text as "locality.conf"; asserts success. */
static inline loc_conf_t *_ok(const char *text)
{
	loc_error_t err;
	char msg[600];
	loc_conf_t *c = loc_conf_parse(text, "locality.conf", &err);

	if (!c)
		fail_msg("rejected: %s", loc_error_format(&err, msg,
							  sizeof(msg)));
	return c;
}

/* Writes len bytes to a fresh temporary file; returns its path (static). */
static inline const char *_tmpfile(const char *data, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_loc_conf.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* The good file: sets every key, in mixed case, with comments and
 * continued lines (test_loc_conf.c checks that no key is missing). */
static const char _all_keys[] =
	"# every key, mixed case, comments and continuation\n"
	"dimensions=8X8x4   torus=YES,no,Yes   # a comment after keys\n"
	"\n"
	"   NodesPerPoint=2\n"
	"STRATEGY=MM_INC Curve=Snake WalltimeAware=AdjEst \\\n"
	"\tSLTolerance=0.25 PFHoldTime=120 \\\n"
	"\tAdjEstWindow=7 RecordPlacement=none\n"
	"PagingSize=3 PagingIndex=Shuffled MMMaxCenters=12 "
	"Seed=18446744073709551615\n"
	"NodeName=n[001-004] Coords=1,2,3\n"
	"nodename=m[1-2]   coords=7,7,3   # ends exactly at the last point\n"
	"PartitionName=debug Strategy=bestfit Curve=rowmajor NodeWeight=Ignore\n"
	"PartitionName=batch WalltimeAware=pf SLTolerance=0.5 PagingSize=1 "
	"PagingIndex=snake MMMaxCenters=3 Seed=9 PackTolerance=0.125 "
	"CompactWait=45 CompactTolerance=0.35 CompactClaims=3 PlanWindow=30 "
	"PlanHold=Released SharedNodes=First\n"
	"partitionname=plain\n"
	"GresName=gpu CompactTolerance=0.3 Strategy=span\n";

#endif /* LOC_TEST_CONF_H */
