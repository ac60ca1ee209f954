#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fetch-slurm-source.sh - unpack Debian's patched Slurm source (slurm-wlm)
# into <repo>/build/slurm-src, where configure finds it, and print the
# tree's path on stdout. The select/locality plugin needs Slurm's internal
# headers, which no binary package ships.
#
# Idempotent: an existing 22.05 tree is reused; the deb-src entry is added
# (mirroring the deb one) and apt-get update run only when missing.
# Refuses a source version other than 22.05.x.
#
# Usage: tools/fetch-slurm-source.sh [DEST]   (default <repo>/build/slurm-src)
# Needs root (apt) and dpkg-dev (dpkg-source) the first time.
set -eu

prog=fetch-slurm-source.sh
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
dest=${1:-$repo/build/slurm-src}
want=22.05

die() {
	echo "$prog: $*" >&2
	exit 1
}

# The tree already there?
find_tree() {
	for d in "$dest"/slurm-wlm-*/; do
		[ -f "${d}src/common/select.h" ] && [ -f "${d}META" ] &&
			echo "${d%/}"
	done | tail -n 1
}

check_version() {
	v=$(sed -n 's/^[[:space:]]*Version:[[:space:]]*\([0-9.]*\).*/\1/p' "$1/META")
	case $v in
	$want.*) ;;
	*) die "select/locality is written for Slurm $want; the source in $1 is ${v:-unknown}" ;;
	esac
}

tree=$(find_tree)
if [ -n "$tree" ]; then
	check_version "$tree"
	echo "$tree"
	exit 0
fi

command -v apt-get >/dev/null 2>&1 || die "apt-get not found (Debian/Ubuntu only)"
command -v dpkg-source >/dev/null 2>&1 ||
	die "dpkg-source not found: apt-get install -y --no-install-recommends dpkg-dev"

# What apt would fetch: refuse before downloading anything else.
have_src() {
	apt-cache showsrc slurm-wlm 2>/dev/null | grep -q '^Version:'
}

if ! have_src; then
	src_list=/etc/apt/sources.list.d/debian-src.sources
	deb_list=/etc/apt/sources.list.d/debian.sources
	if ! grep -qs '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources &&
	   ! grep -qs '^deb-src ' /etc/apt/sources.list; then
		if [ -f "$deb_list" ]; then
			echo "$prog: adding $src_list" >&2
			sed 's/^Types: deb$/Types: deb-src/' "$deb_list" >"$src_list"
		elif [ -f /etc/apt/sources.list ]; then
			echo "$prog: adding deb-src lines to /etc/apt/sources.list" >&2
			sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list \
				>>/etc/apt/sources.list
		else
			die "no apt source list to mirror as deb-src"
		fi
	fi
	echo "$prog: apt-get update" >&2
	apt-get update -qq >&2 || die "apt-get update failed"
	have_src || die "apt has no source package slurm-wlm"
fi

ver=$(apt-cache showsrc slurm-wlm | sed -n 's/^Version: *//p' | sort -V | tail -n 1)
case $ver in
$want.*) ;;
*) die "select/locality is written for Slurm $want; apt offers slurm-wlm $ver" ;;
esac

mkdir -p "$dest"
echo "$prog: apt-get source slurm-wlm=$ver into $dest" >&2
(cd "$dest" && apt-get source -qq "slurm-wlm=$ver" >&2) ||
	die "apt-get source slurm-wlm failed"
tree=$(find_tree)
[ -n "$tree" ] || die "no source tree unpacked in $dest"
check_version "$tree"
echo "$tree"
