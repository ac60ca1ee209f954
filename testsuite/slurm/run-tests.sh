#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-tests.sh - integration tests of select/locality against real
# daemons: one slurmctld and 64 slurmd on this machine (an 8x8 torus).
#
#   run-tests.sh [BUILDDIR] [--plugin-dir DIR] [--rundir DIR] [--keep]
#                [--only LIST] [--harness-check] [--shape SHAPE]
#
# BUILDDIR is the project's (out-of-tree) build directory; by default the
# first of $LOC_BUILD_DIR, <repo>/build and the current directory that
# holds src/tools/locality-eval. The plugin is taken from
# BUILDDIR/src/plugins/select/locality/.libs unless --plugin-dir is given.
# --only a,c,g runs a subset of the cases (letters as below).
# --harness-check runs the plugin cases against select/linear instead, to
# check this script itself; such a run proves nothing about the plugin.
# --shape writes slurm.conf in another shape (cluster.sh --shape: single,
# the default, per-node and per-row keep every case's meaning;
# shape-tests.sh covers weights, features and partitions).
#
# Cases (each prints "ok N - name" or "not ok N - name"; the last line is
# "N passed, N failed"; the exit status is non-zero on any failure):
#   a  jobs of mixed sizes land where the core (locality-eval --predict)
#      would put them in the same state
#   b  after a fragmenting sequence, mean pairwise hops under
#      select/locality (mm, and bestfit on Hilbert) < select/linear
#   c  DOWN and DRAINed nodes are never allocated
#   d  --nodelist, --exclude and --contiguous are honoured
#   e  a lower-priority job backfills when it fits (WILL_RUN), a longer one
#      does not jump the queue
#   f  kill -9 of slurmctld with running jobs: all jobs complete, no node
#      in two jobs at once (jobcomp records)
#   g  a broken locality.conf stops slurmctld naming file and line; so does
#      a node slurm.conf lacks
#   h  CompactWait: a job waits for a compact set, takes it when it frees
#      up, and takes the best set there is at its deadline
#   i  a reservation of N nodes gets the nodes the core picks (22.05 asks
#      the plugin through resv_test, 24.11 through job_test), and a job
#      in it runs on them
#   p  WILL_RUN (sbatch --test-only) answers with the core planner's start
#      and nodes (locality-eval --plan) for the same running jobs
#   k  WalltimeAware=pf: a starting job's partner gets an idle region held,
#      which a job of lower priority keeps off; with PlanHold=released a
#      later start holds released nodes, not the PF-held idle ones
# Uses ports 6817 and 17001-17064. Daemons are stopped by PID on exit.

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
WORKLOAD=$HERE/workload.sh
CLUSTER_DEBUG=debug

BUILD="" PLUGDIR="" RUNROOT="" KEEP=0 ONLY="" HARNESS=0
while [ $# -gt 0 ]; do
	case $1 in
	--plugin-dir) PLUGDIR=$2; shift 2 ;;
	--rundir) RUNROOT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--only) ONLY=$2; shift 2 ;;
	--harness-check) HARNESS=1; shift ;;
	--shape) CLUSTER_SHAPE=$2; shift 2 ;;
	-h | --help) sed -n '4,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done

SUITE=integration
lib_init loc-itest

# --- cluster and job helpers --------------------------------------------

job_state() {
	job_field "$1" JobState
}

job_nodes() {
	job_field "$1" NodeList
}

cancel_all() {
	scancel --quiet --user=root >/dev/null 2>&1
	for _ in $(seq 60); do
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
		sleep 0.5
	done
	wait_all_idle 30
}

count_nodes() {
	expand "$1" | tr ',' '\n' | grep -c .
}

# Mean pairwise hops of multi-node jobs in a jobcomp file.
mean_hops() {
	"$EVAL" --conf "$LCONF_MM" --nodes "$ALLNODES" --jobcomp "$1" --quiet |
		sed -n 's/.*mean_avg_hops=\([0-9.]*\).*/\1/p'
}

# --- the machine models -------------------------------------------------

