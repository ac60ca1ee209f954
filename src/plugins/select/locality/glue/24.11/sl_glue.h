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
#include "src/stepmgr/gres_stepmgr.h"

/* The Slurm series this glue is for (logged at start). */
#define SL_SLURM_SERIES "24.11"

/* 24.11 has only list_t and list_itr_t; the shared code keeps 22.05's
 * pointer typedefs, which mean the same. */
typedef list_t *List;
typedef list_itr_t *ListIterator;

/* A feature inside brackets ("[a|b]"), which only slurmctld evaluates. */
#define SL_FEATURE_BRACKETED(f) ((f)->bracket)

/* Whether slurmctld gave the job every GRES of its nodes: it replaced
 * the job's GRES request by each node's whole set, which only the
 * _whole_node allocation reads. Every job of this plugin is so marked
 * (22.05: slurmctld, for a plugin that is not cons_tres; 24.11: job_test,
 * sl_glue.c); the test keeps Slurm's own condition. */
#define SL_JOB_WHOLE_NODE(job) \
	((job)->details && \
	 ((job)->details->whole_node & WHOLE_NODE_REQUIRED))

/* Slurm's GRES allocation for a job on one node (all of them, or what
 * it asks for), its release, the merge of two jobs' records and the
 * job's device list for scontrol (sl_devices.c); 24.11 keeps them in
 * src/stepmgr/gres_stepmgr.h. */
#define SL_GRES_JOB_ALLOC_WHOLE_NODE gres_stepmgr_job_alloc_whole_node
#define SL_GRES_JOB_ALLOC gres_stepmgr_job_alloc
#define SL_GRES_JOB_DEALLOC gres_stepmgr_job_dealloc
#define SL_GRES_JOB_BUILD_DETAILS(job) \
	gres_stepmgr_job_build_details( \
		(job)->gres_list_alloc, (job)->job_resrcs->nodes, \
		&(job)->gres_detail_cnt, &(job)->gres_detail_str, \
		&(job)->gres_used)
#define SL_GRES_JOB_MERGE gres_stepmgr_job_merge
/* Only slurmctld has them; clients load the plugin too. */
#pragma weak gres_stepmgr_job_alloc_whole_node
#pragma weak gres_stepmgr_job_build_details
#pragma weak gres_stepmgr_job_alloc
#pragma weak gres_stepmgr_job_dealloc
#pragma weak gres_stepmgr_job_merge

#endif /* SL_GLUE_H */
