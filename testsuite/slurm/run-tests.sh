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
#      up, and takes the best set there is at its deadline; a job
#      offered nothing while it queued waits afresh; the same for
#      --constraint jobs, whose reference is made on the nodes their
#      constraint allows (a cluster of the features shape); with
#      GresName=gpu CompactWait=0 (a cluster with GPUs), a GPU job takes
#      scattered nodes at once while a job without GRES waits
#   i  a reservation of N nodes gets the nodes the core picks (22.05 asks
#      the plugin through resv_test, 24.11 through job_test), and a job
#      in it runs on them
#   p  WILL_RUN (sbatch --test-only) answers with the core planner's start
#      and nodes (locality-eval --plan) for the same running jobs
#   k  WalltimeAware=pf: a starting job's partner gets an idle region held,
#      which a job of lower priority keeps off; with PlanHold=released a
#      later start holds released nodes, not the PF-held idle ones; under
#      CompactWait a partner gets no region it would decline; at its turn
#      a partner starts on its held region, not on a more compact set;
#      one whose region is broken loses its hold at its turn, in
#      backfill's WILL_RUN and in the main scheduler's RUN_NOW
#   r  each job's placement record in its AdminComment reaches sacct
#      (slurmdbd and MariaDB, cluster.sh --accounting, on the host and in
#      each root; where they are not installed, scontrol) and agrees with its NodeList and the ideal for
#      its size; an administrator's own AdminComment is kept;
#      RecordPlacement=none records nothing
# Uses ports 6817 and 17001-17064 (case r also 6819 for slurmdbd and
# 6820 for MariaDB). Daemons are stopped by PID on exit.

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
	-h | --help) sed -n '4,56p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
PartitionName=pfw WalltimeAware=pf CompactWait=60 CompactTolerance=0.1
EOF
sed 's/^Strategy=mm$/Strategy=bestfit/' "$LCONF_MM" >"$LCONF_BF"
# The policy of partition hold, for locality-eval --plan (case p).
LCONF_HOLD=$RUNROOT/locality-hold.conf
printf 'PlanHold=released\n' | cat "$LCONF_MM" - >"$LCONF_HOLD"
HOLD_PART="PartitionName=hold Nodes=$ALLNODES Default=NO MaxTime=INFINITE State=UP"
PF_PART="PartitionName=pfp Nodes=$ALLNODES Default=NO MaxTime=INFINITE State=UP"
PFW_PART="PartitionName=pfw Nodes=$ALLNODES Default=NO MaxTime=INFINITE State=UP"
H_WAIT=25
LCONF_WAIT=$RUNROOT/locality-wait.conf
printf 'CompactWait=%s\n' "$H_WAIT" | cat "$LCONF_MM" - >"$LCONF_WAIT"
# Case h's GresName line, on a cluster whose nodes have GPUs.
LCONF_WAIT_GRES=$RUNROOT/locality-wait-gres.conf
printf 'GresName=gpu CompactWait=0\n' | cat "$LCONF_WAIT" - >"$LCONF_WAIT_GRES"

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

# a, c, d, e, i, f: where jobs land and what survives, in place-cases.sh.
. "$HERE/place-cases.sh"

# h, p, k: the planning cases, in plan-cases.sh; h runs compact-wait.sh's
# scenario.
. "$HERE/compact-wait.sh"
. "$HERE/plan-cases.sh"

# r: each job's placement in accounting, in record-cases.sh.
. "$HERE/record-cases.sh"

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
		elif start_cluster sut-mm "$SUT" "$LCONF_MM" "$HOLD_PART" "$PF_PART" \
			"$PFW_PART"; then
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
			if CLUSTER_SHAPE=features start_cluster sut-wait-features \
				"$SUT" "$LCONF_WAIT"; then
				case_h_constraint
				stop_cluster
			else
				not_ok "h: CompactWait cluster, features shape" "cluster did not start"
			fi
			if CLUSTER_GPUS=2 start_cluster sut-wait-gres "$SUT" \
				"$LCONF_WAIT_GRES"; then
				case_h_gres
				stop_cluster
			else
				not_ok "h: CompactWait cluster with GPUs" "cluster did not start"
			fi
		fi
		if want r && [ "$SUT" = locality ]; then
			[ "$RECORD_SOURCE" = sacct ] || note "r: no slurmdbd here: records read with scontrol, not sacct"
			if CLUSTER_ACCOUNTING=$([ "$RECORD_SOURCE" = sacct ] && echo 1) \
				start_cluster sut-record "$SUT" "$LCONF_MM"; then
				case_r
				stop_cluster
			else
				not_ok "r: a cluster with accounting (slurmdbd)" "cluster did not start"
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
		want r && not_ok "r: placement records in sacct" "plugin not built"
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
