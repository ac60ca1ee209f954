#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# live-topo.sh - select/cons_tres under Slurm's topology plugins and
# topology/locality, measured live: the same workloads through
# select/cons_tres with each TopologyPlugin, one fresh cluster of 64
# slurmd (4 CPUs, 1000 MB, 2 stand-in GPUs each) per run, one run after
# another, on an 8x8 and a 4x4x4 torus. A benchmark, not a test: it never
# fails on the figures, but it stops when a cluster does not start or a
# run starts no job, and it counts and shows the jobs that never started
# (exit status 1 at the end if an accepted job never started).
#
#   bench/live-topo.sh [--slurm 24.11] [--tori 8x8,4x4x4]
#                      [--workloads whole,mixed] (also pow2)
#                      [--topologies default,tree,block,locality[+K=V..]]
#                      (26.05 also flat and torus3d)
#                      [--shape per-row] [--seed 1] [--jobs 140]
#                      [--gpu-partition]
#                      [--max-nodes 24] [--gap 0.55] [--mixed-gap 0.4]
#                      [--runtime 5] [--limits fixed] [--repeat 1]
#                      [--out DIR] [--build DIR] [--report-only]
#
# Topologies: default (Slurm's own placement: cons_tres without a
# TopologyPlugin line; on 26.05 that is topology/flat, which flat names
# outright), tree (leaf switches under one top switch s0),
# block (BlockSizes=G,2G,.. up to 64), torus3d (26.05: topology.yaml
# with the torus's dimensions and every sub-box whose sides are powers of
# two as a placement, so jobs of 1, 2, 4, 8, 16, 32 or 64 nodes are
# served and sbatch refuses the other sizes) and locality (topology/locality with
# the recommended locality.conf: Strategy=pack, Curve=hilbert,
# CompactWait=60, CompactTolerance=0.1, PlanWindow=30,
# PlanHold=released); locality+KEY=VAL[+KEY=VAL..] is topology/locality
# with those keys of that file changed (locality+CompactWait=0), and
# +PART:KEY=VAL sets KEY for partition PART alone (a PartitionName line:
# locality+gpu:CompactTolerance=0.3), and +GresName=G:KEY=VAL for the
# jobs that ask for GRES G (a GresName line:
# locality+GresName=gpu:CompactTolerance=0.3). Tori
# (locality.conf Torus=yes, nodes n001..n064 in
# row-major wiring order): 8x8, tree switches and blocks a row of 8;
# 4x4x4, tree switches a plane of 16 (a rack), blocks a row of 4 (the
# block levels of 16 are the planes). --shape is cluster.sh's slurm.conf
# shape (its rows: 8 nodes on the 8x8 torus, 4 on the 4x4x4; two-kinds
# gives every other row 8 CPUs and 2000 MB, two kinds of hardware).
# Workloads (workload.sh gen; the same seeded arrivals, runtimes ~--runtime
# s, in every run): whole, node counts log-uniform in 1..--max-nodes, each
# job --exclusive; pow2, the whole workload with each node count rounded
# down to a power of two (the sizes torus3d serves: every job runs under
# every plugin, so torus3d is compared on the same jobs); mixed (gen --mixed): 40% core jobs -n K sharing nodes,
# 35% whole-node jobs, 25% GPU jobs -N 2..8 --gres=gpu:1..2, arriving
# --mixed-gap s apart (its jobs hold fewer nodes: about the same load).
# --limits is workload.sh gen's: fixed gives every job a time limit of 2
# minutes, runtime a job of r seconds r minutes, so running jobs'
# expected ends follow their real ends (to measure locality+WalltimeAware=sl).
# --gpu-partition: slurm.conf has a second partition, gpu, of the same
# nodes, and the mixed workload's GPU jobs are submitted to it (-p gpu),
# in every run, as a site that keeps its GPU jobs in a partition of their
# own. After each mixed table, a line per row gives the mean wait and
# ratio to the ideal of each kind of job.
# One table per torus and workload: jobs submitted and started, mean and
# p95 over multi-node jobs of each job's mean pairwise hops on the torus
# (locality-eval on that torus's locality.conf), the mean's ratio to the
# first row and to the ideal (the most compact set the core finds for
# each size on the empty torus, ideal-TORUS.txt), nodes per started job,
# mean and p95 wait, makespan and the jobs that never started (refused by
# sbatch, or still pending, a failed launch requeues a job, when no job
# had run for 30 s, or after 900 s). After each whole-node table, the
# replay's table of the same workload (locality-replay, EASY backfilling,
# no slurmd): two models of cons_tres's own placement and each
# topology/locality row with its locality.conf, so the replay's ratios
# can be held against the live ones. Everything lands in --out (default
# BUILD/live-topo; its path must be short, for slurmstepd's sockets):
# workloads, each run's jobcomp, locality-eval output and slurmctld log,
# report.txt; the clusters run in OUT/c, one after another.
# --repeat N runs every row of a table N times, in rounds (round 1 of
# each row, then round 2, ...: what drifts on the machine falls on every
# row alike), prints each round's table and then one of the medians over
# the rounds with their range (live_report.py --medians): single runs of
# the same row spread by 10-40% in wait. Round R > 1 keeps its records
# as TAG.rR.*.
# --report-only rebuilds report.txt from the runs already in --out (same
# options as the run). Another version than the host's runs in its Debian root
# (tools/slurm-root.sh); build it first (scripts/setup.sh --slurm V).
# Ports: LOC_CTLD_PORT (6817) and LOC_NODE_PORT0.. (17001..), as
# cluster.sh. LOC_TOPO_DEBUG=debug runs slurmctld at that log level (info):
# topology/locality's reasons (CompactWait, claims) in each run's log. A run takes about two minutes; the defaults make 16.

