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
#include "src/slurmctld/gres_ctld.h"

/* The Slurm series this glue is for (logged at start). */
#define SL_SLURM_SERIES "22.05"

/* 23.02 and later name the job details record job_details_t; the shared
 * code uses that name. */
typedef struct job_details job_details_t;

/* A feature inside brackets: 22.05 marks it by its operator (XOR, XAND),
 * which the constraint reader (sl_compact_wait.c) refuses already. */
#define SL_FEATURE_BRACKETED(f) ((void)(f), false)

/* Whether slurmctld gave the job every GRES of its nodes: it replaced
 * the job's GRES request by each node's whole set, which only the
 * _whole_node allocation reads. Every job of this plugin is so marked
 * (22.05: slurmctld, for a plugin that is not cons_tres; 24.11: job_test,
 * sl_glue.c); the test keeps Slurm's own condition. */
#define SL_JOB_WHOLE_NODE(job) \
	((job)->details && (job)->details->whole_node == WHOLE_NODE_REQUIRED)

/* Slurm's GRES allocation for a job on one node (all of them, or what
 * it asks for), its release, the merge of two jobs' records and the
 * job's device list for scontrol (sl_devices.c); 22.05 keeps them in
 * src/slurmctld/gres_ctld.h. */
#define SL_GRES_JOB_ALLOC_WHOLE_NODE gres_ctld_job_alloc_whole_node
#define SL_GRES_JOB_ALLOC gres_ctld_job_alloc
#define SL_GRES_JOB_DEALLOC gres_ctld_job_dealloc
#define SL_GRES_JOB_BUILD_DETAILS(job) \
	gres_ctld_job_build_details((job)->gres_list_alloc, \
				    &(job)->gres_detail_cnt, \
				    &(job)->gres_detail_str, &(job)->gres_used)
#define SL_GRES_JOB_MERGE gres_ctld_job_merge
/* Only slurmctld has them; clients load the plugin too. */
#pragma weak gres_ctld_job_alloc_whole_node
#pragma weak gres_ctld_job_build_details
#pragma weak gres_ctld_job_alloc
#pragma weak gres_ctld_job_dealloc
#pragma weak gres_ctld_job_merge

#endif /* SL_GLUE_H */
