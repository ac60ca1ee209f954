# SPDX-License-Identifier: GPL-2.0-or-later
#
# case-a.sh - case a: a slurmd killed with -9 under a running job.
# Sourced by fault-tests.sh, which sets the options and globals it reads.

case_a() {
	local sel=$1 n
	local n1="a ($sel): a slurmd killed with -9 under a running job: its node goes DOWN, slurmctld logs it"
	local n2="a ($sel): the DOWN node is never allocated while its slurmd is dead; no node in two jobs"
	local n3="a ($sel): after slurmd restart and resume, the node is allocated again"
	local n4="a ($sel): no job lost: every job submitted around the fault completes once"
	local bad1="" bad2="" bad3="" bad4=""
	if ! start_cluster "a-$sel" "$sel" "$LCONF_MM" "SlurmdTimeout=10"; then
		for n in "$n1" "$n2" "$n3" "$n4"; do not_ok "$n" "cluster did not start"; done
		return
	fi
	local holder victim pid t_kill t_down="" t_restart st i
	holder=$(sub -N4 -t 10 600)
	if ! wait_state "$holder" RUNNING 20; then
		bad1="holder job $holder did not start"
	else
		victim=$(expand "$(job_field "$holder" NodeList)" | tr ',' '\n' | tail -n 1)
		pid=$(cat "$CURRENT/run/slurmd.$victim.pid" 2>/dev/null)
		if [ -z "$pid" ] ||
			! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
			grep -q -- "-N $victim "; then
			bad1="no live slurmd for $victim in its pid file (${pid:-none})"
		fi
	fi
	if [ -n "$bad1" ]; then
		for n in "$n1" "$n2" "$n3" "$n4"; do not_ok "$n" "$bad1"; done
		stop_cluster
		return
	fi
	t_kill=$(date +%s)
	kill -9 "$pid"
	for i in $(seq 90); do
		st=$(node_state "$victim")
		case $st in down*) t_down=$(date +%s); break ;; esac
		sleep 1
	done
	if [ -z "$t_down" ]; then
		bad1="$victim is '$st' 90 s after its slurmd was killed"
	else
		note "a ($sel): slurmd of $victim (pid $pid) killed; $victim $st after $((t_down - t_kill)) s;" \
			"job $holder is $(job_field "$holder" JobState)"
		log_set_down "$victim" ||
			bad1="slurmctld.log lacks 'Nodes $victim not responding, setting DOWN'"
	fi
	result "$n1" "$bad1"
	if [ -n "$bad1" ]; then
		for n in "$n2" "$n3" "$n4"; do not_ok "$n" "the node never went DOWN"; done
		stop_cluster
		return
	fi
	# The holder would take its 3 healthy nodes back when requeued and
	# block the big jobs for 10 minutes: its part is done.
	scancel "$holder" 2>/dev/null
	# Jobs that need most of the machine: 63 nodes fit only without the
	# dead node, 64 cannot run until it returns; then smaller ones.
	local big full ids=() id nl
	big=$(sub -N63 -t 2 4)
	full=$(sub -N64 -t 2 3)
	for i in 20 16 12 8 30 2; do
		ids+=("$(sub -N"$i" -t 2 2)")
	done
	# A job sbatch refused has no id: a failure, never a job to skip.
	local refused=0
	for id in "$big" "$full" "${ids[@]}"; do
		[ -n "$id" ] || refused=$((refused + 1))
	done
	# Hold the node dead, watching it and the 64-node job.
	for i in $(seq "$HOLD_A"); do
		st=$(node_state "$victim")
		case $st in down*) ;; *) bad2="$victim became '$st' while its slurmd was dead" ;; esac
		[ "$(job_field "$full" JobState)" = PENDING ] ||
			bad2="the 64-node job $full is $(job_field "$full" JobState) with $victim dead"
		[ -n "$bad2" ] && break
		sleep 1
	done
	[ "$(job_field "$big" JobState)" = PENDING ] &&
		bad2="${bad2:+$bad2; }the 63-node job $big did not run while $victim was down ($(job_field "$big" Reason))"
	t_restart=$(date +%s)
	if ! "$CLUSTER" restart-slurmd --dir "$CURRENT" --node "$victim" \
		>"$RUNROOT/a-$sel.restart.log" 2>&1; then
		bad3="restart-slurmd failed: $(tail -n 1 "$RUNROOT/a-$sel.restart.log")"
	fi
	sleep 2
	note "a ($sel): $victim after slurmd restart: $(node_state "$victim"); scontrol update state=resume:" \
		"$(scontrol update nodename="$victim" state=resume 2>&1 || true)"
	if [ -z "$bad3" ]; then
		if wait_state "$full" RUNNING 60; then
			nl=$(job_field "$full" NodeList)
			has_node "$nl" "$victim" ||
				bad3="the 64-node job $full runs on $nl without $victim"
		else
			bad3="the 64-node job $full did not start after $victim returned ($(node_state "$victim"), $(job_field "$full" Reason))"
		fi
	fi
	wait_empty 60 || bad3="${bad3:+$bad3; }jobs did not finish"
	sleep 1
	# From jobcomp: no job that started while the node was DOWN holds it.
	local tab=$RUNROOT/a-$sel.table n_during
	jobcomp_table "$CURRENT/jobcomp.txt" >"$tab"
	# The holder's own records (killed with its node, then cancelled)
	# are not allocations made while the node was down.
	note "a ($sel): records of the holder job: $(awk -v h="$holder" '$1 == h { printf "%s[%s %d-%d] ", sep, $3, $4, $5; sep = " " }' "$tab")"
	n_during=$(awk -v a="$t_down" -v b="$t_restart" -v h="$holder" \
		'$1 != h && $4 >= a && $4 < b' "$tab" | wc -l)
	id=$(awk -v a="$t_down" -v b="$t_restart" -v v="$victim" -v h="$holder" \
		'$1 != h && $4 >= a && $4 < b && index("," $6 ",", "," v ",") { print $1 " (" $6 ")"; exit }' "$tab")
	[ -n "$id" ] && bad2="${bad2:+$bad2; }job $id started while $victim was DOWN and holds it"
	local ov
	ov=$(overlap "$CURRENT/jobcomp.txt")
	[ -n "$ov" ] && bad2="${bad2:+$bad2; }$ov"
	local late
	late=$(($(awk -v j="$full" '$1 == j { print $4 }' "$tab") - t_restart))
	note "a ($sel): $n_during jobs started while $victim was down, none on it;" \
		"the 64-node job started $late s after the slurmd restart"
	result "$n2" "$bad2"
	result "$n3" "$bad3"
	bad4=$(completed_once "$tab" "$big" "$full" "${ids[@]}")
	[ "$refused" -gt 0 ] &&
		bad4="${bad4:+$bad4; }sbatch refused $refused of the $((2 + ${#ids[@]})) jobs ($(tail -n 1 "$RUNROOT/sbatch.err" 2>/dev/null))"
	bad4="$bad4$(plugin_errors)"
	local ndone
	ndone=$(awk -v h="$holder" '$1 != h && $3 == "COMPLETED" && !seen[$1]++' "$tab" | wc -l)
	loss a "$sel" "jobs submitted around the fault that did not complete" \
		$((2 + ${#ids[@]} - ndone)) $((2 + ${#ids[@]})) 0
	result "$n4" "$bad4"
	fig a "select/$sel: $victim DOWN $((t_down - t_kill)) s after the kill, $n_during jobs started while it was down (none on it), 64-node job started $late s after the slurmd restart, $(awk -v h="$holder" '$1 != h && $3 == "COMPLETED"' "$tab" | wc -l) of $((2 + ${#ids[@]})) jobs completed"
	stop_cluster
}
