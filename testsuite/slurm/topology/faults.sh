# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/faults.sh - topology-tests.sh's faults, sourced by it (its run_job,
# start_mode, BUSY and the lib.sh helpers): slurmctld kill -9 under both
# plugins, a node DOWN, a reconfigure and a slurmd killed under
# topology/locality, and a broken locality.conf.

# lost_after_restart FILE LOG OFFSET - sorts FILE's "label id" jobs that
# are not RUNNING after a slurmctld restart. One that slurmctld recovered
# with its batch step (LOG past OFFSET: "Recovered JobId=N StepId=batch")
# was saved running and is lost after the restart: LOST. One saved before
# it started, or not at all, is Slurm's own save-window loss: SAVE_LOST;
# it is cancelled so later jobs meet the free set the test predicts from.
# Each entry names the job and what slurmctld now says of it.
lost_after_restart() {
	local label id state recovered
	LOST="" SAVE_LOST=""
	recovered=$(tail -c +$(($3 + 1)) "$2" |
		sed -n 's/.*Recovered JobId=\([0-9]*\) StepId=batch$/\1/p')
	while read -r label id; do
		state=$(job_field "$id" JobState)
		[ "$state" = RUNNING ] && continue
		state="$label=$id:${state:-unknown}($(job_field "$id" Reason))"
		if echo "$recovered" | grep -qx "$id"; then
			LOST="$LOST $state"
		else
			SAVE_LOST="$SAVE_LOST $state"
			scancel "$id" 2>/dev/null
		fi
	done <"$1"
	LOST=${LOST# } SAVE_LOST=${SAVE_LOST# }
}

# busy_of FILE - the nodes of FILE's jobs that are RUNNING, for BUSY.
busy_of() {
	local label id
	while read -r label id; do
		[ "$(job_field "$id" JobState)" = RUNNING ] &&
			printf ',%s' "$(job_field "$id" NodeList)"
	done <"$1"
}

# fault_run TOPO MODE - whole-node jobs running, then slurmctld kill -9;
# under locality also a node DOWN and back, and a reconfigure with an
# edited locality.conf, each followed by a job that must land where the
# core picks. Sets LOST and SAVE_LOST (lost_after_restart).
fault_run() {
	local topo=$1 k ids=$RUNROOT/faults-$2.ids down log off
	MODE=$2 LOST="" SAVE_LOST=""
	start_mode "$topo" faults || return 1
	for k in 4 3 5 2 6 1; do
		run_job "before-$k" 1 "$k" -N"$k" --exclusive
	done
	cp "$RUNROOT/$MODE.ids" "$ids"
	# Past slurmctld's state-save window (SAVE_MAX_WAIT, 5 s). A job
	# started by backfill is still unsaved: 24.11 saves job state after
	# the main scheduler starts jobs, not after backfill does, so such a
	# job is recovered PENDING; lost_after_restart tells the two apart.
	sleep 11
	log=$CURRENT/log/slurmctld.log off=$(stat -c %s "$CURRENT/log/slurmctld.log")
	if ! "$CLUSTER" restart-ctld --dir "$CURRENT" --kill9 >/dev/null 2>&1; then
		not_ok "faults: $MODE: slurmctld restarted after kill -9"
		stop_cluster
		return 1
	fi
	lost_after_restart "$ids" "$log" "$off"
	[ -z "$SAVE_LOST" ] ||
		note "$MODE: not saved running by slurmctld before the kill, cancelled: $SAVE_LOST"
	BUSY=$(busy_of "$ids")
	run_job after-kill9 1 4 -N4 --exclusive
	if [ "$MODE" = locality ]; then
		# A node the core would pick goes DOWN: the job avoids it.
		down=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --predict \
			--busy "${BUSY#,}" -k 3 2>/dev/null)
		down=$(expand "$down" | cut -d, -f1)
		scontrol update nodename="$down" state=down reason=topology-test ||
			BAD=${BAD:-"could not set ${down:-(no node)} DOWN"}
		OFF=$down run_job node-down 1 3 -N3 --exclusive
		scontrol update nodename="$down" state=resume
		# An edited locality.conf, read again on reconfigure.
		sed -i 's/^Strategy=pack$/Strategy=firstfit/' "$CURRENT/etc/locality.conf"
		cp "$CURRENT/etc/locality.conf" "$LCONF.edited"
		scontrol reconfigure >/dev/null 2>&1
		sleep 3
		"$CLUSTER" env --dir "$CURRENT" >/dev/null 2>&1
		local end=$((SECONDS + 30))
		until scontrol ping 2>/dev/null | grep -q 'is UP' ||
			[ $SECONDS -gt $end ]; do sleep 0.5; done
		grep -q 'topology/locality: Strategy=firstfit' \
			"$CURRENT/log/slurmctld.log" ||
			BAD=${BAD:-"no 'Strategy=firstfit' logged after reconfigure"}
		LCONF=$LCONF.edited run_job after-reconfigure 1 5 -N5 --exclusive
		LCONF=$LCONF.edited slurmd_killed
	fi
	result "faults: $MODE: jobs start after slurmctld kill -9$([ "$MODE" = locality ] && echo ', a node DOWN, a reconfigure and a slurmd killed, where the core picks')" "$BAD"
	stop_cluster
}

