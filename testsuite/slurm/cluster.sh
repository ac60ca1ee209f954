#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cluster.sh - a throwaway Slurm cluster on this one machine: munge,
# slurmctld and one slurmd per node, everything under one run directory.
#
#   cluster.sh start --dir RUNDIR [--nodes 64]
#                    [--select linear|cons_tres|locality]
#                    [--topology default|flat|locality|tree|block]
#                    [--plugin-dir DIR | --no-plugin-dir]
#                    [--locality-conf FILE]
#                    [--debug LEVEL] [--extra 'Key=Value'] ...
#                    [--ctld-wrapper 'COMMAND ARGS'] [--shape SHAPE]
#                    [--cpus N] [--mem MB] [--gpus N]
#   cluster.sh stop --dir RUNDIR
#   cluster.sh restart-ctld --dir RUNDIR [--kill9] [--flags 'FLAGS']
#   cluster.sh restart-slurmd --dir RUNDIR --node NAME [--kill9]
#   cluster.sh env --dir RUNDIR          (prints "export SLURM_CONF=...")
#   cluster.sh version                   (the Slurm series it runs: 24.11)
#   cluster.sh munge                     (starts munged unless it answers)
#
# Daemons run in the foreground (-D) in the background of this script, so
# the PID this script records is the daemon itself; stop kills exactly
# those PIDs, then any process that inherited this cluster's marker
# variable (slurmstepd and job steps), never anything found by name.
# Nothing is written outside RUNDIR except /run/munge (munged may stay).
# restart-ctld --flags passes FLAGS to the new slurmctld (-i: ignore
# errors in its state files).
# --no-plugin-dir writes no PluginDir line: Slurm uses its built-in one,
# where the Debian package slurm-wlm-locality-plugin installs the plugin.
# --ctld-wrapper runs slurmctld under a command that execs it in the same
# process (valgrind, for one); restart-ctld keeps the wrapper.
# --shape is how slurm.conf describes the nodes (nodes n001.. fill rows of
# LOC_ROW_NODES, default 8, in name order on the wiring):
#   single      one NodeName line for all nodes (the default)
#   per-node    one NodeName line per node, in name order
#   per-row     one NodeName line per row
#   weights     per-row lines; the last two rows Weight=100 Features=bigmem,
#               the others Weight=1 (a heavier tier used last)
#   features    per-row lines; even rows Features=ssd, odd rows hdd
#   partitions  per-row lines; partition main (all nodes, default) and an
#               overlapping partition half (the first half of the nodes)
#   shuffled    one NodeName line per node, in a scrambled order, so the
#               node table is not in name (nor wiring) order
# --topology sets TopologyPlugin (with --select cons_tres): locality is
# this project's topology/locality (Slurm 24.11 and 26.05), which needs
# --plugin-dir (or --no-plugin-dir) and --locality-conf like
# select/locality; default (24.11) and flat (26.05) are Slurm's own, and
# so are tree and block, for which start writes topology.conf: groups of
# LOC_TOPO_GROUP consecutive nodes (default LOC_ROW_NODES, 8), in name
# order, are tree's leaf switches (s1.., under one top switch s0) or
# block's blocks (b1.., BlockSizes=G,2G,4G.. up to the node count).
# --gpus gives every node N GPUs (Gres=gpu:N, GresTypes=gpu and a
# gres.conf), backed by stand-in device files RUNDIR/dev/gpuI that start
# creates: enough for slurmd and cons_tres to count and bind them.
# --cpus gives every node N CPUs (default 1) and --mem MB of RealMemory
# (default 100); slurmd takes the configured figures whatever the machine
# has (SlurmdParameters=config_overrides).
# Timeouts (seconds, from the environment): LOC_START_TIMEOUT (nodes idle
# after start, 90), LOC_CTLD_TIMEOUT (slurmctld answers after a (re)start,
# 30), LOC_STOP_TIMEOUT (daemons exit on SIGTERM before SIGKILL, 5).
# Facts behind the settings: slurm-22.05-notes.md (multiple slurmd on one
# host, config_overrides, PluginDir colon list).

set -u

