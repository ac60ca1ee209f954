#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# eval-test.sh - checks locality-eval without Slurm: metrics against values
# worked out by hand on a 4x4 grid, the summary statistics, jobcomp
# parsing, sacct -P output and its placement records, --predict, --plan,
# --check-overlap, --picture and the error messages.
# Run by `make check` from the build directory, or by hand:
#   testsuite/slurm/eval-test.sh [path/to/locality-eval]

set -u
EVAL=${1:-./src/tools/locality-eval}
[ -x "$EVAL" ] || { echo "eval-test.sh: $EVAL not built"; exit 1; }
T=$(mktemp -d /tmp/loc-eval-test.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
N=0 FAIL=0

check() { # name expected actual
	N=$((N + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $N - $1"
	else
		FAIL=$((FAIL + 1))
		echo "not ok $N - $1"
		echo "#   expected: $(printf '%s' "$2" | sed -n '1,12p' | sed '2,$s/^/#             /')"
		echo "#   got:      $(printf '%s' "$3" | sed -n '1,12p' | sed '2,$s/^/#             /')"
	fi
}

printf 'Dimensions=4x4\nTorus=no\nStrategy=freelist\nCurve=rowmajor\n' >"$T/mesh.conf"
printf 'Dimensions=4x4\nTorus=yes\nStrategy=freelist\nCurve=rowmajor\n' >"$T/torus.conf"
ev() { "$EVAL" --nodes 'n[01-16]' "$@"; }

# n01 is (0,0), n04 (0,3), n05 (1,0), n16 (3,3): row-major.
cat >"$T/jobs" <<'EOF'
# id nodes
a n[01-02]
b n01,n16
c n[01-04]
d n06
EOF
# Per job: k, average pairwise hops, span on the row-major curve, box
# volume, components. b: 3+3 hops apart on the mesh; c: 10 hops / 6 pairs.
check "per-job metrics on a 4x4 mesh" \
"a 2 1.000 2 2 1 n[01-02]
b 2 6.000 16 16 2 n[01,16]
c 4 1.667 4 4 1 n[01-04]
d 1 0.000 1 1 1 n06" \
	"$(ev --conf "$T/mesh.conf" "$T/jobs" | awk 'NR > 1 && !/^summary/ {print $1, $2, $3, $4, $5, $6, $7}')"

# Multi-node jobs a, b, c: mean (1 + 6 + 5/3) / 3, median 5/3, p95 the
# nearest rank ceil(0.95 * 3) = 3 -> 6; components (1 + 2 + 1 + 1) / 4.
check "summary statistics" \
	"summary: jobs=4 multinode=3 mean_avg_hops=2.889 median_avg_hops=1.667 p95_avg_hops=6.000 max_avg_hops=6.000 mean_components=1.250 mean_span=5.75 mean_bbox=5.75" \
	"$(ev --conf "$T/mesh.conf" --quiet "$T/jobs")"

check "torus wraparound: n01-n16 are 2 hops apart on a 4x4 torus" \
	"b 2.000" \
	"$(ev --conf "$T/torus.conf" "$T/jobs" | awk '$1 == "b" {print $1, $3}')"

check "JSON summary" \
	'"jobs":4,"multinode_jobs":3,"mean_avg_hops":2.888889' \
	"$(ev --conf "$T/mesh.conf" --json "$T/jobs" | grep -o '"jobs":4,"multinode_jobs":3,"mean_avg_hops":[0-9.]*')"

check "input from stdin" "c 1.667" \
	"$(echo 'c n[01-04]' | ev --conf "$T/mesh.conf" | awk '$1 == "c" {print $1, $3}')"

# jobcomp records: a job that never ran (NodeList=(null)) is skipped; one
# that ends in the second the next starts is not an overlap.
cat >"$T/jobcomp" <<'EOF'
JobId=1 UserId=root(0) Name=first JobState=COMPLETED StartTime=2026-01-01T00:00:00 EndTime=2026-01-01T00:00:10 NodeList=n[01-02] NodeCnt=2
JobId=2 UserId=root(0) Name=second JobState=COMPLETED StartTime=2026-01-01T00:00:10 EndTime=2026-01-01T00:00:20 NodeList=n[02,06] NodeCnt=2
JobId=3 UserId=root(0) Name=never JobState=CANCELLED StartTime=2026-01-01T00:00:12 EndTime=2026-01-01T00:00:12 NodeList=(null) NodeCnt=0
EOF
check "jobcomp parsing" \
"1 2 1.000
2 2 1.000" \
	"$(ev --conf "$T/mesh.conf" --jobcomp "$T/jobcomp" | awk 'NR > 1 && !/^summary/ {print $1, $2, $3}')"
check "jobcomp --name labels jobs by Name=" "first second" \
	"$(ev --conf "$T/mesh.conf" --jobcomp --name "$T/jobcomp" | awk 'NR > 1 && !/^summary/ {printf "%s%s", s, $1; s = " "}')"
"$EVAL" --check-overlap --jobcomp "$T/jobcomp" >/dev/null 2>&1
check "check-overlap: back-to-back jobs pass" 0 $?
echo 'JobId=4 Name=late JobState=COMPLETED StartTime=2026-01-01T00:00:05 EndTime=2026-01-01T00:00:15 NodeList=n06' >>"$T/jobcomp"
out=$("$EVAL" --check-overlap --jobcomp "$T/jobcomp" 2>&1)
check "check-overlap: a node in two jobs at once fails" "1 1" \
	"$? $(echo "$out" | grep -c '^overlap: node n06 in job 4 .* and job 2 ')"

# Picture at 00:00:12: jobs 2 (A, n02 and n06) and 4 (n06) run; n06 is
# in both -> '#'.
check "picture at a chosen time" \
". A . .
. # . .
. . . .
. . . ." \
	"$(ev --conf "$T/mesh.conf" --jobcomp --quiet --picture --at 2026-01-01T00:00:12 "$T/jobcomp" | sed -n '3,6p')"

# --ideal: the most compact set of each size on the idle 4x4 mesh, worked
# out by hand: 2 nodes 1 hop; 4 a 2x2 square (4 pairs at 1, 2 at 2: 8/6);
# 3 an L (1, 1, 2: 4/3); 16 the whole mesh (160 hops across, 160 down:
# 320/120).
check "ideal: one size, and each size of the jobs once" \
"4 1.333333
2 1.000000
3 1.333333
4 1.333333
16 2.666667" \
	"$(ev --conf "$T/mesh.conf" --ideal -k 4
	printf 'a n01\nb n[01-02]\nc n[05-07]\nd n[01-04]\ne n[09-12]\nf n[01-16]\n' |
		ev --conf "$T/mesh.conf" --ideal)"
ev --conf "$T/mesh.conf" --ideal -k 17 >/dev/null 2>"$T/err"
check "ideal: more nodes than the machine exits 1, and says so" "1 yes" \
	"$? $(grep -q 'no ideal for 17 nodes on a machine of 16' "$T/err" && echo yes)"

# --predict: freelist on the row-major curve takes the first free nodes.
check "predict: freelist, first free nodes in curve order" "n[04-06]" \
	"$(ev --conf "$T/mesh.conf" --predict -k 3 --busy 'n[01-03]')"
check "predict: a strategy override" "n[01-02]" \
	"$(ev --conf "$T/mesh.conf" --predict -k 2 --strategy mm --busy '')"
# --gres: the file's first GresName line naming one of the job's GRES.
printf 'GresName=gpu Strategy=mm\n' | cat "$T/mesh.conf" - >"$T/gres.conf"
check "predict: --gres gpu takes the GresName=gpu line's strategy" "n[05-06,09]" \
	"$(ev --conf "$T/gres.conf" --predict -k 3 --busy 'n[01-03]' --gres mps,gpu)"
check "predict: --gres naming no line's GRES keeps the file's strategy" "n[04-06]" \
	"$(ev --conf "$T/gres.conf" --predict -k 3 --busy 'n[01-03]' --gres gp)"
# Expands "n[04-05,10]" or "n06" into "n04 n05 n10" (enough for here).
names() {
	local body=${1#n} r out=""
	body=${body#[}
	body=${body%]}
	for r in ${body//,/ }; do
		if [ "${r#*-}" != "$r" ]; then
			out="$out $(seq -f 'n%02g' "$((10#${r%-*}))" "$((10#${r#*-}))" | tr '\n' ' ')"
		else
			out="$out n$r"
		fi
	done
	echo $out
}
out=$(names "$(ev --conf "$T/mesh.conf" --predict -k 3 --busy 'n[01-03]' --required n10)")
check "predict: required node included" "3 yes" \
	"$(echo "$out" | wc -w) $(case " $out " in *" n10 "*) echo yes ;; *) echo "no: $out" ;; esac)"
ev --conf "$T/mesh.conf" --predict -k 14 --busy 'n[01-03]' >/dev/null 2>&1
check "predict: too few free nodes exits 1" 1 $?
# --node-weight: the lightest tier that holds the job, then heavier ones.
check "predict: node weights, the light tier first" "n[09-11]" \
	"$(ev --conf "$T/mesh.conf" --predict -k 3 --busy '' \
		--node-weight 'n[01-08]=10' --node-weight 'n[13-16]=5')"
check "predict: node weights, heavier tiers join when it is short" \
	"n[09-16]" "$(ev --conf "$T/mesh.conf" --predict -k 8 --busy n01 \
		--node-weight 'n[01-08]=10' --node-weight 'n[13-16]=5')"
# Ten nodes need every tier: then locality alone (freelist) decides.
check "predict: node weights, all tiers for a job larger than the rest" \
	"n[02-11]" "$(ev --conf "$T/mesh.conf" --predict -k 10 --busy n01 \
		--node-weight 'n[01-08]=10' --node-weight 'n[13-16]=5')"
err=$(ev --conf "$T/mesh.conf" --predict -k 3 --node-weight 'n[01-08]' 2>&1)
check "predict: a weight without =W is refused" 1 $?
check "predict: ... and named" yes \
	"$(case $err in *"expected NODES=WEIGHT"*) echo yes ;; *) echo "$err" ;; esac)"
ev --conf "$T/mesh.conf" --predict -k 3 --node-weight 'x9=2' >/dev/null 2>&1
check "predict: a weight for an unknown node is refused" 1 $?

# --plan: freelist takes the first k candidates; n[01-04] free at 200,
# n[05-16] at 300 (n16 down).
check "plan: fits now" "100 n[05-06]" \
	"$(ev --conf "$T/mesh.conf" --plan -k 2 --now 100 --running 'n[01-04]@200')"
check "plan: the first release that leaves enough nodes" "200 n[01-03]" \
	"$(ev --conf "$T/mesh.conf" --plan -k 3 --now 100 --busy n16 \
		--running 'n[01-04]@200' --running 'n[05-15]@300')"
check "plan: jobs ending together free their nodes together" "300 n[01-06]" \
	"$(ev --conf "$T/mesh.conf" --plan -k 6 --now 100 --busy n16 \
		--running 'n[01-04]@200' --running 'n[05-10]@300' --running 'n[11-15]@300')"
ev --conf "$T/mesh.conf" --plan -k 16 --now 100 --busy n16 \
	--running 'n[01-15]@200' >/dev/null 2>&1
check "plan: never enough nodes exits 1" 1 $?
# PlanHold: at 200 the first four candidates are n[01-04], n01 free now.
# The answer holds them (placement, the default), or the released
# n[02-05] instead (released), unless too few are released.
check "plan: a later start holds its placement" "200 n[01-04]" \
	"$(ev --conf "$T/mesh.conf" --plan -k 4 --now 100 --busy n16 \
		--running 'n[02-05]@200' --running 'n[06-15]@300')"
printf 'PlanHold=released\n' | cat "$T/mesh.conf" - >"$T/hold.conf"
check "plan: PlanHold=released holds released nodes" "200 n[02-05]" \
	"$(ev --conf "$T/hold.conf" --plan -k 4 --now 100 --busy n16 \
		--running 'n[02-05]@200' --running 'n[06-15]@300')"
check "plan: PlanHold=released, too few released: the placement" "200 n[01-05]" \
	"$(ev --conf "$T/hold.conf" --plan -k 5 --now 100 --busy n16 \
		--running 'n[02-05]@200' --running 'n[06-15]@300')"
# CompactWait: at 100 the job (eligible at 90, patient until 180) would
# decline n01,n16 (6 hops; idle, the pair is 1 hop): it waits, with no
# start to reserve. With n16 busy until 150 it cannot start now: it
# declines n01,n16 at 150 and its answer is n02's release at 500.
printf 'CompactWait=90\n' | cat "$T/mesh.conf" - >"$T/wait.conf"
check "plan: a job declining the free nodes waits, no start" "waiting 180" \
	"$(ev --conf "$T/wait.conf" --plan -k 2 --now 100 --eligible 90 \
		--running 'n[02-15]@500')"
check "plan: a waiting job's answer is its first compact set" "500 n[01-02]" \
	"$(ev --conf "$T/wait.conf" --plan -k 2 --now 100 --eligible 90 \
		--running 'n[02-15]@500' --running 'n16@150')"
check "plan: past its deadline it takes what there is" "100 n[01,16]" \
	"$(ev --conf "$T/wait.conf" --plan -k 2 --now 100 --eligible 0 \
		--running 'n[02-15]@500')"
# Down nodes are no part of the reference: the pair left is the best.
check "plan: compact is judged against the nodes that can ever be used" "100 n[01,16]" \
	"$(ev --conf "$T/wait.conf" --plan -k 2 --now 100 --eligible 90 \
		--busy 'n[02-15]')"
out=$(ev --conf "$T/mesh.conf" --plan -k 2 --running 'n[01-02]' 2>&1)
check "plan: --running without @END" "1 locality-eval: --running 'n[01-02]': expected NODES@END" "$? $out"
out=$(ev --conf "$T/mesh.conf" --plan -k 2 --busy n01 --running 'n[01-02]@9' 2>&1)
check "plan: a node in two places" "1 yes" \
	"$? $(case $out in *"node n01 is also --busy"*) echo yes ;; *) echo "no: $out" ;; esac)"
out=$(ev --conf "$T/mesh.conf" --plan --predict -k 2 2>&1)
check "plan and predict together: exit 1" "1 locality-eval: --predict and --plan are two modes: give one" "$? $out"

# sacct -P output, with the placement records the plugins write into
# AdminComment (or SystemComment): the header names the columns, steps and
# jobs that never ran are skipped, other text in the field is kept apart
# from the record.
cat >"$T/sacct" <<'EOF'
JobID|Start|NodeList|AdminComment|SystemComment
7|2026-01-01T00:00:00|n[01-02]|locality strategy=pack nodes=2 hops=1.000 ideal=1.000|
7.batch|2026-01-01T00:00:00|n01||
8|2026-01-01T00:00:00|n[01-04]|node swap; ticket 12|locality strategy=pack nodes=4 hops=1.667 ideal=1.333
9|Unknown|None assigned||
10|2026-01-01T00:00:00|n01,n16|x|
EOF
check "sacct -P: jobs, steps skipped" "7 1.000
8 1.667
10 6.000" "$(ev --conf "$T/mesh.conf" "$T/sacct" | awk 'NR > 1 && !/^(summary|records)/ {print $1, $3}')"
# Mean of the records' hops (1 + 1.667) / 2 and ideals (1 + 1.333) / 2;
# x_ideal the mean of 1/1 and 1.667/1.333.
check "sacct -P: the records summed" \
	"records: jobs=2 multinode=2 mean_hops=1.333 mean_ideal=1.167 x_ideal=1.125 disagree=0" \
	"$(ev --conf "$T/mesh.conf" --quiet "$T/sacct" | grep '^records')"
out=$(printf '3|n[01-02]|locality strategy=pack nodes=2 hops=2.000 ideal=1.000\n' |
	ev --conf "$T/mesh.conf" --quiet 2>&1 >/dev/null)
check "sacct -P: a record its NodeList contradicts is named" \
	"locality-eval: <stdin>:1: job 3: its record says nodes=2 hops=2.000, its NodeList gives nodes=2 hops=1.000" "$out"
printf 'JobID|NodeList\n3|n01\n4|n[01-02]|locality strategy=x nodes=2 hops=-1 ideal=1\n' |
	ev --conf "$T/mesh.conf" >/dev/null 2>&1
check "sacct -P: a header without a comment column reads no record" "0" "$?"
out=$(printf '4|n[01-02]|locality strategy=x nodes=2 hops=-1 ideal=1\n' |
	ev --conf "$T/mesh.conf" 2>&1)
check "sacct -P: malformed record: exit 1, file:line" "1 locality-eval: <stdin>:1: job 4: malformed locality record in 'locality strategy=x nodes=2 hops=-1 ideal=1'" "$? $out"
out=$(printf 'JobID|State\n4|COMPLETED\n' | ev --conf "$T/mesh.conf" 2>&1)
check "sacct -P: no NodeList column: exit 1" "1 locality-eval: <stdin>:2: the sacct header names no NodeList column" "$? $out"

# Errors name the file and line.
printf 'Dimensions=4x4\nBogusKey=1\n' >"$T/bad.conf"
out=$(ev --conf "$T/bad.conf" "$T/jobs" 2>&1)
check "bad locality.conf: exit 1, file:line" "1 yes" \
	"$? $(case $out in "locality-eval: $T/bad.conf:2:"*) echo yes ;; *) echo "no: $out" ;; esac)"
out=$(printf 'a n01\nb n99\n' | ev --conf "$T/mesh.conf" 2>&1)
check "unknown node: exit 1, file:line" "1 locality-eval: <stdin>:2: job b: unknown node 'n99'" "$? $out"
out=$(printf 'a n01 x\n' | ev --conf "$T/mesh.conf" 2>&1)
check "malformed line: exit 1, file:line" "1 yes" \
	"$? $(case $out in "locality-eval: <stdin>:1: "*) echo yes ;; *) echo "no: $out" ;; esac)"
out=$(printf 'a n[01-02],n02\n' | ev --conf "$T/mesh.conf" 2>&1)
check "node twice in one job: exit 1" "1 locality-eval: <stdin>:1: job a: node 'n02' listed twice" "$? $out"

echo "$((N - FAIL)) passed, $FAIL failed"
[ "$FAIL" = 0 ]
