/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER: being written. */
#include "loc_hilbert.h"
