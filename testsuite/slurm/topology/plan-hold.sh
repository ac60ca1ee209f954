# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/plan-hold.sh - topology-tests.sh's PlanHold case, sourced by it
# (its conf_for, start_mode and the lib.sh helpers): which nodes backfill
# plans for a job that can start only later. Rows 1-3 and 5-7 of the 8x8
# torus run two long whole-node jobs; rows 4 and 8 stand idle; a 20-node
# job waits. Backfill plans it where the running jobs release nodes, and
# shows the plan as the job's SchedNodes (squeue --start).
#   PlanHold=placement (the control): the plan is the set the core picks
#     among all the nodes free by then, which takes idle nodes too;
#   PlanHold=released: the plan holds only nodes busy now (rows 1-3 hold
#     20 nodes), so the idle rows stay free for other jobs.
# One cluster: the second policy comes by scontrol reconfigure with an
# edited locality.conf.

PH_BUSY="n[001-024],n[033-056]" # rows 1-3 and 5-7

# plan_hold_sched_nodes - runs the scenario once; sets PH_PLAN to the
# waiting job's SchedNodes, expanded, or PH_BAD to why there is none.
plan_hold_sched_nodes() {
	local a b c end=$((SECONDS + 30))
	PH_PLAN="" PH_BAD=""
	a=$(sub -N24 --exclusive -w "n[001-024]" -t 10 600)
	b=$(sub -N24 --exclusive -w "n[033-056]" -t 10 600)
	if ! wait_state "$a" RUNNING 30 || ! wait_state "$b" RUNNING 30; then
		PH_BAD="the two long jobs did not start"
		scancel $a $b 2>/dev/null
		return
	fi
	c=$(sub -N20 --exclusive -t 5 60)
	while [ "$SECONDS" -lt "$end" ]; do
		PH_PLAN=$(squeue -h --start -j "$c" -o %Y 2>/dev/null)
		case $PH_PLAN in "" | "(null)" | "N/A") PH_PLAN="" ;; *) break ;; esac
		sleep 1
	done
	[ -n "$PH_PLAN" ] || PH_BAD="backfill planned no nodes for job $c in 30 s ($(job_field "$c" Reason))"
	PH_PLAN=$(expand "$PH_PLAN")
	scancel $a $b $c 2>/dev/null
	wait_empty 30 >/dev/null
	wait_all_idle 30
}

# plan_hold_idle_in PLAN - the nodes of PLAN that are idle during the
# scenario (outside PH_BUSY), comma-joined.
plan_hold_idle_in() {
	comm -23 <(tr , '\n' <<<"$1" | sort) \
		<(expand "$PH_BUSY" | tr , '\n' | sort) | paste -sd, -
}

plan_hold() {
	local idle why control_bad SHAPE=plan-hold
	MODE=locality
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-plan-hold.conf
	conf_for per-row "$LCONF"
	echo "PlanHold=placement" >>"$LCONF"
	start_mode locality plan-hold || return 1

	plan_hold_sched_nodes
	idle=$(plan_hold_idle_in "$PH_PLAN")
	why=$PH_BAD
	[ -z "$why" ] && [ -z "$idle" ] &&
		why="the plan $PH_PLAN holds no idle node: the case cannot tell the policies apart"
	result "plan-hold: PlanHold=placement (control): the plan takes idle nodes" "$why"
	control_bad=$why
	note "plan-hold: placement: SchedNodes $PH_PLAN (idle: ${idle:-none})"

	reconfigure_line plan-hold PlanHold=placement PlanHold=released || return
	plan_hold_sched_nodes
	idle=$(plan_hold_idle_in "$PH_PLAN")
	why=$PH_BAD
	if [ -n "$control_bad" ]; then
		why="the control did not pass (${control_bad}); released got $PH_PLAN"
	elif [ -z "$why" ] && [ -n "$idle" ]; then
		why="the plan $PH_PLAN holds idle nodes $idle"
	elif [ -z "$why" ] && [ "$(tr , '\n' <<<"$PH_PLAN" | grep -c .)" != 20 ]; then
		why="the plan $PH_PLAN is not 20 nodes"
	fi
	result "plan-hold: PlanHold=released: the plan holds only nodes busy now" "$why"
	note "plan-hold: released: SchedNodes $PH_PLAN"
	stop_cluster
}
