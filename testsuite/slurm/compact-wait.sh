# SPDX-License-Identifier: GPL-2.0-or-later
#
# compact-wait.sh - the CompactWait scenario on a running 64-node cluster:
# run-tests.sh's case h (plan-cases.sh) and topology-tests.sh's compact
# case (topology/compact.sh) run it with their own sbatch options. Sourced
# by those two scripts after lib.sh, whose helpers (sub, job_field,
# wait_state, wait_all_idle, expand, has_node, note) it uses; kept out
# of lib.sh, which the other scripts source too, so lib.sh holds only
# what they all share.

# The scenarios' machine: four scattered nodes and a 2x2 block.
CW_FREE="n[001,004,037,040]" CW_BLOCK="n[010-011,018-019]"

# cw_blockers BLOCK_MIN [SBATCH_OPTION ...] - the blockers each scenario
# starts with: a job on the block (a limit of BLOCK_MIN minutes) and one
# on every node but the block and the scattered nodes (30 minutes), each
# with the options given. Sets CW_A and CW_B to their ids; returns 1
# when they did not both start within 20 s.
cw_blockers() {
	local limit=$1 rest
	shift
	rest=$(scontrol show hostnames "$ALLNODES" |
		grep -vxF -f <(scontrol show hostnames "$CW_FREE,$CW_BLOCK") |
		paste -sd, -)
	CW_A=$(sub -N4 -w "$CW_BLOCK" "$@" -t "$limit" 600)
	CW_B=$(sub -N56 -w "$rest" "$@" -t 30 600)
	wait_state "$CW_A" RUNNING 20 && wait_state "$CW_B" RUNNING 20
}

# cw_declining ID - whether job ID is pending and slurmctld has logged it
# declining a set to wait for a compact one.
cw_declining() {
	[ "$(job_field "$1" JobState)" = PENDING ] &&
		grep -q "JobId=$1 waits for a compact placement" \
			"$CURRENT/log/slurmctld.log"
}

# compact_scenario WAIT [SBATCH_OPTION ...] - CompactWait on the 64-node
# 8x8 torus (rows of 8 in name order) with CompactWait=WAIT, each job
# submitted with the options given (--exclusive under cons_tres).
# Blockers leave four scattered nodes free, plus a 2x2 block under a job
# of its own. A 4-node job waits rather than take the scattered nodes
# (slurmctld logs why at debug); a later 1-node job is backfilled onto one
# of them (a waiting job holds only the set it is planned on); freeing
# the block starts the waiting job there. A second 4-node job finds only
# the scattered nodes and takes them at its deadline, not before. Sets
# CW_WAIT, CW_FILL and CW_DEAD to what went wrong ("" when nothing), and
# CW_LATE to that second job (left running on the scattered nodes).
compact_scenario() {
	local wait=$1 free=$CW_FREE block=$CW_BLOCK j1 j2 j3 t0 t1 end
	shift
	CW_WAIT="" CW_FILL="" CW_DEAD="" CW_LATE=""
	cw_blockers 30 "$@" || CW_WAIT="blocker jobs did not start"
	if [ -z "$CW_WAIT" ]; then
		j1=$(sub -N4 "$@" -t 30 600)
		sleep 6
		if ! scontrol ping 2>/dev/null | grep -q 'is UP'; then
			CW_WAIT="slurmctld stopped answering (see its log)"
		elif [ "$(job_field "$j1" JobState)" != PENDING ]; then
			CW_WAIT="job $j1 took $(job_field "$j1" NodeList) at once"
		elif ! grep -q "JobId=$j1 waits for a compact placement" \
			"$CURRENT/log/slurmctld.log"; then
			CW_WAIT="no 'waits for a compact placement' line for job $j1"
		else
			j3=$(sub -N1 "$@" -t 30 3)
			end=$((SECONDS + 8))
			while [ "$(job_field "$j3" JobState)" = PENDING ] &&
				[ $SECONDS -lt $end ]; do
				sleep 0.25
			done
			case $(job_field "$j3" JobState) in
			RUNNING | COMPLETED) ;;
			*) CW_FILL="job $j3 (1 node) still $(job_field "$j3" JobState) while $j1 waits" ;;
			esac
			if [ -n "$CW_FILL" ]; then
				:
			elif ! has_node "$free" "$(job_field "$j3" NodeList)"; then
				CW_FILL="job $j3 got $(job_field "$j3" NodeList), not one of $free"
			elif [ "$(job_field "$j1" JobState)" != PENDING ]; then
				CW_FILL="job $j1 started on $(job_field "$j1" NodeList) before $block was free"
			fi
			wait_state "$j3" COMPLETED 15 ||
				CW_FILL="${CW_FILL:-job $j3 did not complete}"
			scancel "$CW_A"
			if ! wait_state "$j1" RUNNING 15; then
				CW_WAIT="job $j1 did not start once $block was free"
			elif [ "$(expand "$(job_field "$j1" NodeList)")" != "$(expand "$block")" ]; then
				CW_WAIT="job $j1 got $(job_field "$j1" NodeList), expected $block"
			fi
		fi
	fi
	[ -n "$CW_WAIT" ] && [ -z "$CW_FILL" ] && CW_FILL="not reached: $CW_WAIT"
	if [ -n "$CW_WAIT" ]; then
		CW_DEAD="not reached: $CW_WAIT"
		return
	fi
	t0=$(date +%s)
	j2=$(sub -N4 "$@" -t 30 600)
	sleep 8
	if [ "$(job_field "$j2" JobState)" != PENDING ]; then
		CW_DEAD="job $j2 did not wait ($(job_field "$j2" JobState) on $(job_field "$j2" NodeList))"
	elif ! wait_state "$j2" RUNNING 40; then
		CW_DEAD="job $j2 still $(job_field "$j2" JobState) 48 s after submission (CompactWait=$wait)"
	else
		t1=$(date +%s)
		[ $((t1 - t0)) -ge $((wait - 5)) ] ||
			CW_DEAD="job $j2 started after $((t1 - t0)) s, before its deadline ($wait s)"
		[ "$(expand "$(job_field "$j2" NodeList)")" = "$(expand "$free")" ] ||
			CW_DEAD="job $j2 got $(job_field "$j2" NodeList), expected $free"
		note "scattered nodes taken $((t1 - t0)) s after submission (CompactWait=$wait)"
		CW_LATE=$j2
	fi
}

