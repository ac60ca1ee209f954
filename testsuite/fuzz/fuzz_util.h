/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_util.h - what the fuzz targets share. Each target defines
 * LLVMFuzzerTestOneInput(); libFuzzer (clang) supplies main() for fuzzing,
 * fuzz_main.c supplies one for replaying seeds and regression inputs in
 * `make check` (any compiler).
 *
 * A target checks the contracts the headers state, not only memory
 * safety: FUZZ_CHECK() aborts with a message, which libFuzzer reports as
 * a crash and keeps as an artifact.
 */
#ifndef LOC_FUZZ_UTIL_H
#define LOC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                             \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "%s:%d: check failed: %s: ",      \
				__FILE__, __LINE__, #cond);               \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
			abort();                                          \
		}                                                         \
	} while (0)

/* Returns a NUL-terminated copy of data[0..size) cut at the first NUL
 * (what a C string API would see), or NULL when out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t n = nul ? (size_t)(nul - data) : size;
	char *s = malloc(n + 1);

	if (!s)
		return NULL;
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

/*
 * Checks a filled error record: a known negative code, NUL-terminated
 * file and text (so formatting never reads past them), a non-negative
 * line, and a message (every failure must say why).
 */
static inline void fuzz_check_error(const loc_error_t *err, int code)
{
	char buf[LOC_ERROR_TEXT_MAX + LOC_ERROR_FILE_MAX + 32];

	FUZZ_CHECK(code < 0, "failure with code %d", code);
	FUZZ_CHECK(err->code == code, "err.code %d, returned %d", err->code,
		   code);
	FUZZ_CHECK(memchr(err->file, '\0', sizeof(err->file)) != NULL,
		   "file not terminated");
	FUZZ_CHECK(memchr(err->text, '\0', sizeof(err->text)) != NULL,
		   "text not terminated");
	FUZZ_CHECK(err->line >= 0, "line %d", err->line);
	FUZZ_CHECK(err->text[0] != '\0', "empty error text (code %d)", code);
	loc_error_format(err, buf, sizeof(buf));
	FUZZ_CHECK(strlen(buf) < sizeof(buf), "format overflow");
	FUZZ_CHECK(strcmp(loc_strerror(code), "") != 0, "no strerror");
}

#endif /* LOC_FUZZ_UTIL_H */
