#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workload.sh - time-compressed workloads for a throwaway cluster.
#
#   workload.sh gen [--seed S] [--jobs N] [--max-nodes M] [--gap SEC]
#                   [--runtime SEC] [--phases [--machine M]] > WORKLOAD
#   workload.sh swf FILE[.gz] [--nodes M] [--hour SEC] [--max-jobs N]
#                   [--min-run S] [--max-run S]         > WORKLOAD
#   workload.sh sacct FILE [--nodes M] [--source-nodes S] [--hour SEC] ...
#   workload.sh submit WORKLOAD IDFILE [sbatch options...]
#   workload.sh wait IDFILE [TIMEOUT]
#
# A WORKLOAD file has one job a line:
#   offset_ms nodes runtime_s timelimit_min label
# gen: a seeded synthetic stream: node counts log-uniform in 1..M, runtimes
# lognormal around --runtime seconds (clamped to 1..20 s), Poisson
# arrivals with mean gap --gap seconds. --phases makes the fragmenting
# sequence of the integration test: a first burst at time 0 that fills the
# M-node machine (default 64) with jobs that end out of order, then the
# Poisson stream.
# swf: reads a Standard Workload Format trace (fields 1 job id, 2 submit,
# 4 runtime, 5 procs, 8 requested procs, 9 requested time), scales sizes
# proportionally to M nodes (MaxProcs from the header, else the largest
# job) and compresses time: one trace hour becomes --hour seconds.
# sacct: the same from an `sacct --parsable2` export (columns found by
# name: JobID, Submit, Start, End, NNodes); sizes scale from
# --source-nodes (default: the largest job).
# submit: submits each job at its offset (sbatch --wrap 'sleep N') and
# writes "label jobid" lines to IDFILE. wait: until those jobs have left
# the queue (bounded by TIMEOUT seconds, default 600).

set -u
PROG=workload.sh

die() {
	echo "$PROG: $*" >&2
	exit 1
}

cmd_gen() {
	local seed=1 jobs=60 maxn=32 gap=0.8 rt=5 phases=0 machine=64
	while [ $# -gt 0 ]; do
		case $1 in
		--seed) seed=$2; shift 2 ;;
		--jobs) jobs=$2; shift 2 ;;
		--max-nodes) maxn=$2; shift 2 ;;
		--gap) gap=$2; shift 2 ;;
		--runtime) rt=$2; shift 2 ;;
		--phases) phases=1; shift ;;
		--machine) machine=$2; shift 2 ;;
		*) die "gen: unknown option $1" ;;
		esac
	done
	awk -v seed="$seed" -v jobs="$jobs" -v maxn="$maxn" -v gap="$gap" \
		-v rt="$rt" -v phases="$phases" -v machine="$machine" '
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
	function emit(t, n, r, label) {
		printf "%d %d %d %d %s\n", t * 1000, n, r, int(r / 60) + 2, label
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
			emit(t, size(), runtime(rt), "j" i)
			t += -log(1 - rand()) * gap
		}
	}'
}

cmd_swf() {
	local file="" maxn=64 hour=2 maxjobs=100000 minrun=1 maxrun=20
	[ $# -ge 1 ] || die "swf: give a trace file"
	file=$1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes) maxn=$2; shift 2 ;;
		--hour) hour=$2; shift 2 ;;
		--max-jobs) maxjobs=$2; shift 2 ;;
		--min-run) minrun=$2; shift 2 ;;
		--max-run) maxrun=$2; shift 2 ;;
		*) die "swf: unknown option $1" ;;
		esac
	done
	[ -r "$file" ] || die "cannot read $file"
	local cat=cat
	case $file in *.gz) cat="gzip -dc" ;; esac
	# Two passes over the text: the first finds the scale when the
	# header has no MaxProcs.
	$cat "$file" | awk -v maxn="$maxn" -v hour="$hour" -v maxjobs="$maxjobs" \
		-v minrun="$minrun" -v maxrun="$maxrun" -v name="$file" '
	/^;/ {
		if ($2 == "MaxProcs:" && $3 + 0 > 0) maxprocs = $3 + 0
		next
	}
	NF >= 9 {
		procs = $5 + 0 > 0 ? $5 + 0 : $8 + 0
		if (procs <= 0 || $4 + 0 <= 0 || $2 + 0 < 0) { skipped++; next }
		n++
		id[n] = $1; sub_t[n] = $2 + 0; run[n] = $4 + 0
		pr[n] = procs; req[n] = $9 + 0
		if (procs > biggest) biggest = procs
		if (n >= maxjobs) exit
		next
	}
	NF > 0 { bad++ }
	END {
		if (!n) {
			printf "%s: no usable SWF job records\n", name > "/dev/stderr"
			exit 1
		}
		scale = maxprocs > 0 ? maxprocs : biggest
		t0 = sub_t[1]
		for (i = 2; i <= n; i++) if (sub_t[i] < t0) t0 = sub_t[i]
		for (i = 1; i <= n; i++) {
			x = pr[i] * maxn / scale
			nodes = int(x); if (nodes < x) nodes++
			if (nodes < 1) nodes = 1
			if (nodes > maxn) nodes = maxn
			r = int(run[i] * hour / 3600 + 0.5)
			if (r < minrun) r = minrun
			if (r > maxrun) r = maxrun
			off = int((sub_t[i] - t0) * hour / 3600 * 1000 + 0.5)
			printf "%d %d %d %d swf%s\n", off, nodes, r, int(r / 60) + 2, id[i]
		}
		if (skipped || bad)
			printf "%s: skipped %d records (no size/runtime), %d malformed\n",
				name, skipped, bad > "/dev/stderr"
	}' | sort -n -s -k1,1
}

