#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-root.sh - Slurm versions side by side on one machine. The host's
# own Slurm (Debian 12: 22.05) runs as installed; another version runs
# from a Debian root whose packages ship it (24.11: Debian 13; 26.05:
# Debian testing, "forky"), made
# with debootstrap inside the build directory, and its daemons, clients
# and the tests that drive them run chrooted there, on the host's network
# and munged.
#
#   slurm-root.sh versions             the supported versions, one a line
#   slurm-root.sh host-version         the host's Slurm series (e.g. 22.05)
#   slurm-root.sh build-dir VERSION    where that version's build lives:
#                                      build/ for the host's, else
#                                      build/slurm-VERSION/obj
#   slurm-root.sh root VERSION         its Debian root (build/slurm-VERSION/root)
#   slurm-root.sh create VERSION       makes that root if it is missing
#                                      (idempotent; prints its path)
#   slurm-root.sh run VERSION [--bind DIR]... [--] COMMAND [ARG...]
#                                      runs COMMAND with that version's
#                                      Slurm: directly for the host's,
#                                      else chrooted into its root
#   slurm-root.sh from-source VERSION SRC
#                                      builds the Slurm of source tree SRC
#                                      in that root and installs it over
#                                      the packaged one, unless that is
#                                      SRC's release (idempotent)
#
# create: debootstrap --variant=minbase of the version's Debian suite with
# Slurm's daemons and clients, munge, python3 and valgrind (the tests
# need them), from the mirror this machine's apt uses (read from
# /etc/apt at run time; LOC_DEBIAN_MIRROR overrides it), then slurmdbd
# and MariaDB (accounting) by apt inside it. debootstrap's packages are
# kept in build/slurm-VERSION/cache, so a new root costs little download.
# A root is finished when ROOT/.loc-slurm-root names its package lists;
# anything else is made again.
#
# from-source: a plugin runs only in the Slurm whose headers built it (its
# structures' layout is not stable within a series), so when the source
# at hand is not the root's packaged release (26.05: Debian ships
# 26.05.5's binaries but serves no source; 26.05.3 is upstream's newest
# public tag), the root's Slurm is rebuilt from that source: configure
# and make in build/slurm-VERSION/daemons, chrooted, configured as
# Debian's build (paths: /usr, /etc/slurm, plugins in
# /usr/lib/x86_64-linux-gnu/slurm-wlm, whose packaged plugins are removed
# first; many slurmd on one host), then make install over the packages. ROOT/.loc-slurm-source names the version and tree installed.
#
# run: in a private mount namespace (unshare), so every mount goes away
# with the command and none is ever seen outside it: /proc, /dev, /sys,
# the host's /etc/hosts, /etc/resolv.conf and /run/munge (the host's
# munged serves both versions; it is started first if it is not running),
# the repository at its own path, and each --bind DIR at its own path.
# COMMAND starts in the current directory when that is inside the
# repository or a --bind DIR, else in /. The environment is reset to
# PATH, HOME, LANG, TERM, CI and the LOC_* and CLUSTER_* variables, plus
# LOC_SLURM_ROOT=VERSION (so a script knows where it runs) and
# LOC_SLURM_HOST (the host's version, for host-version and build-dir
# inside the root). Needs root.
set -euo pipefail

PROG=slurm-root.sh
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)

# The Debian suite that ships each supported Slurm series.
declare -A SUITE=([22.05]=bookworm [24.11]=trixie [26.05]=forky)
# debootstrap's script for a suite newer than the host's debootstrap knows.
declare -A SCRIPT=([forky]=sid)
# What a root holds besides debootstrap's minbase.
PACKAGES=slurmctld,slurmd,slurm-client,libslurm-dev,munge,python3,valgrind,hostname,procps
# What from-source needs in a root to build Slurm's daemons, plugins
# (auth/munge, accounting_storage/mysql, topology.yaml's parser) and
# clients.
SOURCE_PACKAGES="gcc make libc6-dev pkg-config libmunge-dev libmariadb-dev-compat libyaml-dev libjson-c-dev"
PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
# Debian's paths, and many slurmd on one host as Debian's build allows
# (without it, slurmctld resolves only the first node of a NodeHostname).
CONFIGURE_FLAGS="--prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu --sysconfdir=/etc/slurm --localstatedir=/var --runstatedir=/run --enable-multiple-slurmd --with-mysql_config=/usr/bin"
# Accounting (cluster.sh --accounting: sacct reads placement records),
# installed by apt once the root exists and no service can start in it.
ACCOUNTING_PACKAGES="slurmdbd mariadb-server mariadb-client"