set -u
PROG=live-topo.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER=$REPO/testsuite/slurm/cluster.sh
WORKLOAD=$REPO/testsuite/slurm/workload.sh
ROOTS=$REPO/tools/slurm-root.sh
ALLNODES="n[001-064]"
ARGS=("$@")

SLURM=24.11 TORI="8x8,4x4x4" WLS="whole,mixed"
TOPOS="default,tree,block,locality" SHAPE=per-row
SEED=1 JOBS=140 MAXN=24 GAP=0.55 MGAP=0.4 RT=5 OUT="" BUILD="" REPORT_ONLY=0
GPUPART=0 REPEAT=1 LIMITS=fixed
while [ $# -gt 0 ]; do
	case $1 in
	--slurm) SLURM=$2; shift 2 ;;
	--tori) TORI=$2; shift 2 ;;
	--workloads) WLS=$2; shift 2 ;;
	--topologies) TOPOS=$2; shift 2 ;;
	--shape) SHAPE=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--max-nodes) MAXN=$2; shift 2 ;;
	--gap) GAP=$2; shift 2 ;;
	--mixed-gap) MGAP=$2; shift 2 ;;
	--runtime) RT=$2; shift 2 ;;
	--limits) LIMITS=$2; shift 2 ;;
	--repeat) REPEAT=$2; shift 2 ;;
	--gpu-partition) GPUPART=1; shift ;;
	--out) OUT=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	--report-only) REPORT_ONLY=1; shift ;;
	-h | --help) sed -n '4,84p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$PROG: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
done
case $REPEAT in
'' | *[!0-9]* | 0*) echo "$PROG: --repeat wants a count of 1 or more, not '$REPEAT'" >&2
	exit 2 ;;
esac
BUILD=${BUILD:-$("$ROOTS" build-dir "$SLURM")}
OUT=${OUT:-$BUILD/live-topo}

die() {
	echo "$PROG: $*" >&2
	exit 1
}
say() {
	echo "== $*" >&2
}

