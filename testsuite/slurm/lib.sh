# SPDX-License-Identifier: GPL-2.0-or-later
#
# lib.sh - what the real-cluster test scripts (run-tests.sh, load-test.sh,
# fault-tests.sh) share: finding the build, the run directory, "ok N -"
# results, one cluster.sh cluster at a time, and small job and node
# queries. Sourced, not run. The sourcing script parses its options into
# BUILD, PLUGDIR, RUNROOT, KEEP and ONLY first, then calls lib_init.

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$LIB_DIR/../.." && pwd)
CLUSTER=$LIB_DIR/cluster.sh
NODES=64
ALLNODES="n[001-064]"
CLUSTER_DEBUG=${CLUSTER_DEBUG:-info} # slurmctld log level
CLEANUP_FIRST=""                     # a function cleanup runs first

# lib_init PREFIX - finds the build (BUILD: given, else the first of
# $LOC_BUILD_DIR, <repo>/build and . that holds src/tools/locality-eval)
# and sets EVAL (locality-eval, or empty), PLUGDIR (default
# BUILD/src/plugins/select/locality/.libs), HAVE_PLUGIN (0/1); makes
# RUNROOT (given, else a new /tmp/PREFIX.XXXXXX); installs the traps.
lib_init() {
	local d
	if [ -z "${BUILD:-}" ]; then
		for d in "${LOC_BUILD_DIR:-}" "$REPO/build" "$PWD"; do
			if [ -n "$d" ] && [ -x "$d/src/tools/locality-eval" ]; then
				BUILD=$d
				break
			fi
		done
	fi
	if [ -n "${BUILD:-}" ] && [ ! -d "$BUILD" ]; then
		note "build dir $BUILD does not exist"
		BUILD=""
	fi
	[ -n "${BUILD:-}" ] && BUILD=$(cd "$BUILD" && pwd)
	EVAL=${BUILD:+$BUILD/src/tools/locality-eval}
	[ -n "$EVAL" ] && [ -x "$EVAL" ] || EVAL=""
	[ -z "${PLUGDIR:-}" ] && [ -n "$BUILD" ] &&
		PLUGDIR=$BUILD/src/plugins/select/locality/.libs
	HAVE_PLUGIN=0
	[ -n "${PLUGDIR:-}" ] && [ -f "$PLUGDIR/select_locality.so" ] &&
		HAVE_PLUGIN=1
	[ -n "${PLUGDIR:-}" ] && [ -d "$PLUGDIR" ] && PLUGDIR=$(cd "$PLUGDIR" && pwd)

	if [ -z "${RUNROOT:-}" ]; then
		RUNROOT=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
	else
		mkdir -p "$RUNROOT" || exit 1
		RUNROOT=$(cd "$RUNROOT" && pwd)
	fi
	NTEST=0 NPASS=0 NFAIL=0 CURRENT=""
	trap cleanup EXIT
	trap 'echo "# interrupted"; exit 130' INT TERM
}

# --- results --------------------------------------------------------------

ok() {
	NTEST=$((NTEST + 1)) NPASS=$((NPASS + 1))
	echo "ok $NTEST - $1"
}

not_ok() {
	NTEST=$((NTEST + 1)) NFAIL=$((NFAIL + 1))
	echo "not ok $NTEST - $1${2:+ # $2}"
}

# result NAME WHY - passed when WHY is empty, else failed for WHY.
result() {
	if [ -z "$2" ]; then ok "$1"; else not_ok "$1" "$2"; fi
}

note() {
	echo "# $*"
}

# want LETTER - true when --only is unset or lists LETTER.
want() {
	[ -z "${ONLY:-}" ] && return 0
	case ",$ONLY," in *",$1,"*) return 0 ;; esac
	return 1
}

# suite_name - what the closing line calls this suite: $SUITE (set by the
# sourcing script; its file name otherwise), and the slurm.conf shape when
# it is not the default one.
suite_name() {
	local s=${SUITE:-$(basename "$0" .sh)}
	case ${CLUSTER_SHAPE:-single} in
	single) echo "$s" ;;
	*) echo "$s-$CLUSTER_SHAPE" ;;
	esac
}

# lib_finish - stops what runs, removes RUNROOT unless --keep or a
# failure, prints "slurm SERIES SUITE: N passed, N failed" (the Slurm
# version the suite ran on, e.g. "slurm 24.11 integration: 20 passed,
# 0 failed"); returns non-zero on any failure.
lib_finish() {
	local series
	cleanup
	cd / || return 1
	if [ "${KEEP:-0}" = 0 ] && [ "$NFAIL" = 0 ]; then
		rm -rf "$RUNROOT"
	else
		note "logs kept in $RUNROOT"
	fi
	series=$("$CLUSTER" version)
	echo "slurm ${series:-?} $(suite_name): $NPASS passed, $NFAIL failed"
	[ "$NFAIL" = 0 ]
}

