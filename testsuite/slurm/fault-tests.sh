#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fault-tests.sh - faults injected into the 64-node local cluster (an 8x8
# torus) while select/locality (Strategy=mm) places jobs. Every case runs
# twice on fresh clusters: under select/locality, then under
# select/linear, the control, with the same jobs and the same timing; the
# figures of both are printed side by side at the end, and the jobs each
# lost are compared: a loss select/locality shows beyond linear's is a
# "not ok" (each loss has a stated tolerance in percentage points: 0 for
# jobs that must complete, some for Slurm's own state-save losses; see
# loss in fault/common.sh and each case).
# --control LIST runs the control for the cases in LIST only (letters,
# or "none"); CI runs it for d and f, the cases whose losses are Slurm's own.
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
#      the next kill ("must survive"; an ack logged within 1 s after a
#      kill came from the killed slurmctld and counts as before it) has
#      exactly one COMPLETED jobcomp record; jobs acknowledged within 10 s
#      before a kill may be lost by Slurm itself (it saves its job state
#      every few seconds) and are counted apart, not failed; no node in
#      two jobs at once
#   e  locality.conf edited to move the nodes of running jobs (the rows
#      in reverse order with NodeName= Coords= lines, then the 64 nodes
#      rewired as a 16x4 torus), each edit taken by scontrol reconfigure
#      with jobs running: the running jobs keep their nodes and complete,
#      new jobs never get a node a running job holds, each new model is
#      logged, and on the idle machine a job lands where the last file
#      puts it
#      (c and e: one job slurmctld started whose script no slurmd launched,
#      TIMEOUT its only record, is Slurm's loss at the reconfigure, noted
#      and not counted; seen once, 22.05.8)
#   f  state files cut short at a slurmctld restart (pending jobs held,
#      kill -9 after the job state was saved, jobs released after the
#      restart): node_state cut in half stops slurmctld with
#      "fatal: Incomplete node data checkpoint file"; started with -i it
#      logs the error, knows every job and places new ones beside them;
#      job_state cut near half, at a queued job's name (before its steps:
#      a cut step layout crashes 22.05's own loader), stops it with
#      "fatal: Incomplete job state save file"; with -i every job it
#      recovered completes, and the jobs it lost (Slurm's own loss) are
#      only jobs queued at the kill whose records lay past the cut point,
#      or straddled it (found by the job's name in a copy of the whole
#      file); sbatch must have accepted jobs of both streams and the
#      queue at the kill must not be empty; locality.conf cut in the
#      middle of a line, at an orderly restart (slurmctld saves its state
#      first), stops select/locality's slurmctld with a fatal line naming
#      locality.conf:4; restarted with the file fixed, every job is still
#      known. (select/locality keeps no state file of its
#      own: its ledger is rebuilt from the jobs slurmctld recovers.)
#   g  nodes slow to complete a job (an Epilog that sleeps 15 s): while a
#      compact block of 8 nodes is COMPLETING and 4 other nodes are free,
#      sbatch --test-only (WILL_RUN) plans a 4-node job now on the 4, and
#      a 12-node job a second on or later, on all 12 (sched/backfill
#      would not start a job on completing nodes, and would reserve the
#      free ones it was given meanwhile); a 4-node job submitted then
#      starts at once on the 4. Under linear, the 4-node job's check and
#      what WILL_RUN answers, for the figures
# Each check prints "ok N - ..." or "not ok N - ..."; the last line is
# "N passed, N failed"; the exit status is non-zero on any failure.
# Ports: those of cluster.sh (LOC_CTLD_PORT, LOC_NODE_PORT0 or the
# defaults 6817, 17001-17064). Daemons are stopped by PID on exit.

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
GRACE_MS=10000 # acknowledged this long before a kill: must survive it
ACK_LAG_MS=1000 # an ack logged this soon after a kill came from the killed slurmctld

BUILD="" PLUGDIR="" SHORT=0 ONLY="" CONTROL=a,b,c,d,e,f,g RESTARTS="" SEED=1 RUNROOT="" KEEP=0
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
	-h | --help) sed -n '4,90p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# The helpers, then one file per case (the checks are described above).
for part in common case-a case-b case-c case-d case-e case-f case-g; do
	. "$HERE/fault/$part.sh"
done

# --- run ----------------------------------------------------------------

# _control LETTER - true when case LETTER runs under the control too.
_control() {
	case ",$CONTROL," in *",$1,"*) return 0 ;; esac
	return 1
}

# compare_losses - for each loss a case recorded (fault/common.sh, loss)
# under both plugins: select/locality loses no more than select/linear,
# the control, scaled to its own number of jobs, plus the loss's
# tolerance (percentage points of locality's jobs, rounded up).
compare_losses() {
	local c what loc_l loc_n lin_l lin_n tol allowed
	[ -s "$RUNROOT/losses" ] || return 0
	awk -F'|' '
		{ k = $1 "|" $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		  l[k "|" $3] = $4; of[k "|" $3] = $5; tol[k] = $6 }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				if (!((k "|locality") in l) || !((k "|linear") in l)) continue
				print k "|" l[k "|locality"] "|" of[k "|locality"] "|" \
					l[k "|linear"] "|" of[k "|linear"] "|" tol[k]
			}
		}' "$RUNROOT/losses" >"$RUNROOT/losses.both"
	while IFS='|' read -r c what loc_l loc_n lin_l lin_n tol; do
		# ceil(lin_l * loc_n / lin_n) + ceil(tol * loc_n / 100)
		allowed=0
		[ "$lin_n" -gt 0 ] && allowed=$(((lin_l * loc_n + lin_n - 1) / lin_n))
		allowed=$((allowed + (tol * loc_n + 99) / 100))
		if [ "$loc_l" -le "$allowed" ]; then
			ok "$c: select/locality loses no more than select/linear: $what: $loc_l of $loc_n, control $lin_l of $lin_n (at most $allowed; tolerance $tol points)"
		else
			not_ok "$c: select/locality loses no more than select/linear: $what" \
				"$loc_l of $loc_n under select/locality, $lin_l of $lin_n under select/linear: more than $allowed (tolerance $tol points)"
		fi
	done <"$RUNROOT/losses.both"
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
		for c in a b c d e f g; do
			want "$c" && not_ok "$c: fault case" "plugin not built"
		done
	else
		for c in a b c d e f g; do
			want "$c" || continue
			for sel in locality linear; do
				[ "$sel" = linear ] && ! _control "$c" && continue
				tc=$SECONDS
				"case_$c" "$sel"
				note "$c ($sel): $((SECONDS - tc)) s"
			done
		done
	fi
	compare_losses
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
