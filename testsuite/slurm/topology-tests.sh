#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology-tests.sh - topology/locality under select/cons_tres on real
# daemons (Slurm 24.11 or 26.05), against Slurm's own topology plugin as
# the control in the same run (24.11: topology/default, 26.05:
# topology/flat). 64 slurmd of 4 CPUs, 1000 MB and 2 GPUs (stand-in
# device files) as an 8x8 torus, in the slurm.conf shapes of --shapes
# (cluster.sh --shape; by default per-row: a NodeName line per row;
# weights: rows 7-8 Weight=100 Features=bigmem; shuffled: a line per node
# in scrambled order, wired column by column; two-kinds: every other row
# of 8 CPUs and 2000 MB, where core jobs take the fewest nodes that hold
# their CPUs and no job more nodes than under the control; on demand also
# per-node, with a drained node, features: ssd and hdd rows and
# --constraint jobs, partitions: an overlapping partition with its own
# policy). In each shape the same
# sequence of jobs, each left running, goes through both clusters, one
# after another on a fragmented machine:
#   whole-node jobs (--exclusive), cores only (-n8), --mem, -N min-max,
#   --nodelist, --exclude, --contiguous, GPU jobs (--gres=gpu:2 per node,
#   --gpus=4 per job, --gpus-per-node=1), core jobs that share nodes
#   (-n without -N, memory per CPU; under topology/locality one that a
#   node holds goes to a best fit: the fewest idle CPUs that hold it), a
#   job array, a job in a reservation of the last idle nodes; in the
#   weights shape a --constraint job that only the
#   heavy tier can hold.
# Under topology/locality each job whose nodes no later job shares must
# land on the nodes the core picks for the same free set (locality-eval
# --predict). Under both: every job starts, no CPU and no GPU of a node
# is given to two running jobs (scontrol -d show job: CPU_IDs, GRES IDX), and
# each job's NumNodes, NumCPUs, AllocTRES and GPUs equal the control's
# for the same request (two-kinds: no more nodes, and the same CPUs and
# GPUs for jobs that share nodes; there -n8, -n12 and -n16 come last,
# on one 8-CPU node, two nodes and two 8-CPU nodes, and first -n16 on a
# square of two 4-CPU and two 8-CPU nodes takes the 8-CPU pair, where
# the core's pair by hops alone lacks the CPUs: even_share_16; then -n12
# on two 4-CPU nodes and an 8-CPU one takes two of them, 1 hop apart:
# drop_one_12); under
# topology/locality each job's
# AdminComment holds its placement record (RecordPlacement), agreeing
# with its NodeList. The
# control must pass its own checks, or the comparison fails too. Faults (per-row shape): slurmctld kill -9 with jobs running,
# under both: no job slurmctld saved running may be lost, and jobs it had
# not saved running (its own save window) are counted apart, locality's
# at most one more than the control's; under
# locality a node DOWN then RESUMEd and `scontrol reconfigure` with an
# edited locality.conf, each followed by a job placed where the core
# picks; and a broken locality.conf, which must stop slurmctld at start
# with file, line and text. Then CompactWait under topology/locality
# (topology/compact.sh): a job declines scattered nodes, its declined
# nodes are backfilled, it starts on a compact set when one frees up, and
# a job that finds none takes the scattered set at its deadline and, once
# requeued, waits afresh, as does a job offered nothing while it queued;
# later jobs keep off the region a waiting job claims (CompactClaims=16),
# and it starts there once it drains; with GresName=gpu CompactWait=0 a
# GPU job takes scattered nodes at once while a job without GRES waits,
# and claims nothing (CompactClaims left at 0); backfill runs with bf_busy_nodes there
# (Slurm's helpers inside this plugin must see slurmctld's node bitmaps:
# left local, slurmctld crashed). Last,
# PlanHold (topology/plan-hold.sh): with released, the nodes backfill
# plans for a waiting job are busy now, where with placement (the
# control) they take idle ones. And SharedNodes
# (topology/shared-nodes.sh): with first, a core job of two nodes takes
# the node beside its compact pair that already runs a job, where with
# any (the control) it takes two idle ones. And WalltimeAware
# (topology/walltime.sh): with sl, of two equally compact squares a job
# takes the one whose neighbours end closest to its own end, where with
# none (the control) jobs of any limit take the same one.
#
#   topology-tests.sh [BUILDDIR] [--plugin-dir DIR] [--rundir DIR] [--keep]
#                     [--shapes per-row,weights,shuffled,two-kinds]
#                     [--only shapes,faults,compact,plan-hold,shared-nodes,walltime]
#
# Prints "ok N - ..." per check and "slurm SERIES topology: N passed, N
# failed" last.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/sacct-records.sh"
BUILD="" PLUGDIR="" RUNROOT="" KEEP=0 ONLY="" SHAPES=per-row,weights,shuffled,two-kinds
SHAPE_CONF=() # extra slurm.conf lines for the next cluster (cluster.sh --extra)
while [ $# -gt 0 ]; do
	case $1 in
	--plugin-dir) PLUGDIR=$2; shift 2 ;;
	--rundir) RUNROOT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--shapes) SHAPES=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	-h | --help) sed -n '4,54p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "topology-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done
