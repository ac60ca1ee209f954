#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workload.sh gen and to-swf, the live benchmarks' workloads and their
# way into the replay: a seed gives the same stream every time; each time
# limit follows --limits (fixed: int(r/60)+2 minutes; runtime: r minutes)
# and nothing else changes with it, in every kind of stream (plain,
# --phases, --mixed); a bad --limits is refused; to-swf carries the limit
# into the SWF's requested time (field 9, x 60 x --time-scale). The trace
# converter (workload.sh swf, through locality-replay --export-jobs) keeps
# gen's fixed rule by default, and with --limits requested gives each job
# its own request compressed as its runtime is, in minutes.
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

# refused NAME MESSAGE CMD...: CMD must fail, print nothing on stdout and
# MESSAGE on stderr.
refused() {
	name=$1 msg=$2
	shift 2
	if "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"; then
		fail "$name accepted"
	elif ! grep -q "$msg" "$tmp/bad.err" || [ -s "$tmp/bad.out" ]; then
		fail "$name: $(cat "$tmp/bad.err")"
	else
		ok "$name refused"
	fi
}

for bad in '' hours 60 "fixed,runtime"; do
	refused "--limits '$bad'" "limits takes fixed or runtime" \
		gen --limits "$bad"
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

# A trace of five jobs: id submit wait run procs cpu mem procs req ...
# Requests of 3 h, 60 s, none (-1), 2 h for a 10-h run, and 1.5 h.
cat >"$tmp/t.swf" <<'EOF'
; MaxProcs: 64
1 0 -1 7200 8 -1 -1 8 10800 -1 1 -1 -1 -1 -1 -1 -1 -1
2 60 -1 30 4 -1 -1 4 60 -1 1 -1 -1 -1 -1 -1 -1 -1
3 120 -1 3600 16 -1 -1 16 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
4 180 -1 36000 2 -1 -1 2 7200 -1 1 -1 -1 -1 -1 -1 -1 -1
5 240 -1 1800 64 -1 -1 64 5400 -1 1 -1 -1 -1 -1 -1 -1 -1
EOF
LOC_REPLAY=${LOCALITY_REPLAY:-$PWD/src/replay/locality-replay}
export LOC_REPLAY
trace() { "$workload" swf "$tmp/t.swf" "$@" 2>"$tmp/trace.err"; }
# limits_are FILE L1 L2 ...: the limits of FILE's jobs, in order.
limits_are() {
	f=$1
	shift
	[ "$(awk '{ printf "%s ", $4 }' "$f")" = "$* " ]
}
if trace --hour 1 >"$tmp/t1.default" &&
	trace --hour 1 --limits fixed >"$tmp/t1.fixed" &&
	trace --hour 1 --limits requested >"$tmp/t1.req" &&
	trace --hour 2 --limits requested >"$tmp/t2.req"; then
	check "trace: 5 jobs" [ "$(wc -l <"$tmp/t1.req")" = 5 ]
	check "trace: --limits fixed is the default" \
		cmp -s "$tmp/t1.default" "$tmp/t1.fixed"
	check "trace: fixed limits are int(r/60)+2 minutes" \
		limits_are "$tmp/t1.fixed" 2 2 2 2 2
	# 3 h, 60 s (rounded up), none (the runtime rule: 1 s, 1 min),
	# 2 h (past which the job ran: its runtime is kept), 1.5 h (up).
	check "trace: requested limits, one trace hour a second" \
		limits_are "$tmp/t1.req" 3 1 1 2 2
	check "trace: requested limits, one trace hour two seconds" \
		limits_are "$tmp/t2.req" 6 1 2 4 3
	for f in fixed req; do
		awk '{ $4 = "-"; print }' "$tmp/t1.$f" >"$tmp/t1.$f.rest"
	done
	check "trace: --limits changes only the limits" \
		cmp -s "$tmp/t1.fixed.rest" "$tmp/t1.req.rest"
else
	fail "workload.sh swf failed: $(cat "$tmp/trace.err")"
fi
for bad in '' runtime minutes; do
	refused "trace: --limits '$bad'" "limits takes fixed or requested" \
		"$workload" swf "$tmp/t.swf" --limits "$bad"
done

[ $fails = 0 ] || { echo "check-workload: $fails failures"; exit 1; }
echo "check-workload: all checks passed"
