/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * Internal to runtime/ (settings.c and settings-pb.c): the helper both
 * settings readers use to fill their error text.
 */
#pragma once

#include <stddef.h>

/* Format a message into err (when err and size are set); returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
int rt__settings_fail(char *err, size_t size, const char *fmt, ...);
