/* SPDX-License-Identifier: Apache-2.0 */
/* Shared between the XNNPACK driver's files (runtime-internal). */
#pragma once

#include <pthreadpool.h>

#include "driver.h"

/* The driver's calibrate hook (calibrate.c): time one float32 workload on
 * XNNPACK and in plain C, report the ratio. 0, -ENODEV or -ENOMEM. */
int rt__xnn_calibrate(const rt_driver_t *d, rt_driver_caps_t *ret);

/* A pool of `threads` threads shared by every group of `owner` (the
 * interpreter's tensor array), created on first use; NULL when out of
 * memory. Each acquire is paired with one release; the last release
 * destroys the pool. Thread-safe. (pool.c) */
pthreadpool_t rt__xnn_pool_acquire(const void *owner, size_t threads);
void rt__xnn_pool_release(pthreadpool_t pool);