[ "$(id -u)" = 0 ] || die "run as root: it starts munged, slurmctld and slurmd"
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
# Another Slurm than the host's: the rest runs in its Debian root.
if [ "$SLURM" != "$("$ROOTS" host-version)" ] &&
	[ "${LOC_SLURM_ROOT:-}" != "$SLURM" ]; then
	exec "$ROOTS" run "$SLURM" --bind "$OUT" -- "$0" "${ARGS[@]}"
fi

EVAL=$BUILD/src/tools/locality-eval
REPLAY=$BUILD/src/replay/locality-replay
TPLUG=$BUILD/src/plugins/topology/locality/.libs/topology_locality.so
for f in "$EVAL" "$REPLAY" "$TPLUG"; do
	[ -e "$f" ] || die "$f missing: build first (scripts/setup.sh --slurm $SLURM)"
done
mkdir -p "$OUT/bin" || die "cannot create $OUT/bin"
sock=$OUT/c/spool/n064/n064_999999.4294967291
[ ${#sock} -le 108 ] ||
	die "--out $OUT is too long: slurmstepd's sockets under it would pass 108 bytes"
# Every run uses the same binaries, even if the build changes meanwhile.
# --report-only leaves them alone: a run's slurmctld may have the plugin
# loaded, and a file rewritten under its mapping crashes it.
if [ "$REPORT_ONLY" = 0 ]; then
	cp --remove-destination "$EVAL" "$TPLUG" "$OUT/bin/" ||
		die "cannot copy the binaries into $OUT/bin"
fi
# No slurmctld maps the replay: a --report-only run may refresh it.
cp --remove-destination "$REPLAY" "$OUT/bin/" ||
	die "cannot copy $REPLAY into $OUT/bin"
EVAL=$OUT/bin/locality-eval REPLAY=$OUT/bin/locality-replay

CURRENT=""
cleanup() {
	[ -n "$CURRENT" ] && "$CLUSTER" stop --dir "$CURRENT" >/dev/null 2>&1
	CURRENT=""
}
trap cleanup EXIT
trap 'say "interrupted: stopping the cluster"; exit 130' INT TERM

# --- tori and workloads -----------------------------------------------------

# torus TORUS - sets DIMS, COORD0, ROW (slurm.conf rows), TREE and BLOCK
# (nodes per leaf switch and per block), T3D (torus3d's XxYxZ: its x
# varies fastest, our first dimension slowest, so the same wiring reads
# backwards) and TWHAT (their description).
torus() {
	case $1 in
	8x8) DIMS=8x8 COORD0=0,0 ROW=8 TREE=8 BLOCK=8 T3D=8x8x1
	     TWHAT="tree: a leaf switch per row of 8; block: a block per"
	     TWHAT="$TWHAT row of 8, BlockSizes=8,16,32,64; torus3d: 8x8x1,"
	     TWHAT="$TWHAT boxes with power-of-two sides" ;;
	4x4x4) DIMS=4x4x4 COORD0=0,0,0 ROW=4 TREE=16 BLOCK=4 T3D=4x4x4
	     TWHAT="tree: a leaf switch per plane of 16; block: a block per"
	     TWHAT="$TWHAT row of 4, BlockSizes=4,8,16,32,64; torus3d: 4x4x4,"
	     TWHAT="$TWHAT boxes with power-of-two sides" ;;
	*) die "--tori: 8x8 or 4x4x4, not $1" ;;
	esac
}

# The recommended locality.conf on each torus; also the wiring for hops.
IFS=, read -r -a tori <<<"$TORI"
for t in "${tori[@]}"; do
	torus "$t"
	if [ "$REPORT_ONLY" = 1 ]; then
		[ -f "$OUT/locality-$t.conf" ] ||
			die "--report-only: no $OUT/locality-$t.conf"
		continue
	fi
	printf '%s\n' "# live-topo.sh: $t torus, the recommended configuration" \
		"Dimensions=$DIMS" "Torus=yes" "NodeName=$ALLNODES Coords=$COORD0" \
		"Strategy=pack" "Curve=hilbert" "CompactWait=60" \
		"CompactTolerance=0.1" "PlanWindow=30" "PlanHold=released" \
		>"$OUT/locality-$t.conf"
	: >"$OUT/ideal-$t.txt"
