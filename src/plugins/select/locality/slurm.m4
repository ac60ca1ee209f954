# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm.m4 - locate what the select/locality plugin needs to build, and
# pick the glue for the Slurm version it is given:
#
#   * Slurm's source tree (internal headers: src/common/select.h or
#     src/interfaces/select.h, src/slurmctld/slurmctld.h, ...), which no
#     binary package ships; tools/fetch-slurm-source.sh unpacks Debian's;
#   * the installed Slurm that will load the plugin (--with-slurm=PREFIX,
#     default /usr): its slurm/slurm_version.h, for plugin_version and the
#     version check, and its libslurmfull, for the symbol check;
#   * a plugin-only config.h holding the two macros Slurm's headers read
#     (NDEBUG, USE_ALIAS), so the project's config.h never reaches them.
#
# The version decides the plugins and their glue: select/locality for
# 22.05 and 24.11 (the select interface 25.05 cut down), topology/locality
# for 24.11 and 26.05 (under select/cons_tres). Each plugin's
# glue/SERIES holds sl_glue.h and what else differs between versions;
# the rest is the same source for every version.
#
# Sets AM_CONDITIONALs BUILD_PLUGIN (any plugin), BUILD_SELECT_PLUGIN,
# BUILD_TOPOLOGY_PLUGIN, SLURM_GLUE_2205, SLURM_GLUE_2411, SLURM_GLUE_2605
# and SLURM_SRC_DIR, SLURM_SERIES, SLURM_VERSION_STRING,
# SLURM_LIBSLURMFULL, SLURM_PLUGIN_CPPFLAGS and plugindir.

m4_define([LOC_SLURM_SERIES_LIST], [22.05 24.11 26.05])

AC_ARG_WITH([slurm-source],
	[AS_HELP_STRING([--with-slurm-source=DIR],
		[Slurm source tree, 22.05 or 24.11 (tools/fetch-slurm-source.sh
		 or apt-get source slurm-wlm); default: auto-detect
		 build/slurm-src/slurm-wlm-*; "no" skips the plugin])],
	[], [with_slurm_source=check])

