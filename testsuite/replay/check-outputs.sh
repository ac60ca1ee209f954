#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# locality-replay end to end on the bundled example (no ../shared needed):
# byte-identical outputs for identical inputs (also across thread counts),
# the CSV columns, wait and bounded slowdown recomputed from the CSV with
# awk, the exit statuses of the man page, strict mode's line numbers,
# --export-jobs, and x_ideal on jobs placed one at a time.
set -u
srcdir=${srcdir:-.}
bin=${LOCALITY_REPLAY:-./src/replay/locality-replay}
top=$(cd "$srcdir" && pwd)
data=$top/testsuite/replay/data
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-check.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

run() {
	"$bin" -c "$data/example-locality.conf" -t "$data/example-sacct.txt" \
		-s freelist,mm,box -w none,pf --no-progress -q "$@"
}

# 1. identical inputs, identical bytes (threads do not matter)
run -o "$tmp/a" -j 1 || fail "replay exited $?"
run -o "$tmp/b" -j 2 || fail "replay exited $?"
for f in "$tmp"/a/*; do
	cmp -s "$f" "$tmp/b/$(basename "$f")" ||
		fail "$(basename "$f") differs between two identical replays"
done
n=$(ls "$tmp/a" | wc -l)
[ "$n" -ge 20 ] || fail "expected summary, CSVs and pictures, got $n files"
grep -q '"recorded"' "$tmp/a/summary.json" || fail "no recorded row"

# 2. the CSV has exactly the documented columns and one line per job
hdr=$(head -1 "$tmp/a/mm.csv")
[ "$hdr" = "job_id,submit,start,end,requested_nodes,nodes,mean_pairwise_hops,span,bbox_volume,dispersal,components" ] ||
	fail "CSV header is '$hdr'"
jobs=$(awk -F'"jobs": ' '/"mm": \{/ {f = 1} f && /"jobs"/ {split($2, a, ","); print a[1]; exit}' "$tmp/a/summary.json")
lines=$(($(wc -l < "$tmp/a/mm.csv") - 1))
[ "$jobs" = "$lines" ] || fail "mm: summary says $jobs jobs, CSV has $lines"

# 3. mean wait and mean bounded slowdown recomputed from the CSV
for row in freelist mm box+pf recorded; do
	got=$(awk -F, 'NR > 1 { w = $3 - $2; r = $4 - $3; b = (w + r) / (r > 10 ? r : 10);
		if (b < 1) b = 1; sw += w; sb += b; n++ }
		END { printf "%.3f %.3f", sw / n, sb / n }' "$tmp/a/$row.csv")
	want=$(awk -v row="\"$row\": {" 'index($0, row) {f = 1}
		f && /"mean_wait_s"/ {gsub(/[",]/, "", $2); w = $2}
		f && /"mean_bsd"/ {gsub(/[",]/, "", $2); printf "%.3f %.3f", w, $2; exit}' \
		"$tmp/a/summary.json")
	[ -n "$got" ] && [ "$got" = "$want" ] ||
		fail "$row: CSV gives wait/bsd '$got', summary '$want'"
done

# 4. exit statuses
"$bin" --bogus > /dev/null 2>&1
[ $? = 1 ] || fail "a bad option must exit 1"
"$bin" -t /nonexistent -c "$data/example-locality.conf" -o "$tmp/c" > /dev/null 2>&1
[ $? = 2 ] || fail "a missing trace must exit 2"
printf 'Dimensions=4x4\nBogusKey=1\n' > "$tmp/bad.conf"
msg=$("$bin" -t "$data/example-sacct.txt" -c "$tmp/bad.conf" -o "$tmp/c" 2>&1)
[ $? = 2 ] || fail "a bad config must exit 2"
case $msg in *bad.conf:2:*) ;; *) fail "config error lacks file:line: $msg" ;; esac
sed 's/"mean_wait_s": \([0-9]\)/"mean_wait_s": 9\1/' "$tmp/a/summary.json" > "$tmp/golden.json"
run -o "$tmp/d" --golden "$tmp/golden.json" --tolerance 0.01 2> "$tmp/drift.txt"
[ $? = 3 ] || fail "a drifted golden must exit 3"
grep -q 'mean_wait_s: golden' "$tmp/drift.txt" || fail "drift report unreadable"
run -o "$tmp/e" --golden "$tmp/a/summary.json" ||
	fail "an unchanged replay must match its golden"

# 5. strict mode names the first bad line
{ head -3 "$data/example-sacct.txt"; echo '1999|x|u|batch|not-a-time|2023-11-14T22:19:53|2023-11-14T22:58:29|00:38:36|02:00:00|COMPLETED|1|4|n01|x'; } > "$tmp/bad.txt"
msg=$("$bin" -c "$data/example-locality.conf" -t "$tmp/bad.txt" --strict -o "$tmp/f" 2>&1)
[ $? = 2 ] || fail "strict mode must exit 2 on a bad line"
case $msg in *bad.txt:4:*Submit*) ;; *) fail "strict error: $msg" ;; esac
"$bin" -c "$data/example-locality.conf" -t "$tmp/bad.txt" -o "$tmp/g" -q ||
	fail "without --strict a bad line is skipped"
grep -q '"bad-time": 1' "$tmp/g/summary.json" || fail "the skipped line is not counted"

# 6. --export-jobs on a small hand-written SWF trace and sacct export:
# the exact lines, --limit, --scale-to, --sacct-cpus and --round (with and
# without a machine), the skip report, and --strict's file:line
# expect NAME FORMAT WANT ARGS...: the export of ARGS is exactly WANT
# (two header lines, the second naming the columns, then the jobs)
expect() {
	name=$1 format=$2 want=$3
	shift 3
	got=$("$bin" -q --export-jobs - "$@" 2>"$tmp/err")
	rc=$?
	[ $rc = 0 ] || fail "$name: exit $rc: $(cat "$tmp/err")"
	[ "$got" = "# format $format
# id submit runtime requested nodes procs
$want" ] || fail "$name: got
$got"
}

# jobs 2 (earliest), 1, 3 (runtime 0, size from the requested procs),
# 6; 4 never started, 5 has no size, the second 1 is a duplicate
cat > "$tmp/t.swf" <<'END'
; MaxProcs: 64
; id submit wait run procs cpu mem reqprocs reqtime mem status ...
1 100 0 3600 16 -1 -1 16 7200 -1 1 1 1 1 1 1 -1 -1
2 50 0 60 4 -1 -1 4 -1 -1 1 2 2 1 1 1 -1 -1
3 100 0 0 -1 -1 -1 8 600 -1 0 1 1 1 1 1 -1 -1
4 200 10 -1 16 -1 -1 16 600 -1 5 1 1 1 1 1 -1 -1
5 300 0 100 0 -1 -1 0 600 -1 1 1 1 1 1 1 -1 -1
6 400 1 90 33 -1 -1 33 60 -1 1 3 3 1 1 1 -1 -1
1 500 0 10 2 -1 -1 2 60 -1 1 1 1 1 1 1 -1 -1
END
swf=$tmp/t.swf
expect swf swf "2 0 60 -1 4 4
1 50 3600 7200 16 16
3 50 0 600 8 8
6 350 90 60 33 33" -t "$swf"
expect swf-ppn swf "2 0 60 -1 1 4
1 50 3600 7200 4 16
3 50 0 600 2 8
6 350 90 60 9 33" -t "$swf" --procs-per-node 4
expect swf-scale-to swf "2 0 60 -1 1 4
1 50 3600 7200 2 16
3 50 0 600 1 8
6 350 90 60 5 33" -t "$swf" --scale-to 8
expect swf-limit swf "2 0 60 -1 4 4
1 50 3600 7200 16 16" -t "$swf" --limit 2
expect swf-pow2 swf "2 0 60 -1 4 4
1 50 3600 7200 16 16
3 50 0 600 8 8
6 350 90 60 64 33" -t "$swf" --round pow2
# --arrival-scale divides each time since the first submit (order kept,
# odd halves round away from zero); with --limit, the first N jobs
expect swf-arrival-2 swf "2 0 60 -1 4 4
1 25 3600 7200 16 16
3 25 0 600 8 8
6 175 90 60 33 33" -t "$swf" --arrival-scale 2
expect swf-arrival-3-limit swf "2 0 60 -1 4 4
1 17 3600 7200 16 16
3 17 0 600 8 8" -t "$swf" --arrival-scale 3 --limit 3
expect swf-arrival-half swf "2 0 60 -1 4 4
1 100 3600 7200 16 16
3 100 0 600 8 8
6 700 90 60 33 33" -t "$swf" --arrival-scale 0.5
for bad in 0 -1 abc 101; do
	"$bin" -q --export-jobs - -t "$swf" --arrival-scale $bad >/dev/null 2>&1
	[ $? = 1 ] || fail "--arrival-scale $bad must exit 1"
done
# --arrival-jitter S moves each submit by a whole number of seconds in
# [-S, S], the same draw for a seed whatever the other options: 60 jobs
# 100 s apart (no reordering at S=5), exported submits compared job by job
# (the export counts from the first submit, so shifts are compared with
# each other: they span at most 2S)
awk 'BEGIN { print "; MaxProcs: 4"; for (i = 1; i <= 60; i++)
	print i, 100 * i, 0, 50, 1, -1, -1, 1, 60, -1, 1, 1, -1, -1, -1, -1, -1, -1 }' > "$tmp/jit.swf"
jobs_of() { "$bin" -q --export-jobs - -t "$tmp/jit.swf" "$@" | grep -v '^#'; }
jobs_of > "$tmp/jit.0" || fail "--export-jobs on jit.swf exited $?"
jobs_of --arrival-jitter 0 | cmp -s - "$tmp/jit.0" || fail "--arrival-jitter 0 moved submits"
jobs_of --arrival-jitter 5 > "$tmp/jit.1" || fail "--arrival-jitter 5 exited $?"
jobs_of --arrival-jitter 5 --jitter-seed 1 | cmp -s - "$tmp/jit.1" ||
	fail "--arrival-jitter 5: the default seed is not 1, or a draw is not repeatable"
jobs_of --arrival-jitter 5 --jitter-seed 2 | cmp -s - "$tmp/jit.1" &&
	fail "--arrival-jitter 5: seeds 1 and 2 drew the same shifts"
awk 'NR == FNR { t[$1] = $2; next }
	{ d = $2 - t[$1]; n++; seen[d] = 1
	  if (n == 1 || d < lo) lo = d; if (n == 1 || d > hi) hi = d }
	END { for (d in seen) k++
	      if (n != 60 || hi - lo > 10 || k < 5) print n " jobs, shifts " lo ".." hi ", " k " distinct" }' \
	"$tmp/jit.0" "$tmp/jit.1" > "$tmp/bad"
[ -s "$tmp/bad" ] && fail "--arrival-jitter 5: $(cat "$tmp/bad")"
# jobs 1 s apart are reordered by some draw; the export stays in submit
# order, and --limit keeps the first N of the jittered order
awk 'BEGIN { print "; MaxProcs: 4"; for (i = 1; i <= 8; i++)
	print i, i, 0, 50, 1, -1, -1, 1, 60, -1, 1, 1, -1, -1, -1, -1, -1, -1 }' > "$tmp/jit2.swf"
swapped=0
for seed in 1 2 3 4 5 6 7 8; do
	"$bin" -q --export-jobs - -t "$tmp/jit2.swf" --arrival-jitter 3 --jitter-seed $seed |
		grep -v '^#' > "$tmp/j8"
	awk 'NR > 1 && $2 < p { bad = 1 } { p = $2 } END { exit bad }' "$tmp/j8" ||
		fail "--arrival-jitter 3 --jitter-seed $seed: export out of submit order"
	awk '{ print $1 }' "$tmp/j8" | tr '\n' ' ' | grep -qv '^1 2 3 4 5 6 7 8 $' && swapped=1
	"$bin" -q --export-jobs - -t "$tmp/jit2.swf" --arrival-jitter 3 --jitter-seed $seed --limit 5 |
		grep -v '^#' | awk '{ print $1 }' > "$tmp/j5"
	awk 'NR <= 5 { print $1 }' "$tmp/j8" | cmp -s - "$tmp/j5" ||
		fail "--arrival-jitter 3 --jitter-seed $seed --limit 5: not the first 5 of the jittered order"
done
[ $swapped = 1 ] || fail "--arrival-jitter 3: no seed of 8 reordered jobs 1 s apart"
for bad in -1 abc 86401 1.5; do
	"$bin" -q --export-jobs - -t "$tmp/jit.swf" --arrival-jitter $bad >/dev/null 2>&1
	[ $? = 1 ] || fail "--arrival-jitter $bad must exit 1"
done
for bad in 0 -3 abc; do
	"$bin" -q --export-jobs - -t "$tmp/jit.swf" --arrival-jitter 1 --jitter-seed $bad >/dev/null 2>&1
	[ $? = 1 ] || fail "--jitter-seed $bad must exit 1"
done
# on a 16-node machine job 6 (33 nodes) is left out
expect swf-pow2-machine swf "2 0 60 -1 4 4
1 50 3600 7200 16 16
3 50 0 600 8 8" -t "$swf" --round pow2 --grid 4x4
# boxes of a 3x3 grid: 8 nodes become 9
expect swf-box swf "2 0 60 -1 4 4
3 50 0 600 9 8" -t "$swf" --round box --grid 3x3

"$bin" --export-jobs - -t "$swf" > "$tmp/out" 2> "$tmp/err" ||
	fail "swf export exited $?"
grep -q 'skipped: no-size 1 (first at line 7) duplicate-id 1 (first at line 9) never-started 1 (first at line 6)' "$tmp/err" ||
	fail "the skip report: $(cat "$tmp/err")"
grep -q 'exported 4 jobs to stdout' "$tmp/err" ||
	fail "the export count: $(cat "$tmp/err")"
"$bin" -q --export-jobs "$tmp/file" -t "$swf" || fail "export to a file exited $?"
cmp -s "$tmp/out" "$tmp/file" || fail "--export-jobs FILE differs from -"
"$bin" --export-jobs - -t "$swf" --round box > /dev/null 2>&1
[ $? = 1 ] || fail "--round box without a machine must exit 1"
"$bin" --export-jobs - -t "$tmp/none.swf" > /dev/null 2>&1
[ $? = 2 ] || fail "a missing trace must exit 2"

# sacct: a step, a '|' inside a JobName, a pending job, UNLIMITED, a
# duplicate id; NodeList gives the node count
cat > "$tmp/t.sacct" <<'END'
JobID|JobName|User|Submit|Start|End|Timelimit|State|NNodes|NCPUS|NodeList
10|build|ann|2023-01-01T00:00:00|2023-01-01T00:01:00|2023-01-01T00:11:00|01:00:00|COMPLETED|2|8|n[1-2]
10.batch|batch|ann|2023-01-01T00:00:00|2023-01-01T00:01:00|2023-01-01T00:11:00||COMPLETED|1|4|n1
11|a|b|bob|2023-01-01T00:00:30|2023-01-01T00:00:40|2023-01-01T00:01:40|30:00|COMPLETED|1|4|n3
12|wait|ann|2023-01-01T00:02:00|Unknown|Unknown|10:00|PENDING|1|4|None assigned
13|long|cy|2023-01-01T00:03:00|2023-01-01T00:03:00|2023-01-01T02:03:00|UNLIMITED|COMPLETED|3|24|n[3-5]
10|again|ann|2023-01-01T00:04:00|2023-01-01T00:04:00|2023-01-01T00:05:00|01:00:00|COMPLETED|1|4|n1
14|big|dee|2023-01-01T00:01:00|2023-01-01T00:02:00|2023-01-01T00:12:00|1-00:00:00|TIMEOUT|5|40|n[1-5]
END
sacct=$tmp/t.sacct
expect sacct sacct "10 0 600 3600 2 8
11 30 60 1800 1 4
14 60 600 86400 5 40
13 180 7200 -1 3 24" -t "$sacct"
expect sacct-limit sacct "10 0 600 3600 2 8
11 30 60 1800 1 4
14 60 600 86400 5 40" -t "$sacct" --limit 3
expect sacct-cpus sacct "10 0 600 3600 1 8
11 30 60 1800 1 4
14 60 600 86400 3 40
13 180 7200 -1 2 24" -t "$sacct" --sacct-cpus --procs-per-node 16
expect sacct-box sacct "10 0 600 3600 2 8
11 30 60 1800 1 4
14 60 600 86400 6 40
13 180 7200 -1 3 24" -t "$sacct" --round box --grid 2x3
# sacct --format=ALL dumps begin with Account, not JobID: still sacct
awk 'BEGIN { FS = OFS = "|" } { print (NR == 1 ? "Account" : "acct"), $0 }' \
	"$sacct" > "$tmp/all.sacct"
expect sacct-account-first sacct "10 0 600 3600 2 8
11 30 60 1800 1 4" -t "$tmp/all.sacct" --limit 2
"$bin" --export-jobs - -t "$sacct" 2>&1 > /dev/null |
	grep -q 'skipped: duplicate-id 1 (first at line 7) job-step 1 (first at line 3) never-started 1 (first at line 5)' ||
	fail "sacct skip report"

# --strict: a malformed line is fatal and named; without it, skipped
{ head -4 "$swf"; echo '7 600 0 abc 4 -1 -1 4 60 -1 1 1 1 1 1 1 -1 -1'; } > "$tmp/bad.swf"
msg=$("$bin" --export-jobs - -t "$tmp/bad.swf" --strict 2>&1 > /dev/null)
[ $? = 2 ] || fail "--strict must exit 2 on a malformed SWF line"
case $msg in *bad.swf:5:*) ;; *) fail "strict SWF error: $msg" ;; esac
n=$("$bin" -q --export-jobs - -t "$tmp/bad.swf" | grep -vc '^#')
[ "$n" = 2 ] || fail "without --strict the bad line is skipped: $n jobs"
{ head -2 "$sacct"; echo '15|x|ann|not-a-time|2023-01-01T00:03:00|2023-01-01T00:04:00|10:00|COMPLETED|1|4|n1'; } > "$tmp/bad.sacct"
msg=$("$bin" --export-jobs - -t "$tmp/bad.sacct" --strict 2>&1 > /dev/null)
[ $? = 2 ] || fail "--strict must exit 2 on a malformed sacct line"
case $msg in *bad.sacct:3:*Submit*) ;; *) fail "strict sacct error: $msg" ;; esac

# x_ideal: jobs of 4 nodes one after another on an idle 4x4 mesh, so
# each placement is an idle machine's. box takes a 2x2 square, the ideal
# (8 hops over 6 pairs): 1. freelist on the row-major curve takes a row
# of 4 (10 hops): 10/8 = 1.25. A single-node job does not count.
awk 'BEGIN { for (i = 1; i <= 6; i++)
	printf "%d %d 0 100 %d -1 -1 %d 200 -1 1 1 1 1 1 1 -1 -1\n",
		i, i * 1000, i == 3 ? 1 : 4, i == 3 ? 1 : 4 }' > "$tmp/ideal.swf"
"$bin" --grid 4x4 -t "$tmp/ideal.swf" -s box,freelist/rowmajor -w none \
	--no-svg -q --no-progress -o "$tmp/ideal" || fail "x_ideal replay exited $?"
for want in "box 1.000000" "freelist/rowmajor 1.250000"; do
	set -- $want
	got=$(awk -v row="\"$1\": {" 'index($0, row) { f = 1 }
		f && /"hops_x_ideal"/ { gsub(/[",]/, "", $2); print $2; exit }' \
		"$tmp/ideal/summary.json")
	[ "$got" = "$2" ] || fail "x_ideal of $1: $got, want $2"
done

# Without --strategies and --walltime, the row is the configuration's
# policy: its Strategy and WalltimeAware; under --plugin topology the
# mode topology/locality places with (pf as none, combo as sl).
for case in "sl - pack+sl" "combo - pack+combo" "pf topology pack" \
	"combo topology pack+sl" "none topology pack"; do
	set -- $case
	{ grep -v '^Strategy=\|^WalltimeAware=' "$data/example-locality.conf"
		printf 'Strategy=pack\nWalltimeAware=%s\n' "$1"; } > "$tmp/wt.conf"
	plug=""
	[ "$2" = - ] || plug="--plugin $2"
	# shellcheck disable=SC2086 # plug is two words or none
	"$bin" -c "$tmp/wt.conf" -t "$data/example-sacct.txt" $plug \
		--no-recorded --no-svg -q --no-progress -o "$tmp/wt" ||
		fail "WalltimeAware=$1 $plug: replay exited $?"
	got=$(ls "$tmp/wt" | sed -n 's/\.csv$//p' | grep -v rejected | paste -sd, -)
	[ "$got" = "$3" ] ||
		fail "WalltimeAware=$1 $plug: the default row is '$got', want $3"
	rm -rf "$tmp/wt"
done

[ $fails = 0 ] && echo "check-outputs: all checks passed"
[ $fails = 0 ]
