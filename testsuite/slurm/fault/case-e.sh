# SPDX-License-Identifier: GPL-2.0-or-later
#
# case-e.sh - case e: locality.conf edits that move the nodes of running jobs.
# Sourced by fault-tests.sh, which sets the options and globals it reads.

case_e() {
	local sel=$1 n1 n2 n3
	local bad1="" bad2="" bad3=""
	SEL=$sel CASE="e ($sel)"
	n1="e ($sel): locality.conf edited under load to move the nodes of running jobs (rows reversed, then rewired 16x4), each taken by scontrol reconfigure: no job lost, none runs twice"
	n2="e ($sel): no node in two jobs at once across the moves"
	if [ "$sel" = locality ]; then
		n3="e ($sel): each move is logged (Grid=, NodeName= lines) with no plugin error, and on the idle machine a job lands where the last file puts it"
	else
		n3="e ($sel): slurmctld keeps running through the same reconfigures"
	fi
	if ! start_cluster "e-$sel" "$sel" "$LCONF_MM"; then
		not_ok "$n1" "cluster did not start"
		not_ok "$n2" "cluster did not start"
		not_ok "$n3" "cluster did not start"
		return
	fi
	local log=$CURRENT/log/slurmctld.log conf=$CURRENT/etc/locality.conf
	local off line r pid f run1 moved=""
	pid=$(cat "$CURRENT/run/slurmctld.recpid")
	stream "E-$sel" "$STREAM_E" 3 10
	for f in "$LCONF_REV" "$LCONF_16X4"; do
		sleep 6
		run1=$(squeue -h -t R -o %i 2>/dev/null | wc -l)
		off=$(stat -c %s "$log")
		cp "$f" "$conf"
		scontrol reconfigure || bad3="${bad3:+$bad3; }scontrol reconfigure failed"
		[ "$run1" -gt 0 ] || bad1="${bad1:+$bad1; }no job was running when $(basename "$f") was taken (the case proved nothing)"
		moved="${moved:+$moved, }$(basename "$f" .conf) with $run1 jobs running"
		if [ "$sel" = locality ]; then
			case $f in
			*16x4*) line=$(reconf_logged 'select/locality: Grid=16x4 ' "$off") ;;
			*) line=$(reconf_logged 'select/locality: .* NodeName lines placing' "$off") ;;
			esac
			if [ -n "$line" ]; then
				note "e ($sel): after $(basename "$f"): $line"
			else
				bad3="${bad3:+$bad3; }slurmctld.log has no new model after $(basename "$f")"
			fi
		fi
	done
	r=$(stream_done "E-$sel")
	[ -n "$r" ] && bad1="${bad1:+$bad1; }$r"
	result "$n1" "$bad1"
	local ov
	ov=$(overlap "$CURRENT/jobcomp.txt")
	[ -n "$ov" ] && bad2="$ov"
	result "$n2" "$bad2"
	c_idle_check "$LCONF_16X4" "$LCONF_MM"
	[ -n "$C_WHY" ] && bad3="${bad3:+$bad3; }$C_WHY"
	[ -d "/proc/$pid" ] || bad3="${bad3:+$bad3; }slurmctld died"
	bad3="$bad3$(plugin_errors)"
	result "$n3" "$bad3"
	local jobs=$((STREAM_E - $(slurm_lost "E-$sel")))
	loss e "$sel" "jobs of the stream that did not complete (launches Slurm lost left out)" \
		$((jobs - $(awk '$3 == "COMPLETED" && $2 ~ /^E-/ && !seen[$1]++' "$RUNROOT/E-$sel.table" | wc -l))) "$jobs" 0
	fig e "select/$sel: moved $moved; $(awk '$3 == "COMPLETED" && $2 ~ /^E-/' "$RUNROOT/E-$sel.table" | wc -l) of $STREAM_E jobs completed"
	stop_cluster
}
