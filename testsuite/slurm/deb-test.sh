#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deb-test.sh - the Debian packages, end to end: builds them from the
# `make dist` tarball with `dpkg-buildpackage -us -uc -b` (debian/,
# debian/README.source), checks their contents and their Slurm
# dependency against the installed Slurm, runs lintian (no error
# allowed), installs both with dpkg, runs jobs in a 16-node local cluster
# whose slurm.conf names no PluginDir (so slurmctld, slurmd and the
# client commands load the packaged select_locality.so from Slurm's own
# directory), each job landing where the packaged locality-eval predicts,
# then purges both packages and checks nothing is left.
#
#   deb-test.sh [BUILDDIR] [--rundir DIR] [--keep] [--nocheck]
#
# BUILDDIR is a configured build with the plugin (default: build/); the
# Slurm source tree it was configured with builds the packages
# (LOCALITY_SLURM_SOURCE). The package build runs `make check` with
# Debian's build flags (about 10 s); --nocheck skips it.
#
# Installs into /usr: needs root, and the packages must not be installed
# already (nor an unpackaged select_locality.so be in Slurm's plugin
# directory, which the test would overwrite). Whatever happens, the
# packages it installed are purged on exit (trap). Prints "ok N - ..."
# per check and "N passed, N failed" last; uses ports 6817 and
# 17001-17016 (LOC_CTLD_PORT, LOC_NODE_PORT0).

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

BUILD="" RUNROOT="" KEEP=0 ONLY="" PKGCHECK=1
while [ $# -gt 0 ]; do
	case $1 in
	--rundir) RUNROOT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--nocheck) PKGCHECK=0; shift ;;
	-h | --help) sed -n '4,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "deb-test.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done

# No PluginDir in slurm.conf: the plugin comes from the package.
PLUGDIR=-
lib_init loc-deb
NODES=16
ALLNODES="n[001-016]"
SYSPLUGDIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
PKG_PLUGIN=slurm-wlm-locality-plugin
PKG_TOOLS=select-locality-tools
TOOLS_BIN="locality-replay locality-advise locality-eval"
INSTALLED=0

# --- packages ---------------------------------------------------------------

# installed PKG - true when dpkg has PKG installed (or half-installed).
installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q -e ' installed$' -e 'half' -e 'unpacked' -e 'config-files'
}

# purge_packages - purges what this run installed; the EXIT trap runs it
# too, so an interrupted or failed run never leaves them in /usr.
purge_packages() {
	[ "$INSTALLED" = 1 ] || return 0
	INSTALLED=0
	dpkg --purge "$PKG_PLUGIN" "$PKG_TOOLS" >"$RUNROOT/purge.log" 2>&1
}

on_exit() {
	cleanup
	purge_packages
}

# files_of DEB - the paths a .deb installs, without the leading '.'.
files_of() {
	dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\.||'
}

# --- build ------------------------------------------------------------------

