/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sbatch_cmd.h - building and running the sbatch command lines of
 * locality-advise --sbatch (rp_advise_sbatch.h): sh quoting, and one
 * submission whose job id comes back or whose failure ends the program
 * with sbatch's own words (exit EXIT_RUNTIME).
 */
#ifndef RP_SBATCH_CMD_H
#define RP_SBATCH_CMD_H

#include <stddef.h>

/* Appends s to the string in buf (len bytes), quoted for sh. */
void rp_sh_quote(char *buf, size_t len, const char *s);

/* Appends s to the string in buf (len bytes), cut to fit. */
void rp_str_cat(char *buf, size_t len, const char *s);

/* Runs cmd (an sbatch command line with --parsable, sh syntax) and
 * returns the job id it prints; exits when sbatch fails or prints none. */
long rp_sbatch_submit(const char *cmd);

#endif /* RP_SBATCH_CMD_H */
