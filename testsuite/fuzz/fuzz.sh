#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz.sh - build the libFuzzer targets with clang (ASan + UBSan, the core
# sources compiled directly, not the gcc-built library) and run each one
# for a bounded time, one after the other, from its corpus, the seeds and
# the regression inputs. Fails when any target finds a crash, a leak, a
# sanitizer report, a broken invariant or a timeout.
#
# Usage: testsuite/fuzz/fuzz.sh [options] [target ...]
#   --seconds N     fuzzing time per target (default: $FUZZ_SECONDS or 60)
#   --out DIR       build and work directory (default: build/fuzz)
#   --config-dir D  a configured build directory whose config.h to use
#                   (default: one generated in DIR)
#   --replay        only run the seeds and regression inputs once each
#   --build-only    only build the targets
# Targets: conf hostlist swf sacct machine record (default: all).
#
# Seeds are generated in DIR/seeds at every run from the hand-written
# seeds (testsuite/fuzz/seeds), test inputs (etc/, unit test sources) and,
# when present, the real traces in ../shared/traces (never copied into
# the repository). New inputs go to DIR/corpus/<target>, findings to
# DIR/artifacts/<target>, logs and a summary to DIR/logs.
# Needs clang with libFuzzer (Debian 12: clang-14 libclang-rt-14-dev).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
fz="$top/testsuite/fuzz"
out="$top/build/fuzz"
secs=${FUZZ_SECONDS:-60}
config_dir=
mode=fuzz
all_targets=(conf hostlist swf sacct machine record)
targets=()

while [ $# -gt 0 ]; do
	case $1 in
	--seconds) secs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--config-dir) config_dir=$2; shift 2 ;;
	--replay) mode=replay; shift ;;
	--build-only) mode=build; shift ;;
	-h|--help) sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
	[ -f "$fz/fuzz_$t.c" ] || { echo "fuzz.sh: no target '$t'" >&2; exit 2; }
done
case $secs in ''|*[!0-9]*) echo "fuzz.sh: bad --seconds '$secs'" >&2; exit 2 ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Per-target input size limit and dictionary.
max_len() {
	case $1 in
	conf) echo 4096 ;; hostlist) echo 512 ;; swf) echo 16384 ;;
	sacct) echo 8192 ;; machine) echo 4096 ;; record) echo 1024 ;;
	esac
}
dict() {
	case $1 in
	conf|machine) echo "$fz/conf.dict" ;; *) echo "$fz/$1.dict" ;;
	esac
}

# ---------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------
cc=
for c in ${CLANG:-} clang clang-14; do
	if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
