#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# live-bench.sh - the product's figure, measured live: the same workload
# through select/linear, select/cons_tres and select/locality (several
# strategies) on the same throwaway 64-node cluster (8x8 torus), in several
# slurm.conf shapes, one run after another. Prints one table per shape
# (mean and p95 over multi-node jobs of each job's mean pairwise hops, the
# ratio to the first row and to the ideal, mean wait, makespan, and
# idle_fit: node-seconds idle while a queued job would have fitted) and the
# replay's figures for the same workload (locality-replay, EASY; for the
# weights shape a second replay with its weight tiers, --node-weight). A
# benchmark, not a test: it never fails on the figures.
#
#   bench/live-bench.sh [--shapes per-node,per-row,weights,shuffled]
#                       [--configs linear,cons_tres,pack@60:0.1%30^released,pack@60:0.1%30,bestfit/hilbert]
#                       [--seed 1] [--jobs 160] [--max-nodes 24] [--gap 0.55]
#                       [--limits fixed] [--workload FILE] [--out DIR]
#                       [--build DIR]
#
# A locality configuration is
# STRATEGY[/CURVE][+WALLTIME][@WAIT[:TOL]][%WINDOW][^HOLD][~NODEWEIGHT]
# (e.g. mm, bestfit/hilbert, mc1x1+sl, pack@30: CompactWait=30, pack@30:0.3
# also CompactTolerance=0.3, pack@30%30 also PlanWindow=30,
# pack@30%30^released also PlanHold=released, pack@30~ignore also
# NodeWeight=ignore); linear and cons_tres are Slurm's plugins. The
# replay's models of select/linear hold the placement
# (PlanHold=placement), as select/linear does.
# The workload is workload.sh gen's seeded stream (node counts log-uniform
# in 1..--max-nodes, runtimes ~5 s, Poisson arrivals --gap s apart),
# or a WORKLOAD file (workload.sh's format) given with --workload (a
# trace slice: workload.sh swf FILE --limits requested > WORKLOAD keeps
# its users' requests as time limits). --limits is gen's: fixed gives
# every job 2 minutes, runtime a job of r seconds r minutes, so running
# jobs' expected ends follow their real ends (for the walltime modes).
# Everything lands in --out (default build/live-bench): each run's
# jobcomp, locality-eval output and slurmctld log, and report.txt.
# Shapes are cluster.sh --shape's: per-node, per-row, weights (per-row,
# the last two rows Weight=100) and shuffled (a line per node, listed out
# of wiring order); the wiring (locality.conf) is name order in all.
# gpu-sparse (a line per node, 2 GPUs on 16 of them, one in four) runs
# the workload with every other job made a GPU job (label g:
# -N min(n,4) --gres=gpu:1; the others, label x: -N n; sbatch options of
# a --workload file are dropped), and its table is live_report.py's
# --run table with each kind's wait and ratio to the ideal, and a line per
# row: GPU jobs given a node without GPUs, GPU jobs seen running (polled
# every 2 s) with no GPU listed by `scontrol show job -d`, and
# "overallocated" or "underflow" lines in slurmctld.log.
# Each run takes two to three minutes (the defaults: 20 runs, about an
# hour). Uses ports 6817 and 17001-17064.

set -u
PROG=live-bench.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER=$REPO/testsuite/slurm/cluster.sh
WORKLOAD=$REPO/testsuite/slurm/workload.sh
ALLNODES="n[001-064]"

SHAPES="per-node,per-row,weights,shuffled"
CONFIGS="linear,cons_tres,pack@60:0.1%30^released,pack@60:0.1%30,bestfit/hilbert"
SEED=1 JOBS=160 MAXN=24 GAP=0.55 WLFILE="" OUT="" BUILD=$REPO/build
LIMITS=fixed
while [ $# -gt 0 ]; do
	case $1 in
	--shapes) SHAPES=$2; shift 2 ;;
	--configs) CONFIGS=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--max-nodes) MAXN=$2; shift 2 ;;
	--gap) GAP=$2; shift 2 ;;
	--limits) LIMITS=$2; shift 2 ;;
	--workload) WLFILE=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	-h | --help) sed -n '4,50p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$PROG: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
done
OUT=${OUT:-$BUILD/live-bench}
EVAL=$BUILD/src/tools/locality-eval
REPLAY=$BUILD/src/replay/locality-replay
PLUGDIR=$BUILD/src/plugins/select/locality/.libs

die() {
	echo "$PROG: $*" >&2
	exit 1
}
say() {
	echo "== $*" >&2
}

