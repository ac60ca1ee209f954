#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# load-test.sh - a burst of short jobs on the 64-node local cluster (an
# 8x8 torus) under select/locality, one cluster per strategy family.
#
#   load-test.sh [BUILDDIR] [--plugin-dir DIR] [--jobs N] [--short]
#                [--strategies LIST] [--box-sizes LIST] [--seed S]
#                [--timeout SEC] [--min-job-age SEC] [--rundir DIR]
#                [--keep] [--harness-check] [--control]
#                [--topology] [--slurm VERSION]
#
# For each strategy in LIST (default bestfit,mm,mbs,box: one per family -
# curve, geometric, buddy, box), start a fresh cluster with
# Strategy=<it>, submit N jobs (default 5000; --short: 500) as fast as
# sbatch takes them: sizes 1-16 nodes (log-uniform, so small jobs are
# common), runtimes 0-2 s (sbatch -t 1 --wrap 'sleep X'). Box jobs take
# sizes from --box-sizes (default 1,2,4,8,16): Strategy=box gives only
# boxes, and 11 or 13 nodes are no box on an 8x8 grid, so such a job
# would wait forever; powers of two up to 16 are boxes (1x1 .. 4x4) that
# tile the torus, so the burst drains like the others. Then wait (at most
# --timeout seconds, default 120 + N/4) for the queue to empty and check:
#   completed  every acknowledged job has exactly one jobcomp record, in
#              state COMPLETED, with the node count it asked for
#   overlap    no node in two jobs at overlapping times (locality-eval
#              --check-overlap over the jobcomp file)
#   memory     slurmctld's RSS, sampled every 2 s from /proc, stays flat:
#              fails when the peak exceeds 3x the base RSS: its value
#              once every job was submitted and 10% had finished (a
#              slow sbatch stream must not make the base small). The
#              clusters run with MinJobAge=10 (--min-job-age): Slurm keeps
#              a finished job's record (about 15 kB of RSS, the same under
#              select/linear) for MinJobAge seconds, which at the
#              default 600 would hide a leak behind Slurm's own growth.
#   boxes      (box only) every job's nodes form a box (bounding box = k)
# Prints the figures per strategy: jobs, minutes, base RSS, peak and
# last, and the growth over the second half in kB per 1000 jobs.
# --harness-check runs the same bursts on select/linear (a control for
# this script and for the memory figures; it proves nothing about the
# plugin). --control adds, after the strategies, the same burst under
# select/linear on a fresh cluster (row "linear") and prints each
# strategy's peak RSS as a ratio to it: the side-by-side memory figure.
# --topology: the same burst under select/cons_tres (1 CPU per node),
# TopologyPlugin=topology/locality with the recommended locality.conf
# (Strategy=pack, Curve=hilbert, CompactWait=60, CompactTolerance=0.1,
# PlanWindow=30, PlanHold=released; row "locality"), then with no
# TopologyPlugin line (Slurm's own placement: topology/default on 24.11,
# topology/flat on 26.05; row "default") as the control, and each peak
# RSS as a ratio to the control's; on Slurm --slurm (default 24.11), in
# its Debian root (tools/slurm-root.sh) when it is not the host's:
# BUILDDIR defaults to that version's build and --rundir to BUILDDIR/load-test.
# Each check prints "ok N - ..." or "not ok N - ..."; the last line is
# "N passed, N failed"; the exit status is non-zero on any failure.
# Ports: those of cluster.sh (LOC_CTLD_PORT, LOC_NODE_PORT0 or the
# defaults 6817, 17001-17064). Daemons are stopped by PID on exit.

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
ROOTS=$REPO/tools/slurm-root.sh
ARGS=("$@")

