#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fault-tests.sh - faults injected into the 64-node local cluster (an 8x8
# torus) while select/locality (Strategy=mm) places jobs. Every case runs
# twice on fresh clusters: under select/locality, then under
# select/linear, the control, with the same jobs and the same timing; the
# figures of both are printed side by side at the end. A loss or a
# double booking select/locality shows beyond linear's is a defect.
# --control LIST runs the control for the cases in LIST only (letters,
# or "none"); CI runs it for d, the case whose losses are Slurm's own.
#
#   fault-tests.sh [BUILDDIR] [--plugin-dir DIR] [--short] [--only LIST]
#                  [--control LIST] [--restarts N] [--seed S]
#                  [--rundir DIR] [--keep]
#
# Cases (letters for --only). Everywhere: no job lost (each has exactly
# one COMPLETED jobcomp record), no node in two jobs at once (jobcomp
# records), the fault shows in slurmctld.log, and under select/locality
# the log has no "error: select/locality" line (a node given twice is
# one).
#   a  kill -9 of the slurmd (PID from its pid file) of a node that runs a
#      job: the node goes DOWN (SlurmdTimeout=10, waited for at most 90 s)
#      and slurmctld logs "Nodes ... not responding, setting DOWN"; while
#      it is down a 63-node job runs without it, a 64-node job stays
#      pending and no job started in that time holds it; after
#      cluster.sh restart-slurmd and scontrol update state=resume the
#      64-node job runs, so the node is allocated again
#   b  sets of 8 random nodes drained, or set DOWN, in turn, then resumed
#      (2 cycles; 4 without --short) during a stream of jobs: no job that
#      started while a set was out of service (StartTime after the update
#      returned, before the resume began; jobcomp has one-second
#      resolution) holds one of its nodes; the nodes stay DRAIN/DRAINING
#      or DOWN all that time and the log has "node X state set to ...";
#      jobs a DOWN killed are requeued and complete
#   c  scontrol reconfigure while jobs run: with Strategy=mm changed to
#      bestfit, slurmctld logs the new policy and jobs still complete, and
#      a job on the then idle machine lands where bestfit (not mm) puts
#      it; with a broken locality.conf, the plugin logs "keeping the
#      running configuration" naming file and line, logs no new policy,
#      jobs submitted afterwards complete and still land where bestfit
#      puts them; a fixed file is taken on the next reconfigure. Under
#      linear the same files and reconfigures (which it ignores)
#   d  slurmctld killed with -9 at random points of a stream of jobs and
#      restarted with cluster.sh restart-ctld, 3 times (6 without --short;
#      --restarts N): every job sbatch acknowledged at least 10 s before
#      the next kill ("must survive") has exactly one COMPLETED jobcomp
#      record; jobs acknowledged within 10 s before a kill may be lost by
#      Slurm itself (it saves its job state every few seconds) and are
#      counted apart, not failed; no node in two jobs at once
#   e  locality.conf edited to move the nodes of running jobs (the rows
#      in reverse order with NodeName= Coords= lines, then the 64 nodes
#      rewired as a 16x4 torus), each edit taken by scontrol reconfigure
#      with jobs running: the running jobs keep their nodes and complete,
#      new jobs never get a node a running job holds, each new model is
#      logged, and on the idle machine a job lands where the last file
#      puts it
#   f  state files cut short at a slurmctld restart (kill -9 after the
#      job state was saved): node_state cut in half stops slurmctld with
#      "fatal: Incomplete node data checkpoint file"; started with -i it
#      logs the error, knows every job and places new ones beside them;
#      job_state cut in half stops it with "fatal: Incomplete job state
#      save file"; with -i every job it recovered completes (the jobs the
#      cut dropped are counted, Slurm's own loss); locality.conf cut in
#      the middle of a line stops select/locality's slurmctld with a fatal
#      line naming locality.conf:4; restarted with the file fixed, every
#      job is still known. (select/locality keeps no state file of its
#      own: its ledger is rebuilt from the jobs slurmctld recovers.)
# Each check prints "ok N - ..." or "not ok N - ..."; the last line is
# "N passed, N failed"; the exit status is non-zero on any failure.
# Ports: those of cluster.sh (LOC_CTLD_PORT, LOC_NODE_PORT0 or the
# defaults 6817, 17001-17064). Daemons are stopped by PID on exit.

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
GRACE_MS=10000 # acknowledged this long before a kill: must survive it