[ "$(id -u)" = 0 ] || die "run as root: it starts munged, slurmctld and slurmd"
for f in "$EVAL" "$REPLAY" "$PLUGDIR/select_locality.so"; do
	[ -e "$f" ] || die "$f missing: build first (scripts/setup.sh)"
done
mkdir -p "$OUT/bin" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
# Every run uses the same binaries, even if the build changes meanwhile.
cp --remove-destination "$EVAL" "$REPLAY" "$PLUGDIR/select_locality.so" "$OUT/bin/" ||
	die "cannot copy the binaries into $OUT/bin"
EVAL=$OUT/bin/locality-eval REPLAY=$OUT/bin/locality-replay PLUGDIR=$OUT/bin

CURRENT=""
cleanup() {
	[ -n "$CURRENT" ] && "$CLUSTER" stop --dir "$CURRENT" >/dev/null 2>&1
	CURRENT=""
}
trap cleanup EXIT
trap 'say "interrupted: stopping the cluster"; exit 130' INT TERM

# --- the workload and the ideal -------------------------------------------

WL=$OUT/workload.txt
if [ -n "$WLFILE" ]; then
	[ "$LIMITS" = fixed ] ||
		die "--limits is the generator's; a --workload file has its own limits"
	cp "$WLFILE" "$WL" || die "cannot read $WLFILE"
	WHAT="workload $WLFILE"
else
	"$WORKLOAD" gen --seed "$SEED" --jobs "$JOBS" --max-nodes "$MAXN" \
		--gap "$GAP" --limits "$LIMITS" >"$WL" ||
		die "workload generator failed"
	WHAT="workload.sh gen --seed $SEED --jobs $JOBS --max-nodes $MAXN --gap $GAP --limits $LIMITS"
fi
"$WORKLOAD" to-swf "$WL" >"$OUT/workload.swf" || die "workload.sh to-swf failed"
# The gpu-sparse shape's workload: every other job a GPU job.
awk '/^[0-9]/ { k = $2
	if (NR % 2) { k = k > 4 ? 4 : k
		print $1, k, $3, $4, "g" NR - 1, "-N", k, "--gres=gpu:1" }
	else print $1, k, $3, $4, "x" NR - 1, "-N", k }' "$WL" >"$OUT/workload-gpu.txt" ||
	die "cannot write $OUT/workload-gpu.txt"

