/* SPDX-License-Identifier: Apache-2.0 */
/* Shared between the XNNPACK driver's files (runtime-internal). */
#pragma once

#include "driver.h"

/* The driver's calibrate hook (calibrate.c): time one float32 workload on
 * XNNPACK and in plain C, report the ratio. 0, -ENODEV or -ENOMEM. */
int rt__xnn_calibrate(const rt_driver_t *d, rt_driver_caps_t *ret);
