# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/compact.sh - topology-tests.sh's CompactWait case, sourced by it
# (its conf_for, start_mode and the lib.sh helpers): lib.sh's
# compact_scenario (run-tests.sh's case h) under topology/locality, each
# job --exclusive, in the per-row shape with CompactWait=$TC_WAIT, and
# backfill with bf_busy_nodes (SHAPE_CONF), whose future states run
# Slurm's busy-first helper inside this plugin; then a job in a
# reservation of scattered nodes, which must not wait.

TC_WAIT=25

compact_wait() {
	local CLUSTER_DEBUG=debug # the "waits for a compact placement" line
	MODE=locality
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-compact.conf
	conf_for per-row "$LCONF"
	echo "CompactWait=$TC_WAIT" >>"$LCONF"
	start_mode locality compact || return 1
	compact_scenario "$TC_WAIT" --exclusive
	result "compact: CompactWait: a job waits for a compact set and takes it when it frees up" "$CW_WAIT"
	result "compact: CompactWait: the nodes a waiting job declines are backfilled" "$CW_FILL"
	result "compact: CompactWait: a job takes the best set there is at its deadline" "$CW_DEAD"
	compact_in_reservation
	stop_cluster
}

# compact_in_reservation - on an idle machine, a reservation of the four
# scattered nodes: a 4-node job in it starts at once, since no more
# compact set exists for it there (its reference is made inside the
# reservation, not on the whole partition).
compact_in_reservation() {
	local bad="" resv="n[001,004,037,040]" id
	scancel --user="$(id -un)" 2>/dev/null
	wait_all_idle 60 || bad="the nodes did not come back idle"
	if [ -z "$bad" ] && ! scontrol create reservation ReservationName=cw-test \
		Nodes="$resv" StartTime=now Duration=30 Users="$(id -un)" >/dev/null; then
		bad="could not reserve $resv"
	fi
	if [ -z "$bad" ]; then
		id=$(sub -N4 --exclusive --reservation=cw-test -t 30 600)
		if [ -z "$id" ]; then
			bad="sbatch refused the job in the reservation: $(tail -n 1 "$RUNROOT/sbatch.err")"
		elif ! wait_state "$id" RUNNING 10; then
			bad="job $id in reservation $resv still $(job_field "$id" JobState) after 10 s (CompactWait=$TC_WAIT)"
		elif [ "$(expand "$(job_field "$id" NodeList)")" != "$(expand "$resv")" ]; then
			bad="job $id got $(job_field "$id" NodeList), not $resv"
		fi
	fi
	result "compact: CompactWait: a job in a reservation waits for no set outside it" "$bad"
}
