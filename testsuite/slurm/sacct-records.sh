# SPDX-License-Identifier: GPL-2.0-or-later
#
# sacct-records.sh - placement records read back where an administrator
# reads them: sacct, through slurmdbd. Sourced by record-cases.sh (the
# select plugin's case r) and topology-tests.sh (topology/locality), after
# lib.sh, whose record_lines, RUNROOT and CURRENT it uses.
#
# RECORD_SOURCE says where the records are read: sacct, on a cluster
# started with accounting (cluster.sh --accounting) where slurmdbd and
# MariaDB are installed (the Debian host, and each version's root); else
# scontrol, which checks the plugin's side only.
if command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null; then
	RECORD_SOURCE=sacct
else
	RECORD_SOURCE=scontrol
fi

# Jobs whose NodeList in the record lines (file $1) is not the one of
# their jobcomp record (file $2), one per line.
records_nodelist_lag() {
	awk -F'|' '
		NR == FNR {
			id = ""; nl = ""
			for (i = 1; i <= split($0, f, " "); i++) {
				if (f[i] ~ /^JobId=/) id = substr(f[i], 7)
				if (f[i] ~ /^NodeList=/) nl = substr(f[i], 10)
			}
			if (id != "") nodes[id] = nl
			next
		}
		FNR > 1 && nodes[$1] != $2 { print $1 }' "$2" "$1"
}

# The lines (JobID|NodeList|AdminComment) of jobs $1 (comma-separated), as
# RECORD_SOURCE gives them.
records_lines() {
	if [ "$RECORD_SOURCE" = sacct ]; then
		sacct -X -P -o JobID,NodeList,AdminComment -j "$1"
		return
	fi
	record_lines ${1//,/ }
}

# records_read OUT ID... - writes to OUT the lines of jobs ID... once every
# one shows a record and the nodes it ran on, or what there is after 30 s.
# slurmdbd learns a job's nodes from a start record that slurmctld may
# send seconds after the job ended (sacct shows the batch host meanwhile),
# and its AdminComment from the completion record. The jobs must have
# ended, so that jobcomp.txt names their nodes.
records_read() {
	local out=$1 ids
	shift
	ids=$(IFS=,; echo "$*")
	for _ in $(seq 60); do
		records_lines "$ids" >"$out" 2>&1
		[ "$(grep -c '|locality \|; locality ' "$out")" = "$#" ] &&
			[ -z "$(records_nodelist_lag "$out" "$CURRENT/jobcomp.txt")" ] &&
			break
		sleep 0.5
	done
}
