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
#                NodeName line per row (only with LOC_TEST_PER_ROW=1)
#   sanitize     make check and replays under ASan+UBSan (scripts/sanitize.sh)
#   valgrind     the test programs and a replay under memcheck
#                (scripts/valgrind.sh)
#   valgrind-slurmctld  slurmctld with the plugin under memcheck
#                (scripts/valgrind.sh --slurmctld)
#   load         short form: 500-job bursts per strategy family
#                (testsuite/slurm/load-test.sh --short)
#   fault        short form: slurmd killed, drain/down and resume,
#                reconfigure, slurmctld kill -9, locality.conf moving
#                nodes, state files cut short, slow epilogs, under
#                select/locality; the kill -9 and the cut state files
#                under select/linear too on the host's Slurm, losses
#                compared (testsuite/slurm/fault-tests.sh --short
#                --control d,f)
#   slurm-suites Slurm's own expect and python tests about node selection
#                and allocation (testsuite/slurm/slurm-suites.ci), under
#                select/linear and select/locality: every test on the
#                list must pass under both (testsuite/slurm/slurm-suites.sh;
#                the host's Slurm only, whose source setup.sh fetches;
#                only with LOC_TEST_SLURM_SUITES=1, for CI's 90 minutes)
#   deb          the Debian packages: built, lintian, installed with
#                dpkg, jobs run with no PluginDir, purged
#                (testsuite/slurm/deb-test.sh)
#
#   advise-sbatch  locality-advise --sbatch: the advice's rows as job
#                arrays merged by dependent jobs, byte-identical to a run
#                on one machine (testsuite/slurm/advise-sbatch-test.sh)
#   topology     topology/locality under select/cons_tres against
#                Slurm's own topology plugin, same jobs (whole-node, core,
#                --mem, GPU, ranges, lists, contiguous, arrays): the
#                versions it is built for, 24.11 and 26.05
#                (testsuite/slurm/topology-tests.sh)
#
# Every Slurm version of --slurm is tested. The host's own (22.05 on
# Debian 12) runs all of the above but topology (advise-sbatch, too, runs
# on every tested version). Each other version
# (24.11, 26.05) is built against its own Slurm and run in its Debian
# root (tools/slurm-root.sh;
# the first run makes it: about a minute and 100 MB of packages) and
# runs the phases that involve Slurm, which are the same scripts:
# topology, advise-sbatch, then (select/locality, 24.11) symbols (check-symbols.sh: the
# plugin exports what that slurmctld loads), integration, shapes,
# valgrind-slurmctld, load and fault; unit,
# sanitize and valgrind test Slurm-free code, the same for every version,
# and run once. (integration-per-row, LOC_TEST_PER_ROW=1, and the long
# forms run on demand:
# doc/reliability.md.) A version whose exact Slurm source the mirror does
# not serve (26.05: Debian testing ships binaries only) cannot be built:
# it is listed as skipped, with the reason, unless LOC_SLURM_SOURCE names
# a tree of that version. The other versions' phases run in a second
# lane, beside the host's (their own ports: slurmctld 7817, slurmd from
# 23001), so the whole takes about the longer lane's time.
#
# Usage: scripts/test.sh [--unit-only | --quick] [--slurm LIST] [--serial]
#   --unit-only  only make check
#   --quick      make check, then the integration and shape suites (no
#                hardening), on each version
#   --slurm LIST the Slurm versions to test, comma-separated (default:
#                every supported one, tools/slurm-root.sh versions)
#   --serial     one lane: the other versions after the host's
#                (LOC_TEST_SERIAL=1 too)
# Each phase's output is kept in build/test-logs/PHASE.log (a Slurm
# phase's in slurm-VERSION-PHASE.log). The last line is "N passed,
# N failed, N skipped" over all phases; the exit status is non-zero when
# any check failed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
roots="$top/tools/slurm-root.sh"
mode=all
versions=""
serial=${LOC_TEST_SERIAL:-0}
while [ $# -gt 0 ]; do
	case $1 in
	--unit-only) mode=unit; shift ;;
	--quick) mode=quick; shift ;;
	--slurm) versions=${2:-}; shift 2 ;;
	--serial) serial=1; shift ;;
	-h | --help) sed -n '4,78p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[ -n "$versions" ] || versions=$("$roots" versions | paste -sd, -)
IFS=, read -r -a versions <<<"$versions"
for v in "${versions[@]}"; do
	"$roots" versions | grep -qx -- "$v" || {
		echo "test.sh: --slurm: unknown version $v (supported: $("$roots" versions | paste -sd' '))" >&2
		exit 2
	}
done

