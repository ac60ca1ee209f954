#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# throughput.sh - the scheduling-throughput figure (reported, not a test):
# how fast slurmctld places jobs with select/locality compared with
# select/linear, or with topology/locality compared with Slurm's own
# placement under select/cons_tres, on local clusters of several sizes,
# in one run.
#
#   throughput.sh [BUILDDIR] [--plugin-dir DIR] [--nodes 64,128,256]
#                 [--jobs N] [--runtime SEC] [--observe SEC]
#                 [--shape SHAPE] [--strategy NAME] [--rundir DIR] [--keep]
#                 [--compare select|topology] [--slurm VERSION]
#                 [--set KEY=VALUE ...] [--repeat N]
#
# --compare select (the default): SelectType select/linear against
# select/locality (Strategy=--strategy, default pack), on the host's Slurm.
# --compare topology: select/cons_tres with no TopologyPlugin line (24.11:
# topology/default, Slurm's own placement) against select/cons_tres with
# TopologyPlugin=topology/locality and the recommended locality.conf
# (Strategy=pack, Curve=hilbert, CompactWait=60, CompactTolerance=0.1,
# PlanWindow=30, PlanHold=released; --strategy changes Strategy), 1 CPU
# per node, on Slurm --slurm (default 24.11). Under either --compare, each
# --set KEY=VALUE puts that line in place of KEY's in the locality row's
# locality.conf. A Slurm other than the host's runs in its Debian root
# (tools/slurm-root.sh run; build it with scripts/setup.sh --slurm
# VERSION): BUILDDIR defaults to that version's build and --rundir to
# BUILDDIR/throughput (it must be visible inside the root and short
# enough for slurmstepd's sockets).
# For each size (a 2-D torus: 64 = 8x8, 128 = 16x8, 256 = 16x16) and each
# plugin: start a fresh cluster, submit JOBS held jobs (default 16 per
# node) of 1-4 nodes (sizes cycling 1,3,2,4) that sleep RUNTIME seconds
# (default 2), reset sdiag, release them all with scontrol release and
# let slurmctld schedule for OBSERVE seconds (default 30) while the queue
# stays deep, then read sdiag:
#   placed/s  jobs started (main scheduler and backfill) per second of
#             the window: the throughput, limited by job launch and
#             completion as much as by the select plugin;
#   wave_s    wall time from the release until the first wave fills the
#             machine (all nodes allocated, or no growth for 3 s);
#   main, bf  main-scheduler and backfill cycles: count and mean
#             (microseconds), backfill's mean depth (jobs tested).
#   peak_rss  slurmctld's VmHWM (kB) at the end of the window.
# Prints one table per size and the ratio locality/linear (or
# locality/default) of placed/s. --repeat N (default 1) measures each
# size N times, a fresh cluster per plugin and round, the plugins in
# turn and their order swapped every other round (so neither always runs
# on the machine the other just loaded); it prints each round's rows and
# ratios and the median of the rounds' placed/s ratios.
# Keep it out of CI: a 256-node run takes several minutes per plugin.
# Ports: those of cluster.sh (LOC_CTLD_PORT, LOC_NODE_PORT0 + size).

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
ROOTS=$REPO/tools/slurm-root.sh
ARGS=("$@")

BUILD="" PLUGDIR="" NJOBS_ARG="" OBSERVE=30 RUNTIME=2 RUNROOT="" KEEP=0
SIZES=64 STRATEGY=pack COMPARE=select SLURM="" SETS=() REPEAT=1
while [ $# -gt 0 ]; do
	case $1 in
	--compare) COMPARE=$2; shift 2 ;;
	--slurm) SLURM=$2; shift 2 ;;
	--plugin-dir) PLUGDIR=$2; shift 2 ;;
	--nodes) SIZES=$2; shift 2 ;;
	--jobs) NJOBS_ARG=$2; shift 2 ;;
	--runtime) RUNTIME=$2; shift 2 ;;
	--observe) OBSERVE=$2; shift 2 ;;
	--shape) CLUSTER_SHAPE=$2; shift 2 ;;
	--strategy) STRATEGY=$2; shift 2 ;;
	--set)
		case $2 in
		[A-Za-z]*=?*) SETS+=("$2") ;;
		*) echo "throughput.sh: --set wants KEY=VALUE, not '$2'" >&2; exit 2 ;;
		esac
		shift 2 ;;
	--rundir) RUNROOT=$2; shift 2 ;;
	--repeat)
		case $2 in
		[1-9] | [1-9][0-9]) REPEAT=$2 ;;
		*) echo "throughput.sh: --repeat wants a count from 1 to 99, not '$2'" >&2; exit 2 ;;
		esac
		shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) sed -n '4,51p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "throughput.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done
case $COMPARE in
select) PLUGINS="linear locality" ;;
topology)
	PLUGINS="default locality"
	SLURM=${SLURM:-24.11}
	BUILD=${BUILD:-$("$ROOTS" build-dir "$SLURM")}
	RUNROOT=${RUNROOT:-$BUILD/throughput}
	PLUGDIR=${PLUGDIR:-$BUILD/src/plugins/topology/locality/.libs} ;;
