#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# shape-tests.sh - select/locality in the slurm.conf shapes real sites
# write, against real daemons: 64 slurmd on an 8x8 torus described by
#   single      one NodeName line
#   per-node    one NodeName line per node
#   per-row     one line per row, with a drained node inside the grid;
#               -N min-max
#   weights     two weight tiers (rows 7-8 Weight=100 Features=bigmem)
#   features    even rows Features=ssd, odd rows hdd; --constraint (and
#               an OR of both)
#   partitions  two overlapping partitions with different Strategy=
#   shuffled    one line per node in scrambled order; locality.conf gives
#               every node's Coords, listed out of name order, wired
#               column by column
#   two-kinds   one line per row, every other row with twice the CPUs: a
#               job asking the CPUs of two large nodes (-n) gets an
#               adjacent large pair, where the core's pair by hops alone
#               lacks the CPUs (even_share); one asking a large and a
#               small node's CPUs, of three that cover, spares the third
#               (drop_one)
#   gpu-sparse  one line per node, GPUs on one node in four (every other
#               node of every other row); GPU jobs must land on those
#               where the core picks among them, and start at once under
#               CompactWait=60 (their reference made on them too); they
#               must hold their GPUs (scontrol show job -d lists them,
#               GresUsed counts them) across a slurmctld restart, a
#               reconfigure and while suspended (no other job, GPU or
#               not, starts on a suspended job's GPU nodes, also after a
#               restart, and sbatch --test-only plans none there before
#               its EndTime), shrunk and expanded (scontrol update
#               NumNodes=), and give them all back when cancelled
# (cluster.sh --shape). In each shape a few pinned jobs fragment the
# machine, then a sequence of jobs is submitted one at a time, and each
# must land exactly on the nodes the core picks for the same free set
# (locality-eval --predict): the test asserts the placement, not merely
# a valid one. slurmctld must hand the plugin every eligible node at
# once for that to hold (SELECT_SINGLE_JOB_TEST). The weights shape adds
# Weight under sched/backfill (bf_weights): a 2-node job that backfill
# starts while light nodes are free, and its plan holds none, must land
# on them, on select/linear (the control) and on select/locality with
# the recommended locality.conf.
#
#   shape-tests.sh [BUILDDIR] [--plugin-dir DIR] [--rundir DIR] [--keep]
#                  [--only SHAPE,SHAPE...]
#
# --only weights-backfill runs the backfill check alone. Prints "ok N -
# ..." per shape and "N passed, N failed" last; uses ports
# 6817 and 17001-17064.

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

BUILD="" PLUGDIR="" RUNROOT="" KEEP=0 ONLY=""
while [ $# -gt 0 ]; do
	case $1 in
	--plugin-dir) PLUGDIR=$2; shift 2 ;;
	--rundir) RUNROOT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--only) ONLY=$2; shift 2 ;;
	-h | --help) sed -n '4,45p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "shape-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done

SUITE=shapes
lib_init loc-shapes
SHAPES="single per-node per-row weights features partitions shuffled two-kinds gpu-sparse"

# --- locality.conf per shape ----------------------------------------------

# conf_for SHAPE FILE - the locality.conf the shape's cluster runs.
conf_for() {
	{
		echo "# select/locality shape test: $1"
		echo "Dimensions=8x8"
		echo "Torus=yes"
		echo "Strategy=mm"
		echo "Curve=hilbert"
		case $1 in
		partitions)
			echo "PartitionName=half Strategy=bestfit Curve=snake" ;;
		gpu-sparse)
			# Longer than place() waits: a GPU job whose reference
			# ignored where the GPUs are would not start in time.
			echo "CompactWait=60" ;;
		shuffled)
			# Wired column by column: n(8x+y+1) sits at (y,x). Listed
			# in the scrambled order of slurm.conf, not by name.
			local j i
			for j in $(seq 0 63); do
				i=$((j * 29 % 64))
				printf 'NodeName=n%03d Coords=%d,%d\n' $((i + 1)) \
					$((i % 8)) $((i / 8))
			done ;;
		esac
	} >"$2"
}

