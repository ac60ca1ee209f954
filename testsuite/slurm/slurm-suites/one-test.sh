# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-suites/one-test.sh - slurm-suites.sh's run of one test under one
# plugin: expect or pytest, per-test results (pytest's junitxml), the
# retries slurm-suites.exceptions names, and slurmctld's errors. Sourced
# by slurm-suites.sh, whose variables it uses.

# junit_cases XML FILE - "FILE::NAME STATUS" for each testcase of
# pytest's junitxml: fail (a failure or an error), skip, else pass.
junit_cases() {
	python3 - "$1" "$2" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
seen = {}
try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError:
    sys.exit(0)
for tc in root.iter("testcase"):
    name = tc.get("name", "?").replace(" ", "_")
    if name in seen:
        name = tc.get("classname", "") + "." + name
    seen[name] = 1
    kids = {c.tag for c in tc}
    st = "fail" if kids & {"failure", "error"} else \
         "skip" if "skipped" in kids else "pass"
    print("%s::%s %s" % (sys.argv[2], name, st))
PYEOF
}

# run_once P TEST LOG - runs TEST once on plugin P's cluster; sets
# R_STATUS (pass, fail, skip, timeout) and R_SECS; for a python file,
# writes its tests' results to R_CASES (empty for an expect test).
run_once() {
	local p=$1 t=$2 log=$3 d=$RUNROOT/$1 rc t0=$SECONDS x
	: >"$R_CASES"
	local env=(env "SLT_RUN=$SLT_RUN" "PATH=$d/bin:$PATH"
		"SLURM_CONF=$SLURM_CONF" "SLURM_TESTSUITE_CONF=$d/testsuite.conf"
		"SLURM_LOCAL_GLOBALS_FILE=$d/globals.local")
	case $t in
	expect/*)
		(cd "$TS/expect" && "${env[@]}" timeout -k 10 "$TIMEOUT" \
			expect "./${t#expect/}") >"$log" 2>&1 </dev/null
		rc=$?
		case $rc in
		0) R_STATUS=pass ;;
		255) R_STATUS=skip ;;
		124 | 137) R_STATUS=timeout ;;
		*) R_STATUS=fail ;;
		esac
		;;
	python/*)
		x=$d/junit/$(echo "${t#python/}" | tr '/' '_').xml
		rm -f "$x"
		(cd "$TS/python" && "${env[@]}" timeout -k 10 "$PY_TIMEOUT" \
			pytest-3 -p no:cacheprovider -rA -v \
			--basetemp="$d/pytest/$(basename "$t" .py)" \
			--junitxml="$x" "${t#python/}") >"$log" 2>&1 </dev/null
		rc=$?
		# One "FILE::TEST STATUS" line per test pytest ran (its
		# junitxml); the file's own status sums them up.
		[ -s "$x" ] && junit_cases "$x" "${t%%::*}" >"$R_CASES"
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			R_STATUS=timeout
		elif [ ! -s "$R_CASES" ]; then
			R_STATUS=fail
		elif grep -q ' fail$' "$R_CASES"; then
			R_STATUS=fail
		elif grep -q ' pass$' "$R_CASES"; then
			R_STATUS=pass
		else
			R_STATUS=skip
		fi
		;;
	*)
		echo "unknown test $t" >"$log"
		R_STATUS=fail
		;;
	esac
	R_SECS=$((SECONDS - t0))
}

rank() {
	case $1 in pass) echo 3 ;; skip) echo 2 ;; fail) echo 1 ;; *) echo 0 ;; esac
}

# retry_reason TEST - why TEST may run again after a failure: the reason
# of the first "retry PATTERN REASON" line of slurm-suites.exceptions
# whose shell pattern matches TEST; nothing for every other test.
retry_reason() {
	local pat why
	[ -f "$EXCEPTIONS" ] || return 0
	while read -r kw pat why; do
		[ "$kw" = retry ] || continue
		# shellcheck disable=SC2254
		case $1 in $pat) echo "$why"; return 0 ;; esac
	done <"$EXCEPTIONS"
}

# ctld_errors FROM - the select/locality error lines slurmctld logged
# past byte FROM of its log.
ctld_errors() {
	tail -c +$(($1 + 1)) "$CTLD_LOG" 2>/dev/null | grep 'error: select/locality'
}

# run_test P TEST - runs TEST and resets the cluster; a failure runs
# again, up to --retries times, only for a test slurm-suites.exceptions
# names with the reason. Appends "TEST BEST SECS TRIES FIRST NOTES" to
# RUNROOT/P.results (BEST: the best result of the tries, FIRST: the
# first try's), and for a python file the same line for each of its
# tests (FILE::NAME, SECS 0).
run_test() {
	local p=$1 t=$2 d=$RUNROOT/$1 best="" secs=0 tries=0 notes="" off
	local log first="" errs rr max=0 ncases
	log=$d/logs/$(echo "$t" | tr '/' '_').log
	: >"$log"
	[ -n "$(retry_reason "$t")" ] && max=$RETRIES
	R_CASES=$d/cases.try
	: >"$d/cases.all"
	while :; do
		tries=$((tries + 1))
		off=$(stat -c %s "$CTLD_LOG" 2>/dev/null || echo 0)
		run_once "$p" "$t" "$log.$tries"
		cat "$log.$tries" >>"$log"
		rm -f "$log.$tries"
		awk -v n="$tries" '{ print $1, $2, n }' "$R_CASES" >>"$d/cases.all"
		secs=$((secs + R_SECS))
		[ -z "$first" ] && first=$R_STATUS
		if [ -z "$best" ] || [ "$(rank "$R_STATUS")" -gt "$(rank "$best")" ]; then
			best=$R_STATUS
		fi
		errs=$(tail -c +$((off + 1)) "$CTLD_LOG" 2>/dev/null | grep -c 'fatal:' || true)
		[ "$errs" -gt 0 ] && notes="$notes ctld-fatal=$errs"
		# The test's select/locality errors, those of the reset after
		# it too (unless the cluster was started afresh).
		ctld_errors "$off" | sed "s|^|$t: |" >"$d/errors.try"
		off=$(stat -c %s "$CTLD_LOG" 2>/dev/null || echo 0)
		rr=0
		reset_sut "$p" || rr=$?
		[ "$rr" = 0 ] && ctld_errors "$off" | sed "s|^|$t: |" >>"$d/errors.try"
		if [ -s "$d/errors.try" ]; then
			notes="$notes select/locality-errors=$(wc -l <"$d/errors.try")"
			cat "$d/errors.try" >>"$d/plugin-errors"
		fi
		if [ "$rr" != 0 ]; then
			notes="$notes restarted($(echo "$RESET_WHY" | tr ' ' '_' | cut -c1-60))"
			echo "$t $RESET_WHY" >>"$d/restarts"
			case $RESET_WHY in "slurmctld exited"*)
				echo "$t" >>"$d/ctld-died" ;;
			esac
			[ "$rr" = 2 ] && { HARNESS_BROKEN="cluster for $p could not be restarted after $t"; break; }
		fi
		[ "$best" = pass ] && break
		[ "$tries" -gt "$max" ] && break
		# A skip is the test's own verdict on the configuration; a
		# timeout costs the whole --timeout again.
		[ "$R_STATUS" = skip ] && [ "$first" = skip ] && break
		[ "$R_STATUS" = timeout ] && break
	done
	[ "$first" != "$best" ] && notes="$notes flaky($first->$best)"
	ncases=$(awk '$3 == 1' "$d/cases.all" | wc -l)
	case $t in python/*) notes="$notes cases=$ncases" ;; esac
	echo "$t $best $secs $tries $first${notes:+ $notes}" >>"$RUNROOT/$p.results"
	# Each python test: its best result over the tries, and its first.
	awk '
		function rank(s) { return s == "pass" ? 3 : s == "skip" ? 2 : s == "fail" ? 1 : 0 }
		!($1 in first) { order[++n] = $1; first[$1] = $2; best[$1] = $2; next }
		rank($2) > rank(best[$1]) { best[$1] = $2 }
		END { for (i = 1; i <= n; i++) print order[i], best[order[i]], 0, tries, first[order[i]] }
	' tries="$tries" "$d/cases.all" >>"$RUNROOT/$p.results"
	printf '# %-8s %-60s %-7s %4d s%s\n' "$p" "$t" "$best" "$secs" "$notes"
}
