#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# plan-cases.sh - run-tests.sh's cases about time: CompactWait (h), the
# WILL_RUN planner (p) and PF holds (k). Sourced by run-tests.sh, whose
# helpers and variables they use.

# h: CompactWait, compact-wait.sh's compact_scenario under select/locality.
case_h() {
	compact_scenario "$H_WAIT"
	compact_in_reservation "$H_WAIT"
	compact_after_queue "$H_WAIT"
	cancel_all
	result "h: CompactWait: a job waits for a compact set and takes it when it frees up" "$CW_WAIT"
	result "h: CompactWait: the nodes a waiting job declines are backfilled" "$CW_FILL"
	result "h: CompactWait: a job takes the best set there is at its deadline" "$CW_DEAD"
	result "h: CompactWait: a job in a reservation waits for no set outside it" "$CW_RESV"
	result "h: CompactWait: a job offered nothing while it queued waits afresh" "$CW_QUEUED"
}

# h, constraint jobs: compact-wait.sh's constraint scenario, on a cluster
# of the features shape (whatever --shape gave the others).
case_h_constraint() {
	compact_constraint_scenario "$H_WAIT"
	cancel_all
	result "h: CompactWait: a --constraint job waits for a compact set and takes it when it frees up" "$CW_WAIT"
	result "h: CompactWait: a --constraint job takes the best set there is at its deadline" "$CW_DEAD"
	result "h: CompactWait: a --constraint job's reference is made on the nodes it allows" "$CW_CONSTRAINT"
}

# h, GPU jobs: compact-wait.sh's GresName scenario, on a cluster whose
# nodes have GPUs and whose file adds GresName=gpu CompactWait=0; and
# the line's key in scontrol show config.
case_h_gres() {
	local shown
	shown=$(scontrol show config |
		grep -cE '^LocalityCompactWait\[GresName=gpu\] += 0$')
	compact_gres_scenario
	cancel_all
	result "h: GresName=gpu CompactWait=0: a GPU job takes scattered nodes at once while a job without GRES waits" "$CW_GRES"
	result "h: scontrol show config lists the GresName line's keys" \
		"$([ "$shown" = 1 ] || echo "no 'LocalityCompactWait[GresName=gpu] = 0' line in scontrol show config")"
}