# --- one placement ------------------------------------------------------

# nodes_not_in HOSTLIST - every node of the cluster outside HOSTLIST.
nodes_not_in() {
	comm -23 <(scontrol show hostnames "$ALLNODES" | sort) \
		<(scontrol show hostnames "$1" | sort) | paste -sd, -
}

# free_in HOSTLIST - how many nodes of HOSTLIST are not in $BUSY.
free_in() {
	comm -23 <(scontrol show hostnames "$1" | sort) \
		<(scontrol show hostnames "$BUSY" | sort) | grep -c .
}

# place K OFFLIMITS PART [sbatch options] - submits a K-node job; it must
# land where the core puts it on the free set: all nodes but BUSY and
# OFFLIMITS (nodes the job may not or should not use), with partition
# PART's policy. On success the job's nodes join BUSY; else BAD is set.
place() {
	local k=$1 off=$2 part=$3 pred got id busy=$BUSY
	shift 3
	[ -n "$BAD" ] && return
	[ -n "$off" ] && busy="$busy,$off"
	pred=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --partition "$part" \
		--predict --busy "$busy" -k "$k" ${WEIGHTS[@]+"${WEIGHTS[@]}"} \
		2>&1) || {
		BAD="locality-eval --predict -k $k failed: $pred"
		return
	}
	id=$(sub -N"$k" -p "$part" "$@" -t 30 600)
	if ! wait_state "$id" RUNNING 20; then
		BAD="job $id (-N$k -p $part $*) did not start: $(job_field "$id" Reason)"
		return
	fi
	got=$(job_field "$id" NodeList)
	if [ "$(expand "$pred")" != "$(expand "$got")" ]; then
		BAD="-N$k -p $part $* got $got, the core picks $pred (busy $busy)"
		return
	fi
	note "$SHAPE: -N$k -p $part $* -> $got (as the core picks)"
	BUSY="$BUSY,$got"
	PLACED="$PLACED $id"
}

# pin NODE... - one-node jobs on the given nodes (fragmentation).
pin() {
	local h id
	for h in "$@"; do
		id=$(sub -N1 -w "$h" -t 30 600)
		wait_state "$id" RUNNING 20 || {
			BAD="pinned job on $h did not start"
			return
		}
		BUSY="$BUSY,$h"
	done
}

# even_share - two kinds of node: on n006-n007 (small) and n014-n015
# (twice the CPUs) below them, a square, a job asking the CPUs of two
# large nodes (-n) must take the large pair, adjacent as the ideal pair
# is, not three nodes, where the core's pair by hops alone lacks the CPUs
# (checked first with locality-eval --predict: a scenario where it picks
# the large pair itself proves nothing). Its nodes join BUSY.
even_share() {
	local keep=n006,n007,n014,n015 small big pred off
	[ -n "$BAD" ] && return
	small=$(scontrol show node n006 | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p')
	big=$(scontrol show node n014 | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p')
	if [ -z "$small" ] || [ -z "$big" ] || [ "$small" -ge "$big" ]; then
		BAD="two-kinds: n006 has '$small' CPUs, n014 '$big': not two kinds"
		return
	fi
	off=$(scontrol show hostlist "$(nodes_not_in "$keep")")
	pred=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --partition main \
		--predict --busy "$BUSY,$off" -k 2 2>&1)
	case $(expand "$pred") in
	n014,n015 | "") BAD="two-kinds: the core's pair on $keep is '$pred': the case proves nothing"
		return ;;
	esac
	scenario_job "$keep" $((2 * big)) n014,n015 \
		"(the core's pair: $pred), not the large pair n014,n015" \
		"(the fewest nodes; the core's pair $pred)"
}