# --- the cluster ----------------------------------------------------------

cleanup() {
	[ -n "$CLEANUP_FIRST" ] && "$CLEANUP_FIRST"
	if [ -n "${CURRENT:-}" ]; then
		"$CLUSTER" stop --dir "$CURRENT" >/dev/null 2>&1
		CURRENT=""
	fi
}

# start_cluster NAME SELECT [LOCALITY_CONF [slurm.conf line...]] - stops
# the running cluster and starts a fresh one of NODES nodes (slurm.conf
# shape $CLUSTER_SHAPE, see cluster.sh; default single) in
# RUNROOT/NAME; exports its SLURM_CONF and enters its out/ directory.
# CLUSTER_TOPOLOGY, CLUSTER_CPUS, CLUSTER_MEM and CLUSTER_GPUS, when set,
# pass cluster.sh's --topology, --cpus, --mem and --gpus; CLUSTER_ACCOUNTING
# non-empty passes --accounting (slurmdbd, for sacct).
# Returns non-zero (with the start log's tail as notes) on failure.
start_cluster() {
	local name=$1 sel=$2 lconf=${3:-} dir=$RUNROOT/$1 args line
	shift $(($# < 3 ? $# : 3))
	cleanup
	args=(start --dir "$dir" --nodes "$NODES" --select "$sel"
		--debug "$CLUSTER_DEBUG")
	[ -n "${PLUGDIR:-}" ] && [ -d "$PLUGDIR" ] && args+=(--plugin-dir "$PLUGDIR")
	# PLUGDIR=-: no PluginDir in slurm.conf (an installed package's plugin).
	[ "${PLUGDIR:-}" = - ] && args+=(--no-plugin-dir)
	[ -n "$lconf" ] && args+=(--locality-conf "$lconf")
	args+=(--shape "${CLUSTER_SHAPE:-single}")
	# cons_tres suites: a topology plugin, and nodes of several CPUs.
	[ -n "${CLUSTER_TOPOLOGY:-}" ] && args+=(--topology "$CLUSTER_TOPOLOGY")
	[ -n "${CLUSTER_CPUS:-}" ] && args+=(--cpus "$CLUSTER_CPUS")
	[ -n "${CLUSTER_MEM:-}" ] && args+=(--mem "$CLUSTER_MEM")
	[ -n "${CLUSTER_GPUS:-}" ] && args+=(--gpus "$CLUSTER_GPUS")
	[ -n "${CLUSTER_ACCOUNTING:-}" ] && args+=(--accounting)
	for line in "$@"; do
		args+=(--extra "$line")
	done
	if ! "$CLUSTER" "${args[@]}" >"$RUNROOT/$name.start.log" 2>&1; then
		sed 's/^/#   /' "$RUNROOT/$name.start.log" | tail -n 30
		return 1
	fi
	CURRENT=$dir
	export SLURM_CONF=$dir/etc/slurm.conf
	cd "$dir/out" || return 1
}

# stop_cluster - stops the cluster; its run directory stays.
stop_cluster() {
	cleanup
	cd "$RUNROOT" || return
}

# --- jobs and nodes -------------------------------------------------------

# sub ARGS... SECS - sbatch a 'sleep SECS' job; prints its id.
sub() {
	local secs=${*: -1}
	local args=("${@:1:$#-1}")
	sbatch --parsable -o /dev/null "${args[@]}" --wrap "sleep $secs" \
		2>>"$RUNROOT/sbatch.err" | cut -d';' -f1
}

# job_field ID KEY - one field of `scontrol show job`.
job_field() {
	scontrol -o show job "$1" 2>/dev/null |
		tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# record_lines ID... - "JobID|NodeList|AdminComment" and a line per job,
# from scontrol (the placement records of locality.conf RecordPlacement,
# as locality-eval reads them).
record_lines() {
	local id
	echo "JobID|NodeList|AdminComment"
	for id in "$@"; do
		printf '%s|%s|%s\n' "$id" "$(job_field "$id" NodeList)" \
			"$(scontrol show job "$id" |
				sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p')"
	done
}

# wait_state ID STATE SECS - true once job ID is in STATE.
wait_state() {
	local end=$((SECONDS + $3))
	while [ "$SECONDS" -lt "$end" ]; do
		[ "$(job_field "$1" JobState)" = "$2" ] && return 0
		sleep 0.25
	done
	return 1
}

# hold_pending - holds every pending job, then waits for slurmctld to
# save its job state, so that a kill -9 then finds no job started since
# the save. (A job started after the save is recovered pending while its
# batch script runs; slurmctld kills that script and revokes the job's
# credential on its nodes, and the job fails if it is started there
# again: Slurm's own state-save window, whichever plugin runs.) Sets
# HELD_JOBS.
hold_pending() {
	local id
	HELD_JOBS=$(squeue -h -t PD -o %i 2>/dev/null)
	# One at a time: a job that started meanwhile fails its own hold only.
	for id in $HELD_JOBS; do scontrol hold "$id" >/dev/null 2>&1; done
	sleep 11
}

# release_held - releases the jobs hold_pending held (those the restarted
# slurmctld still knows).
release_held() {
	local id
	for id in $HELD_JOBS; do scontrol release "$id" >/dev/null 2>&1; done
	HELD_JOBS=""
}

# wait_empty SECS - until no job is left in slurmctld, bounded.
wait_empty() {
	local end=$((SECONDS + $1)) left
	while [ "$SECONDS" -lt "$end" ]; do
		if left=$(squeue -h -o %i 2>/dev/null) && [ -z "$left" ]; then
			return 0
		fi
		sleep 1
	done
	note "$(squeue -h -o %i 2>/dev/null | wc -l) jobs left after $1 s"
	return 1
}

# wait_all_idle [SECS] - until all nodes are idle (none completing). A
# node in two partitions has a line in each: count nodes, not lines.
wait_all_idle() {
	local end=$((SECONDS + ${1:-60})) n
	while [ "$SECONDS" -lt "$end" ]; do
		n=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u |
			grep -c ' idle$')
		[ "$n" -ge "$NODES" ] && return 0
		sleep 0.5
	done
	return 1
}

# expand HOSTLIST - its node names, sorted, comma-joined.
expand() {
	[ -n "$1" ] && [ "$1" != "(null)" ] || return 0
	scontrol show hostnames "$1" 2>/dev/null | sort | paste -sd, -
}

# has_node HOSTLIST NODE - true if HOSTLIST holds NODE.
has_node() {
	case ",$(expand "$1")," in *",$2,"*) return 0 ;; esac
	return 1
}

# compact_scenario WAIT [SBATCH_OPTION ...] - CompactWait on the 64-node
# 8x8 torus (rows of 8 in name order) with CompactWait=WAIT, each job
# submitted with the options given (--exclusive under cons_tres).
# Blockers leave four scattered nodes free, plus a 2x2 block under a job
# of its own. A 4-node job waits rather than take the scattered nodes
# (slurmctld logs why at debug); a later 1-node job is backfilled onto one
# of them (a waiting job holds only the set it is planned on); freeing
# the block starts the waiting job there. A second 4-node job finds only
# the scattered nodes and takes them at its deadline, not before. Sets
# CW_WAIT, CW_FILL and CW_DEAD to what went wrong ("" when nothing), and
# CW_LATE to that second job (left running on the scattered nodes).
compact_scenario() {
	local wait=$1 free="n[001,004,037,040]" block="n[010-011,018-019]"
	local rest a b j1 j2 j3 t0 t1 end
	shift
	CW_WAIT="" CW_FILL="" CW_DEAD="" CW_LATE=""
	rest=$(scontrol show hostnames "$ALLNODES" |
		grep -vxF -f <(scontrol show hostnames "$free,$block") |
		paste -sd, -)
	a=$(sub -N4 -w "$block" "$@" -t 30 600)
	b=$(sub -N56 -w "$rest" "$@" -t 30 600)
	wait_state "$a" RUNNING 20 && wait_state "$b" RUNNING 20 ||
		CW_WAIT="blocker jobs did not start"
	if [ -z "$CW_WAIT" ]; then
		j1=$(sub -N4 "$@" -t 30 600)
		sleep 6
		if ! scontrol ping 2>/dev/null | grep -q 'is UP'; then
			CW_WAIT="slurmctld stopped answering (see its log)"
		elif [ "$(job_field "$j1" JobState)" != PENDING ]; then
			CW_WAIT="job $j1 took $(job_field "$j1" NodeList) at once"
		elif ! grep -q "JobId=$j1 waits for a compact placement" \
			"$CURRENT/log/slurmctld.log"; then
			CW_WAIT="no 'waits for a compact placement' line for job $j1"
		else
			j3=$(sub -N1 "$@" -t 30 3)
			end=$((SECONDS + 8))
			while [ "$(job_field "$j3" JobState)" = PENDING ] &&
				[ $SECONDS -lt $end ]; do
				sleep 0.25
			done
			case $(job_field "$j3" JobState) in
			RUNNING | COMPLETED) ;;
			*) CW_FILL="job $j3 (1 node) still $(job_field "$j3" JobState) while $j1 waits" ;;
			esac
			if [ -n "$CW_FILL" ]; then
				:
			elif ! has_node "$free" "$(job_field "$j3" NodeList)"; then
				CW_FILL="job $j3 got $(job_field "$j3" NodeList), not one of $free"
			elif [ "$(job_field "$j1" JobState)" != PENDING ]; then
				CW_FILL="job $j1 started on $(job_field "$j1" NodeList) before $block was free"
			fi
			wait_state "$j3" COMPLETED 15 ||
				CW_FILL="${CW_FILL:-job $j3 did not complete}"
			scancel "$a"
			if ! wait_state "$j1" RUNNING 15; then
				CW_WAIT="job $j1 did not start once $block was free"
			elif [ "$(expand "$(job_field "$j1" NodeList)")" != "$(expand "$block")" ]; then
				CW_WAIT="job $j1 got $(job_field "$j1" NodeList), expected $block"
			fi
		fi
	fi
	[ -n "$CW_WAIT" ] && [ -z "$CW_FILL" ] && CW_FILL="not reached: $CW_WAIT"
	if [ -n "$CW_WAIT" ]; then
		CW_DEAD="not reached: $CW_WAIT"
		return
	fi
	t0=$(date +%s)
	j2=$(sub -N4 "$@" -t 30 600)
	sleep 8
	if [ "$(job_field "$j2" JobState)" != PENDING ]; then
		CW_DEAD="job $j2 did not wait ($(job_field "$j2" JobState) on $(job_field "$j2" NodeList))"
	elif ! wait_state "$j2" RUNNING 40; then
		CW_DEAD="job $j2 still $(job_field "$j2" JobState) 48 s after submission (CompactWait=$wait)"
	else
		t1=$(date +%s)
		[ $((t1 - t0)) -ge $((wait - 5)) ] ||
			CW_DEAD="job $j2 started after $((t1 - t0)) s, before its deadline ($wait s)"
		[ "$(expand "$(job_field "$j2" NodeList)")" = "$(expand "$free")" ] ||
			CW_DEAD="job $j2 got $(job_field "$j2" NodeList), expected $free"
		note "scattered nodes taken $((t1 - t0)) s after submission (CompactWait=$wait)"
		CW_LATE=$j2
	fi
}

