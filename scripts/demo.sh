#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo.sh - select/locality end to end on this machine, from a fresh clone:
# installs what is needed, builds the project in build/, starts a
# throwaway 64-node Slurm cluster (an 8x8 torus) with select/locality,
# replays a time-compressed workload, then the same workload under
# select/linear and select/cons_tres (and, on Slurm 24.11, under
# select/cons_tres with topology/locality), and prints each job's nodes and
# locality, a side-by-side summary with the ratios measured in this run,
# and a picture of the grid. slurm.conf is written as many sites write it:
# one NodeName line per row of the torus, the last two rows a heavier
# Weight tier (bigmem nodes used last); --shape picks another. Every daemon it starts is stopped by
# PID when it ends (or is interrupted). Needs root (apt, munge, slurmd).
#
#   scripts/demo.sh [--slurm VERSION] [--trace FILE] [--synthetic]
#                   [--jobs N] [--seed S] [--hour SEC] [--shape SHAPE]
#                   [--no-install] [--keep] [--report-only]
#
#   --slurm V      the Slurm version the clusters run: 22.05, 24.11 or
#                  26.05 (default: the host's, 22.05 on Debian 12); another
#                  version runs in its Debian root (tools/slurm-root.sh,
#                  made on first use) with the plugin built against it.
#                  26.05 (no select plugin of ours since 25.05) runs the
#                  mixed cons_tres workload (core, whole-node and GPU jobs)
#                  on a 4x4x4 torus under topology/flat, torus3d and
#                  locality, and prints locality's ratios to the other two
#                  measured in that run; its source must be given
#                  (LOC_SLURM_SOURCE, doc/slurm-versions.md)
#   --trace FILE   an SWF trace (.swf or .swf.gz) or an sacct --parsable2
#                  export to replay; default: the first 200 jobs of
#                  ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz (IBM SP2,
#                  100 nodes, scaled to 64: 158 multi-node jobs) next to
#                  the repository if present, else a synthetic workload
#   --synthetic    use the built-in seeded generator even if a trace exists
#   --jobs N       synthetic jobs (default 160); for a trace, the first N
#                  (default 200)
#   --seed S       generator seed (default 1)
#   --hour SEC     seconds one trace hour becomes (default 1)
#   --shape SHAPE  slurm.conf shape (testsuite/slurm/cluster.sh --shape;
#                  default weights)
#   --no-install   do not call apt-get (everything must be there)
#   --keep         keep build/demo/run (logs, slurm.conf) afterwards
#   --report-only  print the report of the last run again (no cluster)
#
# The report is also written to build/demo/report.txt
# (build/slurm-VERSION/demo/report.txt for another version than the host's).

set -u

PROG=demo.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
ROOTS=$REPO/tools/slurm-root.sh
CLUSTER=$REPO/testsuite/slurm/cluster.sh
WORKLOAD=$REPO/testsuite/slurm/workload.sh
NODES=64
ALLNODES="n[001-064]"

TRACE="" SYNTH=0 JOBS="" SEED=1 HOUR=1 INSTALL=1 KEEP=0 REPORT_ONLY=0
SHAPE=weights SLURM=""
ARGS=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--slurm) SLURM=$2; shift 2 ;;
	--trace) TRACE=$2; shift 2 ;;
	--synthetic) SYNTH=1; shift ;;
	--jobs) JOBS=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--hour) HOUR=$2; shift 2 ;;
	--shape) SHAPE=$2; shift 2 ;;
	--no-install) INSTALL=0; shift ;;
	--keep) KEEP=1; shift ;;
	--report-only) REPORT_ONLY=1; shift ;;
	-h | --help) sed -n '4,46p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$PROG: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
done