die() {
	echo "$PROG: $*" >&2
	exit 1
}

usage() {
	sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

check_version() {
	[ -n "${1:-}" ] && [ -n "${SUITE[$1]:-}" ] ||
		die "unknown Slurm version '${1:-}' (supported: $(versions | paste -sd' '))"
}

versions() {
	printf '%s\n' "${!SUITE[@]}" | sort -V
}

# The series (MAJOR.MINOR) of the host's Slurm: the installed slurmctld's,
# else the one apt would install. Inside a root, the host's (run passes
# it in LOC_SLURM_HOST), not the root's.
host_version() {
	local v
	if [ -n "${LOC_SLURM_HOST:-}" ]; then
		echo "$LOC_SLURM_HOST"
		return
	fi
	v=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
	[ -n "$v" ] || v=$(apt-cache policy slurmctld 2>/dev/null |
		sed -n 's/^ *Candidate: *//p')
	echo "$v" | sed -n 's/^\([0-9]*\)\.\([0-9]*\)\..*/\1.\2/p'
}

root_of() {
	echo "$REPO/build/slurm-$1/root"
}

build_dir() {
	if [ "$1" = "$(host_version)" ]; then
		echo "$REPO/build"
	else
		echo "$REPO/build/slurm-$1/obj"
	fi
}

# The first Debian archive URI this machine's apt uses (not security).
mirror() {
	local f u
	if [ -n "${LOC_DEBIAN_MIRROR:-}" ]; then
		echo "$LOC_DEBIAN_MIRROR"
		return
	fi
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		u=$(awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f" |
			grep -v -e '-security' | head -n 1)
		[ -n "$u" ] && { echo "$u"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		u=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:/) { print $i; break } }' "$f" |
			grep -v -e '-security' | head -n 1)
		[ -n "$u" ] && { echo "$u"; return; }
	done
	die "no Debian mirror in /etc/apt (set LOC_DEBIAN_MIRROR=URI)"
}

# The marker's text: what a finished root was made with.
marker_text() {
	echo "suite=${SUITE[$1]} packages=$PACKAGES accounting=${ACCOUNTING_PACKAGES// /,}"
}