# drop_one - two kinds of node: on n003-n004 (small) and n012 (twice the
# CPUs) below n004, a job asking the CPUs of one large and one small node
# (-n) must take n004 and n012, 1 hop apart, not all three: the core's
# pair n003-n004 lacks the CPUs (checked first with locality-eval
# --predict), one large node cannot hold an even share alone, and of the
# three that cover, n003 can go. Its nodes join BUSY.
drop_one() {
	local keep=n003,n004,n012 small big pred off
	[ -n "$BAD" ] && return
	small=$(scontrol show node n003 | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p')
	big=$(scontrol show node n012 | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p')
	off=$(scontrol show hostlist "$(nodes_not_in "$keep")")
	pred=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --partition main \
		--predict --busy "$BUSY,$off" -k 2 2>&1)
	[ "$(expand "$pred")" = n003,n004 ] || {
		BAD="two-kinds: the core's pair on $keep is '$pred', not the small pair n003,n004: the case proves nothing"
		return
	}
	scenario_job "$keep" $((small + big)) n004,n012 \
		"not n004,n012 (of the three that cover, n003 can go)" \
		"(one node of the three spared)"
}

# scenario_job KEEP CPUS WANT WHY NOTE - a job of CPUS cores (-n) on the
# nodes KEEP alone must start on the nodes WANT (BAD says it got others,
# and WHY); NOTE follows its line in the output. Its nodes join BUSY.
scenario_job() {
	local id got off
	off=$(scontrol show hostlist "$(nodes_not_in "$1")")
	id=$(sub -n"$2" -x "$off" -t 30 600)
	if [ -z "$id" ] || ! wait_state "$id" RUNNING 20; then
		BAD="-n$2 on $1 did not start: ${id:-$(tail -n 1 "$RUNROOT/sbatch.err")}${id:+ $(job_field "$id" Reason)}"
		return
	fi
	got=$(job_field "$id" NodeList)
	if [ "$(expand "$got")" != "$3" ]; then
		BAD="-n$2 on $1 got $got $4"
		return
	fi
	note "$SHAPE: -n$2 on $1 -> $got $5"
	BUSY="$BUSY,$got"
}

# --- the devices of GPU jobs -------------------------------------------------

# gres_used NODE - the node's GresUsed (gpu:N...).
gres_used() {
	scontrol show node -d "$1" 2>/dev/null |
		sed -n 's/.*GresUsed=\([^ ]*\).*/\1/p'
}

# devices_held ID WHEN - job ID holds GPUs on each of its nodes: every
# node is on a `scontrol show job -d` line listing gpu:N(IDX:...) with
# N > 0, and counts GPUs used. Sets BAD.
devices_held() {
	local id=$1 when=$2 nodes covered="" line n
	[ -n "$BAD" ] && return
	nodes=$(expand "$(job_field "$id" NodeList)")
	while read -r line; do
		case ${line#* } in
		gpu:[1-9]*"(IDX:"[0-9]*) covered="$covered,$(expand "${line%% *}")" ;;
		esac
	done < <(scontrol show job -d "$id" |
		sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=\([^ ]*\).*/\1 \2/p')
	covered=$(echo "${covered#,}" | tr , '\n' | sort -u | paste -sd, -)
	if [ -z "$nodes" ] || [ "$covered" != "$nodes" ]; then
		BAD="$when: job $id on $nodes lists GPUs on '$covered' ($(scontrol show job -d "$id" | grep -o 'GRES=[^ ]*' | paste -sd' ' -))"
		return
	fi
	for n in $(echo "$nodes" | tr , ' '); do
		case $(gres_used "$n") in
		gpu:[1-9]*) ;;
		*) BAD="$when: job $id holds $n, whose GresUsed is '$(gres_used "$n")'"
			return ;;
		esac
	done
}

# waits_for_resources ID WHAT SUSPENDED - job ID pends for Resources (the
# scheduler tried it) beside the suspended job, whose GPUs it would take.
waits_for_resources() {
	local n state reason
	for n in $(seq 1 20); do
		state=$(job_field "$1" JobState) reason=$(job_field "$1" Reason)
		[ "$state" = PENDING ] && [ "$reason" = Resources ] && return 0
		[ "$state" = PENDING ] || break
		sleep 0.5
	done
	BAD="$2 is $state ($reason) on the nodes of suspended job $3, whose GPUs it holds"
	return 1
}