for c in ${ONLY//,/ }; do
	case $c in
	shapes | faults | compact | plan-hold | shared-nodes | walltime) ;;
	*) echo "topology-tests.sh: --only: unknown case '$c' (shapes, faults, compact, plan-hold, shared-nodes, walltime)" >&2; exit 2 ;;
	esac
done

SUITE=topology
[ -z "$PLUGDIR" ] && [ -n "$BUILD" ] &&
	PLUGDIR=$BUILD/src/plugins/topology/locality/.libs
lib_init loc-topology
export CLUSTER_CPUS=4 CLUSTER_MEM=1000 CLUSTER_GPUS=2

# The control: Slurm's own plugin of this version.
case $("$CLUSTER" version) in
24.11) CONTROL=default ;;
*) CONTROL=flat ;;
esac

# conf_for SHAPE FILE - the shape's locality.conf: an 8x8 torus, rows of
# 8 nodes; shuffled's nodes are wired column by column, n(8x+y+1) at
# (y,x), and listed in slurm.conf's scrambled order.
conf_for() {
	local r j i
	{
		echo "# topology/locality suite: $1"
		echo "Dimensions=8x8"
		echo "Torus=yes"
		echo "Strategy=pack"
		echo "Curve=hilbert"
		[ "$1" = partitions ] &&
			echo "PartitionName=half Strategy=bestfit Curve=snake"
		if [ "$1" = shuffled ]; then
			for j in $(seq 0 63); do
				i=$((j * 29 % 64))
				printf 'NodeName=n%03d Coords=%d,%d\n' $((i + 1)) \
					$((i % 8)) $((i / 8))
			done
		else
			for r in 0 1 2 3 4 5 6 7; do
				printf 'NodeName=n[%03d-%03d] Coords=%d,0\n' \
					$((r * 8 + 1)) $((r * 8 + 8)) "$r"
			done
		fi
	} >"$2"
}

# BUSY: nodes no later job may share (for --predict); OFF: nodes one job
# may not use; WEIGHTS: slurm.conf's node weights, for the core's tiers.
BUSY="" BAD="" OFF="" WEIGHTS=()

# run_job LABEL WHOLE K [sbatch options] - submits one job that must
# start. WHOLE=1: it takes whole nodes, K of them, and under locality
# must land where the core puts K nodes on the free set (the --predict
# options given after "--"). Records "LABEL id" for the comparison.
run_job() {
	local label=$1 whole=$2 k=$3 id got pred
	shift 3
	local opts=() popts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	popts=("$@")
	[ -n "$BAD" ] && return
	if [ "$whole" = 1 ] && [ "$MODE" = locality ]; then
		pred=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --predict \
			--busy "${BUSY#,}${OFF:+,$OFF}" -k "$k" \
			${WEIGHTS[@]+"${WEIGHTS[@]}"} ${popts[@]+"${popts[@]}"} 2>&1) || {
			BAD="$label: locality-eval --predict -k $k failed: $pred"
			return
		}
	fi
	id=$(sub "${opts[@]}" -t 30 600)
	if [ -z "$id" ]; then
		BAD="$label: sbatch ${opts[*]} refused: $(tail -n 1 "$RUNROOT/sbatch.err")"
		return
	fi
	if ! wait_state "$id" RUNNING 30; then
		BAD="$label: job $id (${opts[*]}) did not start: $(job_field "$id" Reason)"
		return
	fi
	got=$(job_field "$id" NodeList)
	if [ -n "${pred:-}" ] && [ "$(expand "$pred")" != "$(expand "$got")" ]; then
		BAD="$label: ${opts[*]} got $got, the core picks $pred (busy ${BUSY#,})"
		return
	fi
	note "$MODE: $label: ${opts[*]} -> $got"
	[ "$whole" = 1 ] && BUSY="$BUSY,$got"
	echo "$label $id" >>"$RUNROOT/$MODE.ids"
	[[ " ${opts[*]} " == *" --exclusive "* ]] && echo "$label" >>"$RUNROOT/$MODE.exclusive"
	return 0
}

