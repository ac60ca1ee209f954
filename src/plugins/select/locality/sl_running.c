/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_running.c - the locality.conf in use, kept across a slurmctld that
 * restarts itself.
 *
 * On `scontrol reconfigure` Slurm 22.05 calls select_p_reconfigure in the
 * running slurmctld, and a broken locality.conf is logged while the
 * running configuration stays. Slurm 24.11 instead starts slurmctld anew
 * (a new process, or the same one exec'd when it runs in the foreground),
 * which would stop at the broken file. So the text of the file in use is
 * saved with Slurm's state (select_p_state_save, which slurmctld runs
 * just before it restarts itself), and a slurmctld restarted by a
 * reconfigure (sl_glue_reconfigure_restart) that finds the file broken
 * loads that copy instead, after logging the error: both versions end the
 * same way. A slurmctld started by hand still stops at a broken file.
 * Callers hold the plugin mutex.
 */
#include <stdio.h>
#include <unistd.h>

#include "select_locality.h"

#define SL_RUNNING_FILE "locality.conf.running"

static char *_text; /* the file in use (xmalloc); NULL before a load */
static size_t _len;

/* Returns the file's bytes (xmalloc, NUL-terminated) and their count in
 * *len, or NULL. */
static char *_read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap += 65536;
			xrealloc(buf, cap + 1);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		xfree(buf);
		n = 0;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

void sl_running_remember(const char *path)
{
	size_t len = 0;
	char *text = _read_all(path, &len);

	if (!text)
		return; /* keep the previous copy */
	xfree(_text);
	_text = text;
	_len = len;
}

void sl_running_forget(void)
{
	xfree(_text);
	_len = 0;
}

int sl_running_save(const char *dir)
{
	char *path, *tmp;
	FILE *f;
	int rc = SLURM_SUCCESS;

	if (!_text || !dir)
		return SLURM_SUCCESS;
	path = xstrdup_printf("%s/%s", dir, SL_RUNNING_FILE);
	tmp = xstrdup_printf("%s.new", path);
	if ((f = fopen(tmp, "w"))) {
		bool written = fwrite(_text, 1, _len, f) == _len;

		if (fclose(f) != 0 || !written || rename(tmp, path) != 0)
			rc = SLURM_ERROR;
	} else {
		rc = SLURM_ERROR;
	}
	if (rc != SLURM_SUCCESS)
		error("%s: cannot save %s: %m", plugin_type, path);
	xfree(tmp);
	xfree(path);
	return rc;
}

char *sl_running_fallback(void)
{
	char *path;

	if (!sl_glue_reconfigure_restart() || !slurm_conf.state_save_location)
		return NULL;
	path = xstrdup_printf("%s/%s", slurm_conf.state_save_location,
			      SL_RUNNING_FILE);
	if (access(path, R_OK) == 0)
		return path;
	xfree(path);
	return NULL;
}
