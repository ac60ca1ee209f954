/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER */
#include "loc_hostlist.h"
