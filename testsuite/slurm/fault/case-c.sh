# SPDX-License-Identifier: GPL-2.0-or-later
#
# case-c.sh - case c: scontrol reconfigure with a changed and a broken locality.conf.
# Sourced by fault-tests.sh, which sets the options and globals it reads.

# c_idle_check EXPECT_CONF OTHER_CONF - on the idle machine, a job of a
# size the two files place differently lands where EXPECT_CONF puts it.
# Sets C_WHY to the reason when not. Under select/linear (the control)
# it only waits for the idle machine, as the check does.
c_idle_check() {
	local want=$1 other=$2 k pw po id got sw so
	C_WHY=""
	sw=$(basename "$want" .conf)
	so=$(basename "$other" .conf)
	if [ "$SEL" != locality ]; then
		wait_empty 60 || C_WHY="jobs still running"
		wait_all_idle 30 || C_WHY="${C_WHY:+$C_WHY; }not all nodes idle"
		return
	fi
	[ -n "$EVAL" ] || { C_WHY="locality-eval not built"; return; }
	wait_empty 60 || { C_WHY="jobs still running"; return; }
	wait_all_idle 30 || { C_WHY="not all nodes idle"; return; }
	for k in 5 3 6 7 10 12; do
		pw=$(predict "$want" "$k")
		po=$(predict "$other" "$k")
		[ -n "$pw" ] && [ "$(expand "$pw")" != "$(expand "$po")" ] && break
		pw=""
	done
	[ -n "$pw" ] || { C_WHY="no size where $sw and $so differ"; return; }
	id=$(sub -N"$k" -t 2 3)
	if ! wait_state "$id" RUNNING 20; then
		C_WHY="-N$k job $id did not start"
		return
	fi
	got=$(job_field "$id" NodeList)
	if [ "$(expand "$got")" != "$(expand "$pw")" ]; then
		C_WHY="-N$k job got $got; $sw predicts $pw, $so $po"
	else
		note "$CASE: -N$k on the idle machine -> $got ($sw's choice; $so would give $po)"
	fi
	wait_empty 30 >/dev/null
}

# stream TAG N MIN MAX - submits N jobs (runtimes MIN..MAX s) named TAG-i
# in the background, 0.1 s apart; the same jobs under every plugin. A
# submission slurmctld dropped in transit is sent once more (submitter).
stream() {
	gen_jobs "$1-" "$2" "$((SEED + 7))" "$3" "$4" >"$RUNROOT/$1.list"
	rm -f "$RUNROOT/stream.stop"
	submitter "$RUNROOT/$1.list" "$RUNROOT/$1.acks" 0.1 "$RUNROOT/stream.stop" 1 &
	SUBMITTER=$!
}

# launch_lost TABLE - the jobs of TABLE whose only record is TIMEOUT and
# whose batch script no slurmd launched ("Launching batch job N" in no
# slurmd log): slurmctld started them on their nodes, and Slurm lost the
# launch RPC. Seen once (22.05.8, 2026-12-07): a job started 7 ms before
# scontrol reconfigure, whose batch host's slurmd reconfigured as the
# launch arrived; it ran its time limit out without a script.
launch_lost() {
	awk '{ s[$1] = s[$1] " " $3 } END { for (j in s) if (s[j] == " TIMEOUT") print j }' "$1" |
		while read -r id; do
			cat "$CURRENT"/log/slurmd.*.log 2>/dev/null |
				grep -q "Launching batch job $id for" || echo "$id"
		done
}