BUILD="" PLUGDIR="" NJOBS="" SHORT=0 STRATS="bestfit,mm,mbs,box"
BOXSIZES="1,2,4,8,16" SEED=1 TIMEOUT="" RUNROOT="" KEEP=0 SELECT=locality
MINJOBAGE=10 CONTROL=0 TOPO=0 SLURM=""
while [ $# -gt 0 ]; do
	case $1 in
	--plugin-dir) PLUGDIR=$2; shift 2 ;;
	--jobs) NJOBS=$2; shift 2 ;;
	--short) SHORT=1; shift ;;
	--strategies) STRATS=$2; shift 2 ;;
	--box-sizes) BOXSIZES=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--rundir) RUNROOT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--min-job-age) MINJOBAGE=$2; shift 2 ;;
	--harness-check) SELECT=linear; shift ;;
	--control) CONTROL=1; shift ;;
	--topology) TOPO=1; shift ;;
	--slurm) SLURM=$2; shift 2 ;;
	-h | --help) sed -n '4,55p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "load-test.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done
if [ -z "$NJOBS" ]; then
	NJOBS=5000
	[ "$SHORT" = 1 ] && NJOBS=500
fi
case $NJOBS in
'' | *[!0-9]* | 0) echo "load-test.sh: --jobs wants a positive number" >&2; exit 2 ;;
esac
[ -n "$TIMEOUT" ] || TIMEOUT=$((120 + NJOBS / 4))
if [ "$TOPO" = 1 ]; then
	SLURM=${SLURM:-24.11} STRATS=locality CONTROL=1 SELECT=cons_tres
	BUILD=${BUILD:-$("$ROOTS" build-dir "$SLURM")}
	RUNROOT=${RUNROOT:-$BUILD/load-test}
	PLUGDIR=${PLUGDIR:-$BUILD/src/plugins/topology/locality/.libs}
fi
# Another Slurm than the host's: the rest runs in its Debian root.
if [ -n "$SLURM" ] && [ "$SLURM" != "$("$ROOTS" host-version)" ] &&
	[ "${LOC_SLURM_ROOT:-}" != "$SLURM" ]; then
	mkdir -p "$RUNROOT" || exit 1
	exec "$ROOTS" run "$SLURM" --bind "$RUNROOT" -- "$0" "${ARGS[@]}"
fi

SUITE=load
[ "$TOPO" = 1 ] && SUITE=load-topology
lib_init loc-load
CLEANUP_FIRST=stop_sampler
SAMPLER=""

stop_sampler() {
	if [ -n "$SAMPLER" ]; then
		kill "$SAMPLER" 2>/dev/null
		wait "$SAMPLER" 2>/dev/null
		SAMPLER=""
	fi
}

# RSS sampler: "epoch_s rss_kb finished_jobs submitted_jobs" every 2 s
# while slurmctld (PID in $1's run dir) lives; $3 is the ID file being
# written. Runs in the background.
sample_rss() {
	local dir=$1 out=$2 ids=$3 pid rss done_n sub_n
	pid=$(cat "$dir/run/slurmctld.recpid")
	while :; do
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		[ -n "$rss" ] || break
		done_n=$({ wc -l <"$dir/jobcomp.txt"; } 2>/dev/null)
		sub_n=$({ wc -l <"$ids"; } 2>/dev/null)
		echo "$(date +%s) $rss ${done_n:-0} ${sub_n:-0}" >>"$out"
		sleep 2
	done
}

# submit JOBFILE IDFILE - one sbatch per line; a refused submission is
# retried (slurmctld may be busy) up to 5 times. Writes "label id nodes".
submit_all() {
	local jobs=$1 ids=$2 label k secs id
	: >"$ids"
	while read -r label k secs; do
		for _ in 1 2 3 4 5; do
			id=$(sbatch --parsable -N "$k" -t 1 -J "$label" -o /dev/null \
				--wrap "sleep $secs" 2>>"$RUNROOT/sbatch.err") && break
			id=""
			sleep 1
		done
		[ -n "$id" ] || return 1
		echo "$label ${id%%;*} $k" >>"$ids"
	done <"$jobs"
}