# best_fit_nodes CPUS MB - the nodes a best fit gives a job of CPUS cores
# and MB of memory that one node holds: of the nodes up with that many
# idle CPUs and that much unallocated memory, those of the lightest
# weight with the fewest idle CPUs.
best_fit_nodes() {
	scontrol show nodes -o | awk -v need="$1" -v mem="$2" '
		{ delete f; for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
		f["State"] ~ /DRAIN|DOWN|FAIL|RESERVED/ { next }
		f["CPUTot"] - f["CPUAlloc"] >= need && f["RealMemory"] - f["AllocMem"] >= mem {
			n++; name[n] = f["NodeName"]; idle[n] = f["CPUTot"] - f["CPUAlloc"]; w[n] = f["Weight"]
		}
		END {
			for (i = 1; i <= n; i++)
				if (i == 1 || w[i] < bw || (w[i] == bw && idle[i] < bi)) {
					bw = w[i]; bi = idle[i]
				}
			for (i = 1; i <= n; i++)
				if (w[i] == bw && idle[i] == bi) print name[i]
		}' | paste -sd, -
}

# check_best_fit LABEL FIT - the job LABEL runs on one of the nodes FIT.
check_best_fit() {
	local id got
	[ -n "$BAD" ] && return
	id=$(awk -v l="$1" '$1 == l { print $2 }' "$RUNROOT/$MODE.ids")
	got=$(job_field "$id" NodeList)
	if [ -z "$2" ] || [[ ",$2," != *",$got,"* ]]; then
		BAD="$1: got $got, the best fit is one of '$2'"
	fi
}

# check_node_count LABEL N [CPUS] - the job LABEL runs on N nodes (each
# of CPUS CPUs, when given).
check_node_count() {
	local id got n c
	[ -n "$BAD" ] && return
	id=$(awk -v l="$1" '$1 == l { print $2 }' "$RUNROOT/$MODE.ids")
	got=$(job_field "$id" NodeList)
	n=$(job_field "$id" NumNodes)
	if [ "$n" != "$2" ]; then
		BAD="$1: got $n nodes ($got), the fewest that hold its CPUs are $2"
		return
	fi
	[ -n "${3:-}" ] || return 0
	for c in $(scontrol show hostnames "$got"); do
		[ "$(scontrol show node "$c" | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p')" = "$3" ] ||
			BAD="$1: got $got, not a node of $3 CPUs"
	done
}

# scenario_off KEEP - every node outside KEEP, as a hostlist.
scenario_off() {
	scontrol show hostlist "$(comm -23 \
		<(scontrol show hostnames "$ALLNODES" | sort) \
		<(echo "$1" | tr , '\n' | sort) | paste -sd, -)"
}

# scenario_done LABEL KEEP - cancels the scenario job LABEL and waits for
# KEEP's nodes to be idle again, so the sequence goes on from the same
# state; the job is not among the running jobs the checks after the
# sequence compare.
scenario_done() {
	local id end n
	id=$(awk -v l="$1" '$1 == l { print $2 }' "$RUNROOT/$MODE.ids")
	[ -n "$id" ] && scancel "$id" 2>/dev/null
	sed -i "/^$1 /d" "$RUNROOT/$MODE.ids"
	n=$(echo "$2" | tr , '\n' | grep -c .)
	end=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$end" ] &&
		[ "$(sinfo -h -N -n "$2" -t idle -o %N | sort -u | wc -l)" != "$n" ]; do
		sleep 0.25
	done
	[ "$SECONDS" -lt "$end" ] || BAD=${BAD:-"$1: $2 not idle 30 s after the job was cancelled"}
}

# even_share_16 - two kinds of node: on n006-n007 (4 CPUs) and n014-n015
# (8 CPUs) below them, a square, -n16 takes the 8-CPU pair, adjacent as
# the ideal pair is, not three nodes, where the core's pair by hops alone
# lacks the CPUs (checked first with locality-eval --predict: a scenario
# where it picks the 8-CPU pair itself proves nothing). Cancelled after.
even_share_16() {
	local keep=n006,n007,n014,n015 off pred
	off=$(scenario_off "$keep")
	if [ "$MODE" = locality ]; then
		pred=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --predict \
			--busy "$off" -k 2 2>&1)
		case $(expand "$pred") in
		n014,n015 | "") BAD="even-share-16: the core's pair on $keep is '$pred': the case proves nothing"
			return ;;
		esac
	fi
	run_job even-share-16 0 0 -n16 -x "$off"
	[ "$MODE" = locality ] && check_node_count even-share-16 2 8
	scenario_done even-share-16 "$keep"
}