PROG=cluster.sh
SYSPLUGDIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
CTLD_PORT=${LOC_CTLD_PORT:-6817}
NODE_PORT0=${LOC_NODE_PORT0:-17001}
START_TIMEOUT=${LOC_START_TIMEOUT:-90}
CTLD_TIMEOUT=${LOC_CTLD_TIMEOUT:-30}
STOP_TIMEOUT=${LOC_STOP_TIMEOUT:-5}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

usage() {
	sed -n '5,30p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# Node name of index i (1-based): n001..n999.
node_name() {
	printf 'n%03d' "$1"
}

# Prints the PIDs of live processes that belong to the cluster in $1: the
# daemons and slurmstepd carry the marker variable LOC_CLUSTER_DIR=<rundir>
# in their environment; job scripts and their children descend from a
# marked slurmstepd (or run a script from <rundir>/spool). This shell and
# its ancestors are never listed.
marked_pids() {
	local dir=$1 p roots="" self_chain=" " q
	q=$$
	while [ -n "$q" ] && [ "$q" != 0 ]; do
		self_chain="$self_chain$q "
		q=$(awk '{print $4}' "/proc/$q/stat" 2>/dev/null)
	done
	self_chain="$self_chain$BASHPID "
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		if grep -qazxF -e "LOC_CLUSTER_DIR=$dir" \
			"/proc/$p/environ" 2>/dev/null ||
			grep -qaF -e "$dir/spool/" "/proc/$p/cmdline" 2>/dev/null; then
			roots="$roots $p"
		fi
	done
	# Add descendants (pid ppid pairs from /proc/*/stat; the command name
	# in field 2 may hold blanks, so strip through its closing paren).
	for p in /proc/[0-9]*/stat; do
		sed -n 's/^\([0-9]*\) .*) . \([0-9]*\) .*/\1 \2/p' "$p" 2>/dev/null
	done | awk -v roots="$roots" -v self="$self_chain" '
		{ parent[$1] = $2 }
		END {
			n = split(roots, r, " ")
			for (i = 1; i <= n; i++) mark[r[i]] = 1
			do {
				changed = 0
				for (c in parent)
					if (!(c in mark) && (parent[c] in mark)) {
						mark[c] = 1; changed = 1
					}
			} while (changed)
			for (c in mark)
				if (index(self, " " c " ") == 0 && (c in parent))
					print c
		}'
}

alive() {
	! gone "$1"
}

# True when PID $1 has exited (a zombie awaiting its reaper counts).
gone() {
	local st=""
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 0
	st=${st##*) }
	[ "${st:0:1}" = Z ]
}

# Waits up to $2 tenths of a second for PID $1 to exit. Returns 0 if gone.
wait_gone() {
	local pid=$1 n=$2
	while ! gone "$pid"; do
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
		n=$((n - 1))
	done
	return 0
}

# True if something listens on TCP port $1 (from /proc: no iproute2 needed).
port_busy() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p="$hex" '
		FNR > 1 && $4 == "0A" && substr($2, length($2) - 3) == p { f = 1 }
		END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# The series (MAJOR.MINOR) of the slurmctld this script starts, from
# "slurm-wlm 24.11.5" or "slurm 24.11.5".
slurm_series() {
	/usr/sbin/slurmctld -V 2>/dev/null |
		sed -n 's/^slurm[a-z-]* \([0-9]*\.[0-9]*\)\..*/\1/p'
}

ensure_munge() {
	if [ -S /run/munge/munge.socket.2 ] &&
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
		return 0
	fi
	command -v munged >/dev/null || die "munged not installed (apt-get install munge)"
	install -d -o munge -g munge -m 0755 /run/munge ||
		die "cannot create /run/munge"
	runuser -u munge -- /usr/sbin/munged ||
		die "munged failed to start (see /var/log/munge/munged.log)"
	local i
	for i in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "munged started but munge -n | unmunge fails"
}

# node_lines NODES SHAPE HOST CPUS MEM - the NodeName and PartitionName
# lines.
node_lines() {
	local nodes=$1 shape=$2 host=$3 cpus=$4 mem=$5 gpus=${6:-0}
	local row=${LOC_ROW_NODES:-8}
	local common="NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN"
	[ "$gpus" -gt 0 ] && common="$common Gres=gpu:$gpus"
	local all="n[001-$(printf %03d "$nodes")]"
	awk -v n="$nodes" -v shape="$shape" -v row="$row" -v p0="$NODE_PORT0" \
		-v common="$common" -v all="$all" '
	function gcd(a, b) { return b ? gcd(b, a % b) : a }
	function one(i, extra) {
		printf "NodeName=n%03d Port=%d %s%s\n", i, p0 + i - 1, common, extra
	}
	function range(a, b, extra) {
		printf "NodeName=n[%03d-%03d] Port=[%d-%d] %s%s\n", a, b,
			p0 + a - 1, p0 + b - 1, common, extra
	}
	BEGIN {
		if (shape == "single") {
			range(1, n, "")
		} else if (shape == "per-node") {
			for (i = 1; i <= n; i++)
				one(i, "")
		} else if (shape == "shuffled") {
			# i -> (i * k) mod n with k coprime to n: a permutation.
			for (k = 29; gcd(k, n) != 1; k++)
				;
			for (j = 0; j < n; j++)
				one((j * k) % n + 1, "")
		} else {
			r = 0
			for (a = 1; a <= n; a += row) {
				b = a + row - 1 > n ? n : a + row - 1
				extra = ""
				if (shape == "weights")
					extra = b > n - 2 * row ? \
						" Weight=100 Features=bigmem" : " Weight=1"
				else if (shape == "features")
					extra = r % 2 ? " Features=hdd" : " Features=ssd"
				range(a, b, extra)
				r++
			}
		}
		printf "PartitionName=main Nodes=%s Default=YES MaxTime=INFINITE State=UP\n", all
		if (shape == "partitions")
			printf "PartitionName=half Nodes=n[001-%03d] MaxTime=INFINITE State=UP\n", int(n / 2)
	}'
}

write_conf() {
	local dir=$1 nodes=$2 select=$3 plugdir=$4 debug=$5 shape=$6 cpus=$7 mem=$8
	local topology=${9:-} gpus=${10:-0}
	local host
	host=$(hostname -s)
	local pd="PluginDir=$SYSPLUGDIR"
	# The named directory first: its select_locality.so wins over one a
	# package installed into Slurm's own directory. "-": no PluginDir.
	[ -n "$plugdir" ] && pd="PluginDir=$plugdir:$SYSPLUGDIR"
	[ "$plugdir" = - ] && pd="# PluginDir: Slurm's built-in default"
	cat >"$dir/etc/slurm.conf" <<EOF
# Generated by testsuite/slurm/cluster.sh; a throwaway local cluster.
ClusterName=loc
SlurmctldHost=$host
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
$pd
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=$debug
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SlurmdParameters=config_overrides
# 1, not 2: a node an admin (or a test) sets DOWN must stay DOWN; only
# nodes that stopped answering come back by themselves.
ReturnToService=1
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1,sched_min_interval=0
SelectType=select/$select
${topology:+TopologyPlugin=topology/$topology}
TreeWidth=128
KillWait=2
MinJobAge=600
MaxJobCount=20000
InactiveLimit=0
SlurmdTimeout=30
EOF
	node_lines "$nodes" "$shape" "$host" "$cpus" "$mem" "$gpus" \
		>>"$dir/etc/slurm.conf"
	if [ "$gpus" -gt 0 ]; then
		echo "GresTypes=gpu" >>"$dir/etc/slurm.conf"
		mkdir -p "$dir/dev"
		for i in $(seq 0 $((gpus - 1))); do : >"$dir/dev/gpu$i"; done
		echo "NodeName=n[001-$(printf %03d "$nodes")] Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" \
			>"$dir/etc/gres.conf"
	fi
	local line
	for line in "${EXTRA[@]}"; do
		echo "$line" >>"$dir/etc/slurm.conf"
	done
}

# topology_conf tree|block NODES - topology.conf for Slurm's tree or block
# plugin: groups of LOC_TOPO_GROUP nodes in name order.
topology_conf() {
	local kind=$1 nodes=$2 g=${LOC_TOPO_GROUP:-${LOC_ROW_NODES:-8}}
	case $g in
	'' | *[!0-9]* | 0) die "LOC_TOPO_GROUP wants a number from 1, got '$g'" ;;
	esac
	echo "# Generated by testsuite/slurm/cluster.sh: $kind, groups of $g nodes."
	awk -v n="$nodes" -v g="$g" -v kind="$kind" '
	BEGIN {
		for (a = 1; a <= n; a += g) {
			b = a + g - 1 > n ? n : a + g - 1
			i++
			if (kind == "tree")
				printf "SwitchName=s%d Nodes=n[%03d-%03d]\n", i, a, b
			else
				printf "BlockName=b%d Nodes=n[%03d-%03d]\n", i, a, b
		}
		if (kind == "tree") {
			printf "SwitchName=s0 Switches=s[1-%d]\n", i
		} else {
			sizes = g
			for (s = 2 * g; s <= n; s *= 2)
				sizes = sizes "," s
			printf "BlockSizes=%s\n", sizes
		}
	}'
}

# Starts slurmctld in the foreground, in the background of this shell,
# under the wrapper recorded at start (if any); records its PID.
# $2 = extra flags (-c for a clean start).
start_ctld() {
	local dir=$1 flags=$2 wrapper=""
	[ -f "$dir/run/ctld-wrapper" ] && wrapper=$(cat "$dir/run/ctld-wrapper")
	(
		export LOC_CLUSTER_DIR=$dir SLURM_CONF=$dir/etc/slurm.conf
		cd "$dir" || exit 1
		# shellcheck disable=SC2086
		exec $wrapper /usr/sbin/slurmctld -D $flags \
			-f "$dir/etc/slurm.conf" \
			>>"$dir/log/slurmctld.out" 2>&1 </dev/null
	) &
	echo $! >"$dir/run/slurmctld.recpid"
}

start_slurmd() {
	local dir=$1 name=$2
	mkdir -p "$dir/spool/$name"
	(
		export LOC_CLUSTER_DIR=$dir SLURM_CONF=$dir/etc/slurm.conf
		cd "$dir" || exit 1
		exec /usr/sbin/slurmd -D -N "$name" -f "$dir/etc/slurm.conf" \
			>>"$dir/log/slurmd.$name.out" 2>&1 </dev/null
	) &
	echo $! >"$dir/run/slurmd.$name.recpid"
}

log_tail() {
	local dir=$1
	echo "--- tail of $dir/log/slurmctld.log ---" >&2
	tail -n 25 "$dir/log/slurmctld.log" >&2 2>/dev/null
	if [ -s "$dir/log/slurmctld.out" ]; then
		echo "--- tail of $dir/log/slurmctld.out ---" >&2
		tail -n 10 "$dir/log/slurmctld.out" >&2
	fi
}

# Waits until slurmctld answers; fails if it died.
wait_ctld() {
	local dir=$1 t=$2 pid i
	pid=$(cat "$dir/run/slurmctld.recpid")
	for i in $(seq $((t * 5))); do
		if ! alive "$pid"; then
			log_tail "$dir"
			die "slurmctld (pid $pid) exited during start-up"
		fi
		scontrol ping 2>/dev/null | grep -q 'is UP' && return 0
		sleep 0.2
	done
	log_tail "$dir"
	die "slurmctld did not answer within ${t}s"
}

wait_idle() {
	local dir=$1 nodes=$2 t=$3 i idle
	for i in $(seq $((t * 2))); do
		idle=$(sinfo -h -N -p main -o '%N %t' 2>/dev/null |
			awk '$2 == "idle" { n++ } END { print n + 0 }')
		[ "$idle" -ge "$nodes" ] && return 0
		alive "$(cat "$dir/run/slurmctld.recpid")" || break
		sleep 0.5
	done
	echo "$PROG: only $idle of $nodes nodes idle after ${t}s" >&2
	sinfo -N -o '%N %t %E' 2>/dev/null | grep -v idle | head -n 10 >&2
	log_tail "$dir"
	local bad
	bad=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 != "idle" {print $1; exit}')
	if [ -n "$bad" ] && [ -f "$dir/log/slurmd.$bad.log" ]; then
		echo "--- tail of $dir/log/slurmd.$bad.log ---" >&2
		tail -n 10 "$dir/log/slurmd.$bad.log" >&2
	fi
	return 1
}

cmd_start() {
	local dir="" nodes=64 select=linear plugdir="" lconf="" debug=info
	local wrapper="" shape=single cpus=1 mem=100 topology="" gpus=0
	EXTRA=()
	while [ $# -gt 0 ]; do
		case $1 in
		--dir) dir=$2; shift 2 ;;
		--nodes) nodes=$2; shift 2 ;;
		--select) select=$2; shift 2 ;;
		--topology) topology=$2; shift 2 ;;
		--plugin-dir) plugdir=$2; shift 2 ;;
		--no-plugin-dir) plugdir=-; shift ;;
		--locality-conf) lconf=$2; shift 2 ;;
		--debug) debug=$2; shift 2 ;;
		--extra) EXTRA+=("$2"); shift 2 ;;
		--ctld-wrapper) wrapper=$2; shift 2 ;;
		--shape) shape=$2; shift 2 ;;
		--cpus) cpus=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--gpus) gpus=$2; shift 2 ;;
		*) usage ;;
		esac
	done
	[ -n "$dir" ] || usage
	case $cpus in
	'' | *[!0-9]* | 0) die "--cpus wants a number from 1, got '$cpus'" ;;
	esac
	case $mem in
	'' | *[!0-9]* | 0) die "--mem wants a number of MB from 1, got '$mem'" ;;
	esac
	case $nodes in
	'' | *[!0-9]*) die "--nodes wants a number, got '$nodes'" ;;
	esac
	case $gpus in
	'' | *[!0-9]*) die "--gpus wants a number, got '$gpus'" ;;
	esac
	[ "$nodes" -ge 1 ] && [ "$nodes" -le 999 ] || die "--nodes must be 1..999"
	case $select in
	linear | locality | cons_tres) ;;
	*) die "--select wants linear, cons_tres or locality, got '$select'" ;;
	esac
	case $shape in
	single | per-node | per-row | weights | features | partitions | shuffled) ;;
	*) die "--shape wants single, per-node, per-row, weights, features, partitions or shuffled, got '$shape'" ;;
	esac
	case $topology in
	'' | default | flat | locality | tree | block) ;;
	*) die "--topology wants default, flat, locality, tree or block, got '$topology'" ;;
	esac
	[ -z "$topology" ] || [ "$select" = cons_tres ] ||
		die "--topology needs --select cons_tres"
	local ours=""
	[ "$select" = locality ] && ours=select_locality
	[ "$topology" = locality ] && ours=topology_locality
	if [ -n "$ours" ]; then
		[ -n "$plugdir" ] ||
			die "$ours needs --plugin-dir DIR or --no-plugin-dir"
		if [ "$plugdir" = - ]; then
			[ -f "$SYSPLUGDIR/$ours.so" ] ||
				die "$SYSPLUGDIR/$ours.so not found (install slurm-wlm-locality-plugin)"
		else
			[ -f "$plugdir/$ours.so" ] ||
				die "$plugdir/$ours.so not found (build the plugin first)"
		fi
		[ -n "$lconf" ] || die "$ours needs --locality-conf FILE"
	fi
	[ -z "$lconf" ] || [ -r "$lconf" ] || die "cannot read $lconf"

	mkdir -p "$dir" || die "cannot create $dir"
	dir=$(cd "$dir" && pwd)
	# Only a new, empty or earlier cluster.sh directory is reused: start
	# deletes its etc, state, spool, run and log subdirectories.
	if [ ! -f "$dir/.loc-cluster" ] && [ -n "$(ls -A "$dir")" ]; then
		die "$dir is not empty and was not made by $PROG: choose a new --dir"
	fi
	[ "$dir" != / ] || die "--dir / is not a run directory"
	touch "$dir/.loc-cluster" || die "cannot write in $dir"
	if [ -f "$dir/run/slurmctld.recpid" ] &&
		alive "$(cat "$dir/run/slurmctld.recpid")"; then
		die "a cluster is already running in $dir (stop it first)"
	fi
	local p
	for p in "$CTLD_PORT" "$NODE_PORT0" $((NODE_PORT0 + nodes - 1)); do
		port_busy "$p" && die "port $p is in use (another cluster running?)"
	done
	rm -rf "${dir:?}/etc" "${dir:?}/state" "${dir:?}/spool" "${dir:?}/run" \
		"${dir:?}/log"
	rm -f "$dir/jobcomp.txt"
	mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/run" "$dir/log" \
		"$dir/out" || die "cannot create directories under $dir"
	write_conf "$dir" "$nodes" "$select" "$plugdir" "$debug" "$shape" "$cpus" \
		"$mem" "$topology" "$gpus"
	[ -n "$lconf" ] && cp "$lconf" "$dir/etc/locality.conf"
	case $topology in
	tree | block) topology_conf "$topology" "$nodes" \
		>"$dir/etc/topology.conf" || die "cannot write topology.conf" ;;
	esac
	echo "export SLURM_CONF=$dir/etc/slurm.conf" >"$dir/env"
	[ -n "$wrapper" ] && echo "$wrapper" >"$dir/run/ctld-wrapper"

	ensure_munge
	export SLURM_CONF=$dir/etc/slurm.conf
	start_ctld "$dir" -c
	wait_ctld "$dir" "$CTLD_TIMEOUT"
	local i
	for i in $(seq "$nodes"); do
		start_slurmd "$dir" "$(node_name "$i")"
	done
	if ! wait_idle "$dir" "$nodes" "$START_TIMEOUT"; then
		cmd_stop --dir "$dir" >/dev/null 2>&1
		die "cluster in $dir did not come up (stopped it again)"
	fi
	echo "$PROG: $nodes nodes idle, SelectType=select/$select${topology:+ TopologyPlugin=topology/$topology}, SLURM_CONF=$dir/etc/slurm.conf"
}

