# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/compact.sh - topology-tests.sh's CompactWait case, sourced by it
# (its conf_for, start_mode and the lib.sh helpers). Under topology/locality
# only, per-row shape, locality.conf with CompactWait=$TC_WAIT:
#   blockers leave four scattered nodes free, plus a 2x2 block under a job
#   of its own. A 4-node --exclusive job waits rather than take the
#   scattered nodes (slurmctld logs why); meanwhile a later 1-node job is
#   backfilled onto one of them (a waiting job holds only the block it is
#   planned on); cancelling the block's job starts it there. A second
#   4-node job finds only the scattered nodes and takes them at its
#   deadline, not before. Backfill runs with bf_busy_nodes (SHAPE_CONF).
# The same scenario is run-tests.sh's case h for select/locality.

TC_WAIT=25

compact_wait() {
	local free="n[001,004,037,040]" block="n[010-011,018-019]"
	local bad_wait="" bad_fill="" bad_dead="" rest a b j1 j2 j3 t0 t1 end
	local CLUSTER_DEBUG=debug # the "waits for a compact placement" line
	MODE=locality
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-compact.conf
	conf_for per-row "$LCONF"
	echo "CompactWait=$TC_WAIT" >>"$LCONF"
	start_mode locality compact || return 1
	rest=$(scontrol show hostnames "n[001-064]" |
		grep -vxF -f <(scontrol show hostnames "$free,$block") |
		paste -sd, -)
	a=$(sub -N4 -w "$block" --exclusive -t 30 600)
	b=$(sub -N56 -w "$rest" --exclusive -t 30 600)
	wait_state "$a" RUNNING 20 && wait_state "$b" RUNNING 20 ||
		bad_wait="blocker jobs did not start"
	if [ -z "$bad_wait" ]; then
		j1=$(sub -N4 --exclusive -t 30 600)
		sleep 6
		if ! scontrol ping 2>/dev/null | grep -q 'is UP'; then
			bad_wait="slurmctld stopped answering (see its log)"
		elif [ "$(job_field "$j1" JobState)" != PENDING ]; then
			bad_wait="job $j1 took $(job_field "$j1" NodeList) at once"
		elif ! grep -q "JobId=$j1 waits for a compact placement" \
			"$CURRENT/log/slurmctld.log"; then
			bad_wait="no 'waits for a compact placement' line for job $j1"
		else
			j3=$(sub -N1 --exclusive -t 1 3)
			end=$((SECONDS + 8))
			while [ "$(job_field "$j3" JobState)" = PENDING ] &&
				[ $SECONDS -lt $end ]; do
				sleep 0.25
			done
			case $(job_field "$j3" JobState) in
			RUNNING | COMPLETED) ;;
			*) bad_fill="job $j3 (1 node) still $(job_field "$j3" JobState) while $j1 waits" ;;
			esac
			if [ -n "$bad_fill" ]; then
				:
			elif ! has_node "$free" "$(job_field "$j3" NodeList)"; then
				bad_fill="job $j3 got $(job_field "$j3" NodeList), not one of $free"
			elif [ "$(job_field "$j1" JobState)" != PENDING ]; then
				bad_fill="job $j1 started on $(job_field "$j1" NodeList) before $block was free"
			fi
			wait_state "$j3" COMPLETED 15 ||
				bad_fill="${bad_fill:-job $j3 did not complete}"
			scancel "$a"
			if ! wait_state "$j1" RUNNING 15; then
				bad_wait="job $j1 did not start once $block was free"
			elif [ "$(expand "$(job_field "$j1" NodeList)")" != "$(expand "$block")" ]; then
				bad_wait="job $j1 got $(job_field "$j1" NodeList), expected $block"
			fi
		fi
	fi
	if [ -z "$bad_wait" ]; then
		t0=$(date +%s)
		j2=$(sub -N4 --exclusive -t 30 600)
		sleep 8
		if [ "$(job_field "$j2" JobState)" != PENDING ]; then
			bad_dead="job $j2 did not wait ($(job_field "$j2" JobState) on $(job_field "$j2" NodeList))"
		elif ! wait_state "$j2" RUNNING 40; then
			bad_dead="job $j2 still $(job_field "$j2" JobState) 48 s after submission (CompactWait=$TC_WAIT)"
		else
			t1=$(date +%s)
			[ $((t1 - t0)) -ge $((TC_WAIT - 5)) ] ||
				bad_dead="job $j2 started after $((t1 - t0)) s, before its deadline ($TC_WAIT s)"
			[ "$(expand "$(job_field "$j2" NodeList)")" = "$(expand "$free")" ] ||
				bad_dead="job $j2 got $(job_field "$j2" NodeList), expected $free"
			note "compact: scattered nodes taken $((t1 - t0)) s after submission (CompactWait=$TC_WAIT)"
		fi
	else
		bad_dead="not reached: $bad_wait"
	fi
	result "compact: CompactWait: a job waits for a compact set and takes it when it frees up" "$bad_wait"
	result "compact: CompactWait: the nodes a waiting job declines are backfilled" \
		"${bad_fill:-${bad_wait:+not reached: $bad_wait}}"
	result "compact: CompactWait: a job takes the best set there is at its deadline" "$bad_dead"
	stop_cluster
}
