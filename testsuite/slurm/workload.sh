#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workload.sh - time-compressed workloads for a throwaway cluster.
#
#   workload.sh gen [--seed S] [--jobs N] [--max-nodes M] [--gap SEC]
#                   [--runtime SEC] [--limits fixed|runtime]
#                   [--phases [--machine M]]
#                   [--mixed [--cpus C] [--gpus G]]        > WORKLOAD
#   workload.sh swf FILE[.gz] [--nodes M] [--hour SEC] [--max-jobs N]
#                   [--min-run S] [--max-run S]
#                   [--limits fixed|requested]          > WORKLOAD
#   workload.sh sacct FILE [--nodes M] [--source-nodes S] [--hour SEC] ...
#   workload.sh format FILE                             (prints swf or sacct)
#   workload.sh to-swf WORKLOAD [--time-scale K]        > TRACE.swf
#   workload.sh submit WORKLOAD IDFILE [--keep-going] [sbatch options...]
#   workload.sh wait IDFILE [TIMEOUT]
#
# A WORKLOAD file has one job a line:
#   offset_ms nodes runtime_s timelimit_min label [sbatch options...]
# where sbatch options, when given, replace the line's -N nodes (nodes is
# then the job's nominal size, for to-swf).
# gen: a seeded synthetic stream: node counts log-uniform in 1..M, runtimes
# lognormal around --runtime seconds (clamped to 1..20 s), Poisson
# arrivals with mean gap --gap seconds. Time limits: --limits fixed (the
# default) gives a job of r seconds int(r/60)+2 minutes, so every job of
# a compressed run has the same limit; --limits runtime gives it r
# minutes, so the order of the running jobs' expected ends (start plus
# limit, what slurmctld and backfill plan with and WalltimeAware=sl
# reads) follows the order of their real ends, on a 60x longer scale;
# the arrivals, runtimes and jobs are the same. --phases makes the fragmenting
# sequence of the integration test: a first burst at time 0 that fills the
# M-node machine (default 64) with jobs that end out of order, then the
# Poisson stream. --mixed makes a cons_tres stream for nodes of C CPUs
# (default 4) and G GPUs (default 2), same arrivals and runtimes: 40%
# core jobs "-n K" (K log-uniform in 2..C*M/2, no -N: they share nodes;
# nominal nodes ceil(K/C)), 35% whole-node jobs "-N n --exclusive" (n as
# above) and 25% GPU jobs "-N n --gres=gpu:g" (n uniform in 2..8 and at
# most M, g in 1..G); labels c, x and g, then the job's number.
# swf, sacct: read the trace with locality-replay --export-jobs (the
# project's trace readers: .swf, .swf.gz, MetaCentrum SWF, sacct
# --parsable2 exports; skipped records are reported on stderr; the
# binary is $LOC_REPLAY, else $LOC_BUILD_DIR/src/replay/locality-replay,
# else <repo>/build/src/replay/locality-replay), keep the first
# --max-jobs by submit time and compress time: one trace hour becomes
# --hour seconds, runtimes clamped to --min-run..--max-run. swf scales
# processors proportionally to M nodes (MaxProcs from the header, else
# the largest job: the replay's --scale-to M); sacct scales NNodes from
# --source-nodes (default: the largest job).
# Their time limits: --limits fixed (the default) is gen's fixed rule;
# --limits requested is the job's own request, compressed as its runtime
# is (one trace hour becomes --hour), then read as minutes where runtimes
# are seconds (at least 1): the 60x scale of gen --limits runtime, so
# running jobs' expected ends follow their users' requests, for the
# walltime-aware modes. A record with no request gets gen's runtime rule
# (r minutes); a job that ran past its request keeps its runtime (at 60x
# it still ends before its limit).
# format: the format locality-replay reads FILE as (its --format auto:
# sacct when the first line has a JobID column, else SWF).
# to-swf: the reverse direction, for locality-replay: a WORKLOAD as a
# Standard Workload Format trace of 18 fields, one processor a node (job
# number = line number among the jobs; submit = offset_ms/1000 x K rounded
# to whole seconds; run time = runtime_s x K; allocated and requested
# processors = nodes; requested time = timelimit_min x 60 x K; status 1;
# every other field -1) after a "; MaxNodes:" / "; MaxProcs:" header (64,
# or the largest job if larger). SWF times are whole seconds: the default
# K = 1 rounds sub-second arrivals (gen --gap below 1 puts several jobs in
# one second); K = 10 keeps tenths by stretching all times tenfold, which
# leaves load, ratios and the order of events unchanged.
# submit: submits each job at its offset (sbatch --wrap 'sleep N') and
# writes "label jobid" lines to IDFILE; with --keep-going a job sbatch
# refuses is written to IDFILE.refused ("label message") instead of
# ending the submission. wait: until those jobs have left
# the queue (bounded by TIMEOUT seconds, default 600).