*) echo "throughput.sh: --compare wants select or topology, not $COMPARE" >&2; exit 2 ;;
esac
# Another Slurm than the host's: the rest runs in its Debian root.
if [ -n "$SLURM" ] && [ "$SLURM" != "$("$ROOTS" host-version)" ] &&
	[ "${LOC_SLURM_ROOT:-}" != "$SLURM" ]; then
	mkdir -p "$RUNROOT" || exit 1
	exec "$ROOTS" run "$SLURM" --bind "$RUNROOT" -- "$0" "${ARGS[@]}"
fi
lib_init loc-throughput
if [ "$COMPARE" = topology ]; then
	HAVE_PLUGIN=0
	[ -f "$PLUGDIR/topology_locality.so" ] && HAVE_PLUGIN=1
fi

# dims N: a 2-D torus of N nodes, the two sides as close as possible.
dims() {
	local n=$1 a
	a=$(awk -v n="$n" 'BEGIN { a = int(sqrt(n)); while (a > 1 && n % a) a--; print a }')
	echo "$((n / a))x$a"
}

# Reads "Key: value" from the sdiag section whose heading matches $1.
sdiag_get() {
	awk -v sec="$1" -v key="$2" '
		/^[^ \t]/ { in_sec = index($0, sec) > 0; next }
		in_sec && index($0, key ":") { sub(/.*:[ \t]*/, ""); print $1; exit }
	' "$3"
}

# measure PLUGIN ROUND -> prints "started window_s wave_s nodes main_n main_mean
# bf_n bf_mean bf_depth peak_rss"; PLUGIN is the SelectType (linear,
# locality) or, with --compare topology, the TopologyPlugin (default,
# locality) under select/cons_tres.
measure() {
	local sel=$1 round=$2 lconf="" i k ids="" id t0 t1 alloc best=0 since
	local select=$sel topo=""
	[ "$sel" = locality ] && lconf=$LCONF
	if [ "$COMPARE" = topology ]; then
		select=cons_tres
		[ "$sel" = locality ] && topo=locality
	fi
	CLUSTER_TOPOLOGY=$topo start_cluster "$sel-$NODES" "$select" "$lconf" \
		"MaxJobCount=50000" >&2 || return 1
	echo "# $sel, $NODES nodes: submitting $NJOBS held jobs" >&2
	for i in $(seq "$NJOBS"); do
		k=$(( (i * 3) % 4 + 1 ))
		id=$(sbatch --parsable -H -N "$k" -t 2 -o /dev/null \
			--wrap "sleep $RUNTIME" 2>/dev/null) || { echo "sbatch failed" >&2; return 1; }
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
	local wave f=$RUNROOT/$sel-$NODES-r$round.sdiag
	wave=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e6 }')
	sleep "$(awk -v o="$OBSERVE" -v w="$wave" 'BEGIN { r = o - w; print (r > 0 ? r : 0) }')"
	sdiag >"$f" 2>&1
	local hwm
	hwm=$(awk '/^VmHWM:/ { print $2 }' \
		"/proc/$(cat "$CURRENT/run/slurmctld.recpid")/status" 2>/dev/null)
	# The window: from the reset ("Data since") to this sdiag.
	printf '%s %s %s %s %s %s %s %s %s %s\n' \
		"$(sed -n 's/^Jobs started: *//p' "$f")" \
		"$(awk '/^sdiag output at/ { gsub(/[()]/, "", $NF); b = $NF }
			/^Data since/ { gsub(/[()]/, "", $NF); a = $NF }
			END { print b - a }' "$f")" \
		"$wave" "$best" \
		"$(sdiag_get 'Main schedule' 'Total cycles' "$f")" \
		"$(sdiag_get 'Main schedule' 'Mean cycle' "$f")" \
		"$(sdiag_get 'Backfilling' 'Total cycles' "$f")" \
		"$(sdiag_get 'Backfilling' 'Mean cycle' "$f")" \
		"$(sdiag_get 'Backfilling' 'Depth Mean' "$f")" "${hwm:-?}"
	stop_cluster
}

# The base locality.conf of a size; --compare topology: the recommended
# one (bench/live-topo.sh's), nodes in name order from (0,0).
lconf() {
	printf 'Dimensions=%s\nTorus=yes\nStrategy=%s\nCurve=hilbert\n' \
		"$(dims "$NODES")" "$STRATEGY"
	[ "$COMPARE" = topology ] || return 0
	printf '%s\n' "NodeName=n[001-$(printf %03d "$NODES")] Coords=0,0" \
		"CompactWait=60" "CompactTolerance=0.1" "PlanWindow=30" \
		"PlanHold=released"
}

# lconf with each --set KEY=VALUE in place of KEY's line (or added).
lconf_set() {
	local kv
	lconf >"$1" || return 1
	for kv in "${SETS[@]}"; do
		sed -i "/^${kv%%=*}=/d" "$1" && echo "$kv" >>"$1" || return 1
	done
}

