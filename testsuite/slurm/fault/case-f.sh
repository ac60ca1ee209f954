# SPDX-License-Identifier: GPL-2.0-or-later
#
# case-f.sh - case f: state files cut short at a slurmctld restart.
# Sourced by fault-tests.sh, which sets the options and globals it reads.

# f_kill - kill -9 of slurmctld.
f_kill() {
	local pid
	pid=$(cat "$CURRENT/run/slurmctld.recpid" 2>/dev/null)
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	sleep 1
}

# f_restart FLAGS LOG - cluster.sh restart-ctld; returns its status.
f_restart() {
	"$CLUSTER" restart-ctld --dir "$CURRENT" ${1:+--flags "$1"} >>"$2" 2>&1
}

# f_cut FILE - cuts FILE to half its size.
f_cut() {
	local sz
	sz=$(stat -c %s "$1" 2>/dev/null) || return 1
	truncate -s $((sz / 2)) "$1"
	echo "$(basename "$1") cut from $sz to $((sz / 2)) bytes"
}

# f_cut_restart FILE NAME TEXT - with slurmctld killed: cuts the state
# file FILE (called NAME) in half, then checks that slurmctld refuses to
# start on it with "fatal: TEXT" and starts with -i logging "error: TEXT".
# Sets F_CUT (what was cut) and F_WHY (what went wrong, or empty);
# returns 1 when slurmctld -i did not start. Uses case_f's log and rlog.
f_cut_restart() {
	local file=$1 name=$2 text=$3 off
	F_WHY=""
	F_CUT=$(f_cut "$file") || F_WHY="no $name in $(dirname "$file")"
	off=$(stat -c %s "$log")
	if f_restart "" "$rlog"; then
		F_WHY="${F_WHY:+$F_WHY; }slurmctld started on a cut $name without -i"
	elif ! tail -c +$((off + 1)) "$log" | grep -q "fatal: $text"; then
		F_WHY="${F_WHY:+$F_WHY; }slurmctld stopped without 'fatal: $text'"
	fi
	off=$(stat -c %s "$log")
	if ! f_restart -i "$rlog"; then
		F_WHY="${F_WHY:+$F_WHY; }slurmctld -i did not start: $(tail -n 2 "$rlog" | tr '\n' ' ')"
		return 1
	fi
	tail -c +$((off + 1)) "$log" | grep -q "error: $text" ||
		F_WHY="${F_WHY:+$F_WHY; }slurmctld -i did not log 'error: $text'"
	return 0
}