cmd_create() {
	local v=$1 root cache mirror_uri t0=$SECONDS got
	check_version "$v"
	[ "$v" != "$(host_version)" ] ||
		die "Slurm $v is the host's own: no root needed"
	root=$(root_of "$v")
	cache=$REPO/build/slurm-$v/cache
	if [ -f "$root/.loc-slurm-root" ] &&
		[ "$(cat "$root/.loc-slurm-root")" = "$(marker_text "$v")" ]; then
		echo "$root"
		return
	fi
	[ "$(id -u)" = 0 ] || die "run as root (debootstrap)"
	command -v debootstrap >/dev/null ||
		die "debootstrap not installed (apt-get install debootstrap)"
	mirror_uri=$(mirror)
	echo "$PROG: making the Debian ${SUITE[$v]} root for Slurm $v in $root" >&2
	# A root left half made: nothing of it is mounted outside a private
	# namespace, so it can simply go.
	rm -rf "${root:?}"
	mkdir -p "$root" "$cache"
	# debootstrap mounts /proc and /sys in the root while it works: in a
	# namespace of its own, a failure cannot leave them mounted.
	unshare --mount --propagation private -- debootstrap --variant=minbase \
		--include="$PACKAGES" --cache-dir="$cache" \
		"${SUITE[$v]}" "$root" "$mirror_uri" ${SCRIPT[${SUITE[$v]}]:-} >"$REPO/build/slurm-$v/debootstrap.log" 2>&1 || {
		tail -n 20 "$REPO/build/slurm-$v/debootstrap.log" >&2
		die "debootstrap failed (log: build/slurm-$v/debootstrap.log)"
	}
	# Source packages (tools/fetch-slurm-source.sh --root) from the same
	# suite; no service starts inside the root on a later install.
	sed -n 's/^deb \(.*\)$/deb-src \1/p' "$root/etc/apt/sources.list" \
		>"$root/etc/apt/sources.list.d/loc-src.list"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	# A mirror of a suite in development may serve a Release file past
	# its Valid-Until date; the packages are still the suite's.
	echo 'Acquire::Check-Valid-Until "false";' \
		>"$root/etc/apt/apt.conf.d/99loc-valid-until"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	# MariaDB's postinst needs /proc (systemd-tmpfiles), mounted in a
	# namespace of its own as debootstrap's.
	unshare --mount --propagation private -- sh -c 'mount -t proc proc "$1/proc" &&
		chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $2' sh "$root" "$ACCOUNTING_PACKAGES" \
		>>"$REPO/build/slurm-$v/debootstrap.log" 2>&1 || {
		tail -n 20 "$REPO/build/slurm-$v/debootstrap.log" >&2
		die "installing $ACCOUNTING_PACKAGES failed (log: build/slurm-$v/debootstrap.log)"
	}
	got=$(chroot "$root" dpkg-query -W -f='${Version}' slurmctld)
	case $got in
	"$v".*) ;;
	*) die "Debian ${SUITE[$v]} ships slurmctld $got, not $v" ;;
	esac
	marker_text "$v" >"$root/.loc-slurm-root"
	echo "$PROG: Debian ${SUITE[$v]} root with slurmctld $got made in $((SECONDS - t0)) s ($(du -sh "$root" | cut -f1))" >&2
	echo "$root"
}

# source_version SRC - the Slurm release of a source tree (26.05.3).
source_version() {
	awk '$1 == "Version:" { print $2 }' "$1/META" 2>/dev/null
}

