# SPDX-License-Identifier: GPL-2.0-or-later
#
# common.sh - cluster and job helpers the fault cases share: the job stream, node states, jobcomp tables, log checks, the core's prediction.
# Sourced by fault-tests.sh, which sets the options and globals it reads.

stop_submitter() {
	if [ -n "$SUBMITTER" ]; then
		kill "$SUBMITTER" 2>/dev/null
		wait "$SUBMITTER" 2>/dev/null
		SUBMITTER=""
	fi
}

node_state() {
	sinfo -h -N -n "$1" -o %T 2>/dev/null | head -n 1
}

now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# submitter LIST ACKS GAP STOPFILE [RETRY] - sbatch each job of LIST in
# turn, GAP seconds apart, until the list ends or STOPFILE exists. Writes
# "label id nodes ack_ms" for every job sbatch acknowledged, and
# "label FAIL nodes ms" for every refusal (slurmctld down). With RETRY
# 1, a submission that failed in transit (slurmctld dropped the message:
# Slurm 22.05 does so to one that arrives as it begins a reconfigure) is
# sent once more a second later, as a user would, and its label written
# to ACKS.retried; other refusals are never retried.
submitter() {
	local list=$1 acks=$2 gap=$3 stop=$4 retry=${5:-0} label k secs id try
	: >"$acks"
	: >"$acks.retried"
	while read -r label k secs; do
		[ -e "$stop" ] && break
		for try in 1 2; do
			if id=$(sbatch --parsable -N "$k" -t 1 -J "$label" -o /dev/null \
				--wrap "sleep $secs" 2>"$acks.err"); then
				echo "$label ${id%%;*} $k $(now_ms)" >>"$acks"
				break
			fi
			cat "$acks.err" >>"$RUNROOT/sbatch.err"
			if [ "$try" = 1 ] && [ "$retry" = 1 ] &&
				grep -qE 'missing socket|Socket timed out|Zero Bytes were transmitted' \
					"$acks.err"; then
				echo "$label" >>"$acks.retried"
				sleep 1
				continue
			fi
			echo "$label FAIL $k $(now_ms)" >>"$acks"
			break
		done
		sleep "$gap"
	done <"$list"
}

# Jobcomp records as "id name state start end nodes,comma,separated" with
# epoch seconds (-1 when unknown) and node lists expanded.
jobcomp_table() {
	awk '
	function epoch(t) {
		if (t !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]+$/)
			return -1
		gsub(/[-T:]/, " ", t)
		return mktime(t)
	}
	function expand(hl,   n, i, c, cur, depth, items, out, pre, r, m, j,
			ab, a, b, w, x) {
		n = 0; depth = 0; cur = ""
		for (i = 1; i <= length(hl); i++) {
			c = substr(hl, i, 1)
			if (c == "[") depth++
			else if (c == "]") depth--
			if (c == "," && depth == 0) { items[++n] = cur; cur = ""; continue }
			cur = cur c
		}
		if (cur != "") items[++n] = cur
		out = ""
		for (i = 1; i <= n; i++) {
			if (match(items[i], /\[[^]]*\]$/)) {
				pre = substr(items[i], 1, RSTART - 1)
				r = substr(items[i], RSTART + 1, RLENGTH - 2)
				m = split(r, ab, ",")
				for (j = 1; j <= m; j++) {
					if (index(ab[j], "-")) {
						a = substr(ab[j], 1, index(ab[j], "-") - 1)
						b = substr(ab[j], index(ab[j], "-") + 1)
					} else {
						a = ab[j]; b = ab[j]
					}
					w = length(a)
					for (x = a + 0; x <= b + 0; x++)
						out = out (out == "" ? "" : ",") pre sprintf("%0" w "d", x)
				}
			} else {
				out = out (out == "" ? "" : ",") items[i]
			}
		}
		return out
	}
	{
		id = name = st = nl = ""; s = e = -1
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			v = substr($i, length(kv[1]) + 2)
			if (kv[1] == "JobId") id = v
			else if (kv[1] == "Name") name = v
			else if (kv[1] == "JobState") st = v
			else if (kv[1] == "StartTime") s = epoch(v)
			else if (kv[1] == "EndTime") e = epoch(v)
			else if (kv[1] == "NodeList") nl = v
		}
		printf "%s %s %s %d %d %s\n", id, name, st, s, e,
			(nl == "" || nl == "(null)") ? "-" : expand(nl)
	}' "$1"
}

# log_has PATTERN - true if slurmctld.log has a line matching PATTERN (ERE).
log_has() {
	grep -q -E -e "$1" "$CURRENT/log/slurmctld.log" 2>/dev/null
}

