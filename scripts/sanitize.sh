#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sanitize.sh - build the project with AddressSanitizer and
# UndefinedBehaviorSanitizer (configure --enable-sanitizers, gcc) in
# build/asan, run `make check` there (unit tests, fuzz regression inputs,
# replay tests) and a short replay of every strategy, and fail on any
# sanitizer report (memory error, leak, undefined behaviour).
# Each step prints "ok N - ..." or "not ok N - ..."; the last line is
# "N passed, N failed"; the exit status is non-zero on any failure.
#
# Usage: scripts/sanitize.sh [--reconfigure] [--jobs N] [--no-check]
#   --reconfigure  configure build/asan again from scratch
#   --jobs N       make -jN (default 2)
#   --no-check     skip `make check`, only the replay
# The Slurm plugin is not built here: a sanitized plugin cannot be loaded
# into a slurmctld built without the sanitizer runtime (scripts/valgrind.sh
# --slurmctld covers the plugin inside slurmctld).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build/asan"
jobs=2
reconf=0
check=1
while [ $# -gt 0 ]; do
	case $1 in
	--reconfigure) reconf=1; shift ;;
	--jobs) jobs=$2; shift 2 ;;
	--no-check) check=0; shift ;;
	-h|--help) sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "sanitize.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# Every report aborts the program (so the test fails) and is printed with
# a stack; leaks are errors. (Not strict_string_checks: it flags strndup()
# on text that is not NUL-terminated, which is valid C and how the parsers
# read buffers.)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-}"

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi
fi
[ $reconf = 1 ] && rm -rf "$build"
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
	echo "sanitize: configuring $build"
	"$top/configure" -q --enable-sanitizers --with-slurm-source=no \
		CFLAGS="-g -O1"
fi
grep -q -- '-fsanitize=address,undefined' Makefile ||
	{ echo "sanitize: $build is not a sanitizer build (rerun with --reconfigure)" >&2; exit 2; }
make -j"$jobs" >/dev/null

status=0
ntest=0 nfail=0
# result DESCRIPTION FAILED(0/1)
result() {
	ntest=$((ntest + 1))
	if [ "$2" = 0 ]; then
		echo "ok $ntest - $1"
	else
		nfail=$((nfail + 1))
		status=1
		echo "not ok $ntest - $1"
	fi
}
reports() {
	# Sanitizer reports in the given files; prints them, returns 0 if any.
	grep -l -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$@" 2>/dev/null
}

if [ $check = 1 ]; then
	echo "sanitize: make check in $build"
	bad=0
	make -j"$jobs" check >/dev/null 2>&1 || bad=1
	logs=$(find "$build" -name '*.log' -newer Makefile \
		! -name config.log ! -name test-suite.log 2>/dev/null)
	grep -E '^(FAIL|ERROR):' test-suite.log || true
	# shellcheck disable=SC2086
	found=$(reports $logs || true)
	if [ -n "$found" ]; then
		bad=1
		for f in $found; do
			echo "== sanitizer report in $f"
			grep -m 3 -A 12 -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$f"
		done
	fi
	result "make check under ASan+UBSan: $(sed -n 's/^# PASS: *//p' test-suite.log) programs passed, no sanitizer report" $bad
fi

# A short replay: every strategy, with and without walltime awareness,
# on a small real trace when ../shared/traces is there, else on a
# hand-written one.
replay="$build/src/replay/locality-replay"
if [ -x "$replay" ]; then
	traces="$top/../shared/traces"
	out="$build/replay-smoke"
	log="$build/replay-smoke.log"
	rm -rf "$out"
	mkdir -p "$out"
	strategies=freelist,firstfit,bestfit,sumsquares,span,mm,mm_inc,genalg,mc1x1,mbs,paging,random,box
	runs=()
	if [ -f "$traces/ANL-Intrepid-2009-slice237.swf.gz" ]; then
		runs+=("--trace $traces/ANL-Intrepid-2009-slice237.swf.gz --grid 8x8x4 --torus yes --scale-to 256")
	fi
	if [ -f "$traces/sacct/ubccr-micro-sacct.txt" ]; then
		runs+=("--trace $traces/sacct/ubccr-micro-sacct.txt --grid 5x2 --limit 200")
	fi
	[ ${#runs[@]} -gt 0 ] ||
		runs+=("--trace $top/testsuite/fuzz/seeds/swf/basic --grid 8x8 --torus yes")
	: > "$log"
	i=0
	for r in "${runs[@]}"; do
		i=$((i + 1))
		rc=0
		# shellcheck disable=SC2086
		"$replay" $r --strategies "$strategies" \
			--walltime none,combo --no-svg --quiet --threads 1 \
			--out "$out/$i" > "$log.$i" 2>&1 || rc=$?
		cat "$log.$i" >> "$log"
		if [ $rc -ne 0 ]; then
			echo "sanitize: replay exited $rc; see $log"
		elif reports "$log.$i" >/dev/null; then
			rc=1
			grep -m 3 -A 12 -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log.$i"
		fi
		result "replay under ASan+UBSan: $(echo "$r" | sed "s|$top/../shared/|../shared/|g; s|$top/||g")" $((rc != 0))
	done
else
	result "locality-replay built in $build" 1
fi

echo "$((ntest - nfail)) passed, $nfail failed"
exit $status
