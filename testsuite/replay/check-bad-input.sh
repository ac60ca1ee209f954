#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile input for locality-replay and locality-advise: a NodeList naming
# a node locality.conf does not name, a grid smaller than the largest
# job, an empty export, one with a header only, a truncated export and a
# truncated .gz. Each must be one line on stderr, "PROG: FILE:LINE: ...",
# exit status 2, and leave the output directory exactly as it was (no
# partial files, no temporary directory beside it). Built from the
# bundled example; no ../shared needed.
set -u
srcdir=${srcdir:-.}
replay=${LOCALITY_REPLAY:-./src/replay/locality-replay}
advise=${LOCALITY_ADVISE:-./src/replay/locality-advise}
top=$(cd "$srcdir" && pwd)
data=$top/testsuite/replay/data
conf=$data/example-locality.conf
sacct=$data/example-sacct.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-bad.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

for bin in "$replay" "$advise"; do
	[ -x "$bin" ] || { echo "check-bad-input: $bin not built" >&2; exit 99; }
done

# the hostile files, each from the example export
# line 6 is job 1002 (n[01-02]): it also names zz07
awk -F'|' 'BEGIN { OFS = "|" } NR == 6 { $13 = "n[01-02],zz07" } { print }' \
	"$sacct" > "$tmp/unknown-node.txt"
: > "$tmp/empty.txt"
head -n 1 "$sacct" > "$tmp/header-only.txt"
# cut in the middle of line 40 (no final newline)
head -n 39 "$sacct" > "$tmp/truncated.txt"
sed -n 40p "$sacct" | cut -c 1-30 | tr -d '\n' >> "$tmp/truncated.txt"
# an SWF whose largest job (line 4, job 3) needs 40 nodes of 16
cat > "$tmp/big.swf" <<'END'
; MaxProcs: 40
1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1
2 10 0 100 8 -1 -1 8 200 -1 1 1 1 1 1 1 -1 -1
3 20 0 100 40 -1 -1 40 200 -1 1 1 1 1 1 1 -1 -1
4 30 0 100 20 -1 -1 20 200 -1 1 1 1 1 1 1 -1 -1
END
# a .gz cut short: the stream stops inside the data
awk '{ print } NR % 2 == 0 { printf "; padding %d\n", NR }' "$tmp/big.swf" > "$tmp/long.swf"
for i in $(seq 1 400); do
	echo "$((i + 10)) $((i * 60)) 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1"
done >> "$tmp/long.swf"
gzip -c "$tmp/long.swf" > "$tmp/full.swf.gz"
size=$(wc -c < "$tmp/full.swf.gz")
head -c $((size / 2)) "$tmp/full.swf.gz" > "$tmp/cut.swf.gz"

# expect NAME FILE LINE TEXT ARGS...: both programs exit 2 with exactly
# one line "PROG: FILE:LINE: ...TEXT..." and leave --out untouched
expect() {
	name=$1 file=$2 line=$3 text=$4
	shift 4
	for bin in "$replay" "$advise"; do
		prog=$(basename "$bin")
		out=$tmp/out-$prog-$name
		mkdir -p "$out" && echo keep > "$out/previous.txt"
		"$bin" --no-progress "$@" -o "$out" > "$tmp/stdout" 2> "$tmp/stderr"
		rc=$?
		[ $rc = 2 ] || fail "$prog $name: exit $rc, not 2: $(cat "$tmp/stderr")"
		n=$(wc -l < "$tmp/stderr")
		# the advisor and the replay report the trace on stderr before
		# the error only when the trace was read; the error is the last
		msg=$(tail -n 1 "$tmp/stderr")
		case $msg in
		"$prog: $file:$line: "*"$text"*) ;;
		*) fail "$prog $name: error is '$msg' (want $prog: $file:$line: ...$text...)" ;;
		esac
		[ "$n" -le 3 ] || fail "$prog $name: $n lines on stderr"
		[ "$(ls -A "$out")" = previous.txt ] ||
			fail "$prog $name: output directory now holds: $(ls -A "$out")"
		ls -A "$tmp" | grep -q '^\.out-.*partial' &&
			fail "$prog $name: a temporary directory was left: $(ls -A "$tmp" | grep partial)"
	done
}

