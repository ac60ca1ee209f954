# SPDX-License-Identifier: GPL-2.0-or-later
#
# case-g.sh - case g: nodes slow to complete a job (an Epilog that sleeps).
# Sourced by fault-tests.sh, which sets the options and globals it reads.
#
# A long job holds all but twelve nodes: a 2x4 block (n[033-036,041-044],
# rows 4-5) where a one-second job runs, and four nodes apart from it
# (n[037,040,045,048]). When the short job ends its block stays
# COMPLETING for the Epilog's 15 s (long enough for the queries and
# the start below on a slow machine): the most compact set on the machine,
# but not one a job can start on now (RUN_NOW does not take it, and
# sched/backfill moves a job planned on it a second on and reserves its
# nodes meanwhile).

G_EPILOG_S=15
G_LONG="n[001-032,038-039,046-047,049-064]"
G_SHORT="n[033-036,041-044]"
G_SETTLED="n[037,040,045,048]"

# g_test_only K - sbatch --test-only -N K; prints "START NODES" (START in
# seconds since the epoch) or the answer as it came.
g_test_only() {
	local ans start nodes
	ans=$(sbatch --test-only -N"$1" -t 5 --wrap true 2>&1)
	start=$(sed -n 's/.* to start at \([^ ]*\) using .*/\1/p' <<<"$ans")
	nodes=$(sed -n 's/.* on nodes \([^ ]*\) in partition .*/\1/p' <<<"$ans")
	if [ -n "$start" ] && [ -n "$nodes" ]; then
		echo "$(date -d "$start" +%s) $nodes"
	else
		echo "$ans"
	fi
}

# g_completing - how many of the short job's nodes are COMPLETING.
g_completing() {
	sinfo -h -N -n "$G_SHORT" -o %T 2>/dev/null | grep -c '^completing'
}

case_g() {
	local sel=$1 n1 n2 bad1="" bad2="" epi long short t0 a4 a12 k id st
	SEL=$sel CASE="g ($sel)"
	n1="g ($sel): nodes completing a job (Epilog ${G_EPILOG_S} s): WILL_RUN (sbatch --test-only) plans a 4-node job now on settled nodes, a 12-node job for once the completing ones settle"
	n2="g ($sel): a 4-node job submitted while they complete starts at once, on settled nodes"
	epi=$RUNROOT/epilog-slow.sh
	printf '#!/bin/sh\nsleep %d\nexit 0\n' "$G_EPILOG_S" >"$epi"
	chmod 755 "$epi"
	if ! start_cluster "g-$sel" "$sel" "$LCONF_MM" "Epilog=$epi"; then
		not_ok "$n1" "cluster did not start"
		not_ok "$n2" "cluster did not start"
		return
	fi
	long=$(sub -N52 -w "$G_LONG" -t 10 600)
	short=$(sub -N8 -w "$G_SHORT" -t 5 1)
	wait_state "$long" RUNNING 30 || bad1="the long job did not start"
	for _ in $(seq 120); do
		case $(job_field "$short" JobState) in COMPLETING | COMPLETED) break ;; esac
		sleep 0.25
	done
	# Until the block shows COMPLETING (slurmd reports the job's end).
	for _ in $(seq 20); do
		[ "$(g_completing)" -ge 8 ] && break
		sleep 0.25
	done
	[ "$(g_completing)" -ge 8 ] ||
		bad1="${bad1:+$bad1; }the short job's nodes were not COMPLETING ($(sinfo -h -N -n "$G_SHORT" -o '%N %T' | paste -sd' ' -)): the case proves nothing"
	if [ -z "$bad1" ]; then
		t0=$(date +%s)
		a4=$(g_test_only 4)
		a12=$(g_test_only 12)
		k=$(g_completing)
		note "g ($sel): -N4 -> $a4; -N12 -> $a12 (t0 $t0, $k of 8 still completing)"
		[ "$k" -ge 8 ] ||
			bad1="the block settled during the queries ($k of 8 still completing): the case proves nothing"
	fi
	if [ -z "$bad1" ] && [ "$sel" = locality ]; then
		set -- $a4
		if [ $# -ne 2 ] || [ "$1" -gt $((t0 + 1)) ] ||
			[ "$(expand "$2")" != "$(expand "$G_SETTLED")" ]; then
			bad1="-N4: wanted now on $G_SETTLED, got: $a4"
		fi
		set -- $a12
		if [ $# -ne 2 ] || [ "$1" -lt $((t0 + 1)) ] ||
			[ "$(expand "$2")" != "$(expand "n[033-037,040-045,048]")" ]; then
			bad1="${bad1:+$bad1; }-N12: wanted n[033-037,040-045,048] a second on or later, got: $a12"
		fi
	fi
	if [ -z "$bad1" ]; then
		id=$(sub -N4 -t 5 2)
		wait_state "$id" RUNNING $((G_EPILOG_S - 2)) ||
			wait_state "$id" COMPLETED 1 ||
			bad2="the 4-node job did not start while the block completed ($(job_field "$id" JobState))"
		st=$(job_field "$id" NodeList)
		note "g ($sel): the 4-node job ran on $st"
		[ -z "$bad2" ] && [ "$(expand "$st")" != "$(expand "$G_SETTLED")" ] &&
			bad2="it ran on $st, not $G_SETTLED"
	else
		bad2="not run: $bad1"
	fi
	if [ "$sel" = linear ]; then
		# The control: what select/linear plans, for the figures only.
		fig g "select/$sel: -N4 -> ${a4:-?}; -N12 -> ${a12:-?}"
		result "$n2" "$bad2"
		stop_cluster
		return
	fi
	fig g "select/$sel: -N4 -> ${a4:-?}; -N12 -> ${a12:-?}"
	bad1="$bad1$(plugin_errors)"
	result "$n1" "$bad1"
	result "$n2" "$bad2"
	stop_cluster
}