# compact_in_reservation WAIT [SBATCH_OPTION ...] - after
# compact_scenario: on the idle machine, a reservation of the four
# scattered nodes; a 4-node job in it starts at once, since no more
# compact set exists for it there (its CompactWait reference is made
# inside the reservation, not on the whole partition). Sets CW_RESV.
compact_in_reservation() {
	local wait=$1 resv="n[001,004,037,040]" id
	shift
	CW_RESV=""
	scancel --user="$(id -un)" 2>/dev/null
	wait_all_idle 60 || CW_RESV="the nodes did not come back idle"
	if [ -z "$CW_RESV" ] && ! scontrol create reservation ReservationName=cw-test \
		Nodes="$resv" StartTime=now Duration=30 Users="$(id -un)" >/dev/null; then
		CW_RESV="could not reserve $resv"
	fi
	[ -n "$CW_RESV" ] && return
	id=$(sub -N4 "$@" --reservation=cw-test -t 30 600)
	if [ -z "$id" ]; then
		CW_RESV="sbatch refused the job in the reservation: $(tail -n 1 "$RUNROOT/sbatch.err")"
	elif ! wait_state "$id" RUNNING 10; then
		CW_RESV="job $id in reservation $resv still $(job_field "$id" JobState) after 10 s (CompactWait=$wait)"
	elif [ "$(expand "$(job_field "$id" NodeList)")" != "$(expand "$resv")" ]; then
		CW_RESV="job $id got $(job_field "$id" NodeList), not $resv"
	fi
	scancel "$id" 2>/dev/null
	scontrol delete reservation cw-test 2>/dev/null
}

