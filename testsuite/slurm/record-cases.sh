#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# record-cases.sh - run-tests.sh's case r: each job's placement recorded in
# its AdminComment (locality.conf RecordPlacement), read back from sacct
# through slurmdbd, checked against the job's NodeList and the ideal for
# its size, an administrator's own AdminComment kept beside it, and
# RecordPlacement=none honoured after scontrol reconfigure. Sourced by
# run-tests.sh, whose helpers and variables it uses; reads the records
# with sacct-records.sh.

. "$HERE/sacct-records.sh"

case_r() {
	local n1="r: $RECORD_SOURCE shows every job's placement record (AdminComment), as its NodeList and the ideal give it"
	local n2="r: an administrator's AdminComment is kept beside the record"
	local n3="r: RecordPlacement=none, after scontrol reconfigure, records nothing"
	local id0 id ids=() bad="" k out rec line want_ideal got_ideal

	wait_all_idle 30 || note "r: not all nodes idle before the case"
	# An administrator's note on a job before it starts.
	id0=$(sbatch --parsable -H -N3 -o /dev/null --wrap 'sleep 2' \
		2>>"$RUNROOT/sbatch.err")
	scontrol update jobid="$id0" AdminComment="ticket 7" ||
		bad="scontrol update AdminComment failed"
	scontrol release "$id0"
	ids+=("$id0")
	for k in 4 2 8 1 5; do
		ids+=("$(sub -N"$k" 2)")
	done
	for id in "${ids[@]}"; do
		wait_state "$id" COMPLETED 60 ||
			bad="job $id did not complete: $(job_field "$id" JobState)"
	done
	records_read "$RUNROOT/r.sacct" "${ids[@]}"
	out=$(records_nodelist_lag "$RUNROOT/r.sacct" "$CURRENT/jobcomp.txt" | tr '\n' ' ')
	[ -n "$out" ] && bad="$RECORD_SOURCE's NodeList is not the job's, after 30 s, for jobs $out"
	if [ -z "$bad" ]; then
		rec=$("$EVAL" --conf "$LCONF_MM" --nodes "$ALLNODES" --quiet \
			"$RUNROOT/r.sacct" 2>&1 | grep -v '^summary')
		note "r: $rec"
		case $rec in
		"records: jobs=${#ids[@]} "*"disagree=0") ;;
		*) bad="locality-eval on $RECORD_SOURCE's lines: $rec" ;;
		esac
	fi
	# The ideal in each record is the ideal of its size.
	while [ -z "$bad" ] && IFS= read -r line; do
		case $line in *"locality strategy=mm nodes="*) ;; *) continue ;; esac
		k=$(printf '%s\n' "$line" | sed 's/.*locality strategy=mm nodes=\([0-9]*\).*/\1/')
		got_ideal=$(printf '%s\n' "$line" | sed 's/.* ideal=\([0-9.]*\).*/\1/')
		want_ideal=$("$EVAL" --conf "$LCONF_MM" --nodes "$ALLNODES" --ideal -k "$k" |
			awk '{printf "%.3f", $2}')
		[ "$k" = 1 ] && want_ideal=0.000 # --ideal lists sizes from 2
		[ "$got_ideal" = "$want_ideal" ] ||
			bad="-N$k recorded ideal=$got_ideal, locality-eval --ideal gives $want_ideal: $line"
	done <"$RUNROOT/r.sacct"
	[ -z "$bad" ] && ! grep -q '|locality strategy=mm ' "$RUNROOT/r.sacct" &&
		bad="no record names strategy mm: $(tr '\n' ' ' <"$RUNROOT/r.sacct")"
	result "$n1" "$bad"

	line=$(grep "^$id0|" "$RUNROOT/r.sacct")
	case $line in
	*"|ticket 7; locality strategy=mm nodes=3 hops="*) result "$n2" "" ;;
	*) result "$n2" "job $id0: '$line'" ;;
	esac

	bad=""
	printf 'RecordPlacement=none\n' >>"$CURRENT/etc/locality.conf"
	scontrol reconfigure || bad="scontrol reconfigure failed"
	id=$(sub -N2 1)
	wait_state "$id" COMPLETED 60 || bad="job $id did not complete"
	if ! grep -q 'RecordPlacement=none' "$CURRENT/log/slurmctld.log"; then
		bad="slurmctld did not reload locality.conf"
	elif [ -z "$bad" ]; then
		out=$(job_field "$id" AdminComment)
		[ -z "$out" ] || bad="job $id: AdminComment=$out"
	fi
	result "$n3" "$bad"
}