# drop_one_12 - two kinds of node: on n006-n007 (4 CPUs) and n015 (8 CPUs)
# below n007, -n12 takes n007 and n015, 1 hop apart, not all three: the
# core's pair n006-n007 lacks the CPUs (checked first with locality-eval
# --predict), no two 8-CPU nodes are free for an even share, and of the
# three that cover, n006 can go. Cancelled after.
drop_one_12() {
	local keep=n006,n007,n015 off pred got id
	off=$(scenario_off "$keep")
	if [ "$MODE" = locality ]; then
		pred=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --predict \
			--busy "$off" -k 2 2>&1)
		[ "$(expand "$pred")" = n006,n007 ] || {
			BAD="drop-one-12: the core's pair on $keep is '$pred', not n006,n007 (4 CPUs each): the case proves nothing"
			return
		}
	fi
	run_job drop-one-12 0 0 -n12 -x "$off"
	if [ "$MODE" = locality ] && [ -z "$BAD" ]; then
		id=$(awk '$1 == "drop-one-12" { print $2 }' "$RUNROOT/$MODE.ids")
		got=$(job_field "$id" NodeList)
		[ "$(expand "$got")" = n007,n015 ] ||
			BAD="drop-one-12: got $got, not n007,n015 (of the three that cover, n006 can go)"
	fi
	scenario_done drop-one-12 "$keep"
}

