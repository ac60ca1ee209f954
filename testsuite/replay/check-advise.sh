#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# locality-advise end to end: on the bundled example (always) and on an
# sacct export and an SWF trace of ../shared/traces (skipped with a
# message when it is absent). Checked from the outputs, not against
# stored numbers: the ranking obeys the stated rule (recomputed with awk
# from ranking.csv), the advice names rank 1 and its locality.conf lines,
# the figures are locality-replay's for the same row, the trade-off plot
# has one point per row inside its frame, the options change what they
# should, and a row that refuses jobs the current placement runs (box on
# sizes no box holds) is listed with the count but never recommended,
# whatever the objective.
set -u
srcdir=${srcdir:-.}
advise=${LOCALITY_ADVISE:-./src/replay/locality-advise}
replay=${LOCALITY_REPLAY:-./src/replay/locality-replay}
top=$(cd "$srcdir" && pwd)
data=$top/testsuite/replay/data
traces=$top/../shared/traces
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-advise.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
nstrategies=14 # every strategy of the core
nmodes=5       # none,sl,pf,combo,adjest

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
. "$top/testsuite/replay/advise-helpers.sh"

for bin in "$advise" "$replay"; do
	[ -x "$bin" ] || { echo "check-advise: $bin not built" >&2; exit 99; }
done

# check NAME DIR RATIO OBJECTIVE: the outputs of one advice run
check() {
	name=$1 dir=$2 ratio=$3 objective=$4
	for f in advice.txt ranking.csv tradeoff.svg summary.json; do
		[ -s "$dir/$f" ] || fail "$name: no $f"
	done
	[ -s "$dir/ranking.csv" ] || return
	# the rule, recomputed: ranks 1..n, rows within the wait limit
	# (mean wait <= ratio x the current's) first, then the objective
	# non-decreasing; every row compared on the jobs the current ran
	# (column 5: the jobs its figures are over); a row that did not run
	# them all (column 13) is never ranked and follows the ranked ones;
	# the recorded row (rank 0) is never ranked
	col=6
	[ "$objective" = wait ] && col=7
	[ "$objective" = slowdown ] && col=8
	verdict=$(awk -F, -v ratio="$ratio" -v col="$col" '
		NR == 1 { if ($12 != "served" || $13 != "not_served") { print "header " $0; exit 1 } next }
		{ rank[NR] = $1; within[NR] = $4; wait[NR] = $7; score[NR] = $col
		  name[NR] = $2; jobs[NR] = $5; missed[NR] = $13
		  if ($3 == 1) { cur = $7; curjobs = $12; ncur++ } n = NR }
		END {
			if (ncur != 1) { print "current rows: " ncur; exit }
			r = 0
			for (i = 2; i <= n; i++) {
				if (jobs[i] != curjobs - missed[i]) {
					print name[i] ": figures over " jobs[i] " jobs, not the current " curjobs " less " missed[i]; exit }
				if (rank[i] == 0) {
					if (name[i] != "recorded" && missed[i] == 0) print "unranked " name[i]
					if (name[i] != "recorded") after = name[i]
					continue }
				if (missed[i] != 0) { print name[i] " ranked, missed " missed[i] " jobs"; exit }
				if (after != "") { print name[i] " ranked after " after ", which missed jobs"; exit }
				if (rank[i] != ++r) { print "rank " rank[i] " at position " r; exit }
				w = (wait[i] <= ratio * cur * (1 + 1e-9)) ? 1 : 0
				if (w != within[i]) { print name[i] ": within " within[i] ", recomputed " w; exit }
				if (r > 1 && (w > pw || (w == pw && score[i] + 0 < ps - 1e-9))) {
					print name[i] " ranked after " pname; exit }
				pw = w; ps = score[i]; pname = name[i]
				if (r == 1) { best = name[i]; bestw = w }
			}
			print "ok " best " " bestw " " r
		}' "$dir/ranking.csv")
	set -- $verdict
	if [ "$1" != ok ]; then
		fail "$name: ranking.csv breaks the rule: $verdict"
		return
	fi
	best=$2 bestw=$3 nranked=$4
	# the advice: rank 1 within the limit, and the conf lines that
	# select it (strategy, curve, walltime mode, the sweep's keys)
	if [ "$bestw" = 1 ]; then
		grep -q "^locality.conf lines for $best" "$dir/advice.txt" ||
			fail "$name: the advice does not name rank 1 ($best)"
		# a sweep row's name is "ROW key=value ...": its overrides
		bestrow=${best%% *}
		strategy=${bestrow%%[/+]*}
		mode=none
		case $bestrow in *+*) mode=${bestrow#*+} ;; esac
		for kv in ${best#"$bestrow"}; do
			case $kv in
			cw=*) key=CompactWait ;;
			ct=*) key=CompactTolerance ;;
			pw=*) key=PlanWindow ;;
			hold=*) key=PlanHold ;;
			*) fail "$name: '$kv' in row name $best"; continue ;;
			esac
			grep -qx "$key=${kv#*=}" "$dir/advice.txt" ||
				fail "$name: $best chosen without a $key=${kv#*=} line"
		done
		grep -qx "Strategy=$strategy" "$dir/advice.txt" ||
			fail "$name: no Strategy=$strategy line"
		grep -qx "WalltimeAware=$mode" "$dir/advice.txt" ||
			fail "$name: no WalltimeAware=$mode line"
		grep -q '^Curve=[a-z]' "$dir/advice.txt" || fail "$name: no Curve= line"
		case $mode in sl | combo | adjest)
			grep -q '^SLTolerance=' "$dir/advice.txt" ||
				fail "$name: $mode without SLTolerance=" ;;
		esac
		# paired filling's live caveat, for its rows alone
		pf_note=0
		grep -q '^# PF (pf, combo, adjest): ' "$dir/advice.txt" && pf_note=1
		case $mode in
		pf | combo | adjest) [ $pf_note = 1 ] ||
			fail "$name: $mode recommended without PF's live caveat" ;;
		*) [ $pf_note = 0 ] ||
			fail "$name: PF's live caveat under $mode" ;;
		esac
	fi
	# tradeoff.svg: well formed enough, one point per row (plus the six
	# of the key), every point inside the plot area
	rows=$(($(wc -l < "$dir/ranking.csv") - 1))
	points=$(grep -c '<circle' "$dir/tradeoff.svg")
	[ "$points" = $((rows + 6)) ] ||
		fail "$name: tradeoff.svg has $points points for $rows rows"
	tail -n 1 "$dir/tradeoff.svg" | grep -q '^</svg>$' ||
		fail "$name: tradeoff.svg is not closed"
	out=$(awk -F'"' '/<rect x=/ && !f { x0 = $2; y0 = $4; x1 = x0 + $6; y1 = y0 + $8; f = 1 }
		/<circle/ && /<title>/ { if ($2 < x0 || $2 > x1 || $4 < y0 || $4 > y1) print $2 "," $4 }' \
		"$dir/tradeoff.svg")
	[ -z "$out" ] || fail "$name: points outside the plot area: $out"
}

