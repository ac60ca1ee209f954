#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# locality-advise --validate F, on the bundled example (no ../shared
# needed): the fitted advice is the one --limit K gives (K = floor(F x
# jobs), ranking.csv byte for byte), the predicted figures are that
# advice's for its rank 1, the replayed ones are an independent
# locality-replay of the whole trace with the advised and the current
# row, averaged with awk over the jobs submitted after the first K; the
# relative errors follow from both; the spread over windows of the
# fitted jobs is the same replays' (awk again); and bad values are refused in one
# line (a malformed fraction exit 1, a split that leaves nothing to fit
# on exit 2 naming the trace) with --out left alone.
set -u
srcdir=${srcdir:-.}
advise=${LOCALITY_ADVISE:-./src/replay/locality-advise}
replay=${LOCALITY_REPLAY:-./src/replay/locality-replay}
top=$(cd "$srcdir" && pwd)
data=$top/testsuite/replay/data
conf=$data/example-locality.conf
sacct=$data/example-sacct.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-validate.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
. "$top/testsuite/replay/advise-helpers.sh"

for bin in "$advise" "$replay"; do
	[ -x "$bin" ] || { echo "check-advise-validate: $bin not built" >&2; exit 99; }
done

# figure NAME COLUMN: a figure's column of validation.csv
figure() {
	awk -F, -v f="$1" -v c="$2" '$1 == f { print $c }' "$tmp/v/validation.csv"
}
# close A B TOL: |A - B| <= TOL
close() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(a != "" && b != "" && (d < 0 ? -d : d) <= t) }'
}

# 1. the run: 240 jobs, the first 120 fitted, 120 held out
"$advise" -c "$conf" -t "$sacct" -o "$tmp/v" --validate 0.5 \
	> "$tmp/v.out" 2> "$tmp/v.err" || fail "--validate 0.5 exited $?: $(cat "$tmp/v.err")"
for f in advice.txt ranking.csv validation.csv tradeoff.svg summary.json; do
	[ -s "$tmp/v/$f" ] || fail "no $f"
done
[ "$(sed -n 1p "$tmp/v/validation.csv")" = \
	"figure,row,claim,predicted,replayed,rel_error,target,within_target,noise_min,noise_max,noise_median,fitted_median" ] ||
	fail "validation.csv header: $(sed -n 1p "$tmp/v/validation.csv")"
[ "$(grep -c '^validate: figure=' "$tmp/v/advice.txt")" = 6 ] ||
	fail "advice.txt: not 6 'validate: figure=' lines"
grep -q '^validate: row=[^ ]* current=bestfit/rowmajor advised=1 fit_jobs=120 held_out_jobs=120 compared_jobs=120 not_served=0$' \
	"$tmp/v/advice.txt" || fail "advice.txt: no validate: row= line for 120 + 120 jobs"
grep -q '^figure  *row  *predicted  *replayed  *rel_err' "$tmp/v.out" ||
	fail "stdout: no validation table"
sed -n '/^validation:/,$p' "$tmp/v/advice.txt" > "$tmp/a.tail"
sed -n '/^validation:/,$p' "$tmp/v.out" | cmp -s - "$tmp/a.tail" ||
	fail "the validation in advice.txt differs from stdout's"

# 2. the fit is the advice on the first 120 jobs alone
"$advise" -c "$conf" -t "$sacct" -o "$tmp/lim" --limit 120 -q ||
	fail "--limit 120 exited $?"
cmp -s "$tmp/v/ranking.csv" "$tmp/lim/ranking.csv" ||
	fail "--validate 0.5's ranking.csv is not --limit 120's"
best=$(awk -F, '$1 == 1 { print $2 }' "$tmp/lim/ranking.csv")
[ -n "$best" ] || fail "no rank 1 in the --limit 120 advice"
[ "$(figure mean_hops 2)" = "$best" ] || fail "the advised row is '$(figure mean_hops 2)', rank 1 is '$best'"
pred() { awk -F, -v r="$1" -v c="$2" '$2 == r { print $c }' "$tmp/lim/ranking.csv"; }
close "$(figure mean_hops 4)" "$(pred "$best" 6)" 1e-9 || fail "predicted mean hops is not the fit's"
close "$(figure mean_wait_s 4)" "$(pred "$best" 7)" 1e-3 || fail "predicted mean wait is not the fit's"
close "$(figure hops_x 4)" "$(pred "$best" 10)" 1e-9 || fail "predicted hops_x is not the fit's hops_vs_current"
close "$(figure wait_x 4)" "$(pred "$best" 11)" 1e-9 || fail "predicted wait_x is not the fit's wait_vs_current"
close "$(figure current_mean_hops 4)" "$(pred bestfit/rowmajor 6)" 1e-9 ||
	fail "predicted current mean hops is not the fit's"

