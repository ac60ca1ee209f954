/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace_internal.h - what the SWF and sacct readers share: the trace
 * under construction, skip accounting, string interning and field
 * readers. Not used by drivers.
 */
#ifndef LOC_TRACE_INTERNAL_H
#define LOC_TRACE_INTERNAL_H

#include "loc_trace.h"

/* Interned strings: names[i] owned, found by an open-addressing hash. */
typedef struct loc__strtab {
	char ***names; /* points at the owner's array (trace field) */
	int *count;
	int cap;
	int *slot;     /* index + 1, 0 = empty */
	int nslots;
} loc__strtab_t;

/* A trace being read. */
typedef struct loc__trace_build {
	loc_trace_t *t;
	const loc_trace_opts_t *opts;
	loc_error_t *err;
	int cap_jobs;
	loc__strtab_t node_tab; /* -> t->node_names */
	loc__strtab_t part_tab; /* -> t->partitions */
	char **ids;             /* job ids seen, for duplicate detection */
	int nids;
	loc__strtab_t id_tab;
	char **users;           /* sacct user names without UID */
	int nusers;
	loc__strtab_t user_tab;
	/* The record read last: was it malformed, and its first line. A
	 * file whose unterminated last line is such a record was cut short
	 * (see loc_trace_parse). */
	bool last_record_bad;
	int last_record_line;
	int last_record_reason;
} loc__trace_build_t;

/*
 * Counts a skipped record for reason at line. In strict mode a bad reason
 * fills b->err (file, line, reason, detail) and returns LOC_EPARSE; else
 * returns 0.
 */
int loc__trace_skip(loc__trace_build_t *b, loc_trace_skip_t reason, int line,
		    const char *detail);

/* Appends a zeroed job (line set). Returns it, or NULL on ENOMEM. */
loc_trace_job_t *loc__trace_add_job(loc__trace_build_t *b, int line);

/* Interns len bytes of s into tab. Returns the index (>= 0), or -1 on
 * ENOMEM; *added (may be NULL) says whether it was new. */
int loc__strtab_intern(loc__strtab_t *tab, const char *s, size_t len,
		       bool *added);

/* Returns the ceil(procs / ppn) node count, or -1 when out of range. */
int loc__trace_nodes(int64_t procs, double ppn);

/* Reads a whole decimal integer (optional sign) from len bytes. Returns 0
 * or LOC_EPARSE / LOC_ERANGE (beyond +-2^53). */
int loc__parse_int(const char *s, size_t len, int64_t *out);

/* The SWF reader (loc_trace_swf.c). Returns 0 or LOC_E*. */
int loc__trace_parse_swf(loc__trace_build_t *b, const char *text,
			 size_t len);

/* The sacct reader (loc_trace_sacct.c). Returns 0 or LOC_E*. */
int loc__trace_parse_sacct(loc__trace_build_t *b, const char *text,
			   size_t len);

/* Largest plausible values: anything beyond is garbage. */
#define LOC__TRACE_MAX_TIME ((int64_t)1 << 40)  /* ~35,000 years */
#define LOC__TRACE_MAX_PROCS ((int64_t)1 << 30)
#define LOC__TRACE_MAX_NODES (1 << 24)

#endif /* LOC_TRACE_INTERNAL_H */
