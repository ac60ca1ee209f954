#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# advise-sbatch-test.sh - locality-advise --sbatch on a throwaway cluster
# (cluster.sh, select/linear: the advisor needs no plugin): the rows of
# the bundled example trace run as job arrays, batch after batch of the
# sweep, each merged by a dependent job; the merged advice.txt,
# ranking.csv, tradeoff.svg and summary.json must be byte-identical to a
# run on this machine; --resume of the finished run replays nothing, and
# after a row file is lost replays that row alone. Prints TAP lines and a
# closing count. About 15 s on 64 slurmd (2 cores), on 22.05 and 24.11.
#
#   advise-sbatch-test.sh [BUILD] [--keep]
#
# BUILD is where locality-advise was built (default: as lib.sh finds it);
# slurm-root.sh runs this under another Slurm version the same way, e.g.
#   tools/slurm-root.sh run 24.11 -- env LOC_CTLD_PORT=7817 \
#       LOC_NODE_PORT0=23001 testsuite/slurm/advise-sbatch-test.sh build
# (after "tools/slurm-root.sh create 24.11"; locality-advise needs no Slurm,
# so the host's build serves every version). scripts/test.sh runs it on
# every tested version, with that version's build.
# LOC_ADVISE_NODES sets the node count (default 64), LOC_ADVISE_TIMEOUT
# the seconds the whole run may take on the cluster (default 600),
# LOC_ADVISE_TRACE another trace (replayed on --derive-grid).
set -u
SUITE=advise-sbatch
KEEP=0
for a in "$@"; do
	case $a in
	--keep) KEEP=1 ;;
	-h | --help) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) BUILD=$a ;;
	esac
done
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
lib_init advise-sbatch
NODES=${LOC_ADVISE_NODES:-64}
TIMEOUT=${LOC_ADVISE_TIMEOUT:-600}
ADVISE=${BUILD:+$BUILD/src/replay/locality-advise}
data=$REPO/testsuite/replay/data
args=(-c "$data/example-locality.conf" -t "$data/example-sacct.txt" -q)
# another trace, on a grid derived from it (e.g. ../shared/traces/sacct/
# ubccr-micro-sacct.txt)
[ -n "${LOC_ADVISE_TRACE:-}" ] && args=(-t "$LOC_ADVISE_TRACE" --derive-grid -q)
outputs="advice.txt ranking.csv tradeoff.svg summary.json"

if [ -z "$ADVISE" ] || [ ! -x "$ADVISE" ]; then
	not_ok "locality-advise is built" "no build found (give BUILD)"
	lib_finish
	exit
fi

# 1. the cluster
if start_cluster adv linear; then
	ok "a cluster of $NODES slurmd is up ($("$CLUSTER" version))"
else
	not_ok "a cluster of $NODES slurmd is up" "cluster.sh start failed"
	lib_finish
	exit
fi

# 2. the reference: the same run on this machine
"$ADVISE" "${args[@]}" -o "$RUNROOT/local" 2>"$RUNROOT/local.err"
result "locality-advise runs on this machine" \
	"$([ -s "$RUNROOT/local/advice.txt" ] || echo "no advice: $(tail -n 1 "$RUNROOT/local.err")")"

# 3. --sbatch: the first batch and its merge job submitted
t0=$SECONDS
"$ADVISE" "${args[@]}" -o "$RUNROOT/sb" --sbatch \
	--sbatch-args "--time=10" 2>"$RUNROOT/sb.err"
rc=$?
result "--sbatch submits the candidate rows as an array and a merge job" \
	"$([ "$rc" = 0 ] && grep -q 'batch 0: .* job array [0-9]' "$RUNROOT/sb.err" ||
		echo "exit $rc: $(tail -n 2 "$RUNROOT/sb.err" | tr '\n' ' ')")"