AC_ARG_WITH([slurm],
	[AS_HELP_STRING([--with-slurm=PREFIX],
		[the installed Slurm that will load the plugin, of the same
		 version as the source tree (PREFIX/include/slurm/slurm_version.h;
		 default /usr, e.g. a Debian root's ROOT/usr)])],
	[], [with_slurm=/usr])

AC_ARG_WITH([plugindir],
	[AS_HELP_STRING([--with-plugindir=DIR],
		[install select_locality.so into DIR (default: PKGLIBDIR);
		 name DIR in slurm.conf PluginDir])],
	[], [with_plugindir=no])

loc_slurm_src=
loc_slurm_build=no
loc_slurm_series=

AS_CASE([$with_slurm_source],
	[no], [],
	[check], [
		# Auto-detect the tree fetch-slurm-source.sh unpacks.
		for loc_d in "$srcdir"/build/slurm-src/slurm-wlm-*/; do
			AS_IF([test -f "${loc_d}META"], [loc_slurm_src=${loc_d%/}])
		done
		AS_IF([test -z "$loc_slurm_src"],
		      [AC_MSG_WARN([Slurm source tree not found (run tools/fetch-slurm-source.sh or pass --with-slurm-source=DIR): building without the select/locality plugin])])
	],
	[yes], [AC_MSG_ERROR([--with-slurm-source needs a directory])],
	[loc_slurm_src=$with_slurm_source])

AS_IF([test -n "$loc_slurm_src"], [
	AC_MSG_CHECKING([for the Slurm source tree])
	# An absolute path: the compile runs in another directory.
	loc_slurm_src=`cd "$loc_slurm_src" 2>/dev/null && pwd`
	AS_IF([test -z "$loc_slurm_src" || test ! -f "$loc_slurm_src/META"],
	      [AC_MSG_RESULT([no])
	       AC_MSG_ERROR([$with_slurm_source is not a Slurm source tree (no META)])])
	AC_MSG_RESULT([$loc_slurm_src])

	# The version of the headers we are given: the tree's META.
	loc_maj=`sed -n 's/^[[ 	]]*Major:[[ 	]]*\([[0-9]]*\).*/\1/p' "$loc_slurm_src/META"`
	loc_min=`sed -n 's/^[[ 	]]*Minor:[[ 	]]*\([[0-9]]*\).*/\1/p' "$loc_slurm_src/META"`
	loc_mic=`sed -n 's/^[[ 	]]*Micro:[[ 	]]*\([[0-9]]*\).*/\1/p' "$loc_slurm_src/META"`
	AS_IF([test -z "$loc_maj" || test -z "$loc_min" || test -z "$loc_mic"],
	      [AC_MSG_ERROR([no Major/Minor/Micro in $loc_slurm_src/META])])
	loc_tree_series=`printf '%d.%02d' $loc_maj $(( 1$loc_min - 100 ))`
	loc_tree_ver="$loc_tree_series.$loc_mic"
	AC_MSG_CHECKING([which Slurm version's glue to build])
	for loc_s in LOC_SLURM_SERIES_LIST; do
		AS_IF([test "$loc_s" = "$loc_tree_series"], [loc_slurm_series=$loc_s])
	done
	AS_IF([test -z "$loc_slurm_series"],
	      [AC_MSG_RESULT([none])
	       AC_MSG_ERROR([select/locality supports Slurm m4_normalize(LOC_SLURM_SERIES_LIST); the source tree $loc_slurm_src is $loc_tree_ver])])
	AC_MSG_RESULT([$loc_slurm_series (glue/$loc_slurm_series)])

	# Every header the glue of that version includes.
	AS_IF([test "$loc_slurm_series" = 22.05],
	      [loc_select_h=src/common/select.h],
	      [loc_select_h=src/interfaces/select.h])
	loc_topo_c=
	AS_IF([test "$loc_slurm_series" != 22.05],
	      [loc_topo_c="src/interfaces/topology.h src/plugins/topology/common/eval_nodes.c src/plugins/topology/common/common_topo.c src/plugins/topology/common/gres_filter.c src/plugins/topology/common/gres_sched.c"])
	for loc_f in $loc_select_h src/common/slurm_xlator.h \
		     src/slurmctld/slurmctld.h src/common/job_resources.h \
		     slurm/slurm.h $loc_topo_c; do
		AS_IF([test ! -f "$loc_slurm_src/$loc_f"],
		      [AC_MSG_ERROR([$loc_slurm_src is not a Slurm $loc_slurm_series source tree (missing $loc_f)])])
	done

	# The version header: a configured tree's own, else the installed
	# Slurm's (the slurmctld that will load the plugin), else one made
	# from the tree's META.
	loc_prefix=`cd "$with_slurm" 2>/dev/null && pwd`
	AS_IF([test -z "$loc_prefix"],
	      [AC_MSG_ERROR([--with-slurm=$with_slurm: no such directory])])
	AC_MSG_CHECKING([for slurm/slurm_version.h])
	loc_slurm_vh=
	loc_slurm_vh_gen=no
	for loc_f in "$loc_slurm_src/slurm/slurm_version.h" \
		     "$loc_prefix/include/slurm/slurm_version.h"; do
		AS_IF([test -z "$loc_slurm_vh" && test -f "$loc_f"],
		      [loc_slurm_vh=$loc_f])
	done
	AS_IF([test -z "$loc_slurm_vh"], [
		loc_slurm_vnum=`printf '0x%02x%02x%02x' $loc_maj $(( 1$loc_min - 100 )) $loc_mic`
		loc_slurm_vh_gen=yes
		loc_slurm_vh="$loc_slurm_src/META"
	], [
		loc_slurm_vnum=`sed -n 's/^@%:@define[[ 	]]*SLURM_VERSION_NUMBER[[ 	]]*\(0x[[0-9a-fA-F]]*\).*/\1/p' "$loc_slurm_vh"`
	])
	AC_MSG_RESULT([$loc_slurm_vh])
	AS_IF([test -z "$loc_slurm_vnum"],
	      [AC_MSG_ERROR([no SLURM_VERSION_NUMBER in $loc_slurm_vh])])
	loc_vmaj=$(( ($loc_slurm_vnum >> 16) & 255 ))
	loc_vmin=$(( ($loc_slurm_vnum >> 8) & 255 ))
	loc_vmic=$(( $loc_slurm_vnum & 255 ))
	SLURM_VERSION_STRING=`printf '%d.%02d.%d' $loc_vmaj $loc_vmin $loc_vmic`
	AC_MSG_CHECKING([the Slurm version])
	AC_MSG_RESULT([$SLURM_VERSION_STRING ($loc_slurm_vnum)])
	AS_CASE([$SLURM_VERSION_STRING],
		["$loc_slurm_series".*], [],
		[AC_MSG_ERROR([the source tree is Slurm $loc_tree_ver but $loc_slurm_vh says $SLURM_VERSION_STRING: pass --with-slurm=PREFIX of a Slurm $loc_slurm_series installation])])
	AS_IF([test "$loc_tree_ver" != "$SLURM_VERSION_STRING"],
	      [AC_MSG_WARN([source tree is $loc_tree_ver but slurm_version.h says $SLURM_VERSION_STRING: the plugin declares $SLURM_VERSION_STRING and loads only into that slurmctld])])
	AS_IF([test "$loc_slurm_vh_gen" = yes],
	      [AC_MSG_WARN([no installed slurm_version.h: using $SLURM_VERSION_STRING from META; slurmctld loads the plugin only if it is exactly that version])])

	# libslurmfull, for check-symbols.sh (Debian's place, then upstream's).
	SLURM_LIBSLURMFULL=
	for loc_f in "$loc_prefix"/lib/*/slurm-wlm/libslurmfull.so \
		     "$loc_prefix"/lib/slurm/libslurmfull.so \
		     "$loc_prefix"/lib64/slurm/libslurmfull.so; do
		AS_IF([test -z "$SLURM_LIBSLURMFULL" && test -f "$loc_f"],
		      [SLURM_LIBSLURMFULL=$loc_f])
	done
	loc_slurm_build=yes
])

AM_CONDITIONAL([BUILD_PLUGIN], [test "x$loc_slurm_build" = xyes])
AM_CONDITIONAL([SLURM_GLUE_2205], [test "x$loc_slurm_series" = x22.05])
AM_CONDITIONAL([SLURM_GLUE_2411], [test "x$loc_slurm_series" = x24.11])
AM_CONDITIONAL([SLURM_GLUE_2605], [test "x$loc_slurm_series" = x26.05])
AM_CONDITIONAL([BUILD_SELECT_PLUGIN],
	[test "x$loc_slurm_series" = x22.05 || test "x$loc_slurm_series" = x24.11])
AM_CONDITIONAL([BUILD_TOPOLOGY_PLUGIN],
	[test "x$loc_slurm_series" = x24.11 || test "x$loc_slurm_series" = x26.05])

SLURM_SRC_DIR=$loc_slurm_src
SLURM_SERIES=$loc_slurm_series
AC_SUBST([SLURM_SRC_DIR])
AC_SUBST([SLURM_SERIES])
AC_SUBST([SLURM_VERSION_STRING])
AC_SUBST([SLURM_LIBSLURMFULL])

# Slurm's headers are -isystem (their warnings are not ours); the
# plugin-only config dir is -iquote, searched before -I, so the
# '#include "config.h"' in Slurm's headers finds it and never the
# project's config.h in the build root; it also holds the
# slurm/slurm_version.h configure checked, found before any other. The
# glue directory of the version (each plugin names its own) supplies
# sl_glue.h.
SLURM_PLUGIN_CPPFLAGS="-iquote \$(top_builddir)/src/plugins/select/locality/slurm-config -I\$(top_builddir)/src/plugins/select/locality/slurm-config -isystem $loc_slurm_src -isystem $loc_slurm_src/src/common"
AC_SUBST([SLURM_PLUGIN_CPPFLAGS])

AS_IF([test "x$with_plugindir" = xno || test "x$with_plugindir" = xyes],
      [plugindir='$(pkglibdir)'], [plugindir=$with_plugindir])
AC_SUBST([plugindir])

# Written by config.status into the build tree only.
AC_CONFIG_COMMANDS([slurm-plugin-config], [
	AS_IF([test "x$loc_slurm_build" = xyes], [
		loc_cfg=src/plugins/select/locality/slurm-config
		AS_MKDIR_P([$loc_cfg/slurm])
		cat > "$loc_cfg/config.h.tmp" <<LOC_EOF
/* Generated by configure for select/locality: the only config.h
 * macros that reach a select plugin through Slurm's headers, set as
 * Debian builds Slurm (--disable-debug). Not the project's config.h. */
#define NDEBUG 1
#define USE_ALIAS 1
LOC_EOF
		AS_IF([cmp -s "$loc_cfg/config.h.tmp" "$loc_cfg/config.h"],
		      [rm -f "$loc_cfg/config.h.tmp"],
		      [mv -f "$loc_cfg/config.h.tmp" "$loc_cfg/config.h"])
		AS_IF([test "x$loc_slurm_vh_gen" = xyes], [
			cat > "$loc_cfg/slurm/slurm_version.h.tmp" <<LOC_EOF
/* Generated by configure from $loc_slurm_src/META. */
#ifndef _SLURM_VERSION_H_
#define _SLURM_VERSION_H_
#define SLURM_VERSION_NUMBER $loc_slurm_vnum
#define SLURM_VERSION_NUM(a,b,c) (((a) << 16) + ((b) << 8) + (c))
#define SLURM_VERSION_MAJOR(a)   (((a) >> 16) & 0xff)
#define SLURM_VERSION_MINOR(a)   (((a) >>  8) & 0xff)
#define SLURM_VERSION_MICRO(a)    ((a)        & 0xff)
#endif
LOC_EOF
		], [cp "$loc_slurm_vh" "$loc_cfg/slurm/slurm_version.h.tmp"])
		AS_IF([cmp -s "$loc_cfg/slurm/slurm_version.h.tmp" "$loc_cfg/slurm/slurm_version.h"],
		      [rm -f "$loc_cfg/slurm/slurm_version.h.tmp"],
		      [mv -f "$loc_cfg/slurm/slurm_version.h.tmp" "$loc_cfg/slurm/slurm_version.h"])
	])
], [
	loc_slurm_build=$loc_slurm_build
	loc_slurm_vh_gen=$loc_slurm_vh_gen
	loc_slurm_vh='$loc_slurm_vh'
	loc_slurm_vnum=$loc_slurm_vnum
	loc_slurm_src='$loc_slurm_src'
])