done

# variant_conf TORUS TOPO - writes TOPO's locality.conf,
# OUT/locality-TORUS+KEY=VAL...conf: the recommended one, with each
# KEY=VAL of locality+KEY=VAL+.. in place of its KEY line, each
# PART:KEY=VAL on PART's PartitionName line (one line per partition)
# and each GresName=G:KEY=VAL on G's GresName line.
variant_conf() {
	local base=$OUT/locality-$1.conf out=$OUT/locality-$1${2#locality}.conf
	local kv keys part
	local -A parts=()
	IFS=+ read -r -a keys <<<"${2#locality+}"
	cp "$base" "$out"
	for kv in "${keys[@]}"; do
		case $kv in
		[A-Za-z]*:[A-Za-z]*=?*)
			part=${kv%%:*}
			parts[$part]="${parts[$part]:-} ${kv#*:}"
			continue ;;
		[A-Za-z]*=?*) ;;
		*) die "--topologies $2: want locality+KEY=VALUE, +PART:KEY=VALUE or +GresName=G:KEY=VALUE, not '$kv'" ;;
		esac
		sed -i "/^${kv%%=*}=/d" "$out"
		echo "$kv" >>"$out"
	done
	for part in "${!parts[@]}"; do
		case $part in
		GresName=*) echo "$part${parts[$part]}" ;;
		*) echo "PartitionName=$part${parts[$part]}" ;;
		esac >>"$out"
	done
}

IFS=, read -r -a wls <<<"$WLS"
for w in "${wls[@]}"; do
	[ "$REPORT_ONLY" = 0 ] || [ -f "$OUT/workload-$w.txt" ] ||
		die "--report-only: no $OUT/workload-$w.txt"
	[ "$REPORT_ONLY" = 0 ] || continue
	case $w in
	whole) "$WORKLOAD" gen --seed "$SEED" --jobs "$JOBS" --max-nodes "$MAXN" \
		--gap "$GAP" --runtime "$RT" --limits "$LIMITS" \
		>"$OUT/workload-$w.txt" ;;
	mixed) "$WORKLOAD" gen --mixed --cpus 4 --gpus 2 --seed "$SEED" \
		--jobs "$JOBS" --max-nodes "$MAXN" --gap "$MGAP" --runtime "$RT" \
		--limits "$LIMITS" |
		awk -v gpupart="$GPUPART" 'gpupart && $5 ~ /^g/ { $0 = $0 " -p gpu" } 1' \
		>"$OUT/workload-$w.txt" ;;
	pow2) "$WORKLOAD" gen --seed "$SEED" --jobs "$JOBS" --max-nodes "$MAXN" \
		--gap "$GAP" --runtime "$RT" --limits "$LIMITS" |
		awk '{ p = 1; while (p * 2 <= $2) p *= 2; $2 = p; print }' \
		>"$OUT/workload-$w.txt" ;;
	*) die "--workloads: whole, pow2 or mixed, not $w" ;;
	esac || die "workload.sh gen failed for $w"
done

# ideal TORUS JOBCOMP... - adds to ideal-TORUS.txt the sizes of the
# jobs' node sets it lacks: the most compact set any of the core's exact
# or near-exact strategies finds on the empty torus (locality-eval --ideal).
ideal() {
	local t=$1 conf=$OUT/locality-$1.conf
	shift
	# Not in a pipeline: die must end the script, not a subshell.
	"$EVAL" --conf "$conf" --nodes "$ALLNODES" --ideal --jobcomp "$@" \
		>"$OUT/ideal-$t.txt.new" ||
		die "locality-eval --ideal failed on $*"
	sort -n -k1,1 -u "$OUT/ideal-$t.txt" "$OUT/ideal-$t.txt.new" \
		>"$OUT/ideal-$t.txt.sorted" &&
		mv "$OUT/ideal-$t.txt.sorted" "$OUT/ideal-$t.txt" &&
		rm -f "$OUT/ideal-$t.txt.new" ||
		die "cannot update $OUT/ideal-$t.txt"
}

