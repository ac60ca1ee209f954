# SPDX-License-Identifier: GPL-2.0-or-later
#
# case-d.sh - case d: slurmctld killed with -9 at random points of a stream of jobs.
# Sourced by fault-tests.sh, which sets the options and globals it reads.

# d_drain SECS - waits for the queue to empty, bounded. Jobs Slurm holds
# after a launch clash (a job it restarted from saved state while the
# first run was still known to the slurmd: "launch failed requeued held")
# are released, and nodes it drained for "Duplicate jobid" are resumed,
# as an administrator would; both are counted in D_HELD and D_DRAINED.
d_drain() {
	local end=$((SECONDS + $1)) left held nodes
	while [ "$SECONDS" -lt "$end" ]; do
		left=$(squeue -h -o '%i %t %r' 2>/dev/null) || { sleep 1; continue; }
		[ -z "$left" ] && return 0
		held=$(echo "$left" | awk '$2 == "PD" && tolower($0) ~ /held/ { print $1 }')
		if [ -n "$held" ]; then
			D_HELD=$((D_HELD + $(echo "$held" | wc -w)))
			note "d: releasing job(s) $(echo $held) held by Slurm: $(echo "$left" | awk '$2 == "PD" && tolower($0) ~ /held/ { $1 = $2 = ""; print; exit }')"
			# shellcheck disable=SC2086
			scontrol release $held 2>/dev/null
		fi
		nodes=$(sinfo -h -R -o '%N|%E' 2>/dev/null | awk -F'|' '/Duplicate jobid/ { print $1 }' | paste -sd, -)
		if [ -n "$nodes" ]; then
			D_DRAINED="${D_DRAINED:+$D_DRAINED,}$nodes"
			scontrol update nodename="$nodes" state=resume 2>/dev/null
		fi
		sleep 1
	done
	note "$(squeue -h -o '%i %t %r' 2>/dev/null | wc -l) jobs left after $1 s: $(squeue -h -o '%i %t %r' 2>/dev/null | head -n 3 | paste -sd';' -)"
	return 1
}