# The sequence, the same for both plugins.
sequence() {
	local id req
	# A drained node (per-node shape) is no one's.
	if [ "$SHAPE" = per-node ]; then
		scontrol update nodename=n028 state=drain reason=topology-test
		case $(sinfo -h -n n028 -o %T) in
		drained | draining) BUSY="$BUSY,n028" ;;
		*) BAD="n028 is '$(sinfo -h -n n028 -o %T)' after state=drain" ;;
		esac
	fi
	# Fragmentation: whole-node jobs pinned across the torus.
	for h in n002 n011 n020 n029 n038 n047 n056; do
		run_job "pin-$h" 1 1 -N1 -w "$h" --exclusive -- --required "$h"
	done
	if [ "$SHAPE" = two-kinds ]; then
		even_share_16
		drop_one_12
	fi
	# The shape's own jobs first, while every subset they need has room
	# under either plugin.
	case $SHAPE in
	weights)
		# Only the heavy tier has bigmem.
		OFF="n[001-048]" run_job bigmem-2 1 2 -N2 --constraint=bigmem \
			--exclusive ;;
	features)
		# Even rows have ssd, odd rows hdd; either will do for the OR.
		OFF="n[009-016,025-032,041-048,057-064]" run_job ssd-2 1 2 -N2 \
			--constraint=ssd --exclusive
		OFF="n[001-008,017-024,033-040,049-056]" run_job hdd-2 1 2 -N2 \
			--constraint=hdd --exclusive
		run_job ssd-or-hdd-2 1 2 -N2 "--constraint=ssd|hdd" --exclusive ;;
	partitions)
		# half (n001-n032, its own Strategy and Curve) overlaps main.
		OFF="n[033-064]" run_job half-4 1 4 -N4 -p half --exclusive -- \
			--partition half
		OFF="n[033-064]" run_job half-2 1 2 -N2 -p half --exclusive -- \
			--partition half ;;
	esac
	run_job exclusive-5 1 5 -N5 --exclusive
	run_job exclusive-8 1 8 -N8 --exclusive
	# 8 CPUs on 4-CPU nodes: two whole nodes' worth, cores only (in
	# two-kinds, one node of 8 CPUs holds them: below).
	[ "$SHAPE" = two-kinds ] || run_job cores-8 1 2 -n8
	run_job mem-2 1 2 -N2 --mem=900 --exclusive
	run_job range-3-5 1 5 -N3-5 --exclusive
	# The last node still free, whichever plugin placed the jobs before.
	req=$(comm -23 <(scontrol show hostnames "$ALLNODES") \
		<(scontrol show hostnames "${BUSY#,}" | sort) | tail -n 1)
	run_job nodelist-3 1 3 -N3 -w "$req" --exclusive -- --required "$req"
	OFF="n[001-008]" run_job exclude-4 1 4 -N4 -x "n[001-008]" --exclusive
	run_job contiguous-4 1 4 -N4 --contiguous --exclusive -- --contiguous
	# GPU jobs take every GPU of their nodes (so no later job shares
	# them), but --gpus-per-node=1, after which no job is predicted.
	run_job gpu-per-node-3 1 3 -N3 --gres=gpu:2
	run_job gpus-per-job-4 1 2 --gpus=4
	run_job gpus-per-node-2 1 2 -N2 --gpus-per-node=1
	# Two kinds of node: a core job takes the fewest nodes that hold its
	# CPUs, one 8-CPU node for 8 (where 4-CPU nodes would take two), two
	# for 12, and two 8-CPU nodes for 16 (the core's most compact pair,
	# by hops alone, may be two small nodes or one of each); the control
	# may take more (compared below).
	if [ "$SHAPE" = two-kinds ]; then
		run_job cores-8 0 0 -n8
		[ "$MODE" = locality ] && check_node_count cores-8 1 8
		run_job cores-12 0 0 -n12
		[ "$MODE" = locality ] && check_node_count cores-12 2
		run_job cores-16 0 0 -n16
		[ "$MODE" = locality ] && check_node_count cores-16 2 8
	fi
	# Core jobs that share nodes (memory per CPU, so that a node's rest
	# stays free): 6 CPUs (a node and a half), then 2, which one node
	# holds: under topology/locality it goes to a best fit, a node of the
	# lightest tier with the fewest idle CPUs that hold it (one that
	# cores-6 shares), not to an idle node a multi-node job could use.
	local fit=""
	run_job cores-6 0 0 -n6 --mem-per-cpu=100
	[ "$MODE" = locality ] && fit=$(best_fit_nodes 2 200)
	run_job cores-2 0 0 -n2 --mem-per-cpu=100
	[ "$MODE" = locality ] && check_best_fit cores-2 "$fit"
	# A job array of whole-node jobs.
	id=$(sub -N2 --exclusive --array=0-2 -t 30 600)
	if [ -z "$id" ]; then
		BAD=${BAD:-"array: sbatch refused"}
	else
		for t in 0 1 2; do
			wait_state "${id}_$t" RUNNING 30 ||
				BAD=${BAD:-"array element ${id}_$t did not start"}
			echo "array-$t ${id}_$t" >>"$RUNROOT/$MODE.ids"
			echo "array-$t" >>"$RUNROOT/$MODE.exclusive"
		done
	fi
	# A reservation of the last idle nodes (at most 4): a job in it lands
	# where the core picks among them.
	local resv off
	resv=$(sinfo -h -N -t idle -o %N | sort -u | tail -n 4 | paste -sd, -)
	off=$(comm -23 <(scontrol show hostnames "$ALLNODES" | sort) \
		<(echo "$resv" | tr , '\n' | sort) | paste -sd, -)
	if [ "$(echo "$resv" | tr , '\n' | grep -c .)" -lt 2 ] ||
		! scontrol create reservation ReservationName=topo-test \
			Nodes="$resv" StartTime=now Duration=30 Users="$(id -un)" \
			>/dev/null; then
		BAD=${BAD:-"reservation: could not reserve two idle nodes of '$resv'"}
		return
	fi
	OFF=$off run_job reservation-2 1 2 -N2 --reservation=topo-test --exclusive
}

