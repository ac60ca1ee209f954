# SPDX-License-Identifier: GPL-2.0-or-later
#
# cluster/daemons.sh - cluster.sh's daemons: finding them by the marks
# they are started with, waiting for them and their ports, munge, and
# starting slurmctld and each slurmd. Sourced by cluster.sh, whose
# variables (ports, timeouts, PROG) it uses.

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