# Kills every recorded PID (TERM, then KILL after a grace period), then any
# process still carrying this cluster's marker.
cmd_stop() {
	local dir=""
	while [ $# -gt 0 ]; do
		case $1 in
		--dir) dir=$2; shift 2 ;;
		*) usage ;;
		esac
	done
	[ -n "$dir" ] || usage
	[ -d "$dir" ] || return 0
	dir=$(cd "$dir" && pwd)
	local f pid pids=()
	for f in "$dir"/run/*.recpid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		gone "$pid" || pids+=("$pid")
	done
	# Let slurmctld forget its jobs first so slurmstepd ends quietly.
	if [ ${#pids[@]} -gt 0 ] && [ -f "$dir/etc/slurm.conf" ]; then
		SLURM_CONF=$dir/etc/slurm.conf timeout 5 scancel --quiet \
			--user=root >/dev/null 2>&1 || true
	fi
	# Job steps first (slurmstepd and what it runs): a slurmd with a live
	# step is slow to honour SIGTERM. A daemon's own children (slurmctld's
	# slurmscriptd) are left to their parent, which waits for them.
	local p pp steps=""
	for p in $(marked_pids "$dir"); do
		pp=""
		{ read -r pp <"/proc/$p/stat"; } 2>/dev/null
		pp=${pp##*) }
		pp=${pp#* }
		pp=${pp%% *}
		case " ${pids[*]} " in
		*" $p "* | *" $pp "*) ;;
		*) steps="$steps $p" ;;
		esac
	done
	# shellcheck disable=SC2086
	[ -n "$steps" ] && kill -KILL $steps 2>/dev/null
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	# One shared deadline (LOC_STOP_TIMEOUT) for all of them, then SIGKILL.
	local n=$((STOP_TIMEOUT * 10)) live
	while [ "$n" -gt 0 ]; do
		live=0
		for pid in "${pids[@]}"; do
			wait_gone "$pid" 0 || live=$((live + 1))
		done
		[ "$live" = 0 ] && break
		sleep 0.1
		n=$((n - 1))
	done
	for pid in "${pids[@]}"; do
		if ! gone "$pid"; then
			[ -n "${LOC_CLUSTER_DEBUG:-}" ] &&
				echo "$PROG: SIGKILL $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline"))" >&2
			kill -KILL "$pid" 2>/dev/null
		fi
	done
	local left
	left=$(marked_pids "$dir")
	if [ -n "$left" ]; then
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null
	fi
	rm -f "$dir"/run/*.recpid
	# Give the kernel a moment to release the listening ports.
	local i
	for i in $(seq 50); do
		port_busy "$CTLD_PORT" || break
		sleep 0.1
	done
	echo "$PROG: stopped cluster in $dir"
}

cmd_restart_ctld() {
	local dir="" sig=TERM flags=""
	while [ $# -gt 0 ]; do
		case $1 in
		--dir) dir=$2; shift 2 ;;
		--kill9) sig=KILL; shift ;;
		--flags) flags=$2; shift 2 ;;
		*) usage ;;
		esac
	done
	[ -n "$dir" ] || usage
	dir=$(cd "$dir" && pwd)
	local pid
	pid=$(cat "$dir/run/slurmctld.recpid" 2>/dev/null) ||
		die "no slurmctld recorded in $dir"
	if alive "$pid"; then
		kill -"$sig" "$pid"
		wait_gone "$pid" $((STOP_TIMEOUT * 30)) ||
			die "slurmctld $pid did not exit"
	fi
	local i
	for i in $(seq 100); do
		port_busy "$CTLD_PORT" || break
		sleep 0.1
	done
	export SLURM_CONF=$dir/etc/slurm.conf
	start_ctld "$dir" "$flags"
	wait_ctld "$dir" "$CTLD_TIMEOUT"
	# Nodes answer the new slurmctld within a ping cycle; wait for that
	# so callers see real node states, not "unknown" or "not responding".
	local st=""
	for i in $(seq 120); do
		st=$(sinfo -h -N -o '%t' 2>/dev/null |
			grep -c -e '\*$' -e '^unk' -e '^$')
		[ "$st" = 0 ] && break
		sleep 0.5
	done
	[ "$st" = 0 ] || echo "$PROG: warning: $st nodes still not responding" >&2
	echo "$PROG: slurmctld restarted (SIG$sig), pid $(cat "$dir/run/slurmctld.recpid")"
}

# Stops one node's slurmd (if it still runs) and starts it again, with the
# same settings as at start; for fault tests that kill a slurmd.
cmd_restart_slurmd() {
	local dir="" node="" sig=TERM
	while [ $# -gt 0 ]; do
		case $1 in
		--dir) dir=$2; shift 2 ;;
		--node) node=$2; shift 2 ;;
		--kill9) sig=KILL; shift ;;
		*) usage ;;
		esac
	done
	[ -n "$dir" ] && [ -n "$node" ] || usage
	dir=$(cd "$dir" && pwd)
	[ -d "$dir/spool/$node" ] || die "no node $node in $dir"
	local pid port0 port i
	pid=$(cat "$dir/run/slurmd.$node.recpid" 2>/dev/null)
	if [ -n "$pid" ] && alive "$pid"; then
		kill -"$sig" "$pid"
		wait_gone "$pid" 150 || die "slurmd $pid ($node) did not exit"
	fi
	# Every shape gives node nI the port NODE_PORT0 + I - 1.
	port=$((NODE_PORT0 + 10#${node#n} - 1))
	for i in $(seq 100); do
		port_busy "$port" || break
		sleep 0.1
	done
	export SLURM_CONF=$dir/etc/slurm.conf
	start_slurmd "$dir" "$node"
	for i in $(seq 100); do
		port_busy "$port" && break
		alive "$(cat "$dir/run/slurmd.$node.recpid")" ||
			die "slurmd for $node exited during start-up"
		sleep 0.1
	done
	port_busy "$port" || die "slurmd for $node does not listen on port $port"
	echo "$PROG: slurmd $node restarted, pid $(cat "$dir/run/slurmd.$node.recpid")"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
start) cmd_start "$@" ;;
stop) cmd_stop "$@" ;;
restart-ctld) cmd_restart_ctld "$@" ;;
restart-slurmd) cmd_restart_slurmd "$@" ;;
env)
	[ "${1:-}" = --dir ] && [ -n "${2:-}" ] || usage
	cat "$2/env"
	;;
version) slurm_series ;;
munge) ensure_munge ;;
*) usage ;;
esac
