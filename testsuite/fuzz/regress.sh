#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# regress.sh - `make check`: runs every fuzz target (built with the normal
# compiler and fuzz_main.c) once on each seed and regression input in
# testsuite/fuzz. A failed check aborts the target and fails the test.
# Run from the build directory; $srcdir is the source tree (automake).
set -eu
src=${srcdir:-.}/testsuite/fuzz
status=0
for t in conf hostlist swf sacct machine record; do
	bin=./testsuite/fuzz/fuzz_$t
	[ -x "$bin" ] || { echo "regress.sh: $bin not built" >&2; exit 99; }
	set --
	[ -d "$src/seeds/$t" ] && set -- "$@" "$src/seeds/$t"
	[ -d "$src/regressions/$t" ] && set -- "$@" "$src/regressions/$t"
	[ $# -gt 0 ] || continue
	if ! "$bin" "$@"; then
		echo "FAIL: fuzz_$t on $*"
		status=1
	fi
done
exit $status
