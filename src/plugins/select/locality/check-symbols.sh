#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# check-symbols.sh - `make check` for the built plugin: every symbol of
# node_select_syms[] in the Slurm tree's select.c (src/common/ in 22.05,
# src/interfaces/ in 24.11), plus the plugin_* data, is exported by
# select_locality.so (slurmctld refuses a plugin that misses one),
# nothing of the core leaks out, and every undefined symbol outside
# libc/libz is one slurmctld or libslurmfull provides (weak when only
# slurmctld has it, so clients can load it), and a program linked with
# libslurm.so alone can load it too.
#
# Usage: check-symbols.sh SO SLURM_SRC_DIR [LIBSLURMFULL]
set -eu
so=${1:-src/plugins/select/locality/.libs/select_locality.so}
src=${2:-${SLURM_SRC_DIR:-}}
full=${3:-}
# Run by `make check` without arguments: take what configure found.
if [ -z "$src" ] && [ -f Makefile ]; then
	src=$(sed -n 's/^SLURM_SRC_DIR = //p' Makefile)
fi
if [ -z "$full" ] && [ -f Makefile ]; then
	full=$(sed -n 's/^SLURM_LIBSLURMFULL = //p' Makefile)
fi
fail=0

[ -f "$so" ] || { echo "check-symbols: $so not built" >&2; exit 1; }
select_c=
for f in "$src/src/common/select.c" "$src/src/interfaces/select.c"; do
	[ -f "$f" ] && select_c=$f
done
[ -n "$select_c" ] ||
	{ echo "check-symbols: no select.c in $src/src/common or $src/src/interfaces" >&2; exit 1; }

want=$(sed -n '/node_select_syms\[\] = {/,/};/p' "$select_c" |
	sed -n 's/^[[:space:]]*"\([a-z_]*\)",*$/\1/p')
[ -n "$want" ] || { echo "check-symbols: no node_select_syms[] found" >&2; exit 1; }
have=$(nm -D --defined-only "$so" | awk '{print $3}')

n=0
for s in $want plugin_name plugin_type plugin_version init fini; do
	n=$((n + 1))
	if ! echo "$have" | grep -qx "$s"; then
		echo "check-symbols: $so does not export $s" >&2
		fail=1
	fi
done
leak=$(echo "$have" | grep -v -E '^(init|fini|plugin_(name|type|id|version)|select_p_[a-z_]+)$' || true)
if [ -n "$leak" ]; then
	echo "check-symbols: $so exports more than the plugin API:" $leak >&2
	fail=1
fi
strong=$(nm -D -u "$so" | awk '$1 == "U" {print $2}' |
	grep -v -E '@|^(gz[a-z]+)$' || true)
if [ -n "$full" ] && [ -f "$full" ]; then
	for s in $strong; do
		if ! nm -D --defined-only "$full" | awk '{print $3}' | grep -qx "$s"; then
			echo "check-symbols: $s is needed but not in libslurmfull (declare it weak)" >&2
			fail=1
		fi
	done
fi
# Programs linked with libslurm.so (Slurm's API; it loads the select
# plugin to read job records) dlopen the plugin with RTLD_LAZY: calls bind
# when first made, but data and address-taken symbols (GLOB_DAT, 64-bit
# absolute relocations) bind at load, so each must be in libslurm.so or
# weak.
# The libslurm.so of the same Slurm: beside libslurmfull's directory.
api=
[ -n "$full" ] && api=$(ls "$(dirname "$(dirname "$full")")"/libslurm.so.* 2>/dev/null | head -n 1)
if [ -n "$api" ] && [ -f "$api" ]; then
	weak=$(nm -D -u "$so" | awk '$1 == "w" {print $2}')
	# Versioned names (name@GLIBC_...) come from libc.
	eager=$(readelf -rW "$so" | awk '$3 ~ /GLOB_DAT|R_X86_64_64/ && $5 != "" {print $5}' |
		grep -v '@' | sort -u)
	api_syms=$(nm -D --defined-only "$api" | awk '{print $3}')
	for s in $eager; do
		echo "$weak" | grep -qx "$s" && continue
		nm -D --defined-only "$so" | awk '{print $3}' | grep -qx "$s" && continue
		if ! echo "$api_syms" | grep -qx "$s"; then
			echo "check-symbols: $s is bound when the plugin loads but $api lacks it: programs linked with libslurm cannot load the plugin (declare it weak)" >&2
			fail=1
		fi
	done
fi
[ $fail = 0 ] && echo "check-symbols: $so exports all $n symbols Slurm needs"
exit $fail
