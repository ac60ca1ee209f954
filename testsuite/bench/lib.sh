# SPDX-License-Identifier: GPL-2.0-or-later
#
# lib.sh - sourced by the check-*.sh of testsuite/bench, after they set
# SCRIPT (a file of bench/): sets tool (python3 on it) and tmp (a
# directory removed at exit), skips (77) without python3, and gives
# check NAME GOT WANT, which counts a mismatch into fails.
set -u
srcdir=${srcdir:-.}
tool="python3 $srcdir/bench/$SCRIPT"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/${SCRIPT%.py}.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
fails=0

check() { # NAME GOT WANT
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: got"
		echo "$2"
		echo "want"
		echo "$3"
		fails=$((fails + 1))
	fi
}