# wait_run: until the run's jobs are gone from the queue and advice.txt
# is written, or TIMEOUT seconds from t0
queued() {
	squeue -h -n locality-advise-rows,locality-advise-merge 2>/dev/null
}
wait_run() {
	local idle=0
	while [ $((SECONDS - t0)) -lt "$TIMEOUT" ]; do
		if [ -z "$(queued)" ]; then
			[ -s "$RUNROOT/sb/advice.txt" ] && return 0
			# nothing queued and no advice twice in a row: stuck
			idle=$((idle + 1))
			[ "$idle" -ge 3 ] && return 1
		else
			idle=0
		fi
		sleep 1
	done
	return 1
}

# 4. the chain of arrays and merge jobs ends with the outputs
wait_run
elapsed=$((SECONDS - t0))
merges=$(ls "$RUNROOT/sb/sbatch/log" 2>/dev/null | grep -c '^merge-')
nrows=$(ls "$RUNROOT/sb/sbatch/rows" 2>/dev/null | grep -c '\.row$')
note "the cluster took ${elapsed}s: $nrows rows, $merges merge jobs"
why=""
[ -s "$RUNROOT/sb/advice.txt" ] ||
	why="no advice.txt after ${elapsed}s; last merge log: $(ls -t "$RUNROOT"/sb/sbatch/log/merge-* 2>/dev/null | head -n 1 | xargs -r tail -n 2 | tr '\n' ' ')"
[ -z "$why" ] && [ "$merges" -lt 2 ] && why="$merges merge job(s): the sweep's batches did not run as arrays"
result "the merge jobs run the sweep's batches and write the outputs" "$why"

# 5. identical to the run on this machine
why=""
for f in $outputs; do
	cmp -s "$RUNROOT/local/$f" "$RUNROOT/sb/$f" || why="$why $f differs;"
done
result "advice.txt, ranking.csv, tradeoff.svg and summary.json are byte-identical to the local run" "$why"

# 6. resumable: --resume on the finished run submits nothing, same outputs
rm -f "$RUNROOT/sb/advice.txt"
"$ADVISE" --resume "$RUNROOT/sb" 2>"$RUNROOT/resume.err"
rc=$?
why=""
[ "$rc" = 0 ] || why="exit $rc: $(tail -n 1 "$RUNROOT/resume.err")"
grep -q "submitted" "$RUNROOT/resume.err" && why="$why resubmitted rows;"
cmp -s "$RUNROOT/local/advice.txt" "$RUNROOT/sb/advice.txt" || why="$why advice.txt differs;"
result "--resume of a finished run replays nothing and writes the same advice" "$why"

# 7. resumable: one row file deleted, --resume runs that row alone on the
# cluster (a one-task array) and merges the same outputs
victim=$(ls "$RUNROOT/sb/sbatch/rows" | sed -n 7p)
rm -f "$RUNROOT/sb/sbatch/rows/$victim" "$RUNROOT/sb/advice.txt"
before=$(ls "$RUNROOT/sb/sbatch/log" | grep -c '^rows-')
t0=$SECONDS
"$ADVISE" --resume "$RUNROOT/sb" 2>"$RUNROOT/resume2.err"
rc=$?
wait_run
after=$(ls "$RUNROOT/sb/sbatch/log" | grep -c '^rows-')
note "the resume took $((SECONDS - t0))s"
why=""
[ "$rc" = 0 ] && grep -q "1 row submitted" "$RUNROOT/resume2.err" ||
	why="exit $rc: $(tail -n 1 "$RUNROOT/resume2.err");"
[ "$((after - before))" = 1 ] || why="$why $((after - before)) array tasks ran, expected 1;"
[ -s "$RUNROOT/sb/sbatch/rows/$victim" ] || why="$why the row file is not back;"
for f in $outputs; do
	cmp -s "$RUNROOT/local/$f" "$RUNROOT/sb/$f" || why="$why $f differs;"
done
result "--resume after a row file is lost replays that row alone on the cluster, same outputs" "$why"

lib_finish
