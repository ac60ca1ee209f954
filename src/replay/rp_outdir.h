/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_outdir.h - an output directory that never holds half a result.
 *
 * Files are written into a fresh temporary directory beside the target
 * (same parent, so the same file system) and moved into place only when
 * every one is complete: a failure leaves the target as it was.
 */
#ifndef RP_OUTDIR_H
#define RP_OUTDIR_H

#include <stdbool.h>

#include "loc_error.h"

typedef struct rp_outdir {
	char final[4096];   /* the directory asked for */
	char tmp[4096];     /* where files are written until commit */
	bool open;
} rp_outdir_t;

/*
 * Creates PARENT/.NAME.partial-XXXXXX for the directory out. Returns 0,
 * or LOC_EIO with err naming the parent.
 */
int rp_outdir_open(rp_outdir_t *od, const char *out, loc_error_t *err);

/*
 * Checks that rp_outdir_open() can make its temporary directory for out,
 * by making one and removing it: called before a long run, so that a
 * mistyped --out fails at once instead of after the run. Leaves nothing.
 * Returns as rp_outdir_open().
 */
int rp_outdir_check(const char *out, loc_error_t *err);

/*
 * Moves the finished files into place: the whole directory when out does
 * not exist yet, else file by file (replacing files of the same name,
 * keeping the others). Returns 0, or LOC_EIO with err naming the file;
 * the temporary directory is removed either way.
 */
int rp_outdir_commit(rp_outdir_t *od, loc_error_t *err);

/* Removes the temporary directory and what was written into it; accepts
 * a directory never opened. */
void rp_outdir_abort(rp_outdir_t *od);

#endif /* RP_OUTDIR_H */
