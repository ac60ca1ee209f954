# SPDX-License-Identifier: GPL-2.0-or-later
#
# case-b.sh - case b: nodes drained or set DOWN, then resumed, during a stream of jobs.
# Sourced by fault-tests.sh, which sets the options and globals it reads.

case_b() {
	local sel=$1
	local n1="b ($sel): no job starts on a node while it is drained or DOWN ($CYCLES cycles, drain and DOWN in turn, during $STREAM_B jobs)"
	local n2="b ($sel): drained nodes stay DRAIN/DRAINING, DOWN nodes DOWN, until resumed; slurmctld logs each change"
	local n3="b ($sel): no job lost (jobs on nodes set DOWN are requeued and complete), none runs twice, no node in two jobs at once"
	local bad1="" bad2="" bad3=""
	if ! start_cluster "b-$sel" "$sel" "$LCONF_MM"; then
		not_ok "$n1" "cluster did not start"
		not_ok "$n2" "cluster did not start"
		not_ok "$n3" "cluster did not start"
		return
	fi
	gen_jobs B "$STREAM_B" "$SEED" 0.5 4 >"$RUNROOT/b-$sel.list"
	rm -f "$RUNROOT/b.stop"
	submitter "$RUNROOT/b-$sel.list" "$RUNROOT/b-$sel.acks" 0.1 "$RUNROOT/b.stop" &
	SUBMITTER=$!
	local c set t1 t2 i st act want intervals=$RUNROOT/b-$sel.intervals
	local killed=0 running node
	: >"$intervals"
	for c in $(seq "$CYCLES"); do
		sleep 6
		set=$(awk -v seed="$((SEED * 100 + c))" 'BEGIN {
			srand(seed)
			while (n < 8) {
				x = 1 + int(rand() * 64)
				if (!(x in s)) { s[x] = 1; n++; out = out (n > 1 ? "," : "") sprintf("n%03d", x) }
			}
			print out }')
		act=drain
		[ $((c % 2)) = 0 ] && act=down
		# Jobs a DOWN kills: those running on the set just before.
		running=$(squeue -h -t R -o '%i %N' 2>/dev/null |
			while read -r i node; do echo "$i $(expand "$node")"; done |
			awk -v set="$set" '
			BEGIN { n = split(set, s, ","); for (i = 1; i <= n; i++) d[s[i]] = 1 }
			{ m = split($2, x, ","); for (i = 1; i <= m; i++) if (x[i] in d) { c++; break } }
			END { print c + 0 }')
		scontrol update nodename="$set" state="$act" reason=fault-test ||
			bad1="scontrol update state=$act failed"
		t1=$(date +%s)
		for i in $(seq "$HOLD_B"); do
			for st in $(sinfo -h -N -n "$set" -o %T); do
				# DRAIN shows as drained, draining (drng) or drain
				# (sinfo %T); DOWN as down, down* when not responding.
				case $act/$st in drain/drain* | drain/drng* | down/down*) ;;
				*) bad2="a node of $set was '$st' while set $act" ;;
				esac
			done
			sleep 1
		done
		t2=$(date +%s)
		scontrol update nodename="$set" state=resume ||
			bad1="scontrol update state=resume failed"
		echo "$t1 $t2 $set" >>"$intervals"
		[ "$act" = down ] && killed=$((killed + running))
		for node in $(echo "$set" | tr ',' ' '); do
			log_has "node $node state set to ${act^^}" ||
				bad2="${bad2:+$bad2; }slurmctld.log lacks 'node $node state set to ${act^^}'"
		done
	done
	wait "$SUBMITTER"
	SUBMITTER=""
	wait_empty 240 || bad3="jobs did not finish"
	sleep 1
	local tab=$RUNROOT/b-$sel.table during=0 viol reused=0
	jobcomp_table "$CURRENT/jobcomp.txt" >"$tab"
	while read -r t1 t2 set; do
		viol=$(awk -v a="$t1" -v b="$t2" -v set="$set" '
			BEGIN { n = split(set, s, ","); for (i = 1; i <= n; i++) d[s[i]] = 1 }
			$4 > a && $4 < b {
				m = split($6, x, ",")
				for (i = 1; i <= m; i++)
					if (x[i] in d) { print "job " $1 " started at " $4 " on " x[i]; exit }
			}' "$tab")
		[ -n "$viol" ] && bad1="$viol (out of service [$t1,$t2]: $set)"
		during=$((during + $(awk -v a="$t1" -v b="$t2" '$4 > a && $4 < b' "$tab" | wc -l)))
		reused=$((reused + $(awk -v b="$t2" -v set="$set" '
			BEGIN { n = split(set, s, ","); for (i = 1; i <= n; i++) d[s[i]] = 1 }
			$4 > b { m = split($6, x, ","); for (i = 1; i <= m; i++) if (x[i] in d) { c++; break } }
			END { print c + 0 }' "$tab")))
	done <"$intervals"
	[ "$during" -gt 0 ] || bad1="${bad1:+$bad1; }no job started while nodes were out of service (the check proved nothing)"
	note "b ($sel): $during jobs started while nodes were out of service, none on them; $reused jobs started on such a node after its resume"
	local r nreq
	# shellcheck disable=SC2046
	r=$(completed_once "$tab" $(awk '$2 != "FAIL" { print $2 }' "$RUNROOT/b-$sel.acks"))
	nreq=$(awk '$3 != "COMPLETED"' "$tab" | wc -l)
	[ "$(awk '$2 != "FAIL"' "$RUNROOT/b-$sel.acks" | wc -l)" = "$STREAM_B" ] ||
		r="${r:+$r; }sbatch refused $(awk '$2 == "FAIL"' "$RUNROOT/b-$sel.acks" | wc -l) of $STREAM_B jobs"
	[ -n "$r" ] && bad3="${bad3:+$bad3; }$r"
	local ov
	ov=$(overlap "$CURRENT/jobcomp.txt")
	[ -n "$ov" ] && bad3="${bad3:+$bad3; }$ov"
	bad3="$bad3$(plugin_errors)"
	note "b ($sel): $killed jobs ran on nodes when they were set DOWN; $nreq jobcomp records other than COMPLETED (runs a DOWN ended: $(awk '$3 != "COMPLETED" { print $3 }' "$tab" | sort | uniq -c | awk '{ printf "%s%s=%d", sep, $2, $1; sep = " " }'))"
	result "$n1" "$bad1"
	result "$n2" "$bad2"
	result "$n3" "$bad3"
	loss b "$sel" "jobs of the stream that did not complete" \
		$((STREAM_B - $(awk '$3 == "COMPLETED" && !seen[$1]++' "$tab" | wc -l))) "$STREAM_B" 0
	fig b "select/$sel: $during jobs started while nodes were out of service (none on them), $killed ran on nodes set DOWN, $(awk '$3 == "COMPLETED"' "$tab" | wc -l) of $STREAM_B completed, $nreq other records"
	stop_cluster
}