[ -n "$cc" ] || { echo "fuzz.sh: clang not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
probe="$out/probe"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" 2>"$probe.err"; then
	cat "$probe.err" >&2
	echo "fuzz.sh: $cc cannot link -fsanitize=fuzzer (Debian 12: apt-get install libclang-rt-14-dev)" >&2
	exit 2
fi

# config.h: the configured build's, or a generated one (only HAVE_ZLIB
# matters to the core).
inc="$out/include"
mkdir -p "$inc"
zlib=
if [ -n "$config_dir" ] && [ -f "$config_dir/config.h" ]; then
	cmp -s "$config_dir/config.h" "$inc/config.h" 2>/dev/null ||
		cp "$config_dir/config.h" "$inc/config.h"
	grep -q '^#define HAVE_ZLIB 1' "$inc/config.h" && zlib=-lz
else
	if echo '#include <zlib.h>' | "$cc" -E -x c - >/dev/null 2>&1; then
		printf '#define HAVE_ZLIB 1\n' > "$inc/config.h.new"
		zlib=-lz
	else
		: > "$inc/config.h.new"
	fi
	cmp -s "$inc/config.h.new" "$inc/config.h" 2>/dev/null ||
		mv "$inc/config.h.new" "$inc/config.h"
	rm -f "$inc/config.h.new"
fi

# The core's sources: from make (FUZZ_CORE_SOURCES) or src/common/local.am.
if [ -n "${FUZZ_CORE_SOURCES:-}" ]; then
	sources=$(printf "%s\n" $FUZZ_CORE_SOURCES | grep "\.c$")
else
	# Both lists: src/common's and its strategies' (which adds with +=).
	sources=$(for am in "$top/src/common/local.am" \
		"$top/src/common/strategies/local.am"; do
		sed -n '/^src_common_libloccore_la_SOURCES/,/[^\\]$/p' "$am"
	done | grep -o 'src/common/[A-Za-z0-9_/]*\.c')
fi

cflags="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
	-Wall -Wextra -I$inc -I$top/src/common -I$fz"
# shellcheck disable=SC2086
cflags=$(echo $cflags)
obj="$out/obj"
mkdir -p "$obj" "$out/bin"
# Rebuild everything when the flags or any header changed.
stamp="$obj/flags"
newest_h=$(ls -t "$top"/src/common/*.h "$fz"/*.h "$inc/config.h" | head -n 1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$cc $cflags" ] ||
	[ "$newest_h" -nt "$stamp" ]; then
	rm -f "$obj"/*.o
	echo "$cc $cflags" > "$stamp"
fi
objs=()
for s in $sources; do
	o="$obj/$(basename "$s" .c).o"
	if [ ! -f "$o" ] || [ "$top/$s" -nt "$o" ]; then
		echo "  CC(fuzz) $s"
		# shellcheck disable=SC2086
		"$cc" $cflags -fsanitize=fuzzer-no-link -c "$top/$s" -o "$o"
	fi
	objs+=("$o")
done
for t in "${targets[@]}"; do
	b="$out/bin/fuzz_$t"
	need=0
	[ -f "$b" ] || need=1
	for f in "$fz/fuzz_$t.c" "${objs[@]}" "$stamp"; do
		[ "$f" -nt "$b" ] && need=1
	done
	if [ $need = 1 ]; then
		echo "  LD(fuzz) fuzz_$t"
		# shellcheck disable=SC2086
		"$cc" $cflags -fsanitize=fuzzer "$fz/fuzz_$t.c" "${objs[@]}" \
			-o "$b" -lm $zlib
	fi
done
[ $mode = build ] && { echo "fuzz.sh: built in $out/bin"; exit 0; }

# ---------------------------------------------------------------------
# Seeds, generated at every run (nothing from ../shared enters the repo)
# ---------------------------------------------------------------------
traces=${FUZZ_TRACES:-$top/../shared/traces}
[ -d "$traces" ] || traces=

# Writes stdin to seed file $1/$2 when not empty.
put() {
	local tmp
	tmp=$(mktemp)
	cat > "$tmp"
	if [ -s "$tmp" ]; then mv "$tmp" "$1/$2"; else rm -f "$tmp"; fi
}

# C string literals of a unit test that contain $2, unescaped.
literals() {
	grep -o "\"[^\"]*$2[^\"]*\"" "$1" 2>/dev/null | sed 's/^"//; s/"$//' || true
}

# put_lines DIR PREFIX: each line of stdin (C escapes decoded) as seed
# file DIR/PREFIX-N.
put_lines() {
	local i=0 l
	while IFS= read -r l; do
		i=$((i + 1))
		printf '%b' "$l" | put "$1" "$2-$i"
	done
}

gen_seeds() {
	local t=$1
	local d="$out/seeds/$t" i=0 f
	rm -rf "$d"
	mkdir -p "$d"
	case $t in
	conf|machine)
		if [ $t = conf ]; then
			cp "$top/etc/locality.conf.example" "$d/etc-example" 2>/dev/null || true
		else
			{ echo 'n[001-064]'; cat "$top/etc/locality.conf.example"; } |
				put "$d" etc-example
		fi
		for f in test_loc_conf.c test_loc_conf_grid.c \
			test_loc_conf_errors.c; do
			literals "$top/testsuite/unit/$f" 'Dimensions='
		done | put_lines "$d" unit
		;;
	hostlist)
		literals "$top/testsuite/unit/test_loc_hostlist.c" '\[' |
			put_lines "$d" unit
		# NodeList values of the real sacct exports.
		if [ -n "$traces" ]; then
			for f in "$traces"/sacct/*; do
				awk -F'|' 'NR == 1 { for (i = 1; i <= NF; i++)
						if ($i == "NodeList") c = i; next }
					c && $c ~ /\[/ && !seen[$c]++ { print $c }' "$f"
			done | head -n 200 | while IFS= read -r l; do
				i=$((i + 1))
				printf '%s' "$l" | put "$d" "sacct-$i"
			done
		fi
		;;
	record)
		literals "$top/testsuite/unit/test_loc_record.c" 'locality ' |
			put_lines "$d" unit
		;;
	swf)
		# The header and first jobs, and a slice from the middle, of each
		# real trace.
		if [ -n "$traces" ]; then
			for f in "$traces"/*.swf.gz; do
				[ -f "$f" ] || continue
				f0=$(basename "$f" .swf.gz)
				{ zcat "$f" 2>/dev/null || true; } | head -n 80 | put "$d" "$f0-head"
				{ zcat "$f" 2>/dev/null || true; } | sed -n '2001,2040p' | put "$d" "$f0-mid"
			done
		fi
		;;
	sacct)
		if [ -n "$traces" ]; then
			for f in "$traces"/sacct/*sacct*; do
				[ -f "$f" ] || continue
				f0=$(basename "$f")
				head -c 8000 "$f" | put "$d" "$f0-head"
				{ head -n 1 "$f"; sed -n '300,320p' "$f"; } | head -c 8000 | put "$d" "$f0-mid"
			done
		fi
		;;
	esac
}

# ---------------------------------------------------------------------
# Run
# ---------------------------------------------------------------------
mkdir -p "$out/logs"
summary="$out/logs/summary.txt"
: > "$summary"
status=0
[ -n "$traces" ] || echo "fuzz.sh: no ../shared/traces: trace seeds are the hand-written ones only"

for t in "${targets[@]}"; do
	b="$out/bin/fuzz_$t"
	corpus="$out/corpus/$t"
	art="$out/artifacts/$t"
	log="$out/logs/$t.log"
	seeds="$fz/seeds/$t"
	regs="$fz/regressions/$t"
	mkdir -p "$corpus" "$art"
	gen_seeds "$t"
	dirs=("$corpus" "$out/seeds/$t")
	[ -d "$seeds" ] && dirs+=("$seeds")
	[ -d "$regs" ] && dirs+=("$regs")

	# Every seed and regression input once: they must all pass.
	files=()
	for d in "${dirs[@]:1}"; do
		while IFS= read -r f; do files+=("$f"); done \
			< <(find "$d" -type f ! -name '.*' | sort)
	done
	if [ ${#files[@]} -gt 0 ] &&
		! "$b" -rss_limit_mb=2048 -timeout=60 "${files[@]}" > "$log.replay" 2>&1; then
		echo "fuzz_$t: a seed or regression input fails; see $log.replay"
		grep -m 5 -E 'ERROR|runtime error|check failed|Running:' "$log.replay" | tail -5 || true
		printf '%-9s REPLAY-FAILED %d inputs\n' "$t" ${#files[@]} >> "$summary"
		status=1
		continue
	fi
	echo "fuzz_$t: ${#files[@]} seed and regression inputs pass"
	[ $mode = replay ] && continue

	echo "fuzz_$t: fuzzing for ${secs}s (log: $log)"
	start=$(date +%s)
	rc=0
	"$b" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 \
		-max_len="$(max_len "$t")" -dict="$(dict "$t")" \
		-print_final_stats=1 -artifact_prefix="$art/" \
		"${dirs[@]}" > "$log" 2>&1 || rc=$?
	took=$(( $(date +%s) - start ))
	done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(echo "$done_line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$done_line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$done_line" | sed -n 's/.*corp: \([^ ]*\).*/\1/p')
	if [ $rc -ne 0 ]; then
		status=1
		finding=$(ls -t "$art" 2>/dev/null | head -n 1)
		echo "fuzz_$t: FOUND a problem after ${took}s (exit $rc): $art/$finding"
		grep -m 8 -E 'ERROR:|runtime error|check failed|SUMMARY' "$log" || true
		printf '%-9s FAILED   exit=%d after %ss artifact=%s\n' "$t" $rc \
			"$took" "$art/$finding" >> "$summary"
	else
		printf '%-9s ok  execs=%s cov=%s ft=%s corpus=%s seconds=%s\n' \
			"$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
			"$took" >> "$summary"
	fi
done
[ $mode = replay ] || { echo "== fuzz summary ($summary)"; cat "$summary"; }
exit $status
