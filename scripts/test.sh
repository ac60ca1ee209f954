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
"$top/scripts/setup.sh"
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

[ "${1:-}" = "--unit-only" ] && exit 0

"$top/testsuite/slurm/run-tests.sh" --build "$top/build"
