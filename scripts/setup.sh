#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# setup.sh - the one place that prepares a machine: installs what a fresh
# Debian 12 machine lacks to build and test select/locality, fetches
# Slurm's source package (its internal headers build the plugin), and
# builds the project out of tree in build/. Idempotent: a second run only
# rebuilds what changed. Used by scripts/test.sh and scripts/demo.sh.
#
# With --slurm VERSION other than the host's own Slurm (22.05 on Debian
# 12), it also makes that version's Debian root (tools/slurm-root.sh
# create: debootstrap, about 100 MB of packages the first time, kept in
# build/slurm-VERSION/cache), fetches that version's source and builds the
# project against it in build/slurm-VERSION/obj, for the daemons of the
# root to load.
#
# Usage: scripts/setup.sh [--slurm VERSION] [--no-install] [--no-build]
#                         [--quiet]
#   --slurm V     the Slurm version to build for: 22.05, 24.11 or 26.05
#                 (default: the host's)
#   --no-install  never call apt-get: fail if a package is missing
#   --no-build    install and fetch only
#   --quiet       logs go to build/setup-*.log, shown only on failure
# LOC_SLURM_SOURCE=DIR builds another version against that source tree
# (inside the repository, a release of that series) instead of fetching
# one; when it is not the release the root's packages ship, the root's
# Slurm is rebuilt from it first (tools/slurm-root.sh from-source; about
# 15 min on 2 cores, once). Exit status 3: the mirror serves no source of
# that version.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
install=1 do_build=1 quiet=0 slurm=""
while [ $# -gt 0 ]; do
	case $1 in
	--slurm) slurm=${2:-}; shift 2 ;;
	--no-install) install=0; shift ;;
	--no-build) do_build=0; shift ;;
	--quiet) quiet=1; shift ;;
	*) echo "setup.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

packages=(
	# toolchain and autotools
	gcc make autoconf automake libtool pkg-config
	# libraries: unit tests, .swf.gz traces
	libcmocka-dev zlib1g-dev
	# Slurm 22.05 daemons, clients, headers; munge; apt-get source needs dpkg-dev
	slurmctld slurmd slurm-client libslurm-dev munge dpkg-dev libc6-dev
	# silences harmless mpi/pmix load errors in slurmd
	libpmix2
	# the integration suite checks with python3; hardening runs valgrind
	python3 valgrind
	# Slurm's own expect and python suites (testsuite/slurm/slurm-suites.sh)
	expect python3-pytest python3-pexpect
	# the Debian packages: dpkg-buildpackage (debhelper; it checks for
	# build-essential) and lintian
	build-essential debhelper lintian
	# another Slurm version's Debian root (tools/slurm-root.sh)
	debootstrap
	# cluster.sh start --accounting: slurmdbd (22.05.8, as slurmctld) and
	# MariaDB, which it runs privately (own datadir, socket and port)
	mariadb-server slurmdbd
)

mkdir -p "$build"

# Runs "$@" with its output in build/setup-NAME.log when quiet, showing
# the log's tail if it fails.
step() {
	local name=$1
	shift
	if [ "$quiet" = 1 ]; then
		"$@" >"$build/setup-$name.log" 2>&1 || {
			tail -n 30 "$build/setup-$name.log" >&2
			echo "setup.sh: $name failed (log: $build/setup-$name.log)" >&2
			return 1
		}
	else
		"$@"
	fi
}

roots="$top/tools/slurm-root.sh"
if [ -n "$slurm" ] && ! "$roots" versions | grep -qx -- "$slurm"; then
	echo "setup.sh: --slurm $slurm: supported versions are $("$roots" versions | paste -sd' ')" >&2
	exit 2
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$install" = 0 ]; then
		echo "setup.sh: missing packages: ${missing[*]} (run without --no-install)" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	step apt-update apt-get update -q
	step apt-install apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

host=$("$roots" host-version)
[ -n "$slurm" ] || slurm=$host

# Slurm's internal headers come only from the source package; another
# version's come from its Debian root, which is made first.
tag="" # step logs of another version: build/setup-STEP-VERSION.log
if [ "$slurm" = "$host" ]; then
	slurm_src=$("$top/tools/fetch-slurm-source.sh" | tail -n 1)
	obj=$build
	prefix=/usr
else
	tag=-$slurm
	step "root$tag" "$roots" create "$slurm"
	if [ -n "${LOC_SLURM_SOURCE:-}" ]; then
		slurm_src=$LOC_SLURM_SOURCE
	else
		rc=0
		slurm_src=$("$top/tools/fetch-slurm-source.sh" --version "$slurm" |
			tail -n 1) || rc=$?
		# 3: the mirror has no source of that version (test.sh skips it).
		[ $rc = 0 ] || exit $rc
	fi
	obj=$("$roots" build-dir "$slurm")
	prefix=$("$roots" root "$slurm")/usr
	# A plugin runs only in the Slurm it was built against: a source of
	# another release than the root's packages (26.05.3 for Debian's
	# 26.05.5) becomes the root's Slurm, built from that tree.
	[ "$do_build" = 0 ] ||
		step "daemons$tag" "$roots" from-source "$slurm" "$slurm_src"
fi

[ "$do_build" = 1 ] || exit 0

# autoreconf when configure is missing or older than any build input.
cd "$top"
if [ ! -x configure ] || [ ! -f Makefile.in ] ||
	[ -n "$(find configure.ac Makefile.am src testsuite bench -maxdepth 5 \
		\( -name configure.ac -o -name Makefile.am -o -name local.am \
		-o -name '*.m4' \) -newer configure 2>/dev/null | head -n 1)" ]; then
	step autoreconf autoreconf -fi
fi
mkdir -p "$obj"
cd "$obj"
# Configure when the build is new, or was configured without the plugin
# or for another Slurm version.
if [ ! -f Makefile ] ||
	! grep -q '^SLURM_SRC_DIR = /' Makefile ||
	! grep -qx "SLURM_SERIES = $slurm" Makefile; then
	step "configure$tag" "$top/configure" -q --with-slurm-source="$slurm_src" \
		--with-slurm="$prefix"
fi
step "make$tag" make -j"$(nproc)"
echo "setup: built for Slurm $slurm in $obj" >&2