# plans_from_end SUSPENDED - sbatch --test-only (WILL_RUN, what
# sched/backfill asks) of a job on the suspended job's nodes answers no
# earlier than its EndTime, when their devices are expected back: the
# suspended job's nodes are free in the ledger, and a plan that counted
# on them now would start nothing (RUN_NOW skips them). select/linear
# answers now.
plans_from_end() {
	local nodes end out start
	nodes=$(job_field "$1" NodeList) end=$(job_field "$1" EndTime)
	out=$(sbatch --test-only -N4 -w "$nodes" -t 30 --wrap true 2>&1)
	start=$(echo "$out" | sed -n 's/.* to start at \([^ ]*\) .*/\1/p')
	[ -n "$start" ] && ! [[ $start < $end ]] && return 0
	BAD="sbatch --test-only of a job on the nodes of suspended job $1 (EndTime $end): $out"
	return 1
}

# alloc SBATCH-OPTIONS... - the id of a job granted by salloc --no-shell
# (no step, no shell), or nothing.
alloc() {
	salloc --no-shell "$@" 2>&1 |
		sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p'
}

# update_job ID KEY=VALUE - scontrol update of a running job. Right after
# its start slurmctld may still wait for the job's accounting record and
# asks to try again. Sets BAD and fails if the update does not take.
update_job() {
	local n out
	for n in $(seq 1 20); do
		out=$(scontrol update jobid="$1" "$2" 2>&1)
		case $out in *"try again"*) sleep 1 ;; *) break ;; esac
	done
	[ -z "$out" ] && return 0
	BAD="scontrol update jobid=$1 $2: $out"
	return 1
}