BASE=${PLUGINS%% *} # linear or default: the denominator of the ratio
if [ "$COMPARE" = topology ]; then
	LABEL=topology/ PLUGFILE=topology_locality.so
else
	LABEL=select/ PLUGFILE=select_locality.so
fi
for NODES in ${SIZES//,/ }; do
	NJOBS=${NJOBS_ARG:-$((16 * NODES))}
	LCONF=$RUNROOT/locality-$NODES.conf
	lconf_set "$LCONF" || { echo "throughput.sh: cannot write $LCONF" >&2; exit 1; }
	declare -A R=()
	for round in $(seq "$REPEAT"); do
		order=$PLUGINS
		[ $((round % 2)) = 0 ] && order=$(echo "$PLUGINS" | awk '{ print $2, $1 }')
		for sel in $order; do
			if [ "$sel" = locality ] && [ "$HAVE_PLUGIN" = 0 ]; then
				echo "# ${LABEL}locality: $PLUGDIR/$PLUGFILE not built; skipped" >&2
				continue
			fi
			R[$sel.$round]=$(measure "$sel" "$round") ||
				{ echo "# $sel: measurement failed" >&2; R[$sel.$round]=""; }
		done
	done
	echo "== $NODES nodes ($(dims "$NODES") torus, Strategy=$STRATEGY), $NJOBS held jobs of 1-4 nodes, sleep $RUNTIME s, ${OBSERVE} s observed${SLURM:+, Slurm $SLURM}, $REPEAT round(s); load: $(cut -d' ' -f1-3 /proc/loadavg)"
	[ "$COMPARE" = topology ] && echo "(select/cons_tres, 1 CPU per node; default: no TopologyPlugin line)"
	printf '%-21s %8s %8s %8s %7s %5s %6s %9s %5s %9s %8s %9s\n' \
		"${LABEL%/}" started window_s placed/s wave_s nodes main_n \
		main_mean bf_n bf_mean bf_depth peak_rss
	RATIOS=""
	for round in $(seq "$REPEAT"); do
		for sel in $PLUGINS; do
			[ -n "${R[$sel.$round]:-}" ] || continue
			name=$LABEL$sel
			[ "$REPEAT" -gt 1 ] && name="$name#$round"
			# shellcheck disable=SC2086
			echo "$name" ${R[$sel.$round]} | awk '{
				printf "%-21s %8s %8s %8.1f %7s %5s %6s %9s %5s %9s %8s %9s\n",
					$1, $2, $3, ($3 > 0 ? $2 / $3 : 0), $4, $5, $6, $7, $8, $9, $10, $11 }'
		done
		if [ -n "${R[$BASE.$round]:-}" ] && [ -n "${R[locality.$round]:-}" ]; then
			ratio=$(echo "${R[$BASE.$round]}" "${R[locality.$round]}" | awk '
				{ l = $2 > 0 ? $1 / $2 : 0; x = $12 > 0 ? $11 / $12 : 0
				  print (l > 0 ? sprintf("%.2f", x / l) : "n/a") }')
			[ "$ratio" = n/a ] || RATIOS="$RATIOS $ratio"
			echo "${R[$BASE.$round]}" "${R[locality.$round]}" | awk -v base="$BASE" \
				-v round="$([ "$REPEAT" -gt 1 ] && echo " (round $round)")" -v r="$ratio" '
			{ printf "ratio locality/%s%s: placed/s %s, main mean cycle %s, backfill mean cycle %s, peak RSS %s\n",
				base, round, r,
				($6 > 0 ? sprintf("%.2f", $16 / $6) : "n/a"),
				($8 > 0 ? sprintf("%.2f", $18 / $8) : "n/a"),
				($10 > 0 ? sprintf("%.2f", $20 / $10) : "n/a") }'
		fi
		# Every job started inside the window: the queue ran dry, and
		# placed/s measures the job count, not the scheduler.
		for sel in $PLUGINS; do
			[ "$(echo "${R[$sel.$round]:-}" | cut -d" " -f1)" = "$NJOBS" ] &&
				echo "# $LABEL$sel (round $round) started all $NJOBS jobs within the window: placed/s is bounded by the job count (give more --jobs or a shorter --observe)"
		done
	done
	if [ "$REPEAT" -gt 1 ] && [ -n "$RATIOS" ]; then
		# shellcheck disable=SC2086
		printf '%s\n' $RATIOS | sort -n | awk -v base="$BASE" '
			{ v[NR] = $1 } END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "median ratio locality/%s of placed/s over %d round(s): %.2f (%s to %s)\n",
				base, NR, m, v[1], v[NR] }'
	fi
	unset R
done
echo "(cycle times in microseconds from sdiag; peak_rss: slurmctld VmHWM in kB)"
cleanup
[ "$KEEP" = 1 ] || rm -rf "$RUNROOT"
