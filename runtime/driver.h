/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The driver registry and the built-in drivers. The driver interface itself
 * (rt_driver_t, its capabilities, graph and group views, the weights hook,
 * and every type they pass) is the driver ABI, <accel/driver.h>
 * (runtime/include/accel/driver.h), modelled on the NNAPI IDevice.
 *
 * The built-in drivers are `reference` (every op the resolver has) and, when
 * built with XNNPACK, `xnnpack`. Plugin drivers (plugin.h) return the same
 * struct from their entry point.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/driver.h"
#include "kernel.h"
#include "model.h"
#include "settings.h"

/* ---- registry (driver.c) ---- */

/*
 * Register `d` (borrowed; must stay valid until rt_driver_unregister() or
 * process exit). Returns 0, -EINVAL (NULL, no name, missing hooks),
 * -EPROTO (abi_version is not RT_DRIVER_ABI_VERSION), -EEXIST (a driver of
 * that name exists) or -ENOMEM. Thread-safe.
 */
int rt_driver_register(const rt_driver_t *d);

/* Remove the driver named `name`. 0 or -ENOENT. Thread-safe; the caller
 * guarantees nothing still uses it. */
int rt_driver_unregister(const char *name);

/* The driver named `name` (case-insensitive), registering the built-in
 * drivers on first use; NULL when there is none. Thread-safe. */
const rt_driver_t *rt_driver_find(const char *name);

/* Number of registered drivers and the i-th (registration order). */
size_t rt_driver_count(void);
const rt_driver_t *rt_driver_get(size_t i);

/*
 * Capabilities of `d`, calibrated on the first call per driver and cached in
 * memory. 0 or the calibration's -errno. Thread-safe.
 */
int rt_driver_capabilities(const rt_driver_t *d, rt_driver_caps_t *ret);

/* Forget cached capabilities (tests). */
void rt_driver_capabilities_reset(void);

/* ---- built-in drivers ---- */

/* The reference kernels as a driver (drivers/reference.c). */
const rt_driver_t *rt_driver_reference(void);

/* The XNNPACK driver (drivers/xnnpack/), or NULL when built without it. */
const rt_driver_t *rt_driver_xnnpack(void);

/* Map an xnn_status value to -errno (drivers/xnnpack only). */
int rt__xnn_status_to_errno(int status);