set -u
PROG=workload.sh
REPO=$(cd "$(dirname "$0")/../.." && pwd)

die() {
	echo "$PROG: $*" >&2
	exit 1
}

cmd_gen() {
	local seed=1 jobs=60 maxn=32 gap=0.8 rt=5 phases=0 machine=64
	local mixed=0 cpus=4 gpus=2 limits=fixed
	while [ $# -gt 0 ]; do
		case $1 in
		--seed) seed=$2; shift 2 ;;
		--jobs) jobs=$2; shift 2 ;;
		--max-nodes) maxn=$2; shift 2 ;;
		--gap) gap=$2; shift 2 ;;
		--runtime) rt=$2; shift 2 ;;
		--phases) phases=1; shift ;;
		--machine) machine=$2; shift 2 ;;
		--mixed) mixed=1; shift ;;
		--cpus) cpus=$2; shift 2 ;;
		--gpus) gpus=$2; shift 2 ;;
		--limits) limits=$2; shift 2 ;;
		*) die "gen: unknown option $1" ;;
		esac
	done
	case $limits in
	fixed | runtime) ;;
	*) die "gen: --limits takes fixed or runtime, not '$limits'" ;;
	esac
	[ "$mixed" = 0 ] || [ "$phases" = 0 ] || die "gen: --mixed or --phases, not both"
	awk -v seed="$seed" -v jobs="$jobs" -v maxn="$maxn" -v gap="$gap" \
		-v rt="$rt" -v phases="$phases" -v machine="$machine" \
		-v mixed="$mixed" -v cpus="$cpus" -v gpus="$gpus" \
		-v limits="$limits" '
	function normal() { # Box-Muller
		return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand())
	}
	function size() {
		n = int(exp(rand() * log(maxn + 1)))
		return n < 1 ? 1 : (n > maxn ? maxn : n)
	}
	function runtime(mu) {
		r = int(mu * exp(0.6 * normal()) + 0.5)
		return r < 1 ? 1 : (r > 20 ? 20 : r)
	}
	# The time limit in minutes of a job of r seconds (--limits).
	function limit(r) {
		return limits == "runtime" ? r : int(r / 60) + 2
	}
	function emit(t, n, r, label) {
		printf "%d %d %d %d %s\n", t * 1000, n, r, limit(r), label
	}
	# One job of the mixed cons_tres stream, with its sbatch options.
	function mixed_job(t, r, i,    u, k, n, g, top) {
		u = rand()
		if (u < 0.4) {
			top = int(cpus * maxn / 2)
			k = int(exp(log(2) + rand() * (log(top + 1) - log(2))))
			k = k < 2 ? 2 : (k > top ? top : k)
			printf "%d %d %d %d c%d -n %d\n", t * 1000,
				int((k + cpus - 1) / cpus), r, limit(r), i, k
		} else if (u < 0.75 || gpus < 1) {
			n = size()
			printf "%d %d %d %d x%d -N %d --exclusive\n", t * 1000, n,
				r, limit(r), i, n
		} else {
			n = 2 + int(rand() * 7)
			n = n > machine ? machine : n
			g = 1 + int(rand() * gpus)
			printf "%d %d %d %d g%d -N %d --gres=gpu:%d\n", t * 1000, n,
				r, limit(r), i, n, g
		}
	}
	BEGIN {
		srand(seed)
		t = 0
		i = 1
		# Burst: fills the machine (at most `machine` nodes, so all
		# start at once) with jobs that end out of order, leaving holes.
		for (used = 0; phases && i <= jobs; i++) {
			n = size()
			if (used + n > machine)
				break
			used += n
			emit(0, n, 3 + int(rand() * 14), "j" i)
		}
		t = phases ? 4 : 0
		for (; i <= jobs; i++) {
			if (mixed)
				mixed_job(t, runtime(rt), i)
			else
				emit(t, size(), runtime(rt), "j" i)
			t += -log(1 - rand()) * gap
		}
	}'
}

