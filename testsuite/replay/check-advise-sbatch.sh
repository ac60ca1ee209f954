#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# locality-advise --sbatch without Slurm: a fake sbatch on PATH runs each
# array task and each dependent job at once, in order. The merged
# advice.txt, ranking.csv, tradeoff.svg and summary.json must be
# byte-identical to a run on one machine (sweep included); a run resumes
# (a deleted row file is replayed, no other); a corrupt or foreign row
# file is a one-line error naming file and line (exit 2); sbatch's own
# error text is shown when it refuses a job.
set -u
srcdir=${srcdir:-.}
advise=${LOCALITY_ADVISE:-./src/replay/locality-advise}
top=$(cd "$srcdir" && pwd)
data=$top/testsuite/replay/data
traces=$top/../shared/traces
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-sbatch.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
outputs="advice.txt ranking.csv tradeoff.svg summary.json"

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

[ -x "$advise" ] || { echo "check-advise-sbatch: $advise not built" >&2; exit 99; }
advise=$(cd "$(dirname "$advise")" && pwd)/$(basename "$advise")

# The fake sbatch: job ids from 101, every job run when submitted, its
# output appended to $FAKE/log; FAKE_SBATCH_FAIL makes it refuse.
mkdir "$tmp/bin"
cat > "$tmp/bin/sbatch" <<'FAKE'
#!/bin/sh
if [ -n "${FAKE_SBATCH_FAIL:-}" ]; then
	echo "sbatch: error: Batch job submission failed: $FAKE_SBATCH_FAIL" >&2
	exit 1
fi
array= wrap=
for a; do
	case $a in
	--array=*) array=${a#--array=} ;;
	--wrap=*) wrap=${a#--wrap=} ;;
	--dependency=afterok:*|--parsable|--job-name=*|--output=*) ;;
	--partition=*) echo "$a" >> "$FAKE/partitions" ;;
	*) echo "fake sbatch: unexpected option $a" >&2; exit 1 ;;
	esac
done
n=$(cat "$FAKE/count" 2>/dev/null || echo 100)
n=$((n + 1))
echo "$n" > "$FAKE/count"
if [ -n "$array" ]; then
	for item in $(echo "$array" | tr , ' '); do
		i=${item%-*}
		while [ "$i" -le "${item#*-}" ]; do
			SLURM_ARRAY_TASK_ID=$i sh -c "$wrap" >> "$FAKE/log" 2>&1 ||
				{ echo "fake sbatch: task $i failed" >&2; exit 1; }
			i=$((i + 1))
		done
	done
else
	sh -c "$wrap" >> "$FAKE/log" 2>&1 ||
		{ echo "fake sbatch: job failed" >&2; exit 1; }
fi
echo "$n"
FAKE
chmod +x "$tmp/bin/sbatch"
PATH=$tmp/bin:$PATH
export PATH

# same NAME DIR1 DIR2: the outputs are byte-identical
same() {
	for f in $outputs; do
		[ -s "$2/$f" ] || { fail "$1: no $f in $2"; continue; }
		cmp -s "$2/$f" "$3/$f" || fail "$1: $f differs from the local run"
	done
}

# compare NAME ARGS...: one machine against --sbatch (fake), in a fresh
# state; leaves $tmp/NAME.local, $tmp/NAME.sb and FAKE=$tmp/NAME.fake
compare() {
	name=$1
	shift
	FAKE=$tmp/$name.fake
	export FAKE
	mkdir "$FAKE"
	"$advise" "$@" -q -o "$tmp/$name.local" ||
		{ fail "$name: the local run failed"; return 1; }
	"$advise" "$@" -q -o "$tmp/$name.sb" --sbatch \
		--sbatch-args "--partition=batch" 2> "$tmp/$name.err" ||
		{ fail "$name: --sbatch failed: $(cat "$tmp/$name.err")"; return 1; }
	same "$name" "$tmp/$name.local" "$tmp/$name.sb"
	[ -s "$FAKE/partitions" ] || fail "$name: --sbatch-args not passed"
	grep -q "batch 0: " "$tmp/$name.err" ||
		fail "$name: no submission reported: $(cat "$tmp/$name.err")"
	return 0
}

conf=$data/example-locality.conf
sacct=$data/example-sacct.txt

# 1. the bundled example, with and without the sweep
compare ex -c "$conf" -t "$sacct"
grep -q "^sweep: [1-9]" "$tmp/ex.local/advice.txt" ||
	fail "ex: the sweep added no row: the phases are not exercised"
[ "$(grep -c 'merges them' "$tmp/ex.fake/log")" -ge 2 ] ||
	fail "ex: the sweep's batches were not submitted as arrays"
compare nosweep -c "$conf" -t "$sacct" --no-sweep --objective wait

# 2. resumable: one row file deleted, only that row replayed again
FAKE=$tmp/ex.fake
rows=$tmp/ex.sb/sbatch/rows
victim=$(ls "$rows" | sed -n 5p)
rm -f "$rows/$victim" "$tmp/ex.sb/advice.txt" "$tmp/ex.sb/ranking.csv"
: > "$FAKE/log"
"$advise" --resume "$tmp/ex.sb" 2> "$tmp/resume.err" ||
	fail "resume failed: $(cat "$tmp/resume.err")"