cmd_from_source() {
	local v=${1:-} src=${2:-} root want have obj t0=$SECONDS
	check_version "$v"
	[ "$v" != "$(host_version)" ] ||
		die "Slurm $v is the host's own: build its plugin against its package"
	[ -n "$src" ] && [ -f "$src/META" ] && [ -x "$src/configure" ] ||
		die "from-source $v: '$src' is not a Slurm source tree"
	src=$(cd "$src" && pwd -P)
	want=$(source_version "$src")
	case $want in
	"$v".*) ;;
	*) die "from-source $v: $src is Slurm '$want'" ;;
	esac
	root=$(root_of "$v")
	[ -f "$root/.loc-slurm-root" ] || die "no Slurm $v root (create $v first)"
	have="slurm $want from $src"
	# The packaged release itself (24.11): nothing to build.
	if [ ! -f "$root/.loc-slurm-source" ] &&
		[ "$(chroot "$root" dpkg-query -W -f='${Version}' slurmctld |
			sed 's/-[^-]*$//')" = "$want" ]; then
		return
	fi
	if [ "$(cat "$root/.loc-slurm-source" 2>/dev/null)" = "$have" ]; then
		echo "$PROG: the Slurm $v root already runs $want built from $src" >&2
		return
	fi
	case $src/ in
	"$REPO"/*) ;;
	*) die "from-source: the source tree must be inside the repository (the root sees only it): $src" ;;
	esac
	[ "$(id -u)" = 0 ] || die "run as root (chroot)"
	obj=$REPO/build/slurm-$v/daemons
	echo "$PROG: building Slurm $want from $src in the $v root (about 15 min on 2 cores; log: $obj/build.log)" >&2
	rm -f "$root/.loc-slurm-source"
	# A build of another tree or configuration starts again; one of this
	# tree and configuration goes on.
	[ "$(cat "$obj/.loc-source" 2>/dev/null)" = "$src $CONFIGURE_FLAGS" ] ||
		rm -rf "${obj:?}"
	mkdir -p "$obj"
	echo "$src $CONFIGURE_FLAGS" >"$obj/.loc-source"
	# shellcheck disable=SC2016
	"$0" run "$v" -- sh -c '
		set -e
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -q --no-install-recommends $1
		cd "$2"
		[ -f Makefile ] || "$3/configure" $5
		make -j"$(nproc)" pkglibdir="$4"
		rm -rf "${4:?}"
		make install pkglibdir="$4"
		ldconfig
	' sh "$SOURCE_PACKAGES" "$obj" "$src" "$PLUGIN_DIR" "$CONFIGURE_FLAGS" \
		>"$obj/build.log" 2>&1 || {
		tail -n 20 "$obj/build.log" >&2
		die "building Slurm $want from $src failed (log: $obj/build.log)"
	}
	chroot "$root" /usr/sbin/slurmctld -V | grep -qx "slurm $want" ||
		die "the root's slurmctld is not $want after the install: $(chroot "$root" /usr/sbin/slurmctld -V)"
	echo "$have" >"$root/.loc-slurm-source"
	echo "$PROG: the Slurm $v root runs $want built from source ($((SECONDS - t0)) s)" >&2
}

# Inside the private mount namespace: mount, then chroot.
cmd_enter() {
	local root=$1 cwd=$2 d f inside=/
	shift 2
	local binds=()
	while [ "$1" != -- ]; do
		binds+=("$1")
		shift
	done
	shift
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount --rbind /sys "$root/sys" 2>/dev/null || true
	for f in /etc/hosts /etc/resolv.conf; do
		[ -f "$f" ] || continue
		[ -e "$root$f" ] && [ ! -L "$root$f" ] || { rm -f "$root$f"; : >"$root$f"; }
		mount --bind "$f" "$root$f"
	done
	mkdir -p "$root/run/munge"
	mount --bind /run/munge "$root/run/munge"
	for d in "${binds[@]}"; do
		mkdir -p "$root$d"
		mount --bind "$d" "$root$d"
		case $cwd/ in "$d"/*) inside=$cwd ;; esac
	done
	local env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		HOME=/root LANG=C.UTF-8 "LOC_SLURM_ROOT=$LOC_SLURM_ROOT")
	while IFS= read -r -d '' f; do
		case $f in
		LOC_SLURM_ROOT=*) ;;
		LOC_* | CLUSTER_* | CI=* | TERM=*) env+=("$f") ;;
		esac
	done < <(env -0)
	exec chroot "$root" /usr/bin/env -i "${env[@]}" /bin/sh -c \
		'cd "$1" && shift && exec "$@"' sh "$inside" "$@"
}

cmd_run() {
	local v=$1 root d
	shift
	check_version "$v"
	local binds=("$REPO")
	while [ $# -gt 0 ]; do
		case $1 in
		--bind)
			[ -d "${2:-}" ] || die "--bind ${2:-}: no such directory"
			binds+=("$(cd "$2" && pwd -P)")
			shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || usage
	# Already inside this version's root, or the host's version.
	if [ -n "${LOC_SLURM_ROOT:-}" ]; then
		[ "$v" = "$LOC_SLURM_ROOT" ] ||
			die "inside the Slurm $LOC_SLURM_ROOT root: run Slurm $v from the host"
		exec "$@"
	fi
	[ "$v" != "$(host_version)" ] || exec "$@"
	root=$(root_of "$v")
	[ -f "$root/.loc-slurm-root" ] ||
		die "no Slurm $v root in $root (tools/slurm-root.sh create $v, or scripts/setup.sh --slurm $v)"
	[ "$(id -u)" = 0 ] || die "run as root (chroot, mounts)"
	# The host's munged serves the root too (its socket is bound in).
	"$REPO/testsuite/slurm/cluster.sh" munge
	export LOC_SLURM_ROOT=$v LOC_SLURM_HOST
	LOC_SLURM_HOST=$(host_version)
	exec unshare --mount --propagation private -- "$0" __enter "$root" \
		"$(pwd -P)" "${binds[@]}" -- "$@"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
versions) versions ;;
host-version) host_version ;;
build-dir) check_version "${1:-}"; build_dir "$1" ;;
root) check_version "${1:-}"; root_of "$1" ;;
create) cmd_create "${1:-}" ;;
run) cmd_run "$@" ;;
from-source) cmd_from_source "$@" ;;
__enter) cmd_enter "$@" ;;
-h | --help) usage ;;
*) usage ;;
esac