BUILD="" PLUGDIR="" SHORT=0 ONLY="" CONTROL=a,b,c,d,e,f RESTARTS="" SEED=1 RUNROOT="" KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--plugin-dir) PLUGDIR=$2; shift 2 ;;
	--short) SHORT=1; shift ;;
	--only) ONLY=$2; shift 2 ;;
	--control) CONTROL=$2; shift 2 ;;
	--restarts) RESTARTS=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--rundir) RUNROOT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) sed -n '4,72p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fault-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done
if [ -z "$RESTARTS" ]; then
	RESTARTS=6
	[ "$SHORT" = 1 ] && RESTARTS=3
fi
CYCLES=4 STREAM_B=400 STREAM_C=80 STREAM_E=80 STREAM_F=30 HOLD_A=25 HOLD_B=12
[ "$SHORT" = 1 ] && CYCLES=2 STREAM_B=200 STREAM_C=50 STREAM_E=50 STREAM_F=20 HOLD_A=15 HOLD_B=8

SUITE=fault
lib_init loc-fault
CLEANUP_FIRST=stop_submitter
SUBMITTER=""

# --- cluster and job helpers --------------------------------------------

stop_submitter() {
	if [ -n "$SUBMITTER" ]; then
		kill "$SUBMITTER" 2>/dev/null
		wait "$SUBMITTER" 2>/dev/null
		SUBMITTER=""
	fi
}

node_state() {
	sinfo -h -N -n "$1" -o %T 2>/dev/null | head -n 1
}

now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# submitter LIST ACKS GAP STOPFILE - sbatch each job of LIST in turn,
# GAP seconds apart, until the list ends or STOPFILE exists. Writes
# "label id nodes ack_ms" for every job sbatch acknowledged, and
# "label FAIL nodes ms" for every refusal (slurmctld down); a refused job
# is not retried.
submitter() {
	local list=$1 acks=$2 gap=$3 stop=$4 label k secs id
	: >"$acks"
	while read -r label k secs; do
		[ -e "$stop" ] && break
		if id=$(sbatch --parsable -N "$k" -t 1 -J "$label" -o /dev/null \
			--wrap "sleep $secs" 2>>"$RUNROOT/sbatch.err"); then
			echo "$label ${id%%;*} $k $(now_ms)" >>"$acks"
		else
			echo "$label FAIL $k $(now_ms)" >>"$acks"
		fi
		sleep "$gap"
	done <"$list"
}

