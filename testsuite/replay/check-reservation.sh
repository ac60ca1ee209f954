#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# EASY's promise under CompactWait: a job starts no later than the first
# reservation it got (the check of rp_check.c, which makes the replay
# exit 4). A job that declines scattered nodes in EASY's projection must
# still take them at its promised start, also when PlanHold=released has
# given the free nodes that made its set compact to backfilled jobs.
# Runs on a small synthetic SWF (always), then on the ubccr sacct export
# of ../shared/traces (skipped with a message when it is absent), every
# strategy with each walltime mode, both PlanHold values, and with
# --turnaround (whose own effect is checked exactly on a 3-job trace).
# Conservative backfilling (--sched conservative) keeps the same
# invariants, and its plans are checked exactly on a 4-job trace against
# EASY's starts.
set -u
srcdir=${srcdir:-.}
replay=${LOCALITY_REPLAY:-./src/replay/locality-replay}
top=$(cd "$srcdir" && pwd)
data=$top/testsuite/replay/data
traces=$top/../shared/traces
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-resv.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

[ -x "$replay" ] || { echo "check-reservation: $replay not built" >&2; exit 99; }

# replay NAME ARGS...: every row must keep the invariants (exit 0)
replay() {
	name=$1
	shift
	"$replay" "$@" -s pack,box,mm,bestfit -w none,sl,pf,combo \
		--compact-wait 350 --out "$tmp/$name" --no-svg -q \
		--no-progress > "$tmp/$name.log" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL: $name: exit $rc: $(grep -m1 -v '^locality-replay: [^r]' "$tmp/$name.log")"
		fails=$((fails + 1))
	else
		echo "ok: $name"
	fi
}

for hold in placement released; do
	replay "synthetic-$hold" --grid 2x5 \
		-t "$data/reservation-promise.swf" --plan-hold $hold
done

# The same promise with --turnaround (nodes free some seconds after
# their job ends), which the planner must count in every end it projects.
replay synthetic-turnaround --grid 2x5 -t "$data/reservation-promise.swf" \
	--plan-hold released --turnaround 7

# --turnaround S itself: job 2 starts when job 1's nodes are free, S
# seconds after job 1 ends at 100; job 3 backfills at its submit.
for s in 0 7; do
	"$replay" --grid 2x5 -t "$data/turnaround.swf" -s bestfit \
		--turnaround $s --no-recorded --out "$tmp/ta$s" --no-svg -q \
		--no-progress > "$tmp/ta$s.log" 2>&1
	got=$(awk -F, '$1 == 2 { b = $3 } $1 == 3 { c = $3 } END { print b, c }' \
		"$tmp/ta$s/bestfit.csv" 2>/dev/null)
	if [ "$got" = "$((100 + s)) 2" ]; then
		echo "ok: turnaround $s: job 2 starts at $((100 + s)), job 3 at 2"
	else
		echo "FAIL: turnaround $s: jobs 2 and 3 start at '$got', not '$((100 + s)) 2': $(head -n 1 "$tmp/ta$s.log")"
		fails=$((fails + 1))
	fi
done

# --sched conservative: every job tested is planned, so a job that fits
# free nodes now waits when it would still hold them at a later job's
# planned start (job 4); EASY, the control, reserves for job 2 alone and
# starts job 4 at once, delaying job 3 (data/conservative.swf says why).
# Both placements of a plan (PlanHold) give the same starts here.
starts() { # SCHED HOLD -> "start of job 1 2 3 4"
	"$replay" --grid 4x1 -t "$data/conservative.swf" -s bestfit \
		--sched "$1" --plan-hold "$2" --no-recorded --out "$tmp/cs-$1" \
		--no-svg -q --no-progress > "$tmp/cs-$1.log" 2>&1
	awk -F, 'NR > 1 { s[$1] = $3 } END { print s[1], s[2], s[3], s[4] }' \
		"$tmp/cs-$1/bestfit.csv" 2>/dev/null
}
for hold in released placement; do
	for case in "easy:0 100 153 3" "conservative:0 100 100 200"; do
		sched=${case%%:*} want=${case#*:}
		got=$(starts "$sched" $hold)
		if [ "$got" = "$want" ]; then
			echo "ok: $sched, PlanHold=$hold: jobs start at $want"
		else
			echo "FAIL: $sched, PlanHold=$hold: jobs start at '$got', not '$want': $(head -n 1 "$tmp/cs-$sched.log")"
			fails=$((fails + 1))
		fi
	done
done
replay synthetic-conservative --grid 2x5 -t "$data/reservation-promise.swf" \
	--plan-hold released --turnaround 7 --sched conservative

micro=$traces/sacct/ubccr-micro-sacct.txt
if [ -f "$micro" ]; then
	for grid in 2x5 4x4; do
		replay "ubccr-micro-$grid" --grid $grid -t "$micro" \
			--plan-hold released --no-recorded
	done
	replay ubccr-micro-turnaround --grid 4x4 -t "$micro" \
		--plan-hold released --no-recorded --turnaround 30
	for hold in placement released; do
		replay "ubccr-micro-conservative-$hold" --grid 4x4 \
			-t "$micro" --plan-hold $hold --no-recorded \
			--turnaround 30 --sched conservative
	done
else
	echo "SKIP ubccr-micro: $micro is absent (real traces live in ../shared/traces)"
fi

[ $fails = 0 ] || exit 1
exit 0
