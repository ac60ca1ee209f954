/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loc_walltime.h - walltime-aware allocation shared by both drivers
 * (seed 004, Tang et al. IPDPS 2011), one header a scheme:
 *
 *   loc_walltime_sl.h      the SL score (SL runs inside loc_alloc_select())
 *   loc_walltime_pf.h      PF's partner choice and idle neighbour region
 *   loc_walltime_holds.h   soft holds of PF regions
 *   loc_walltime_adjest.h  AdjEst walltime adjustment
 *
 * Drivers include this header for all four; the core includes the one it
 * uses.
 */
#ifndef LOC_WALLTIME_H
#define LOC_WALLTIME_H

#include "loc_walltime_adjest.h"
#include "loc_walltime_holds.h"
#include "loc_walltime_pf.h"
#include "loc_walltime_sl.h"

#endif /* LOC_WALLTIME_H */