case_d() {
	local sel=${1:-locality} D=$RUNROOT/d-${1:-locality}
	local n1="d ($sel): $RESTARTS kill -9 + restarts of slurmctld during a stream: slurmctld comes back every time"
	local n2="d ($sel): no job acknowledged >= $((GRACE_MS / 1000)) s before a kill is lost; each completes once, but for Slurm's state-save window"
	local n3="d ($sel): no node in two jobs at once across the restarts (jobcomp)"
	local bad1="" bad2="" bad3=""
	D_HELD=0 D_DRAINED=""
	if ! start_cluster "d-$sel" "$sel" "$LCONF_MM"; then
		not_ok "$n1" "cluster did not start"
		not_ok "$n2" "cluster did not start"
		not_ok "$n3" "cluster did not start"
		return
	fi
	RANDOM=$SEED
	gen_jobs D 100000 "$((SEED + 3))" 0 4 >"$D.list"
	rm -f "$D.stop"
	submitter "$D.list" "$D.acks" 0.15 "$D.stop" &
	SUBMITTER=$!
	local r delay pid t_kill kills=$D.kills survived=0 q
	: >"$kills"
	for r in $(seq "$RESTARTS"); do
		delay=$((8 + RANDOM % 13))
		sleep "$delay.$((RANDOM % 10))"
		pid=$(cat "$CURRENT/run/slurmctld.pid" 2>/dev/null) ||
			pid=$(cat "$CURRENT/run/slurmctld.recpid" 2>/dev/null)
		if [ -z "$pid" ] || [ ! -d "/proc/$pid" ]; then
			bad1="no live slurmctld in its pid file before kill $r"
			break
		fi
		q=$(squeue -h -o %t 2>/dev/null | sort | uniq -c |
			awk '{ printf "%s%s=%d", (NR > 1 ? " " : ""), $2, $1 }')
		t_kill=$(now_ms)
		kill -9 "$pid"
		echo "$t_kill" >>"$kills"
		sleep "$((RANDOM % 3)).$((RANDOM % 10))"
		if ! "$CLUSTER" restart-ctld --dir "$CURRENT" >"$D.restart.$r.log" 2>&1; then
			bad1="restart $r failed: $(tail -n 2 "$D.restart.$r.log" | tr '\n' ' ')"
			break
		fi
		survived=$((survived + 1))
		note "d ($sel): kill $r after $delay s (jobs: ${q:-none}); slurmctld back in $((($(now_ms) - t_kill) / 1000)) s"
	done
	touch "$D.stop"
	wait "$SUBMITTER"
	SUBMITTER=""
	result "$n1" "$bad1"
	d_drain 300 || bad2="jobs did not finish within 300 s of the last restart"
	sleep 1
	local tab=$D.table
	jobcomp_table "$CURRENT/jobcomp.txt" >"$tab"
	# Every acknowledged job by the first kill after its ack: "must"
	# when acknowledged GRACE before it (or after the last kill). An ack
	# logged up to ACK_LAG after a kill's time came from the killed
	# slurmctld (sbatch had its reply as the kill was sent; the restarted
	# one answers seconds later): it counts as before that kill. Its
	# records (by name: Slurm reuses the id of a job it lost) are then
	# one COMPLETED record, or explained by the state-save window: one
	# of the job's records starts or ends within GRACE before a kill, so
	# the restarted slurmctld did not know that start (it ran the job
	# again) or that end (it resurrected the job until its time limit).
	# Also writes the records for the overlap check, a resurrected
	# record (same id and start as an earlier one) starting at the kill
	# that resurrected it: until then the first slurmctld had it ended.
	local summary
	summary=$(awk -v grace="$GRACE_MS" -v lag="$ACK_LAG_MS" -v clip="$D.clipped" '
		function inwin(t,   k) {
			if (t < 0) return 0
			for (k = 1; k <= nk; k++)
				if (t * 1000 <= kill[k] && t * 1000 + 1000 > kill[k] - grace)
					return 1
			return 0
		}
		FILENAME == ARGV[1] { kill[++nk] = $1; next }
		FILENAME == ARGV[2] {
			if ($2 == "FAIL") { refused++; next }
			label[++n] = $1; jid[$1] = $2; ack[$1] = $4
			acked[$2] = 1; pair[$2 " " $1] = 1
			next
		}
		{
			# A requeue (a launch that failed after a restart) leaves
			# a PENDING record; it is not a second run of the job.
			if ($3 == "PENDING" || $3 == "REQUEUED") { requeued++; next }
			nrec[$2]++
			if ($3 == "COMPLETED") done[$2]++
			if (inwin($4) || inwin($5)) win[$2] = 1
			if (($1 in acked) && !(($1 " " $2) in pair) && !($1 in rid)) {
				rid[$1] = 1; reused++
			}
			s = $4
			key = $1 " " $2 " " $4
			if (key in seen_end) {
				for (k = 1; k <= nk; k++)
					if (kill[k] >= seen_end[key] * 1000) {
						s = int(kill[k] / 1000); clipped++
						break
					}
			}
			if (!(key in seen_end) || $5 > seen_end[key]) seen_end[key] = $5
			if ($6 != "-" && $4 >= 0 && $5 >= 0)
				print $1, $6, s, ($5 > s ? $5 : s) > clip
		}
		END {
			for (i = 1; i <= n; i++) {
				l = label[i]; must = 1
				for (k = 1; k <= nk; k++)
					if (kill[k] + lag >= ack[l]) {
						must = ack[l] <= kill[k] - grace
						break
					}
				c = done[l] + 0
				if (!must) {
					nrisk++
					if (!c) risklost++
					continue
				}
				nmust++
				if (!c) { lost++; if (!lost1) lost1 = l "/" jid[l]; continue }
				if (nrec[l] == 1) continue
				if (l in win) { nwin++; if (!win1) win1 = l "/" jid[l]; continue }
				odd++
				if (!odd1) odd1 = l "/" jid[l]
			}
			printf "%d %d %d %d %d %d %d %d %d %d %d %s %s %s\n", n, refused,
				nmust, lost, nwin, odd, nrisk, risklost, reused, clipped,
				requeued,
				lost1 == "" ? "-" : lost1, odd1 == "" ? "-" : odd1,
				win1 == "" ? "-" : win1
		}' "$kills" "$D.acks" "$tab")
	local n refused nmust lost nwin odd nrisk risklost reused clipped requeued lost1 odd1 win1
	read -r n refused nmust lost nwin odd nrisk risklost reused clipped requeued lost1 odd1 win1 <<<"$summary"
	note "d ($sel): $n jobs acknowledged ($refused refused while slurmctld was down), $(wc -l <"$CURRENT/jobcomp.txt") jobcomp records"
	note "d ($sel): $nmust must survive: $lost lost, $((nmust - lost - nwin - odd)) completed exactly once," \
		"$nwin more than once or resurrected within the state-save window (e.g. $win1), $odd otherwise;" \
		"$requeued requeue records (a launch failed after a restart, the job ran later)"
	note "d ($sel): $nrisk acknowledged within $((GRACE_MS / 1000)) s before a kill: $risklost lost (Slurm's state-save window; not failed)"
	note "d ($sel): Slurm gave $reused acknowledged ids to other jobs after losing them; held $D_HELD job(s) after a launch clash (released);" \
		"drained ${D_DRAINED:-no nodes} for 'Duplicate jobid' (resumed)"
	[ "$n" -gt 0 ] || bad2="${bad2:+$bad2; }no job was acknowledged"
	[ "$lost" -gt 0 ] && bad2="${bad2:+$bad2; }$lost must-survive jobs have no COMPLETED record (first: label/id $lost1)"
	[ "$odd" -gt 0 ] && bad2="${bad2:+$bad2; }$odd must-survive jobs have several records outside the state-save window (first: label/id $odd1)"
	result "$n2" "$bad2"
	if [ -z "$EVAL" ]; then
		bad3="locality-eval not built (overlap checker)"
	else
		"$EVAL" --check-overlap "$D.clipped" >"$D.overlap" 2>&1 ||
			bad3=$(head -n 2 "$D.overlap" | tr '\n' ' ')
		local raw
		raw=$(overlap "$CURRENT/jobcomp.txt")
		note "d ($sel): $(tail -n 1 "$D.overlap"); $clipped resurrected records start at their kill;" \
			"raw jobcomp: ${raw:-no overlap}"
	fi
	result "$n3" "$bad3"
	loss d "$sel" "jobs acknowledged at least $((GRACE_MS / 1000)) s before a kill that have no COMPLETED record" \
		"$lost" "$nmust" 0
	loss d "$sel" "must-survive jobs with several records outside the state-save window" \
		"$odd" "$nmust" 0
	# Slurm's own state-save window: about one in three of the jobs
	# acknowledged in it is lost under either plugin (doc/experiments.md,
	# "Reliability history": 57-64 of 188-190 under locality, 53-61 of
	# 187-189 under linear), but where a kill falls against the periodic
	# state save moves it: select/linear alone lost 26 of 183 in one run
	# (2026-11-29, locality 58 of 185), 14% against its usual 28-33%.
	# The tolerance covers that spread of the control: 20 points.
	loss d "$sel" "jobs acknowledged within $((GRACE_MS / 1000)) s before a kill that were lost (Slurm's state-save window)" \
		"$risklost" "$nrisk" 20
	fig d "select/$sel: $survived restarts survived, $n jobs acknowledged, $nmust must survive ($lost lost, $nwin in the state-save window), $nrisk at risk ($risklost lost)"
	stop_cluster
}