n=$(grep -c ': replayed, ' "$FAKE/log")
[ "$n" = 1 ] || fail "resume replayed $n rows, expected 1"
grep -q "replayed, $rows/$victim" "$FAKE/log" ||
	fail "resume did not replay the deleted row $victim"
same resume "$tmp/ex.local" "$tmp/ex.sb"
# --sbatch again on a finished run: nothing submitted, same outputs
count=$(cat "$FAKE/count")
"$advise" -c "$conf" -t "$sacct" -q -o "$tmp/ex.sb" --sbatch ||
	fail "--sbatch on a finished run failed"
[ "$(cat "$FAKE/count")" = "$count" ] ||
	fail "--sbatch on a finished run submitted jobs"
same again "$tmp/ex.local" "$tmp/ex.sb"

# 3. a corrupt row file: one line naming file and line, exit 2
cp "$rows/$victim" "$tmp/victim.row"
sed '6s/^job \([0-9]*\) [0-9-]*/job \1 x1/' "$tmp/victim.row" > "$rows/$victim"
"$advise" --resume "$tmp/ex.sb" > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
[ "$rc" = 2 ] || fail "corrupt row file: exit $rc, expected 2"
[ "$(wc -l < "$tmp/bad.err")" = 1 ] ||
	fail "corrupt row file: not one line: $(cat "$tmp/bad.err")"
grep -q "$rows/$victim:6: " "$tmp/bad.err" ||
	fail "corrupt row file: file and line not named: $(cat "$tmp/bad.err")"
# a row file of another row (right format, wrong row), and a truncated one
other=$(ls "$rows" | sed -n 6p)
cp "$rows/$other" "$rows/$victim"
"$advise" --resume "$tmp/ex.sb" 2> "$tmp/bad.err"
rc=$?
[ "$rc" = 2 ] && grep -q "$rows/$victim:3: .*row name" "$tmp/bad.err" ||
	fail "foreign row file: exit $rc: $(cat "$tmp/bad.err")"
head -n 8 "$tmp/victim.row" > "$rows/$victim"
"$advise" --resume "$tmp/ex.sb" 2> "$tmp/bad.err"
rc=$?
[ "$rc" = 2 ] && grep -q "$rows/$victim:9: " "$tmp/bad.err" ||
	fail "truncated row file: exit $rc: $(cat "$tmp/bad.err")"
# well formed but not a replay: a job that ran longer than its runtime
awk '/^job 2 /{ $4 = $4 + 5 } { print }' "$tmp/victim.row" > "$rows/$victim"
"$advise" --resume "$tmp/ex.sb" 2> "$tmp/bad.err"
rc=$?
[ "$rc" = 2 ] && grep -q "$rows/$victim: not a replay of row" "$tmp/bad.err" ||
	fail "impossible row file: exit $rc: $(cat "$tmp/bad.err")"
cp "$tmp/victim.row" "$rows/$victim"

# a sweep row whose replay failed its invariant check (as an array task
# records it: LOC_EINVAL is -1) is dropped by the merge, as a local sweep
# drops it
swept=$(grep -l '^name .* cw=' "$rows"/*.row | head -n 1)
cp "$swept" "$tmp/swept.row"
{
	sed -n 1,3p "$tmp/swept.row"
	echo "failed -1 row X: simulator invariant broken: forged"
	echo end
} > "$swept"
"$advise" --resume "$tmp/ex.sb" > /dev/null 2> "$tmp/drop.err" ||
	fail "a failed sweep row: exit $?: $(cat "$tmp/drop.err")"
grep -q "1 row dropped: .*forged" "$tmp/ex.sb/advice.txt" ||
	fail "a failed sweep row is not reported dropped"
cp "$tmp/swept.row" "$swept"
"$advise" --resume "$tmp/ex.sb" > /dev/null 2>&1 || fail "resume after restoring"
same restored "$tmp/ex.local" "$tmp/ex.sb"

# 4. another run's arguments into the same --out: refused, exit 2
"$advise" -c "$conf" -t "$sacct" -q -o "$tmp/ex.sb" --sbatch \
	--objective wait 2> "$tmp/plan.err"
rc=$?
[ "$rc" = 2 ] && grep -q "plan of another run" "$tmp/plan.err" ||
	fail "another plan: exit $rc: $(cat "$tmp/plan.err")"

# 5. sbatch refuses: its own words, exit 4
FAKE_SBATCH_FAIL="Invalid partition name specified" \
	"$advise" -c "$conf" -t "$sacct" -q -o "$tmp/refused" --sbatch \
	2> "$tmp/refused.err"
rc=$?
[ "$rc" = 4 ] && grep -q "sbatch failed (exit 1): sbatch: error: .*Invalid partition" \
	"$tmp/refused.err" || fail "sbatch refusal: exit $rc: $(cat "$tmp/refused.err")"

# 6. a real sacct export when ../shared/traces has it
micro=$traces/sacct/ubccr-micro-sacct.txt
if [ -r "$micro" ]; then
	compare micro -t "$micro" --derive-grid
else
	echo "check-advise-sbatch: $micro absent, skipped"
fi

if [ "$fails" -gt 0 ]; then
	echo "check-advise-sbatch: $fails failure(s)"
	exit 1
fi
echo "check-advise-sbatch: all checks passed"
