/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace.h - job trace readers: the Standard Workload Format of the
 * Parallel Workloads Archive (.swf, .swf.gz, and MetaCentrum's extended
 * SWF with a recorded node list per job) and `sacct --parsable2` exports.
 *
 * A reader never drops a line silently: every line that does not become a
 * job is counted under one reason (loc_trace_skip_t) with the first line
 * number it happened on. In strict mode the first bad line is fatal and
 * the error names the file and line.
 *
 * Times are seconds. sacct's ISO times carry no zone; they are read as
 * UTC, so only differences matter and the result does not depend on the
 * machine's TZ.
 */
#ifndef LOC_TRACE_H
#define LOC_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loc_error.h"

#define LOC_TRACE_UNKNOWN INT64_MIN /* "no value" for times and durations */
#define LOC_TRACE_ID_MAX 40         /* job id text, NUL included */

typedef enum loc_trace_format {
	LOC_TRACE_AUTO = 0, /* sacct when the first line names JobID, else SWF */
	LOC_TRACE_SWF,
	LOC_TRACE_SACCT,
} loc_trace_format_t;

/*
 * Why a line did not become a job. Name (short, for reports) and text.
 * Steps and never-started jobs are not errors, but they are counted too;
 * strict mode fails only on the reasons marked bad (loc_trace_skip_bad).
 */
#define LOC_TRACE_SKIP_MAP(X)                                                 \
	X(LOC_SKIP_TRUNCATED, "truncated", 1,                                 \
	  "line or record has too few fields")                                \
	X(LOC_SKIP_BAD_NUMBER, "bad-number", 1, "a field is not a number")    \
	X(LOC_SKIP_BAD_TIME, "bad-time", 1,                                   \
	  "a time or duration field cannot be read")                          \
	X(LOC_SKIP_NEGATIVE_TIME, "negative-time", 1,                         \
	  "negative submit time or end before start")                         \
	X(LOC_SKIP_RANGE, "out-of-range", 1,                                  \
	  "a count or time is too large to be real")                          \
	X(LOC_SKIP_NO_SIZE, "no-size", 1, "no processor or node count")       \
	X(LOC_SKIP_BAD_BYTES, "bad-bytes", 1, "NUL byte or binary garbage")   \
	X(LOC_SKIP_BAD_NODELIST, "bad-nodelist", 1,                           \
	  "NodeList is not a valid hostlist")                                 \
	X(LOC_SKIP_AMBIGUOUS, "ambiguous-fields", 1,                          \
	  "extra '|' inside fields cannot be placed unambiguously")           \
	X(LOC_SKIP_DUPLICATE, "duplicate-id", 1, "job id seen before")        \
	X(LOC_SKIP_STEP, "job-step", 0, "job step (123.batch, 123.0)")        \
	X(LOC_SKIP_NOT_STARTED, "never-started", 0,                           \
	  "job never started (no start, unknown runtime, cancelled queued)") \
	X(LOC_SKIP_NOT_ENDED, "never-ended", 0,                               \
	  "job still running or pending (no end time)")

typedef enum loc_trace_skip {
#define LOC__TRACE_SKIP_ENUM(id, name, bad, text) id,
	LOC_TRACE_SKIP_MAP(LOC__TRACE_SKIP_ENUM)
#undef LOC__TRACE_SKIP_ENUM
	LOC_SKIP_COUNT
} loc_trace_skip_t;

/* Returns the short name / description of reason ("?" when unknown). */
const char *loc_trace_skip_name(int reason);
const char *loc_trace_skip_text(int reason);
/* Returns true when reason is a malformed line (strict mode fails on it). */
bool loc_trace_skip_bad(int reason);

typedef struct loc_trace_opts {
	loc_trace_format_t format;
	/* Processors per node: nodes = ceil(procs / procs_per_node) for SWF
	 * (a real number; 0 means 1). sacct node counts are used as they
	 * are unless sacct_nodes_from_cpus is set. */
	double procs_per_node;
	bool sacct_nodes_from_cpus;
	bool strict; /* the first bad line is fatal */
} loc_trace_opts_t;

