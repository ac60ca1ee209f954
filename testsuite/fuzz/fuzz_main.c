/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_main.c - runs a fuzz target once on each file named on the command
 * line (directories: each regular file inside, in name order), without
 * libFuzzer. `make check` uses it to replay the seed corpus and every
 * regression input with the normal compiler, and under the sanitizer
 * build (scripts/sanitize.sh) and valgrind (scripts/valgrind.sh).
 *
 * Exit status: 0 when every input ran (a failed check aborts), 2 when a
 * file cannot be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

/* Reads the whole file at path; returns 0 or -1. */
static int _slurp(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0;
	uint8_t *buf;

	if (!f)
		return -1;
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		uint8_t *t;

		n += got;
		if (n < cap)
			break;
		t = realloc(buf, cap * 2);
		if (!t) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = t;
		cap *= 2;
	}
	if (!buf || ferror(f)) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	*data = buf;
	*size = n;
	return 0;
}

static int _run_file(const char *path)
{
	uint8_t *data;
	size_t size;

	if (_slurp(path, &data, &size)) {
		fprintf(stderr, "fuzz_main: cannot read %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	/* A copy of exactly size bytes, so that ASan sees any overread. */
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int _cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file in dir; returns the number run or -1. */
static int _run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	int n = 0, cap = 0, rc = 0;

	if (!d) {
		fprintf(stderr, "fuzz_main: cannot open %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **t = realloc(names, sizeof(*t) *
					   (cap = cap ? 2 * cap : 64));

			if (!t)
				abort();
			names = t;
		}
		p = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!p)
			abort();
		sprintf(p, "%s/%s", dir, e->d_name);
		names[n++] = p;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), _cmp);
	for (int i = 0; i < n; i++) {
		struct stat st;

		if (!rc && !stat(names[i], &st) && S_ISREG(st.st_mode) &&
		    _run_file(names[i]))
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc ? -1 : n;
}

int main(int argc, char **argv)
{
	int runs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		int n;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "fuzz_main: %s: %s\n", argv[i],
				strerror(errno));
			return 2;
		}
		n = S_ISDIR(st.st_mode) ? _run_dir(argv[i]) :
					   (_run_file(argv[i]) ? -1 : 1);
		if (n < 0)
			return 2;
		runs += n;
	}
	printf("%s: %d inputs ran\n", argv[0], runs);
	return 0;
}