expect unknown-node "$tmp/unknown-node.txt" 6 "job 1002: NodeList names 'zz07'" \
	-c "$conf" -t "$tmp/unknown-node.txt"
expect too-large "$tmp/big.swf" 4 "job 3 needs 40 nodes, the machine (--grid) has 16" \
	--grid 4x4 -t "$tmp/big.swf" -s firstfit
expect too-small-for-names "$sacct" 4 "NodeList names 'n04', distinct node number 10" \
	--grid 3x3 -t "$sacct" -s firstfit
expect empty "$tmp/empty.txt" 1 "the file is empty" -c "$conf" -t "$tmp/empty.txt"
expect header-only "$tmp/header-only.txt" 1 "no job to replay" \
	-c "$conf" -t "$tmp/header-only.txt"
expect truncated "$tmp/truncated.txt" 40 "ends in the middle of a record" \
	-c "$conf" -t "$tmp/truncated.txt"
expect truncated-strict "$tmp/truncated.txt" 40 "" \
	-c "$conf" -t "$tmp/truncated.txt" --strict
"$replay" --grid 4x4 -t "$tmp/full.swf.gz" --drop-too-large -s firstfit \
	--no-svg -q -o "$tmp/gz-ok" 2> "$tmp/stderr"
if grep -q 'needs zlib' "$tmp/stderr"; then
	echo "SKIP truncated-gz: built without zlib"
else
	[ -f "$tmp/gz-ok/summary.json" ] ||
		fail "the whole .gz does not replay: $(cat "$tmp/stderr")"
	# the line the stream stops in: the lines gzip itself recovers, + 1
	gzline=$(($(gzip -dc "$tmp/cut.swf.gz" 2>/dev/null | wc -l) + 1))
	expect truncated-gz "$tmp/cut.swf.gz" "$gzline" "gzip stream ends early" \
		--grid 4x4 -t "$tmp/cut.swf.gz" --drop-too-large -s firstfit
fi

# the locality.conf key options (--plan-window ...) and --set read their
# values with locality.conf's own parser: a bad value is one line naming
# the option and the key's reason, exit 1 (a usage error, as always), and
# the output directory stays as it was. The ranges come from the key table.
table=$top/src/common/loc_conf_key_table.h
# key_range FIELD: "MIN MAX" of the table's INT(FIELD, MIN, MAX, DEF)
key_range() {
	sed -n "s/.*_INT($1, *\([^,]*\), *\([^,]*\),.*/\1 \2/p" "$table"
}
set -- $(key_range plan_window)
pw_min=$(($1)) pw_max=$(($2))
set -- $(key_range adjest_window)
aw_min=$(($1)) aw_max=$(($2))
[ -n "$pw_max" ] && [ "$aw_min" -ge 1 ] ||
	fail "no PlanWindow or AdjEstWindow range in $table"
# expect_option NAME TEXT ARGS...: exit 1, one line "PROG: ...TEXT..."
# (and perhaps "Try 'PROG --help'.")
expect_option() {
	name=$1 text=$2
	shift 2
	for bin in "$replay" "$advise"; do
		prog=$(basename "$bin")
		out=$tmp/out-$prog-$name
		mkdir -p "$out" && echo keep > "$out/previous.txt"
		"$bin" --no-progress -c "$conf" -t "$sacct" "$@" -o "$out" \
			> "$tmp/stdout" 2> "$tmp/stderr"
		rc=$?
		[ $rc = 1 ] || fail "$prog $name: exit $rc, not 1: $(cat "$tmp/stderr")"
		# a usage error of the command line may add where help is
		sed -i "2{/^Try '$prog --help'\.\$/d}" "$tmp/stderr"
		[ "$(wc -l < "$tmp/stderr")" -eq 1 ] ||
			fail "$prog $name: not one line on stderr: $(cat "$tmp/stderr")"
		case $(cat "$tmp/stderr") in
		"$prog: "*"$text"*) ;;
		*) fail "$prog $name: error is '$(cat "$tmp/stderr")' (want $prog: ...$text...)" ;;
		esac
		[ "$(ls -A "$out")" = previous.txt ] ||
			fail "$prog $name: output directory now holds: $(ls -A "$out")"
	done
}
expect_option plan-window-range \
	"--plan-window: PlanWindow: '$((pw_max + 1))' is out of range $pw_min-$pw_max" \
	--plan-window $((pw_max + 1))
