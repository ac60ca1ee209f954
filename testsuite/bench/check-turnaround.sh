#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/turnaround.py: a node's turnaround (a waiting job's start less
# the last end on its nodes) on records whose gaps are known, and one
# line naming file and line, exit 2, on NodeLists it cannot read.
SCRIPT=turnaround.py
. "${srcdir:-.}/testsuite/bench/lib.sh"

rec() { # id submit start end nodelist
	echo "JobId=$1 Name=j$1 JobState=COMPLETED StartTime=2026-12-02T00:00:$3 EndTime=2026-12-02T00:00:$4 NodeList=$5 NodeCnt=2 SubmitTime=2026-12-02T00:00:$2"
}
# Job 3 waited for n002 (job 1 ended at 10): 1 s; job 4 waited for
# n[003-004] (job 2 ended at 12): 3 s; job 5 started at its submit and
# job 6 waited on nodes no job had used: neither counts.
{
	rec 1 00 00 10 'n[001-002]'
	rec 2 00 00 12 'n[003-004]'
	rec 3 01 11 20 'n[002,005]'
	rec 4 02 15 20 'n[003-004]'
	rec 5 16 16 19 'n001'
	rec 6 03 17 19 'm[01-02]'
} >"$tmp/jc"
out=$($tool "$tmp/jc" 2>&1)
want="turnaround: 2 of 6 jobs waited for nodes; start less the last end on their nodes: mean 2.00 s, median 1 s, p90 3 s"
if [ "$out" = "$want" ]; then
	echo "ok: known gaps: $out"
else
	echo "FAIL: known gaps: got '$out', want '$want'"
	fails=$((fails + 1))
fi

for bad in 'n[001-002' 'n[003-001]' 'n[1-x]' 'n[1]-[2]'; do
	{ rec 1 00 00 10 'n001'; rec 2 00 05 10 "$bad"; } >"$tmp/bad"
	out=$($tool "$tmp/bad" 2>&1)
	rc=$?
	if [ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		echo "$out" | grep -q "^turnaround.py: $tmp/bad:2: "; then
		echo "ok: NodeList '$bad': $out"
	else
		echo "FAIL: NodeList '$bad': exit $rc, '$out'"
		fails=$((fails + 1))
	fi
done
[ $fails = 0 ]
