# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-suites/cluster.sh - slurm-suites.sh's cluster: Slurm's testsuite
# harness configuration, the cluster under test started, stopped and reset
# between tests. Sourced by slurm-suites.sh, whose variables it uses.

# write_harness P - the files that point Slurm's suites at plugin P's
# cluster: testsuite.conf, globals.local, the pkill wrapper.
write_harness() {
	local p=$1 d=$RUNROOT/$1
	mkdir -p "$d/bin" "$d/shared" "$d/logs" "$d/pytest" "$d/junit"
	cat >"$d/testsuite.conf" <<EOF
# Written by slurm-suites.sh for this run; Slurm's suites read it
# through SLURM_TESTSUITE_CONF.
SlurmSourceDir=$TS_SRC
SlurmBuildDir=$TS_SRC
SlurmInstallDir=/usr
SlurmConfigDir=$d/cluster/etc
EOF
	cat >"$d/globals.local" <<EOF
# Written by slurm-suites.sh for this run (SLURM_LOCAL_GLOBALS_FILE).
set slurm_dir /usr
set build_dir $TS_SRC
set src_dir $TS_SRC
set testsuite_shared_dir $d/shared
set testsuite_colorize false
set testsuite_cleanup_on_failure true
set testsuite_log_level 5
set bin_pkill $d/bin/pkill
EOF
	# pkill for the tests: pgrep's choice, narrowed to this run's
	# processes; the signal options are pkill's own.
	cat >"$d/bin/pkill" <<'EOF'
#!/bin/bash
# Written by slurm-suites.sh: pkill restricted to processes whose
# environment holds SLT_RUN=<this run>.
sig=TERM args=()
while [ $# -gt 0 ]; do
	case $1 in
	--signal | -s) sig=$2; shift 2 ;;
	--signal=*) sig=${1#--signal=}; shift ;;
	-[A-Z]* | -[0-9]*) sig=${1#-}; shift ;;
	-n | -o) shift ;;
	*) args+=("$1"); shift ;;
	esac
done
[ -n "${SLT_RUN:-}" ] || exit 1
n=0
for p in $(pgrep "${args[@]}"); do
	[ "$p" = $$ ] && continue
	grep -qazxF -e "SLT_RUN=$SLT_RUN" "/proc/$p/environ" 2>/dev/null || continue
	kill -s "$sig" "$p" 2>/dev/null && n=$((n + 1))
done
[ "$n" -gt 0 ]
EOF
	chmod +x "$d/bin/pkill"
	printf 'Dimensions=%dx%d\nTorus=yes\nStrategy=pack\nCurve=hilbert\n' \
		"$ROW" $((SNODES / ROW)) >"$d/locality.conf"
}

# start_sut P - a fresh cluster for plugin P in RUNROOT/P/cluster.
start_sut() {
	local p=$1 d=$RUNROOT/$1 args
	stop_sut
	args=(start --dir "$d/cluster" --nodes "$SNODES" --select "$p"
		--shape weights --cpus "$CPUS" --mem "$MEM" --debug info)
	[ "$p" = locality ] && args+=(--plugin-dir "$PLUGDIR"
		--locality-conf "$d/locality.conf")
	if ! LOC_ROW_NODES=$ROW "$CLUSTER" "${args[@]}" >>"$d/start.log" 2>&1; then
		sed 's/^/#   /' "$d/start.log" | tail -n 20
		return 1
	fi
	CURRENT=$d/cluster
	export SLURM_CONF=$d/cluster/etc/slurm.conf
	rm -rf "$d/etc.pristine"
	cp -a "$d/cluster/etc" "$d/etc.pristine"
	PRISTINE=$(fingerprint)
	CTLD_LOG=$d/cluster/log/slurmctld.log
}

stop_sut() {
	[ -n "${CURRENT:-}" ] && "$CLUSTER" stop --dir "$CURRENT" >/dev/null 2>&1
	CURRENT=""
}

# fingerprint - what must be as at the start between tests: the nodes'
# state, features, weight and memory, the partitions, no reservation.
fingerprint() {
	scontrol -o show node 2>/dev/null | tr ' ' '\n' |
		grep -E '^(NodeName|CPUTot|AvailableFeatures|ActiveFeatures|Gres|RealMemory|State|Weight|Partitions)=' |
		paste -sd' ' -
	scontrol -o show partition 2>/dev/null
	scontrol -o show reservation 2>/dev/null | grep -v '^No reservations'
}

# procs_of_run - PIDs of live processes carrying this run's marker.
procs_of_run() {
	local p
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
		grep -qazxF -e "SLT_RUN=$SLT_RUN" "/proc/$p/environ" 2>/dev/null &&
			echo "$p"
	done
}

ctld_alive() {
	local pid
	pid=$(cat "$CURRENT/run/slurmctld.recpid" 2>/dev/null) || return 1
	[ -d "/proc/$pid" ] && [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != Z ]
}

# reset_sut P - the cluster as it started. Returns 0, or 1 after it had to
# start the cluster afresh (RESET_WHY says why), 2 if even that failed.
reset_sut() {
	local p=$1 left i n bad st node pid
	RESET_WHY=""
	left=$(procs_of_run)
	# shellcheck disable=SC2086
	[ -n "$left" ] && kill -KILL $left 2>/dev/null
	if ! ctld_alive; then
		RESET_WHY="slurmctld exited"
	else
		scancel --quiet --user="$(id -un)" >/dev/null 2>&1
		for i in $(seq 60); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.5
		done
		if ! diff -r -q "$CURRENT/etc" "$RUNROOT/$p/etc.pristine" >/dev/null 2>&1; then
			rm -rf "$CURRENT/etc"
			cp -a "$RUNROOT/$p/etc.pristine" "$CURRENT/etc"
			scontrol reconfigure >/dev/null 2>&1
			sleep 2
		fi
		for n in $(scontrol -o show reservation 2>/dev/null |
			sed -n 's/^ReservationName=\([^ ]*\).*/\1/p'); do
			scontrol delete reservation="$n" >/dev/null 2>&1
		done
		for n in $(scontrol -o show partition 2>/dev/null |
			sed -n 's/^PartitionName=\([^ ]*\).*/\1/p'); do
			[ "$n" = main ] || scontrol delete partition="$n" >/dev/null 2>&1
		done
		[ "$(scontrol -o show partition main 2>/dev/null)" = \
			"$(echo "$PRISTINE" | grep '^PartitionName=main ')" ] ||
			scontrol reconfigure >/dev/null 2>&1
		for i in $(seq 40); do
			[ "$(fingerprint)" = "$PRISTINE" ] && return 0
			sinfo -h -N -o '%N %t' 2>/dev/null | while read -r node st; do
				case $st in
				*'*' | unk*)
					pid=$(cat "$CURRENT/run/slurmd.$node.recpid" 2>/dev/null)
					if [ -z "$pid" ] || [ ! -d "/proc/$pid" ]; then
						"$CLUSTER" restart-slurmd --dir "$CURRENT" \
							--node "$node" >/dev/null 2>&1
					fi
					;;
				down* | drain* | drng* | fail* | maint* | resv* | futr* | powerd*)
					scontrol update nodename="$node" state=resume >/dev/null 2>&1
					;;
				esac
			done
			sleep 0.5
		done
		RESET_WHY="not back to its start state within 20 s: $(diff <(echo "$PRISTINE") <(fingerprint) | grep '^>' | head -n 1 | cut -c1-160)"
	fi
	start_sut "$p" || return 2
	return 1
}