# gpu_devices GPU_NODES - the GPU jobs placed (PLACED) hold their devices,
# still after a slurmctld restart and a reconfigure (the counts are
# rebuilt from the job list), while suspended, shrunk and expanded, and
# give them all back when they end, with no count underflow.
gpu_devices() {
	local id n err suspended plain taker giver
	for id in $PLACED; do devices_held "$id" "running"; done
	[ -n "$BAD" ] && return
	"$CLUSTER" restart-ctld --dir "$CURRENT" >"$RUNROOT/restart.log" 2>&1 ||
		{ BAD="slurmctld did not restart"; return; }
	for id in $PLACED; do devices_held "$id" "after a restart"; done
	[ -n "$BAD" ] && return
	# 22.05 reconfigures in place (the counts rebuilt over Slurm's kept
	# ones); 24.11 restarts slurmctld.
	scontrol reconfigure >/dev/null 2>&1 ||
		{ BAD="scontrol reconfigure failed"; return; }
	sleep 3
	for n in $(seq 1 40); do
		scontrol ping 2>/dev/null | grep -q UP && break
		sleep 0.5
	done
	for id in $PLACED; do devices_held "$id" "after scontrol reconfigure"; done
	[ -n "$BAD" ] && return
	# Suspended, a job keeps its GPUs: a job that wants its nodes waits
	# for Resources (as a GPU job does under select/linear) and gets them
	# once it ends. A job without --gres too: slurmctld gives a whole-node
	# job every device of its nodes, so it would hold the same GPUs twice.
	# One at a time: a pending job would hold the next one back. The
	# second one after a restart, which rebuilds the list of suspended
	# jobs that hold devices from the job list.
	suspended=$(echo $PLACED | cut -d" " -f1)
	scontrol suspend "$suspended" ||
		{ BAD="scontrol suspend $suspended failed"; return; }
	plain=$(sub -N4 -w "$(job_field "$suspended" NodeList)" -t 30 600)
	waits_for_resources "$plain" "job $plain, without --gres," "$suspended" || return
	scancel "$plain"
	plans_from_end "$suspended" || return
	# A restart forgets which jobs are suspended but for the job list.
	"$CLUSTER" restart-ctld --dir "$CURRENT" >>"$RUNROOT/restart.log" 2>&1 ||
		{ BAD="slurmctld did not restart beside suspended job $suspended"; return; }
	id=$(sub -N4 -w "$(job_field "$suspended" NodeList)" --gres=gpu:1 -t 30 600)
	waits_for_resources "$id" "GPU job $id" "$suspended" || return
	scontrol resume "$suspended"
	scancel $PLACED
	for n in $PLACED; do
		wait_state "$n" CANCELLED 20 ||
			{ BAD="job $n is $(job_field "$n" JobState) after scancel"; return; }
	done
	wait_state "$id" RUNNING 20 ||
		{ BAD="job $id did not start once the suspended job ended: $(job_field "$id" Reason)"; return; }
	devices_held "$id" "once the suspended job ended"
	[ -n "$BAD" ] && return
	# Shrunk, it gives back the devices of the nodes it leaves and keeps
	# the others' (Slurm's per-node GRES records shift down as the node
	# leaves job_resrcs).
	update_job "$id" NumNodes=2 || return
	[ "$(job_field "$id" NumNodes)" = 2 ] ||
		{ BAD="job $id has $(job_field "$id" NumNodes) nodes after NumNodes=2"; return; }
	devices_held "$id" "shrunk to 2 nodes"
	[ -n "$BAD" ] && return
	# Expanded (--dependency=expand, permit_job_expansion), a job holds
	# the devices of both jobs' nodes; the job that gave its nodes away
	# ends with none (else slurmctld logs a node_cnt underflow). The
	# giver's NumNodes=0 does the merge; the taker's NumNodes=ALL, which
	# Slurm's docs add, only refreshes its counts, and slurmctld refuses
	# a resized job's updates without slurmdbd (it waits for an accounting
	# record that never comes), hence two new jobs, not job $id. salloc:
	# a batch job's step would forbid the merge.
	taker=$(alloc -N2 --gres=gpu:1 -t 30)
	giver=$(alloc -N2 --gres=gpu:1 -t 30 --dependency=expand:"$taker")
	[ -n "$taker" ] && [ -n "$giver" ] ||
		{ BAD="salloc --no-shell of two GPU jobs, one to expand the other, was not granted"; return; }
	update_job "$giver" NumNodes=0 || return
	[ "$(job_field "$taker" NumNodes)" = 4 ] ||
		{ BAD="job $taker has $(job_field "$taker" NumNodes) nodes after taking job $giver's 2"; return; }
	devices_held "$taker" "expanded to 4 nodes"
	[ -n "$BAD" ] && return
	scancel "$taker"
	wait_state "$taker" CANCELLED 20 ||
		{ BAD="job $taker is $(job_field "$taker" JobState) after scancel"; return; }
	scancel "$id"
	wait_state "$id" CANCELLED 20 ||
		{ BAD="job $id is $(job_field "$id" JobState) after scancel"; return; }
	sleep 2
	for n in $(echo "$1" | tr , ' '); do
		case $(gres_used "$n") in
		gpu:0 | gpu:0\(*) ;;
		*) BAD="after its jobs ended, $n has GresUsed=$(gres_used "$n")"
			return ;;
		esac
	done
	# A job's devices returned twice, or never taken, log an underflow;
	# returned at the wrong offset, a bad node_offset.
	err=$(grep -E "underflow|bad node_offset" "$CURRENT/log/slurmctld.log" |
		head -n 1)
	[ -z "$err" ] || BAD="slurmctld.log: $err"
}

# --- weights under backfill ------------------------------------------------

# The recommended locality.conf (etc/locality.conf.example, README).
bf_conf() {
	printf '%s\n' "# select/locality shape test: weights under backfill" \
		Dimensions=8x8 Torus=yes Strategy=pack Curve=hilbert \
		CompactWait=60 CompactTolerance=0.1 PlanWindow=30 \
		PlanHold=released >"$1"
}

