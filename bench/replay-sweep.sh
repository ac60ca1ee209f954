#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# replay-sweep.sh - policies compared in the replay before they are tried
# live: the live benchmark's workload (workload.sh gen: 160 jobs of 1-24
# nodes, about 5 s each, offered load 1.2 on an 8x8 torus) for several
# seeds, each replayed (locality-replay, EASY) with every configuration
# given and with the linear model (bestfit on the row-major curve, what
# select/linear does with one NodeName line). A benchmark: prints figures,
# never fails on them.
#
#   bench/replay-sweep.sh [--seeds 1,2,3,4,5] [--gap 0.55] [--weights]
#                         [--pad SEC] [--out DIR] [--build DIR] CONFIG...
#
# CONFIG is STRATEGY[/CURVE][@WAIT[:TOL]][%WINDOW][^HOLD][+WALLTIME]
# (pack@30:0.1%30 is Strategy=pack CompactWait=30 CompactTolerance=0.1
# PlanWindow=30; ^released adds PlanHold=released). The linear model
# holds the placement (PlanHold=placement), as select/linear does. For
# each it prints
# the mean over the seeds of the hops and of the ratio to the linear model of the same
# seed (the worst seed in brackets) for the mean over multi-node jobs of
# each job's mean pairwise hops and for the mean wait, and the mean of
# the seeds' 95th percentile of hops. --weights replays the live
# benchmark's weights shape: the last two rows weigh 100, the others 1
# (--node-weight), so every job, the linear model's too, uses the light
# rows first (NodeWeight=tiers). --pad adds SEC seconds to every job's
# run time: on the live cluster a node stands idle between two jobs while
# the first completes and until the scheduler's next pass, which the
# replay otherwise does not model.

set -u
PROG=replay-sweep.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
SEEDS=1,2,3,4,5 GAP=0.55 OUT="" BUILD=$REPO/build WEIGHTS=() PAD=0
while [ $# -gt 0 ]; do
	case $1 in
	--seeds) SEEDS=$2; shift 2 ;;
	--gap) GAP=$2; shift 2 ;;
	--weights) WEIGHTS=(--node-weight '[48-63]=100'); shift ;;
	--pad) PAD=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	-h | --help) sed -n '4,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "$PROG: unknown option $1 (try --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "$PROG: no configuration given (try --help)" >&2; exit 2; }
REPLAY=$BUILD/src/replay/locality-replay
[ -x "$REPLAY" ] || { echo "$PROG: $REPLAY missing: build first" >&2; exit 1; }
OUT=${OUT:-$BUILD/replay-sweep}
mkdir -p "$OUT" || exit 1
printf 'Dimensions=8x8\nTorus=yes\nStrategy=pack\nCurve=hilbert\n' >"$OUT/base.conf"

# run SEED CONFIG DIR - one replay.
run() {
	local spec=$2 s w=none cw=0 ct=0.2 pw=0 ph=placement
	case $spec in *+*) w=${spec#*+}; spec=${spec%%+*} ;; esac
	case $spec in *^*) ph=${spec#*^}; spec=${spec%%^*} ;; esac
	case $spec in *%*) pw=${spec#*%}; spec=${spec%%%*} ;; esac
	case $spec in *@*) cw=${spec#*@}; spec=${spec%%@*} ;; esac
	case $cw in *:*) ct=${cw#*:}; cw=${cw%%:*} ;; esac
	s=$spec
	case $s in */*) ;; *) s=$s/hilbert ;; esac
	"$REPLAY" --trace "$OUT/w$1.swf" --config "$OUT/base.conf" -s "$s" \
		-w "$w" --compact-wait "$cw" --compact-tolerance "$ct" \
		--plan-window "$pw" --plan-hold "$ph" \
		${WEIGHTS[@]+"${WEIGHTS[@]}"} --no-recorded --no-svg -q --out "$3" >/dev/null 2>&1 ||
		{ echo "$PROG: locality-replay failed: seed $1, $2" >&2; exit 1; }
}

IFS=, read -r -a seeds <<<"$SEEDS"
for seed in "${seeds[@]}"; do
	"$REPO/testsuite/slurm/workload.sh" gen --seed "$seed" --jobs 160 \
		--max-nodes 24 --gap "$GAP" >"$OUT/w$seed.txt" &&
		"$REPO/testsuite/slurm/workload.sh" to-swf "$OUT/w$seed.txt" |
			awk -v pad="$PAD" '/^;/ || NF < 4 { print; next }
				{ $4 += pad; print }' >"$OUT/w$seed.swf" || exit 1
	run "$seed" bestfit/rowmajor "$OUT/r$seed-linear"
	for cfg in "$@"; do
		run "$seed" "$cfg" "$OUT/r$seed-$(echo "$cfg" | tr '/@:+%^' '______')"
	done
done

python3 - "$OUT" "$SEEDS" "$@" <<'PY'
import csv, glob, statistics as st, sys

out, seeds, cfgs = sys.argv[1], sys.argv[2].split(','), sys.argv[3:]

def figures(d):
    f = [x for x in glob.glob(d + '/*.csv') if 'rejected' not in x][0]
    rows = list(csv.DictReader(open(f)))
    hops = sorted(float(r['mean_pairwise_hops']) for r in rows
                  if int(r['requested_nodes']) > 1)
    wait = [int(r['start']) - int(r['submit']) for r in rows]
    return st.mean(hops), hops[int(0.95 * (len(hops) - 1))], st.mean(wait)

print(f"seeds {','.join(seeds)}: ratio to the linear model (bestfit/rowmajor), "
      "mean (worst seed)")
print(f"{'configuration':24s} {'hops':>6s} {'hops x linear':>16s} {'p95':>5s} "
      f"{'wait x linear':>16s}")
lin = {s: figures(f"{out}/r{s}-linear") for s in seeds}
for c in ['linear model'] + cfgs:
    tag = c
    for ch in '/@:+%^':
        tag = tag.replace(ch, '_')
    f = lin if c == 'linear model' else {s: figures(f"{out}/r{s}-{tag}") for s in seeds}
    h = [f[s][0] / lin[s][0] for s in seeds]
    w = [f[s][2] / lin[s][2] for s in seeds]
    p = st.mean(f[s][1] for s in seeds)
    print(f"{c:24s} {st.mean(f[s][0] for s in seeds):6.3f} "
          f"{st.mean(h):7.3f} ({max(h):.3f}) {p:5.2f} "
          f"{st.mean(w):7.3f} ({max(w):.3f})")
PY
