# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/compact.sh - topology-tests.sh's CompactWait case, sourced by it
# (its conf_for, start_mode and the lib.sh helpers): compact-wait.sh's
# compact_scenario (run-tests.sh's case h) under topology/locality, each
# job --exclusive, in the per-row shape with CompactWait=$TC_WAIT, and
# backfill with bf_busy_nodes (SHAPE_CONF), whose future states run
# Slurm's busy-first helper inside this plugin; then a requeued job,
# which must wait afresh, a job in a reservation of scattered nodes,
# which must not wait, and compact_after_queue's job, which must wait
# afresh after a queued spell, and compact_claim's job, whose claimed
# region later jobs keep off; then compact_scenario again with every job
# a GPU job (--gres=gpu:2); on a cluster where one node in four has GPUs
# (cluster.sh --shape gpu-sparse), a GPU job that must start at once on
# the GPU nodes: its reference is made on them (sl_gres.c); on one
# whose GPUs are of two types (gpu-typed), a job of either type that must
# start at once: its reference is made on the nodes of its type; the same
# two for --constraint jobs (compact_constraint); and last, with a line
# GresName=gpu CompactWait=0, a GPU job that starts at once where a job
# without GRES waits (compact_gres_line).

TC_WAIT=25
TC_CRED=20 # AuthInfo=cred_expire (topology-tests.sh): a requeued job is
	   # eligible again this many seconds (+1) after its requeue

# compact_requeue - after compact_scenario: requeue the job that took the
# scattered nodes at its deadline (the rest of the machine still busy).
# Once eligible again it finds only those nodes, and waits for a compact
# set afresh: its earlier wait is over. Sets CW_REQUEUE.
compact_requeue() {
	local id=$CW_LATE log=$CURRENT/log/slurmctld.log before
	CW_REQUEUE=""
	if [ -z "$id" ]; then
		CW_REQUEUE="not reached: ${CW_DEAD:-no job took the scattered nodes}"
		return
	fi
	# Judged well before the fresh wait could end (TC_CRED + 1 + TC_WAIT).
	local grace=$((TC_CRED + TC_WAIT - 5))
	local deadline=$((SECONDS + grace))
	before=$(grep -c "JobId=$id waits for a compact placement" "$log")
	scontrol requeue "$id" || { CW_REQUEUE="scontrol requeue $id failed"; return; }
	# Eligible again after TC_CRED + 1 s, it must decline the scattered
	# set before the fresh wait could end (TC_WAIT later). Polled: a
	# loaded slurmctld may take some seconds to judge it again.
	sleep "$TC_CRED"
	while :; do
		if [ "$(job_field "$id" JobState)" != PENDING ]; then
			CW_REQUEUE="job $id took $(job_field "$id" NodeList) at once after its requeue: it kept the wait it began before"
			return
		fi
		[ "$(grep -c "JobId=$id waits for a compact placement" "$log")" -le "$before" ] ||
			return
		if [ "$SECONDS" -ge "$deadline" ]; then
			CW_REQUEUE="job $id pending $grace s after its requeue ($(job_field "$id" Reason)), but not waiting for a compact set"
			return
		fi
		sleep 1
	done
}

# compact_claim [SBATCH_OPTION ...] - the region a waiting job claims
# (tl_claim.c). Blockers leave n010 and n011 idle, half of the 2x2 boxes
# n[002-003,010-011] and n[010-011,018-019] (n018-019 under a job of
# their own), and two far nodes, n037 and n064: no 2x2 box holds more
# than two idle nodes, and only those two hold two. A 4-node job declines
# the four and claims a box with n010-011; two 1-node jobs then must take
# n037 and n064, keeping off the region; freeing n018-019 must start the
# waiting job on n[010-011,018-019]. Sets CW_CLAIM.
compact_claim() {
	local log=$CURRENT/log/slurmctld.log pair="n[018-019]" rest a b j s1 s2 got
	CW_CLAIM=""
	scancel --user="$(id -un)" 2>/dev/null
	wait_all_idle 60 || { CW_CLAIM="the nodes did not come back idle"; return; }
	rest=$(scontrol show hostnames "$ALLNODES" |
		grep -vxF -f <(scontrol show hostnames "n[010-011,018-019,037,064]") |
		paste -sd, -)
	a=$(sub -N2 -w "$pair" "$@" -t 30 600)
	b=$(sub -N58 -w "$rest" "$@" -t 30 600)
	if ! wait_state "$a" RUNNING 20 || ! wait_state "$b" RUNNING 20; then
		CW_CLAIM="blocker jobs did not start"
	else
		j=$(sub -N4 "$@" -t 30 600)
		sleep 4
		if ! cw_declining "$j"; then
			CW_CLAIM="job $j did not wait for a compact set ($(job_field "$j" JobState) on $(job_field "$j" NodeList))"
		elif ! grep -q "JobId=$j claims 4 nodes (2 free for it now)" "$log"; then
			CW_CLAIM="no 'JobId=$j claims 4 nodes (2 free for it now)' line: $(grep -o "JobId=$j claims.*" "$log" | tail -n 1)"
		else
			s1=$(sub -N1 "$@" -t 30 600)
			wait_state "$s1" RUNNING 10
			s2=$(sub -N1 "$@" -t 30 600)
			wait_state "$s2" RUNNING 10
			got=$(expand "$(job_field "$s1" NodeList),$(job_field "$s2" NodeList)")
			if [ "$got" != "n037,n064" ]; then
				CW_CLAIM="1-node jobs $s1 and $s2 got '$got' while job $j claimed a box with n010-011, expected n037,n064"
			else
				scancel "$a"
				if ! wait_state "$j" RUNNING 15; then
					CW_CLAIM="job $j did not start once $pair was free"
				elif [ "$(expand "$(job_field "$j" NodeList)")" != "$(expand "n[010-011,018-019]")" ]; then
					CW_CLAIM="job $j got $(job_field "$j" NodeList), expected n[010-011,018-019]"
				fi
			fi
		fi
	fi
	scancel --user="$(id -un)" 2>/dev/null
}

