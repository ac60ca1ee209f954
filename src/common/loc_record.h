/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_record.h - each job's placement as one line of text, written by the
 * plugins into a field of the job that accounting keeps, so that
 * `sacct -o JobID,NodeList,AdminComment` audits placement with no other
 * tool, and read back by locality-eval:
 *
 *   locality strategy=pack nodes=8 hops=1.786 ideal=1.714
 *
 * hops is the mean pairwise hop count of the job's nodes on the grid and
 * ideal the least there is for its size on the idle machine (loc_ideal.h).
 * The field may hold other text (an administrator's note, a job_submit
 * plugin's): the record is one "; "-separated part of it, replaced when
 * the job starts again, and the rest is kept.
 */
#ifndef LOC_RECORD_H
#define LOC_RECORD_H

#include <stddef.h>

/*
 * Where the plugins write the record (locality.conf RecordPlacement).
 * ADMIN_COMMENT is the job field slurmctld sends to slurmdbd with every
 * job's completion on Slurm 22.05 to 26.05; SYSTEM_COMMENT shows in
 * scontrol and squeue but their accounting_storage/slurmdbd never sends
 * it, so sacct shows it empty.
 */
typedef enum loc_record_field {
	LOC_RECORD_ADMIN_COMMENT = 0,
	LOC_RECORD_SYSTEM_COMMENT,
	LOC_RECORD_NONE,
	LOC_RECORD_COUNT
} loc_record_field_t;

/* Name <-> field (case-insensitive parse; -1 when unknown). */
int loc_record_field_parse(const char *name);
const char *loc_record_field_name(loc_record_field_t field);

/* One job's record. */
typedef struct loc_record {
	char strategy[32];
	int nodes;
	double hops;  /* mean pairwise hops */
	double ideal; /* ... of the most compact set of that size */
} loc_record_t;

/* The longest record loc_record_format() writes, with its NUL. */
#define LOC_RECORD_MAX 128

/* hops and ideal above this are refused both ways: no grid comes near it,
 * and it keeps any record within LOC_RECORD_MAX. */
#define LOC_RECORD_HOPS_MAX 1e9

/*
 * Writes rec as one record into buf (len >= LOC_RECORD_MAX holds any).
 * Returns the length written, or -1 when it did not fit, the strategy
 * name is empty or holds a space, ';' or '=', or a figure is negative,
 * not finite or above LOC_RECORD_HOPS_MAX.
 */
int loc_record_format(const loc_record_t *rec, char *buf, size_t len);

/*
 * Finds the record in text (a whole field, possibly with other parts) and
 * fills rec. Returns 1 when found, 0 when text holds no record (NULL
 * included), -1 when a part starts "locality " but is malformed or holds
 * what loc_record_format() refuses to write.
 */
int loc_record_parse(const char *text, loc_record_t *rec);

/*
 * The field's new text: old (may be NULL or empty) with its record
 * replaced by record, or record appended as a part of its own. Returns a
 * malloc'd string, or NULL when out of memory.
 */
char *loc_record_merge(const char *old, const char *record);

#endif /* LOC_RECORD_H */
