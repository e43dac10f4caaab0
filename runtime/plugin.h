/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * Plugin drivers: shared objects exporting one versioned entry point,
 *
 *   const rt_driver_t *acceld_driver_entry_v1(uint32_t runtime_abi_version);
 *
 * that returns the plugin's driver (driver.h) or NULL. The driver's
 * abi_version must equal RT_DRIVER_ABI_VERSION; a plugin built against
 * another version is refused with a message and unloaded. A loaded plugin
 * stays mapped until process exit (drivers may be in use anywhere).
 */
#pragma once

#include <stddef.h>

#include "driver.h"

/*
 * dlopen `path`, call its entry point and register the driver. *ret (may be
 * NULL) gets it. 0; -ENOENT / -ELIBBAD (not loadable, no entry point, NULL
 * driver); -EPROTO (ABI version mismatch: "plugin X: driver ABI version 7,
 * this runtime needs 1"); -EEXIST (a driver of that name is registered
 * already) — each with a message in err. Thread-safe.
 */
int rt_plugin_load(const char *path, const rt_driver_t **ret, char *err, size_t err_size);

/*
 * Load every "*.so" in `dir` (sorted by name). Failures do not stop the
 * scan; each one's message is passed to `cb` (may be NULL). Returns the
 * number of drivers loaded, or -errno when the directory cannot be read.
 */
int rt_plugin_load_dir(const char *dir, void (*cb)(void *user, const char *path, int error, const char *message),
                       void *user);

/*
 * Never load plugins on demand in this process (the interpreter otherwise
 * loads $ACCELD_PLUGIN_DIR the first time a delegate no registered driver
 * provides is asked for). acceld calls it when its plugins run in driver
 * hosts, so that no plugin code is ever mapped into the daemon.
 */
void rt_plugin_autoload_disable(void);
