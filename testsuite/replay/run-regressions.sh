#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Golden regressions of locality-replay. Each directory
# testsuite/replay/regress/NNNN-name/ holds:
#   args         the replay's options, one per line (@TRACES@ stands for
#                ../shared/traces beside the source tree, @DATA@ for
#                testsuite/replay/data);
#   golden.json  the summary the replay must reproduce;
#   tolerance    optional relative tolerance (default 1e-6).
# A regression whose trace is absent is skipped with a message; the script
# exits 77 (skipped) when every one was.
#
#   run-regressions.sh            check every regression
#   run-regressions.sh --update   rewrite the golden summaries (after a
#                                 deliberate change; review the diff)
set -u
srcdir=${srcdir:-.}
bin=${LOCALITY_REPLAY:-./src/replay/locality-replay}
top=$(cd "$srcdir" && pwd)
traces=$top/../shared/traces
data=$top/testsuite/replay/data
update=0
[ "${1:-}" = "--update" ] && update=1

if [ ! -x "$bin" ]; then
	echo "run-regressions: $bin not built" >&2
	exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-regress.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

ran=0 skipped=0 failed=0
for dir in "$top"/testsuite/replay/regress/*/; do
	name=$(basename "$dir")
	[ -f "$dir/args" ] || continue
	if grep -q @TRACES@ "$dir/args" && [ ! -d "$traces" ]; then
		echo "SKIP $name: $traces is absent (real traces live in ../shared/traces)"
		skipped=$((skipped + 1))
		continue
	fi
	tol=1e-6
	[ -f "$dir/tolerance" ] && tol=$(cat "$dir/tolerance")
	# one option per line, placeholders replaced
	set --
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '' | '#'*) continue ;; esac
		line=$(printf '%s' "$line" | sed -e "s|@TRACES@|$traces|g" -e "s|@DATA@|$data|g")
		set -- "$@" "$line"
	done < "$dir/args"
	start=$(date +%s)
	if [ $update = 1 ]; then
		"$bin" "$@" --out "$tmp/$name" --no-svg -q --no-progress \
			--golden "$dir/golden.json" --update-golden
		rc=$?
	else
		"$bin" "$@" --out "$tmp/$name" --no-svg -q --no-progress \
			--golden "$dir/golden.json" --tolerance "$tol"
		rc=$?
	fi
	end=$(date +%s)
	if [ $rc = 0 ]; then
		echo "PASS $name ($((end - start)) s)"
	else
		echo "FAIL $name (exit $rc)"
		failed=$((failed + 1))
	fi
	ran=$((ran + 1))
done
echo "regressions: $ran run, $failed failed, $skipped skipped"
[ $failed -gt 0 ] && exit 1
[ $ran = 0 ] && exit 77
exit 0