# stream_done TAG - waits for the submitter and the queue; prints why, if
# a job of stream TAG was refused or did not complete exactly once. One
# job whose launch Slurm lost (launch_lost) is noted on stderr and not
# counted: the placement was made and the job ran, it is no job the
# plugin lost; two or more fail. The job not counted is kept in
# TAG.slurm-lost, for the case's loss against the control (slurm_lost).
stream_done() {
	local r lost ids
	wait "$SUBMITTER"
	SUBMITTER=""
	wait_empty 180 || echo "jobs did not finish; "
	sleep 1
	jobcomp_table "$CURRENT/jobcomp.txt" >"$RUNROOT/$1.table"
	ids=$(awk '$2 != "FAIL" { print $2 }' "$RUNROOT/$1.acks")
	lost=$(launch_lost "$RUNROOT/$1.table" | grep -xF -f <(printf '%s\n' "$ids"))
	: >"$RUNROOT/$1.slurm-lost"
	if [ -n "$lost" ] && [ "$(wc -l <<<"$lost")" -eq 1 ]; then
		note "$1: job $lost started, but no slurmd launched its script (TIMEOUT): Slurm lost the launch; not counted" >&2
		ids=$(grep -vxF "$lost" <<<"$ids")
		echo "$lost" >"$RUNROOT/$1.slurm-lost"
	fi
	# shellcheck disable=SC2086
	r=$(completed_once "$RUNROOT/$1.table" $ids)
	[ -n "$r" ] && echo "$r; "
	awk '$2 == "FAIL" { n++ } END { if (n) printf "sbatch refused %d jobs; ", n }' "$RUNROOT/$1.acks"
}

# slurm_lost TAG.. - how many jobs of streams TAG.. stream_done left out
# as launches Slurm lost: a case's loss leaves them out on either side of
# the comparison with the control, as its checks do.
slurm_lost() {
	local t
	for t in "$@"; do cat "$RUNROOT/$t.slurm-lost" 2>/dev/null; done | sort -u | grep -c .
}

# stream_retried TAG - notes the jobs of stream TAG sent twice.
stream_retried() {
	[ -s "$RUNROOT/$1.acks.retried" ] || return 0
	note "$1: sent again after slurmctld dropped it in transit: $(paste -sd, "$RUNROOT/$1.acks.retried")"
}

# reconf_logged PATTERN [OFFSET] - after scontrol reconfigure, waits up to
# 10 s for a slurmctld.log line (past byte OFFSET) matching PATTERN;
# prints it.
reconf_logged() {
	local line="" log=$CURRENT/log/slurmctld.log
	for _ in $(seq 20); do
		line=$(tail -c +$((${2:-0} + 1)) "$log" | grep -m1 -E "$1")
		[ -n "$line" ] && break
		sleep 0.5
	done
	echo "${line#*] }"
}

