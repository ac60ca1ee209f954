#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# valgrind.sh - memcheck runs.
#
#   scripts/valgrind.sh [--build DIR]
#       every unit test program, every fuzz target over its seeds and
#       regression inputs, and a short locality-replay, each under
#       valgrind memcheck; fails on any memory error or definite leak.
#   scripts/valgrind.sh --slurmctld [--build DIR] [--nodes N] [--rundir DIR]
#       a local cluster (testsuite/slurm/cluster.sh) with SelectType=
#       select/locality and slurmctld under memcheck: jobs of mixed sizes,
#       a `scontrol reconfigure` to a changed locality.conf, more jobs,
#       slurmctld killed -9 with jobs running and restarted (memcheck
#       again), more jobs, a clean shutdown (for the leak report; the
#       killed process's log has its errors, no leak report); fails on
#       any error or definite leak with a
#       select_locality/loc_/sl_ frame, or when a job does not finish.
#
# Each check prints "ok N - ..." or "not ok N - ..."; the last line is
# "N passed, N failed" (--slurmctld: "slurm 24.11 valgrind-slurmctld:
# N passed, N failed", naming the Slurm version it ran).
# DIR is a configured and built tree (default: build, as scripts/setup.sh
# makes it; the plugin must be built there for --slurmctld). Logs go to
# DIR/valgrind/. Ports for --slurmctld: LOC_CTLD_PORT (default 6917) and
# LOC_NODE_PORT0 (default 27001), away from the integration suite's.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
mode=unit
nodes=16
rundir=
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--slurmctld) mode=slurmctld; shift ;;
	--nodes) nodes=$2; shift 2 ;;
	--rundir) rundir=$2; shift 2 ;;
	-h|--help) sed -n '4,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "valgrind.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind not installed (apt-get install valgrind)" >&2; exit 2; }
[ -f "$build/Makefile" ] || { echo "valgrind.sh: $build is not a configured build (run scripts/setup.sh)" >&2; exit 2; }
build=$(cd "$build" && pwd)
grep -q -- '-fsanitize=' "$build/Makefile" &&
	{ echo "valgrind.sh: $build is a sanitizer build; valgrind needs a plain one" >&2; exit 2; }
vdir="$build/valgrind"
mkdir -p "$vdir"

VG=(valgrind --tool=memcheck --error-exitcode=1 --leak-check=full
	--errors-for-leak-kinds=definite --show-leak-kinds=definite
	--num-callers=30)

# "N errors, M bytes definitely lost" from a memcheck log.
vg_counts() {
	local e l
	e=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$1" | tr -d , | tail -n 1)
	l=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$1" | tr -d , | tail -n 1)
	echo "${e:-?} ${l:-0}"
}

# ---------------------------------------------------------------------
# Unit tests, fuzz regression inputs, a short replay
# ---------------------------------------------------------------------
run_unit() {
	local status=0 n=0 bad=0 name log rc counts t
	echo "valgrind: building the test programs in $build"
	# Builds the check programs only; its (empty) test log goes aside so
	# that build/test-suite.log keeps the last real `make check`.
	make -C "$build" -j2 check TESTS= TEST_SUITE_LOG="$vdir/test-suite.log" >/dev/null
	cd "$build"
	summary="$vdir/summary.txt"
	: > "$summary"

	# One memcheck run: $1 = name, rest = command.
	vg() {
		name=$1
		shift
		log="$vdir/$name.log"
		rc=0
		"${VG[@]}" --log-file="$log" "$@" > "$vdir/$name.out" 2>&1 || rc=$?
		counts=$(vg_counts "$log")
		n=$((n + 1))
		if [ $rc -ne 0 ] || [ "${counts%% *}" != 0 ]; then
			bad=$((bad + 1))
			status=1
			printf 'not ok %d - %s under memcheck # exit %d, %s errors, %s B definitely lost (%s)\n' \
				$n "$name" $rc "${counts%% *}" "${counts##* }" "$log" | tee -a "$summary"
		else
			printf 'ok %d - %s under memcheck: 0 errors, %s B definitely lost\n' \
				$n "$name" "${counts##* }" | tee -a "$summary"
		fi
	}

	for t in testsuite/unit/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		case $t in *.*) continue ;; esac
		# It reports which vector levels this CPU ran, and skips (77)
		# when one went untested: under memcheck, whose CPU has no
		# AVX-512, it would always skip. make check runs it natively.
		if [ "$(basename "$t")" = test_loc_simd_levels ]; then
			echo "# test_loc_simd_levels: not run under memcheck (valgrind's CPU has no AVX-512; make check runs it natively)"
			continue
		fi
		vg "$(basename "$t")" "./$t"
	done
	for t in conf hostlist swf sacct machine record; do
		local args=()
		[ -x "testsuite/fuzz/fuzz_$t" ] || continue
		[ -d "$top/testsuite/fuzz/seeds/$t" ] && args+=("$top/testsuite/fuzz/seeds/$t")
		[ -d "$top/testsuite/fuzz/regressions/$t" ] && args+=("$top/testsuite/fuzz/regressions/$t")
		vg "fuzz_$t" "testsuite/fuzz/fuzz_$t" "${args[@]}"
	done
	if [ -x src/replay/locality-replay ]; then
		local traces="$top/../shared/traces" trace=() out="$vdir/replay-out"
		rm -rf "$out"
		if [ -f "$traces/ANL-Intrepid-2009-slice237.swf.gz" ]; then
			trace=(--trace "$traces/ANL-Intrepid-2009-slice237.swf.gz" --grid 8x8x4 --torus yes --scale-to 256 --limit 100)
		else
			trace=(--trace "$top/testsuite/fuzz/seeds/swf/basic" --grid 8x8 --torus yes)
		fi
		vg locality-replay src/replay/locality-replay "${trace[@]}" \
			--strategies freelist,bestfit,span,mm,mc1x1,mbs,paging,random,box \
			--walltime none,combo --no-svg --quiet --threads 1 --out "$out"
	fi
	echo "valgrind: logs in $vdir"
	echo "$((n - bad)) passed, $bad failed"
	return $status
}