compact_wait() {
	local CLUSTER_DEBUG=debug # the "waits for a compact placement" line
	MODE=locality
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-compact.conf
	conf_for per-row "$LCONF"
	# Claims on (CompactClaims is 0 unless set), for compact_claim.
	printf 'CompactWait=%s\nCompactClaims=16\n' "$TC_WAIT" >>"$LCONF"
	start_mode locality compact || return 1
	compact_scenario "$TC_WAIT" --exclusive
	result "compact: CompactWait: a job waits for a compact set and takes it when it frees up" "$CW_WAIT"
	result "compact: CompactWait: the nodes a waiting job declines are backfilled" "$CW_FILL"
	result "compact: CompactWait: a job takes the best set there is at its deadline" "$CW_DEAD"
	compact_requeue
	result "compact: CompactWait: a requeued job waits afresh" "$CW_REQUEUE"
	compact_in_reservation "$TC_WAIT" --exclusive
	result "compact: CompactWait: a job in a reservation waits for no set outside it" "$CW_RESV"
	compact_after_queue "$TC_WAIT" --exclusive
	result "compact: CompactWait: a job offered nothing while it queued waits afresh" "$CW_QUEUED"
	compact_claim --exclusive
	result "compact: CompactWait: later jobs keep off the region a waiting job claims, and it starts there" "$CW_CLAIM"
	compact_gpu
	stop_cluster
	compact_gpu_sparse
	compact_gpu_typed
	compact_constraint
	compact_gres_line
}

# compact_gres_line - compact_gres_scenario (compact-wait.sh) on a new
# per-row cluster whose file sets CompactWait=$TC_WAIT and GresName=gpu
# CompactWait=0, and leaves CompactClaims at its default, 0: the job that
# waits there must claim nothing (its debug lines show it waited).
compact_gres_line() {
	local log claims=""
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-compact-gres.conf
	conf_for per-row "$LCONF"
	printf 'CompactWait=%s\nGresName=gpu CompactWait=0\n' "$TC_WAIT" >>"$LCONF"
	start_mode locality compact-gres || return 1
	log=$CURRENT/log/slurmctld.log
	compact_gres_scenario --exclusive
	result "compact: GresName=gpu CompactWait=0: a GPU job takes scattered nodes at once while a job without GRES waits" "$CW_GRES"
	if ! grep -q "waits for a compact placement" "$log"; then
		claims="no job waited for a compact set (no debug line 'waits for a compact placement')"
	elif grep -q "JobId=[0-9]* claims [0-9]* nodes" "$log"; then
		claims="$(grep -o "JobId=[0-9]* claims [0-9]* nodes.*" "$log" | head -n 1) with CompactClaims unset"
	fi
	result "compact: CompactClaims=0 (the default): a job waiting for a compact set claims no region" "$claims"
	stop_cluster
}

# compact_constraint - compact-wait.sh's constraint scenario, on the
# features shape.
compact_constraint() {
	export CLUSTER_SHAPE=features
	start_mode locality compact-features || return 1
	compact_constraint_scenario "$TC_WAIT" --exclusive
	result "compact: CompactWait: a --constraint job waits for a compact set and takes it when it frees up" "$CW_WAIT"
	result "compact: CompactWait: a --constraint job takes the best set there is at its deadline" "$CW_DEAD"
	result "compact: CompactWait: a --constraint job's reference is made on the nodes it allows" "$CW_CONSTRAINT"
	stop_cluster
}

