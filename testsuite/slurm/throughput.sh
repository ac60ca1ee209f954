#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# throughput.sh - the scheduling-throughput figure (reported, not a test):
# how fast slurmctld places a deep queue with select/locality compared
# with select/linear, on the same 64-node local cluster, in one run.
#
#   throughput.sh [BUILDDIR] [--plugin-dir DIR] [--jobs 2000]
#                 [--observe SEC] [--rundir DIR] [--keep]
#
# For each SelectType: start a fresh cluster, submit JOBS held one-minute
# jobs (sbatch -H -N1..-N4 -t 2 --wrap 'sleep 60', sizes cycling
# 1,3,2,4), reset sdiag, release them all with scontrol release, then
#   wave_s   wall time from the release until the first wave fills the
#            machine: 64 nodes allocated, or the allocated count stops
#            growing for 3 s (a plateau; reported with its node count);
#   sdiag    after OBSERVE seconds (default 20) of scheduling with the
#            queue still deep: main-scheduler cycles (count, mean, max,
#            microseconds) and backfill cycles (count, mean, max, mean
#            depth: jobs tested per cycle).
# Prints both and the ratios locality/linear. Keep it out of CI: each
# cluster takes about a minute to fill with queued jobs.

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

BUILD="" PLUGDIR="" NJOBS=2000 OBSERVE=20 RUNROOT="" KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--plugin-dir) PLUGDIR=$2; shift 2 ;;
	--jobs) NJOBS=$2; shift 2 ;;
	--observe) OBSERVE=$2; shift 2 ;;
	--rundir) RUNROOT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "throughput.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done
lib_init loc-throughput

LCONF=$RUNROOT/locality.conf
printf 'Dimensions=8x8\nTorus=yes\nStrategy=mm\nCurve=hilbert\n' >"$LCONF"

# Reads "Key: value" from the sdiag section whose heading matches $1.
sdiag_get() {
	awk -v sec="$1" -v key="$2" '
		/^[^ \t]/ { in_sec = index($0, sec) > 0; next }
		in_sec && index($0, key ":") { sub(/.*:[ \t]*/, ""); print $1; exit }
	' "$3"
}

# measure SELECT -> prints "wave_s nodes main_n main_mean main_max bf_n
# bf_mean bf_max bf_depth"
measure() {
	local sel=$1 lconf="" i k ids="" id t0 t1 alloc best=0 since
	[ "$sel" = locality ] && lconf=$LCONF
	start_cluster "$sel" "$sel" "$lconf" "MaxJobCount=50000" >&2 || return 1
	echo "# $sel: submitting $NJOBS held jobs" >&2
	for i in $(seq "$NJOBS"); do
		k=$(( (i * 3) % 4 + 1 ))
		id=$(sbatch --parsable -H -N "$k" -t 2 -o /dev/null \
			--wrap 'sleep 60' 2>/dev/null) || { echo "sbatch failed" >&2; return 1; }
		ids="$ids,${id%%;*}"
	done
	ids=${ids#,}
	sdiag --reset >/dev/null 2>&1
	t0=${EPOCHREALTIME/./}
	echo "$ids" | tr ',' '\n' | xargs -n 500 sh -c \
		'scontrol release "$(echo "$@" | tr " " ",")"' _ ||
		echo "# warning: scontrol release reported an error" >&2
	since=$t0
	while :; do
		alloc=$(sinfo -h -o '%A' | cut -d/ -f1)
		t1=${EPOCHREALTIME/./}
		if [ "${alloc:-0}" -gt "$best" ]; then
			best=$alloc
			since=$t1
		fi
		[ "$best" -ge "$NODES" ] && break
		[ $((t1 - since)) -gt 3000000 ] && { t1=$since; break; }
		[ $((t1 - t0)) -gt 120000000 ] && break
		sleep 0.05
	done
	local wave
	wave=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e6 }')
	sleep "$OBSERVE"
	sdiag >"$RUNROOT/$sel.sdiag" 2>&1
	printf '%s %s %s %s %s %s %s %s %s\n' "$wave" "$best" \
		"$(sdiag_get 'Main schedule' 'Total cycles' "$RUNROOT/$sel.sdiag")" \
		"$(sdiag_get 'Main schedule' 'Mean cycle' "$RUNROOT/$sel.sdiag")" \
		"$(sdiag_get 'Main schedule' 'Max cycle' "$RUNROOT/$sel.sdiag")" \
		"$(sdiag_get 'Backfilling' 'Total cycles' "$RUNROOT/$sel.sdiag")" \
		"$(sdiag_get 'Backfilling' 'Mean cycle' "$RUNROOT/$sel.sdiag")" \
		"$(sdiag_get 'Backfilling' 'Max cycle' "$RUNROOT/$sel.sdiag")" \
		"$(sdiag_get 'Backfilling' 'Depth Mean' "$RUNROOT/$sel.sdiag")"
	stop_cluster
}

declare -A R=()
for sel in linear locality; do
	if [ "$sel" = locality ] && [ ! -f "$PLUGDIR/select_locality.so" ]; then
		echo "# select/locality: $PLUGDIR/select_locality.so not built; skipped" >&2
		continue
	fi
	R[$sel]=$(measure "$sel") || { echo "# $sel: measurement failed" >&2; R[$sel]=""; }
done

printf '%-16s %7s %5s %6s %9s %9s %5s %9s %9s %8s\n' select wave_s nodes \
	main_n main_mean main_max bf_n bf_mean bf_max bf_depth
for sel in linear locality; do
	[ -n "${R[$sel]:-}" ] || continue
	# shellcheck disable=SC2086
	printf '%-16s %7s %5s %6s %9s %9s %5s %9s %9s %8s\n' "select/$sel" ${R[$sel]}
done
echo "(cycle times in microseconds from sdiag; $NJOBS queued jobs, one-minute, -N1..-N4)"
if [ -n "${R[linear]:-}" ] && [ -n "${R[locality]:-}" ]; then
	echo "${R[linear]}" "${R[locality]}" | awk '
	function ratio(a, b) { return b + 0 > 0 ? sprintf("%.2f", a / b) : "n/a" }
	{ printf "ratio locality/linear: wave %s, main mean cycle %s, backfill mean cycle %s\n",
		ratio($10, $1), ratio($13, $4), ratio($16, $7) }'
fi
[ "$KEEP" = 1 ] || rm -rf "$RUNROOT"
