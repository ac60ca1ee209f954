/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_glue.h (Slurm 22.05) - the Slurm headers select/locality is built
 * against, where 22.05 keeps them, and the one name the shared plugin
 * code uses that 22.05 spells differently. configure puts this directory
 * on the include path when the Slurm it is given is 22.05; 24.11's
 * counterpart is glue/24.11/sl_glue.h.
 */
#ifndef SL_GLUE_H
#define SL_GLUE_H

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h" /* first of Slurm's internal headers */
#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/gres.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

/* The Slurm series this glue is for (logged at start). */
#define SL_SLURM_SERIES "22.05"

/* 23.02 and later name the job details record job_details_t; the shared
 * code uses that name. */
typedef struct job_details job_details_t;

/* A feature inside brackets: 22.05 marks it by its operator (XOR, XAND),
 * which the constraint reader (sl_compact_wait.c) refuses already. */
#define SL_FEATURE_BRACKETED(f) ((void)(f), false)

#endif /* SL_GLUE_H */
