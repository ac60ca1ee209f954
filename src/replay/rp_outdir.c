/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rp_outdir.c - write into a temporary directory, move into place at the
 * end (see rp_outdir.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rp_outdir.h"

/* Fills od->final, od->tmp (the template mkdtemp() completes) and parent
 * (plen bytes) for out. */
static int _paths(rp_outdir_t *od, const char *out, char *parent,
		  size_t plen, loc_error_t *err)
{
	char name[4096];
	const char *slash;
	size_t len = strlen(out);

	memset(od, 0, sizeof(*od));
	/* "dir/" and "dir" are the same directory */
	while (len > 1 && out[len - 1] == '/')
		len--;
	if (len >= sizeof(od->final))
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "output path too long");
	memcpy(od->final, out, len);
	od->final[len] = '\0';
	slash = strrchr(od->final, '/');
	if (slash) {
		snprintf(parent, plen, "%.*s",
			 (int)(slash - od->final) ? (int)(slash - od->final)
						  : 1,
			 od->final);
		snprintf(name, sizeof(name), "%s", slash + 1);
	} else {
		snprintf(parent, plen, ".");
		snprintf(name, sizeof(name), "%s", od->final);
	}
	if (snprintf(od->tmp, sizeof(od->tmp), "%s/.%s.partial-XXXXXX", parent,
		     name) >= (int)sizeof(od->tmp))
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "output path too long");
	return 0;
}

int rp_outdir_open(rp_outdir_t *od, const char *out, loc_error_t *err)
{
	char parent[4096];
	int rc = _paths(od, out, parent, sizeof(parent), err);

	if (rc)
		return rc;
	if (!mkdtemp(od->tmp))
		return loc_error_set(err, LOC_EIO, parent, 0,
				     "cannot create the output directory "
				     "here: %s",
				     strerror(errno));
	od->open = true;
	return 0;
}

int rp_outdir_check(const char *out, loc_error_t *err)
{
	rp_outdir_t od;
	int rc = rp_outdir_open(&od, out, err);

	if (!rc)
		rp_outdir_abort(&od);
	return rc;
}

void rp_outdir_abort(rp_outdir_t *od)
{
	DIR *d;
	struct dirent *e;

	if (!od->open)
		return;
	/* only this run's files are in its own temporary directory */
	d = opendir(od->tmp);
	while (d && (e = readdir(d))) {
		char path[8192];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", od->tmp, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(od->tmp);
	od->open = false;
}

/* The process's umask (read by setting it back at once: the replay's
 * threads have finished when outputs are committed). */
static mode_t _umask_now(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

int rp_outdir_commit(rp_outdir_t *od, loc_error_t *err)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (!od->open)
		return loc_error_set(err, LOC_EINVAL, NULL, 0,
				     "output directory not open");
	if (stat(od->final, &st) && errno == ENOENT) {
		if (rename(od->tmp, od->final) == 0) {
			od->open = false;
			/* mkdtemp made it 0700; give it the usual mode */
			chmod(od->final, 0777 & ~_umask_now());
			return 0;
		}
	} else if (!S_ISDIR(st.st_mode)) {
		rc = loc_error_set(err, LOC_EIO, od->final, 0,
				   "exists and is not a directory");
		rp_outdir_abort(od);
		return rc;
	}
	d = opendir(od->tmp);
	if (!d) {
		rc = loc_error_set(err, LOC_EIO, od->tmp, 0, "cannot read: %s",
				   strerror(errno));
		rp_outdir_abort(od);
		return rc;
	}
	while (!rc && (e = readdir(d))) {
		char from[8192], to[8192];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(from, sizeof(from), "%s/%s", od->tmp, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", od->final, e->d_name);
		if (rename(from, to))
			rc = loc_error_set(err, LOC_EIO, to, 0,
					   "cannot move into place: %s",
					   strerror(errno));
	}
	closedir(d);
	rp_outdir_abort(od);
	return rc;
}