# 3. the replayed figures: locality-replay of all 240 jobs with each row,
# averaged over the jobs submitted after the 120th (no tie there)
held() { # ROW -> "hops wait" over the held-out jobs of its replay
	row=$1 mode=none
	case $row in *+*) mode=${row#*+} ;; esac
	rm -rf "$tmp/rp"
	"$replay" -c "$conf" -t "$sacct" -s "${row%+*}" -w "$mode" \
		--no-recorded --no-svg -q -o "$tmp/rp" || { fail "replay of $row exited $?"; return; }
	csv=$(ls "$tmp"/rp/*.csv)
	s120=$(awk -F, 'NR > 1 { print $2 }' "$csv" | sort -n | sed -n 120p)
	s121=$(awk -F, 'NR > 1 { print $2 }' "$csv" | sort -n | sed -n 121p)
	[ "$s120" -lt "$s121" ] || fail "the 120th and 121st jobs tie: the test's split is ambiguous"
	awk -F, -v t="$s121" 'NR > 1 && $2 >= t { n++; h += $7; w += $3 - $2 }
		END { printf "%d %.9f %.9f\n", n, h / n, w / n }' "$csv"
}
set -- $(held "$best")
[ "${1:-}" = 120 ] || fail "$best: ${1:-no} held-out jobs in the replay, want 120"
bh=${2:-} bw=${3:-}
set -- $(held bestfit/rowmajor)
ch=${2:-} cw=${3:-}
close "$(figure mean_hops 5)" "$bh" 2e-6 || fail "replayed mean hops $(figure mean_hops 5), locality-replay $bh"
close "$(figure mean_wait_s 5)" "$bw" 1e-3 || fail "replayed mean wait $(figure mean_wait_s 5), locality-replay $bw"
close "$(figure current_mean_hops 5)" "$ch" 2e-6 || fail "replayed current hops $(figure current_mean_hops 5), locality-replay $ch"
close "$(figure current_mean_wait_s 5)" "$cw" 1e-3 || fail "replayed current wait $(figure current_mean_wait_s 5), locality-replay $cw"
close "$(figure hops_x 5)" "$(awk -v a="$bh" -v b="$ch" 'BEGIN { print a / b }')" 1e-5 ||
	fail "replayed hops_x is not the replays' ratio"
close "$(figure wait_x 5)" "$(awk -v a="$bw" -v b="$cw" 'BEGIN { print a / b }')" 1e-5 ||
	fail "replayed wait_x is not the replays' ratio"
# the relative error of every figure, and its verdict against the target
awk -F, 'NR > 1 { e = ($5 - $4) / $4; d = e - $6; if (d < 0) d = -d
	if (d > 1e-5) print $1 ": rel_error " $6 ", recomputed " e
	m = ((e < 0 ? -e : e) <= $7) ? "yes" : "no"
	if (m != $8) print $1 ": within_target " $8 ", recomputed " m
	if ($7 != (($1 ~ /wait/) ? "0.15" : "0.05")) print $1 ": target " $7 }' \
	"$tmp/v/validation.csv" > "$tmp/bad"
[ -s "$tmp/bad" ] && fail "validation.csv: $(head -3 "$tmp/bad")"

# 4. the spread: at --validate 0.75 (180 fitted, 60 held out) the same
# whole-trace replays measured on the 180 fitted jobs, and on windows of
# 60 of them, one every 15 (9 windows), recomputed with awk from
# locality-replay's CSVs of the advised row and the current
"$advise" -c "$conf" -t "$sacct" -o "$tmp/v75" --validate 0.75 -q > /dev/null ||
	fail "--validate 0.75 exited $?"
spread() { # FIGURE -> "fitted windows window_jobs window_step min max"
	sed -n "s/^validate: spread figure=$1 fitted=\([^ ]*\) windows=\([^ ]*\) window_jobs=\([^ ]*\) window_step=\([^ ]*\) min=\([^ ]*\) max=\([^ ]*\)\$/\1 \2 \3 \4 \5 \6/p" \
		"$tmp/v75/advice.txt"
}
best75=$(awk -F, '$1 == "hops_x" { print $2 }' "$tmp/v75/validation.csv")
rm -rf "$tmp/r75" "$tmp/c75"
"$replay" -c "$conf" -t "$sacct" $(row_opts "$best75") --no-recorded --no-svg -q -o "$tmp/r75" ||
	fail "replay of '$best75' exited $?"
"$replay" -c "$conf" -t "$sacct" -s bestfit/rowmajor --no-recorded --no-svg -q -o "$tmp/c75" ||
	fail "replay of bestfit/rowmajor exited $?"
# job_id submit hops wait of each, in submit order; ties at a window edge
# would make the windows ambiguous
for r in r75 c75; do
	awk -F, 'NR > 1 { print $1, $2, $7, $3 - $2 }' "$tmp"/$r/*.csv | sort -k2,2n > "$tmp/$r.jobs"
done
awk 'NR == FNR { s[FNR] = $2; next }
	FNR == 1 { for (e = 15; e <= 180; e += 15) if (s[e] == s[e + 1]) print e }' \
	"$tmp/c75.jobs" "$tmp/c75.jobs" | grep -q . && fail "submit ties at a window edge: the test is ambiguous"
# ratio of sums over jobs of ranks (lo, hi] in the current's submit order
windows=$(awk 'NR == FNR { rh[$1] = $3; rw[$1] = $4; next }
	{ n++; id[n] = $1; ch[n] = $3; cw[n] = $4 }
	function fig(lo, hi,   i, a, b, c, d) {
		for (i = lo + 1; i <= hi; i++) { a += rh[id[i]]; b += ch[i]; c += rw[id[i]]; d += cw[i] }
		return (a / b) " " (c / d)
	}
	END {
		split(fig(0, 180), f); print "fitted", f[1], f[2]
		for (lo = 0; lo + 60 <= 180; lo += 15) {
			split(fig(lo, lo + 60), f); k++
			if (k == 1 || f[1] < h0) h0 = f[1]; if (k == 1 || f[1] > h1) h1 = f[1]
			if (k == 1 || f[2] < w0) w0 = f[2]; if (k == 1 || f[2] > w1) w1 = f[2]
		}
		print "hops_x", k, h0, h1; print "wait_x", k, w0, w1
	}' "$tmp/r75.jobs" "$tmp/c75.jobs")
for fig in hops_x wait_x; do
	set -- $(spread $fig)
	[ $# = 6 ] || { fail "advice.txt: no 'validate: spread figure=$fig' line"; continue; }
	[ "$2 $3 $4" = "9 60 15" ] || fail "$fig: windows=$2 window_jobs=$3 window_step=$4, want 9 60 15"
	col=2
	[ $fig = wait_x ] && col=3
	want=$(echo "$windows" | awk -v c=$col '$1 == "fitted" { print $c }')
	close "$1" "$want" 1e-5 || fail "$fig over the fitted jobs: $1, locality-replay $want"
	set -- "$1" "$5" "$6" $(echo "$windows" | awk -v f=$fig '$1 == f { print $3, $4 }')
	close "$2" "$4" 1e-5 || fail "$fig: least over the windows $2, locality-replay $4"
	close "$3" "$5" 1e-5 || fail "$fig: greatest over the windows $3, locality-replay $5"
done
grep -q '^over 9 windows of 60 fitted jobs (one every 15): hops_x ' "$tmp/v75/advice.txt" ||
	fail "advice.txt: no 'over 9 windows' line"
# fewer fitted than held out: no window, said so
"$advise" -c "$conf" -t "$sacct" -o "$tmp/v40" --validate 0.4 -q > /dev/null ||
	fail "--validate 0.4 exited $?"
grep -q '^validate: spread figure=hops_x fitted=[0-9.]* windows=0 window_jobs=144 ' "$tmp/v40/advice.txt" ||
	fail "--validate 0.4: no 'windows=0 window_jobs=144' spread line"
grep -q '^fewer jobs fitted than held out' "$tmp/v40/advice.txt" ||
	fail "--validate 0.4: the missing windows are not said"

# 4b. the replay's noise: the held-out figures again with every submit
# moved, least and greatest over the replay and 4 draws, recomputed from
# locality-replay's CSVs. By default 1 s; --arrival-jitter 600 moves the
# replay itself (seed 1) and sets the draws' jitter (seeds 2-5). The
# held-out jobs are ranks 181-240 of the replay's current in submit order,
# counted where each draw's current ran them.
grep -q '^validate: noise figure=hops_x draws=4 jitter_s=1 min=[0-9.]* max=[0-9.]* median=[0-9.]* fitted_median=[0-9.]* ' "$tmp/v75/advice.txt" ||
	fail "advice.txt: no 'validate: noise figure=hops_x draws=4 jitter_s=1' line"
grep -q '^the held-out replay again with every submit moved by up to 1 s (4 draws): hops_x ' "$tmp/v75/advice.txt" ||
	fail "advice.txt: no noise line"
[ "$(sed -n 1p "$tmp/v75/validation.csv")" = \
	"figure,row,claim,predicted,replayed,rel_error,target,within_target,noise_min,noise_max,noise_median,fitted_median" ] ||
	fail "validation.csv header: $(sed -n 1p "$tmp/v75/validation.csv")"
"$advise" -c "$conf" -t "$sacct" -o "$tmp/vj" --validate 0.75 --arrival-jitter 600 -q > /dev/null ||
	fail "--validate 0.75 --arrival-jitter 600 exited $?"
bestj=$(awk -F, '$1 == "hops_x" { print $2 }' "$tmp/vj/validation.csv")
noise=$(for seed in 1 2 3 4 5; do
	rm -rf "$tmp/rn" "$tmp/cn"
	"$replay" -c "$conf" -t "$sacct" $(row_opts "$bestj") --arrival-jitter 600 --jitter-seed $seed \
		--no-recorded --no-svg -q -o "$tmp/rn" || fail "replay of '$bestj' seed $seed exited $?"
	"$replay" -c "$conf" -t "$sacct" -s bestfit/rowmajor --arrival-jitter 600 --jitter-seed $seed \
		--no-recorded --no-svg -q -o "$tmp/cn" || fail "replay of bestfit/rowmajor seed $seed exited $?"
	if [ $seed = 1 ]; then
		awk -F, 'NR > 1 { print $1, $2 }' "$tmp"/cn/*.csv | sort -k2,2n > "$tmp/cn1.jobs"
		awk 'NR == 180 { s = $2 } NR == 181 && $2 == s { exit 1 }' "$tmp/cn1.jobs" ||
			fail "jittered submit tie at the split: the test is ambiguous"
		awk 'NR > 180 { print $1 }' "$tmp/cn1.jobs" > "$tmp/heldj"
	fi
	draw_ratios "$tmp/rn" "$tmp/cn" "$tmp/heldj"
done | draw_spread)
# the fitted medians are rank 1's in the advice's noise table, and that
# table's draws replay the fitted jobs alone: the first 180 of each
# draw's jittered order (--limit 180), recomputed here
fitted=$(for seed in 1 2 3 4 5; do
	rm -rf "$tmp/rn" "$tmp/cn"
	"$replay" -c "$conf" -t "$sacct" $(row_opts "$bestj") --arrival-jitter 600 --jitter-seed $seed \
		--limit 180 --no-recorded --no-svg -q -o "$tmp/rn" || fail "fit replay of '$bestj' seed $seed exited $?"
	"$replay" -c "$conf" -t "$sacct" -s bestfit/rowmajor --arrival-jitter 600 --jitter-seed $seed \
		--limit 180 --no-recorded --no-svg -q -o "$tmp/cn" || fail "fit replay of bestfit/rowmajor seed $seed exited $?"
	draw_ratios "$tmp/rn" "$tmp/cn"
done | draw_spread)
# draw_spread's fields of a figure: 1-3 for hops_x, 4-6 for wait_x
fig_spread() { # FIGURE SPREAD -> least median greatest
	case $1 in hops_x) echo "$2" | awk '{ print $1, $2, $3 }' ;; *) echo "$2" | awk '{ print $4, $5, $6 }' ;; esac
}
for fig in hops_x wait_x; do
	set -- $(sed -n "s/^validate: noise figure=$fig draws=\([^ ]*\) jitter_s=\([^ ]*\) min=\([^ ]*\) max=\([^ ]*\) median=\([^ ]*\) fitted_median=\([^ ]*\) median_rel_error=\([^ ]*\) .*/\1 \2 \3 \4 \5 \6 \7/p" "$tmp/vj/advice.txt")
	[ $# = 7 ] || { fail "--arrival-jitter 600: no 'validate: noise figure=$fig' line"; continue; }
	[ "$1 $2" = "4 600" ] || fail "$fig: noise draws=$1 jitter_s=$2, want 4 600"
	fitmed=$(sed -n "s/^noise: rank=1 row=.* ${fig}_median=\([^ ]*\) .*/\1/p" "$tmp/vj/advice.txt")
	close "$6" "$fitmed" 1e-6 || fail "$fig: fitted_median $6, the noise table's rank 1 $fitmed"
	fitrep=$(fig_spread $fig "$fitted" | awk '{ print $2 }')
	close "$6" "$fitrep" 1e-5 || fail "$fig: fitted_median $6, locality-replay of the fitted jobs $fitrep"
	close "$7" "$(awk -v m="$5" -v f="$6" 'BEGIN { print (m - f) / f }')" 1e-5 ||
		fail "$fig: median_rel_error $7 is not (median - fitted_median) / fitted_median"
	set -- "$3" "$4" "$5" $(fig_spread $fig "$noise")
	close "$1" "$4" 1e-5 || fail "$fig: least under jitter $1, locality-replay $4"
	close "$2" "$6" 1e-5 || fail "$fig: greatest under jitter $2, locality-replay $6"
	close "$3" "$5" 1e-5 || fail "$fig: median under jitter $3, locality-replay $5"
done
# the check means something only if the draws moved the figures
echo "$noise" | awk '{ exit !($3 > $1 && $6 > $4) }' ||
	fail "the jitter did not move both figures on the example: the noise check is void ($noise)"

# 5. a current placement that is the trace's own: it runs, and names it
"$advise" -c "$conf" -t "$sacct" -o "$tmp/rec" --validate 0.5 --current recorded -q ||
	fail "--validate with --current recorded exited $?"
grep -q '^current_mean_hops,recorded,' "$tmp/rec/validation.csv" ||
	fail "--current recorded: the current row is not 'recorded'"

# 6. bad values: one line, the exit status, --out untouched (-q: no
# reading report on stderr)
expect_bad() { # STATUS TEXT ARGS...
	want=$1 text=$2
	shift 2
	rm -rf "$tmp/bad-out"
	"$advise" -q -c "$conf" -t "$sacct" -o "$tmp/bad-out" "$@" > "$tmp/o" 2> "$tmp/e"
	rc=$?
	[ $rc = "$want" ] || fail "advise $*: exit $rc, want $want"
	# one line (a usage error adds the usual "Try ... --help" hint)
	[ "$(grep -vc "^Try 'locality-advise --help'" "$tmp/e")" = 1 ] ||
		fail "advise $*: $(wc -l < "$tmp/e") lines on stderr, want 1"
	grep -q -- "$text" "$tmp/e" || fail "advise $*: stderr '$(cat "$tmp/e")' lacks '$text'"
	[ -s "$tmp/o" ] && fail "advise $*: wrote on stdout"
	[ -e "$tmp/bad-out" ] && fail "advise $*: created --out"
	ls "$tmp" | grep -q '^bad-out\.' && fail "advise $*: left a temporary directory"
}
for v in 0 1 1.5 -0.5 abc 0.5x ''; do
	expect_bad 1 "validate" --validate "$v"
done
# 0.004 x 240 = 0.96: no job to fit on; the trace is named
expect_bad 2 "^locality-advise: $sacct: --validate 0.004: 0 of the 240 jobs to fit on, 240 held out" \
	--validate 0.004
"$replay" -c "$conf" -t "$sacct" -o "$tmp/rv" --validate 0.5 > /dev/null 2> "$tmp/e"
[ $? = 1 ] || fail "locality-replay must refuse --validate"

if [ $fails -gt 0 ]; then
	echo "check-advise-validate: $fails failures"
	exit 1
fi
echo "check-advise-validate: all checks passed"
exit 0
