/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_trace_sacct_cols.c - the columns of a `sacct --parsable2` export:
 * the header line gives each column a type (free text, multi-line text,
 * job id, time, duration, count, state, TRES) and the roles the reader
 * uses; a record's values are checked against their column's type; and
 * a record with more '|' than columns has its extra separators given to
 * the free-text columns, every way of doing so tried and kept only when
 * the typed columns all read back (ambiguous when the valid ways disagree
 * on a field we use). The lines and the jobs are loc_trace_sacct.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loc_trace_internal.h"

static const char *const _role_name[R_COUNT] = {
	[R_JOBID] = "JobID",
	[R_SUBMIT] = "Submit",
	[R_START] = "Start",
	[R_END] = "End",
	[R_STATE] = "State",
	[R_NNODES] = "NNodes",
	[R_ALLOCNODES] = "AllocNodes",
	[R_REQNODES] = "ReqNodes",
	[R_NCPUS] = "NCPUS",
	[R_ALLOCCPUS] = "AllocCPUS",
	[R_REQCPUS] = "ReqCPUS",
	[R_TIMELIMIT] = "Timelimit",
	[R_TIMELIMITRAW] = "TimelimitRaw",
	[R_NODELIST] = "NodeList",
	[R_USER] = "User",
	[R_UID] = "UID",
	[R_PARTITION] = "Partition",
};

static const char *const _text_cols[] = {
	"AdminComment", "Comment",    "Constraints",   "Container",
	"Extra",	"JobName",    "Licenses",      "McsLabel",
	"Reservation",	"SubmitLine", "SystemComment", "WCKey",
	"WorkDir",	"Account",    "Reason",	       NULL
};

/* Free text that may span lines (a newline anywhere else means the
 * record was joined wrongly). */
static const char *const _multiline_cols[] = { "AdminComment",	"Comment",
					       "Extra",		"SubmitLine",
					       "SystemComment", NULL };

static const char *const _time_cols[] = { "Submit", "Start", "End", "Eligible",
					  NULL };
static const char *const _duration_cols[] = {
	"Elapsed", "Timelimit", "CPUTime", "Suspended", "Reserved",
	"ResvCPU", "TotalCPU",	"UserCPU", "SystemCPU", NULL
};
static const char *const _tres_cols[] = { "AllocTRES", "ReqTRES", NULL };
static const char *const _int_cols[] = {
	"NNodes",	"AllocNodes", "NCPUS",	 "AllocCPUS",
	"ReqCPUS",	"UID",	      "GID",	 "ElapsedRaw",
	"TimelimitRaw", "CPUTimeRAW", "DBIndex", "AssocID",
	"QOSRAW",	"ResvCPURAW", "NTasks",	 "Priority",
	"WCKeyID",	"ArrayJobID", NULL
};

static bool _in_list(const char *name, size_t len, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (strlen(list[i]) == len && !strncasecmp(name, list[i], len))
			return true;
	return false;
}

/* Copies a field into the NUL-terminated scratch buffer. */
const char *loc__sacct_cstr(sacct_t *p, const char *s, size_t len)
{
	if (len + 1 > p->cap_scratch) {
		char *n = realloc(p->scratch, len + 1);

		if (!n)
			return NULL;
		p->scratch = n;
		p->cap_scratch = len + 1;
	}
	memcpy(p->scratch, s, len);
	p->scratch[len] = '\0';
	return p->scratch;
}

/* Trims blanks around a field. */
void loc__sacct_trim(const char **s, size_t *len)
{
	while (*len && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*len)--;
	}
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
		(*len)--;
}

bool loc__sacct_valid(sacct_t *p, col_type_t type, const char *s, size_t len)
{
	int64_t v;
	const char *c;

	if (type != COL_MLTEXT && memchr(s, '\n', len))
		return false;
	loc__sacct_trim(&s, &len);
	switch (type) {
	case COL_ANY:
	case COL_TEXT:
	case COL_MLTEXT:
		return true;
	case COL_JOBID:
		/* 123, 123_4, 123_[1-5], 123+0, 123.batch */
		if (!len || s[0] < '0' || s[0] > '9')
			return false;
		for (size_t i = 0; i < len; i++)
			if (s[i] == ' ' || s[i] == '|' || s[i] == '\n')
				return false;
		return true;
	case COL_INT:
		return !len || (!loc__parse_int(s, len, &v) && v >= 0);
	case COL_TIME:
		c = loc__sacct_cstr(p, s, len);
		return c && !loc_trace_parse_time(c, &v);
	case COL_DURATION:
		c = loc__sacct_cstr(p, s, len);
		return c && !loc_trace_parse_duration(c, &v);
	case COL_TRES:
		return !len || (memchr(s, '=', len) && !memchr(s, '\n', len));
	case COL_STATE:
		if (!len)
			return true;
		for (size_t i = 0; i < len && s[i] != ' '; i++)
			if (!(s[i] >= 'A' && s[i] <= 'Z') && s[i] != '_')
				return false;
		return true;
	}
	return true;
}