expect_option adjest-window-range \
	"--adjest-window: AdjEstWindow: '$((aw_min - 1))' is out of range $aw_min-$aw_max" \
	--adjest-window $((aw_min - 1))
expect_option compact-wait-text "--compact-wait: CompactWait: 'soon' is not an integer" \
	--compact-wait soon
expect_option plan-hold-name "--plan-hold: PlanHold: unknown hold 'never'" \
	--plan-hold never
expect_option sched-name "--sched: 'lazy' is not fcfs, easy or conservative" \
	--sched lazy
expect_option set-range "--set: PlanWindow: '$((pw_max + 1))' is out of range" \
	--set PlanWindow=$((pw_max + 1))
expect_option set-strategy "--set: 'Strategy' is not a key the replay sets" \
	--set Strategy=mm
expect_option set-syntax "--set: 'CompactWait' is not KEY=VALUE" \
	--set CompactWait
# the largest value of the table is accepted, and --set is the option
"$replay" -c "$conf" -t "$sacct" -s pack --no-svg -q --plan-window "$pw_max" \
	-o "$tmp/pw-option" || fail "--plan-window $pw_max exited $?"
"$replay" -c "$conf" -t "$sacct" -s pack --no-svg -q --set "planwindow=$pw_max" \
	-o "$tmp/pw-set" || fail "--set planwindow=$pw_max exited $?"
cmp -s "$tmp/pw-option/summary.json" "$tmp/pw-set/summary.json" ||
	fail "--set PlanWindow=$pw_max and --plan-window $pw_max replay differently"

# the documented way out of the too-large error still works, and lists
# the job it left out
"$replay" --grid 4x4 -t "$tmp/big.swf" --drop-too-large -s firstfit --no-svg \
	-q -o "$tmp/dropped" || fail "--drop-too-large exited $?"
grep -q '^firstfit,3,.*,40,larger-than-machine$' "$tmp/dropped/rejected.csv" ||
	fail "--drop-too-large: rejected.csv is $(cat "$tmp/dropped/rejected.csv" 2>&1)"

# --out under a directory that does not exist fails before the trace is
# read, leaving nothing behind: the trace is a FIFO nobody writes, on
# which reading would block (timeout ends such a run with 124)
mkfifo "$tmp/never-written" || fail "mkfifo failed"
for bin in "$replay" "$advise"; do
	prog=$(basename "$bin")
	timeout 60 "$bin" --no-progress -c "$conf" -t "$tmp/never-written" \
		-s firstfit -o "$tmp/no-such-dir/out" > "$tmp/stdout" \
		2> "$tmp/stderr"
	rc=$?
	[ $rc = 4 ] ||
		fail "$prog missing --out parent: exit $rc, not 4 (124: it read the trace first)"
	grep -q "$tmp/no-such-dir: cannot create the output directory" \
		"$tmp/stderr" ||
		fail "$prog missing --out parent: stderr is $(cat "$tmp/stderr")"
	[ -e "$tmp/no-such-dir" ] && fail "$prog created $tmp/no-such-dir"
done

# a good replay into a directory that exists keeps the other files there
mkdir -p "$tmp/existing" && echo keep > "$tmp/existing/mine.txt"
"$replay" -c "$conf" -t "$sacct" -s firstfit --no-svg -q -o "$tmp/existing/" ||
	fail "replay into an existing directory exited $?"
[ -f "$tmp/existing/mine.txt" ] && [ -f "$tmp/existing/summary.json" ] ||
	fail "existing directory: $(ls -A "$tmp/existing")"
ls -A "$tmp" | grep -q partial && fail "a temporary directory was left"

if [ $fails -gt 0 ]; then
	echo "check-bad-input: $fails failures"
	exit 1
fi
echo "check-bad-input: all checks passed"
exit 0