# Jobcomp records as "id name state start end nodes,comma,separated" with
# epoch seconds (-1 when unknown) and node lists expanded.
jobcomp_table() {
	awk '
	function epoch(t) {
		if (t !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]+$/)
			return -1
		gsub(/[-T:]/, " ", t)
		return mktime(t)
	}
	function expand(hl,   n, i, c, cur, depth, items, out, pre, r, m, j,
			ab, a, b, w, x) {
		n = 0; depth = 0; cur = ""
		for (i = 1; i <= length(hl); i++) {
			c = substr(hl, i, 1)
			if (c == "[") depth++
			else if (c == "]") depth--
			if (c == "," && depth == 0) { items[++n] = cur; cur = ""; continue }
			cur = cur c
		}
		if (cur != "") items[++n] = cur
		out = ""
		for (i = 1; i <= n; i++) {
			if (match(items[i], /\[[^]]*\]$/)) {
				pre = substr(items[i], 1, RSTART - 1)
				r = substr(items[i], RSTART + 1, RLENGTH - 2)
				m = split(r, ab, ",")
				for (j = 1; j <= m; j++) {
					if (index(ab[j], "-")) {
						a = substr(ab[j], 1, index(ab[j], "-") - 1)
						b = substr(ab[j], index(ab[j], "-") + 1)
					} else {
						a = ab[j]; b = ab[j]
					}
					w = length(a)
					for (x = a + 0; x <= b + 0; x++)
						out = out (out == "" ? "" : ",") pre sprintf("%0" w "d", x)
				}
			} else {
				out = out (out == "" ? "" : ",") items[i]
			}
		}
		return out
	}
	{
		id = name = st = nl = ""; s = e = -1
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			v = substr($i, length(kv[1]) + 2)
			if (kv[1] == "JobId") id = v
			else if (kv[1] == "Name") name = v
			else if (kv[1] == "JobState") st = v
			else if (kv[1] == "StartTime") s = epoch(v)
			else if (kv[1] == "EndTime") e = epoch(v)
			else if (kv[1] == "NodeList") nl = v
		}
		printf "%s %s %s %d %d %s\n", id, name, st, s, e,
			(nl == "" || nl == "(null)") ? "-" : expand(nl)
	}' "$1"
}

# log_has PATTERN - true if slurmctld.log has a line matching PATTERN (ERE).
log_has() {
	grep -q -E -e "$1" "$CURRENT/log/slurmctld.log" 2>/dev/null
}

# log_set_down NODE - true if slurmctld.log has "Nodes LIST not
# responding, setting DOWN" with NODE in LIST, a hostlist that may be
# ranged: n[001-049,057] when a slow ping round took others down too.
log_set_down() {
	sed -n 's/.*Nodes \(.*\) not responding, setting DOWN.*/\1/p' \
		"$CURRENT/log/slurmctld.log" 2>/dev/null |
		while read -r list; do
			scontrol show hostnames "$list" 2>/dev/null
		done | grep -qxF "$1"
}

# completed_once TABLE ID... - prints why, if a job of the list has no
# COMPLETED record in TABLE (jobcomp_table) or more than one.
completed_once() {
	local tab=$1
	shift
	printf '%s\n' "$@" | awk -v tab="$tab" '
		BEGIN { while ((getline l < tab) > 0) { split(l, f, " "); if (f[3] == "COMPLETED") c[f[1]]++ } }
		NF {
			n++
			if (!c[$1]) { lost++; if (!l1) l1 = $1 }
			else if (c[$1] > 1) { twice++; if (!t1) t1 = $1 }
		}
		END {
			if (lost) printf "%d of %d jobs have no COMPLETED record (first: %s)", lost, n, l1
			if (twice) printf "%s%d completed more than once (first: %s)", lost ? "; " : "", twice, t1
		}'
}

# plugin_errors - prints "; N select/locality error lines (first: ...)"
# when slurmctld.log has any; a node given to two jobs is one of them.
# The error a broken locality.conf is meant to log ("keeping the running
# configuration", case c) is not counted.
plugin_errors() {
	local n
	n=$(grep 'error: select/locality' "$CURRENT/log/slurmctld.log" 2>/dev/null |
		grep -vc 'keeping the running configuration')
	[ "${n:-0}" -gt 0 ] &&
		echo "; $n select/locality error lines (first: $(grep 'error: select/locality' "$CURRENT/log/slurmctld.log" | grep -v -m1 'keeping the running configuration' | sed 's/^\[[^]]*\] //'))"
}

# fig LETTER TEXT - one plugin's figures of case LETTER, printed side by
# side at the end.
fig() {
	FIGS="${FIGS:+$FIGS
}$1|$2"
}

# The policy's prediction for k nodes on the idle machine.
predict() {
	"$EVAL" --conf "$1" --nodes "$ALLNODES" --predict -k "$2" 2>/dev/null
}