# parse_cfg STRATEGY[/CURVE][+WALLTIME][@WAIT[:TOL]][%WINDOW][^HOLD][~NODEWEIGHT]
# - sets S C W CW CT PW PH NW (strategy, curve, walltime mode, CompactWait,
# CompactTolerance, PlanWindow, PlanHold, NodeWeight).
parse_cfg() {
	local spec=$1
	NW=tiers PW=0 PH=placement
	case $spec in *~*) NW=${spec#*~}; spec=${spec%%~*} ;; esac
	case $spec in *^*) PH=${spec#*^}; spec=${spec%%^*} ;; esac
	case $spec in *%*) PW=${spec#*%}; spec=${spec%%%*} ;; esac
	CW=0 CT=0.2
	case $spec in *@*) CW=${spec#*@}; spec=${spec%%@*} ;; esac
	case $CW in *:*) CT=${CW#*:}; CW=${CW%%:*} ;; esac
	W=none
	case $spec in *+*) W=${spec#*+}; spec=${spec%%+*} ;; esac
	S=$spec C=hilbert
	case $S in */*) C=${S#*/}; S=${S%%/*} ;; esac
}

# tag_of CONFIG - a file name for the configuration.
tag_of() {
	echo "$1" | tr '/+@:%^~' '_______'
}

# conf_for CONFIG FILE - the locality.conf of a configuration.
conf_for() {
	parse_cfg "$1"
	# The wiring is name order whatever order slurm.conf lists nodes in.
	printf 'Dimensions=8x8\nTorus=yes\nNodeName=%s Coords=0,0\nStrategy=%s\nCurve=%s\nWalltimeAware=%s\nCompactWait=%s\nCompactTolerance=%s\nPlanWindow=%s\nPlanHold=%s\nNodeWeight=%s\n' \
		"$ALLNODES" "$S" "$C" "$W" "$CW" "$CT" "$PW" "$PH" "$NW" >"$2"
}

# The ideal for k nodes: the most compact set any of the core's exact or
# near-exact strategies finds on the empty torus (locality-eval --ideal).
conf_for mm "$OUT/base.conf"
awk '$2 > 1 { print $2 }' "$WL" "$OUT/workload-gpu.txt" | sort -un | while read -r k; do
	"$EVAL" --conf "$OUT/base.conf" --nodes "$ALLNODES" --ideal -k "$k" ||
		exit 1
done >"$OUT/ideal.txt" || die "locality-eval --ideal failed"

# --- the live runs --------------------------------------------------------

# gpu_poll TAG - the running jobs' `scontrol show job -d` lines, every 2 s
# until TAG.waited exists, into TAG.running.
gpu_poll() {
	while [ ! -f "$OUT/$1.waited" ]; do
		scontrol -d -o show job 2>/dev/null | grep 'JobState=RUNNING'
		sleep 2
	done >"$OUT/$1.running"
}

# gpu_devices TAG - the gpu-sparse checks of a finished run whose cluster
# is still up, into TAG.gpu.
gpu_devices() {
	local tag=$1 gpus nodes off=0 bare
	gpus=$(scontrol show nodes -o | sed -n 's/^NodeName=\([^ ]*\) .*Gres=gpu:2 .*/\1/p')
	while read -r nodes; do
		scontrol show hostnames "$nodes" | grep -qvxF "$gpus" && off=$((off + 1))
	done < <(sed -n 's/.* Name=g[0-9]* .* NodeList=\([^ ]*\) .*/\1/p' "$OUT/$tag.jobcomp")
	# The last poll of each GPU job names its devices, or names none.
	bare=$(grep ' JobName=g[0-9]' "$OUT/$tag.running" |
		awk '{ id = $1; has[id] = ($0 ~ /GRES=gpu:[1-9][0-9]*\(IDX:/) }
		     END { for (id in has) if (!has[id]) n++; print n + 0 }')
	printf '%s: GPU jobs on a node without GPUs %d, GPU jobs seen running with no GPU listed %d (of %d seen), overallocated/underflow lines %d\n' \
		"$tag" "$off" "$bare" \
		"$(grep ' JobName=g[0-9]' "$OUT/$tag.running" | awk '{ print $1 }' | sort -u | grep -c .)" \
		"$(grep -c 'overallocated\|underflow' "$CURRENT/log/slurmctld.log")" >"$OUT/$tag.gpu"
}

# run SHAPE CONFIG - the workload on a fresh cluster; keeps its records.
run() {
	local shape=$1 cfg=$2 tag dir args t0 sel=locality wl=$WL
	tag=$shape-$(tag_of "$cfg")
	dir=$OUT/run/$tag
	args=(start --dir "$dir" --shape "$shape" --debug debug)
	if [ "$shape" = gpu-sparse ]; then
		args+=(--gpus 2)
		wl=$OUT/workload-gpu.txt
	fi
	case $cfg in
	linear | cons_tres) sel=$cfg ;;
	*) conf_for "$cfg" "$OUT/$tag.conf"
	   args+=(--plugin-dir "$PLUGDIR" --locality-conf "$OUT/$tag.conf") ;;
	esac
	args+=(--select "$sel")
	[ "$sel" = cons_tres ] && args+=(--extra "SelectTypeParameters=CR_Core")
	say "$shape / $cfg: starting the cluster"
	"$CLUSTER" "${args[@]}" >"$OUT/$tag.start.log" 2>&1 ||
		die "cluster did not start: $(tail -n 3 "$OUT/$tag.start.log")"
	CURRENT=$dir
	export SLURM_CONF=$dir/etc/slurm.conf
	t0=$SECONDS
	rm -f "$OUT/$tag.waited"
	[ "$shape" = gpu-sparse ] && gpu_poll "$tag" &
	(cd "$dir/out" && "$WORKLOAD" submit "$wl" "$OUT/$tag.ids") ||
		die "submission failed"
	"$WORKLOAD" wait "$OUT/$tag.ids" 900 || die "jobs did not finish"
	touch "$OUT/$tag.waited"
	wait
	sleep 1
	cp "$dir/jobcomp.txt" "$OUT/$tag.jobcomp"
	cp "$dir/log/slurmctld.log" "$OUT/$tag.slurmctld.log"
	[ "$shape" = gpu-sparse ] && gpu_devices "$tag"
	cleanup
	"$EVAL" --conf "$OUT/base.conf" --nodes "$ALLNODES" \
		--jobcomp "$OUT/$tag.jobcomp" >"$OUT/$tag.eval" ||
		die "locality-eval failed on $OUT/$tag.jobcomp"
	say "$shape / $cfg: done in $((SECONDS - t0)) s"
}

# --- the replay of the same workload ----------------------------------------

