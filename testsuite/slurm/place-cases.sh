#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# place-cases.sh - run-tests.sh's cases about where jobs land and what
# survives: placement against the core (a), DOWN and DRAINed nodes (c),
# --nodelist, --exclude and --contiguous (d), backfill (e), reservations
# (i) and slurmctld kill -9 (f), on the select/locality (Strategy=mm)
# cluster. Sourced by run-tests.sh, whose helpers and variables they use.

# a: placement equals the core's choice for the same state.
case_a() {
	local name="a: sbatch jobs of mixed sizes land on the nodes the core chooses"
	if [ -z "$EVAL" ]; then not_ok "$name" "locality-eval not built"; return; fi
	local holders="n002 n011 n020 n029 n038 n047 n056" h id bad="" ids=()
	local busy="n[033-036]"
	id=$(sub -N4 -w "n[033-036]" -t 30 600)
	ids+=("$id")
	for h in $holders; do
		id=$(sub -N1 -w "$h" -t 30 600)
		ids+=("$id")
		busy="$busy,$h"
	done
	for id in "${ids[@]}"; do
		wait_state "$id" RUNNING 20 || bad="holder job $id did not start"
	done
	local k pred got n=0
	for k in 5 3 8 2 12 1 7 6; do
		[ -n "$bad" ] && break
		pred=$("$EVAL" --conf "$LCONF_MM" --nodes "$ALLNODES" --predict \
			--busy "$busy" -k "$k" 2>&1) || {
			bad="locality-eval --predict -k $k failed: $pred"
			break
		}
		id=$(sub -N"$k" -t 30 600)
		if ! wait_state "$id" RUNNING 20; then
			bad="job $id (-N$k) did not start: $(job_field "$id" Reason)"
			break
		fi
		got=$(job_nodes "$id")
		if [ "$(expand "$pred")" != "$(expand "$got")" ]; then
			bad="-N$k got $got, core predicts $pred (busy $busy)"
			break
		fi
		n=$((n + 1))
		note "a: -N$k -> $got (as predicted)"
		busy="$busy,$got"
	done
	cancel_all
	result "$name" "$bad"
}

# c: DOWN and DRAINed nodes are never allocated.
case_c() {
	local down=n005 drain=n010 bad_down="" bad_drain="" id ids=() k nl st
	scontrol update nodename=$down state=down reason=test >/dev/null 2>&1
	scontrol update nodename=$drain state=drain reason=test >/dev/null 2>&1
	sleep 1
	# 62 usable nodes: three jobs take them all, a fourth must wait.
	for k in 20 20 22; do
		ids+=("$(sub -N"$k" -t 10 600)")
	done
	for id in "${ids[@]}"; do
		if ! wait_state "$id" RUNNING 20; then
			bad_down="job $id did not start ($(job_field "$id" Reason))"
			bad_drain=$bad_down
		fi
		nl=$(job_nodes "$id")
		has_node "$nl" $down && bad_down="job $id got $down ($nl)"
		has_node "$nl" $drain && bad_drain="job $id got $drain ($nl)"
	done
	id=$(sub -N1 -t 10 600)
	sleep 4
	if [ "$(job_state "$id")" != PENDING ]; then
		nl=$(job_nodes "$id")
		bad_down="a job started with no usable node free: $id on $nl"
		bad_drain=$bad_down
	fi
	# The check means something only if the nodes stayed out of service.
	st=$(sinfo -h -n $down -o %t)
	case $st in down*) ;; *) bad_down="$down left DOWN during the case ($st)" ;; esac
	st=$(sinfo -h -n $drain -o %t)
	case $st in drain* | drng*) ;; *) bad_drain="$drain left DRAIN during the case ($st)" ;; esac
	cancel_all
	scontrol update nodename=$down state=resume >/dev/null 2>&1
	scontrol update nodename=$drain state=resume >/dev/null 2>&1
	wait_all_idle 30
	result "c: a DOWN node ($down) is never allocated" "$bad_down"
	result "c: a DRAINed node ($drain) is never allocated" "$bad_drain"
}

