# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/records.sh - topology-tests.sh's placement records, sourced by
# it (its MODE, SHAPE, LCONF, ORDER, EVAL and the lib.sh and
# sacct-records.sh helpers): each job's record in its AdminComment, read
# with scontrol, and in the per-row shape with sacct too.

# check_records FILE SOURCE NAME - the record lines in FILE (as SOURCE
# gives them) hold a record for each job of the sequence, naming as many
# nodes and the same mean hops as its NodeList: check NAME.
check_records() {
	local out
	out=$("$EVAL" --conf "$LCONF" --nodes "$ORDER" --quiet "$1" 2>&1 |
		grep -v '^summary')
	note "$SHAPE: locality: $2: $out"
	case $out in
	"records: jobs=$(wc -l <"$RUNROOT/$MODE.ids") "*"disagree=0") out="" ;;
	"") out="no job has a record in $2" ;;
	esac
	result "$3" "$out"
}

# records - each job of the sequence has its placement record in its
# AdminComment (RecordPlacement's default).
records() {
	record_lines $(awk '{print $2}' "$RUNROOT/$MODE.ids") \
		>"$RUNROOT/$SHAPE-records"
	check_records "$RUNROOT/$SHAPE-records" scontrol \
		"$SHAPE: locality: each job's AdminComment records its placement, as its NodeList gives it"
}

# records_in_sacct - the same records as slurmdbd keeps them: the jobs of
# the sequence cancelled, their lines read with sacct once each shows its
# record and nodes.
records_in_sacct() {
	local ids
	ids=$(awk '{print $2}' "$RUNROOT/$MODE.ids")
	# shellcheck disable=SC2086
	scancel $ids
	wait_empty 30
	# shellcheck disable=SC2086
	records_read "$RUNROOT/$SHAPE-sacct" $ids
	check_records "$RUNROOT/$SHAPE-sacct" sacct \
		"$SHAPE: locality: sacct shows each job's record, as its NodeList gives it"
}

# accounting_wanted - 1 when this cluster runs slurmdbd: topology/locality
# in the per-row shape, where slurmdbd is installed.
accounting_wanted() {
	[ "$MODE" = locality ] && [ "${SHAPE:-}" = per-row ] &&
		[ "$RECORD_SOURCE" = sacct ] && echo 1
}
