/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_gres_filter.c - compiles Slurm's own src/plugins/topology/common/gres_filter.c
 * from the Slurm source tree configure was given (never a copy in this
 * repository): topology/locality keeps cons_tres's accounting by calling
 * the same helpers Slurm's topology plugins link.
 */
#include "src/plugins/topology/common/gres_filter.c"