# d: --nodelist, --exclude, --contiguous.
case_d() {
	local bad="" id nl exp
	# --nodelist: required nodes plus one the plugin picks.
	id=$(sub -N4 -w "n[020,030,040]" -t 10 600)
	if wait_state "$id" RUNNING 20; then
		nl=$(job_nodes "$id")
		for exp in n020 n030 n040; do
			has_node "$nl" $exp || bad="-w n[020,030,040] -N4 got $nl"
		done
		[ "$(count_nodes "$nl")" = 4 ] || bad="-N4 got $nl"
	else
		bad="job $id did not start: $(job_field "$id" Reason)"
	fi
	id=$(sub -N2 -w "n001,n064" -t 10 600)
	if wait_state "$id" RUNNING 20; then
		nl=$(job_nodes "$id")
		[ "$(expand "$nl")" = "n001,n064" ] || bad="-w n001,n064 got $nl"
	else
		bad="job $id did not start: $(job_field "$id" Reason)"
	fi
	cancel_all
	result "d: --nodelist honoured" "$bad"

	bad=""
	id=$(sub -N8 -x "n[001-032]" -t 10 600)
	if wait_state "$id" RUNNING 20; then
		nl=$(job_nodes "$id")
		for exp in $(expand "$nl" | tr ',' ' '); do
			[ "$((10#${exp#n}))" -gt 32 ] || bad="-x n[001-032] got $nl"
		done
	else
		bad="job $id did not start: $(job_field "$id" Reason)"
	fi
	id=$(sub -N56 -x "n[001-008]" -t 10 600)
	if wait_state "$id" RUNNING 5; then
		bad="-N56 -x n[001-008] started with 8 of those nodes busy: $(job_nodes "$id")"
	fi
	cancel_all
	id=$(sub -N60 -x "n[001-004]" -t 10 600)
	if wait_state "$id" RUNNING 20; then
		nl=$(job_nodes "$id")
		[ "$(expand "$nl")" = "$(expand "n[005-064]")" ] ||
			bad="-N60 -x n[001-004] got $nl"
	else
		bad="job $id did not start: $(job_field "$id" Reason)"
	fi
	cancel_all
	result "d: --exclude honoured" "$bad"

	# --contiguous in a fragmented machine: the node set must be an
	# unbroken interval of the configured curve or a full box.
	bad=""
	local h ids=()
	for h in 001 003 006 010 013 015 017 020 023 028 031 036 041 044; do
		ids+=("$(sub -N1 -w "n$h" -t 10 600)")
	done
	for id in "${ids[@]}"; do
		wait_state "$id" RUNNING 20 || bad="holder $id did not start"
	done
	local k span bbox line
	for k in 4 8 6; do
		[ -n "$bad" ] && break
		id=$(sub -N"$k" --contiguous -t 10 600)
		if ! wait_state "$id" RUNNING 20; then
			bad="--contiguous -N$k did not start: $(job_field "$id" Reason)"
			break
		fi
		nl=$(job_nodes "$id")
		if [ -n "$EVAL" ]; then
			line=$(echo "x $nl" | "$EVAL" --conf "$LCONF_MM" \
				--nodes "$ALLNODES" | awk '$1 == "x"')
			span=$(echo "$line" | awk '{print $4}')
			bbox=$(echo "$line" | awk '{print $5}')
			if [ "$span" != "$k" ] && [ "$bbox" != "$k" ] &&
				! { [ "$SUT" = linear ] && [ "$(count_nodes "$nl")" = "$k" ] &&
					[ "$(scontrol show hostnames "$nl" | wc -l)" = "$k" ] &&
					consecutive "$nl"; }; then
				bad="--contiguous -N$k got $nl: curve span $span, box $bbox"
			fi
			note "d: --contiguous -N$k -> $nl (span $span, bbox $bbox)"
		else
			bad="locality-eval not built (cannot check contiguity)"
		fi
	done
	cancel_all
	result "d: --contiguous honoured" "$bad"
}

# Node numbers of $1 are consecutive (Slurm's own meaning, for linear).
consecutive() {
	scontrol show hostnames "$1" | sed 's/^n0*//' | sort -n |
		awk 'NR > 1 && $1 != p + 1 { bad = 1 } { p = $1 } END { exit bad }'
}

# e: backfill through WILL_RUN.
case_e() {
	local bad="" busy big small long st
	busy=$(sub -N60 -t 2 600)
	wait_state "$busy" RUNNING 20 || bad="60-node job did not start"
	big=$(sub -N64 -t 5 5)
	sleep 1
	small=$(sub -N2 -t 1 5)
	long=$(sub -N2 -t 30 5)
	if [ -z "$bad" ]; then
		if wait_state "$small" RUNNING 15; then
			st=$(job_state "$big")
			[ "$st" = PENDING ] || bad="64-node job is $st, expected PENDING"
			# Started by sched/backfill, so through WILL_RUN, not by
			# the main scheduler.
			[ "$(job_field "$small" Scheduler)" = Backfill ] ||
				bad="the 2-node job was started by the $(job_field "$small" Scheduler) scheduler, not backfill"
			sleep 3
			st=$(job_state "$long")
			[ "$st" = PENDING ] ||
				bad="a 30-minute job jumped ahead of the waiting 64-node job ($st)"
		else
			bad="2-node 1-minute job did not backfill ($(job_state "$small"), $(job_field "$small" Reason))"
		fi
	fi
	cancel_all
	result "e: a lower-priority job backfills when it fits (WILL_RUN)" "$bad"
}