LCONF_MM=$RUNROOT/locality-mm.conf
LCONF_BF=$RUNROOT/locality-bestfit.conf
printf '# 8x8 torus, n001..n064 row-major\nDimensions=8x8\nTorus=yes\nStrategy=mm\nCurve=hilbert\n' \
	>"$LCONF_MM"
sed 's/^Strategy=mm$/Strategy=bestfit/' "$LCONF_MM" >"$LCONF_BF"
# Case e's edits: the same nodes moved. Rows in reverse order (NodeName=
# lines with Coords=), then the 64 nodes rewired as a 16x4 torus.
LCONF_REV=$RUNROOT/rows-reversed.conf
LCONF_16X4=$RUNROOT/rewired-16x4.conf
{
	printf '# 8x8 torus, rows of 8 nodes in reverse order\nDimensions=8x8\nTorus=yes\nStrategy=mm\nCurve=hilbert\n'
	for r in 0 1 2 3 4 5 6 7; do
		printf 'NodeName=n[%03d-%03d] Coords=%d,0\n' $((r * 8 + 1)) $((r * 8 + 8)) $((7 - r))
	done
} >"$LCONF_REV"
printf '# the same 64 nodes as a 16x4 torus\nDimensions=16x4\nTorus=yes\nStrategy=mm\nCurve=hilbert\n' \
	>"$LCONF_16X4"

# --- a: a slurmd killed under a running job -----------------------------

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
	bad4="$bad4$(plugin_errors)"
	result "$n4" "$bad4"
	fig a "select/$sel: $victim DOWN $((t_down - t_kill)) s after the kill, $n_during jobs started while it was down (none on it), 64-node job started $late s after the slurmd restart, $(awk -v h="$holder" '$1 != h && $3 == "COMPLETED"' "$tab" | wc -l) of $((2 + ${#ids[@]})) jobs completed"
	stop_cluster
}

# --- b: nodes drained or set DOWN, then resumed, during a run ----------

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
	fig b "select/$sel: $during jobs started while nodes were out of service (none on them), $killed ran on nodes set DOWN, $(awk '$3 == "COMPLETED"' "$tab" | wc -l) of $STREAM_B completed, $nreq other records"
	stop_cluster
}

# --- c: scontrol reconfigure with a changed and a broken locality.conf ---

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
# in the background, 0.1 s apart; the same jobs under every plugin.
stream() {
	gen_jobs "$1-" "$2" "$((SEED + 7))" "$3" "$4" >"$RUNROOT/$1.list"
	rm -f "$RUNROOT/stream.stop"
	submitter "$RUNROOT/$1.list" "$RUNROOT/$1.acks" 0.1 "$RUNROOT/stream.stop" &
	SUBMITTER=$!
}

# stream_done TAG - waits for the submitter and the queue; prints why, if
# a job of stream TAG was refused or did not complete exactly once.
stream_done() {
	local r
	wait "$SUBMITTER"
	SUBMITTER=""
	wait_empty 180 || echo "jobs did not finish; "
	sleep 1
	jobcomp_table "$CURRENT/jobcomp.txt" >"$RUNROOT/$1.table"
	# shellcheck disable=SC2046
	r=$(completed_once "$RUNROOT/$1.table" $(awk '$2 != "FAIL" { print $2 }' "$RUNROOT/$1.acks"))
	[ -n "$r" ] && echo "$r; "
	awk '$2 == "FAIL" { n++ } END { if (n) printf "sbatch refused %d jobs; ", n }' "$RUNROOT/$1.acks"
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
	fig c "select/$sel: $(awk '$3 == "COMPLETED" && $2 ~ /^C[12]-/' "$RUNROOT/C2-$sel.table" | wc -l) of $((2 * STREAM_C)) jobs completed across the three reconfigures"
	stop_cluster
}

# --- e: locality.conf edits that move nodes running jobs -----------------

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
	fig e "select/$sel: moved $moved; $(awk '$3 == "COMPLETED" && $2 ~ /^E-/' "$RUNROOT/E-$sel.table" | wc -l) of $STREAM_E jobs completed"
	stop_cluster
}

