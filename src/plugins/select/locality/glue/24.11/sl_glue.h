/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sl_glue.h (Slurm 24.11) - the Slurm headers select/locality is built
 * against, where 24.11 keeps them (the select interface moved to
 * src/interfaces/ in 23.02), and the names the shared plugin code uses
 * that 24.11 dropped. configure puts this directory on the include path
 * when the Slurm it is given is 24.11; 22.05's counterpart is
 * glue/22.05/sl_glue.h.
 */
#ifndef SL_GLUE_H
#define SL_GLUE_H

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h" /* first of Slurm's internal headers */
#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/job_features.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/node_features.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/slurmctld/slurmctld.h"

/* The Slurm series this glue is for (logged at start). */
#define SL_SLURM_SERIES "24.11"

/* 24.11 has only list_t and list_itr_t; the shared code keeps 22.05's
 * pointer typedefs, which mean the same. */
typedef list_t *List;
typedef list_itr_t *ListIterator;

/* A feature inside brackets ("[a|b]"), which only slurmctld evaluates. */
#define SL_FEATURE_BRACKETED(f) ((f)->bracket)

#endif /* SL_GLUE_H */