# i: a reservation by node count, placed by the plugin.
case_i() {
	local name="i: a reservation of 6 nodes gets the nodes the core picks; a job in it runs there"
	local busy="" h id bad="" pred="" got nl
	for h in n002 n011 n020 n029 n038; do
		id=$(sub -N1 -w "$h" -t 30 600)
		wait_state "$id" RUNNING 20 || bad="holder job on $h did not start"
		busy="${busy:+$busy,}$h"
	done
	if [ -z "$bad" ] && [ "$SUT" = locality ]; then
		pred=$("$EVAL" --conf "$LCONF_MM" --nodes "$ALLNODES" --predict \
			--busy "$busy" -k 6 2>&1) || bad="locality-eval --predict failed: $pred"
		# No prediction, no comparison: a failure, not a skip.
		[ -n "$bad" ] || [ -n "$pred" ] || bad="locality-eval --predict printed no nodes"
	fi
	if [ -z "$bad" ]; then
		scontrol create reservation ReservationName=loc_i StartTime=now \
			Duration=10 NodeCnt=6 Users=root >"$RUNROOT/i.create" 2>&1 ||
			bad="scontrol create reservation failed: $(head -n 1 "$RUNROOT/i.create")"
	fi
	if [ -z "$bad" ]; then
		got=$(scontrol -o show reservation loc_i | tr ' ' '\n' |
			sed -n 's/^Nodes=//p')
		note "i: reservation loc_i -> $got${pred:+ (core: $pred)}"
		if [ "$SUT" = locality ] && [ "$(expand "$pred")" != "$(expand "$got")" ]; then
			bad="the reservation got $got, the core picks $pred (busy $busy)"
		fi
	fi
	if [ -z "$bad" ]; then
		id=$(sub -N6 --reservation=loc_i -t 5 600)
		if ! wait_state "$id" RUNNING 20; then
			bad="job $id in the reservation did not start: $(job_field "$id" Reason)"
		else
			nl=$(job_nodes "$id")
			[ "$(expand "$nl")" = "$(expand "$got")" ] ||
				bad="the job in reservation loc_i ($got) ran on $nl"
		fi
	fi
	cancel_all
	scontrol delete reservation=loc_i >/dev/null 2>&1
	result "$name" "$bad"
}

# f: kill -9 of slurmctld with running jobs.
case_f() {
	local bad_lost="" bad_double="" ids=() id k n
	local idfile=$RUNROOT/f.ids
	: >"$idfile"
	for k in 6 10 3 12 8 4 9 2 7 5 16 11 1 13; do
		id=$(sub -N"$k" -t 5 $((25 + k % 7)))
		echo "f$k $id" >>"$idfile"
		ids+=("$id")
	done
	# Let the first jobs start, then kill slurmctld without warning while
	# they run, with no start or end since its last state save: Slurm's
	# own state-save window would otherwise fail a job started just
	# before the kill, or leave one that ended then running for minutes
	# in the restarted slurmctld. So the pending jobs are held (and run
	# after the restart), and the kill, 14 s in, comes well before the
	# first end (25 s).
	sleep 3
	hold_pending
	n=$(squeue -h -t R -o %i | wc -l)
	note "f: $n jobs running, $((${#ids[@]} - n)) waiting at kill -9"
	if ! "$CLUSTER" restart-ctld --dir "$CURRENT" --kill9 >"$RUNROOT/f.restart.log" 2>&1; then
		bad_lost="slurmctld did not come back: $(tail -n 3 "$RUNROOT/f.restart.log" | tr '\n' ' ')"
		bad_double=$bad_lost
	elif ! release_held || ! "$WORKLOAD" wait "$idfile" 150; then
		bad_lost="jobs still queued 150 s after the restart"
	fi
	if [ -z "$bad_lost" ]; then
		for id in "${ids[@]}"; do
			if ! grep -q "^JobId=$id .*JobState=COMPLETED" "$CURRENT/jobcomp.txt"; then
				bad_lost="job $id has no COMPLETED jobcomp record ($(job_state "$id"))"
				break
			fi
		done
	fi
	if [ -z "$bad_double" ]; then
		if [ -z "$EVAL" ]; then
			bad_double="locality-eval not built (overlap checker)"
		elif ! "$EVAL" --check-overlap --jobcomp "$CURRENT/jobcomp.txt" \
			>"$RUNROOT/f.overlap" 2>&1; then
			bad_double=$(head -n 2 "$RUNROOT/f.overlap" | tr '\n' ' ')
		else
			note "f: $(tail -n 1 "$RUNROOT/f.overlap")"
		fi
	fi
	result "f: kill -9 + restart of slurmctld: every job completes" "$bad_lost"
	result "f: kill -9 + restart of slurmctld: no node in two jobs at once" "$bad_double"
}
