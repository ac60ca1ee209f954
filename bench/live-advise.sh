#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# live-advise.sh - the advisor's prediction against a live run: asks
# locality-advise for the best row on a workload, runs that row and the
# site's current plugin live on the same workload (the throwaway 64-node
# 8x8 torus), and prints the predicted mean hops and wait beside the
# measured ones, for the advised row and for the current placement's
# model against the plugin it models. Issue 38's target is the advised
# row's hops within 5% of live. A benchmark, not a test: it never fails
# on the figures.
#
#   bench/live-advise.sh [--plugin select|topology] [--slurm VERSION]
#                        [--seed 1] [--jobs 160] [--max-nodes 24]
#                        [--gap 0.55] [--shape per-row] [--turnaround 1]
#                        [--out DIR] [--build DIR] [-- ADVISE-OPTION...]
#
# --plugin select (the default): select/locality with the advised row
# against select/linear (bench/live-bench.sh, the host's Slurm); the
# current placement is select/linear's model for the shape: freelist on
# the row-major curve for a NodeName line per row or node, bestfit for
# one line (live-bench.sh says why). --plugin topology: locality-advise
# --plugin topology, then select/cons_tres with topology/locality and
# the advised row against cons_tres's own placement (bench/live-topo.sh,
# whole-node jobs, Slurm --slurm, default 24.11, in its Debian root, the
# build in build/slurm-VERSION/obj unless --build); the current
# placement is bestfit on the row-major curve (cons_tres's best fit in
# node order). The workload is workload.sh gen's (live-bench.sh's
# default). --turnaround S goes to locality-advise (default 1: this
# cluster's nodes come back about a second after their job ends, which
# on jobs of a few seconds moves waits and placements; the report prints
# the figure measured on the current plugin's live run, by
# bench/turnaround.py). Options after -- go to
# locality-advise (e.g. --objective wait, --no-sweep). Mean hops are over
# multi-node jobs, as locality-eval and live-bench report them (the
# advisor's mean over all jobs, single-node jobs at 0 hops, scaled by
# jobs over multi-node jobs). Everything lands in --out (default
# build/live-advise): advise/ (advice.txt, ranking.csv), live/ (the
# live run) and report.txt. Two live runs, four to six minutes.

set -u
PROG=live-advise.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORKLOAD=$REPO/testsuite/slurm/workload.sh

SEED=1 JOBS=160 MAXN=24 GAP=0.55 SHAPE=per-row OUT="" BUILD="" PLUGIN=select
TURNAROUND=1
SLURM=""
while [ $# -gt 0 ]; do
	case $1 in
	--plugin) PLUGIN=$2; shift 2 ;;
	--slurm) SLURM=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--max-nodes) MAXN=$2; shift 2 ;;
	--gap) GAP=$2; shift 2 ;;
	--shape) SHAPE=$2; shift 2 ;;
	--turnaround) TURNAROUND=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '4,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$PROG: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
done
die() {
	echo "$PROG: $*" >&2
	exit 1
}

case $PLUGIN in
select) [ -z "$SLURM" ] ||
	die "--slurm: --plugin select runs the host's Slurm (live-bench.sh)" ;;
topology) SLURM=${SLURM:-24.11} ;;
*) die "--plugin: '$PLUGIN' is not select or topology" ;;
esac
[ -n "$BUILD" ] || BUILD=$REPO/build
[ "$PLUGIN" = select ] || [ "$BUILD" != "$REPO/build" ] ||
	BUILD=$("$REPO/tools/slurm-root.sh" build-dir "$SLURM")
OUT=${OUT:-$REPO/build/live-advise}
ADVISE=$BUILD/src/replay/locality-advise

