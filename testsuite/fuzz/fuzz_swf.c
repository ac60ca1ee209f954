/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_swf.c - the Standard Workload Format reader (loc_trace_parse()
 * with LOC_TRACE_SWF), including MetaCentrum's node-list extension.
 * Checks: fuzz_trace.h.
 */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_fuzz_trace(data, size, LOC_TRACE_SWF);
	return 0;
}
