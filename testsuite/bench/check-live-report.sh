#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/live_report.py --medians (bench/live-topo.sh --repeat): rows that
# share a name are rounds; each figure is the median over them with its
# range, and the ratios are taken round by round to the first row, not
# between medians. Rounds of unequal count are one line, exit 2.
SCRIPT=live_report.py
. "${srcdir:-.}/testsuite/bench/lib.sh"

# run NAME HOPS WAIT [UNSTARTED]: a row's records: j1 on 2 nodes with HOPS
# mean pairwise hops waits WAIT s, j2 on 1 node starts at once (so the
# row's mean wait is WAIT/2); UNSTARTED adds a submitted job, j3, that
# never started.
run() {
	t=2026-12-02T00:00
	printf 'JobId=101 Name=j1 JobState=COMPLETED NodeCnt=2 SubmitTime=%s:00 StartTime=%s:%02d EndTime=%s:50 NodeList=n[001-002]\n' \
		$t $t "$3" $t >"$tmp/$1.jobcomp"
	printf 'JobId=102 Name=j2 JobState=COMPLETED NodeCnt=1 SubmitTime=%s:00 StartTime=%s:00 EndTime=%s:50 NodeList=n003\n' \
		$t $t $t >>"$tmp/$1.jobcomp"
	printf 'job k avg_hops\n101 2 %s\n102 1 0.000\n' "$2" >"$tmp/$1.eval"
	printf 'j1 101\nj2 102\n' >"$tmp/$1.ids"
	[ -z "${4:-}" ] || echo "j3 103" >>"$tmp/$1.ids"
}
echo "2 1.0" >"$tmp/ideal"
# Three rounds of A (the control) and B. Medians of the ratios differ
# from ratios of the medians: B's wait is 1.0 s against A's 2.0 s in
# median, but 0.5, 1.5 and 1.0 of A's round by round.
run a1 2.0 4; run b1 1.0 2
run a2 2.0 8; run b2 1.5 12 unstarted
run a3 4.0 2; run b3 1.0 2
args() { # ROUNDS
	for r in $(seq 1 "$1"); do
		for row in a b; do
			echo "--run $row $tmp/$row$r.jobcomp $tmp/$row$r.eval $tmp/$row$r.ids"
		done
	done
}
want="t (live): medians of 3 rounds (min-max)
row                        hops                  x_first               x_ideal               wait               wait_x             nodes unstarted
a                          2.000 (2.000-4.000)   1.000 (1.000-1.000)   2.000 (2.000-4.000)   2.0 (1.0-4.0)      1.00 (1.00-1.00)    1.50         0
b                          1.000 (1.000-1.500)   0.500 (0.250-0.750)   1.000 (1.000-1.500)   1.0 (1.0-6.0)      1.00 (0.50-1.50)    1.50         1"
# shellcheck disable=SC2046 # one word per argument
check "medians over rounds, ratios round by round" \
	"$($tool --ideal "$tmp/ideal" --title t --medians $(args 3) 2>&1)" "$want"

# One round: the median is the figure, with no range.
want="t (live): medians of 1 rounds (min-max)
row                        hops                  x_first               x_ideal               wait               wait_x             nodes unstarted
a                          2.000                 1.000                 2.000                 2.0                1.00                1.50         0
b                          1.000                 0.500                 1.000                 1.0                0.50                1.50         0"
# shellcheck disable=SC2046
check "one round" \
	"$($tool --ideal "$tmp/ideal" --title t --medians $(args 1) 2>&1)" "$want"

# No ideal known for a size: x_ideal is "-", not a median of NaNs.
: >"$tmp/no-ideal"
# shellcheck disable=SC2046
check "no ideal" "$($tool --ideal "$tmp/no-ideal" --title t --medians $(args 3) 2>&1 |
	awk 'NR > 2 { print $1, $6 }')" "a -
b -"

# A row with fewer rounds than another: one line, exit 2.
# shellcheck disable=SC2046
out=$($tool --ideal "$tmp/ideal" --title t --medians $(args 3) \
	--run c "$tmp/a1.jobcomp" "$tmp/a1.eval" "$tmp/a1.ids" 2>&1)
rc=$?
check "unequal rounds" "$rc: $out" \
	"2: live_report.py: --medians: the rows have unequal round counts (a 3, b 3, c 1)"
[ $fails = 0 ]