# given_twice - prints a node's CPU or GPU given to two running jobs
# (the per-node lines of scontrol -d show job: CPU_IDs=0-1,3 and
# GRES=gpu:2(IDX:0-1)).
given_twice() {
	scontrol -d show job 2>/dev/null | awk '
	function mark(n, kind, ids,    m, r, ab, j, a, b, c) {
		m = split(ids, r, ",")
		for (j = 1; j <= m; j++) {
			if (split(r[j], ab, "-") == 2) { a = ab[1]; b = ab[2] }
			else { a = r[j]; b = r[j] }
			for (c = a + 0; c <= b + 0; c++)
				if (seen[n, kind, c]++) print n " " kind " " c
		}
	}
	/^JobId=/ { running = 0 }
	/^ *JobState=RUNNING / { running = 1 }
	/^ *Nodes=/ && running {
		nodes = ""; cpus = ""; gpus = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^Nodes=/) nodes = substr($i, 7)
			if ($i ~ /^CPU_IDs=/) cpus = substr($i, 9)
			if ($i ~ /^GRES=/ && match($i, /IDX:[0-9,-]+/))
				gpus = substr($i, RSTART + 4, RLENGTH - 4)
		}
		if (nodes == "") next
		cmd = "scontrol show hostnames " nodes
		while ((cmd | getline n) > 0) {
			if (cpus != "") mark(n, "CPU", cpus)
			if (gpus != "") mark(n, "GPU", gpus)
		}
		close(cmd)
	}' | head -n 1
}

# job_gpus ID - the GPUs job ID holds, over all its nodes (scontrol -d
# gives one line to a group of nodes with the same allocation:
# Nodes=n[003-004] ... GRES=gpu:2(IDX:0-1) is 2 GPUs on each).
job_gpus() {
	local nodes n
	scontrol -d show job "$1" 2>/dev/null |
		sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=gpu:\([0-9]*\)(IDX.*/\1 \2/p' |
		while read -r nodes n; do
			echo "$((n * $(scontrol show hostnames "$nodes" | wc -l)))"
		done | awk '{ s += $1 } END { print s + 0 }'
}

# figures - "label NumNodes NumCPUs AllocTRES gpus=N" per recorded job.
figures() {
	local label id
	while read -r label id; do
		echo "$label $(job_field "$id" NumNodes) $(job_field "$id" NumCPUs) $(job_field "$id" AllocTRES) gpus=$(job_gpus "$id")"
		[ "$(job_field "$id" JobState)" = RUNNING ] ||
			echo "$label not running: $(job_field "$id" JobState)"
	done <"$RUNROOT/$MODE.ids"
}

# start_mode TOPO PREFIX - a fresh cons_tres cluster with topology/TOPO
# for MODE (locality.conf $LCONF for ours), its job records reset; sets
# ORDER, Slurm's node order (the node table), which locality-eval
# --nodes wants.
start_mode() {
	BUSY="" BAD=""
	: >"$RUNROOT/$MODE.ids"
	: >"$RUNROOT/$MODE.exclusive"
	# Accounting for topology/locality in the per-row shape: its records
	# read back with sacct as well (records_in_sacct).
	if ! CLUSTER_ACCOUNTING=$(accounting_wanted) \
		CLUSTER_TOPOLOGY=$1 start_cluster "$2-$MODE" cons_tres \
		"$([ "$MODE" = locality ] && echo "$LCONF")" \
		${SHAPE_CONF[@]+"${SHAPE_CONF[@]}"}; then
		not_ok "$2: $MODE: cluster started" "see the start log"
		return 1
	fi
	ORDER=$(scontrol show nodes -o | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' |
		paste -sd, -)
}

# reconfigure_line CASE FROM TO - the running cluster's locality.conf
# line FROM becomes TO, then scontrol reconfigure; false (reported as
# CASE's failure, the cluster stopped) when reconfigure fails.
reconfigure_line() {
	sed -i "s/^$2\$/$3/" "$CURRENT/etc/locality.conf"
	if ! scontrol reconfigure; then
		not_ok "$1: reconfigure" "scontrol reconfigure failed"
		stop_cluster
		return 1
	fi
	sleep 2
}

run_mode() {
	local topo=$1 twice
	MODE=$2
	start_mode "$topo" "$SHAPE" || return 1
	sequence
	if [ "$MODE" = locality ]; then
		result "$SHAPE: locality: every job started, whole-node ones where the core picks" "$BAD"
	else
		result "$SHAPE: control: every job started" "$BAD"
	fi
	twice=$(given_twice)
	result "$SHAPE: $MODE: no CPU or GPU given to two jobs" \
		"${twice:+$twice given twice}"
	figures >"$RUNROOT/$SHAPE-$MODE.figures"
	[ "$MODE" = locality ] && records
	if [ "$MODE" = locality ]; then
		local errs
		errs=$(grep -c 'error: topology/locality' "$CURRENT/log/slurmctld.log")
		result "$SHAPE: locality: no topology/locality errors in slurmctld's log" \
			"$([ "$errs" = 0 ] || echo "$errs error lines")"
		[ -n "$(accounting_wanted)" ] && records_in_sacct
	fi
	stop_cluster
}

run_shape() {
	local failed_before
	SHAPE=$1 WEIGHTS=() SHAPE_CONF=()
	export CLUSTER_SHAPE=$SHAPE
	LCONF=$RUNROOT/locality-$SHAPE.conf
	conf_for "$SHAPE" "$LCONF"
	[ "$SHAPE" = weights ] && WEIGHTS=(--node-weight "n[049-064]=100")
	failed_before=$NFAIL
	run_mode "$CONTROL" control
	if [ "$NFAIL" != "$failed_before" ]; then
		run_mode locality locality
		not_ok "$SHAPE: NumNodes, NumCPUs, TRES and GPUs equal the control's" \
			"the control did not pass its own checks"
		return
	fi
	run_mode locality locality
	# The same requests get the same resources; with two kinds of node,
	# whole nodes hold the CPUs and GPUs of their kind, so there: no
	# more nodes than the control's, and the same CPUs and GPUs for jobs
	# that share nodes.
	if [ "$SHAPE" = two-kinds ]; then
		result "$SHAPE: no more nodes than the control's, and the same CPUs and GPUs for jobs that share nodes" \
			"$(two_kinds_diff "$RUNROOT/$SHAPE-control.figures" \
				"$RUNROOT/$SHAPE-locality.figures" "$RUNROOT/locality.exclusive")"
	else
		result "$SHAPE: NumNodes, NumCPUs, TRES and GPUs equal the control's" \
			"$(diff "$RUNROOT/$SHAPE-control.figures" "$RUNROOT/$SHAPE-locality.figures" |
				grep '^[<>]' | head -n 2 | tr '\n' ' ')"
	fi
}