# compact_constraint_scenario WAIT [SBATCH_OPTION ...] - on the features
# shape (cluster.sh: even rows ssd, odd rows hdd), compact_scenario with
# every job --constraint='ssd|hdd' (every node): a constraint job waits
# for a compact set as any job does (its reference is made on the nodes
# the constraint allows, sl_compact_wait.c). Then, all idle, a 4-node
# --constraint=ssd job must start at once: its best set is 4 nodes of
# one row (10 hops), and its reference is made on the ssd rows, not on
# the 2x2 (8 hops) the whole machine has. Sets CW_WAIT and CW_DEAD as
# compact_scenario does, and CW_CONSTRAINT.
compact_constraint_scenario() {
	local wait=$1 id
	shift
	CW_CONSTRAINT=""
	compact_scenario "$wait" "$@" --constraint='ssd|hdd'
	scancel --user="$(id -un)" 2>/dev/null
	if ! wait_all_idle 60; then
		CW_CONSTRAINT="the nodes did not come back idle"
		return
	fi
	id=$(sub -N4 "$@" --constraint=ssd -t 30 600)
	if ! wait_state "$id" RUNNING 8; then
		CW_CONSTRAINT="job $id (-N4 --constraint=ssd) still $(job_field "$id" JobState) after 8 s (CompactWait=$wait)"
	elif grep -q "JobId=$id waits for a compact placement" \
		"$CURRENT/log/slurmctld.log"; then
		CW_CONSTRAINT="job $id waited for a compact set before taking $(job_field "$id" NodeList)"
	fi
	scancel "$id" 2>/dev/null
}

# compact_in_reservation WAIT [SBATCH_OPTION ...] - after
# compact_scenario: on the idle machine, a reservation of the four
# scattered nodes; a 4-node job in it starts at once, since no more
# compact set exists for it there (its CompactWait reference is made
# inside the reservation, not on the whole partition). Sets CW_RESV.
compact_in_reservation() {
	local wait=$1 resv="n[001,004,037,040]" id
	shift
	CW_RESV=""
	scancel --user="$(id -un)" 2>/dev/null
	wait_all_idle 60 || CW_RESV="the nodes did not come back idle"
	if [ -z "$CW_RESV" ] && ! scontrol create reservation ReservationName=cw-test \
		Nodes="$resv" StartTime=now Duration=30 Users="$(id -un)" >/dev/null; then
		CW_RESV="could not reserve $resv"
	fi
	[ -n "$CW_RESV" ] && return
	id=$(sub -N4 "$@" --reservation=cw-test -t 30 600)
	if [ -z "$id" ]; then
		CW_RESV="sbatch refused the job in the reservation: $(tail -n 1 "$RUNROOT/sbatch.err")"
	elif ! wait_state "$id" RUNNING 10; then
		CW_RESV="job $id in reservation $resv still $(job_field "$id" JobState) after 10 s (CompactWait=$wait)"
	elif [ "$(expand "$(job_field "$id" NodeList)")" != "$(expand "$resv")" ]; then
		CW_RESV="job $id got $(job_field "$id" NodeList), not $resv"
	fi
	scancel "$id" 2>/dev/null
	scontrol delete reservation cw-test 2>/dev/null
}