# wait_done IDFILE SECS - until slurmctld has no job left, or SECS pass,
# or slurmctld dies. Returns 0 when the queue emptied.
wait_done() {
	local t=$2 end left pid
	pid=$(cat "$CURRENT/run/slurmctld.recpid")
	end=$((SECONDS + t))
	while [ "$SECONDS" -lt "$end" ]; do
		[ -d "/proc/$pid" ] || { note "slurmctld $pid died"; return 1; }
		left=$(squeue -h -o %i 2>/dev/null | wc -l)
		if [ "$left" = 0 ] && squeue -h >/dev/null 2>&1; then
			return 0
		fi
		sleep 2
	done
	note "$left jobs still queued or running after ${t}s"
	return 1
}

# check_completed IDFILE JOBCOMP PURGED - prints the reason of failure, if
# any. A FAILED job in PURGED (see slurm_purged) is not one.
check_completed() {
	awk '
	FILENAME == ARGV[1] { want[$2] = $3; n++; next }
	FILENAME == ARGV[2] { purged[$1] = 1; next }
	{
		id = ""; st = ""; cnt = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^JobId=/) id = substr($i, 7)
			else if ($i ~ /^JobState=/) st = substr($i, 10)
			else if ($i ~ /^NodeCnt=/) cnt = substr($i, 9)
		}
		if (!(id in want)) { extra++; next }
		seen[id]++
		if (st == "FAILED" && id in purged) next # Slurm race, counted apart
		if (st != "COMPLETED" && !badst) badst = id " " st
		if (cnt != want[id] && !badcnt)
			badcnt = id " got " cnt " nodes, asked " want[id]
	}
	END {
		for (id in want) {
			if (!(id in seen)) { lost++; if (!lost1) lost1 = id }
			else if (seen[id] > 1) { dup++; if (!dup1) dup1 = id }
		}
		if (lost) printf "%d of %d jobs have no jobcomp record (first: %s) ", lost, n, lost1
		if (dup) printf "%d jobs recorded twice (first: %s) ", dup, dup1
		if (badst) printf "job %s not COMPLETED ", badst
		if (badcnt) printf "job %s ", badcnt
		if (extra) printf "%d records of jobs never submitted ", extra
	}' "$1" "$3" "$2"
}

# slurm_purged RUNDIR: IDs of the batch jobs whose script a slurmd deleted
# as it started. Slurm 22.05's slurmd takes a batch step whose socket is
# bound but not yet listening (ECONNREFUSED) for a dead one and purges its
# script ("Purging vestigial job script"); the job then FAILS with exit
# code 2 before its script runs. A race in Slurm between slurmd and
# slurmstepd, seen only when the machine is overloaded; it says nothing
# about node selection, so such jobs are counted apart, not failed.
slurm_purged() {
	cat "$1"/log/slurmd.*.log 2>/dev/null |
		sed -n 's/.*Purging vestigial job script .*\/job0*\([0-9][0-9]*\)\/slurm_script.*/\1/p' |
		sort -u
}