# p: sbatch --test-only asks slurmctld for WILL_RUN. With three blockers
# ending at known times (their time limits) and four nodes free, its start
# and nodes for jobs of several sizes must be those of the core planner
# (locality-eval --plan) for the same running jobs: the replay's EASY
# reservation uses the same planner, so plugin and replay cannot disagree.
# In partition main the nodes of a later start are the placement then,
# the free ones included; in partition hold (PlanHold=released) the nodes
# the blockers release, where they suffice.
case_p() {
	local name="p: sbatch --test-only (WILL_RUN) gives the core planner's start and nodes"
	if [ -z "$EVAL" ]; then not_ok "$name" "locality-eval not built"; return; fi
	local bad="" ids=() running=() spec id k kp part conf ans start nodes
	local pred end
	for spec in "n[001-016] 10" "n[017-040] 20" "n[041-060] 30"; do
		set -- $spec
		id=$(sub -N"$(scontrol show hostnames "$1" | wc -l)" -w "$1" -t "$2" 900)
		ids+=("$id")
	done
	for id in "${ids[@]}"; do
		wait_state "$id" RUNNING 20 || bad="blocker job $id did not start"
	done
	for id in "${ids[@]}"; do
		[ -n "$bad" ] && break
		end=$(date -d "$(job_field "$id" EndTime)" +%s) ||
			bad="job $id: no EndTime"
		running+=(--running "$(job_nodes "$id")@$end")
	done
	for kp in 8:main 16:main 20:main 30:main 41:main 64:main \
		8:hold 16:hold 30:hold; do
		[ -n "$bad" ] && break
		k=${kp%:*} part=${kp#*:} conf=$LCONF_MM
		[ "$part" = hold ] && conf=$LCONF_HOLD
		ans=$(sbatch --test-only -p "$part" -N"$k" -t 5 --wrap true 2>&1)
		start=$(sed -n 's/.* to start at \([^ ]*\) using .*/\1/p' <<<"$ans")
		nodes=$(sed -n 's/.* on nodes \([^ ]*\) in partition .*/\1/p' <<<"$ans")
		if [ -z "$start" ] || [ -z "$nodes" ]; then
			bad="-p $part -N$k: sbatch --test-only said: $ans"
			break
		fi
		start=$(date -d "$start" +%s)
		pred=$("$EVAL" --conf "$conf" --nodes "$ALLNODES" --plan \
			-k "$k" "${running[@]}" 2>&1) || {
			bad="locality-eval --plan -k $k failed: $pred"
			break
		}
		if [ "$start $(expand "$nodes")" != "$(cut -d' ' -f1 <<<"$pred") $(expand "$(cut -d' ' -f2 <<<"$pred")")" ]; then
			bad="-p $part -N$k: WILL_RUN start $start on $nodes, the core planner $pred"
			break
		fi
		note "p: -p $part -N$k -> $nodes at +$((start - $(date +%s))) s (as planned)"
	done
	cancel_all
	result "$name" "$bad"
}

# _pf_scene PART AFREE OTHER [N] - case k's scene: a blocker (partition
# pfp, N nodes, 48 by default) on every node but AFREE and OTHER, partner P
# (8 nodes, PART) pending until its begin time, and job A (8 nodes, PART)
# started on AFREE (-w). Sets K_P and K_A, and K_BAD to what failed, if
# anything.
_pf_scene() {
	local blk
	K_P="" K_A="" K_BAD=""
	blk=$(sub -p pfp -N"${4:-48}" -x "$2,$3" -t 10 900)
	if ! wait_state "$blk" RUNNING 20; then
		K_BAD="blocker $blk did not start"
		return
	fi
	K_P=$(sub -p "$1" -N8 -t 5 --begin=now+600 300)
	K_A=$(sub -p "$1" -N8 -w "$2" -t 3 300)
	wait_state "$K_A" RUNNING 20 || K_BAD="job A $K_A did not start"
}

# _pf_held A P - the nodes PF holds for partner P after job A began, from
# slurmctld's log (waits up to 10 s for the line); empty when none.
_pf_held() {
	local line t0=$SECONDS
	until line=$(grep -E "PF JobId=$1 holds nodes=[^ ]+ for partner JobId=$2 " "$CURRENT/log/slurmctld.log" | tail -n 1) &&
		[ -n "$line" ] || [ $((SECONDS - t0)) -gt 10 ]; do
		sleep 0.5
	done
	sed -n 's/.* holds nodes=\([^ ]*\) .*/\1/p' <<<"$line"
}

# k: WalltimeAware=pf in partition pfp (PlanHold=released there too). A
# blocker leaves 16 nodes free: a 2x4 block and 8 scattered nodes, one
# of them touching the block (PF holds nodes next to the job). Partner
# P (8 nodes) waits for its begin time; job A starts on the scattered
# nodes (-w), and PF holds the block, the 8 idle nodes left, next to A,
# for P. B (8 nodes), of lower priority than P, must not start on them;
# its backfill plan (WILL_RUN) starts it when A ends, on the nodes A
# releases: the held block is idle now, not released, and holding it for
# B would keep it idle until then (the block being the more compact set,
# a plan that counted it as released would take it).
case_k() {
	local name_hold="k: PF holds an idle region for the partner, and a job of lower priority keeps off it"
	local name_plan="k: PF + PlanHold=released: a later start holds the nodes running jobs release, not PF-held idle ones"
	local bad_hold="" bad_plan="" p a b log held anodes sched t0
	local block="n[001-004,009-012]" scattered="n[019,022,036,041,047,052,061,064]"
	log=$CURRENT/log/slurmctld.log
	_pf_scene pfp "$scattered" "$block"
	p=$K_P a=$K_A bad_hold=$K_BAD
	if [ -z "$bad_hold" ]; then
		held=$(_pf_held "$a" "$p")
		anodes=$(expand "$(job_nodes "$a")")
		if [ -z "$held" ]; then
			bad_hold="no PF hold for partner $p after job $a began: $(grep -c 'PF ' "$log") PF lines"
		elif [ "$(expand "$held")" != "$(expand "$block")" ]; then
			bad_hold="PF holds $held, not the idle block $block"
		fi
	fi
	if [ -z "$bad_hold" ]; then
		note "k: job $a on $(job_nodes "$a"), PF holds $held for partner $p"
		b=$(sub -p pfp -N8 -t 5 300)
		# Several scheduling and backfill passes (bf_interval=1).
		sleep 4
		[ "$(job_state "$b")" = PENDING ] ||
			bad_hold="job B $b is $(job_state "$b") on $(job_nodes "$b"), the held nodes $held"
	fi
	if [ -n "$bad_hold" ]; then
		bad_plan="not reached: $bad_hold"
	else
		t0=$SECONDS
		until sched=$(job_field "$b" SchedNodeList) &&
			[ -n "$sched" ] && [ "$sched" != "(null)" ] ||
			[ $((SECONDS - t0)) -gt 10 ]; do
			sleep 0.5
		done
		if [ -z "$sched" ] || [ "$sched" = "(null)" ]; then
			bad_plan="job B $b has no backfill plan (SchedNodeList)"
		elif [ "$(expand "$sched")" != "$anodes" ]; then
			bad_plan="job B's plan holds $sched, not A's nodes $(job_nodes "$a") (PF held $held)"
		else
			note "k: job B $b planned on $sched at $(job_field "$b" StartTime)"
		fi
	fi
	_case_k_missed "$bad_hold" "$p" "$block"
	cancel_all
	result "$name_hold" "$bad_hold"
	result "$name_plan" "$bad_plan"
	result "$K_MISSED_NAME" "$K_MISSED_BAD"
	_case_k_declined "$bad_hold"
	_case_k_took "$bad_hold"
	_case_k_run_now "$bad_hold"
}

# k, the partner's turn: the first part's hold on BLOCK stands for
# partner P. One block node is drained, and job C (7 nodes, after P in
# priority) must stay off the 7 still free. Then P becomes eligible: at
# its turn (slurmctld asks the plugin in backfill's plan, the main
# scheduler seeing too few nodes) it cannot start, its hold ends and C
# starts there. A hold kept until PFHoldTime (300 s) kept C off it, and
# any job backfill had reserved those nodes for. Sets K_MISSED_NAME and
# K_MISSED_BAD (the first part's failure, if any, passed as HOLDBAD).
_case_k_missed() { # HOLDBAD P BLOCK
	local c t0 log=$CURRENT/log/slurmctld.log drained
	K_MISSED_NAME="k: PF: a partner whose region is no longer whole at its turn loses the hold"
	K_MISSED_BAD=""
	if [ -n "$1" ]; then
		K_MISSED_BAD="not reached: $1"
		return
	fi
	drained=$(scontrol show hostnames "$3" | head -n 1)
	scontrol update nodename="$drained" state=drain reason=casek >/dev/null 2>&1
	c=$(sub -p pfp -N7 -t 1 300)
	sleep 3
	if [ "$(job_state "$c")" != PENDING ]; then
		K_MISSED_BAD="job C $c started on $(job_nodes "$c") while $3 was held for $2: no control"
	else
		scontrol update jobid="$2" StartTime=now >/dev/null 2>&1
		t0=$SECONDS
		until [ "$(job_state "$c")" = RUNNING ] || [ $((SECONDS - t0)) -gt 10 ]; do
			sleep 0.5
		done
		if ! grep -qE "PF JobId=$2 missed its held region" "$log"; then
			K_MISSED_BAD="no miss logged for partner $2 (job C $c is $(job_state "$c"))"
		elif [ "$(job_state "$c")" != RUNNING ]; then
			K_MISSED_BAD="partner $2 missed its region, but job C $c is $(job_state "$c")"
		else
			note "k: $drained drained, partner $2 missed its region; job C $c on $(job_nodes "$c")"
		fi
	fi
	scontrol update nodename="$drained" state=resume >/dev/null 2>&1
}

# k, under CompactWait: partition pfw (WalltimeAware=pf, CompactWait=60,
# CompactTolerance=0.1). A blocker in pfp (no CompactWait: it takes the
# 48 nodes it is given) leaves 16 free: 8 scattered for job A (-w) and a
# snake of 8 beside them, 84 pairwise hops against the 56 of a 2x4 block.
# The snake is the only region PF can hold for partner P, which would
# decline it, so PF holds nothing and says why. The first part of case k
# is the control: without it passing, no hold here proves nothing. Its
# partner, of higher priority than the blocker here, was cancelled still
# holding the block: the hold must have gone with it, or the blocker,
# which needs the block, cannot start.
_case_k_declined() {
	local name="k: PF + CompactWait: no region is held that the partner would decline"
	local bad="" p a line t0 log=$CURRENT/log/slurmctld.log
	local ascat="n[001,004,007,018,023,041,058,063]"
	local snake="n[033-037,045,053,061]"
	if [ -n "$1" ]; then
		bad="not reached: the hold without CompactWait failed"
	else
		_pf_scene pfw "$ascat" "$snake"
		p=$K_P a=$K_A bad=$K_BAD
	fi
	if [ -z "$bad" ]; then
		t0=$SECONDS
		until line=$(grep -E "PF JobId=$a: partner JobId=$p would decline" "$log") ||
			[ $((SECONDS - t0)) -gt 10 ]; do
			sleep 0.5
		done
		if grep -qE "PF JobId=$a holds nodes" "$log"; then
			bad="PF held $(grep -E "PF JobId=$a holds" "$log" | sed 's/.*nodes=\([^ ]*\).*/\1/') for partner $p"
		elif [ -z "$line" ]; then
			bad="no decline logged for partner $p after job $a began: $(grep "PF JobId=$a" "$log" | tail -n 1)"
		else
			note "k: job $a on $(job_nodes "$a"): $p would decline the snake, nothing held"
		fi
	fi
	cancel_all
	result "$name" "$bad"
}

# k, a turn missed in RUN_NOW: partition pfw. The blocker (47 nodes)
# leaves free the scattered 8 for A, the 2x4 block and n037, far from
# the block. PF holds the block for P. One block node is drained, so
# when P becomes eligible 8 nodes are free, enough for slurmctld's main
# scheduler to ask for a RUN_NOW: 7 of the block and n037, 80 pairwise
# hops against the 56 of a 2x4 block. P declines them (CompactWait), so
# its turn passes without a start, and its hold must end there, not
# only in backfill's WILL_RUN (SELECT_MODE_RUN_NOW is 0, not a bit: a
# test of the bit never saw it). Backfill, every second, would ask its
# WILL_RUN first (the main scheduler waits batch_sched_delay, 3 s), so
# for this check it is off (bf_interval=-1) and the main scheduler runs
# at once (batch_sched_delay=0), by scontrol reconfigure, undone after.
# The first part is the control.
_case_k_run_now() {
	local name="k: PF: a partner's RUN_NOW that does not start it ends its hold"
	local bad="" p a t0 line drained log=$CURRENT/log/slurmctld.log
	local conf=$CURRENT/etc/slurm.conf
	local block="n[001-004,009-012]" scattered="n[019,022,036,041,047,052,061,064]"
	if [ -n "$1" ]; then
		bad="not reached: the hold without CompactWait failed"
	else
		cp "$conf" "$conf.k"
		sed -i 's/^SchedulerParameters=bf_interval=1,/SchedulerParameters=bf_interval=-1,batch_sched_delay=0,/' "$conf"
		if ! grep -q '^SchedulerParameters=bf_interval=-1,' "$conf"; then
			bad="no SchedulerParameters=bf_interval=1 line to turn backfill off"
		elif ! scontrol reconfigure; then
			bad="scontrol reconfigure failed"
		else
			_pf_scene pfw "$scattered" "$block,n037" 47
			p=$K_P a=$K_A bad=$K_BAD
		fi
	fi
	if [ -z "$bad" ] && [ -z "$(_pf_held "$a" "$p")" ]; then
		bad="no PF hold for partner $p after job $a began"
	fi
	if [ -z "$bad" ]; then
		drained=$(scontrol show hostnames "$block" | head -n 1)
		scontrol update nodename="$drained" state=drain reason=casek >/dev/null 2>&1
		scontrol update jobid="$p" StartTime=now >/dev/null 2>&1
		t0=$SECONDS
		until line=$(grep -E "PF JobId=$p missed its held region" "$log" | head -n 1) &&
			[ -n "$line" ] || [ $((SECONDS - t0)) -gt 10 ]; do
			sleep 0.5
		done
		if [ -z "$line" ]; then
			bad="no miss logged for partner $p ($(job_state "$p") on $(job_nodes "$p"))"
		elif ! grep -q "RUN_NOW: no start" <<<"$line"; then
			bad="partner $p's first miss was not a RUN_NOW: ${line#*missed its held region }"
		else
			note "k: $drained drained; partner $p declined 7 block nodes and n037 in RUN_NOW, hold released"
		fi
		scontrol update nodename="$drained" state=resume >/dev/null 2>&1
	fi
	cancel_all
	if [ -f "$conf.k" ]; then
		mv "$conf.k" "$conf"
		scontrol reconfigure || bad="${bad:+$bad; }scontrol reconfigure back failed"
	fi
	result "$name" "$bad"
}

# k, the partner's turn with its region whole: partition pfp. The
# blocker (40 nodes) leaves free the scattered 8 for A (as in
# _case_k_declined) and a snake of 8 beside them, and job S holds a 2x4
# block for a few seconds. PF can hold only the snake for P. S ends, and
# P becomes eligible with the snake (84 pairwise hops) and the block
# (56) free: its strategy would take the block, but a partner places on
# its held region first (loc_holds_turn()), so P must start on the snake.
# The first part is the control.
_case_k_took() {
	local name="k: PF: at its turn a partner starts on its held region, not on a more compact set"
	local bad="" p a sj blk held
	local ascat="n[001,004,007,018,023,041,058,063]"
	local snake="n[033-037,045,053,061]" block="n[011-014,019-022]"
	if [ -n "$1" ]; then
		bad="not reached: the hold without CompactWait failed"
	else
		blk=$(sub -p pfp -N40 -x "$ascat,$snake,$block" -t 10 900)
		sj=$(sub -p pfp -N8 -w "$block" -t 1 6)
		wait_state "$blk" RUNNING 20 || bad="blocker $blk did not start"
		wait_state "$sj" RUNNING 20 || bad="${bad:-job S $sj did not start}"
	fi
	if [ -z "$bad" ]; then
		p=$(sub -p pfp -N8 -t 5 --begin=now+600 300)
		a=$(sub -p pfp -N8 -w "$ascat" -t 3 300)
		wait_state "$a" RUNNING 20 || bad="job A $a did not start"
	fi
	if [ -z "$bad" ]; then
		held=$(_pf_held "$a" "$p")
		if [ -z "$held" ]; then
			bad="no PF hold for partner $p after job $a began"
		elif [ "$(expand "$held")" != "$(expand "$snake")" ]; then
			bad="PF holds $held, not the snake $snake"
		elif ! wait_state "$sj" COMPLETED 20; then
			bad="job S $sj did not end"
		fi
	fi
	if [ -z "$bad" ]; then
		scontrol update jobid="$p" StartTime=now >/dev/null 2>&1
		if ! wait_state "$p" RUNNING 20; then
			bad="partner $p did not start ($(job_state "$p"))"
		elif [ "$(expand "$(job_nodes "$p")")" != "$(expand "$snake")" ]; then
			bad="partner $p started on $(job_nodes "$p"), not its held region $snake"
		else
			note "k: partner $p started on its held region $(job_nodes "$p"), the block $block idle"
		fi
	fi
	cancel_all
	result "$name" "$bad"
}