# slurmd_killed - the slurmd of a running job's node (before-1's, or
# after-kill9's if slurmctld lost before-1) killed with -9: slurmctld
# marks the node DOWN, its job comes back to the queue (held, so the next
# job meets a known free set), a job lands where the core picks without
# that node, the held job, released, runs again where the core picks, and
# the node is back in service once its slurmd is.
slurmd_killed() {
	local id="" label node pid end state pred k
	[ -n "$BAD" ] && return
	# before-1 (one node), or after-kill9 if slurmctld lost before-1.
	for label in before-1 after-kill9; do
		id=$(awk -v l="$label" '$1 == l { print $2 }' "$RUNROOT/$MODE.ids")
		[ "$(job_field "$id" JobState)" = RUNNING ] && break
	done
	k=$(job_field "$id" NumNodes)
	node=$(expand "$(job_field "$id" NodeList)" | cut -d, -f1)
	pid=$(cat "$CURRENT/run/slurmd.$node.recpid" 2>/dev/null)
	if [ -z "$node" ] || [ -z "$pid" ] || ! kill -9 "$pid"; then
		BAD="slurmd-killed: no slurmd to kill for $label ($id on '${node}')"
		return
	fi
	end=$((SECONDS + 120))
	until [[ $(sinfo -h -n "$node" -o %T) == down* ]] || [ $SECONDS -gt $end ]; do
		sleep 2
	done
	state=$(sinfo -h -n "$node" -o %T)
	[[ $state == down* ]] || {
		BAD="slurmd-killed: $node is '$state' 120 s after its slurmd was killed"
		return
	}
	# The job is requeued (JobRequeue) or ended; held if it waits.
	end=$((SECONDS + 60))
	while [[ $(job_field "$id" JobState) == @(RUNNING|COMPLETING) ]] &&
		[ $SECONDS -le $end ]; do
		sleep 1
	done
	state=$(job_field "$id" JobState)
	[ "$state" = PENDING ] && scontrol hold "$id"
	note "$MODE: slurmd-killed: $node down, $label ($id) now $state"
	# Its other nodes are free once they have completed it.
	end=$((SECONDS + 30))
	while [ -n "$(sinfo -h -t completing -o %N)" ] && [ $SECONDS -le $end ]; do
		sleep 1
	done
	BUSY=$(busy_of "$RUNROOT/$MODE.ids")
	OFF=$node run_job slurmd-down 1 2 -N2 --exclusive
	[ -n "$BAD" ] && return
	if [ "$state" = PENDING ]; then
		# A requeued job waits out the credential's life (120 s) before
		# it may start again; StartTime=now skips that wait.
		pred=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --predict \
			--busy "${BUSY#,},$node" -k "$k" 2>&1)
		scontrol release "$id"
		scontrol update jobid="$id" StartTime=now
		wait_state "$id" RUNNING 60 || {
			BAD="slurmd-killed: $label ($id) requeued, released, not running 60 s later: $(job_field "$id" JobState) $(job_field "$id" Reason)"
			return
		}
		[ "$(expand "$(job_field "$id" NodeList)")" = "$(expand "$pred")" ] || {
			BAD="slurmd-killed: requeued $label ($id) got $(job_field "$id" NodeList), the core picks $pred"
			return
		}
		note "$MODE: slurmd-killed: $label ($id) runs again on $(job_field "$id" NodeList), as the core picks"
	fi
	"$CLUSTER" restart-slurmd --dir "$CURRENT" --node "$node" >/dev/null 2>&1 || {
		BAD="slurmd-killed: the slurmd of $node did not start again"
		return
	}
	end=$((SECONDS + 60))
	until [[ $(sinfo -h -n "$node" -o %T) == idle ]] || [ $SECONDS -gt $end ]; do
		sleep 2
	done
	state=$(sinfo -h -n "$node" -o %T)
	[ "$state" = idle ] ||
		BAD="slurmd-killed: $node is '$state' 60 s after its slurmd came back"
}

# A locality.conf that names a node slurm.conf lacks stops slurmctld at
# start, with file, line and text.
broken_conf() {
	local bad=$RUNROOT/locality-broken.conf log
	{ cat "$LCONF"; echo "NodeName=n099 Coords=0,0"; } >"$bad"
	if CLUSTER_TOPOLOGY=locality start_cluster faults-broken cons_tres "$bad" \
		>/dev/null 2>&1; then
		not_ok "faults: a broken locality.conf stops slurmctld at start" \
			"slurmctld started"
		stop_cluster
		return
	fi
	log=$RUNROOT/faults-broken/log/slurmctld.log
	result "faults: a broken locality.conf stops slurmctld at start" \
		"$(grep -q "fatal: topology/locality: .*locality.conf:[0-9]*: .*n099" "$log" ||
			echo "no fatal line naming file, line and n099 in slurmctld.log")"
	CURRENT=""
}

faults() {
	local control_lost control_save_lost
	# Both runs alike, without slurmdbd: with it, a 26.05 slurmctld killed
	# before its first state save will not start again without -i ("No
	# Assoc usage file to recover"), whatever the topology plugin.
	local RECORD_SOURCE=scontrol
	SHAPE=per-row WEIGHTS=()
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-faults.conf
	conf_for per-row "$LCONF"
	fault_run "$CONTROL" control || return
	control_lost=$LOST control_save_lost=$SAVE_LOST
	fault_run locality locality || return
	# A job slurmctld saved running and recovered must still run; what
	# Slurm itself did not save is counted apart and bounded by the
	# control's, plus one for the race of a single kill.
	result "faults: jobs saved running and lost at kill -9: locality $(echo "$LOST" | wc -w), control $(echo "$control_lost" | wc -w)" \
		"$([ -z "$LOST$control_lost" ] ||
			echo "locality: ${LOST:-none}; control: ${control_lost:-none}")"
	result "faults: jobs slurmctld had not saved running at kill -9: locality $(echo "$SAVE_LOST" | wc -w), control $(echo "$control_save_lost" | wc -w)" \
		"$([ "$(echo "$SAVE_LOST" | wc -w)" -le $(($(echo "$control_save_lost" | wc -w) + 1)) ] ||
			echo "locality: $SAVE_LOST; control: ${control_save_lost:-none}")"
	broken_conf
}