# --- f: state files cut short at a slurmctld restart ----------------------

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
	sleep 11 # slurmctld has saved every job
	f_kill
	f_cut_restart "$st/node_state" node_state 'Incomplete node data checkpoint file'
	local started=$?
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
	sleep 11
	alive=$(squeue -h -o %i 2>/dev/null | sort -n | paste -sd' ' -)
	f_kill
	f_cut_restart "$st/job_state" job_state 'Incomplete job state save file'
	bad2=$F_WHY
	note "f ($sel): $F_CUT, $(echo "$alive" | wc -w) jobs in the queue at the kill"
	recovered=$(squeue -h -o %i 2>/dev/null | sort -n | paste -sd' ' -)
	# Jobs in the queue at the kill that the cut file no longer holds.
	lost=$(comm -23 <(echo "$alive" | tr ' ' '\n' | grep . | sort) \
		<(echo "$recovered" | tr ' ' '\n' | grep . | sort) | sort -n | paste -sd' ' -)
	note "f ($sel): recovered $(echo "$recovered" | wc -w) of $(echo "$alive" | wc -w) queued jobs; dropped by the cut: ${lost:-none}"
	echo "$recovered" >"$F.recovered"

	# 3: locality.conf cut short in the middle of its Strategy= line.
	sleep 11
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

# --- d: slurmctld killed with -9 during a stream ------------------------

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
	# when acknowledged GRACE before it (or after the last kill). Its
	# records (by name: Slurm reuses the id of a job it lost) are then
	# one COMPLETED record, or explained by the state-save window: one
	# of the job's records starts or ends within GRACE before a kill, so
	# the restarted slurmctld did not know that start (it ran the job
	# again) or that end (it resurrected the job until its time limit).
	# Also writes the records for the overlap check, a resurrected
	# record (same id and start as an earlier one) starting at the kill
	# that resurrected it: until then the first slurmctld had it ended.
	local summary
	summary=$(awk -v grace="$GRACE_MS" -v clip="$D.clipped" '
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
					if (kill[k] >= ack[l]) {
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
	fig d "select/$sel: $survived restarts survived, $n jobs acknowledged, $nmust must survive ($lost lost, $nwin in the state-save window), $nrisk at risk ($risklost lost)"
	stop_cluster
}

# --- run ----------------------------------------------------------------

# _control LETTER - true when case LETTER runs under the control too.
_control() {
	case ",$CONTROL," in *",$1,"*) return 0 ;; esac
	return 1
}

main() {
	local t0=$SECONDS c sel tc
	FIGS=""
	note "build dir: ${BUILD:-none}; plugin: ${PLUGDIR:-none}; run dir: $RUNROOT"
	note "$([ "$SHORT" = 1 ] && echo short || echo long) form: $CYCLES drain/down cycles, $RESTARTS slurmctld restarts"
	if [ "$CONTROL" = none ]; then
		note "every case runs under select/locality (no select/linear control: --control none)"
	else
		note "every case runs under select/locality; cases ${CONTROL//,/ } then under select/linear as the control (same jobs, same timing)"
	fi
	if [ -z "$PLUGDIR" ] || [ ! -f "$PLUGDIR/select_locality.so" ]; then
		for c in a b c d e f; do
			want "$c" && not_ok "$c: fault case" "plugin not built"
		done
	else
		for c in a b c d e f; do
			want "$c" || continue
			for sel in locality linear; do
				[ "$sel" = linear ] && ! _control "$c" && continue
				tc=$SECONDS
				"case_$c" "$sel"
				note "$c ($sel): $((SECONDS - tc)) s"
			done
		done
	fi
	if [ -n "$FIGS" ]; then
		note "side by side, select/locality and its control select/linear:"
		echo "$FIGS" | while IFS='|' read -r c line; do
			note "  $c, $line"
		done
	fi
	note "total $((SECONDS - t0)) s"
	lib_finish
}

main; exit $?