# gen_jobs PREFIX N SEED MIN MAX [SIZES] - a seeded job list, one
# "label nodes secs" line per job: sizes 1-16 log-uniform (so small jobs
# are common) or drawn from the comma list SIZES; runtimes MIN..MAX
# seconds in tenths.
gen_jobs() {
	awk -v p="$1" -v n="$2" -v seed="$3" -v lo="$4" -v hi="$5" \
		-v sizes="${6:-}" '
	BEGIN {
		srand(seed)
		ns = split(sizes, s, ",")
		for (i = 1; i <= n; i++) {
			if (ns) {
				k = s[1 + int(rand() * ns)]
			} else {
				k = int(exp(rand() * log(17)))
				k = k < 1 ? 1 : (k > 16 ? 16 : k)
			}
			printf "%s%d %d %.1f\n", p, i, k,
				lo + int(rand() * (hi - lo) * 10 + 0.5) / 10
		}
	}'
}

# overlap JOBCOMP - prints why, if a node was in two jobs at once.
overlap() {
	if [ -z "$EVAL" ]; then
		echo "locality-eval not built (overlap checker)"
	elif ! "$EVAL" --check-overlap --jobcomp "$1" >"$1.overlap" 2>&1; then
		head -n 2 "$1.overlap" | tr '\n' ' '
	fi
}