# The locality-replay that reads traces: $LOC_REPLAY, else the first built
# one in $LOC_BUILD_DIR or <repo>/build.
replay_bin() {
	local c
	if [ -n "${LOC_REPLAY:-}" ]; then
		[ -x "$LOC_REPLAY" ] || die "LOC_REPLAY=$LOC_REPLAY is not executable"
		echo "$LOC_REPLAY"
		return
	fi
	for c in ${LOC_BUILD_DIR:+"$LOC_BUILD_DIR/src/replay/locality-replay"} \
		"$REPO/build/src/replay/locality-replay"; do
		[ -x "$c" ] && echo "$c" && return
	done
	die "locality-replay not found: build the project (make in $REPO/build, or in \$LOC_BUILD_DIR), or set LOC_REPLAY to the binary"
}

# cmd_trace swf|sacct FILE [options]: the trace as locality-replay reads
# it (--export-jobs: id submit runtime requested nodes procs, in submit
# order), scaled to the test cluster and compressed in time.
cmd_trace() {
	local kind=$1 file maxn=64 hour=2 maxjobs=100000 minrun=1 maxrun=20 srcn=0
	local limits=fixed
	local bin table size=()
	shift
	[ $# -ge 1 ] || die "$kind: give a trace file"
	file=$1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes) maxn=$2; shift 2 ;;
		--hour) hour=$2; shift 2 ;;
		--max-jobs) maxjobs=$2; shift 2 ;;
		--min-run) minrun=$2; shift 2 ;;
		--max-run) maxrun=$2; shift 2 ;;
		--source-nodes) [ "$kind" = sacct ] || die "$kind: unknown option $1"
			srcn=$2; shift 2 ;;
		--limits) limits=$2; shift 2 ;;
		*) die "$kind: unknown option $1" ;;
		esac
	done
	case $limits in
	fixed | requested) ;;
	*) die "$kind: --limits takes fixed or requested, not '$limits'" ;;
	esac
	[ -r "$file" ] || die "cannot read $file"
	bin=$(replay_bin) || exit 1
	# SWF: the replay scales processors to M nodes over MaxProcs (else
	# the largest job) itself; sacct: NNodes scale over S (else the
	# largest job) here.
	if [ "$kind" = swf ]; then
		size=(--scale-to "$maxn")
		srcn=$maxn
	fi
	table=$("$bin" --format "$kind" --trace "$file" ${size[@]+"${size[@]}"} \
		--limit "$maxjobs" --export-jobs -)
	case $? in
	0) ;;
	1) die "$bin rejected the options (see above; built before --export-jobs? rebuild it)" ;;
	*) die "$bin could not read $file" ;;
	esac
	printf '%s\n' "$table" |
		awk -v maxn="$maxn" -v hour="$hour" -v minrun="$minrun" \
			-v maxrun="$maxrun" -v srcn="$srcn" -v kind="$kind" \
			-v limits="$limits" -v name="$file" '
	# The time limit in minutes of job i, which runs r seconds (--limits).
	function limit(i, r,    l) {
		if (limits == "fixed" || req[i] <= 0)
			return limits == "fixed" ? int(r / 60) + 2 : r
		l = req[i] * hour / 3600
		if (l > int(l)) l = int(l) + 1
		return l < 1 ? 1 : l
	}
	/^#/ { next }
	{
		n++
		id[n] = $1; sub_t[n] = $2; run[n] = $3; req[n] = $4; nod[n] = $5
		if ($5 > biggest) biggest = $5
	}
	END {
		if (!n) {
			printf "%s: no usable %s job records\n", name, kind > "/dev/stderr"
			exit 1
		}
		scale = srcn > 0 ? srcn : biggest
		for (i = 1; i <= n; i++) {
			x = nod[i] * maxn / scale
			nodes = int(x); if (nodes < x) nodes++
			if (nodes < 1) nodes = 1
			if (nodes > maxn) nodes = maxn
			r = int(run[i] * hour / 3600 + 0.5)
			if (r < minrun) r = minrun
			if (r > maxrun) r = maxrun
			off = int(sub_t[i] * hour / 3600 * 1000 + 0.5)
			printf "%d %d %d %d %s%s\n", off, nodes, r, limit(i, r), kind, id[i]
		}
	}'
}

