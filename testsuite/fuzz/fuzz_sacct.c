/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_sacct.c - the `sacct --parsable2` reader (loc_trace_parse() with
 * LOC_TRACE_SACCT): header-named columns, '|' inside free text, records
 * spanning lines, Slurm times and durations, NodeList hostlists.
 * Checks: fuzz_trace.h.
 */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_fuzz_trace(data, size, LOC_TRACE_SACCT);
	return 0;
}
