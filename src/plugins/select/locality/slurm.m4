# SPDX-License-Identifier: GPL-2.0-or-later
# Locates Slurm's source tree for the select plugin (filled in by the plugin work).
AC_ARG_WITH([slurm-source],
	[AS_HELP_STRING([--with-slurm-source=DIR], [Slurm 22.05 source tree (from apt-get source slurm-wlm)])],
	[], [with_slurm_source=no])
AM_CONDITIONAL([BUILD_PLUGIN], [false])