say() {
	echo "== $*" >&2
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

HOST=$("$ROOTS" host-version)
SLURM=${SLURM:-$HOST}
"$ROOTS" versions | grep -qx -- "$SLURM" ||
	die "--slurm $SLURM: supported versions are $("$ROOTS" versions | paste -sd' ')"
if [ "$SLURM" = "$HOST" ]; then
	BUILD=$REPO/build
	DEMO=$BUILD/demo
else
	BUILD=$REPO/build/slurm-$SLURM/obj
	DEMO=$REPO/build/slurm-$SLURM/demo
fi
EVAL=$BUILD/src/tools/locality-eval
PLUGDIR=$BUILD/src/plugins/select/locality/.libs
# topology/locality (24.11, 26.05): a fourth run, select/cons_tres with it.
TPLUGDIR=$BUILD/src/plugins/topology/locality/.libs
LCONF=$DEMO/locality.conf
WL=$DEMO/workload.txt

# Slurm 25.05 and later: no select plugin of ours (doc/slurm-versions.md),
# so the demo is the mixed cons_tres workload (core, whole-node and GPU
# jobs) on a 4x4x4 torus under topology/flat, topology/torus3d and
# topology/locality, one fresh cluster each (bench/live-topo.sh), and
# topology/locality's ratios to the other two measured in that run.
topology_demo() {
	local out=$DEMO/topo report rc=0
	# shellcheck disable=SC2054 # the commas are in --topologies' value
	local opts=(--slurm "$SLURM" --tori 4x4x4 --workloads mixed
		--topologies flat,torus3d,locality --out "$out")
	[ "$REPORT_ONLY" = 0 ] || opts+=(--report-only)
	say "the mixed workload on a 4x4x4 torus: topology/flat, torus3d and locality (bench/live-topo.sh, about 8 min)"
	"$REPO/bench/live-topo.sh" "${opts[@]}" >"$DEMO/live-topo.log" 2>&1 || rc=$?
	report=$out/report.txt
	[ -f "$report" ] && [ $rc -le 1 ] ||
		die "bench/live-topo.sh failed: $(tail -n 3 "$DEMO/live-topo.log")"
	{
		cat "$report"
		echo
		awk '
		$1 == "topology/flat" { fh = $5; fw = $10 }
		$1 == "topology/locality" { lh = $5; lw = $10 }
		$1 == "topology/torus3d" { tjobs = $2; tstart = $3 }
		/^on the .* topology\/torus3d started, hops:/ {
			n = $3
			for (i = 1; i <= NF; i++) {
				if ($i == "topology/torus3d") th = $(i + 1)
				if ($i == "topology/locality") tlh = $(i + 1)
			}
			sub(/,$/, "", th); sub(/,$/, "", tlh)
		}
		/^on the .* topology\/torus3d started, wait/ {
			m = $3
			for (i = 1; i <= NF; i++) {
				if ($i == "topology/torus3d") tw = $(i + 1)
				if ($i == "topology/locality") tlw = $(i + 1)
			}
			sub(/,$/, "", tw); sub(/,$/, "", tlw)
		}
		END {
			printf "topology/locality against topology/flat, every job: mean hops %.3fx, mean wait %.2fx\n", lh / fh, lw / fw
			if (th != "")
				printf "topology/locality against topology/torus3d, on the jobs torus3d served (%d multi-node, %d in all): mean hops %.3fx, mean wait %.2fx (torus3d started %d of %d jobs: its waits are those of a lighter load)\n", n, m, tlh / th, tlw / tw, tstart, tjobs
		}' "$report"
	} | tee "$DEMO/report.txt"
	say "report written to $DEMO/report.txt; all daemons stopped"
}
if [ "$REPORT_ONLY" = 1 ] && [ ! -f "$PLUGDIR/select_locality.so" ] &&
	[ -f "$TPLUGDIR/topology_locality.so" ]; then
	topology_demo
	exit 0
fi

if [ "$REPORT_ONLY" = 0 ]; then

[ "$(id -u)" = 0 ] || die "run as root (sudo $0): it installs packages and starts munged, slurmctld and slurmd"

# --- 1. packages, Slurm source, the build (scripts/setup.sh) -----------

mkdir -p "$DEMO" || die "cannot create $DEMO"
if [ "${LOC_SLURM_ROOT:-}" != "$SLURM" ]; then
	say "setup: packages, Slurm $SLURM source, build in ${BUILD#"$REPO"/}"
	setup_opts="--quiet --slurm $SLURM"
	[ "$INSTALL" = 1 ] || setup_opts="$setup_opts --no-install"
	rc=0
	# shellcheck disable=SC2086
	"$REPO/scripts/setup.sh" $setup_opts || rc=$?
	[ $rc != 3 ] || die "no source of Slurm $SLURM to build against: set LOC_SLURM_SOURCE to a tree of a $SLURM release inside the repository (doc/slurm-versions.md)"
	[ $rc = 0 ] || die "setup failed (see the log above)"
fi
# Another version's clusters run in its Debian root: the rest of this
# script runs there, with the trace's directory in view.
if [ "$SLURM" != "$HOST" ] && [ "${LOC_SLURM_ROOT:-}" != "$SLURM" ]; then
	binds=()
	if [ -n "$TRACE" ]; then
		[ -r "$TRACE" ] || die "cannot read trace $TRACE"
		binds=(--bind "$(cd "$(dirname "$TRACE")" && pwd)")
	elif [ -d "$REPO/../shared/traces" ]; then
		binds=(--bind "$REPO/../shared/traces")
	fi
	say "Slurm $SLURM: continuing in its Debian root ($("$ROOTS" root "$SLURM"))"
	exec "$ROOTS" run "$SLURM" "${binds[@]}" -- "$REPO/scripts/demo.sh" "${ARGS[@]}"
fi

[ -x "$EVAL" ] || die "locality-eval was not built ($EVAL)"

if [ ! -f "$PLUGDIR/select_locality.so" ] &&
	[ -f "$TPLUGDIR/topology_locality.so" ]; then
	topology_demo
	exit 0
fi

[ -f "$PLUGDIR/select_locality.so" ] ||
	die "select_locality.so was not built (see $DEMO/make.log and $DEMO/configure.log)"

# --- 2. the workload ----------------------------------------------------

if [ -z "$TRACE" ] && [ "$SYNTH" = 0 ] &&
	[ -f "$REPO/../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz" ]; then
	TRACE=$REPO/../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz
	JOBS=${JOBS:-200}
fi
[ "$SYNTH" = 1 ] && TRACE=""
if [ -n "$TRACE" ]; then
	[ -r "$TRACE" ] || die "cannot read trace $TRACE"
	kind=$(LOC_BUILD_DIR=$BUILD "$WORKLOAD" format "$TRACE") ||
		die "could not read $TRACE"
	WHAT="trace $(basename "$TRACE") ($kind, 1 trace hour = ${HOUR} s, runtimes clamped to 1-20 s, sizes scaled to $NODES nodes)"
	# workload.sh reads the trace with this build's locality-replay
	LOC_BUILD_DIR=$BUILD "$WORKLOAD" "$kind" "$TRACE" --nodes "$NODES" --hour "$HOUR" \
		${JOBS:+--max-jobs "$JOBS"} >"$WL" ||
		die "could not read $TRACE"
else
	WHAT="synthetic workload (seed $SEED: ${JOBS:-160} jobs, 1-24 nodes, lognormal runtimes ~5 s, Poisson arrivals, offered load ~1.2)"
	"$WORKLOAD" gen --seed "$SEED" --jobs "${JOBS:-160}" --max-nodes 24 \
		--gap 0.55 --runtime 5 >"$WL" || die "workload generator failed"
fi
njobs=$(grep -c . "$WL")
last=$(tail -n 1 "$WL" | awk '{printf "%.0f", $1 / 1000}')
say "workload: $WHAT: $njobs jobs over ${last} s"
echo "$WHAT" >"$DEMO/workload.what"

# --- 3. the two clusters ------------------------------------------------

RUN=$DEMO/run
CURRENT=""
cleanup() {
	if [ -n "$CURRENT" ]; then
		"$CLUSTER" stop --dir "$CURRENT" >/dev/null 2>&1
		CURRENT=""
	fi
}
trap cleanup EXIT
trap 'echo; say "interrupted: stopping the cluster"; exit 130' INT TERM

cat >"$LCONF" <<'EOF'
# The demo machine: 64 nodes n001..n064 on an 8x8 torus, row-major in
# node-name order; the recommended policy (doc/performance.md): pack
# placement, a wait of up to 60 s (half the jobs' 2-minute time limit)
# for a set within 10% of the most compact one, backfill's plans made in
# 30-second windows of end times, as select/cons_tres makes them, and a
# later start holding the nodes running jobs release, not free ones.
Dimensions=8x8
Torus=yes
Strategy=pack
Curve=hilbert
CompactWait=60
CompactTolerance=0.1
PlanWindow=30
PlanHold=released
EOF

# run_one NAME SELECT - starts the cluster, replays the workload, keeps the
# jobcomp records, stops the cluster.
run_one() {
	local name=$1 sel=$2 dir=$RUN/$1 t0 args what=select/$2
	args=(start --dir "$dir" --nodes "$NODES" --select "$sel" --shape "$SHAPE")
	[ "$sel" = locality ] && args+=(--plugin-dir "$PLUGDIR" --locality-conf "$LCONF")
	[ "$sel" = cons_tres ] && args+=(--extra SelectTypeParameters=CR_Core)
	if [ "$sel" = topology ]; then
		what="select/cons_tres + topology/locality"
		args=(start --dir "$dir" --nodes "$NODES" --select cons_tres
			--topology locality --shape "$SHAPE" --plugin-dir "$TPLUGDIR"
			--locality-conf "$LCONF" --extra SelectTypeParameters=CR_Core)
	fi
	say "$what: starting $NODES slurmd + slurmctld"
	"$CLUSTER" "${args[@]}" >&2 || die "the $what cluster did not start"
	CURRENT=$dir
	export SLURM_CONF=$dir/etc/slurm.conf
	t0=$SECONDS
	say "$what: submitting $njobs jobs (time-compressed)"
	(cd "$dir/out" && "$WORKLOAD" submit "$WL" "$DEMO/$name.ids") ||
		die "submission failed"
	say "$what: waiting for the last jobs"
	"$WORKLOAD" wait "$DEMO/$name.ids" 900 || die "jobs did not finish"
	sleep 1
	cp "$dir/jobcomp.txt" "$DEMO/$name.jobcomp"
	say "$what: done in $((SECONDS - t0)) s"
	cleanup
}

run_one locality locality
run_one linear linear
run_one cons_tres cons_tres
rm -f "$DEMO/topology.jobcomp"
[ ! -f "$TPLUGDIR/topology_locality.so" ] || run_one topology topology
echo "$SHAPE" >"$DEMO/shape"

else
	for f in "$EVAL" "$LCONF" "$WL" "$DEMO/workload.what" \
		"$DEMO/locality.jobcomp" "$DEMO/linear.jobcomp" \
		"$DEMO/cons_tres.jobcomp" "$DEMO/shape"; do
		[ -e "$f" ] || die "--report-only: $f missing (run the demo first)"
	done
	WHAT=$(cat "$DEMO/workload.what")
	SHAPE=$(cat "$DEMO/shape")
	njobs=$(grep -c . "$WL")
fi

# --- 4. the report ------------------------------------------------------

E=("$EVAL" --conf "$LCONF" --nodes "$ALLNODES")
"${E[@]}" --jobcomp "$DEMO/locality.jobcomp" >"$DEMO/locality.eval" ||
	die "locality-eval failed on the locality run"
"${E[@]}" --jobcomp "$DEMO/linear.jobcomp" >"$DEMO/linear.eval" ||
	die "locality-eval failed on the linear run"
"${E[@]}" --jobcomp "$DEMO/cons_tres.jobcomp" >"$DEMO/cons_tres.eval" ||
	die "locality-eval failed on the cons_tres run"
TOPO_LIVE=()
if [ -f "$DEMO/topology.jobcomp" ]; then
	"${E[@]}" --jobcomp "$DEMO/topology.jobcomp" >"$DEMO/topology.eval" ||
		die "locality-eval failed on the cons_tres + topology/locality run"
	TOPO_LIVE=(--live "cons_tres+topology/locality" "$DEMO/topology.jobcomp"
		"$DEMO/topology.eval")
fi

# One line per job in submission order, joined on the workload label:
# label k | locality avg hops, comps, nodes | linear avg hops, comps, nodes
per_job() {
	awk '
	FNR == 1 { f++ }
	f == 1 { order[++n] = $1; idloc[$2] = $1; next }
	f == 2 { idlin[$2] = $1; next }
	f == 3 && ($1 in idloc) {
		l = idloc[$1]; k[l] = $2; lh[l] = $3; lc[l] = $6; ln[l] = $7; next
	}
	f == 4 && ($1 in idlin) {
		l = idlin[$1]; rh[l] = $3; rc[l] = $6; rn[l] = $7; next
	}
	END {
		printf "%-12s %3s | %8s %5s  %-24s | %8s %5s  %s\n", "job", "k",
			"avg_hops", "comps", "select/locality nodes",
			"avg_hops", "comps", "select/linear nodes"
		for (i = 1; i <= n; i++) {
			l = order[i]
			if (!(l in k)) continue
			printf "%-12s %3d | %8.3f %5d  %-24s | %8s %5s  %s\n", l, k[l],
				lh[l], lc[l], ln[l], (l in rh) ? rh[l] : "-",
				(l in rc) ? rc[l] : "-", (l in rn) ? rn[l] : "-"
		}
	}' "$DEMO/locality.ids" "$DEMO/linear.ids" "$DEMO/locality.eval" \
		"$DEMO/linear.eval"
}

summary_table() {
	awk '
	/^summary:/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[FILENAME, kv[1]] = kv[2] }
		f[++nf] = FILENAME
	}
	function ratio(x, y) { return (y + 0 != 0) ? sprintf("%.2f", x / y) : "-" }
	END {
		split("jobs multinode mean_avg_hops median_avg_hops p95_avg_hops max_avg_hops mean_components mean_span mean_bbox", keys, " ")
		printf "%-16s %10s %10s %10s %10s %10s\n", "metric", "locality",
			"linear", "cons_tres", "loc/linear", "loc/cons"
		for (i = 1; i in keys; i++) {
			x = v[f[1], keys[i]]; y = v[f[2], keys[i]]; z = v[f[3], keys[i]]
			r1 = ratio(x, y); r2 = ratio(x, z)
			if (keys[i] == "jobs" || keys[i] == "multinode") r1 = r2 = ""
			printf "%-16s %10s %10s %10s %10s %10s\n", keys[i], x, y, z, r1, r2
		}
	}' "$DEMO/locality.eval" "$DEMO/linear.eval" "$DEMO/cons_tres.eval"
}

