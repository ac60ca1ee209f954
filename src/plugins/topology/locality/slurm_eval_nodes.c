/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_eval_nodes.c - compiles Slurm's own src/plugins/topology/common/eval_nodes.c
 * from the Slurm source tree configure was given (never a copy in this
 * repository): topology/locality keeps cons_tres's accounting by calling
 * the same helpers Slurm's topology plugins link.
 */
#include "src/plugins/topology/common/eval_nodes.c"