/* Splits rec into fields at every '|'. */
static int _split(sacct_t *p, const char *rec, size_t len)
{
	size_t i = 0, start = 0;

	p->nfs = 0;
	for (;; i++) {
		if (i == len || rec[i] == '|') {
			if (p->nfs == p->cap_fs) {
				int cap = p->cap_fs * 2;
				const char **fs =
					realloc(p->fs, sizeof(*fs) * cap);
				size_t *fl;

				if (!fs)
					return LOC_ENOMEM;
				p->fs = fs;
				fl = realloc(p->fl, sizeof(*fl) * cap);
				if (!fl)
					return LOC_ENOMEM;
				p->fl = fl;
				p->cap_fs = cap;
			}
			p->fs[p->nfs] = rec + start;
			p->fl[p->nfs++] = i - start;
			start = i + 1;
			if (i == len)
				break;
		}
	}
	return 0;
}

/* Maps split fields onto columns with p->extra[] separators inside the
 * text columns; checks every typed column. Returns true when valid and
 * sets p->score to the number of non-empty typed columns: a mapping that
 * shifts fields lands empty values on typed columns, so the right one
 * scores highest. */
static bool _map(sacct_t *p)
{
	int f = 0, t = 0;

	p->score = 0;
	for (int c = 0; c < p->ncols; c++) {
		int take = 1;

		if (t < p->ntext && p->text_idx[t] == c)
			take += p->extra[t++];
		p->cs[c] = p->fs[f];
		p->cl[c] = (size_t)(p->fs[f + take - 1] + p->fl[f + take - 1] -
				    p->fs[f]);
		f += take;
		if (!loc__sacct_valid(p, p->type[c], p->cs[c], p->cl[c])) {
			p->fail_col = c;
			return false;
		}
		if (p->type[c] > COL_MLTEXT && p->cl[c])
			p->score++;
	}
	return true;
}

/* Compares the roles we use between two mappings. */
static bool _same_roles(sacct_t *p, const char **cs2, const size_t *cl2)
{
	for (int r = 0; r < R_COUNT; r++) {
		int c = p->role[r];

		if (c < 0)
			continue;
		if (p->cl[c] != cl2[c] || memcmp(p->cs[c], cs2[c], cl2[c]))
			return false;
	}
	return true;
}

/*
 * Splits rec and places its extra separators. Returns 0 (p->cs/cl hold
 * the columns), a loc_trace_skip_t + 1 when the record does not read
 * (p->fail_col names the column when one value is bad), or LOC_ENOMEM.
 */