/* Fills opts with defaults: auto format, 1 proc per node, not strict. */
void loc_trace_opts_init(loc_trace_opts_t *opts);

/* One job. Times in seconds (SWF: from the trace's start; sacct: UTC). */
typedef struct loc_trace_job {
	char id[LOC_TRACE_ID_MAX]; /* as written: "123", "123_4", "123+1" */
	int line;                  /* first line of the record */
	int64_t submit;
	int64_t start;             /* LOC_TRACE_UNKNOWN when not recorded */
	int64_t runtime;           /* >= 0 */
	int64_t requested;         /* walltime request, LOC_TRACE_UNKNOWN if none */
	int64_t procs;             /* processors (>= 1) */
	int nodes;                 /* node count after scaling (>= 1) */
	int status;                /* SWF status code (sacct: mapped, see .c) */
	uint32_t user;             /* SWF uid; sacct: UID, else name index */
	int partition;             /* index into trace->partitions, or -1 */
	int *rec_nodes;            /* recorded placement: indices into
				    * trace->node_names (owned), or NULL */
	int nrec;
} loc_trace_job_t;

typedef struct loc_trace {
	char *path;               /* as given (owned); "" for a buffer */
	loc_trace_format_t format;
	loc_trace_job_t *jobs;    /* in file order */
	int njobs;
	/* Recorded node names in order of first appearance (owned). SWF
	 * node indices (MetaCentrum) appear as their decimal text. */
	char **node_names;
	int nnode_names;
	char **partitions;        /* partition / queue names (owned) */
	int npartitions;
	/* SWF header values, -1 when absent. */
	int64_t max_nodes, max_procs, unix_start;
	double procs_per_node;    /* the scaling applied to nodes */
	/* Accounting: every physical line is a job line, a comment/header/
	 * blank line, or part of a skipped record. */
	int lines;                /* physical lines read */
	int comment_lines;        /* comments, header, blank lines */
	int records;              /* records seen (jobs + skipped) */
	int skipped[LOC_SKIP_COUNT];
	int skip_first_line[LOC_SKIP_COUNT]; /* 0 when none */
	int no_request;           /* jobs without a walltime request */
	int over_request;         /* jobs whose runtime exceeds the request */
} loc_trace_t;

/*
 * Reads the trace at path (.gz is decompressed when built with zlib).
 * Returns the trace (free with loc_trace_destroy), or NULL with err filled
 * (I/O error, unknown format, or in strict mode the first bad line, with
 * file and line).
 */
loc_trace_t *loc_trace_load(const char *path, const loc_trace_opts_t *opts,
			    loc_error_t *err);

/*
 * Parses len bytes of text (need not be NUL-terminated) as the trace file
 * called name. Same returns as loc_trace_load().
 */
loc_trace_t *loc_trace_parse(const char *text, size_t len, const char *name,
			     const loc_trace_opts_t *opts, loc_error_t *err);

/* Frees trace; accepts NULL. */
void loc_trace_destroy(loc_trace_t *trace);

/*
 * Recomputes every job's node count as ceil(procs / procs_per_node)
 * (>= 1; procs_per_node > 0). Returns 0 or LOC_EINVAL / LOC_ERANGE.
 */
int loc_trace_scale(loc_trace_t *trace, double procs_per_node);

/* Returns the total number of skipped records. */
int loc_trace_skipped_total(const loc_trace_t *trace);

/*
 * Low-level field readers, exposed for tests and for the harness:
 * loc_trace_parse_duration() reads Slurm durations ("2-03:04:05",
 * "03:04:05", "30:00" = 30 min, "5" = 5 min, "1-12", "1-12:30");
 * "UNLIMITED", "Partition_Limit", "INVALID", "Unknown", "None" and ""
 * give LOC_TRACE_UNKNOWN. loc_trace_parse_time() reads ISO times
 * "YYYY-MM-DDTHH:MM:SS" as UTC; "Unknown", "None" and "" give
 * LOC_TRACE_UNKNOWN. Both return 0, or LOC_EPARSE on malformed text.
 */
int loc_trace_parse_duration(const char *text, int64_t *sec);
int loc_trace_parse_time(const char *text, int64_t *sec);

#endif /* LOC_TRACE_H */