# compact_after_queue WAIT [SBATCH_OPTION ...] - on the idle machine, the
# blockers of compact_scenario again: a 4-node job declines the four
# scattered nodes, a job asking for exactly those nodes is backfilled
# onto them for WAIT + 6 s, so the waiting job is offered nothing (it
# queues, it does not wait for compactness); when they free up it must
# decline them again, its wait begun afresh (loc_patience.h), where a
# clock kept from its first offer would have it take them at once.
# Sets CW_QUEUED.
compact_after_queue() {
	local wait=$1 log=$CURRENT/log/slurmctld.log j f before
	shift
	CW_QUEUED=""
	scancel --user="$(id -un)" 2>/dev/null
	wait_all_idle 60 || { CW_QUEUED="the nodes did not come back idle"; return; }
	if ! cw_blockers 30 "$@"; then
		CW_QUEUED="blocker jobs did not start"
	else
		j=$(sub -N4 "$@" -t 30 600)
		sleep 4
		if ! cw_declining "$j"; then
			CW_QUEUED="job $j did not wait for a compact set ($(job_field "$j" JobState) on $(job_field "$j" NodeList))"
		else
			f=$(sub -N4 -w "$CW_FREE" "$@" -t 2 $((wait + 6)))
			if ! wait_state "$f" RUNNING 10; then
				CW_QUEUED="job $f on $CW_FREE did not start beside the waiting job $j"
			else
				before=$(grep -c "JobId=$j waits for a compact placement" "$log")
				wait_state "$f" COMPLETED $((wait + 30)) ||
					CW_QUEUED="job $f did not complete"
				sleep 4
			fi
			if [ -n "$CW_QUEUED" ]; then
				:
			elif [ "$(job_field "$j" JobState)" != PENDING ]; then
				CW_QUEUED="job $j took $(job_field "$j" NodeList) at once after queueing $((wait + 6)) s behind job $f: its wait did not begin again"
			elif [ "$(grep -c "JobId=$j waits for a compact placement" "$log")" -le "$before" ]; then
				CW_QUEUED="job $j pending ($(job_field "$j" Reason)) but not logged waiting after job $f ended"
			fi
		fi
	fi
	scancel --user="$(id -un)" 2>/dev/null
}

# compact_gres_scenario [SBATCH_OPTION ...] - locality.conf's GresName
# line, on a running cluster whose every node has GPUs and whose file
# sets CompactWait > 0 and GresName=gpu CompactWait=0 (slurmctld's
# start-up log must say so). With compact_scenario's blockers leaving
# four scattered nodes free and a 2x2 block under a job of its own, a
# 4-node job without GRES waits for a compact set; a 4-node GPU job
# submitted after it takes the scattered nodes at once (the line applies
# to the jobs that ask for a GPU alone), and the first job still waits.
# The GPU job's limit ends before the block's job does: backfill holds
# the waiting job's planned nodes from then on, whichever they are.
# Sets CW_GRES.
compact_gres_scenario() {
	local log=$CURRENT/log/slurmctld.log j g
	CW_GRES=""
	if ! grep -q 'GRES overrides: gpu (CompactWait=0)' "$log"; then
		CW_GRES="slurmctld's start-up log has no 'GRES overrides: gpu (CompactWait=0)'"
		return
	fi
	if ! cw_blockers 10 "$@"; then
		CW_GRES="blocker jobs did not start"
	else
		j=$(sub -N4 "$@" -t 30 600)
		sleep 4
		if ! cw_declining "$j"; then
			CW_GRES="job $j (no GRES) did not wait for a compact set ($(job_field "$j" JobState) on $(job_field "$j" NodeList))"
		else
			g=$(sub -N4 "$@" --gres=gpu:1 -t 5 600)
			if ! wait_state "$g" RUNNING 8; then
				CW_GRES="GPU job $g still $(job_field "$g" JobState) after 8 s (GresName=gpu CompactWait=0)"
			elif grep -q "JobId=$g waits for a compact placement" "$log"; then
				CW_GRES="GPU job $g waited for a compact set before taking $(job_field "$g" NodeList)"
			elif [ "$(expand "$(job_field "$g" NodeList)")" != "$(expand "$CW_FREE")" ]; then
				CW_GRES="GPU job $g got $(job_field "$g" NodeList), expected $CW_FREE"
			elif [ "$(job_field "$j" JobState)" != PENDING ]; then
				CW_GRES="job $j (no GRES) started on $(job_field "$j" NodeList) beside the GPU job"
			fi
		fi
	fi
	scancel --user="$(id -un)" 2>/dev/null
}
