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

# f_cut FILE [AT] - cuts FILE to AT bytes (half its size by default);
# FILE.full (in $F's directory) keeps the whole file.
f_cut() {
	local sz at
	sz=$(stat -c %s "$1" 2>/dev/null) || return 1
	at=${2:-$((sz / 2))}
	cp "$1" "$F.$(basename "$1").full"
	truncate -s "$at" "$1"
	echo "$(basename "$1") cut from $sz to $at bytes"
}

# f_job_cut_point FILE QUEUE - where to cut the job_state FILE: at the
# packed name of the job of QUEUE ("id name" lines) nearest half the
# file, or at half the file when no name is found. A job's name comes
# before its details and steps, so the cut never lands inside a step
# layout, whose cut unpack segfaults Slurm 22.05's own loader
# (slurm_step_layout_destroy from load_step_state; CI, 2026-12-02).
f_job_cut_point() {
	python3 - "$1" "$2" <<'PYEOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
half = len(data) // 2
offsets = []
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 2:
        continue
    name = f[1].encode()
    o = data.find(struct.pack(">I", len(name) + 1) + name + b"\0")
    if o > 0:
        offsets.append(o)
print(min(offsets, key=lambda o: abs(o - half)) if offsets else half)
PYEOF
}

# f_past_cut FULL CUT QUEUE - which jobs of QUEUE ("id name" lines) a
# job_state file cut to CUT bytes can have lost: those whose record lies
# past the cut. A job's name is packed in its record (a 32-bit
# big-endian length, the name and its NUL, unique in the stream), so its
# offset in the whole file FULL places the record; the last job whose
# name lies before the cut may have its record straddle it, and is
# counted with them. Prints "id offset where" per job, where is "past",
# "straddles", "before" or "absent" (not in the saved file at all).
f_past_cut() {
	python3 - "$1" "$2" "$3" <<'PYEOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
cut = int(sys.argv[2])
jobs = []
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) < 2:
        continue
    name = f[1].encode()
    pat = struct.pack(">I", len(name) + 1) + name + b"\0"
    jobs.append((f[0], data.find(pat)))
before = [o for _, o in jobs if 0 <= o < cut]
last = max(before) if before else -1
for jid, o in jobs:
    where = "absent" if o < 0 else "past" if o >= cut else \
        "straddles" if o == last else "before"
    print(jid, o, where)
PYEOF
}

