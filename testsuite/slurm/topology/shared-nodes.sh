# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/shared-nodes.sh - topology-tests.sh's SharedNodes case, sourced
# by it (its conf_for, start_mode and the lib.sh helpers): which nodes a
# job that shares nodes takes. On the 8x8 torus one long whole-node job
# holds every node but n026-n030 (a line of five in row 4), and a core job
# holds 2 of n028's 4 CPUs. A core job of 6 CPUs then needs two nodes:
#   SharedNodes=any (the control): the most compact pair the core picks
#     among the five; its perimeter rule takes a pair at an end of the
#     line, which must leave n028 out and touch it (else the case cannot
#     tell the rules apart);
#   SharedNodes=first: the idle node of that pair away from n028 is
#     swapped for n028 at no cost in hops, so the job's two nodes are
#     n028 and a neighbour, and one more node of the line stays idle.
# One cluster: the second rule comes by scontrol reconfigure with an
# edited locality.conf.

SN_BUSY="n[001-025],n[031-064]"
SN_SHARED=n028
SN_NEIGHBOURS="n027 n029"

# shared_nodes_pair - submits the 6-CPU job; sets SN_NODES to its nodes,
# expanded, or SN_BAD to why it has none, and cancels it.
shared_nodes_pair() {
	local j
	SN_NODES="" SN_BAD=""
	j=$(sub -n6 --mem-per-cpu=100 -t 10 600)
	if ! wait_state "$j" RUNNING 30; then
		SN_BAD="the 6-CPU job $j did not start ($(job_field "$j" Reason))"
	else
		SN_NODES=$(expand "$(job_field "$j" NodeList)")
	fi
	scancel "$j" 2>/dev/null
	# Its nodes free again (completing ends) before the next one.
	local end=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$end" ] && [ -n "$(squeue -h -j "$j" -o %i 2>/dev/null)" ]; do
		sleep 0.5
	done
}

# shared_nodes_check NODES - why NODES is not n028 and one of its
# neighbours, or nothing.
shared_nodes_check() {
	local n
	[ "$(tr , '\n' <<<"$1" | grep -c .)" = 2 ] || { echo "$1 is not two nodes"; return; }
	[[ ",$1," == *",$SN_SHARED,"* ]] || { echo "$1 leaves $SN_SHARED out"; return; }
	for n in $SN_NEIGHBOURS; do
		[[ ",$1," == *",$n,"* ]] && return
	done
	echo "$1 is not $SN_SHARED and a neighbour"
}

shared_nodes() {
	local busy part why control_bad="" n touches=0 SHAPE=shared-nodes
	MODE=locality
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-shared-nodes.conf
	conf_for per-row "$LCONF"
	echo "SharedNodes=any" >>"$LCONF"
	start_mode locality shared-nodes || return 1

	busy=$(sub -N59 --exclusive -w "$SN_BUSY" -t 10 600)
	part=$(sub -n2 --mem-per-cpu=100 -w "$SN_SHARED" -t 10 600)
	if ! wait_state "$busy" RUNNING 30 || ! wait_state "$part" RUNNING 30; then
		not_ok "shared-nodes: set-up" "the whole-node job or the 2-CPU job on $SN_SHARED did not start"
		scancel "$busy" "$part" 2>/dev/null
		stop_cluster
		return
	fi

	shared_nodes_pair
	why=$SN_BAD
	if [ -z "$why" ]; then
		for n in $SN_NEIGHBOURS; do
			[[ ",$SN_NODES," == *",$n,"* ]] && touches=1
		done
		if [[ ",$SN_NODES," == *",$SN_SHARED,"* ]]; then
			why="the pair $SN_NODES takes $SN_SHARED already: the case cannot tell the rules apart"
		elif [ "$touches" = 0 ]; then
			why="the pair $SN_NODES does not touch $SN_SHARED: the case cannot tell the rules apart"
		fi
	fi
	result "shared-nodes: SharedNodes=any (control): the pair is idle nodes next to $SN_SHARED" "$why"
	control_bad=$why
	note "shared-nodes: any: $SN_NODES"

	reconfigure_line shared-nodes SharedNodes=any SharedNodes=first || return
	shared_nodes_pair
	why=$SN_BAD
	if [ -n "$control_bad" ]; then
		why="the control did not pass (${control_bad}); first got $SN_NODES"
	elif [ -z "$why" ]; then
		why=$(shared_nodes_check "$SN_NODES")
	fi
	result "shared-nodes: SharedNodes=first: the pair takes $SN_SHARED, which already runs a job" "$why"
	note "shared-nodes: first: $SN_NODES"
	scancel "$busy" "$part" 2>/dev/null
	wait_empty 30 >/dev/null
	stop_cluster
}
