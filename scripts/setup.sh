#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# setup.sh - install what a fresh Debian 12 machine lacks to build and test
# select/locality, fetch Slurm's source package, and build the project out
# of tree in build/. Idempotent: a second run only rebuilds what changed.
#
# Usage: scripts/setup.sh [--no-build]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"

packages=(
	# toolchain and autotools
	gcc make autoconf automake libtool pkg-config
	# libraries: unit tests, .swf.gz traces
	libcmocka-dev zlib1g-dev
	# Slurm 22.05 daemons, clients, headers; munge; apt-get source needs dpkg-dev
	slurmctld slurmd slurm-client libslurm-dev munge dpkg-dev libc6-dev
	# silences harmless mpi/pmix load errors in slurmd
	libpmix2
	# integration tests use python3 for checks; valgrind for hardening runs
	python3 valgrind
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Slurm's internal headers come only from the source package.
slurm_src=$("$top/tools/fetch-slurm-source.sh" | tail -n 1)

[ "${1:-}" = "--no-build" ] && exit 0

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
	"$top/configure" -q --with-slurm-source="$slurm_src"
fi
make -j"$(nproc)"
echo "setup: built in $build"