# bf_weights SELECT LABEL [LOCALITY_CONF] - Weight when sched/backfill
# starts a job: the light tier busy but for three nodes in a column
# (BF_FREE), a job ahead in the queue that waits for the busy ones, and
# behind it a 2-node job that ends long before that job can start. The
# main scheduler skips the 2-node job (a job ahead of it waits); backfill
# starts it, and its plan holds no node before that start, so the light
# nodes are free to it and it must land on two of them, as on any other
# path. Sets BAD.
BF_FREE="n008,n016,n024"
bf_weights() {
	local sel=$1 label=$2 lconf=${3:-} fill id got n offer
	# 24.11 logs DebugFlags lines at verbose (22.05 its "Test" at info).
	local CLUSTER_DEBUG=verbose
	BAD=""
	if ! CLUSTER_SHAPE=weights start_cluster "weights-bf-$label" "$sel" \
		"$lconf" "DebugFlags=Backfill,BackfillMap"; then
		BAD="cluster did not start"
		return
	fi
	fill=$(nodes_not_in "n[049-064],$BF_FREE")
	id=$(sub -N45 -w "$fill" -t 10 600)
	wait_state "$id" RUNNING 20 || {
		BAD="the job on the light tier ($fill) did not start"
		return
	}
	# 50 nodes: it waits for the 45 busy ones, ten minutes off.
	id=$(sub -N50 -t 10 600)
	sleep 2
	[ "$(job_field "$id" JobState)" = PENDING ] ||
		BAD="the 50-node job is $(job_field "$id" JobState), not PENDING"
	id=$(sub -N2 -t 1 600)
	if ! wait_state "$id" RUNNING 30; then
		BAD=${BAD:-"the 2-node job did not start: $(job_field "$id" Reason)"}
		return
	fi
	got=$(job_field "$id" NodeList)
	n=$(comm -12 <(scontrol show hostnames "$got" | sort) \
		<(scontrol show hostnames "$BF_FREE" | sort) | grep -c .)
	# Started by the main scheduler, or offered no light node (the plan
	# holding them: Slurm's meaning), it would test nothing here.
	grep -q "Started JobId=$id " "$CURRENT/log/slurmctld.log" ||
		BAD=${BAD:-"job $id was not started by backfill"}
	# "Test JobId=N at T on NODES" (22.05); 24.11 adds "to T (later_start:
	# T)" before " on".
	offer=$(sed -n "s/.*Test JobId=$id at .* on \([^ ]*\)\$/\1/p" \
		"$CURRENT/log/slurmctld.log" | tail -n 1)
	[ -z "$(comm -23 <(scontrol show hostnames "$BF_FREE" | sort) \
		<(expand "$offer" | tr , '\n'))" ] ||
		BAD=${BAD:-"backfill offered job $id only ${offer:-nothing}: its plan held light nodes"}
	[ "$n" = 2 ] ||
		BAD=${BAD:-"backfill started job $id on $got, with $BF_FREE (Weight=1) free"}
	note "weights, backfill, $label: job $id -> $got"
	stop_cluster
}

# The backfill check on select/linear (the control: Slurm's meaning of
# Weight), then on select/locality; the latter fails too when the
# control does not pass, for then the scenario proves nothing.
bf_shape() {
	local ctl
	bf_weights linear control
	result "weights, backfill: control (select/linear) starts the 2-node job on the light tier" "$BAD"
	ctl=$BAD
	bf_conf "$RUNROOT/locality-weights-bf.conf"
	bf_weights locality locality "$RUNROOT/locality-weights-bf.conf"
	[ -n "$ctl" ] && BAD="the control did not pass: $ctl${BAD:+; locality: $BAD}"
	result "weights, backfill: select/locality starts the 2-node job on the light tier, as the control" "$BAD"
}

# --- the shapes -----------------------------------------------------------

