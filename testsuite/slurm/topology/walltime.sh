# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/walltime.sh - topology-tests.sh's WalltimeAware case, sourced
# by it (its conf_for, start_mode and the lib.sh helpers): SL's tie-break
# inside select/cons_tres. On the 8x8 torus (Strategy=box) two long
# whole-node jobs hold every node but two 2x2 squares: A, with a 5-minute
# limit, holds columns 1-4 around square S1 (n010,n011,n018,n019); B,
# with a 60-minute limit, columns 5-8 around S2 (n046,n047,n054,n055).
# The squares are equally compact, and each one's neighbours all run one
# job. A 4-node job with a 55-minute limit (LATE), then, once it is gone,
# one with a 6-minute limit (SOON):
#   WalltimeAware=none (the control): both take the same square, the
#     first of the tie (else the case cannot tell the rules apart);
#   WalltimeAware=sl: LATE takes S2, beside B, whose end is closest to
#     its own; SOON takes S1, beside A;
#   WalltimeAware=combo: the same (PF is select/locality's), and
#     slurmctld's log says so.
# One cluster: the other rules come by scontrol reconfigure with an
# edited locality.conf.

WT_S1="n010,n011,n018,n019"
WT_S2="n046,n047,n054,n055"

# walltime_halves - sets WT_A and WT_B to the nodes of columns 1-4 and
# 5-8 less S1 and S2 (node n(8r+c+1) is at row r, column c).
walltime_halves() {
	local r c n a=() b=()
	for r in 0 1 2 3 4 5 6 7; do
		for c in 0 1 2 3 4 5 6 7; do
			n=$(printf 'n%03d' $((8 * r + c + 1)))
			[[ ",$WT_S1,$WT_S2," == *",$n,"* ]] && continue
			if [ "$c" -lt 4 ]; then a+=("$n"); else b+=("$n"); fi
		done
	done
	WT_A=$(IFS=,; echo "${a[*]}")
	WT_B=$(IFS=,; echo "${b[*]}")
}

# walltime_place MINUTES - submits the 4-node job with that limit; sets
# WT_NODES to its nodes, expanded, or WT_BAD to why it has none, and
# cancels it.
walltime_place() {
	local j end
	WT_NODES="" WT_BAD=""
	j=$(sub -N4 --exclusive -t "$1" 600)
	if ! wait_state "$j" RUNNING 30; then
		WT_BAD="the ${1}-minute job $j did not start ($(job_field "$j" Reason))"
	else
		WT_NODES=$(expand "$(job_field "$j" NodeList)")
	fi
	scancel "$j" 2>/dev/null
	end=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$end" ] && [ -n "$(squeue -h -j "$j" -o %i 2>/dev/null)" ]; do
		sleep 0.5
	done
}

# walltime_pair - both jobs in turn: WT_LATE and WT_SOON, or WT_BAD.
walltime_pair() {
	walltime_place 55
	WT_LATE=$WT_NODES
	[ -n "$WT_BAD" ] && return
	walltime_place 6
	WT_SOON=$WT_NODES
}

# walltime_square NODES - S1 or S2 when NODES is that square, else empty.
walltime_square() {
	case $1 in
	"$WT_S1") echo S1 ;;
	"$WT_S2") echo S2 ;;
	esac
}

# walltime_by_ends FROM TO - reconfigures WalltimeAware=FROM to TO and
# runs the pair; sets WT_WHY to why the 55-minute job did not take S2 and
# the 6-minute one S1 (the squares beside the jobs ending closest to
# theirs), or to nothing. False when reconfigure fails (cluster stopped).
walltime_by_ends() {
	local late soon
	reconfigure_line walltime "WalltimeAware=$1" "WalltimeAware=$2" || return 1
	walltime_pair
	WT_WHY=$WT_BAD
	late=$(walltime_square "$WT_LATE") soon=$(walltime_square "$WT_SOON")
	if [ -n "$WT_CONTROL_BAD" ]; then
		WT_WHY="the control did not pass (${WT_CONTROL_BAD}); $2 gave $WT_LATE and $WT_SOON"
	elif [ -z "$WT_WHY" ] && { [ "$late" != S2 ] || [ "$soon" != S1 ]; }; then
		WT_WHY="under $2 the 55-minute job took $WT_LATE (want S2 $WT_S2, beside the 60-minute job) and the 6-minute job $WT_SOON (want S1 $WT_S1, beside the 5-minute job)"
	fi
	note "walltime: $2: 55 min $WT_LATE, 6 min $WT_SOON"
}

walltime_aware() {
	local a b why late soon SHAPE=walltime
	WT_CONTROL_BAD=""
	MODE=locality
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-walltime.conf
	conf_for per-row "$LCONF"
	sed -i 's/^Strategy=pack$/Strategy=box/' "$LCONF"
	echo "WalltimeAware=none" >>"$LCONF"
	start_mode locality walltime || return 1

	walltime_halves
	a=$(sub -N28 --exclusive -w "$WT_A" -t 5 600)
	b=$(sub -N28 --exclusive -w "$WT_B" -t 60 600)
	if ! wait_state "$a" RUNNING 30 || ! wait_state "$b" RUNNING 30; then
		not_ok "walltime: set-up" "the jobs around the two squares did not start"
		scancel "$a" "$b" 2>/dev/null
		stop_cluster
		return
	fi

	walltime_pair
	why=$WT_BAD
	late=$(walltime_square "$WT_LATE") soon=$(walltime_square "$WT_SOON")
	if [ -z "$why" ]; then
		if [ -z "$late" ] || [ -z "$soon" ]; then
			why="the jobs took $WT_LATE and $WT_SOON, not the squares"
		elif [ "$late" != "$soon" ]; then
			why="the jobs took different squares ($late, $soon) without SL: the case cannot tell the rules apart"
		fi
	fi
	result "walltime: WalltimeAware=none (control): both jobs take the same square" "$why"
	WT_CONTROL_BAD=$why
	note "walltime: none: 55 min $WT_LATE, 6 min $WT_SOON"

	walltime_by_ends none sl || return
	result "walltime: WalltimeAware=sl: each job takes the square whose neighbours end closest to its own end" "$WT_WHY"
	# combo is SL and PF: here its SL part, and slurmctld says so.
	walltime_by_ends sl combo || return
	if [ -z "$WT_WHY" ] && ! grep -q "combo and adjest as sl" "$CURRENT/log/slurmctld.log"; then
		WT_WHY="slurmctld's log does not say how combo places under topology/locality"
	fi
	result "walltime: WalltimeAware=combo places as sl, and slurmctld logs it" "$WT_WHY"
	scancel "$a" "$b" 2>/dev/null
	wait_empty 30 >/dev/null
	stop_cluster
}