# row_figure DIR ROW FIELD: a row's figure in summary.json
row_figure() {
	awk -v row="\"$2\": {" -v field="\"$3\":" 'index($0, row) { f = 1 }
		f && index($0, field) { gsub(/[",]/, "", $2); print $2; exit }' "$1/summary.json"
}

# 1. the bundled example: every strategy and mode, the current row
# (bestfit/rowmajor, the linear model) and the recorded one
conf=$data/example-locality.conf
sacct=$data/example-sacct.txt
"$advise" -c "$conf" -t "$sacct" -o "$tmp/ex" --no-progress > "$tmp/ex.out" 2> "$tmp/ex.err" ||
	fail "advice on the example exited $?: $(cat "$tmp/ex.err")"
check example "$tmp/ex" 1.05 hops
cmp -s "$tmp/ex.out" "$tmp/ex/advice.txt" || fail "stdout differs from advice.txt"
# sweep rows are the ones whose names carry overrides ("box cw=820")
rows=$(($(grep -vc '^[^,]*,[^,]* ' "$tmp/ex/ranking.csv") - 1))
[ "$rows" = $((nstrategies * nmodes + 2)) ] ||
	fail "example: $rows rows, want every strategy x mode + current + recorded"
grep -q '^[0-9]*,bestfit/rowmajor,1,1,' "$tmp/ex/ranking.csv" ||
	fail "example: the default current row is not bestfit/rowmajor"
grep -q '^0,recorded,0,' "$tmp/ex/ranking.csv" || fail "example: no recorded row"
# the figures are the replay's own for the same row
for row in box+pf mm bestfit/rowmajor; do
	mode=none
	case $row in *+*) mode=${row#*+} ;; esac
	"$replay" -c "$conf" -t "$sacct" -s "${row%+*}" -w "$mode" \
		--no-recorded --no-svg -q -o "$tmp/rp" || fail "replay of $row exited $?"
	want=$(row_figure "$tmp/rp" "$row" mean_pairwise_hops)
	got=$(row_figure "$tmp/ex" "$row" mean_pairwise_hops)
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		fail "$row: advice says hops '$got', locality-replay '$want'"
	rm -rf "$tmp/rp"
done

# 2. the options: objective, ratio, current, candidate lists
"$advise" -c "$conf" -t "$sacct" -o "$tmp/wait" -q --objective wait \
	--max-wait-ratio 1.2 -s mm,box,pack -w none,sl ||
	fail "--objective wait exited $?"
check objective-wait "$tmp/wait" 1.2 wait
[ $(($(grep -vc '^[^,]*,[^,]* ' "$tmp/wait/ranking.csv") - 1)) = 8 ] ||
	fail "-s mm,box,pack -w none,sl: want 6 rows + current + recorded"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/slow" -q --objective slowdown \
	--max-wait-ratio 1 -s firstfit,mm,mc1x1 -w none,pf ||
	fail "--objective slowdown exited $?"
check objective-slowdown "$tmp/slow" 1 slowdown
"$advise" -c "$conf" -t "$sacct" -o "$tmp/rec" -q --current recorded \
	-s firstfit,mm -w none || fail "--current recorded exited $?"
check current-recorded "$tmp/rec" 1.05 hops
grep -q '^0,recorded,1,1,' "$tmp/rec/ranking.csv" ||
	fail "--current recorded: the recorded row is not the current one"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/fl" -q --current freelist/rowmajor \
	-s freelist/rowmajor,mm -w none || fail "--current freelist/rowmajor exited $?"
[ "$(grep -c ',freelist/rowmajor,' "$tmp/fl/ranking.csv")" = 1 ] ||
	fail "a current row that is also a candidate is replayed twice"
grep -q '^[1-9][0-9]*,freelist/rowmajor,1,1,' "$tmp/fl/ranking.csv" ||
	fail "--current freelist/rowmajor is not ranked as the current row"

# 2b. every job counted: on a 4x4 mesh box has no box for 5 or 7 nodes,
# so it refuses those jobs (20 of 60) and its wait, slowdown and hops,
# over the jobs it ran, beat every row's. It must be listed with the
# jobs it did not run and never recommended, whatever the objective; the
# advice says how many jobs each row ran.
awk 'BEGIN { split("4 5 8 7 2 6", sz, " ")
	for (i = 1; i <= 60; i++) { k = sz[(i - 1) % 6 + 1]
		printf "%d %d 0 %d %d -1 -1 %d 600 -1 1 1 1 1 1 1 -1 -1\n",
			i, i * 40, 100 + (i * 53) % 300, k, k } }' > "$tmp/nobox.swf"
for objective in hops wait slowdown; do
	d=$tmp/nobox-$objective
	"$advise" --grid 4x4 -t "$tmp/nobox.swf" -o "$d" -q --objective "$objective" ||
		fail "no-box trace, --objective $objective exited $?"
	check "no-box-$objective" "$d" 1.05 "$objective"
	for row in box box+sl box+pf box+combo box+adjest; do
		grep -q "^0,$row,0,[01],40,.*,40,20,[0-9.]*\$" "$d/ranking.csv" ||
			fail "no-box $objective: $row is not unranked with 40 jobs run, 20 not"
	done
	grep -q '^locality.conf lines for [a-z0-9_/+ =.]* (it ran all 60 jobs):$' "$d/advice.txt" ||
		fail "no-box $objective: the advice does not say its row ran all 60 jobs"
	grep -q '^Strategy=box$' "$d/advice.txt" && fail "no-box $objective: box recommended"
	grep -q '^every row is compared on those 60 jobs; 5 rows that did not run them all' "$d/advice.txt" ||
		fail "no-box $objective: the advice does not say which jobs rows are compared on"
	awk '$2 == "box" && $1 == "-" && $3 == 40 && /did not run 20 of the current.s jobs/ { f = 1 }
		END { exit !f }' "$d/advice.txt" ||
		fail "no-box $objective: the table does not show box's 40 jobs run and 20 not"
	# without the rule box would win: its figures beat the best's
	best=$(awk -F, '$1 == 1 { print $2 }' "$d/ranking.csv")
	awk -F, -v best="$best" -v col=$([ "$objective" = hops ] && echo 6 || { [ "$objective" = wait ] && echo 7 || echo 8; }) '
		$2 == "box" { b = $col } $2 == best { r = $col }
		END { exit !(b + 0 < r + 0) }' "$d/ranking.csv" ||
		fail "no-box $objective: box does not look better than $best; the trace tests nothing"
done
# A current placement that refuses jobs: every row is compared on the 40
# jobs box ran, though the others ran all 60.
"$advise" --grid 4x4 -t "$tmp/nobox.swf" -o "$tmp/nobox-cur" --current box \
	-s box,mm,firstfit -w none > /dev/null 2>&1 || fail "no-box trace, --current box exited $?"
check no-box-current-box "$tmp/nobox-cur" 1.05 hops
[ "$(awk -F, 'NR > 1 && $2 !~ / / && $5 == 40 && $13 == 0 { n++ } END { print n }' "$tmp/nobox-cur/ranking.csv")" = 3 ] ||
	fail "--current box: the rows are not compared on box's 40 jobs"
grep -q '^[0-9]*,mm,0,[01],40,.*,60,0,' "$tmp/nobox-cur/ranking.csv" ||
	fail "--current box: mm does not show 60 jobs run"
grep -q '^current placement: box (ran 40 of 60 jobs;' "$tmp/nobox-cur/advice.txt" ||
	fail "--current box: the advice does not say the current ran 40 of 60 jobs"

# 2c. the sweep of CompactWait, CompactTolerance, PlanHold and PlanWindow
# around the best two rows: its rows carry their overrides in their names
# (ROW key=value ...), each over a row of the main replay, at most 8 per
# seed with the keys at their defaults; --no-sweep adds none; the seeds are ranks 1 and 2 without it; a
# sweep row is replayed with its values (the figures locality-replay
# gives with the same global option); the advice is deterministic.
sweep_rows() { grep -c '^[^,]*,[^,]* ' "$1/ranking.csv"; }
n=$(sweep_rows "$tmp/ex")
[ "$n" -ge 1 ] && [ "$n" -le 16 ] || fail "sweep: $n rows, want 1..16 (8 a seed)"
grep -q "^sweep: $n rows added around " "$tmp/ex/advice.txt" ||
	fail "sweep: the advice does not say it added $n rows"
grep -q '^  CompactWait 0,[0-9,]* s (0 and the 10th/25th/50th percentiles' "$tmp/ex/advice.txt" ||
	fail "sweep: the advice does not state the CompactWait rule"
bad=$(awk -F, 'NR > 1 { base = $2; sub(/ .*/, "", base); have[base] = 1
		if ($2 ~ / /) { rows[$2] = base; n++ } }
	END { for (r in rows) {
		if (!have[rows[r]]) print "no base row for " r
		if (r !~ /^[a-z0-9_\/+]+( cw=[0-9]+)?( ct=[0-9.]+)?( pw=[0-9]+)?( hold=(placement|released))?$/)
			print "bad name " r } }' "$tmp/ex/ranking.csv")
[ -z "$bad" ] || fail "sweep: $bad"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/ns" --no-progress --no-sweep > /dev/null 2>&1 ||
	fail "--no-sweep exited $?"
[ "$(sweep_rows "$tmp/ns")" = 0 ] || fail "--no-sweep: $(sweep_rows "$tmp/ns") sweep rows"
grep -q '^sweep: none (--no-sweep)$' "$tmp/ns/advice.txt" ||
	fail "--no-sweep: the advice does not say there was no sweep"
seeds=$(awk -F, '$1 == 1 { a = $2 } $1 == 2 { b = $2 } END { print a " and " b }' "$tmp/ns/ranking.csv")
grep -q "^sweep: $n rows added around $seeds, " "$tmp/ex/advice.txt" ||
	fail "sweep: the seeds are not ranks 1 and 2 ($seeds)"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/ex2" --no-progress --threads 1 > /dev/null 2>&1 ||
	fail "second advice exited $?"
cmp -s "$tmp/ex/advice.txt" "$tmp/ex2/advice.txt" ||
	fail "sweep: two runs (2 threads, 1 thread) give different advice"
cmp -s "$tmp/ex/ranking.csv" "$tmp/ex2/ranking.csv" ||
	fail "sweep: two runs give different ranking.csv"
swrow=$(awk -F, '$2 ~ /^[a-z0-9_\/+]+ cw=[1-9][0-9]*$/ { print $2; exit }' "$tmp/ex/ranking.csv")
if [ -z "$swrow" ]; then
	fail "sweep: no row with a CompactWait > 0 alone"
else
	base=${swrow%% *} cw=${swrow#* cw=}
	mode=none
	case $base in *+*) mode=${base#*+} ;; esac
	"$replay" -c "$conf" -t "$sacct" -s "${base%+*}" -w "$mode" --compact-wait "$cw" \
		--no-recorded --no-svg -q -o "$tmp/rp" || fail "replay of $swrow exited $?"
	for field in mean_pairwise_hops mean_wait_s; do
		want=$(row_figure "$tmp/rp" "$base" $field)
		got=$(row_figure "$tmp/ex" "$swrow" $field)
		plain=$(row_figure "$tmp/ex" "$base" $field)
		[ -n "$want" ] && [ "$want" = "$got" ] ||
			fail "$swrow: advice says $field '$got', locality-replay --compact-wait $cw '$want'"
		[ "$got" != "$plain" ] ||
			fail "$swrow: $field $got, the same as $base's: CompactWait had no effect"
	done
	rm -rf "$tmp/rp"
fi
"$advise" --help | grep -q -- '--no-sweep' || fail "--help does not name --no-sweep"
grep -q 'no\\-sweep' "$top/doc/locality-advise.1" || fail "locality-advise.1 does not document --no-sweep"
"$replay" -c "$conf" -t "$sacct" -o "$tmp/u" --no-sweep > /dev/null 2>&1
[ $? = 1 ] || fail "locality-replay must refuse --no-sweep"

# 2d. --plugin topology: a select/cons_tres site with topology/locality
# gets only rows that plugin honours: walltime modes none and sl, PlanHold
# and CompactClaims but no PlanWindow in the sweep, slurm.conf lines for
# cons_tres; a row it would not honour (PlanWindow, PF, AdjEst) is a
# usage error, before any replay. By default its rows are each strategy
# with walltime mode none and with sl; the sweep's checks run on none's
# rows alone (--walltime none), where the example keeps a CompactWait.
"$advise" -c "$conf" -t "$sacct" -o "$tmp/topo-modes" --no-progress --no-sweep \
	--noise-draws 0 --plugin topology > /dev/null 2>&1 || fail "--plugin topology exited $?"
bad=$(awk -F, 'NR > 1 && $3 == 0 && ($2 ~ /[+](pf|combo|adjest)|pw=/) { print $2 }' "$tmp/topo-modes/ranking.csv" |
	paste -sd' ' -)
[ -z "$bad" ] || fail "--plugin topology: rows topology/locality does not honour: $bad"
[ "$(awk -F, 'NR > 1 && $1 != 0 && $3 == 0 && $2 !~ /[ +]/ { n++ } END { print n }' "$tmp/topo-modes/ranking.csv")" = "$nstrategies" ] ||
	fail "--plugin topology: want one row per strategy with walltime mode none"
[ "$(awk -F, 'NR > 1 && $1 != 0 && $3 == 0 && $2 ~ /^[a-z0-9_]*[+]sl$/ { n++ } END { print n }' "$tmp/topo-modes/ranking.csv")" = "$nstrategies" ] ||
	fail "--plugin topology: want one row per strategy with walltime mode sl"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/topo" --no-progress --plugin topology \
	--walltime none > /dev/null 2>&1 || fail "--plugin topology --walltime none exited $?"
[ "$(sweep_rows "$tmp/topo")" -ge 1 ] || fail "--plugin topology: no sweep row"
grep -q 'PlanHold placement,released; not PlanWindow (--plugin topology' "$tmp/topo/advice.txt" ||
	fail "--plugin topology: the advice does not say PlanHold was swept and PlanWindow was not"
[ "$(awk -F, 'NR > 1 && $2 ~ /hold=/ { n++ } END { print n + 0 }' "$tmp/topo/ranking.csv")" -ge 1 ] ||
	fail "--plugin topology: the sweep replayed no PlanHold row"
# CompactClaims: swept for topology/locality only (select/locality makes
# no claims), on the rows that wait (the example keeps a CompactWait).
grep -q 'CompactClaims 0,16 when it is > 0' "$tmp/topo/advice.txt" ||
	fail "--plugin topology: the advice does not say CompactClaims was swept"
[ "$(awk -F, 'NR > 1 && $2 ~ /CompactClaims=16/ && $2 ~ /cw=[1-9]/ { n++ } END { print n + 0 }' "$tmp/topo/ranking.csv")" -ge 1 ] ||
	fail "--plugin topology: the sweep replayed no CompactClaims=16 row with a wait"
grep -q 'CompactClaims' "$tmp/ex/ranking.csv" "$tmp/ex/advice.txt" &&
	fail "select/locality's advice swept CompactClaims, which it does not use"
grep -q '^# in slurm.conf: SelectType=select/cons_tres and TopologyPlugin=topology/locality' "$tmp/topo/advice.txt" ||
	fail "--plugin topology: the advice does not name select/cons_tres and topology/locality"
grep -q '^PlanWindow=\|^WalltimeAware=\(pf\|combo\|adjest\)$' "$tmp/topo/advice.txt" &&
	fail "--plugin topology: the advised lines set a key topology/locality does not use"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/topo-pf" --plugin topology --walltime none,pf \
	> /dev/null 2>"$tmp/topo-pf.err"
[ $? = 1 ] && grep -q "none and sl only.*not 'pf'" "$tmp/topo-pf.err" ||
	fail "--plugin topology --walltime none,pf must be a usage error naming pf: $(cat "$tmp/topo-pf.err")"
"$replay" -c "$conf" -t "$sacct" -o "$tmp/topo-pf-replay" --plugin topology -w sl,adjest \
	> /dev/null 2>"$tmp/topo-pf.err"
[ $? = 1 ] && grep -q "none and sl only.*not 'adjest'" "$tmp/topo-pf.err" ||
	fail "locality-replay --plugin topology -w sl,adjest must be a usage error naming adjest: $(cat "$tmp/topo-pf.err")"
"$advise" --help | grep -q -- '--plugin select|topology' || fail "--help does not name --plugin"
grep -q '\\-\\-plugin' "$top/doc/locality-advise.1" || fail "locality-advise.1 does not document --plugin"

# 2e. the replay's noise: rank 1, rank 5 and the current replayed again
# by locality-replay with every submit moved by up to 600 s (the ranked
# replay's seed 1 and the draws' 2-5: wide enough that the draws' median
# is neither end on this example); each "noise:" line's least, median and
# greatest hops_x and wait_x over the five, recomputed with awk
# over the jobs each draw's current ran; ties (at the default 1 s) from
# those ranges
noise_field() { # RANK KEY -> value on that rank's noise: line
	sed -n "s/^noise: rank=$1 row=.* $2=\([^ ]*\) .*/\1/p" "$tmp/nj/advice.txt"
}
"$advise" -c "$conf" -t "$sacct" -o "$tmp/nj" --arrival-jitter 600 -q > /dev/null ||
	fail "--arrival-jitter 600 exited $?"
grep -q '^noise: draws=4 jitter_s=600 rows=5 tied=[0-9]*$' "$tmp/nj/advice.txt" ||
	fail "advice.txt: no 'noise: draws=4 jitter_s=600 rows=5' line"
grep -q '^noise: draws=4 jitter_s=1 rows=5 tied=[0-9]*$' "$tmp/ex/advice.txt" ||
	fail "advice.txt: no 'noise: draws=4 jitter_s=1 rows=5' line"
for rank in 1 5; do
	row=$(sed -n "s/^noise: rank=$rank row=\(.*\) hops_x=.*/\1/p" "$tmp/nj/advice.txt")
	[ -n "$row" ] || { fail "no noise: line for rank $rank"; continue; }
	want=$(for seed in 1 2 3 4 5; do
		jit="--arrival-jitter 600 --jitter-seed $seed"
		rm -rf "$tmp/nr" "$tmp/nc"
		"$replay" -c "$conf" -t "$sacct" $(row_opts "$row") $jit --no-recorded --no-svg -q -o "$tmp/nr" ||
			fail "replay of '$row' $jit exited $?"
		"$replay" -c "$conf" -t "$sacct" -s bestfit/rowmajor $jit --no-recorded --no-svg -q -o "$tmp/nc" ||
			fail "replay of bestfit/rowmajor $jit exited $?"
		draw_ratios "$tmp/nr" "$tmp/nc"
	done | draw_spread)
	set -- $want
	got="$(noise_field $rank hops_x_min) $(noise_field $rank hops_x_median) $(noise_field $rank hops_x_max)"
	got="$got $(noise_field $rank wait_x_min) $(noise_field $rank wait_x_median) $(noise_field $rank wait_x_max)"
	i=0
	for g in $got; do
		i=$((i + 1))
		eval w=\${$i}
		awk -v a="$g" -v b="$w" 'BEGIN { d = a - b; exit !(a != "" && (d < 0 ? -d : d) <= 1e-5) }' ||
			fail "noise rank $rank ($row): field $i is $g, locality-replay gives $w"
	done
	if [ $rank = 1 ]; then
		echo "$want" | awk '{ exit !($1 < $2 && $2 < $3 || $4 < $5 && $5 < $6) }' ||
			fail "rank 1's median is an end of its range in both figures on the example: the check is void ($want)"
	fi
done
# a row ties when its least objective ratio is at most rank 1's greatest;
# the example's top five all tie (box and box+pf place alike there), so
# the check also runs on the rows of none and pf alone, where some do not
"$advise" -c "$conf" -t "$sacct" -o "$tmp/nt" -w none,pf --no-sweep -q > /dev/null ||
	fail "advice with -w none,pf exited $?"
for dir in "$tmp/ex" "$tmp/nt"; do
	awk '/^noise: rank=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["rank"] == 1) hi = v["objective_x_max"]
		else if ((v["objective_x_min"] <= hi) != v["tied"]) print "rank " v["rank"] " tied=" v["tied"] }' \
		"$dir/advice.txt" > "$tmp/bad"
	[ -s "$tmp/bad" ] && fail "noise ties in $(basename "$dir"): $(cat "$tmp/bad")"
done
grep -q '^noise: rank=[2-5] .* tied=0$' "$tmp/nt/advice.txt" &&
	grep -q '^noise: rank=[2-5] .* tied=1$' "$tmp/nt/advice.txt" ||
	fail "-w none,pf: ranks 2-5 are not some tied and some not: the tie check is void"
# --noise-draws: 0 draws none and changes nothing else; 2 draws two
"$advise" -c "$conf" -t "$sacct" -o "$tmp/n0" --noise-draws 0 -q || fail "--noise-draws 0 exited $?"
cmp -s "$tmp/n0/ranking.csv" "$tmp/ex/ranking.csv" || fail "--noise-draws 0 changed ranking.csv"
grep -q "^the replay's noise: not drawn (--noise-draws 0)" "$tmp/n0/advice.txt" ||
	fail "--noise-draws 0: the advice does not say the noise was not drawn"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/n2" --noise-draws 2 -q || fail "--noise-draws 2 exited $?"
grep -q '^noise: draws=2 jitter_s=1 rows=5 ' "$tmp/n2/advice.txt" || fail "--noise-draws 2: not 2 draws"
for bad in -1 17 abc; do
	"$advise" -c "$conf" -t "$sacct" -o "$tmp/nb" --noise-draws $bad -q >/dev/null 2>&1
	[ $? = 1 ] || fail "--noise-draws $bad must exit 1"
done
[ -e "$tmp/nb" ] && fail "a bad --noise-draws wrote $tmp/nb"
"$replay" -c "$conf" -t "$sacct" -o "$tmp/nb" --noise-draws 2 -q >/dev/null 2>&1
[ $? = 1 ] || fail "locality-replay --noise-draws must exit 1 (locality-advise only)"
"$advise" --help | grep -q -- '--noise-draws N' || fail "--help does not name --noise-draws"
for opt in noise-draws arrival-jitter jitter-seed; do
	grep -qF -- "\\-\\-$(echo $opt | sed 's/-/\\-/')" "$top/doc/locality-advise.1" ||
		fail "locality-advise.1 does not document --$opt"
done
grep -qF -- '\-\-arrival\-jitter' "$top/doc/locality-replay.1" || fail "locality-replay.1 does not document --arrival-jitter"

# 3. the progress bar: on stderr only, with --progress or on a terminal
# (never here: make check's stderr is a file). Each redraw is
# "\r[###   ] PCT%  rows DONE/ROWS  NAME"; the last one reaches 100% and
# every row, the fraction and the row count never go back, and the line
# is blanked at the end.
bars() {
	tr '\r' '\n' < "$1" | sed -n 's/^\[[# ]*\] *\([0-9]*\)%  rows \([0-9]*\)\/\([0-9]*\) .*/\1 \2 \3/p'
}
"$advise" -c "$conf" -t "$sacct" -o "$tmp/pr" --progress > "$tmp/pr.out" 2> "$tmp/pr.err" ||
	fail "--progress exited $?"
cmp -s "$tmp/pr.out" "$tmp/ex.out" || fail "--progress changes the advice on stdout"
# the bar covers the replay of every strategy x mode, not the sweep's
nrows=$(($(grep -v '^[^,]*,[^,]* ' "$tmp/ex/ranking.csv" | grep -vc '^0,recorded,') - 1))
verdict=$(bars "$tmp/pr.err" | awk -v want="$nrows" '
	{ if ($1 < pct || $2 < done) bad = bad " went back at " NR
	  if ($3 != want) bad = bad " " $3 " rows, want " want
	  pct = $1; done = $2; n++ }
	END {
		if (!n) print "no progress bar on stderr"
		else if (pct != 100 || done != want) print "last bar " pct "% " done "/" want
		else if (bad) print substr(bad, 1, 200) }')
[ -z "$verdict" ] || fail "--progress: $verdict"
tr '\r' '\n' < "$tmp/pr.err" | awk '/^\[[# ]*\]/ { last = NR }
	{ line[NR] = $0 } END { exit !(last && line[last + 1] ~ /^ +$/) }' ||
	fail "--progress: the bar is not blanked at the end"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/np" > /dev/null 2> "$tmp/np.err" ||
	fail "advice without --progress exited $?"
[ -z "$(bars "$tmp/np.err")" ] || fail "a progress bar with stderr not a terminal"
# On a long trace the bar moves while a row runs, not only when one
# ends: one row (the current one is the candidate) of 3000 jobs, over
# 1024 events, so the replay reports its progress at least once before
# it ends: a bar with the row not done, above 0% and below 100%.
awk 'BEGIN { for (i = 1; i <= 3000; i++)
	printf "%d %d 0 %d %d -1 -1 %d %d -1 1 1 1 1 1 1 -1 -1\n",
		i, i * 30, 20 + (i * 37) % 400, 1 + (i * 7) % 8, 1 + (i * 7) % 8, 600 }' \
	> "$tmp/long.swf"
"$advise" --grid 4x4 -t "$tmp/long.swf" -s firstfit -w none -o "$tmp/long" \
	--current firstfit --progress > /dev/null 2> "$tmp/long.err" ||
	fail "--progress on 3000 jobs exited $?"
bars "$tmp/long.err" | awk '$3 == 1 && $2 == 0 && $1 > 0 && $1 < 100 { f = 1 }
	END { exit !f }' ||
	fail "--progress on 3000 jobs: no bar while the row ran: $(bars "$tmp/long.err" | paste -sd' ' -)"

# 4. usage and input errors
expect_exit() {
	want=$1
	shift
	"$advise" "$@" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc = "$want" ] || fail "advise $*: exit $rc, want $want: $(cat "$tmp/err")"
}
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" --objective speed
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" --max-wait-ratio 0.9
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" --current nosuch
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" -w actrun
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" --golden x.json
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" --plugin cons_tres
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" --plugin topology -w combo
expect_exit 1 -c "$conf" -t "$sacct" -o "$tmp/u" --plugin topology --set PlanWindow=60
grep -q 'cannot use PlanWindow' "$tmp/err" ||
	fail "--plugin topology --set PlanWindow=60: no reason given: $(cat "$tmp/err")"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/topo-hold" --no-progress --no-sweep \
	--plugin topology --plan-hold released > /dev/null 2>&1 ||
	fail "--plugin topology --plan-hold released: exit $? (topology/locality honours PlanHold)"
printf '; MaxProcs: 16\n1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n' > "$tmp/t.swf"
expect_exit 2 --grid 4x4 -t "$tmp/t.swf" -o "$tmp/u" --current recorded
[ -e "$tmp/u" ] && fail "a failed advice created its output directory"
"$replay" -c "$conf" -t "$sacct" -o "$tmp/u" --objective hops > /dev/null 2>&1
[ $? = 1 ] || fail "locality-replay must refuse --objective"

# 5. real traces: an sacct export of a 10-node cluster and an SWF trace
# of Blue Gene/P midplanes (a 5x4x4 torus)
if [ ! -d "$traces" ]; then
	echo "SKIP real traces: $traces is absent (real traces live in ../shared/traces)"
else
	"$advise" --grid 2x5 -t "$traces/sacct/ubccr-micro-sacct.txt" \
		-o "$tmp/ubccr" -q --no-progress ||
		fail "advice on ubccr-micro-sacct exited $?"
	check ubccr-sacct "$tmp/ubccr" 1.05 hops
	grep -q '^0,recorded,0,' "$tmp/ubccr/ranking.csv" ||
		fail "ubccr: the export's NodeList gives no recorded row"
	"$advise" -t "$traces/ANL-Intrepid-2009-slice237.swf.gz" --grid 5x4x4 \
		--torus yes --scale-to 80 -o "$tmp/intrepid" -q --no-progress ||
		fail "advice on Intrepid exited $?"
	check intrepid-swf "$tmp/intrepid" 1.05 hops
	rows=$(($(grep -vc '^[^,]*,[^,]* ' "$tmp/intrepid/ranking.csv") - 1))
	[ "$rows" = $((nstrategies * nmodes + 1)) ] ||
		fail "intrepid: $rows rows, want every strategy x mode + current"
fi

if [ $fails -gt 0 ]; then
	echo "check-advise: $fails failures"
	exit 1
fi
echo "check-advise: all checks passed"
exit 0