# Waits and makespans too, and the ratios measured in this run; x_ideal
# divides by the most compact set of each job's size (locality-eval
# --ideal, from the sizes the locality run placed).
side_by_side() {
	"${E[@]}" --ideal --jobcomp "$DEMO/locality.jobcomp" >"$DEMO/ideal.txt" ||
		die "locality-eval --ideal failed"
	python3 "$REPO/bench/live_report.py" --nodes "$NODES" \
		--ideal "$DEMO/ideal.txt" \
		--title "The same submissions, side by side" \
		--live "select/linear" "$DEMO/linear.jobcomp" "$DEMO/linear.eval" \
		--live "select/cons_tres" "$DEMO/cons_tres.jobcomp" "$DEMO/cons_tres.eval" \
		--live "select/locality" "$DEMO/locality.jobcomp" "$DEMO/locality.eval" \
		${TOPO_LIVE[@]+"${TOPO_LIVE[@]}"}
}

# The two grids side by side at each run's busiest moment, job letters
# explained below each (the legend names the workload label).
pictures() {
	local a b rows=8
	a=$("${E[@]}" --jobcomp --name --quiet --picture "$DEMO/locality.jobcomp" |
		grep -v '^summary:')
	b=$("${E[@]}" --jobcomp --name --quiet --picture "$DEMO/linear.jobcomp" |
		grep -v '^summary:')
	echo "The torus at each run's busiest moment (one letter per job, '.' idle):"
	printf '  %-22s %s\n' "select/locality" "select/linear"
	paste -d' ' <(echo "$a" | sed -n "2,$((rows + 1))p" | sed 's/^/  /' |
		awk '{ printf "%-24s\n", $0 }') \
		<(echo "$b" | sed -n "2,$((rows + 1))p")
	echo "select/locality: $(echo "$a" | head -n 1 | sed 's/^grid .*nodes=[0-9]*, //')"
	echo "$a" | sed -n "$((rows + 2)),\$p" | sed 's/^/  /'
	echo "select/linear: $(echo "$b" | head -n 1 | sed 's/^grid .*nodes=[0-9]*, //')"
	echo "$b" | sed -n "$((rows + 2)),\$p" | sed 's/^/  /'
}