# run_strategy NAME [SELECT]: one burst on a fresh cluster; NAME is the
# strategy, or "linear" for the select/linear control (SELECT=linear).
run_strategy() {
	local strat=$1 select=${2:-$SELECT} dir=$RUNROOT/$1 conf=$RUNROOT/$1.conf
	local sizes="" t0 t1 secs mins why lstrat=$1
	[ "$strat" = box ] && sizes=$BOXSIZES
	# The control's conf serves only locality-eval (any strategy will do).
	[ "$select" = linear ] && [ "$strat" = linear ] && lstrat=bestfit
	[ "$TOPO" = 1 ] && lstrat=pack
	printf 'Dimensions=8x8\nTorus=yes\nStrategy=%s\nCurve=hilbert\n' \
		"$lstrat" >"$conf"
	# --topology: the recommended locality.conf (bench/live-topo.sh's).
	[ "$TOPO" = 1 ] && printf '%s\n' "NodeName=$ALLNODES Coords=0,0" \
		"CompactWait=60" "CompactTolerance=0.1" "PlanWindow=30" \
		"PlanHold=released" >>"$conf"
	# The same seeded list for every strategy but box (box sizes only).
	gen_jobs L "$NJOBS" "$SEED" 0 2 "$sizes" >"$RUNROOT/$strat.jobs"
	note "$strat: $NJOBS jobs, sizes ${sizes:-1-16 log-uniform}," \
		"$(awk '{ s += $2 } END { print s }' "$RUNROOT/$strat.jobs") node-jobs"

	local names=("$strat: all $NJOBS jobs complete, each once, with its node count"
		"$strat: no node in two jobs at once (jobcomp)"
		"$strat: slurmctld RSS stays flat")
	[ "$strat" = box ] && names+=("$strat: every job's nodes form a box")
	fail_all() {
		local n
		for n in "${names[@]}"; do not_ok "$n" "$1"; done
	}
	local so=select_locality.so
	[ "$TOPO" = 1 ] && so=topology_locality.so
	if [ -z "$PLUGDIR" ] || [ ! -f "$PLUGDIR/$so" ]; then
		fail_all "plugin not built"
		return
	fi
	local lconf="" topo=""
	[ "$select" = locality ] && lconf=$conf
	[ "$TOPO" = 1 ] && [ "$strat" = locality ] && lconf=$conf topo=locality
	if ! CLUSTER_TOPOLOGY=$topo start_cluster "$strat" "$select" "$lconf" \
		"MinJobAge=$MINJOBAGE"; then
		fail_all "cluster did not start"
		return
	fi
	: >"$RUNROOT/$strat.rss"
	: >"$RUNROOT/$strat.ids"
	sample_rss "$dir" "$RUNROOT/$strat.rss" "$RUNROOT/$strat.ids" &
	SAMPLER=$!

	t0=$SECONDS
	why=""
	submit_all "$RUNROOT/$strat.jobs" "$RUNROOT/$strat.ids" ||
		why="sbatch refused a job 5 times: $(tail -n 1 "$RUNROOT/sbatch.err")"
	note "$strat: $(wc -l <"$RUNROOT/$strat.ids") jobs submitted in $((SECONDS - t0)) s"
	if ! wait_done "$RUNROOT/$strat.ids" "$TIMEOUT"; then
		why="${why:+$why; }queue not empty after ${TIMEOUT}s"
	fi
	t1=$SECONDS
	secs=$((t1 - t0))
	sleep 3 # the last RSS samples after the queue emptied
	stop_sampler
	cp "$dir/jobcomp.txt" "$RUNROOT/$strat.jobcomp" 2>/dev/null ||
		: >"$RUNROOT/$strat.jobcomp"
	stop_cluster

	# completed
	local r
	slurm_purged "$dir" >"$RUNROOT/$strat.purged"
	r=$(check_completed "$RUNROOT/$strat.ids" "$RUNROOT/$strat.jobcomp" \
		"$RUNROOT/$strat.purged")
	local raced
	raced=$(awk 'FILENAME == ARGV[1] { p[$1] = 1; next }
		/JobState=FAILED/ && $1 ~ /^JobId=/ && substr($1, 7) in p { n++ }
		END { print n + 0 }' "$RUNROOT/$strat.purged" "$RUNROOT/$strat.jobcomp")
	[ "$raced" -gt 0 ] &&
		note "$strat: ${raced} job(s) FAILED before their script ran: a slurmd purged the script as the job started (Slurm's slurmd/slurmstepd race), counted apart"
	[ "$(wc -l <"$RUNROOT/$strat.ids")" = "$NJOBS" ] ||
		r="only $(wc -l <"$RUNROOT/$strat.ids") of $NJOBS submitted; $r"
	result "${names[0]}" "${why:+$why; }$r"

	# overlap
	r=$(overlap "$RUNROOT/$strat.jobcomp")
	[ -z "$r" ] && note "$strat: $(tail -n 1 "$RUNROOT/$strat.jobcomp.overlap")"
	result "${names[1]}" "$r"

	# memory
	local fig
	fig=$(awk -v n="$NJOBS" '
		NR == 1 { first = $2 }
		base == "" && $3 >= n / 10 && $4 >= n { base = $2 }
		half == "" && $3 >= n / 2 { half = $2; half_n = $3 }
		$2 > peak { peak = $2 }
		{ last = $2; last_n = $3; samples++ }
		END {
			if (!samples) { print "none"; exit }
			if (base == "") base = last
			if (half == "" || last_n <= half_n) slope = "?"
			else slope = int((last - half) * 1000 / (last_n - half_n))
			printf "%d %d %d %d %d %s\n", first, base, peak, last,
				samples, slope
		}' "$RUNROOT/$strat.rss")
	local first base peak last samples slope
	read -r first base peak last samples slope <<<"$fig"
	r=""
	if [ "$first" = none ] || [ -z "$peak" ]; then
		r="no RSS sample"
	elif [ "$peak" -gt $((3 * base)) ]; then
		r="peak RSS $peak kB > 3 x $base kB (base: all submitted, 10% finished)"
	fi
	note "$strat: slurmctld RSS kB: first $first, base $base, peak $peak, last $last ($samples samples); second half: $slope kB per 1000 jobs"
	result "${names[2]}" "$r"

	# boxes
	if [ "$strat" = box ]; then
		r=""
		if [ -z "$EVAL" ]; then
			r="locality-eval not built"
		else
			r=$("$EVAL" --conf "$conf" --nodes "$ALLNODES" \
				--jobcomp "$RUNROOT/$strat.jobcomp" 2>&1 |
				awk 'NR > 1 && $1 != "summary:" && $5 != $2 {
					print "job " $1 " (" $2 " nodes) has bounding box " $5 ": " $7; exit }')
		fi
		result "${names[3]}" "$r"
	fi

	mins=$(awk -v s="$secs" 'BEGIN { printf "%.1f", s / 60 }')
	local hops
	hops=$([ -n "$EVAL" ] && "$EVAL" --conf "$conf" --nodes "$ALLNODES" \
		--jobcomp "$RUNROOT/$strat.jobcomp" --quiet 2>/dev/null |
		sed -n 's/.*mean_avg_hops=\([0-9.]*\).*/\1/p')
	PEAK[$strat]=$peak
	FIGURES+=("$(printf '%-10s %6d %7s %8s %8s %8s %8s %8s' "$strat" \
		"$(grep -c 'JobState=COMPLETED' "$RUNROOT/$strat.jobcomp")" \
		"$mins" "$base" "$peak" "$last" "$slope" "${hops:-?}")")
}

main() {
	FIGURES=()
	declare -gA PEAK=()
	note "build dir: ${BUILD:-none}; plugin: ${PLUGDIR:-none}; run dir: $RUNROOT"
	note "$NJOBS jobs per strategy, strategies $STRATS, wait bound ${TIMEOUT}s"
	local s
	for s in ${STRATS//,/ }; do
		run_strategy "$s"
	done
	if [ "$TOPO" = 1 ]; then
		note "select/cons_tres on Slurm $("$CLUSTER" version); load: $(cut -d' ' -f1-3 /proc/loadavg)"
		run_strategy default cons_tres
		note "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
	elif [ "$CONTROL" = 1 ]; then
		run_strategy linear linear
	fi
	local ctl=linear
	[ "$TOPO" = 1 ] && ctl=default
	note "figures (RSS in kB; minutes from first sbatch to empty queue):"
	note "$(printf '%-10s %6s %7s %8s %8s %8s %8s %8s' strategy jobs minutes \
		base peak last kB/1000 avg_hops)"
	local f
	for f in "${FIGURES[@]}"; do
		note "$f"
	done
	if [ "$CONTROL" = 1 ] && [ -n "${PEAK[$ctl]:-}" ]; then
		local what=select/linear
		# With no TopologyPlugin line, 26.05 runs topology/flat.
		[ "$TOPO" = 1 ] && what=topology/default
		[ "$TOPO" = 1 ] && [ "${SLURM%%.*}" -ge 26 ] && what=topology/flat
		for s in ${STRATS//,/ }; do
			[ -n "${PEAK[$s]:-}" ] || continue
			note "$s: peak RSS $(awk -v a="${PEAK[$s]}" -v b="${PEAK[$ctl]}" \
				'BEGIN { printf "%.2f", a / b }')x $what's (${PEAK[$s]} kB against ${PEAK[$ctl]} kB)"
		done
	fi
	lib_finish
}

main; exit $?