# wait_jobs IDS - until the jobs have left the queue, or none has run for
# 30 s since the last one ended (the rest cannot start), or 900 s.
wait_jobs() {
	local list n idle=0 running left
	list=$(awk '{ print $2 }' "$1" | paste -sd, -)
	[ -n "$list" ] || return 0
	for ((n = 0; n < 900; n++)); do
		left=$(squeue -h -j "$list" -o '%T' 2>/dev/null) ||
			{ sleep 1; continue; }
		[ -z "$left" ] && return 0
		running=$(echo "$left" | grep -vc PENDING)
		if [ "$running" = 0 ]; then
			idle=$((idle + 1))
			[ "$idle" -lt 30 ] || break
		else
			idle=0
		fi
		sleep 1
	done
	echo "$PROG: $(echo "$left" | wc -l) jobs never started or finished" >&2
	return 1
}

# --- the live runs --------------------------------------------------------

UNSTARTED=0
# tag TORUS WORKLOAD TOPOLOGY ROUND - the name of a run's records.
tag() {
	if [ "$4" = 1 ]; then
		echo "$1-$2-$3"
	else
		echo "$1-$2-$3.r$4"
	fi
}

# run TORUS WORKLOAD TOPOLOGY ROUND - the workload on a fresh cluster;
# keeps its records as OUT/TAG.*.
run() {
	local t=$1 w=$2 topo=$3 tag dir args t0 extra=() n group
	tag=$(tag "$1" "$2" "$3" "$4")
	# One short cluster directory for every run: slurmstepd's socket
	# paths under it must fit in 108 bytes.
	dir=$OUT/c
	torus "$t"
	args=(start --dir "$dir" --nodes 64 --shape "$SHAPE" --select cons_tres
		--cpus 4 --mem 1000 --gpus 2 --extra "SelectTypeParameters=CR_Core"
		--debug "${LOC_TOPO_DEBUG:-info}")
	[ "$GPUPART" = 0 ] || args+=(--extra \
		"PartitionName=gpu Nodes=$ALLNODES Default=NO MaxTime=INFINITE State=UP")
	case $topo in
	default) ;;
	locality) args+=(--topology locality --plugin-dir "$OUT/bin"
		--locality-conf "$OUT/locality-$t.conf") ;;
	locality+*) variant_conf "$t" "$topo"
		args+=(--topology locality --plugin-dir "$OUT/bin"
			--locality-conf "$OUT/locality-$t${topo#locality}.conf") ;;
	tree | block | flat) args+=(--topology "$topo") ;;
	torus3d) args+=(--topology torus3d) ;;
	*) die "--topologies: default, flat, tree, block, torus3d, locality or locality+KEY=VAL, not $topo" ;;
	esac
	[ "$w" = mixed ] || extra=(--exclusive)
	say "$tag: starting the cluster"
	group=$BLOCK
	[ "$topo" = tree ] && group=$TREE
	LOC_ROW_NODES=$ROW LOC_TOPO_GROUP=$group LOC_TORUS3D_DIMS=$T3D \
		"$CLUSTER" "${args[@]}" >"$OUT/$tag.start.log" 2>&1 ||
		die "$tag: the cluster did not start: $(tail -n 3 "$OUT/$tag.start.log")"
	CURRENT=$dir
	export SLURM_CONF=$dir/etc/slurm.conf
	t0=$SECONDS
	(cd "$dir/out" && "$WORKLOAD" submit "$OUT/workload-$w.txt" "$OUT/$tag.ids" \
		--keep-going "${extra[@]}") || die "$tag: submission failed"
	wait_jobs "$OUT/$tag.ids"
	sleep 1
	cleanup
	cp "$dir/jobcomp.txt" "$OUT/$tag.jobcomp" 2>/dev/null ||
		die "$tag: no jobcomp records: the run did not happen"
	cp "$dir/log/slurmctld.log" "$OUT/$tag.slurmctld.log"
	[ ! -f "$dir/etc/topology.conf" ] ||
		cp "$dir/etc/topology.conf" "$OUT/$tag.topology.conf"
	# A job's last record counts: a launch that failed and requeued the
	# job left one with nodes and JobState=PENDING; jobs that never
	# started (cancelled at the end) have no nodes.
	awk '{ id = $1 } !(id in last) { order[++n] = id } { last[id] = $0 }
		END {
			for (i = 1; i <= n; i++) {
				r = last[order[i]]
				if (r !~ / NodeCnt=0 / && r !~ / JobState=PENDING /)
					print r
			}
		}' "$OUT/$tag.jobcomp" >"$OUT/$tag.started"
	n=$(grep -c . "$OUT/$tag.started")
	[ "$n" -gt 0 ] || die "$tag: no job started: the run did not happen"
	"$EVAL" --conf "$OUT/locality-$t.conf" --nodes "$ALLNODES" \
		--jobcomp "$OUT/$tag.started" >"$OUT/$tag.eval" ||
		die "$tag: locality-eval failed on $OUT/$tag.started"
	say "$tag: done in $((SECONDS - t0)) s"
}