# two_kinds_diff CONTROL LOCALITY EXCLUSIVE - the first two jobs of the
# figures files (figures: label NumNodes NumCPUs TRES gpus=N) where
# locality has more nodes than the control or, for a job that shares
# nodes (not in EXCLUSIVE), other CPUs or GPUs; a job in one file only
# counts too.
two_kinds_diff() {
	awk 'FILENAME == ARGV[1] { x[$1] = 1; next }
		FILENAME == ARGV[2] { n[$1] = $2; c[$1] = $3; g[$1] = $5; next }
		{ seen[$1] = 1 }
		!($1 in n) { print $1 ": not in the control"; next }
		$2 > n[$1] { print $1 ": " $2 " nodes, control " n[$1]; next }
		!($1 in x) && $5 != g[$1] { print $1 ": " $5 ", control " g[$1]; next }
		!($1 in x) && $3 != c[$1] { print $1 ": " $3 " CPUs, control " c[$1] }
		END { for (l in n) if (!(l in seen)) print l ": control only" }' \
		"$3" "$1" "$2" | head -n 2 | paste -sd ';' -
}

. "$HERE/topology/records.sh"
. "$HERE/topology/faults.sh"
. "$HERE/compact-wait.sh"
. "$HERE/topology/compact.sh"
. "$HERE/topology/plan-hold.sh"
. "$HERE/topology/shared-nodes.sh"
. "$HERE/topology/walltime.sh"

# wanted CASE - whether --only (all cases when not given) names CASE.
wanted() {
	[ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]
}

main() {
	local shape
	if [ ! -f "${PLUGDIR:-}/topology_locality.so" ] || [ -z "$EVAL" ]; then
		not_ok "topology/locality built" "no $PLUGDIR/topology_locality.so or locality-eval"
		lib_finish
		return
	fi
	note "plugin: $PLUGDIR; control: topology/$CONTROL; run dir: $RUNROOT"
	if wanted shapes; then
		for shape in ${SHAPES//,/ }; do
			run_shape "$shape"
		done
	fi
	wanted faults && faults
	# bf_busy_nodes: backfill's future states go to Slurm's busy-first
	# helper inside this plugin, which needs slurmctld's idle_node_bitmap.
	SHAPE_CONF=(SchedulerParameters=bf_busy_nodes
		"AuthInfo=cred_expire=$TC_CRED")
	wanted compact && compact_wait
	SHAPE_CONF=()
	wanted plan-hold && plan_hold
	wanted shared-nodes && shared_nodes
	wanted walltime && walltime_aware
	export CLUSTER_SHAPE=single
	lib_finish
}

main; exit $?