cmd_sacct() {
	local file="" maxn=64 hour=2 maxjobs=100000 minrun=1 maxrun=20 srcn=0
	[ $# -ge 1 ] || die "sacct: give an sacct --parsable2 export"
	file=$1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes) maxn=$2; shift 2 ;;
		--source-nodes) srcn=$2; shift 2 ;;
		--hour) hour=$2; shift 2 ;;
		--max-jobs) maxjobs=$2; shift 2 ;;
		--min-run) minrun=$2; shift 2 ;;
		--max-run) maxrun=$2; shift 2 ;;
		*) die "sacct: unknown option $1" ;;
		esac
	done
	[ -r "$file" ] || die "cannot read $file"
	local cat=cat
	case $file in *.gz) cat="gzip -dc" ;; esac
	# Columns are found by name in the header line; job steps (ids with
	# a dot) and jobs that never started are skipped.
	$cat "$file" | awk -F'|' -v maxn="$maxn" -v hour="$hour" \
		-v maxjobs="$maxjobs" -v minrun="$minrun" -v maxrun="$maxrun" \
		-v srcn="$srcn" -v name="$file" '
	function epoch(t,   x) {
		if (t !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]+$/)
			return -1
		x = t
		gsub(/[-T:]/, " ", x)
		return mktime(x)
	}
	!hdr {
		for (i = 1; i <= NF; i++) col[$i] = i
		if (!("JobID" in col) || !("Submit" in col) || !("Start" in col) ||
		    !("End" in col) || !("NNodes" in col)) {
			printf "%s: header lacks JobID, Submit, Start, End or NNodes\n",
				name > "/dev/stderr"
			exit 1
		}
		hdr = NF
		next
	}
	NF != hdr { bad++; next }
	{
		if ($col["JobID"] ~ /\./) next
		sb = epoch($col["Submit"]); st = epoch($col["Start"])
		en = epoch($col["End"]); nn = $col["NNodes"] + 0
		if (sb < 0 || st < 0 || en < st || nn <= 0) { skipped++; next }
		n++
		id[n] = $col["JobID"]; sub_t[n] = sb; run[n] = en - st; nod[n] = nn
		if (nn > biggest) biggest = nn
		if (n >= maxjobs) exit
	}
	END {
		if (!hdr) exit 1
		if (!n) {
			printf "%s: no usable sacct job records\n", name > "/dev/stderr"
			exit 1
		}
		scale = srcn > 0 ? srcn : biggest
		t0 = sub_t[1]
		for (i = 2; i <= n; i++) if (sub_t[i] < t0) t0 = sub_t[i]
		for (i = 1; i <= n; i++) {
			x = nod[i] * maxn / scale
			nodes = int(x); if (nodes < x) nodes++
			if (nodes < 1) nodes = 1
			if (nodes > maxn) nodes = maxn
			r = int(run[i] * hour / 3600 + 0.5)
			if (r < minrun) r = minrun
			if (r > maxrun) r = maxrun
			off = int((sub_t[i] - t0) * hour / 3600 * 1000 + 0.5)
			printf "%d %d %d %d sacct%s\n", off, nodes, r, int(r / 60) + 2, id[i]
		}
		if (skipped || bad)
			printf "%s: skipped %d records (not started), %d malformed\n",
				name, skipped, bad > "/dev/stderr"
	}' | sort -n -s -k1,1
}

cmd_submit() {
	[ $# -ge 2 ] || die "submit: give WORKLOAD and IDFILE"
	local wl=$1 ids=$2
	shift 2
	[ -r "$wl" ] || die "cannot read $wl"
	: >"$ids" || die "cannot write $ids"
	local t0 now off n rt lim label id left
	t0=${EPOCHREALTIME/./}
	while read -r off n rt lim label; do
		case $off in '' | \#*) continue ;; esac
		now=${EPOCHREALTIME/./}
		left=$((t0 + off * 1000 - now))
		if [ "$left" -gt 0 ]; then
			sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
		fi
		id=$(sbatch --parsable -N "$n" -t "$lim" -J "$label" \
			-o /dev/null "$@" --wrap "sleep $rt" 2>&1) ||
			die "sbatch for $label failed: $id"
		echo "$label ${id%%;*}" >>"$ids"
	done <"$wl"
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

[ $# -ge 1 ] || die "usage: $PROG gen|swf|sacct|submit|wait ..."
cmd=$1
shift
case $cmd in
gen) cmd_gen "$@" ;;
swf) cmd_swf "$@" ;;
sacct) cmd_sacct "$@" ;;
submit) cmd_submit "$@" ;;
wait) cmd_wait "$@" ;;
*) die "unknown command $cmd" ;;
esac
