/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_error.h - error codes and the error record every fallible call fills.
 *
 * Every fallible function returns 0 on success or a negative LOC_E* code,
 * and takes an optional loc_error_t * (may be NULL) that receives a
 * human-readable message naming the file and line when there is one.
 */
#ifndef LOC_ERROR_H
#define LOC_ERROR_H

#include <stddef.h>

/* X-macro table: name, value, description. One place for all codes. */
#define LOC_ERRNO_MAP(X)                                                  \
	X(LOC_OK, 0, "success")                                           \
	X(LOC_EINVAL, -1, "invalid argument")                             \
	X(LOC_ENOMEM, -2, "out of memory")                                \
	X(LOC_ENOFIT, -3, "request cannot be satisfied by the candidates") \
	X(LOC_EPARSE, -4, "parse error")                                  \
	X(LOC_EIO, -5, "input/output error")                              \
	X(LOC_ERANGE, -6, "value out of range")                           \
	X(LOC_ENOENT, -7, "no such entry")                                \
	X(LOC_EEXIST, -8, "duplicate entry")

enum loc_errno {
#define LOC__ERRNO_ENUM(name, value, text) name = value,
	LOC_ERRNO_MAP(LOC__ERRNO_ENUM)
#undef LOC__ERRNO_ENUM
};

#define LOC_ERROR_TEXT_MAX 256
#define LOC_ERROR_FILE_MAX 256

/* A filled error: code, optional file and line (line 0 = none), text. */
typedef struct loc_error {
	int code;
	int line;
	char file[LOC_ERROR_FILE_MAX];
	char text[LOC_ERROR_TEXT_MAX];
} loc_error_t;

/* Returns a static description of code (never NULL). */
const char *loc_strerror(int code);

/*
 * Fills err (if not NULL) with code, file (may be NULL), line and a
 * printf-style message. Truncation is marked with a trailing '+'.
 * Returns code, so a failure is one line: return loc_error_set(...).
 */
int loc_error_set(loc_error_t *err, int code, const char *file, int line,
		  const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Clears err (if not NULL) to LOC_OK with empty text. */
void loc_error_clear(loc_error_t *err);

/*
 * Formats err as "file:line: text" (or "text" without file) into buf.
 * Returns buf.
 */
const char *loc_error_format(const loc_error_t *err, char *buf, size_t len);

#endif /* LOC_ERROR_H */
