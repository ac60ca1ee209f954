#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/replay-vs-live.py: a live run's jobs beside their replayed twins,
# by job size, on records whose waits and hops are known; a live job with
# no twin is named; input it cannot read is one line naming file and
# line, exit 2.
SCRIPT=replay-vs-live.py
. "${srcdir:-.}/testsuite/bench/lib.sh"

rec() { # name nodes submit_s start_s
	echo "JobId=$((${1#j} + 100)) Name=$1 JobState=COMPLETED NodeCnt=$2 SubmitTime=2026-12-02T00:00:$3 StartTime=2026-12-02T00:00:$4 NodeList=n001"
}
# Live: j1 (1 node) waits 4 s, j2 and j3 (2 and 3 nodes) 2 and 6 s with
# 1.0 and 2.0 hops, j7 (20 nodes) 10 s with 3.5 hops, j9 has no twin.
{
	rec j1 1 00 04
	rec j2 2 01 03
	rec j3 3 02 08
	rec j7 20 03 13
	rec j9 2 04 05
} >"$tmp/run.jobcomp"
printf 'j1 101\nj2 102\nj3 103\nj7 107\nj9 109\n' >"$tmp/run.ids"
{
	echo "job           k avg_hops  span  bbox comps  nodes"
	echo "102           2    1.000     2     2     1  n[001-002]"
	echo "103           3    2.000     3     3     1  n[001-003]"
	echo "107          20    3.500    20    20     1  n[001-020]"
	echo "109           2    1.000     2     2     1  n[001-002]"
	echo "multinode=4 mean_hops=1.875"
} >"$tmp/run.eval"
# Replayed: waits 0, 2, 2 and 20 s; hops 1.0, 1.0 and 2.5.
{
	echo "job_id,submit,start,end,requested_nodes,nodes,mean_pairwise_hops,span,bbox_volume,dispersal,components"
	echo "1,0,0,5,1,0,0.000000,1,1,0,1"
	echo "2,1,3,5,2,0;1,1.000000,2,2,0,1"
	echo "3,2,4,9,3,0;1;2,1.000000,3,3,0,1"
	echo "7,3,23,30,20,0,2.500000,20,20,0,1"
} >"$tmp/row.csv"
want="nodes   jobs  wait_live  wait_replay  hops_live  hops_replay
1          1      4.000        0.000          -            -
2-4        2      4.000        2.000      1.500        1.000
17+        1     10.000       20.000      3.500        2.500
all        4      5.500        6.000      2.167        1.500
1 live jobs have no replayed twin: j9"
check "known jobs by size" "$($tool "$tmp/run" "$tmp/row.csv" 2>&1)" "$want"

# bad input: one line naming file and line, exit 2
bad() { # NAME FILE-THAT-BREAKS WANT-PREFIX
	out=$($tool "$tmp/bad" "$tmp/bad.csv" 2>&1)
	rc=$?
	if [ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		case $out in "replay-vs-live.py: $2"*) true ;; *) false ;; esac; then
		echo "ok: $1: $out"
	else
		echo "FAIL: $1: exit $rc, '$out' (want replay-vs-live.py: $2...)"
		fails=$((fails + 1))
	fi
}
fresh() {
	for f in jobcomp ids eval; do cp "$tmp/run.$f" "$tmp/bad.$f"; done
	cp "$tmp/row.csv" "$tmp/bad.csv"
}
fresh; sed -i '3s/StartTime=[^ ]*/StartTime=soon/' "$tmp/bad.jobcomp"
bad "a start that is not a time" "$tmp/bad.jobcomp:3: 'soon'"
fresh; sed -i '2s/Name=j2/Name=second/' "$tmp/bad.jobcomp"
bad "a job name that is not jN" "$tmp/bad.jobcomp:2: job name"
fresh; echo "j4" >>"$tmp/bad.ids"
bad "an ids line without a job id" "$tmp/bad.ids:6: not 'jN JOBID'"
fresh; sed -i '3s/2.000/two/' "$tmp/bad.eval"
bad "hops that are not a number" "$tmp/bad.eval:3: avg_hops 'two'"
fresh; sed -i '1s/start,/begin,/' "$tmp/bad.csv"
bad "a CSV without a start column" "$tmp/bad.csv:1: not a locality-replay row CSV"
fresh; sed -i '3s/^2,1,3/2,1,x/' "$tmp/bad.csv"
bad "a start that is not a number" "$tmp/bad.csv:3: job_id, submit"
fresh; rm "$tmp/bad.eval"
bad "a missing file" "$tmp/bad.eval: No such file"
[ $fails = 0 ]
