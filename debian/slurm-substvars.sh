#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-substvars.sh BUILDDIR - prints the substvars that tie
# slurm-wlm-locality-plugin to the Slurm it was built against:
#
#   slurm:Version=X.Y.Z      the version configure found (the plugin's
#                            plugin_version; slurmctld refuses any other)
#   slurm:Depends=slurm-wlm-basic-plugins (= V)
#                            V, the Debian version of that Slurm: the one
#                            of the installed libslurm-dev, whose
#                            slurm_version.h configure read
#
# slurm-wlm-basic-plugins holds Slurm's plugin directory and
# libslurmfull.so, which the plugin's Slurm symbols resolve against;
# Slurm's own plugin packages depend on it with "=" too. Fails when the
# Slurm source tree is a Debian tree of another version than V (its
# internal headers would not match the Slurm that loads the plugin).
set -eu

prog=slurm-substvars.sh
die() {
	echo "$prog: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $prog BUILDDIR"
mk=$1/Makefile
[ -f "$mk" ] || die "$mk not found (configure first)"
upstream=$(sed -n 's/^SLURM_VERSION_STRING = //p' "$mk")
tree=$(sed -n 's/^SLURM_SRC_DIR = //p' "$mk")
[ -n "$upstream" ] && [ -n "$tree" ] ||
	die "$mk names no Slurm version or source tree: the plugin was not configured"

deb=$(dpkg-query -W -f='${Version}' libslurm-dev 2>/dev/null) ||
	die "libslurm-dev is not installed"
# The upstream part of V: no epoch, no Debian revision.
deb_up=${deb#*:}
deb_up=${deb_up%-*}
[ "$deb_up" = "$upstream" ] ||
	die "configure found Slurm $upstream, but libslurm-dev is $deb"

if [ -f "$tree/debian/changelog" ]; then
	tree_deb=$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Version)
	[ "$tree_deb" = "$deb" ] ||
		die "the Slurm source tree $tree is $tree_deb, the installed libslurm-dev $deb: build against the source of the installed Slurm"
fi

echo "slurm:Version=$upstream"
echo "slurm:Depends=slurm-wlm-basic-plugins (= $deb)"
