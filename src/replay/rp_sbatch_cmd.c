/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_sbatch_cmd.c - sbatch command lines for locality-advise --sbatch
 * (rp_sbatch_cmd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rp_cli.h"
#include "rp_sbatch_cmd.h"

/* Appends s to buf quoted for sh. */
void rp_sh_quote(char *buf, size_t len, const char *s)
{
	size_t at = strlen(buf);

	if (at < len)
		buf[at++] = '\'';
	for (; *s && at + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + at, "'\\''", 4);
			at += 4;
		} else {
			buf[at++] = *s;
		}
	}
	if (at + 1 < len)
		buf[at++] = '\'';
	buf[at < len ? at : len - 1] = '\0';
}

void rp_str_cat(char *buf, size_t len, const char *s)
{
	size_t at = strlen(buf);

	snprintf(buf + at, len - at, "%s", s);
}

/*
 * Runs one sbatch command line (sh syntax) and returns the job id it
 * prints (--parsable: "ID" or "ID;CLUSTER"). A failure exits with
 * sbatch's own words.
 */
long rp_sbatch_submit(const char *cmd)
{
	char out[4096] = "", *full;
	size_t n = 0;
	long id;
	int status;
	FILE *p;

	full = malloc(strlen(cmd) + 8);
	if (!full) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		exit(EXIT_RUNTIME);
	}
	sprintf(full, "%s 2>&1", cmd);
	p = popen(full, "r");
	free(full);
	if (!p) {
		fprintf(stderr, "%s: cannot run sbatch: %s\n", PROG,
			strerror(errno));
		exit(EXIT_RUNTIME);
	}
	while (n + 1 < sizeof(out) && fgets(out + n, sizeof(out) - n, p))
		n = strlen(out);
	status = pclose(p);
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: sbatch failed (exit %d): %s\n", PROG,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			n ? out : "(no output)");
		exit(EXIT_RUNTIME);
	}
	/* the id is the last line: sbatch may warn before it */
	{
		char *last = strrchr(out, '\n');

		id = strtol(last ? last + 1 : out, NULL, 10);
	}
	if (id <= 0) {
		fprintf(stderr, "%s: sbatch printed no job id: %s\n", PROG,
			n ? out : "(no output)");
		exit(EXIT_RUNTIME);
	}
	return id;
}
