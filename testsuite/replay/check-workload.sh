#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workload.sh gen and to-swf, the live benchmarks' workloads and their
# way into the replay: a seed gives the same stream every time; each time
# limit follows --limits (fixed: int(r/60)+2 minutes; runtime: r minutes)
# and nothing else changes with it, in every kind of stream (plain,
# --phases, --mixed); a bad --limits is refused; to-swf carries the limit
# into the SWF's requested time (field 9, x 60 x --time-scale).
set -u
srcdir=${srcdir:-.}
top=$(cd "$srcdir" && pwd)
workload=$top/testsuite/slurm/workload.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-workload.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

ok() { echo "ok: $1"; }
fail() {
	echo "FAIL: $1"
	fails=$((fails + 1))
}

# check NAME CMD...: CMD must succeed
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}

gen() { "$workload" gen --jobs 80 --max-nodes 24 "$@"; }

for kind in plain phases mixed; do
	case $kind in
	plain) opts="--seed 3" ;;
	phases) opts="--seed 3 --phases" ;;
	mixed) opts="--seed 3 --mixed --cpus 4 --gpus 2" ;;
	esac
	# shellcheck disable=SC2086 # opts are words
	gen $opts >"$tmp/$kind.a" && gen $opts >"$tmp/$kind.b" &&
		gen $opts --limits fixed >"$tmp/$kind.fixed" &&
		gen $opts --limits runtime >"$tmp/$kind.runtime" ||
		{ fail "$kind: gen failed"; continue; }
	check "$kind: 80 jobs" [ "$(wc -l <"$tmp/$kind.a")" = 80 ]
	check "$kind: the same seed gives the same stream" \
		cmp -s "$tmp/$kind.a" "$tmp/$kind.b"
	check "$kind: --limits fixed is the default" \
		cmp -s "$tmp/$kind.a" "$tmp/$kind.fixed"
	check "$kind: fixed limits are int(r/60)+2 minutes" \
		awk '$4 != int($3 / 60) + 2 { bad = 1 } END { exit bad }' \
		"$tmp/$kind.fixed"
	check "$kind: runtime limits are r minutes" \
		awk '$4 != $3 { bad = 1 } END { exit bad }' "$tmp/$kind.runtime"
	check "$kind: runtime limits vary" \
		awk '{ seen[$4] = 1 } END { n = 0; for (l in seen) n++; exit n < 5 }' \
		"$tmp/$kind.runtime"
	# Everything but the limit is the same stream.
	for f in fixed runtime; do
		awk '{ $4 = "-"; print }' "$tmp/$kind.$f" >"$tmp/$kind.$f.rest"
	done
	check "$kind: --limits changes only the limits" \
		cmp -s "$tmp/$kind.fixed.rest" "$tmp/$kind.runtime.rest"
done

gen --seed 4 >"$tmp/s4" || fail "gen --seed 4 failed"
check "another seed gives another stream" \
	sh -c '! cmp -s "$1" "$2"' - "$tmp/plain.a" "$tmp/s4"

for bad in '' hours 60 "fixed,runtime"; do
	if gen --limits "$bad" >"$tmp/bad.out" 2>"$tmp/bad.err"; then
		fail "--limits '$bad' accepted"
	elif ! grep -q "limits takes fixed or runtime" "$tmp/bad.err" ||
		[ -s "$tmp/bad.out" ]; then
		fail "--limits '$bad': $(cat "$tmp/bad.err")"
	else
		ok "--limits '$bad' refused"
	fi
done

# to-swf: requested time = limit x 60 x K, run time = r x K.
if "$workload" to-swf "$tmp/plain.runtime" --time-scale 10 >"$tmp/rt.swf"; then
	grep -v '^;' "$tmp/rt.swf" | paste -d' ' - "$tmp/plain.runtime" >"$tmp/joined"
	check "to-swf: 80 jobs" [ "$(wc -l <"$tmp/joined")" = 80 ]
	check "to-swf: requested time is the limit x 60 x K" \
		awk '$9 != $22 * 600 || $4 != $21 * 10 { bad = 1 } END { exit bad }' \
		"$tmp/joined"
else
	fail "to-swf failed"
fi

[ $fails = 0 ] || { echo "check-workload: $fails failures"; exit 1; }
echo "check-workload: all checks passed"
