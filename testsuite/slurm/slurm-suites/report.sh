# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-suites/report.sh - slurm-suites.sh's report once every plugin has
# run: the per-test table, the counts per plugin, one "ok N -" or
# "not ok N -" per test (the comparison rules are in slurm-suites.sh's
# header) and the closing lists. Sourced by slurm-suites.sh, whose
# variables (RUNROOT, RAN, STRICT, FLOOR, REPORT, HARNESS_BROKEN) it uses;
# apart from running the tests, so that each file holds one job.

# status P UNIT - UNIT's best result under plugin P ("-" if none).
status() {
	awk -v t="$2" '$1 == t { s = $2 } END { print s == "" ? "-" : s }' \
		"$RUNROOT/$1.results" 2>/dev/null || echo -
}

# first P UNIT - UNIT's result at its first try under plugin P.
first() {
	awk -v t="$2" '$1 == t { s = $5 } END { print s == "" ? "-" : s }' \
		"$RUNROOT/$1.results" 2>/dev/null || echo -
}

# units TESTS - what the report compares, one a line: each expect test;
# each test of a python file (FILE::NAME) that either plugin ran, and
# the file itself when a plugin got no test results from it (it did not
# load, or timed out).
units() {
	local t p
	for t in $1; do
		case $t in
		python/*::*) echo "$t" ;;
		python/*)
			cat "$RUNROOT"/*.results 2>/dev/null |
				awk -v f="$t::" 'index($1, f) == 1 && !seen[$1]++ { print $1 }'
			for p in $RAN; do
				awk -v t="$t" '$1 == t && / cases=0/ { f = 1 } END { exit !f }' \
					"$RUNROOT/$p.results" && { echo "$t"; break; }
			done
			;;
		*) echo "$t" ;;
		esac
	done
}

report() {
	local tests=$1 u lin loc lf cf ex p n np tab=$RUNROOT/table
	local regress="" both="" only="" excs="" retried="" cmp units_
	units_=$(units "$tests")
	{
		printf '%-70s %-8s %-8s\n' test linear locality
		for u in $units_; do
			lin=$(status linear "$u") loc=$(status locality "$u")
			[ "$(first linear "$u")" != "$lin" ] && lin="$lin*"
			[ "$(first locality "$u")" != "$loc" ] && loc="$loc*"
			printf '%-70s %-8s %-8s\n' "$u" "$lin" "$loc"
		done
		echo "(* passed or changed on a retry)"
	} >"$tab"
	[ -n "$REPORT" ] && cp "$tab" "$REPORT"
	note "--- per test (also in $tab) ---"
	sed 's/^/# /' "$tab"
	for p in $RAN; do
		note "select/$p: $(for u in $units_; do status "$p" "$u"; done |
			awk '{ c[$1]++ } END { printf "%d pass, %d fail, %d skip, %d timeout, %d not run (%d tests)", c["pass"], c["fail"], c["skip"], c["timeout"], c["-"], NR }');" \
			"$(echo "$units_" | grep -c '^expect/') expect tests, $(echo "$units_" | grep -c '::') tests of $(echo "$tests" | grep -c '^python/') python files"
	done
	[ -n "$HARNESS_BROKEN" ] && not_ok "the clusters stayed usable" "$HARNESS_BROKEN"
	for p in $RAN; do
		[ -s "$RUNROOT/$p/ctld-died" ] &&
			not_ok "slurmctld under select/$p survived every test" "it exited during: $(paste -sd' ' "$RUNROOT/$p/ctld-died")"
	done
	if case " $RAN " in *" locality "*) true ;; *) false ;; esac; then
		if [ -s "$RUNROOT/locality/plugin-errors" ]; then
			not_ok "select/locality: slurmctld logged no 'error: select/locality' line during the tests" \
				"$(wc -l <"$RUNROOT/locality/plugin-errors") lines, during $(cut -d: -f1 "$RUNROOT/locality/plugin-errors" | sort -u | paste -sd' ' -); first: $(head -n 1 "$RUNROOT/locality/plugin-errors" | cut -c1-300)"
		else
			ok "select/locality: slurmctld logged no 'error: select/locality' line during the tests"
		fi
	fi
	# The floor: a harness that breaks most tests under both plugins
	# would otherwise leave nothing to compare.
	if [ "$FLOOR" -gt 0 ]; then
		if case " $RAN " in *" linear "*) true ;; *) false ;; esac; then
			n=$(echo "$units_" | grep -c .)
			np=$(for u in $units_; do status linear "$u"; done | grep -c '^pass$')
			if [ $((np * 100)) -ge $((FLOOR * n)) ]; then
				ok "select/linear, the control, passes at least $FLOOR% of the tests: $np of $n"
			else
				not_ok "select/linear, the control, passes at least $FLOOR% of the tests" "$np of $n passed"
			fi
		else
			note "the floor ($FLOOR% of the tests passing under the control) was not checked: select/linear did not run"
		fi
	fi
	for u in $units_; do
		lin=$(status linear "$u") loc=$(status locality "$u")
		lf=$(first linear "$u") cf=$(first locality "$u")
		cmp="linear $lin, locality $loc"
		if [ "$lf" != "$lin" ] || [ "$cf" != "$loc" ]; then
			retried="$retried $u"
			cmp="$cmp; first tries: linear $lf, locality $cf"
		fi
		if [ "$STRICT" = 1 ]; then
			# The CI list: every test passes under every plugin run.
			local bad=""
			for p in $RAN; do
				[ "$(status "$p" "$u")" = pass ] || bad="${bad:+$bad, }$(status "$p" "$u") under select/$p"
			done
			if [ -n "$bad" ]; then
				not_ok "$u: passes under each plugin" "$bad"
				continue
			fi
		fi
		# One plugin run: nothing to compare.
		if [ "$(echo $RAN | wc -w)" -lt 2 ]; then
			[ "$STRICT" = 1 ] && ok "$u: passes under select/$RAN"
			[ "$STRICT" = 1 ] || note "$u: $cmp (one plugin run, not compared)"
			continue
		fi
		if [ "$lf" = pass ] && [ "$loc" = pass ] && [ "$cf" != pass ]; then
			not_ok "$u: passes at once under select/linear, only on a retry under select/locality" "$cmp"
		elif [ "$lin" = pass ] && [ "$loc" != pass ]; then
			ex=""
			[ "$STRICT" = 1 ] || ex=$(exception "$u")
			if [ -n "$ex" ]; then
				excs="$excs $u"
				ok "$u: linear pass, locality $loc # exception: $ex"
			else
				regress="$regress $u"
				not_ok "$u: passes under select/linear, $loc under select/locality" "$cmp"
			fi
		else
			if [ "$lin" = pass ] && [ "$loc" = pass ]; then
				ok "$u: passes under both plugins ($cmp)"
			else
				ok "$u: no worse under select/locality ($cmp)"
			fi
			case $lin/$loc in
			pass/pass) ;;
			*/pass) only="$only $u" ;;
			*) both="$both $u" ;;
			esac
		fi
	done
	note "pass under linear, not under locality: ${regress:-none}"
	note "documented exceptions (slurm-suites.exceptions): ${excs:-none}"
	note "pass under neither (environment limits): ${both:-none}"
	note "pass only under locality: ${only:-none}"
	note "result changed on a retry: ${retried:-none}"
	for p in $RAN; do
		[ -s "$RUNROOT/$p/restarts" ] &&
			note "select/$p: cluster started afresh after $(wc -l <"$RUNROOT/$p/restarts") test(s): $(awk '{ print $1 }' "$RUNROOT/$p/restarts" | paste -sd' ' -)"
	done
}