build_packages() {
	local name tarball top t0
	name="dpkg-buildpackage -us -uc -b builds $PKG_PLUGIN and $PKG_TOOLS"
	SRC=$(sed -n 's/^SLURM_SRC_DIR = //p' "$BUILD/Makefile")
	if [ -z "$SRC" ] || [ ! -d "$SRC" ]; then
		not_ok "$name" "$BUILD is configured without a Slurm source tree"
		return 1
	fi
	# From the release tarball, so debian/ must be in it (EXTRA_DIST),
	# and in RUNROOT, where dpkg-buildpackage writes the .debs beside
	# the tree (nothing is written into the repository).
	if ! make -C "$BUILD" dist >"$RUNROOT/dist.log" 2>&1; then
		not_ok "$name" "make dist failed (see $RUNROOT/dist.log)"
		return 1
	fi
	tarball=$BUILD/$(sed -n 's/^PACKAGE_TARNAME = //p' "$BUILD/Makefile")-$(sed -n 's/^VERSION = //p' "$BUILD/Makefile").tar.gz
	mkdir -p "$RUNROOT/pkg"
	tar -C "$RUNROOT/pkg" -xzf "$tarball" && rm -f "$tarball"
	top=$(find "$RUNROOT/pkg" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	if [ ! -x "$top/debian/rules" ]; then
		not_ok "$name" "the tarball has no executable debian/rules"
		return 1
	fi
	local opts=""
	[ "$PKGCHECK" = 0 ] && opts=nocheck
	t0=$SECONDS
	if ! (cd "$top" && LOCALITY_SLURM_SOURCE=$SRC DEB_BUILD_OPTIONS=$opts \
		dpkg-buildpackage -us -uc -b) >"$RUNROOT/build.log" 2>&1; then
		tail -n 20 "$RUNROOT/build.log" | sed 's/^/#   /'
		not_ok "$name" "dpkg-buildpackage failed (see $RUNROOT/build.log)"
		return 1
	fi
	DEB_PLUGIN=$(ls "$RUNROOT"/pkg/${PKG_PLUGIN}_*.deb 2>/dev/null | head -n 1)
	DEB_TOOLS=$(ls "$RUNROOT"/pkg/${PKG_TOOLS}_*.deb 2>/dev/null | head -n 1)
	CHANGES=$(ls "$RUNROOT"/pkg/*.changes 2>/dev/null | head -n 1)
	if [ -z "$DEB_PLUGIN" ] || [ -z "$DEB_TOOLS" ] || [ -z "$CHANGES" ]; then
		not_ok "$name" "no $PKG_PLUGIN or $PKG_TOOLS .deb, or no .changes"
		return 1
	fi
	ok "$name (from $(basename "$tarball"), $((SECONDS - t0)) s)"
}

check_contents() {
	local f why="" files
	files=$(files_of "$DEB_PLUGIN")
	for f in "$SYSPLUGDIR/select_locality.so" \
		/usr/share/man/man8/select_locality.8.gz \
		/usr/share/man/man5/locality.conf.5.gz \
		/usr/share/doc/$PKG_PLUGIN/examples/locality.conf.example \
		/usr/share/doc/$PKG_PLUGIN/copyright; do
		grep -qxF "$f" <<<"$files" || why="$why $f"
	done
	grep -q '\.la$' <<<"$files" && why="$why (ships a .la)"
	result "$PKG_PLUGIN holds the plugin in $SYSPLUGDIR, its man pages and an example locality.conf" \
		"${why:+missing:$why}"

	why=""
	files=$(files_of "$DEB_TOOLS")
	for f in $TOOLS_BIN; do
		grep -qxF "/usr/bin/$f" <<<"$files" || why="$why /usr/bin/$f"
		grep -qxF "/usr/share/man/man1/$f.1.gz" <<<"$files" ||
			why="$why $f.1"
	done
	result "$PKG_TOOLS holds $TOOLS_BIN and their man pages" \
		"${why:+missing:$why}"
}

# The dependency names the Slurm the build ran against, read here from
# dpkg and slurm_version.h, not from the packaging.
check_depends() {
	local dep want upstream="" vh num why=""
	dep=$(dpkg-deb -f "$DEB_PLUGIN" Depends)
	want=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins 2>/dev/null)
	vh=/usr/include/slurm/slurm_version.h
	num=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' "$vh")
	[ -n "$num" ] && upstream=$(printf '%d.%02d.%d' $((num >> 16 & 255)) \
		$((num >> 8 & 255)) $((num & 255)))
	case ", $dep," in
	*", slurm-wlm-basic-plugins (= $want),"*) ;;
	*) why="Depends: $dep; want slurm-wlm-basic-plugins (= $want)" ;;
	esac
	case $want in
	"$upstream"-*) ;;
	*) why="$why; installed Slurm $want is not $upstream ($vh)" ;;
	esac
	dpkg-deb -f "$DEB_PLUGIN" Description | grep -qF "Slurm $upstream exactly" ||
		why="$why; the description does not name Slurm $upstream"
	result "$PKG_PLUGIN depends on exactly the Slurm it was built against (slurm-wlm-basic-plugins (= $want))" \
		"$why"
}

check_lintian() {
	local out errors warnings
	out=$RUNROOT/lintian.txt
	lintian --fail-on error "$CHANGES" >"$out" 2>&1
	local rc=$?
	errors=$(grep -c '^E: ' "$out")
	warnings=$(grep -c '^W: ' "$out")
	sed -n 's/^\([EW]: .*\)/#   \1/p' "$out" | head -n 20
	note "lintian: $errors errors, $warnings warnings, $(grep -c '^[IP]: ' "$out") info/pedantic"
	if [ "$rc" = 0 ] && [ "$errors" = 0 ]; then
		ok "lintian reports no errors"
	else
		not_ok "lintian reports no errors" "exit $rc, $errors errors (see $out)"
	fi
}

# --- install, run, remove ---------------------------------------------------

install_packages() {
	local name="dpkg -i installs both packages" p
	if [ "$(id -u)" != 0 ]; then
		not_ok "$name" "needs root"
		return 1
	fi
	for p in "$PKG_PLUGIN" "$PKG_TOOLS"; do
		if installed "$p"; then
			not_ok "$name" "$p is installed already: not touching it (dpkg --purge $p)"
			return 1
		fi
	done
	if [ -e "$SYSPLUGDIR/select_locality.so" ]; then
		not_ok "$name" "$SYSPLUGDIR/select_locality.so exists and no package owns it: not overwriting it"
		return 1
	fi
	INSTALLED=1
	if ! dpkg -i "$DEB_PLUGIN" "$DEB_TOOLS" >"$RUNROOT/install.log" 2>&1; then
		sed 's/^/#   /' "$RUNROOT/install.log" | tail -n 10
		not_ok "$name" "dpkg -i failed"
		return 1
	fi
	local why=""
	for p in "$PKG_PLUGIN" "$PKG_TOOLS"; do
		[ "$(dpkg-query -W -f='${Status}' "$p")" = "install ok installed" ] ||
			why="$why $p not 'install ok installed'"
	done
	[ -f "$SYSPLUGDIR/select_locality.so" ] || why="$why no $SYSPLUGDIR/select_locality.so"
	for p in $TOOLS_BIN; do
		[ "$(command -v "$p")" = "/usr/bin/$p" ] || why="$why $p not on PATH"
	done
	/usr/bin/locality-replay --help >/dev/null 2>&1 || why="$why locality-replay --help fails"
	result "$name" "$why"
	[ -z "$why" ]
}

# place K - a K-node job must land where the installed locality-eval
# says the core puts it, given the nodes of the jobs already running.
place() {
	local k=$1 pred got id
	[ -n "$BAD" ] && return
	pred=$(/usr/bin/locality-eval --conf "$LCONF" --nodes "$ALLNODES" \
		--predict ${BUSY:+--busy "$BUSY"} -k "$k" 2>&1) || {
		BAD="locality-eval --predict -k $k failed: $pred"
		return
	}
	id=$(sub -N"$k" -t 30 600)
	if [ -z "$id" ] || ! wait_state "$id" RUNNING 20; then
		BAD="job ${id:-?} (-N$k) did not start: $(job_field "$id" Reason)"
		return
	fi
	got=$(job_field "$id" NodeList)
	if [ "$(expand "$pred")" != "$(expand "$got")" ]; then
		BAD="-N$k got $got, the core picks $pred (busy ${BUSY:-none})"
		return
	fi
	note "-N$k -> $got (as the packaged locality-eval predicts)"
	BUSY="${BUSY:+$BUSY,}$got"
}

run_cluster() {
	local name why="" conf log k id ids=""
	LCONF=$RUNROOT/locality.conf
	cat >"$LCONF" <<EOF
# deb-test.sh: 16 nodes on a 4x4 torus
Dimensions=4x4
Torus=yes
Strategy=mm
Curve=hilbert
EOF
	name="a cluster with no PluginDir starts under select/locality"
	if ! start_cluster deb locality "$LCONF"; then
		not_ok "$name" "cluster did not start"
		return
	fi
	conf=$SLURM_CONF
	log=$(dirname "$conf")/../log/slurmctld.log
	grep -q '^PluginDir' "$conf" && why="$why slurm.conf sets PluginDir"
	scontrol show config | grep -qE "^PluginDir += $SYSPLUGDIR\$" ||
		why="$why PluginDir is not $SYSPLUGDIR"
	scontrol show config | grep -qE '^SelectType += select/locality$' ||
		why="$why SelectType is not select/locality"
	grep -q 'select/locality: Grid=4x4 torus' "$log" ||
		why="$why no 'select/locality: Grid=4x4 torus' in slurmctld.log"
	result "$name" "$why"

	# Client commands load every select plugin of the plugin directory.
	why=$(sinfo -h -o %D 2>&1 >/dev/null)
	result "sinfo loads the packaged plugin without a message" \
		"${why:+sinfo says: $why}"

	BAD="" BUSY=""
	for k in 4 6 3 2; do place "$k"; done
	result "jobs land on the nodes the core picks (installed plugin and locality-eval agree)" "$BAD"
	scancel --quiet --user=root 2>/dev/null
	wait_all_idle 60 >/dev/null

	# Short jobs to completion: the jobcomp file has them, no overlap.
	for k in 3 5 2 8 4; do
		id=$(sub -N"$k" -t 1 1)
		ids="$ids $id"
	done
	why=""
	for id in $ids; do
		wait_state "$id" COMPLETED 60 ||
			why="$why job $id: $(job_field "$id" JobState)"
	done
	local jc
	jc=$(dirname "$conf")/../jobcomp.txt
	[ "$(grep -c 'JobState=COMPLETED' "$jc" 2>/dev/null)" -ge 5 ] ||
		why="$why fewer than 5 completed jobs in jobcomp.txt"
	/usr/bin/locality-eval --check-overlap --jobcomp "$jc" >/dev/null 2>&1 ||
		why="$why a node was in two jobs at once"
	result "short jobs complete, no node in two jobs at once" "$why"
	stop_cluster
}

remove_packages() {
	local why="" p f
	purge_packages
	sed 's/^/#   /' "$RUNROOT/purge.log" | grep -i -e error -e warning
	for p in "$PKG_PLUGIN" "$PKG_TOOLS"; do
		installed "$p" && why="$why $p still known to dpkg"
	done
	for f in "$SYSPLUGDIR/select_locality.so" /usr/bin/locality-replay \
		/usr/bin/locality-advise /usr/bin/locality-eval \
		/usr/share/man/man8/select_locality.8.gz \
		/usr/share/doc/$PKG_PLUGIN /usr/share/doc/$PKG_TOOLS; do
		[ -e "$f" ] && why="$why $f left behind"
	done
	[ -d "$SYSPLUGDIR" ] && [ -f "$SYSPLUGDIR/select_linear.so" ] ||
		why="$why Slurm's own plugins gone"
	result "dpkg --purge removes both packages and every file they installed" "$why"
}

main() {
	local t0=$SECONDS
	trap on_exit EXIT
	if [ -z "${BUILD:-}" ] || [ ! -f "$BUILD/Makefile" ]; then
		not_ok "dpkg-buildpackage -us -uc -b builds $PKG_PLUGIN and $PKG_TOOLS" \
			"no configured build directory"
		lib_finish
		return
	fi
	note "build: $BUILD; run dir: $RUNROOT"
	if build_packages; then
		check_contents
		check_depends
		check_lintian
		if install_packages; then
			run_cluster
		fi
		# Purged only if this run installed them.
		[ "$INSTALLED" = 1 ] && remove_packages
	fi
	note "deb-test: $((SECONDS - t0)) s"
	lib_finish
}

main; exit $?