LCONF_MM=$RUNROOT/locality-mm.conf
LCONF_BF=$RUNROOT/locality-bestfit.conf
cat >"$LCONF_MM" <<'EOF'
# 64 nodes n001..n064 fill an 8x8 torus row-major, in slurm.conf order.
Dimensions=8x8
Torus=yes
Strategy=mm
Curve=hilbert
# The mm cluster's other partitions, over the same nodes (cases p, k).
PartitionName=hold PlanHold=released
PartitionName=pfp WalltimeAware=pf PlanHold=released
EOF
sed 's/^Strategy=mm$/Strategy=bestfit/' "$LCONF_MM" >"$LCONF_BF"
# The policy of partition hold, for locality-eval --plan (case p).
LCONF_HOLD=$RUNROOT/locality-hold.conf
printf 'PlanHold=released\n' | cat "$LCONF_MM" - >"$LCONF_HOLD"
HOLD_PART="PartitionName=hold Nodes=$ALLNODES Default=NO MaxTime=INFINITE State=UP"
PF_PART="PartitionName=pfp Nodes=$ALLNODES Default=NO MaxTime=INFINITE State=UP"
H_WAIT=25
LCONF_WAIT=$RUNROOT/locality-wait.conf
printf 'CompactWait=%s\n' "$H_WAIT" | cat "$LCONF_MM" - >"$LCONF_WAIT"

SUT=locality
if [ "$HARNESS" = 1 ]; then
	SUT=linear
	note "harness check: plugin cases run against select/linear"
fi
CAN_RUN_SUT=1
if [ "$SUT" = locality ] && [ "$HAVE_PLUGIN" = 0 ]; then
	CAN_RUN_SUT=0
fi
note "build dir: ${BUILD:-none}; locality-eval: ${EVAL:-not built}"
note "plugin: ${PLUGDIR:-none} ($([ "$HAVE_PLUGIN" = 1 ] && echo found || echo not built))"
note "run dir: $RUNROOT; slurm.conf shape: ${CLUSTER_SHAPE:-single}"

# --- cases on the select/locality (Strategy=mm) cluster ----------------

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

# h, p, k: the planning cases, in plan-cases.sh.
. "$HERE/plan-cases.sh"

# b: runs the fragmenting workload on the current cluster; saves jobcomp.
run_fragmenting() {
	local tag=$1
	"$WORKLOAD" submit "$RUNROOT/frag.workload" "$RUNROOT/b-$tag.ids" ||
		return 1
	"$WORKLOAD" wait "$RUNROOT/b-$tag.ids" 240 || return 1
	sleep 1
	cp "$CURRENT/jobcomp.txt" "$RUNROOT/b-$tag.jobcomp"
}

# --- run ----------------------------------------------------------------
# Everything runs from main(), read whole before it starts, so editing this
# file during a run cannot derail the run.