# unstarted TAG - counts into UNSTARTED the accepted jobs of a run that
# never started, with a warning.
unstarted() {
	local n
	[ -f "$OUT/$1.started" ] && [ -f "$OUT/$1.ids" ] ||
		die "$1: no records in $OUT: the run did not happen"
	n=$(($(grep -c . "$OUT/$1.ids") - $(grep -c . "$OUT/$1.started")))
	if [ "$n" -gt 0 ]; then
		echo "$PROG: WARNING: $1: $n accepted jobs never started" >&2
		UNSTARTED=$((UNSTARTED + n))
	fi
}

# --- the replay of the whole-node workload ----------------------------------

# replay_table TORUS - the whole-node workload through locality-replay
# (EASY backfilling) on TORUS: each topology/locality row with its
# locality.conf (--plugin topology: with its claims), and first two
# models of cons_tres's own placement (best fit among runs of
# consecutive free nodes, and the first free nodes, in slurm.conf's
# row-major order; never waiting for a compact set). Prints
# the replay table, for comparing the replay's ratios with the live ones.
replay_table() {
	local t=$1 dir=$OUT/replay-$1 topo conf m rows=()
	mkdir -p "$dir" || die "cannot create $dir"
	"$WORKLOAD" to-swf "$OUT/workload-whole.txt" >"$dir/workload.swf" ||
		die "workload.sh to-swf failed"
	for m in bestfit freelist; do
		"$REPLAY" --trace "$dir/workload.swf" \
			--config "$OUT/locality-$t.conf" -s "$m/rowmajor" \
			--compact-wait 0 --plan-window 0 --plan-hold placement \
			--no-recorded --no-svg -q --out "$dir/model-$m" \
			>"$dir/model-$m.log" 2>&1 ||
			die "locality-replay failed for the $m model: $(tail -n 1 "$dir/model-$m.log")"
		rows+=(--replay "default model ($m)" "$(replay_csv "$dir/model-$m")")
	done
	for topo in "${topos[@]}"; do
		case $topo in
		locality) conf=$OUT/locality-$t.conf ;;
		locality+*) conf=$OUT/locality-$t${topo#locality}.conf ;;
		*) continue ;;
		esac
		"$REPLAY" --trace "$dir/workload.swf" --config "$conf" \
			--plugin topology --no-recorded --no-svg -q \
			--out "$dir/$topo" \
			>"$dir/$topo.log" 2>&1 ||
			die "locality-replay failed for $topo: $(tail -n 1 "$dir/$topo.log")"
		rows+=(--replay "topology/$topo" "$(replay_csv "$dir/$topo")")
	done
	python3 "$REPO/bench/live_report.py" --ideal "$OUT/ideal-$t.txt" \
		--nodes 64 --title "torus $t, whole workload" "${rows[@]}" |
		sed -n '/(replay/,$p'
}