run_shape() {
	local heavy="n[049-064]" light="n[001-048]" k name gpus
	SHAPE=$1 BAD="" BUSY="" WEIGHTS=() PLACED=""
	name="$SHAPE: every job lands on the nodes the core picks"
	LCONF=$RUNROOT/locality-$SHAPE.conf
	conf_for "$SHAPE" "$LCONF"
	ORDER=$ALLNODES
	local extra=()
	[ "$SHAPE" = gpu-sparse ] && extra=(SchedulerParameters=permit_job_expansion)
	if ! CLUSTER_GPUS=$([ "$SHAPE" = gpu-sparse ] && echo 2) CLUSTER_SHAPE=$SHAPE \
		start_cluster "shape-$SHAPE" locality "$LCONF" "${extra[@]}"; then
		not_ok "$name" "cluster did not start"
		return
	fi
	# locality-eval --nodes wants Slurm's node order (the node table).
	ORDER=$(scontrol show nodes -o | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' |
		paste -sd, -)
	pin n002 n011 n020 n029 n038 n047 n056
	BUSY=${BUSY#,}
	case $SHAPE in
	per-row)
		scontrol update nodename=n028 state=drain reason=shape-test >/dev/null
		# The placements below assume n028 out of service: check it.
		case $(sinfo -h -N -n n028 -o %T 2>/dev/null | head -n 1) in
		drained | draining) ;;
		*) BAD="${BAD:-n028 is '$(sinfo -h -N -n n028 -o %T 2>/dev/null | head -n 1)' after scontrol update state=drain}" ;;
		esac
		for k in 5 3 8 2 12 6; do place "$k" n028 main; done
		# -N min-max with room for the maximum: the maximum.
		place 5 n028 main -N 3-5 ;;
	weights)
		# slurm.conf's weights, for the core's tier rule (loc_tiers.h).
		WEIGHTS=(--node-weight "$heavy=100")
		# The light tier holds them: the heavy rows stay free.
		for k in 5 8 12 3; do place "$k" "" main; done
		BAD=${BAD:-$(free_in "$heavy" | grep -vx 15 | sed 's/^/heavy tier used: /')}
		# Bigger than what is left of the light tier: both tiers.
		k=$(($(free_in "$light") + 3))
		place "$k" "" main
		# bigmem exists only in the heavy tier.
		place 2 "$light" main --constraint=bigmem ;;
	features)
		for k in 4 6 3; do
			place "$k" "$(nodes_not_in "n[001-008,017-024,033-040,049-056]")" \
				main --constraint=ssd
		done
		place 5 "$(nodes_not_in "n[009-016,025-032,041-048,057-064]")" \
			main --constraint=hdd
		# OR: a node with either feature will do.
		place 6 "" main --constraint='ssd|hdd'
		place 7 "" main ;;
	gpu-sparse)
		# The pinned nodes have no GPUs: all 16 GPU nodes are free, so
		# the 4-node job's set is its idle reference, and the 2-node
		# job's (two GPU nodes 2 hops apart) is too.
		gpus=$(scontrol show nodes -o | sed -n 's/^NodeName=\([^ ]*\) .*Gres=gpu:2 .*/\1/p' |
			paste -sd, -)
		[ "$(echo "$gpus" | tr , '\n' | grep -c .)" = 16 ] ||
			BAD="nodes with GPUs: '$gpus', expected 16"
		place 4 "$(nodes_not_in "$gpus")" main --gres=gpu:1
		place 2 "$(nodes_not_in "$gpus")" main --gres=gpu:2
		result "$name" "$BAD"
		name="$SHAPE: GPU jobs hold their devices, across a restart, and free them"
		[ -z "$BAD" ] && gpu_devices "$gpus" ;;
	two-kinds)
		even_share
		drop_one
		for k in 5 3 8 2 12 1 7 6; do place "$k" "" main; done ;;
	partitions)
		for k in 4 6 2; do place "$k" "$(nodes_not_in "n[001-032]")" half; done
		for k in 8 5; do place "$k" "" main; done
		place 3 "$(nodes_not_in "n[001-032]")" half ;;
	*)
		for k in 5 3 8 2 12 1 7 6; do place "$k" "" main; done ;;
	esac
	result "$name" "$BAD"
	stop_cluster
}

main() {
	local s
	if [ "$HAVE_PLUGIN" = 0 ] || [ -z "$EVAL" ]; then
		for s in $SHAPES; do
			want "$s" && not_ok "$s: every job lands on the nodes the core picks" \
				"plugin or locality-eval not built"
		done
		lib_finish
		return
	fi
	note "plugin: $PLUGDIR; run dir: $RUNROOT"
	for s in $SHAPES; do
		want "$s" && run_shape "$s"
	done
	{ want weights || want weights-backfill; } && bf_shape
	lib_finish
}

main; exit $?
