/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_common_topo.c - compiles Slurm's own src/plugins/topology/common/common_topo.c
 * from the Slurm source tree configure was given (never a copy in this
 * repository): topology/locality keeps cons_tres's accounting by calling
 * the same helpers Slurm's topology plugins link.
 */
#include "src/plugins/topology/common/common_topo.c"