[ -x "$ADVISE" ] || die "$ADVISE missing: build first (scripts/setup.sh)"
case $SHAPE in
single) CURRENT=bestfit/rowmajor ;;
per-row | per-node | weights | shuffled) CURRENT=freelist/rowmajor ;;
*) die "--shape: '$SHAPE' is not single, per-row, per-node, weights or shuffled" ;;
esac
[ "$PLUGIN" = select ] || CURRENT=bestfit/rowmajor
rm -rf "$OUT/advise" "$OUT/live"
mkdir -p "$OUT/advise" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)

WL=$OUT/workload.txt
"$WORKLOAD" gen --seed "$SEED" --jobs "$JOBS" --max-nodes "$MAXN" \
	--gap "$GAP" >"$WL" || die "workload generator failed"
"$WORKLOAD" to-swf "$WL" >"$OUT/workload.swf" || die "workload.sh to-swf failed"

# --- the advice ---------------------------------------------------------------

"$ADVISE" --trace "$OUT/workload.swf" --grid 8x8 --torus yes,yes \
	--current "$CURRENT" --plugin "$PLUGIN" --turnaround "$TURNAROUND" \
	--out "$OUT/advise" -q "$@" \
	>"$OUT/advise/stdout" 2>"$OUT/advise/stderr" ||
	die "locality-advise failed: $(tail -n 2 "$OUT/advise/stderr")"
# The advised row: the one advice.txt marks best.
ROW=$(awk '$NF == "best" { sub(/^ *[0-9]+ +/, ""); sub(/ {2,}.*/, ""); print; exit }' \
	"$OUT/advise/advice.txt")
[ -n "$ROW" ] || die "advice.txt recommends no row: $OUT/advise/advice.txt"

# spec_of ROW - live-bench.sh's configuration for an advice row, e.g.
# "pack+sl cw=10 ct=0.1 pw=10 hold=released" -> pack+sl@10:0.1%10^released.
spec_of() {
	local base cw=0 ct="" pw="" hold="" kv
	read -r base rest <<<"$1"
	for kv in $rest; do
		case $kv in
		cw=*) cw=${kv#cw=} ;;
		ct=*) ct=${kv#ct=} ;;
		pw=*) pw=${kv#pw=} ;;
		hold=*) hold=${kv#hold=} ;;
		*) die "advice row '$1': unknown part '$kv'" ;;
		esac
	done
	printf '%s@%s%s%s%s\n' "$base" "$cw" "${ct:+:$ct}" "${pw:+%$pw}" \
		"${hold:+^$hold}"
}
SPEC=$(spec_of "$ROW")

# csv_field ROW COLUMN - a figure of ranking.csv's line for ROW.
csv_field() {
	awk -F, -v row="$1" -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$2 == row { print $c; exit }' "$OUT/advise/ranking.csv"
}

# --- the live runs ------------------------------------------------------------

# topo_variant - live-topo.sh's topology/locality row for the advised
# row: PlanWindow 0 (every --plugin topology row has it) and PlanHold's
# default, placement, then its locality.conf lines from advice.txt (a
# swept PlanHold among them), each replacing the key before it.
topo_variant() {
	local kv v=locality+PlanWindow=0+PlanHold=placement
	for kv in $(awk '/^locality.conf lines for / { on = 1; next }
		on && /^#/ { exit } on && /^[A-Za-z]+=/ { print }' \
		"$OUT/advise/advice.txt"); do
		v=$v+$kv
	done
	echo "$v"
}

if [ "$PLUGIN" = select ]; then
	LIVE_ROW="locality $SPEC" LIVE_CURRENT=select/linear
	CURRENT_JOBCOMP=$OUT/live/$SHAPE-linear.jobcomp
	TABLE="shape $SHAPE (live)"
	"$REPO/bench/live-bench.sh" --shapes "$SHAPE" --configs "linear,$SPEC" \
		--workload "$WL" --out "$OUT/live" --build "$BUILD" \
		>"$OUT/live.log" 2>&1 ||
		die "live-bench.sh failed: $(tail -n 3 "$OUT/live.log")"