case_f() {
	local sel=$1 F=$RUNROOT/f-$1 n1 n2 n3 n4 n
	local bad1="" bad2="" bad3="" bad4=""
	SEL=$sel CASE="f ($sel)"
	n1="f ($sel): node_state cut short at a restart: slurmctld stops naming it; started with -i it logs the error and keeps every job it knew, and places new ones"
	n2="f ($sel): job_state cut short at a restart: slurmctld stops naming it; started with -i it runs every job it recovered"
	if [ "$sel" = locality ]; then
		n3="f ($sel): locality.conf cut short at a restart: slurmctld stops naming file and line; restarted with the file fixed, it keeps every job"
	else
		n3="f ($sel): the same restarts with locality.conf cut short (not read by linear): slurmctld keeps every job"
	fi
	n4="f ($sel): no job lost but those the cut job_state dropped, none runs twice, no node in two jobs at once"
	if ! start_cluster "f-$sel" "$sel" "$LCONF_MM"; then
		for n in "$n1" "$n2" "$n3" "$n4"; do not_ok "$n" "cluster did not start"; done
		return
	fi
	local log=$CURRENT/log/slurmctld.log st=$CURRENT/state conf=$CURRENT/etc/locality.conf
	local off alive recovered lost="" rlog=$F.restart.log
	: >"$rlog"

	# 1: node_state cut short.
	stream "F1-$sel" "$STREAM_F" 8 20
	wait "$SUBMITTER"
	SUBMITTER=""
	hold_pending
	f_kill
	f_cut_restart "$st/node_state" node_state 'Incomplete node data checkpoint file'
	local started=$?
	release_held
	bad1=$F_WHY
	note "f ($sel): $F_CUT"
	if [ $started = 0 ]; then
		# Every job of the stream is still known (queued, running or
		# done).
		jobcomp_table "$CURRENT/jobcomp.txt" >"$F.table1"
		alive=$(awk 'FNR == NR { if ($2 != "FAIL") print $2; next }' "$RUNROOT/F1-$sel.acks" |
			while read -r id; do
				awk -v j="$id" '$1 == j && $3 == "COMPLETED" { f = 1 } END { exit !f }' "$F.table1" ||
					[ -n "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] || echo "$id"
			done | paste -sd' ' -)
		[ -n "$alive" ] && bad1="${bad1:+$bad1; }slurmctld -i forgot job(s) $alive"
	fi
	note "f ($sel): after the node_state cut: $(squeue -h -t R -o %i 2>/dev/null | wc -l) jobs running, $(squeue -h -t PD -o %i 2>/dev/null | wc -l) pending"

	# 2: job_state cut short, with new jobs beside the recovered ones.
	stream "F2-$sel" "$STREAM_F" 8 20
	wait "$SUBMITTER"
	SUBMITTER=""
	hold_pending
	alive=$(squeue -h -o %i 2>/dev/null | sort -n | paste -sd' ' -)
	f_kill
	f_cut_restart "$st/job_state" job_state 'Incomplete job state save file'
	bad2=$F_WHY
	release_held
	note "f ($sel): $F_CUT, $(echo "$alive" | wc -w) jobs in the queue at the kill"
	recovered=$(squeue -h -o %i 2>/dev/null | sort -n | paste -sd' ' -)
	# Jobs in the queue at the kill that the cut file no longer holds.
	lost=$(comm -23 <(echo "$alive" | tr ' ' '\n' | grep . | sort) \
		<(echo "$recovered" | tr ' ' '\n' | grep . | sort) | sort -n | paste -sd' ' -)
	note "f ($sel): recovered $(echo "$recovered" | wc -w) of $(echo "$alive" | wc -w) queued jobs; dropped by the cut: ${lost:-none}"
	echo "$recovered" >"$F.recovered"

	# 3: locality.conf cut short in the middle of its Strategy= line.
	hold_pending
	f_kill
	cp "$conf" "$F.locality.conf"
	head -c "$(grep -b -m1 '^Strategy=' "$conf" | cut -d: -f1)" "$F.locality.conf" >"$conf"
	printf 'Strategy=m' >>"$conf"
	off=$(stat -c %s "$log")
	if [ "$sel" = locality ]; then
		if f_restart "" "$rlog"; then
			bad3="slurmctld started on a cut locality.conf"
		elif ! tail -c +$((off + 1)) "$log" | grep -q 'fatal: select/locality: .*locality.conf:4:'; then
			bad3="slurmctld stopped without a fatal line naming locality.conf:4: $(tail -c +$((off + 1)) "$log" | grep -m1 fatal)"
		else
			note "f ($sel): $(tail -c +$((off + 1)) "$log" | grep -m1 'fatal: select/locality' | sed 's/^\[[^]]*\] //')"
		fi
	else
		f_restart "" "$rlog" || bad3="slurmctld did not start: $(tail -n 2 "$rlog" | tr '\n' ' ')"
		f_kill
	fi
	cp "$F.locality.conf" "$conf"
	f_restart "" "$rlog" || bad3="${bad3:+$bad3; }slurmctld did not start with the fixed file"
	release_held
	# Every job recovered at step 2 is still known.
	jobcomp_table "$CURRENT/jobcomp.txt" >"$F.table3"
	alive=$(for id in $recovered; do
		awk -v j="$id" '$1 == j && $3 == "COMPLETED" { f = 1 } END { exit !f }' "$F.table3" ||
			[ -n "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] || echo "$id"
	done | paste -sd' ' -)
	[ -n "$alive" ] && bad3="${bad3:+$bad3; }slurmctld forgot job(s) $alive"
	result "$n1" "$bad1"
	wait_empty 240 || bad2="${bad2:+$bad2; }jobs did not finish"
	sleep 1
	jobcomp_table "$CURRENT/jobcomp.txt" >"$F.table"
	# Every recovered job completed once.
	local r
	r=$(completed_once "$F.table" $recovered)
	[ -n "$r" ] && bad2="${bad2:+$bad2; }recovered jobs: $r"
	result "$n2" "$bad2"
	result "$n3" "$bad3"
	# Every acknowledged job but those the cut dropped completed once.
	# shellcheck disable=SC2046
	r=$(completed_once "$F.table" $(cat "$RUNROOT/F1-$sel.acks" "$RUNROOT/F2-$sel.acks" |
		awk -v lost=" $lost " '$2 != "FAIL" && index(lost, " " $2 " ") == 0 { print $2 }'))
	[ -n "$r" ] && bad4="$r"
	# A job that ended after the job_state save it was recovered from
	# runs again as far as slurmctld knows (Slurm's own behaviour, under
	# either plugin): a second record of the same job from the same
	# start, ending at its time limit. Only its first record counts for
	# the overlap check; the others are counted.
	local ov nres
	awk '{ id = ""; for (i = 1; i <= NF; i++) if ($i ~ /^JobId=/) id = $i }
		!seen[id]++' "$CURRENT/jobcomp.txt" >"$F.first"
	nres=$(( $(wc -l <"$CURRENT/jobcomp.txt") - $(wc -l <"$F.first") ))
	note "f ($sel): $nres second record(s) of a job recovered as still running after it had ended"
	ov=$(overlap "$F.first")
	[ -n "$ov" ] && bad4="${bad4:+$bad4; }$ov"
	bad4="$bad4$(plugin_errors)"
	result "$n4" "$bad4"
	fig f "select/$sel: $(awk '$3 == "COMPLETED" && $2 ~ /^F[12]-/' "$F.table" | wc -l) of $((2 * STREAM_F)) jobs completed; the cut job_state dropped $(echo "$lost" | wc -w) of the queued jobs"
	stop_cluster
}
