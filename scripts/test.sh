#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test.sh - set up (scripts/setup.sh), then run every test: the cmocka unit
# tests and replay checks (make check) and the integration suite against a
# real local Slurm cluster of 64 slurmd with select/locality.
#
# Usage: scripts/test.sh [--unit-only]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh" --quiet
cd "$top/build"

status=0
make -j"$(nproc)" check || status=$?
if [ $status -ne 0 ]; then
	# Show which tests failed and their logs, then stop.
	find . -name '*.log' -path '*testsuite*' -newer Makefile \
		-exec grep -l -E '^(FAIL|ERROR)' {} + 2>/dev/null | head -20 |
		while read -r f; do echo "== $f"; tail -40 "$f"; done
	exit $status
fi

# Counts from automake's test-suite.log (one line per test program).
count() { sed -n "s/^# $1: *//p" test-suite.log | head -n 1; }
unit_pass=$(count PASS) unit_fail=$(( $(count FAIL) + $(count ERROR) ))
unit_skip=$(count SKIP)
echo "unit: ${unit_pass} passed, ${unit_fail} failed, ${unit_skip} skipped"

[ "${1:-}" = "--unit-only" ] && exit 0

int_log="$top/build/integration.log"
status=0
"$top/testsuite/slurm/run-tests.sh" "$top/build" 2>&1 |
	tee "$int_log" || status=$?
int_pass=$(grep -c '^ok ' "$int_log" || true)
int_fail=$(grep -c '^not ok ' "$int_log" || true)
echo "integration: ${int_pass} passed, ${int_fail} failed"
echo "$((unit_pass + int_pass)) passed, $((unit_fail + int_fail)) failed, ${unit_skip} skipped"
exit $status