else
	LIVE_ROW=topology/$(topo_variant) LIVE_CURRENT=topology/default
	CURRENT_JOBCOMP=$OUT/live/8x8-whole-default.jobcomp
	TABLE="torus 8x8, whole workload"
	"$REPO/bench/live-topo.sh" --slurm "$SLURM" --tori 8x8 --workloads whole --shape "$SHAPE" \
		--topologies "default,${LIVE_ROW#topology/}" --seed "$SEED" \
		--jobs "$JOBS" --max-nodes "$MAXN" --gap "$GAP" \
		--out "$OUT/live" --build "$BUILD" >"$OUT/live.log" 2>&1 ||
		die "live-topo.sh failed: $(tail -n 3 "$OUT/live.log")"
	cmp -s "$WL" "$OUT/live/workload-whole.txt" ||
		die "live-topo.sh ran another workload than the advice's ($OUT/live/workload-whole.txt)"
fi

# live_row NAME - the line of row NAME in the live table (live-bench's
# "shape S (live)", live-topo's "torus 8x8, whole workload (...) (live)"),
# its name cut off: the columns that follow, whatever spaces the name has.
live_row() {
	awk -v table="$TABLE" -v name="$1" '
		index($0, table) == 1 && / \(live\)$/ { on = 1; next }
		on && $0 == "" { exit }
		on && index($0, name " ") == 1 { print substr($0, length(name) + 1); exit }' \
		"$OUT/live/report.txt"
}

# live_field NAME COLUMN - hops or wait_s of row NAME in the live table:
# live-bench's columns jobs multi hops p95 x_first x_ideal wait makespan
# idle_fit, live-topo's jobs start multi hops p95 x_first x_ideal nodes
# wait w_p95 makespan unstarted.
live_field() {
	live_row "$1" | awk -v col="$2" -v plugin="$PLUGIN" '{
		if (plugin == "select") print (col == "hops" ? $3 : $7)
		else print (col == "hops" ? $4 : $9) }'
}
# The job counts, from the current plugin's row.
read -r jobs multi < <(live_row "$LIVE_CURRENT" | awk -v plugin="$PLUGIN" '{
	if (plugin == "select") print $1, $2; else print $1, $3 }')
[ -n "${multi:-}" ] && [ "$multi" -gt 0 ] ||
	die "no live table '$TABLE' in $OUT/live/report.txt"

{
	echo "locality-advise against live - $(date '+%Y-%m-%d %H:%M:%S')"
	echo "workload.sh gen --seed $SEED --jobs $JOBS --max-nodes $MAXN --gap $GAP ($jobs jobs, $multi multi-node); shape $SHAPE"
	echo "advised row: $ROW (live: $LIVE_ROW); current: $CURRENT (live: $LIVE_CURRENT)"
	echo "hops: mean over multi-node jobs; wait: mean over all jobs"
	echo "the advisor modelled a turnaround of $TURNAROUND s; $LIVE_CURRENT's live run: $("$REPO/bench/turnaround.py" "$CURRENT_JOBCOMP" 2>&1)"
	printf '%-28s %10s %10s %8s %10s %10s\n' row "hops pred" "hops live" \
		"ratio" "wait pred" "wait live"
	for pair in "$ROW|$LIVE_ROW" "$CURRENT|$LIVE_CURRENT"; do
		row=${pair%%|*} live=${pair#*|}
		awk -v row="$row" -v h="$(csv_field "$row" mean_hops)" \
			-v w="$(csv_field "$row" mean_wait_s)" \
			-v hl="$(live_field "$live" hops)" \
			-v wl="$(live_field "$live" wait)" -v n="$jobs" -v m="$multi" '
			BEGIN { hp = h * n / m
				printf "%-28s %10.3f %10.3f %8.3f %9.1fs %9.1fs\n",
					row, hp, hl, hp / hl, w, wl }'
	done
} >"$OUT/report.txt"
cat "$OUT/report.txt"
