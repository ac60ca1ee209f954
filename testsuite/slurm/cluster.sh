#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cluster.sh - a throwaway Slurm cluster on this one machine: munge,
# slurmctld and one slurmd per node, everything under one run directory.
#
#   cluster.sh start --dir RUNDIR [--nodes 64]
#                    [--select linear|cons_tres|locality]
#                    [--topology default|flat|locality|tree|block|torus3d]
#                    [--plugin-dir DIR | --no-plugin-dir]
#                    [--locality-conf FILE]
#                    [--debug LEVEL] [--extra 'Key=Value'] ...
#                    [--ctld-wrapper 'COMMAND ARGS'] [--shape SHAPE]
#                    [--cpus N] [--mem MB] [--gpus N] [--accounting]
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
# --accounting adds an accounting database, so sacct works: a private
# MariaDB (RUNDIR/db; 127.0.0.1, port LOC_MYSQL_PORT, default slurmctld's
# port + 3) and slurmdbd (port LOC_DBD_PORT, default slurmctld's + 2),
# started before slurmctld and stopped after it. It needs the packages
# mariadb-server and slurmdbd (scripts/setup.sh: the host's 22.05 only).
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
#   two-kinds   per-row lines; the second, fourth.. rows are another kind
#               of node, with twice the --cpus and --mem
#   partitions  per-row lines; partition main (all nodes, default) and an
#               overlapping partition half (the first half of the nodes)
#   shuffled    one NodeName line per node, in a scrambled order (slurmctld
#               sorts its node table by name; 22.05 offers select/linear
#               one line at a time in this order, 24.11 merges the lines)
#   gpu-sparse  one NodeName line per node; with --gpus, only the nodes of
#               even rows at even places in their row have GPUs (one in
#               four, every other node of every other row)
#   gpu-typed   as gpu-sparse, but with --gpus those nodes have GPUs of type
#               a100 and every other node GPUs of type v100
# --topology sets TopologyPlugin (with --select cons_tres): locality is
# this project's topology/locality (Slurm 24.11 and 26.05), which needs
# --plugin-dir (or --no-plugin-dir) and --locality-conf like
# select/locality; default (24.11) and flat (26.05) are Slurm's own, and
# so are tree and block, for which start writes topology.conf: groups of
# LOC_TOPO_GROUP consecutive nodes (default LOC_ROW_NODES, 8), in name
# order, are tree's leaf switches (s1.., under one top switch s0) or
# block's blocks (b1.., BlockSizes=G,2G,4G.. up to the node count);
# torus3d (26.05) gets topology.yaml instead (cluster/conf.sh,
# topology_yaml_torus3d: LOC_TORUS3D_DIMS, LOC_TORUS3D_PLACEMENTS).
# --extra adds a line to slurm.conf; SchedulerParameters=X adds X to the
# cluster's own SchedulerParameters.
# --gpus gives every node (gpu-sparse: some nodes) N GPUs (Gres=gpu:N;
# gpu-typed: gpu:a100:N or gpu:v100:N), GresTypes=gpu and a gres.conf,
# backed by stand-in device files RUNDIR/dev/gpuI that start creates: enough for slurmd and cons_tres to count and bind them.
# --cpus gives every node N CPUs (default 1) and --mem MB of RealMemory
# (default 100); slurmd takes the configured figures whatever the machine
# has (SlurmdParameters=config_overrides).
# Timeouts (seconds, from the environment): LOC_START_TIMEOUT (nodes idle
# after start, 90), LOC_CTLD_TIMEOUT (slurmctld answers after a (re)start,
# 30), LOC_STOP_TIMEOUT (daemons exit on SIGTERM before SIGKILL, 5),
# LOC_DBD_TIMEOUT (MariaDB, then slurmdbd answer with --accounting, 60).
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
DBD_PORT=${LOC_DBD_PORT:-$((CTLD_PORT + 2))}
MYSQL_PORT=${LOC_MYSQL_PORT:-$((CTLD_PORT + 3))}
DBD_TIMEOUT=${LOC_DBD_TIMEOUT:-60}

# The daemons' processes and ports, and the files a cluster is made of.
CLUSTER_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cluster
. "$CLUSTER_LIB/daemons.sh"
. "$CLUSTER_LIB/conf.sh"
. "$CLUSTER_LIB/dbd.sh"

die() {
	echo "$PROG: $*" >&2
	exit 1
}

usage() {
	sed -n '5,35p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# Node name of index i (1-based): n001..n999.
node_name() {
	printf 'n%03d' "$1"
}

cmd_start() {
	local dir="" nodes=64 select=linear plugdir="" lconf="" debug=info
	local wrapper="" shape=single cpus=1 mem=100 topology="" gpus=0
	EXTRA=() ACCOUNTING=""
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
		--accounting) ACCOUNTING=1; shift ;;
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
	single | per-node | per-row | weights | features | two-kinds | partitions | shuffled | gpu-sparse | gpu-typed) ;;
	*) die "--shape wants single, per-node, per-row, weights, features, two-kinds, partitions, shuffled, gpu-sparse or gpu-typed, got '$shape'" ;;
	esac
	case $topology in
	'' | default | flat | locality | tree | block | torus3d) ;;
	*) die "--topology wants default, flat, locality, tree, block or torus3d, got '$topology'" ;;
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
	[ -z "$ACCOUNTING" ] || dbd_check

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
	for p in "$CTLD_PORT" "$NODE_PORT0" $((NODE_PORT0 + nodes - 1)) \
		${ACCOUNTING:+"$DBD_PORT" "$MYSQL_PORT"}; do
		port_busy "$p" && die "port $p is in use (another cluster running?)"
	done
	rm -rf "${dir:?}/etc" "${dir:?}/state" "${dir:?}/spool" "${dir:?}/run" \
		"${dir:?}/log" "${dir:?}/db"
	rm -f "$dir/jobcomp.txt"
	mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/run" "$dir/log" \
		"$dir/out" || die "cannot create directories under $dir"
	write_conf "$dir" "$nodes" "$select" "$plugdir" "$debug" "$shape" "$cpus" \
		"$mem" "$topology" "$gpus"
	[ -n "$lconf" ] && cp "$lconf" "$dir/etc/locality.conf"
	case $topology in
	tree | block) topology_conf "$topology" "$nodes" \
		>"$dir/etc/topology.conf" || die "cannot write topology.conf" ;;
	torus3d) topology_yaml_torus3d "$nodes" >"$dir/etc/topology.yaml" ||
		die "cannot write topology.yaml" ;;
	esac
	echo "export SLURM_CONF=$dir/etc/slurm.conf" >"$dir/env"
	[ -n "$wrapper" ] && echo "$wrapper" >"$dir/run/ctld-wrapper"

	ensure_munge
	export SLURM_CONF=$dir/etc/slurm.conf
	[ -n "$ACCOUNTING" ] && start_dbd "$dir"
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
	echo "$PROG: $nodes nodes idle, SelectType=select/$select${topology:+ TopologyPlugin=topology/$topology}${ACCOUNTING:+, slurmdbd on port $DBD_PORT}, SLURM_CONF=$dir/etc/slurm.conf"
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
		# slurmdbd and MariaDB last (stop_dbd): slurmctld sends its
		# last job records as it exits.
		case " $DBD_DAEMONS " in *" $(basename "$f" .recpid) "*) continue ;; esac
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
	stop_dbd "$dir"
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
