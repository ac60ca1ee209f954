#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test.sh - set up (scripts/setup.sh), then run every test:
#   unit         the cmocka unit tests, fuzz regression inputs and replay
#                checks (make check)
#   integration  the plugin in a real local Slurm cluster of 64 slurmd
#                (testsuite/slurm/run-tests.sh)
#   shapes       placements equal the core's in seven slurm.conf shapes:
#                node lines per node/row, weights, features, partitions
#                (testsuite/slurm/shape-tests.sh)
#   integration-per-row  the integration suite again, slurm.conf with one
#                NodeName line per row
#   sanitize     make check and replays under ASan+UBSan (scripts/sanitize.sh)
#   valgrind     the test programs, a replay and slurmctld with the plugin
#                under memcheck (scripts/valgrind.sh, and --slurmctld)
#   load         short form: 500-job bursts per strategy family
#                (testsuite/slurm/load-test.sh --short)
#   fault        short form: slurmd killed, drain/resume, reconfigure,
#                slurmctld kill -9 (testsuite/slurm/fault-tests.sh --short)
#   deb          the Debian packages: built, lintian, installed with
#                dpkg, jobs run with no PluginDir, purged
#                (testsuite/slurm/deb-test.sh)
#
# Usage: scripts/test.sh [--unit-only | --quick]
#   --unit-only  only make check
#   --quick      make check, the integration and shape suites (no hardening)
# Each phase's output is kept in build/test-logs/PHASE.log. The last line
# is "N passed, N failed, N skipped" over all phases; the exit status is
# non-zero when any check failed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=all
case ${1:-} in
'') ;;
--unit-only) mode=unit ;;
--quick) mode=quick ;;
-h | --help) sed -n '4,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "test.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac

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
passed=$(count PASS) failed=$(( $(count FAIL) + $(count ERROR) ))
skipped=$(count SKIP)
unit_line=$(printf '%-20s %3d passed, %d failed, %d skipped' unit: \
	"$passed" "$failed" "$skipped")
echo "$unit_line"
[ $mode = unit ] && exit 0

# phase NAME COMMAND...: runs a suite that prints "ok N - ..." and
# "not ok N - ..." lines, keeps its output, adds up its counts. A suite
# that fails without a "not ok" line (it could not start) counts as one
# failure.
logs="$top/build/test-logs"
mkdir -p "$logs"
summary=()
phase() {
	local name=$1 log="$logs/$1.log" rc=0 p f
	shift
	echo "== $name: $*" | sed "s|$top/||g"
	"$@" 2>&1 | tee "$log" || rc=$?
	p=$(grep -c '^ok ' "$log" || true)
	f=$(grep -c '^not ok ' "$log" || true)
	[ $rc -ne 0 ] && [ "$f" = 0 ] && f=1
	[ $rc -ne 0 ] && status=1
	passed=$((passed + p)) failed=$((failed + f))
	summary+=("$(printf '%-20s %3d passed, %d failed' "$name:" "$p" "$f")")
}

phase integration "$top/testsuite/slurm/run-tests.sh" "$top/build"
phase shapes "$top/testsuite/slurm/shape-tests.sh" "$top/build"
if [ $mode = all ]; then
	phase integration-per-row "$top/testsuite/slurm/run-tests.sh" \
		"$top/build" --shape per-row
	phase sanitize "$top/scripts/sanitize.sh"
	phase valgrind "$top/scripts/valgrind.sh" --build "$top/build"
	phase valgrind-slurmctld "$top/scripts/valgrind.sh" --slurmctld \
		--build "$top/build"
	phase load "$top/testsuite/slurm/load-test.sh" "$top/build" --short
	phase fault "$top/testsuite/slurm/fault-tests.sh" "$top/build" --short
	phase deb "$top/testsuite/slurm/deb-test.sh" "$top/build"
fi

echo "== summary (logs in build/test-logs)"
echo "$unit_line"
printf '%s\n' "${summary[@]}"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
exit $status