cmd_to_swf() {
	[ $# -ge 1 ] || die "to-swf: give a WORKLOAD file"
	local wl=$1 k=1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--time-scale) k=$2; shift 2 ;;
		*) die "to-swf: unknown option $1" ;;
		esac
	done
	[ -r "$wl" ] || die "cannot read $wl"
	case $k in
	'' | *[!0-9]* | 0) die "to-swf: --time-scale takes a positive integer" ;;
	esac
	awk -v k="$k" -v name="$wl" '
	function bad(what) {
		printf "%s: line %d: %s\n", name, NR, what > "/dev/stderr"
		err = 1
		exit 1
	}
	/^[ \t]*(#|$)/ { next }
	{
		if (NF < 4)
			bad("expected offset_ms nodes runtime_s timelimit_min [label]")
		for (f = 1; f <= 4; f++)
			if ($f !~ /^[0-9]+$/)
				bad("field " f " is not a non-negative integer: " $f)
		if ($2 < 1)
			bad("a job of 0 nodes")
		n++
		sub_t[n] = int($1 * k / 1000 + 0.5)
		run[n] = $3 * k
		nod[n] = $2 + 0
		req[n] = $4 * 60 * k
		if (nod[n] > most)
			most = nod[n]
	}
	END {
		if (err)
			exit 1
		if (!n) {
			printf "%s: no jobs\n", name > "/dev/stderr"
			exit 1
		}
		m = most > 64 ? most : 64
		printf "; Version: 2.2\n; Computer: workload.sh to-swf %s\n", name
		printf "; Note: one processor a node; times x %d\n", k
		printf "; MaxJobs: %d\n; MaxRecords: %d\n", n, n
		printf "; MaxNodes: %d\n; MaxProcs: %d\n", m, m
		for (i = 1; i <= n; i++)
			printf "%d %d -1 %d %d -1 -1 %d %d -1 1 -1 -1 -1 -1 -1 -1 -1\n",
				i, sub_t[i], run[i], nod[i], nod[i], req[i]
	}' "$wl"
}

cmd_submit() {
	[ $# -ge 2 ] || die "submit: give WORKLOAD and IDFILE"
	local wl=$1 ids=$2 keep=0
	shift 2
	[ "${1:-}" = --keep-going ] && keep=1 && shift
	[ -r "$wl" ] || die "cannot read $wl"
	: >"$ids" || die "cannot write $ids"
	[ "$keep" = 0 ] || : >"$ids.refused" || die "cannot write $ids.refused"
	local t0 now off n rt lim label opts id left size
	t0=${EPOCHREALTIME/./}
	while read -r off n rt lim label opts; do
		case $off in '' | \#*) continue ;; esac
		now=${EPOCHREALTIME/./}
		left=$((t0 + off * 1000 - now))
		if [ "$left" -gt 0 ]; then
			sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
		fi
		# The line's own options (word-split on purpose), else -N.
		read -r -a size <<<"${opts:--N $n}"
		if ! id=$(sbatch --parsable "${size[@]}" -t "$lim" -J "$label" \
			-o /dev/null "$@" --wrap "sleep $rt" 2>&1); then
			[ "$keep" = 1 ] || die "sbatch for $label failed: $id"
			echo "$label $id" | tr '\n' ' ' >>"$ids.refused"
			echo >>"$ids.refused"
			continue
		fi
		echo "$label ${id%%;*}" >>"$ids"
	done <"$wl"
}

cmd_format() {
	[ $# = 1 ] || die "format: give one trace file"
	[ -r "$1" ] || die "cannot read $1"
	local bin format
	bin=$(replay_bin) || exit 1
	format=$("$bin" -q --trace "$1" --limit 1 --export-jobs - |
		sed -n 's/^# format //p')
	[ -n "$format" ] || die "$bin could not read $1"
	echo "$format"
}

cmd_wait() {
	[ $# -ge 1 ] || die "wait: give IDFILE"
	local ids=$1 t=${2:-600} list left=0 n
	list=$(awk '{print $2}' "$ids" | paste -sd, -)
	[ -n "$list" ] || return 0
	for ((n = 0; n < t * 2; n++)); do
		left=$(squeue -h -j "$list" -o '%i' 2>/dev/null | wc -l)
		[ "$left" = 0 ] && return 0
		sleep 0.5
	done
	echo "$PROG: $left jobs still queued or running after ${t}s" >&2
	return 1
}

[ $# -ge 1 ] || die "usage: $PROG gen|swf|sacct|format|to-swf|submit|wait ..."
cmd=$1
shift
case $cmd in
gen) cmd_gen "$@" ;;
swf | sacct) cmd_trace "$cmd" "$@" ;;
format) cmd_format "$@" ;;
to-swf) cmd_to_swf "$@" ;;
submit) cmd_submit "$@" ;;
wait) cmd_wait "$@" ;;
*) die "unknown command $cmd" ;;
esac