# f_cut_restart FILE NAME TEXT [AT] - with slurmctld killed: cuts the
# state file FILE (called NAME) to AT bytes (default: half), then checks
# that slurmctld refuses to start on it with "fatal: TEXT" and starts
# with -i logging "error: TEXT".
# Sets F_CUT (what was cut) and F_WHY (what went wrong, or empty);
# returns 1 when slurmctld -i did not start. Uses case_f's log and rlog.
f_cut_restart() {
	local file=$1 name=$2 text=$3 at=${4:-} off
	F_WHY=""
	F_CUT=$(f_cut "$file" $at) || F_WHY="no $name in $(dirname "$file")"
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
	if [ "$sel" = locality ]; then
		n3="f ($sel): locality.conf cut short at a restart: slurmctld stops naming file and line; restarted with the file fixed, it keeps every job"
	else
		n3="f ($sel): the same restarts with locality.conf cut short (not read by linear): slurmctld keeps every job"
	fi
	n2="f ($sel): job_state cut short at a restart: slurmctld stops naming it; started with -i it runs every job it recovered, and loses only jobs whose records lay past the cut"
	n4="f ($sel): sbatch accepted jobs; none lost but those the cut job_state dropped, none runs twice, no node in two jobs at once"
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
					[ -n "$(squeue -h -t all -j "$id" -o %i 2>/dev/null)" ] || echo "$id"
			done | paste -sd' ' -)
		[ -n "$alive" ] && bad1="${bad1:+$bad1; }slurmctld -i forgot job(s) $alive"
	fi
	note "f ($sel): after the node_state cut: $(squeue -h -t R -o %i 2>/dev/null | wc -l) jobs running, $(squeue -h -t PD -o %i 2>/dev/null | wc -l) pending"

	# 2: job_state cut short, with new jobs beside the recovered ones.
	stream "F2-$sel" "$STREAM_F" 8 20
	wait "$SUBMITTER"
	SUBMITTER=""
	hold_pending
	squeue -h -o '%i %j' 2>/dev/null | sort -n >"$F.queue"
	alive=$(awk '{ print $1 }' "$F.queue" | paste -sd' ' -)
	f_kill
	local cut
	cut=$(f_job_cut_point "$st/job_state" "$F.queue")
	f_cut_restart "$st/job_state" job_state 'Incomplete job state save file' "$cut"
	bad2=$F_WHY
	release_held
	note "f ($sel): $F_CUT, $(echo "$alive" | wc -w) jobs in the queue at the kill"
	# With no job queued at the kill the cut tested nothing.
	[ -n "$alive" ] || bad2="${bad2:+$bad2; }no job in the queue at the kill"
	# Every job slurmctld knows, ended ones too (MinJobAge keeps them):
	# a job of the queue that ended since the kill was not dropped.
	recovered=$(squeue -h -t all -o %i 2>/dev/null | sort -n | paste -sd' ' -)
	# Jobs in the queue at the kill that the cut file no longer holds.
	lost=$(comm -23 <(echo "$alive" | tr ' ' '\n' | grep . | sort) \
		<(echo "$recovered" | tr ' ' '\n' | grep . | sort) | sort -n | paste -sd' ' -)
	# The cut explains the loss of a job whose record lay past the cut
	# point (or straddled it), no other.
	local full=$F.job_state.full where unexplained="" npast=0
	if [ -s "$full" ]; then
		f_past_cut "$full" "$cut" "$F.queue" >"$F.where"
		npast=$(awk '$3 == "past" || $3 == "straddles"' "$F.where" | wc -l)
		unexplained=$(for id in $lost; do
			where=$(awk -v j="$id" '$1 == j { print $3 }' "$F.where")
			case $where in past | straddles) ;; *) echo "$id(${where:-?})" ;; esac
		done | paste -sd' ' -)
		[ -n "$unexplained" ] &&
			bad2="${bad2:+$bad2; }$(echo "$unexplained" | wc -w) queued job(s) lost whose records lay before the cut point: $unexplained"
	else
		bad2="${bad2:+$bad2; }no copy of the whole job_state"
	fi
	note "f ($sel): $(($(echo "$alive" | wc -w) - $(echo "$lost" | wc -w))) of $(echo "$alive" | wc -w) queued jobs still known (queued, running or ended); $npast had their records past the cut point (or across it); dropped by the cut: ${lost:-none}"
	echo "$recovered" >"$F.recovered"

	# 3: locality.conf cut short in the middle of its Strategy= line, at
	# an orderly restart (SIGTERM): slurmctld saves its state files as it
	# stops, so the job_state that step 2's -i start read cut is whole
	# again. A kill -9 here, before that slurmctld's first save, left it
	# cut, and the start with the fixed file stopped on it (CI,
	# 2026-12-01).
	hold_pending
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
	fi
	cp "$F.locality.conf" "$conf"
	f_restart "" "$rlog" ||
		bad3="${bad3:+$bad3; }slurmctld did not start with the fixed file: $(tail -n 3 "$rlog" | tr '\n' ' ')"
	release_held
	# Every job recovered at step 2 is still known.
	jobcomp_table "$CURRENT/jobcomp.txt" >"$F.table3"
	alive=$(for id in $recovered; do
		awk -v j="$id" '$1 == j && $3 == "COMPLETED" { f = 1 } END { exit !f }' "$F.table3" ||
			[ -n "$(squeue -h -t all -j "$id" -o %i 2>/dev/null)" ] || echo "$id"
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
	# Every acknowledged job but those the cut dropped (bounded above)
	# completed once; with no job accepted there is nothing to check.
	local acc1 acc2 nacc excused
	acc1=$(awk '$2 != "FAIL"' "$RUNROOT/F1-$sel.acks" | wc -l)
	acc2=$(awk '$2 != "FAIL"' "$RUNROOT/F2-$sel.acks" | wc -l)
	nacc=$((acc1 + acc2))
	[ "$acc1" -gt 0 ] && [ "$acc2" -gt 0 ] ||
		bad4="sbatch accepted $acc1 of the $STREAM_F jobs before the node_state cut and $acc2 of the $STREAM_F before the job_state cut"
	excused=$(for id in $lost; do
		case " $unexplained " in *" $id("*) ;; *) echo "$id" ;; esac
	done | paste -sd' ' -)
	# shellcheck disable=SC2046
	r=$(completed_once "$F.table" $(cat "$RUNROOT/F1-$sel.acks" "$RUNROOT/F2-$sel.acks" |
		awk -v lost=" $excused " '$2 != "FAIL" && index(lost, " " $2 " ") == 0 { print $2 }'))
	[ -n "$r" ] && bad4="${bad4:+$bad4; }$r"
	local ndone
	ndone=$(awk '$3 == "COMPLETED" && $2 ~ /^F[12]-/ && !seen[$1]++' "$F.table" | wc -l)
	local gone=$((nacc - ndone - $(echo "$excused" | wc -w)))
	[ "$gone" -lt 0 ] && gone=0
	loss f "$sel" "accepted jobs that did not complete, beyond those the cut dropped" \
		"$gone" "$nacc" 0
	loss f "$sel" "queued jobs the cut job_state dropped" \
		"$(echo "$lost" | wc -w)" "$(wc -l <"$F.queue")" 20
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
	fig f "select/$sel: $ndone of $nacc accepted jobs completed; the cut job_state dropped $(echo "$lost" | wc -w) of $(wc -l <"$F.queue") queued jobs ($npast with records past the cut point)"
	stop_cluster
}
