#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# locality-replay end to end on the bundled example (no ../shared needed):
# byte-identical outputs for identical inputs (also across thread counts),
# the CSV columns, wait and bounded slowdown recomputed from the CSV with
# awk, the exit statuses of the man page, and strict mode's line numbers.
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

[ $fails = 0 ] && echo "check-outputs: all checks passed"
[ $fails = 0 ]
