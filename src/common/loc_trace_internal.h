/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace_internal.h - what the SWF and sacct readers share: the trace
 * under construction, skip accounting, string interning and field
 * readers; and what the sacct reader's two files share. Not used by
 * drivers.
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

/*
 * The sacct reader (loc_trace_sacct.c: lines into records, records into
 * jobs) and its columns (loc_trace_sacct_cols.c: the header's column
 * types, checking values, placing extra separators) share what follows.
 */

/* At most this many physical lines in one record, extra separators per
 * record, and ways tried to place them. */
#define SACCT_MAX_CONT 4096
#define SACCT_MAX_EXTRA 16
#define SACCT_MAX_TRIES 200000

typedef enum col_type {
	COL_ANY = 0,
	COL_TEXT,   /* free text: may hold '|' */
	COL_MLTEXT, /* free text: may hold '|' and newlines */
	COL_JOBID,
	COL_TIME,
	COL_DURATION,
	COL_INT,
	COL_STATE,
	COL_TRES, /* "cpu=2,mem=4000M,node=1" */
} col_type_t;

/* Columns we read, by role. */
enum {
	R_JOBID,
	R_SUBMIT,
	R_START,
	R_END,
	R_STATE,
	R_NNODES,
	R_ALLOCNODES,
	R_REQNODES,
	R_NCPUS,
	R_ALLOCCPUS,
	R_REQCPUS,
	R_TIMELIMIT,
	R_TIMELIMITRAW,
	R_NODELIST,
	R_USER,
	R_UID,
	R_PARTITION,
	R_COUNT
};

typedef struct sacct {
	loc__trace_build_t *b;
	int ncols;
	col_type_t *type;
	int role[R_COUNT]; /* column index per role, -1 if absent */
	int *text_idx;	   /* indices of COL_TEXT columns */
	int ntext;
	/* per record scratch */
	const char **fs; /* split fields (start) */
	size_t *fl;
	int nfs, cap_fs;
	const char **cs; /* resolved columns */
	size_t *cl;
	int *extra;    /* separators given to each text column */
	char **names;  /* column names (owned) */
	int fail_col;  /* first column that did not read */
	int score;     /* see _map() in loc_trace_sacct_cols.c */
	char *scratch; /* a field copy, NUL-terminated */
	size_t cap_scratch;
	int line;
} sacct_t;

/* loc_trace_sacct_cols.c */

/* Copies a field into the NUL-terminated scratch buffer. */
const char *loc__sacct_cstr(sacct_t *p, const char *s, size_t len);

/* Trims blanks around a field. */
void loc__sacct_trim(const char **s, size_t *len);

/* Whether len bytes at s are a valid value of a column of type. */
bool loc__sacct_valid(sacct_t *p, col_type_t type, const char *s, size_t len);

/*
 * Splits rec and places its extra separators. Returns 0 (p->cs/cl hold
 * the columns), a loc_trace_skip_t + 1 when the record does not read
 * (p->fail_col names the column when one value is bad), or LOC_ENOMEM.
 */
int loc__sacct_resolve(sacct_t *p, const char *rec, size_t len);

/* Reads the header line s: the columns, their types and roles. Returns 0
 * or LOC_ENOMEM. */
int loc__sacct_header(sacct_t *p, const char *s, size_t len);

#endif /* LOC_TRACE_INTERNAL_H */