# ---------------------------------------------------------------------
# slurmctld under valgrind on a local cluster
# ---------------------------------------------------------------------
run_slurmctld() {
	local cluster="$top/testsuite/slurm/cluster.sh"
	local plugdir="$build/src/plugins/select/locality/.libs"
	local rd=${rundir:-$vdir/cluster} conf pid status=0

	[ -x "$cluster" ] || { echo "valgrind.sh: $cluster not found" >&2; return 2; }
	[ -f "$plugdir/select_locality.so" ] ||
		{ echo "valgrind.sh: no plugin in $plugdir (configure with the Slurm source and build)" >&2; return 2; }
	export LOC_CTLD_PORT=${LOC_CTLD_PORT:-6917}
	export LOC_NODE_PORT0=${LOC_NODE_PORT0:-27001}
	# memcheck slows slurmctld ~20x: longer start-up and stop deadlines.
	export LOC_START_TIMEOUT=${LOC_START_TIMEOUT:-300}
	export LOC_CTLD_TIMEOUT=${LOC_CTLD_TIMEOUT:-300}
	export LOC_STOP_TIMEOUT=${LOC_STOP_TIMEOUT:-120}
	# Our own default run directory is recreated every time; cluster.sh
	# refuses a non-empty directory it did not make.
	if [ -z "$rundir" ] && [ -d "$rd" ]; then
		"$cluster" stop --dir "$rd" >/dev/null 2>&1 || true
		rm -rf "$rd"
	fi
	mkdir -p "$rd"
	rd=$(cd "$rd" && pwd)
	conf="$vdir/locality.conf"
	# A 4 x N/4 torus with Manhattan Median and walltime awareness; the
	# reconfigure below switches to other strategies (cluster.sh's one
	# partition is "main").
	printf 'Dimensions=4x%d\nTorus=yes\nStrategy=mm\nCurve=hilbert\nWalltimeAware=combo\n' \
		$(( (nodes + 3) / 4 )) > "$conf"
	local vglog="$rd/log/valgrind-slurmctld.%p.log"
	# --trace-children: Slurm 24.11's `scontrol reconfigure` execs a new
	# slurmctld (in place, in the foreground), which memcheck must follow.
	local vgcmd="${VG[*]} --trace-children=yes --log-file=$vglog"

	echo "valgrind: starting $nodes nodes, slurmctld under memcheck"
	"$cluster" start --dir "$rd" --nodes "$nodes" --select locality \
		--plugin-dir "$plugdir" --locality-conf "$conf" \
		--ctld-wrapper "$vgcmd"
	export SLURM_CONF="$rd/etc/slurm.conf"
	pid=$(cat "$rd/run/slurmctld.recpid")
	# cluster.sh start returned: slurmctld answers, every node is idle.

	# submit SECONDS SIZE...: one job per size, each sleeping SECONDS.
	submit() {
		local k secs=$1
		shift
		for k in "$@"; do
			sbatch --parsable -N "$k" --exclusive -t 1 \
				-o /dev/null --wrap "sleep $secs" >/dev/null ||
				{ status=1; continue; }
			submitted=$((submitted + 1))
		done
	}
	submit_and_wait() {
		submit 1 "$@"
		for _ in $(seq 600); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.5
		done
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] ||
			{ echo "valgrind.sh: jobs still queued:"; squeue; status=1; }
		echo "valgrind: jobs of sizes $* ran"
	}
	submitted=0
	submit_and_wait 1 2 3 4 5 7 8 $((nodes / 2)) "$nodes" 2 1 3
	# Reconfigure while jobs run: the plugin reloads the file and
	# rebuilds its ledger from slurmctld's job list.
	submit 10 4 4 2 1
	sleep 3
	echo "valgrind: scontrol reconfigure with another locality.conf, 4 jobs running"
	printf 'Dimensions=4x%d\nTorus=yes,no\nStrategy=mbs\nPartitionName=main Strategy=box WalltimeAware=adjest\n' \
		$(( (nodes + 3) / 4 )) > "$rd/etc/locality.conf"
	scontrol reconfigure || status=1
	submit_and_wait 4 1 6 2 "$nodes" 1
	# Kill -9 and restart with jobs running: the new slurmctld (memcheck
	# again) restores the plugin's saved state and rebuilds the ledger
	# from the jobs it recovers.
	submit 30 4 2 1
	local running=0
	for _ in $(seq 240); do
		running=$(squeue -h -t R -o %i 2>/dev/null | wc -l)
		[ "$running" = 3 ] && break
		sleep 0.5
	done
	[ "$running" = 3 ] || { echo "valgrind.sh: $running of 3 jobs running"; status=1; }
	# Kill only once slurmctld has saved the jobs as running: it saves a
	# few seconds after a change, later under memcheck on a busy machine,
	# and a kill before that loses their start (Slurm's state-save window,
	# "Registered PENDING JobId=... on node"), which is not what this
	# checks. The state file's mtime is in whole seconds: a save after
	# the second all three were seen running includes them.
	local t_run
	t_run=$(date +%s)
	for _ in $(seq 120); do
		[ "$(stat -c %Y "$rd/state/job_state" 2>/dev/null || echo 0)" -gt "$t_run" ] &&
			break
		sleep 0.5
	done
	echo "valgrind: slurmctld killed -9 with $running jobs running, restarted under memcheck"
	"$cluster" restart-ctld --dir "$rd" --kill9 >/dev/null || status=1
	pid=$(cat "$rd/run/slurmctld.recpid")
	submit_and_wait 2 "$nodes" 3 1
	echo "valgrind: shutting slurmctld down (memcheck writes its leak report)"
	scontrol shutdown slurmctld >/dev/null || true
	for _ in $(seq 1200); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	"$cluster" stop --dir "$rd" >/dev/null 2>&1 || true
	local done_ok fails=0
	done_ok=$(grep -c 'JobState=COMPLETED' "$rd/jobcomp.txt" 2>/dev/null || true)
	if [ $status = 0 ] && [ "${done_ok:-0}" = "$submitted" ]; then
		echo "ok 1 - ${done_ok:-0} of $submitted jobs COMPLETED with slurmctld under memcheck"
	else
		echo "not ok 1 - ${done_ok:-0} of $submitted jobs COMPLETED with slurmctld under memcheck"
		fails=1
	fi

	# Errors and definite leaks whose stack has a frame of ours.
	local logs f ours="$vdir/slurmctld-ours.txt"
	logs=$(ls "$rd"/log/valgrind-slurmctld.*.log 2>/dev/null || true)
	: > "$ours"
	for f in $logs; do
		echo "valgrind: $(basename "$f"): $(vg_counts "$f" | awk '{ print $1 " errors in all of slurmctld, " $2 " bytes definitely lost" }')"
		awk '
			/^==[0-9]+== *$/ { if (blk ~ /(select_locality|[ :]loc_|[ :]sl_)/ && blk !~ /(ERROR|LEAK|HEAP) SUMMARY/) print blk "\n"; blk = ""; next }
			{ blk = blk $0 "\n" }
			END { if (blk ~ /(select_locality|[ :]loc_|[ :]sl_)/ && blk !~ /(ERROR|LEAK|HEAP) SUMMARY/) print blk }
		' "$f" >> "$ours"
	done
	local what="no memcheck error or definite leak in select_locality/loc_/sl_ frames"
	if [ -z "$logs" ]; then
		echo "not ok 2 - $what # no valgrind log in $rd/log"
		fails=$((fails + 1))
	elif [ -s "$ours" ]; then
		echo "not ok 2 - $what"
		head -n 60 "$ours"
		fails=$((fails + 1))
	else
		echo "ok 2 - $what"
	fi
	echo "slurm $("$cluster" version) valgrind-slurmctld: $((2 - fails)) passed, $fails failed"
	[ $fails = 0 ]
}

if [ $mode = unit ]; then
	run_unit
else
	run_slurmctld
fi