t_setup=$SECONDS
"$top/scripts/setup.sh" --quiet
host=$("$roots" host-version)
# A version whose source the mirror does not serve (setup.sh exit 3) is
# not built: it is reported as skipped, with the reason, never passed.
tested=() unbuilt=()
for v in "${versions[@]}"; do
	rc=0
	[ "$v" = "$host" ] || "$top/scripts/setup.sh" --slurm "$v" --quiet || rc=$?
	case $rc in
	0) tested+=("$v") ;;
	3) unbuilt+=("$v") ;;
	*) exit $rc ;;
	esac
done
echo "== setup took $((SECONDS - t_setup)) s"
cd "$top/build"

status=0
t0=$SECONDS
make -j"$(nproc)" check || status=$?
if [ $status -ne 0 ]; then
	# Show which tests failed and their logs, then stop.
	find . -name '*.log' -path '*testsuite*' -newer Makefile \
		-exec grep -l -E '^(FAIL|ERROR)' {} + 2>/dev/null | head -20 |
		while read -r f; do echo "== $f"; tail -40 "$f"; done
	exit $status
fi
echo "== unit took $((SECONDS - t0)) s"

# Counts from automake's test-suite.log (one line per test program).
count() { sed -n "s/^# $1: *//p" test-suite.log | head -n 1; }
passed=$(count PASS) failed=$(( $(count FAIL) + $(count ERROR) ))
skipped=$(count SKIP)
unit_line=$(printf '%-32s %3d passed, %d failed, %d skipped' unit: \
	"$passed" "$failed" "$skipped")
echo "$unit_line"
[ $mode = unit ] && exit 0