# compact_gpu_sparse - a cluster whose GPU nodes are every other node of
# every other row (cluster.sh --shape gpu-sparse), all idle: a 4-node GPU
# job's most compact set there is a square of side 2 (16 hops), twice
# the 8 of the 2x2 any whole-node job gets, so it must start at once. A
# reference made on all nodes would make it wait CompactWait for a set
# that cannot exist.
compact_gpu_sparse() {
	local id fail="" gpus
	export CLUSTER_SHAPE=gpu-sparse
	start_mode locality compact-gpu-sparse || return 1
	gpus=$(scontrol show nodes -o | grep 'Gres=gpu' | wc -l)
	if [ "$gpus" != 16 ]; then
		fail="$gpus nodes with GPUs, expected 16"
	else
		id=$(sub -N4 --gres=gpu:1 -t 30 600)
		if ! wait_state "$id" RUNNING 8; then
			fail="job $id (-N4 --gres=gpu:1) still $(job_field "$id" JobState) after 8 s (CompactWait=$TC_WAIT)"
		elif grep -q "JobId=$id waits for a compact placement" \
			"$CURRENT/log/slurmctld.log"; then
			fail="job $id waited for a compact set before taking $(job_field "$id" NodeList)"
		fi
	fi
	result "compact: CompactWait: a GPU job's reference is made on the nodes with GPUs" "$fail"
	stop_cluster
}

# compact_gpu_typed - a cluster whose gpu-sparse nodes have GPUs of
# type a100 and every other node GPUs of type v100 (cluster.sh --shape
# gpu-typed), all idle. A 4-node job asking for a100 GPUs has only the
# sparse nodes (16 hops at best), a 4-node job asking for v100 GPUs has
# no 2x2 square (each holds an a100 node: 9 hops at best, more than 1.1x
# the square's 8): both must start at once, their references made on the
# nodes of their type. A reference that ignored the type would make both
# wait CompactWait for a set they cannot have. CompactTolerance=0.1, the
# recommended one (the default 0.2 lets 9 hops pass against 8).
compact_gpu_typed() {
	local id type fail="" a100 v100 compact_conf=$LCONF
	export CLUSTER_SHAPE=gpu-typed
	LCONF=$RUNROOT/locality-compact-typed.conf
	conf_for per-row "$LCONF"
	printf 'CompactWait=%s\nCompactTolerance=0.1\n' "$TC_WAIT" >>"$LCONF"
	start_mode locality compact-gpu-typed || { LCONF=$compact_conf; return 1; }
	a100=$(scontrol show nodes -o | grep -c 'Gres=gpu:a100:')
	v100=$(scontrol show nodes -o | grep -c 'Gres=gpu:v100:')
	[ "$a100/$v100" = 16/48 ] ||
		fail="$a100 nodes with a100 GPUs and $v100 with v100, expected 16 and 48"
	for type in a100 v100; do
		[ "$a100/$v100" = 16/48 ] || break
		id=$(sub -N4 --gres=gpu:$type:1 -t 30 600)
		if ! wait_state "$id" RUNNING 8; then
			fail="${fail:+$fail; }job $id (-N4 --gres=gpu:$type:1) still $(job_field "$id" JobState) after 8 s (CompactWait=$TC_WAIT)"
		elif grep -q "JobId=$id waits for a compact placement" \
			"$CURRENT/log/slurmctld.log"; then
			fail="${fail:+$fail; }job $id ($type) waited for a compact set before taking $(job_field "$id" NodeList)"
		fi
	done
	result "compact: CompactWait: a typed GPU job's reference is made on the nodes with its type" "$fail"
	stop_cluster
	LCONF=$compact_conf
}

# compact_gpu - compact_scenario on the idle machine with every job
# asking for both GPUs of each node: a GPU job waits for a compact set
# and takes the scattered one at its deadline, as a whole-node job does.
compact_gpu() {
	local idle=""
	scancel --user="$(id -un)" 2>/dev/null
	wait_all_idle 60 || idle="the nodes did not come back idle"
	[ -z "$idle" ] && compact_scenario "$TC_WAIT" --exclusive --gres=gpu:2
	result "compact: CompactWait: a GPU job (--gres=gpu:2) waits for a compact set and takes it when it frees up" "${idle:-$CW_WAIT}"
	result "compact: CompactWait: a GPU job takes the best set there is at its deadline" "${idle:-$CW_DEAD}"
}
