/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_error.c - error codes and messages.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "loc_error.h"

const char *loc_strerror(int code)
{
	switch (code) {
#define LOC__ERRNO_CASE(name, value, text) \
	case name:                         \
		return text;
		LOC_ERRNO_MAP(LOC__ERRNO_CASE)
#undef LOC__ERRNO_CASE
	}
	return "unknown error";
}

int loc_error_set(loc_error_t *err, int code, const char *file, int line,
		  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return code;
	err->code = code;
	err->line = line;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	va_start(ap, fmt);
	n = vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	/* Mark truncation so a reader knows the message was cut. */
	if (n >= (int)sizeof(err->text))
		err->text[sizeof(err->text) - 2] = '+';
	return code;
}

void loc_error_clear(loc_error_t *err)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
}

const char *loc_error_format(const loc_error_t *err, char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	if (!err) {
		snprintf(buf, len, "%s", "no error");
	} else if (err->file[0] && err->line > 0) {
		snprintf(buf, len, "%s:%d: %s", err->file, err->line,
			 err->text);
	} else if (err->file[0]) {
		snprintf(buf, len, "%s: %s", err->file, err->text);
	} else {
		snprintf(buf, len, "%s",
			 err->text[0] ? err->text : loc_strerror(err->code));
	}
	return buf;
}