# phase NAME COMMAND...: runs a suite that prints "ok N - ..." and
# "not ok N - ..." lines, keeps its output, and records its counts and
# status in NAME.counts, its name in the lane's list (phases.LANE): a
# lane running in the background adds up the same way. A suite that
# fails without a "not ok" line (it could not start) counts as one
# failure.
logs="$top/build/test-logs"
mkdir -p "$logs"
rm -f "$logs"/phases.* "$logs"/*.counts
lane=main
phase() {
	local name=$1 log="$logs/$1.log" rc=0 p f t=$SECONDS
	shift
	echo "== $name: $*" | sed "s|$top/||g"
	"$@" 2>&1 | tee "$log" || rc=$?
	p=$(grep -c '^ok ' "$log" || true)
	f=$(grep -c '^not ok ' "$log" || true)
	[ $rc -ne 0 ] && [ "$f" = 0 ] && f=1
	echo "$p $f $rc" >"$logs/$name.counts"
	echo "$name" >>"$logs/phases.$lane"
	echo "== $name took $((SECONDS - t)) s"
}

# symbols BUILD: check-symbols.sh on BUILD's plugin, as one "ok" line
# (make check runs it for the host's build).
symbols() {
	local out rc=0
	out=$(cd "$1" && "$top/src/plugins/select/locality/check-symbols.sh" 2>&1) ||
		rc=$?
	if [ $rc = 0 ]; then
		echo "ok 1 - $out"
	else
		echo "$out"
		echo "not ok 1 - the plugin exports what slurmctld loads"
	fi
	return $rc
}

# slurm_phases VERSION: the suites on real daemons of that Slurm, in its
# own build and (for another version than the host's) its Debian root.
slurm_phases() {
	local v=$1 obj run
	obj=$("$roots" build-dir "$v")
	run=("$roots" run "$v" --)
	# topology/locality under cons_tres, with Slurm's own as the control.
	[ ! -f "$obj/src/plugins/topology/locality/topology_locality.la" ] ||
		phase "slurm-$v-topology" "${run[@]}" \
			"$top/testsuite/slurm/topology-tests.sh" "$obj"
	# locality-advise --sbatch: its rows as job arrays through this
	# version's sbatch and daemons (the advisor needs no plugin).
	phase "slurm-$v-advise-sbatch" "${run[@]}" \
		"$top/testsuite/slurm/advise-sbatch-test.sh" "$obj"
	# select/locality's suites: the versions it is built for.
	[ -f "$obj/src/plugins/select/locality/select_locality.la" ] || return 0
	[ "$v" = "$host" ] || phase "slurm-$v-symbols" symbols "$obj"
	phase "slurm-$v-integration" "${run[@]}" \
		"$top/testsuite/slurm/run-tests.sh" "$obj"
	phase "slurm-$v-shapes" "${run[@]}" \
		"$top/testsuite/slurm/shape-tests.sh" "$obj"
	[ $mode = all ] || return 0
	# The integration suite with a NodeName line per row runs on demand
	# only (LOC_TEST_PER_ROW=1): the shapes suite covers that shape on
	# every version, and CI's 90 minutes now hold topology/locality's
	# suite (doc/reliability.md).
	[ "${LOC_TEST_PER_ROW:-0}" != 1 ] ||
		phase "slurm-$v-integration-per-row" "${run[@]}" \
			"$top/testsuite/slurm/run-tests.sh" "$obj" --shape per-row
	phase "slurm-$v-valgrind-slurmctld" "${run[@]}" \
		"$top/scripts/valgrind.sh" --slurmctld --build "$obj"
	phase "slurm-$v-load" "${run[@]}" \
		"$top/testsuite/slurm/load-test.sh" "$obj" --short
	# The select/linear control for cases d (slurmctld kill -9) and f
	# (state files cut short) on the host's Slurm: the cases whose losses
	# are partly Slurm's own, compared with a stated tolerance. The full
	# comparison is fault-tests.sh without --control (doc/reliability.md).
	local control=none
	[ "$v" != "$host" ] || control=d,f
	phase "slurm-$v-fault" "${run[@]}" \
		"$top/testsuite/slurm/fault-tests.sh" "$obj" --short \
		--control "$control"
	# Slurm's own suites run on demand only (LOC_TEST_SLURM_SUITES=1):
	# on a machine 1.24x slower than usual the whole run took 96 min
	# (2026-12-01), past CI's 90.
	[ "$v" != "$host" ] || [ "${LOC_TEST_SLURM_SUITES:-0}" != 1 ] ||
		phase "slurm-$v-slurm-suites" "${run[@]}" \
			"$top/testsuite/slurm/slurm-suites.sh" "$obj" --subset ci
}

# Slurm-free code: once, in the host's build.
if [ $mode = all ]; then
	phase sanitize "$top/scripts/sanitize.sh"
	phase valgrind "$top/scripts/valgrind.sh" --build "$top/build"
fi
# The other versions run one after another in a second lane, beside
# the host's: their clusters have their own ports (slurmctld 7817,
# slurmd from 23001; slurmdbd and MariaDB the two after slurmctld's),
# and nearly all of a live suite's time is jobs sleeping, so two lanes
# take about the longer one's time on two cores. --serial (or
# LOC_TEST_SERIAL=1) runs the lanes one after another.
others=() host_tested=0
for v in "${tested[@]}"; do
	if [ "$v" = "$host" ]; then host_tested=1; else others+=("$v"); fi
done
lane_pid=""
if [ ${#others[@]} -gt 0 ] && [ "$serial" = 0 ]; then
	echo "== slurm ${others[*]}: in a second lane beside the host's, output in build/test-logs/lane.out"
	(
		lane=others
		export LOC_CTLD_PORT=7817 LOC_NODE_PORT0=23001
		for v in "${others[@]}"; do slurm_phases "$v"; done
	) >"$logs/lane.out" 2>&1 &
	lane_pid=$!
fi
[ $host_tested = 0 ] || slurm_phases "$host"
# The Debian packages, built and installed for the host's Slurm.
if [ $mode = all ]; then
	phase deb "$top/testsuite/slurm/deb-test.sh" "$top/build"
fi
if [ -n "$lane_pid" ]; then
	t=$SECONDS
	lane_rc=0
	wait "$lane_pid" || lane_rc=$?
	echo "== the second lane ended $((SECONDS - t)) s after the host's; its output:"
	cat "$logs/lane.out"
	# A lane that stopped outside a phase (set -e) skipped the rest.
	if [ $lane_rc != 0 ]; then
		echo "not ok - the second lane stopped (exit $lane_rc) outside a phase" |
			tee "$logs/lane.log"
		echo "0 1 $lane_rc" >"$logs/lane.counts"
		echo lane >>"$logs/phases.others"
	fi
elif [ ${#others[@]} -gt 0 ]; then
	for v in "${others[@]}"; do slurm_phases "$v"; done
fi

# Every phase's counts, host's lane first; a phase that exited non-zero
# fails the run.
names=()
for l in main others; do
	if [ -f "$logs/phases.$l" ]; then
		mapfile -t -O ${#names[@]} names <"$logs/phases.$l"
	fi
done
echo "== summary (logs in build/test-logs)"
echo "$unit_line"
for name in ${names[@]+"${names[@]}"}; do
	read -r p f rc <"$logs/$name.counts"
	passed=$((passed + p)) failed=$((failed + f))
	[ "$rc" = 0 ] || status=1
	printf '%-32s %3d passed, %d failed\n' "$name:" "$p" "$f" |
		sed 's/^slurm-\([0-9.]*\)-/slurm \1 /'
done
# Every failure again, with its phase and reason, where a reader of the
# last lines alone (a CI page) sees it.
for name in ${names[@]+"${names[@]}"}; do
	{ grep -h '^not ok ' "$logs/$name.log" || true; } |
		sed "s|^|$name: |" | cut -c1-600
done
for v in ${unbuilt[@]+"${unbuilt[@]}"}; do
	printf '%-32s skipped: the mirror serves no slurm-wlm %s source (LOC_SLURM_SOURCE=DIR scripts/test.sh --slurm %s)\n' \
		"slurm $v:" "$v" "$v"
	skipped=$((skipped + 1))
done
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
exit $status
