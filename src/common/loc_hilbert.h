/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER: being written. */
#ifndef LOC_HILBERT_H
#define LOC_HILBERT_H
#endif
