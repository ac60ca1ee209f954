# SPDX-License-Identifier: GPL-2.0-or-later
#
# lib.sh - what the real-cluster test scripts (run-tests.sh, load-test.sh,
# fault-tests.sh) share: finding the build, the run directory, "ok N -"
# results, one cluster.sh cluster at a time, and small job and node
# queries. Sourced, not run. The sourcing script parses its options into
# BUILD, PLUGDIR, RUNROOT, KEEP and ONLY first, then calls lib_init. The
# CompactWait scenario two of them run is in compact-wait.sh.

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