# replay_all DIR [--node-weight ...] - the replay of every locality
# configuration and of select/linear's models into DIR; sets replay_args
# for live_report.py.
replay_all() {
	local dir=$1 cfg csv m
	shift
	replay_args=()
	mkdir -p "$dir"
	for cfg in "${cfgs[@]}"; do
		case $cfg in linear | cons_tres) continue ;; esac
		parse_cfg "$cfg"
		"$REPLAY" --trace "$OUT/workload.swf" --config "$OUT/base.conf" \
			-s "$S/$C" -w "$W" --compact-wait "$CW" \
			--compact-tolerance "$CT" --plan-window "$PW" \
			--plan-hold "$PH" "$@" \
			--no-recorded --no-svg -q \
			--out "$dir/$(tag_of "$cfg")" >/dev/null 2>&1 ||
			die "locality-replay failed for $cfg"
	done
	# select/linear in the replay. With one NodeName line it takes the
	# best fit among runs of consecutive free node numbers (bestfit on
	# the row-major curve); with a line per node or row slurmctld offers
	# it one line at a time, so it takes the first free nodes in
	# slurm.conf order (freelist on the row-major curve).
	for m in bestfit freelist; do
		"$REPLAY" --trace "$OUT/workload.swf" --config "$OUT/base.conf" \
			-s "$m/rowmajor" --plan-hold placement "$@" \
			--no-recorded --no-svg -q \
			--out "$dir/linear-$m" >/dev/null 2>&1 ||
			die "locality-replay failed for the linear model ($m)"
		replay_args+=(--replay "linear model ($m/rowmajor)" \
			"$(ls "$dir/linear-$m"/*.csv | grep -v rejected | head -n 1)")
	done
	for cfg in "${cfgs[@]}"; do
		case $cfg in linear | cons_tres) continue ;; esac
		csv=$(ls "$dir/$(tag_of "$cfg")"/*.csv | grep -v rejected | head -n 1)
		replay_args+=(--replay "locality $cfg" "$csv")
	done
}

IFS=, read -r -a cfgs <<<"$CONFIGS"
replay_all "$OUT/replay"
plain_replay_args=("${replay_args[@]}")
# The weights shape's tiers, as slurm.conf gives them (cluster.sh).
case ",$SHAPES," in
*,weights,*)
	replay_all "$OUT/replay-weights" --node-weight "n[049-064]=100"
	weights_replay_args=("${replay_args[@]}") ;;
esac

IFS=, read -r -a shapes <<<"$SHAPES"
{
	echo "select/locality live benchmark - $(date '+%Y-%m-%d %H:%M:%S')"
	echo "machine: 64 slurmd on one host, 8x8 torus; $WHAT ($(grep -c . "$WL") jobs)"
	echo "slurm: $(/usr/sbin/slurmctld -V)"
	echo "hops: each job's mean pairwise torus hops, over multi-node jobs;"
	echo "x_first: ratio to the first row; x_ideal: to the most compact set"
	echo "the core finds for each size on an empty torus (ideal.txt)"
} >"$OUT/report.txt"
for shape in "${shapes[@]}"; do
	live_args=() run_args=()
	for cfg in "${cfgs[@]}"; do
		run "$shape" "$cfg"
		tag=$shape-$(tag_of "$cfg")
		case $cfg in
		linear | cons_tres) name="select/$cfg" ;;
		*) name="locality $cfg" ;;
		esac
		live_args+=(--live "$name" "$OUT/$tag.jobcomp" "$OUT/$tag.eval")
		run_args+=(--run "$name" "$OUT/$tag.jobcomp" "$OUT/$tag.eval" "$OUT/$tag.ids")
	done
	{
		echo
		if [ "$shape" = gpu-sparse ]; then
			python3 "$REPO/bench/live_report.py" --ideal "$OUT/ideal.txt" \
				--title "shape gpu-sparse (workload-gpu.txt)" "${run_args[@]}"
			for cfg in "${cfgs[@]}"; do
				cat "$OUT/$shape-$(tag_of "$cfg").gpu"
			done
		else
			python3 "$REPO/bench/live_report.py" --ideal "$OUT/ideal.txt" --nodes 64 \
				--title "shape $shape" "${live_args[@]}"
		fi
	} >>"$OUT/report.txt"
done
{
	echo
	python3 "$REPO/bench/live_report.py" --ideal "$OUT/ideal.txt" --nodes 64 \
		--title "replay" "${plain_replay_args[@]}" | sed -n '/(replay/,$p'
	if [ -n "${weights_replay_args+set}" ]; then
		echo
		python3 "$REPO/bench/live_report.py" --ideal "$OUT/ideal.txt" --nodes 64 \
			--title "replay, weights shape (--node-weight n[049-064]=100)" \
			"${weights_replay_args[@]}" | sed -n '/(replay/,$p'
	fi
} >>"$OUT/report.txt"
cat "$OUT/report.txt"
echo "slurm $("$CLUSTER" version) live-bench: ${#shapes[@]} shapes x ${#cfgs[@]} configurations, report in $OUT/report.txt"