int loc__sacct_resolve(sacct_t *p, const char *rec, size_t len)
{
	int extra, valid = 0, tries = 0, best = -1;
	bool tie = false;
	const char **cs2 = NULL;
	size_t *cl2 = NULL;
	int rc = 0;

	if (_split(p, rec, len))
		return LOC_ENOMEM;
	extra = p->nfs - p->ncols;
	if (extra < 0)
		return LOC_SKIP_TRUNCATED + 1;
	memset(p->extra, 0, sizeof(int) * (p->ntext + 1));
	if (extra == 0) {
		if (_map(p))
			return 0;
		switch (p->type[p->fail_col]) {
		case COL_TIME:
		case COL_DURATION:
			return LOC_SKIP_BAD_TIME + 1;
		default:
			return LOC_SKIP_BAD_NUMBER + 1;
		}
	}
	if (extra > SACCT_MAX_EXTRA || p->ntext == 0)
		return LOC_SKIP_AMBIGUOUS + 1;
	cs2 = malloc(sizeof(*cs2) * p->ncols);
	cl2 = malloc(sizeof(*cl2) * p->ncols);
	if (!cs2 || !cl2) {
		free(cs2);
		free(cl2);
		return LOC_ENOMEM;
	}
	/* Enumerate compositions of extra into ntext parts: start with all
	 * in the last part, then step like an odometer. Keep the best-scoring
	 * valid mapping; equally good ones must agree on what we read. */
	p->extra[p->ntext - 1] = extra;
	for (;;) {
		if (++tries > SACCT_MAX_TRIES) {
			rc = LOC_SKIP_AMBIGUOUS + 1;
			break;
		}
		if (_map(p)) {
			if (!valid || p->score > best) {
				memcpy(cs2, p->cs, sizeof(*cs2) * p->ncols);
				memcpy(cl2, p->cl, sizeof(*cl2) * p->ncols);
				best = p->score;
				tie = false;
			} else if (p->score == best &&
				   !_same_roles(p, cs2, cl2)) {
				tie = true;
			}
			valid++;
		} else {
			/*
			 * Columns up to fail_col depend only on the text
			 * columns before them: skip every composition that
			 * keeps those parts (fuzz_sacct: without this, one
			 * record with many '|' took 200000 tries).
			 */
			int tf = -1, sum = 0;

			while (tf + 1 < p->ntext &&
			       p->text_idx[tf + 1] <= p->fail_col)
				tf++;
			if (tf < 0)
				break;
			for (int k = tf + 1; k < p->ntext; k++) {
				sum += p->extra[k];
				p->extra[k] = 0;
			}
			if (tf + 1 < p->ntext)
				p->extra[tf + 1] = sum;
		}
		/* next composition: move one unit leftwards */
		{
			int i = p->ntext - 1, carry;

			while (i >= 0 && p->extra[i] == 0)
				i--;
			if (i <= 0)
				break;
			carry = p->extra[i];
			p->extra[i] = 0;
			p->extra[i - 1]++;
			p->extra[p->ntext - 1] = carry - 1;
		}
	}
	if (tie)
		rc = LOC_SKIP_AMBIGUOUS + 1;
	if (!rc && !valid)
		rc = LOC_SKIP_AMBIGUOUS + 1;
	if (!rc) {
		memcpy(p->cs, cs2, sizeof(*cs2) * p->ncols);
		memcpy(p->cl, cl2, sizeof(*cl2) * p->ncols);
	}
	free(cs2);
	free(cl2);
	return rc;
}

int loc__sacct_header(sacct_t *p, const char *s, size_t len)
{
	int n = 1, c = 0;
	size_t i = 0;

	for (size_t k = 0; k < len; k++)
		n += s[k] == '|';
	p->ncols = n;
	p->type = calloc(n, sizeof(*p->type));
	p->text_idx = calloc(n, sizeof(int));
	p->extra = calloc(n + 1, sizeof(int));
	p->cs = calloc(n, sizeof(*p->cs));
	p->cl = calloc(n, sizeof(*p->cl));
	p->cap_fs = n + 8;
	p->fs = calloc(p->cap_fs, sizeof(*p->fs));
	p->fl = calloc(p->cap_fs, sizeof(*p->fl));
	p->names = calloc(n, sizeof(char *));
	if (!p->names || !p->type || !p->text_idx || !p->extra || !p->cs ||
	    !p->cl || !p->fs || !p->fl)
		return LOC_ENOMEM;
	for (int r = 0; r < R_COUNT; r++)
		p->role[r] = -1;
	while (c < n) {
		size_t e = i;
		const char *name;
		size_t nl;

		while (e < len && s[e] != '|')
			e++;
		name = s + i;
		nl = e - i;
		loc__sacct_trim(&name, &nl);
		p->names[c] = strndup(name, nl);
		if (!p->names[c])
			return LOC_ENOMEM;
		for (int r = 0; r < R_COUNT; r++)
			if (p->role[r] < 0 && strlen(_role_name[r]) == nl &&
			    !strncasecmp(name, _role_name[r], nl))
				p->role[r] = c;
		if (_in_list(name, nl, _text_cols)) {
			p->type[c] = _in_list(name, nl, _multiline_cols)
					     ? COL_MLTEXT
					     : COL_TEXT;
			p->text_idx[p->ntext++] = c;
		} else if (_in_list(name, nl, _time_cols)) {
			p->type[c] = COL_TIME;
		} else if (_in_list(name, nl, _duration_cols)) {
			p->type[c] = COL_DURATION;
		} else if (_in_list(name, nl, _tres_cols)) {
			p->type[c] = COL_TRES;
		} else if (_in_list(name, nl, _int_cols)) {
			p->type[c] = COL_INT;
		} else if (nl == 5 && !strncasecmp(name, "JobID", 5)) {
			p->type[c] = COL_JOBID;
		} else if (nl == 8 && !strncasecmp(name, "JobIDRaw", 8)) {
			p->type[c] = COL_JOBID;
		} else if (nl == 5 && !strncasecmp(name, "State", 5)) {
			p->type[c] = COL_STATE;
		}
		i = e + 1;
		c++;
	}
	return 0;
}
