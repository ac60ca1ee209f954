#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fetch-slurm-source.sh - unpack Debian's patched Slurm source (slurm-wlm)
# of one Slurm version where configure finds it, and print the tree's
# path on stdout. The select/locality plugin needs Slurm's internal
# headers, which no binary package ships.
#
#   fetch-slurm-source.sh [--version SERIES] [DEST]
#
# SERIES is 22.05, 24.11 or 26.05 (tools/slurm-root.sh versions); by default
# the host's. The host's version comes from the host's apt into DEST
# (default <repo>/build/slurm-src); another version from the apt of its
# Debian root (tools/slurm-root.sh create SERIES) into DEST (default
# <repo>/build/slurm-SERIES/src), unpacked here with dpkg-source. When the
# mirror has the source package's tarball but not its .dsc, the upstream
# tarball is unpacked without Debian's patches (they fix CVEs, paths and
# spelling, not the headers a select plugin reads), with a warning.
#
# Exits 3 when the mirror has no source of SERIES at all (Debian testing's
# 26.05 today: binary packages only).
#
# Idempotent: an existing tree of SERIES is reused; a deb-src entry is
# added (mirroring the deb one) and apt-get update run only when missing.
# Refuses a source of another version. Needs root (apt) and dpkg-dev
# (dpkg-source) the first time.
set -eu

prog=fetch-slurm-source.sh
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
roots=$here/slurm-root.sh
host=$("$roots" host-version)
want=$host
dest=

die() {
	echo "$prog: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--version) want=${2:-}; shift 2 ;;
	-*) die "unknown option $1" ;;
	*) dest=$1; shift ;;
	esac
done
[ -n "$want" ] || die "no Slurm installed or installable here: name one with --version"
"$roots" versions | grep -qx "$want" ||
	die "unknown Slurm version $want (supported: $("$roots" versions | paste -sd' ' -))"
if [ -z "$dest" ]; then
	if [ "$want" = "$host" ]; then
		dest=$repo/build/slurm-src
	else
		dest=$repo/build/slurm-$want/src
	fi
fi

# The tree already there?
find_tree() {
	for d in "$dest"/slurm-wlm-*/; do
		[ -f "${d}META" ] && echo "${d%/}"
	done | tail -n 1
}

check_version() {
	v=$(sed -n 's/^[[:space:]]*Version:[[:space:]]*\([0-9.]*\).*/\1/p' "$1/META")
	case $v in
	$want.*) ;;
	*) die "wanted the source of Slurm $want; the source in $1 is ${v:-unknown}" ;;
	esac
}

tree=$(find_tree)
if [ -n "$tree" ]; then
	check_version "$tree"
	echo "$tree"
	exit 0
fi
command -v dpkg-source >/dev/null 2>&1 ||
	die "dpkg-source not found: apt-get install -y --no-install-recommends dpkg-dev"
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

if [ "$want" = "$host" ]; then
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found (Debian/Ubuntu only)"

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
	*) die "wanted the source of Slurm $want; apt offers slurm-wlm $ver" ;;
	esac
	echo "$prog: apt-get source slurm-wlm=$ver into $dest" >&2
	(cd "$dest" && apt-get source -qq "slurm-wlm=$ver" >&2) ||
		die "apt-get source slurm-wlm failed"
else
	# The root's apt downloads straight into dest (bound into the root at
	# its own path); dpkg-source unpacks here.
	"$roots" create "$want" >/dev/null
	echo "$prog: apt-get source --download-only slurm-wlm (Debian root of Slurm $want) into $dest" >&2
	"$roots" run "$want" --bind "$dest" -- sh -c '
		cd "$1" || exit 1
		apt-cache showsrc slurm-wlm 2>/dev/null | grep -q "^Version:" ||
			apt-get update -qq || exit 1
		apt-get source -qq --download-only slurm-wlm' sh "$dest" >&2 ||
		echo "$prog: apt-get source did not fetch every file; using what it did" >&2
	dsc=$(ls "$dest"/slurm-wlm_*.dsc 2>/dev/null | tail -n 1)
	orig=$(ls "$dest"/slurm-wlm_*.orig.tar.* 2>/dev/null | tail -n 1)
	if [ -n "$dsc" ]; then
		(cd "$dest" && dpkg-source -x "$dsc" >&2) ||
			die "dpkg-source -x $dsc failed"
	elif [ -n "$orig" ]; then
		uv=$(basename "$orig" | sed -n 's/^slurm-wlm_\(.*\)\.orig\.tar\..*/\1/p')
		echo "$prog: warning: the mirror has no .dsc of slurm-wlm $uv: unpacking the upstream tarball without Debian's patches" >&2
		rm -rf "$dest/unpack"
		mkdir -p "$dest/unpack"
		tar -xf "$orig" -C "$dest/unpack" || die "cannot unpack $orig"
		top=$(ls "$dest/unpack")
		[ -f "$dest/unpack/$top/META" ] || die "no META in $orig"
		mv "$dest/unpack/$top" "$dest/slurm-wlm-$uv"
		rmdir "$dest/unpack"
	else
		# Exit 3: not a failure here but a fact of the mirror, which a
		# caller may report as a version it cannot build.
		echo "$prog: the mirror serves no source of slurm-wlm for Slurm $want (neither .dsc nor .orig tarball); give a tree of that exact version to configure --with-slurm-source" >&2
		exit 3
	fi
fi
tree=$(find_tree)
[ -n "$tree" ] || die "no source tree unpacked in $dest"
check_version "$tree"
echo "$tree"