# replay_csv DIR - the per-job CSV of a replay's only row.
replay_csv() {
	ls "$1"/*.csv | grep -v rejected | head -n 1
}

IFS=, read -r -a topos <<<"$TOPOS"
STAMP='+%Y-%m-%d %H:%M:%S'
{
	printf 'select/cons_tres + topology plugins, live - '
	if [ "$REPORT_ONLY" = 1 ]; then
		echo "runs of $(date -r "$OUT/workload-${wls[0]}.txt" "$STAMP")," \
			"report rebuilt $(date "$STAMP")"
	else
		date "$STAMP"
	fi
	if [ "$SHAPE" = two-kinds ]; then
		echo "machine: 64 slurmd, every other row of 4 CPUs and 1000 MB, the" \
			"rest of 8 CPUs and 2000 MB, 2 GPUs each, on one host;" \
			"slurm.conf shape $SHAPE"
	else
		echo "machine: 64 slurmd of 4 CPUs, 1000 MB, 2 GPUs on one host;" \
			"slurm.conf shape $SHAPE"
	fi
	[ "$GPUPART" = 0 ] ||
		echo "partitions: main and gpu, the same 64 nodes; GPU jobs -p gpu"
	echo "slurm: $(/usr/sbin/slurmctld -V)"
	[ "$REPEAT" = 1 ] ||
		echo "rounds: $REPEAT of every row, each on a fresh cluster, in turn"
	echo "workloads: workload.sh gen --seed $SEED --jobs $JOBS" \
		"--max-nodes $MAXN --runtime $RT --limits $LIMITS, whole --gap $GAP," \
		"mixed --mixed --cpus 4 --gpus 2 --gap $MGAP"
	echo "hops: each job's mean pairwise torus hops, over multi-node jobs;"
	echo "x_first: ratio to the first row; x_ideal: to the most compact set"
	echo "the core finds for each size on the empty torus (ideal-TORUS.txt);"
	echo "nodes: nodes per started job; wait and w_p95 over started jobs"
} >"$OUT/report.txt"
for t in "${tori[@]}"; do
	for w in "${wls[@]}"; do
		all=()
		for ((r = 1; r <= REPEAT; r++)); do
			rows=()
			for topo in "${topos[@]}"; do
				[ "$REPORT_ONLY" = 1 ] || run "$t" "$w" "$topo" "$r"
				tag=$(tag "$t" "$w" "$topo" "$r")
				unstarted "$tag"
				rows+=(--run "topology/$topo" "$OUT/$tag.started" \
					"$OUT/$tag.eval" "$OUT/$tag.ids")
			done
			all+=("${rows[@]}")
			ideal "$t" "$OUT/$t-$w-"*.started
			torus "$t"
			round=""
			[ "$REPEAT" = 1 ] || round=", round $r of $REPEAT"
			{
				echo
				python3 "$REPO/bench/live_report.py" \
					--ideal "$OUT/ideal-$t.txt" \
					--title "torus $t, $w workload$round ($TWHAT)" "${rows[@]}"
			} >>"$OUT/report.txt" || die "live_report.py failed"
		done
		[ "$REPEAT" = 1 ] || {
			echo
			python3 "$REPO/bench/live_report.py" --ideal "$OUT/ideal-$t.txt" \
				--medians --title "torus $t, $w workload" "${all[@]}"
		} >>"$OUT/report.txt" || die "live_report.py --medians failed"
		[ "$w" = whole ] || continue
		{
			echo
			replay_table "$t"
		} >>"$OUT/report.txt" || die "the replay of the $t torus failed"
	done
done
cat "$OUT/report.txt"
echo "slurm $("$CLUSTER" version) live-topo: ${#tori[@]} tori x" \
	"${#wls[@]} workloads x ${#topos[@]} topologies, report in $OUT/report.txt"
if [ "$UNSTARTED" -gt 0 ]; then
	echo "$PROG: $UNSTARTED accepted jobs never started (see the tables)" >&2
	exit 1
fi