case_c() {
	local sel=$1 n1 n2 n3
	local bad1="" bad2="" bad3=""
	SEL=$sel CASE="c ($sel)"
	if [ "$sel" = locality ]; then
		n1="c ($sel): reconfigure with Strategy=mm changed to bestfit while jobs run: new policy logged and used, jobs complete"
		n2="c ($sel): reconfigure with a broken locality.conf while jobs run: error logged, running configuration kept, jobs still placed"
		n3="c ($sel): after the broken file is fixed, the next reconfigure loads it"
	else
		n1="c ($sel): reconfigure (locality.conf changed) while jobs run: every job completes once"
		n2="c ($sel): reconfigure (locality.conf broken) while jobs run: every job completes once, no node in two jobs"
		n3="c ($sel): reconfigure (locality.conf fixed): slurmctld keeps running"
	fi
	if ! start_cluster "c-$sel" "$sel" "$LCONF_MM"; then
		not_ok "$n1" "cluster did not start"
		not_ok "$n2" "cluster did not start"
		not_ok "$n3" "cluster did not start"
		return
	fi
	local log=$CURRENT/log/slurmctld.log conf=$CURRENT/etc/locality.conf
	local off line r pid
	pid=$(cat "$CURRENT/run/slurmctld.recpid")
	[ "$sel" = locality ] && ! grep -q 'select/locality: Strategy=mm ' "$log" &&
		bad1="the start-up log lacks 'Strategy=mm'"

	# Changed: mm -> bestfit while the stream runs.
	stream "C1-$sel" "$STREAM_C" 0.5 4
	sleep 4
	off=$(stat -c %s "$log")
	cp "$LCONF_BF" "$conf"
	scontrol reconfigure || bad1="scontrol reconfigure failed"
	if [ "$sel" = locality ]; then
		line=$(reconf_logged 'select/locality: Strategy=bestfit ' "$off")
		if [ -n "$line" ]; then
			note "c ($sel): after reconfigure: $line"
		else
			bad1="${bad1:+$bad1; }no 'select/locality: Strategy=bestfit' in slurmctld.log after the reconfigure"
		fi
	fi
	r=$(stream_done "C1-$sel")
	stream_retried "C1-$sel"
	[ -n "$r" ] && bad1="${bad1:+$bad1; }$r"
	c_idle_check "$LCONF_BF" "$LCONF_MM"
	[ -n "$C_WHY" ] && bad1="${bad1:+$bad1; }$C_WHY"
	result "$n1" "$bad1"

	# Broken: an unknown strategy on line 4, while the stream runs.
	stream "C2-$sel" "$STREAM_C" 0.5 4
	sleep 4
	off=$(stat -c %s "$log")
	printf '# broken on purpose\nDimensions=8x8\nTorus=yes\nStrategy=nosuch\nCurve=hilbert\n' >"$conf"
	scontrol reconfigure || note "c ($sel): scontrol reconfigure with the broken file returned non-zero"
	if [ "$sel" = locality ]; then
		line=$(reconf_logged 'keeping the running configuration' "$off")
		if [ -z "$line" ]; then
			bad2="no 'keeping the running configuration' in slurmctld.log"
		else
			note "c ($sel): broken file: $line"
			case $line in *locality.conf:4*) ;;
			*) bad2="the error does not name locality.conf:4: $line" ;;
			esac
		fi
		sleep 2
		# A slurmctld that restarts itself on reconfigure (Slurm 24.11)
		# logs the policy it keeps; any other one means the broken file
		# was used.
		if tail -c +$((off + 1)) "$log" | grep 'select/locality: Strategy=' |
			grep -qv 'Strategy=bestfit '; then
			bad2="${bad2:+$bad2; }a policy was logged after the broken reconfigure: $(tail -c +$((off + 1)) "$log" | grep 'select/locality: Strategy=' | grep -v -m1 'Strategy=bestfit ')"
		fi
	else
		sleep 2
	fi
	[ -d "/proc/$pid" ] || bad2="${bad2:+$bad2; }slurmctld died"
	r=$(stream_done "C2-$sel")
	stream_retried "C2-$sel"
	[ -n "$r" ] && bad2="${bad2:+$bad2; }$r"
	# The running configuration (bestfit) still places jobs.
	c_idle_check "$LCONF_BF" "$LCONF_MM"
	[ -n "$C_WHY" ] && bad2="${bad2:+$bad2; }$C_WHY"
	local ov
	ov=$(overlap "$CURRENT/jobcomp.txt")
	[ -n "$ov" ] && bad2="${bad2:+$bad2; }$ov"
	result "$n2" "$bad2"

	# Fixed again: back to mm.
	off=$(stat -c %s "$log")
	cp "$LCONF_MM" "$conf"
	scontrol reconfigure || bad3="scontrol reconfigure failed"
	if [ "$sel" = locality ]; then
		line=$(reconf_logged 'select/locality: Strategy=mm ' "$off")
		[ -n "$line" ] || bad3="no 'select/locality: Strategy=mm' in slurmctld.log after the fix"
	fi
	c_idle_check "$LCONF_MM" "$LCONF_BF"
	[ -n "$C_WHY" ] && bad3="${bad3:+$bad3; }$C_WHY"
	[ -d "/proc/$pid" ] || bad3="${bad3:+$bad3; }slurmctld died"
	bad3="$bad3$(plugin_errors)"
	result "$n3" "$bad3"
	local jobs=$((2 * STREAM_C - $(slurm_lost "C1-$sel" "C2-$sel")))
	loss c "$sel" "jobs of the streams that did not complete (launches Slurm lost left out)" \
		$((jobs - $(awk '$3 == "COMPLETED" && $2 ~ /^C[12]-/ && !seen[$1]++' "$RUNROOT/C2-$sel.table" | wc -l))) "$jobs" 0
	fig c "select/$sel: $(awk '$3 == "COMPLETED" && $2 ~ /^C[12]-/' "$RUNROOT/C2-$sel.table" | wc -l) of $((2 * STREAM_C)) jobs completed across the three reconfigures"
	stop_cluster
}