{
	echo "select/locality demo - $(date '+%Y-%m-%d %H:%M:%S')"
	echo "machine: $NODES nodes $ALLNODES, 8x8 torus; slurm.conf shape $SHAPE (testsuite/slurm/cluster.sh);"
	echo "         select/locality Strategy=pack Curve=hilbert CompactWait=60 CompactTolerance=0.1 PlanWindow=30 PlanHold=released"
	echo "workload: $WHAT, $njobs jobs"
	echo "locality: avg_hops = mean hop distance over the job's node pairs (lower is better);"
	echo "          comps = connected pieces of the job on the torus (1 = one piece)"
	echo
	per_job
	echo
	echo "Summary over the same submissions (avg-hop figures over multi-node jobs):"
	summary_table
	echo
	side_by_side
	echo
	pictures
	echo
	"$EVAL" --check-overlap --jobcomp "$DEMO/locality.jobcomp" | sed 's/^/select\/locality /'
} | tee "$DEMO/report.txt"

[ "$KEEP" = 1 ] || [ "$REPORT_ONLY" = 1 ] || rm -rf "$DEMO/run"
if [ "$REPORT_ONLY" = 1 ]; then
	say "report written to $DEMO/report.txt"
else
	say "report written to $DEMO/report.txt; all daemons stopped"
fi