main() {

	PLUGIN_CASES="a c d e f i p k"
	declare -gA B_DONE=()

	if want b; then
		"$WORKLOAD" gen --seed 11 --jobs 60 --max-nodes 16 --phases --gap 0.9 \
			>"$RUNROOT/frag.workload"
	fi

	local mm_wanted=0
	for c in b $PLUGIN_CASES; do want "$c" && mm_wanted=1; done
	if [ "$CAN_RUN_SUT" = 1 ]; then
		if [ $mm_wanted = 0 ]; then
			:
		elif start_cluster sut-mm "$SUT" "$LCONF_MM" "$HOLD_PART" "$PF_PART"; then
			if want b; then
				note "b: fragmenting sequence on select/$SUT (mm), $(wc -l <"$RUNROOT/frag.workload") jobs"
				run_fragmenting mm && B_DONE[mm]=1
				cancel_all
			fi
			for c in $PLUGIN_CASES; do
				want "$c" || continue
				wait_all_idle 30 || note "$c: not all nodes idle before the case"
				"case_$c"
			done
			stop_cluster
		else
			for c in $PLUGIN_CASES; do
				want "$c" && not_ok "$c: select/$SUT cluster" "cluster did not start"
			done
		fi
		if want h && [ "$SUT" = locality ]; then
			if start_cluster sut-wait "$SUT" "$LCONF_WAIT"; then
				case_h
				stop_cluster
			else
				not_ok "h: CompactWait cluster" "cluster did not start"
			fi
		fi
		if want b && start_cluster sut-bestfit "$SUT" "$LCONF_BF"; then
			note "b: fragmenting sequence on select/$SUT (bestfit, hilbert)"
			run_fragmenting bestfit && B_DONE[bestfit]=1
			stop_cluster
		fi
		if want b && start_cluster linear linear; then
			note "b: fragmenting sequence on select/linear"
			run_fragmenting linear && B_DONE[linear]=1
			stop_cluster
		fi
	else
		for c in $PLUGIN_CASES; do
			want "$c" || continue
			case $c in
			a) not_ok "a: sbatch jobs of mixed sizes land on the nodes the core chooses" "plugin not built" ;;
			c) not_ok "c: a DOWN node is never allocated" "plugin not built"
			   not_ok "c: a DRAINed node is never allocated" "plugin not built" ;;
			d) not_ok "d: --nodelist honoured" "plugin not built"
			   not_ok "d: --exclude honoured" "plugin not built"
			   not_ok "d: --contiguous honoured" "plugin not built" ;;
			e) not_ok "e: a lower-priority job backfills when it fits (WILL_RUN)" "plugin not built" ;;
			f) not_ok "f: kill -9 + restart of slurmctld: every job completes" "plugin not built"
			   not_ok "f: kill -9 + restart of slurmctld: no node in two jobs at once" "plugin not built" ;;
			p) not_ok "p: sbatch --test-only (WILL_RUN) gives the core planner's start and nodes" "plugin not built" ;;
			k) not_ok "k: PF holds an idle region for the partner, and a job of lower priority keeps off it" "plugin not built"
			   not_ok "k: PF + PlanHold=released: a later start holds the nodes running jobs release, not PF-held idle ones" "plugin not built" ;;
			i) not_ok "i: a reservation gets the nodes the core picks" "plugin not built" ;;
			esac
		done
		want h && not_ok "h: CompactWait" "plugin not built"
	fi

	if want b; then
		for s in mm bestfit; do
			name="b: after fragmentation, mean pairwise hops under select/$SUT ($s, hilbert) < select/linear"
			if [ "$CAN_RUN_SUT" = 0 ]; then
				not_ok "$name" "plugin not built"
			elif [ -z "$EVAL" ]; then
				not_ok "$name" "locality-eval not built"
			elif [ -z "${B_DONE[$s]:-}" ] || [ -z "${B_DONE[linear]:-}" ]; then
				not_ok "$name" "workload did not complete on both clusters"
			else
				h_sut=$(mean_hops "$RUNROOT/b-$s.jobcomp")
				h_lin=$(mean_hops "$RUNROOT/b-linear.jobcomp")
				note "b: mean avg pairwise hops: $s $h_sut, linear $h_lin"
				if [ -n "$h_sut" ] && [ -n "$h_lin" ] &&
					awk -v a="$h_sut" -v b="$h_lin" 'BEGIN { exit !(a < b) }'; then
					ok "$name"
				else
					not_ok "$name" "$s ${h_sut:-?} vs linear ${h_lin:-?}"
				fi
			fi
		done
	fi

	# g: a broken locality.conf stops slurmctld with file and line.
	if want g; then
		for variant in key node; do
			if [ $variant = key ]; then
				name="g: a broken locality.conf (unknown key, line 3) stops slurmctld naming file and line"
				printf 'Dimensions=8x8\nTorus=yes\nNoSuchKey=1\nStrategy=mm\n' \
					>"$RUNROOT/broken.conf"
				pattern='locality\.conf:3'
			else
				name="g: a locality.conf naming a node slurm.conf lacks stops slurmctld naming file, line and node"
				printf 'Dimensions=8x8x2\nTorus=yes\n\nNodeName=n[001-065] Coords=0,0,0\n' \
					>"$RUNROOT/broken.conf"
				pattern='locality\.conf:4.*n065'
			fi
			if [ "$HAVE_PLUGIN" = 0 ]; then
				not_ok "$name" "plugin not built"
				continue
			fi
			gdir=$RUNROOT/broken-$variant
			if start_cluster "broken-$variant" locality "$RUNROOT/broken.conf"; then
				stop_cluster
				not_ok "$name" "slurmctld started with the broken file"
			elif grep -Eq "$pattern" "$gdir/log/slurmctld.log" \
				"$gdir/log/slurmctld.out" 2>/dev/null; then
				note "g: $(grep -Eh "$pattern" "$gdir/log/slurmctld.log" \
					"$gdir/log/slurmctld.out" 2>/dev/null | head -n 1)"
				ok "$name"
			else
				not_ok "$name" "no message matching /$pattern/ in $gdir/log"
			fi
		done
	fi

	lib_finish
}

main; exit $?
