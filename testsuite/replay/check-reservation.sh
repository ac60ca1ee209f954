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
# strategy with each walltime mode, both PlanHold values.
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

micro=$traces/sacct/ubccr-micro-sacct.txt
if [ -f "$micro" ]; then
	for grid in 2x5 4x4; do
		replay "ubccr-micro-$grid" --grid $grid -t "$micro" \
			--plan-hold released --no-recorded
	done
else
	echo "SKIP ubccr-micro: $micro is absent (real traces live in ../shared/traces)"
fi

[ $fails = 0 ] || exit 1
exit 0