# log_set_down NODE - true if slurmctld.log has "Nodes LIST not
# responding, setting DOWN" with NODE in LIST, a hostlist that may be
# ranged: n[001-049,057] when a slow ping round took others down too.
log_set_down() {
	sed -n 's/.*Nodes \(.*\) not responding, setting DOWN.*/\1/p' \
		"$CURRENT/log/slurmctld.log" 2>/dev/null |
		while read -r list; do
			scontrol show hostnames "$list" 2>/dev/null
		done | grep -qxF "$1"
}

# completed_once TABLE ID... - prints why, if a job of the list has no
# COMPLETED record in TABLE (jobcomp_table) or COMPLETED records of more
# than one start (it ran twice). Records of one start are one run: a job
# that ended after the job_state save it is recovered from gets a second
# record of the same start (Slurm's own behaviour, case f), most often
# TIMEOUT, but COMPLETED when slurmctld learns first that it is gone.
completed_once() {
	local tab=$1
	shift
	printf '%s\n' "$@" | awk -v tab="$tab" '
		BEGIN {
			while ((getline l < tab) > 0) {
				split(l, f, " ")
				if (f[3] == "COMPLETED" && !run[f[1] " " f[4]]++) c[f[1]]++
				states[f[1]] = states[f[1]] (states[f[1]] ? "," : "") f[3]
			}
		}
		NF {
			n++
			if (!c[$1]) { lost++; if (!l1) l1 = $1 }
			else if (c[$1] > 1) { twice++; if (!t1) t1 = $1 }
		}
		END {
			# how the first lost job ended, from its records if any
			if (lost) printf "%d of %d jobs have no COMPLETED record (first: %s, records: %s)", lost, n, l1, (l1 in states) ? states[l1] : "none"
			if (twice) printf "%s%d completed more than once (first: %s)", lost ? "; " : "", twice, t1
		}'
}

# plugin_errors - prints "; N select/locality error lines (first: ...)"
# when slurmctld.log has any; a node given to two jobs is one of them.
# The error a broken locality.conf is meant to log ("keeping the running
# configuration", case c) is not counted.
plugin_errors() {
	local n
	n=$(grep 'error: select/locality' "$CURRENT/log/slurmctld.log" 2>/dev/null |
		grep -vc 'keeping the running configuration')
	[ "${n:-0}" -gt 0 ] &&
		echo "; $n select/locality error lines (first: $(grep 'error: select/locality' "$CURRENT/log/slurmctld.log" | grep -v -m1 'keeping the running configuration' | sed 's/^\[[^]]*\] //'))"
}

# fig LETTER TEXT - one plugin's figures of case LETTER, printed side by
# side at the end.
fig() {
	FIGS="${FIGS:+$FIGS
}$1|$2"
}

# loss LETTER SEL WHAT LOST OF TOL - plugin SEL lost LOST of OF jobs in
# case LETTER, in the way WHAT says. fault-tests.sh compares
# select/locality's losses with the control's (select/linear) when both
# ran: locality may lose at most the control's share of its own OF, plus
# TOL percentage points of OF (0: none beyond the control's; Slurm's own
# save-window losses vary from run to run by a few jobs in ten).
loss() {
	echo "$1|$3|$2|$4|$5|$6" >>"$RUNROOT/losses"
}

# The policy's prediction for k nodes on the idle machine.
predict() {
	"$EVAL" --conf "$1" --nodes "$ALLNODES" --predict -k "$2" 2>/dev/null
}

LCONF_MM=$RUNROOT/locality-mm.conf
LCONF_BF=$RUNROOT/locality-bestfit.conf
printf '# 8x8 torus, n001..n064 row-major\nDimensions=8x8\nTorus=yes\nStrategy=mm\nCurve=hilbert\n' \
	>"$LCONF_MM"
sed 's/^Strategy=mm$/Strategy=bestfit/' "$LCONF_MM" >"$LCONF_BF"
# Case e's edits: the same nodes moved. Rows in reverse order (NodeName=
# lines with Coords=), then the 64 nodes rewired as a 16x4 torus.
LCONF_REV=$RUNROOT/rows-reversed.conf
LCONF_16X4=$RUNROOT/rewired-16x4.conf
{
	printf '# 8x8 torus, rows of 8 nodes in reverse order\nDimensions=8x8\nTorus=yes\nStrategy=mm\nCurve=hilbert\n'
	for r in 0 1 2 3 4 5 6 7; do
		printf 'NodeName=n[%03d-%03d] Coords=%d,0\n' $((r * 8 + 1)) $((r * 8 + 8)) $((7 - r))
	done
} >"$LCONF_REV"
printf '# the same 64 nodes as a 16x4 torus\nDimensions=16x4\nTorus=yes\nStrategy=mm\nCurve=hilbert\n' \
	>"$LCONF_16X4"
